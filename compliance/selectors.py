"""Reads. The ONE place that decides what a user may see.

Every read path (views, API, retrieval SQL, the cache, admin, downloads) asks
these functions. Another workspace's object is simply not found: callers turn
that into a 404, never a 403, so ids leak nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet
from django.http import Http404

from .models import Assessment, LegalDocument, Membership, UserFile, Workspace


@dataclass(frozen=True)
class AccessScope:
    """What one user may read inside one workspace.

    `key` identifies the scope for caches: two users share cached retrieval
    only if they would see exactly the same sources.
    """

    workspace_id: int
    user_id: int
    role: str

    @property
    def workspace_ids(self) -> tuple[int, ...]:
        return (self.workspace_id,)

    @property
    def key(self) -> str:
        # Every member of a workspace sees the same sources today (private files
        # are hidden from everyone's AI context), so the role does not split the key.
        return f"ws{self.workspace_id}"

    @property
    def can_edit(self) -> bool:
        return self.role in (Membership.Role.OWNER, Membership.Role.EDITOR)

    @property
    def can_manage(self) -> bool:
        return self.role == Membership.Role.OWNER


def workspace_list_for_user(user) -> QuerySet[Workspace]:
    if not user.is_authenticated:
        return Workspace.objects.none()
    return Workspace.objects.filter(memberships__user=user).order_by("name")


def membership_get(user, workspace: Workspace | int) -> Membership | None:
    if not user.is_authenticated:
        return None
    ws_id = workspace if isinstance(workspace, int) else workspace.pk
    return Membership.objects.filter(user=user, workspace_id=ws_id).select_related("workspace").first()


def workspace_get_for_user(user, slug: str) -> tuple[Workspace, Membership]:
    """The workspace and the user's membership, or Http404."""
    if not user.is_authenticated:
        raise Http404
    membership = (
        Membership.objects.select_related("workspace")
        .filter(user=user, workspace__slug=slug)
        .first()
    )
    if membership is None:
        raise Http404("Arbetsytan finns inte.")
    return membership.workspace, membership


def access_scope_for(user, workspace: Workspace) -> AccessScope:
    membership = membership_get(user, workspace)
    if membership is None:
        raise Http404("Arbetsytan finns inte.")
    return AccessScope(workspace_id=workspace.pk, user_id=user.pk, role=membership.role)


def user_file_list(workspace: Workspace) -> QuerySet[UserFile]:
    return UserFile.objects.alive().filter(workspace=workspace).select_related("uploaded_by")


def user_file_get(workspace: Workspace, file_id: int) -> UserFile:
    try:
        return user_file_list(workspace).get(pk=file_id)
    except (UserFile.DoesNotExist, ValueError, TypeError):
        raise Http404("Filen finns inte.") from None


def assessment_list(workspace: Workspace) -> QuerySet[Assessment]:
    return Assessment.objects.filter(workspace=workspace).select_related("legal_document", "owner")


def assessment_get(workspace: Workspace, assessment_id: int) -> Assessment:
    try:
        return assessment_list(workspace).get(pk=assessment_id)
    except (Assessment.DoesNotExist, ValueError, TypeError):
        raise Http404("Bedömningen finns inte.") from None


def legal_document_list() -> QuerySet[LegalDocument]:
    return LegalDocument.objects.all()


def legal_document_get(sfs_number: str) -> LegalDocument:
    try:
        return LegalDocument.objects.get(sfs_number=sfs_number)
    except LegalDocument.DoesNotExist:
        raise Http404("Författningen finns inte.") from None


# The SQL predicate retrieval uses for chunks a scope may read. Kept beside the
# ORM selectors so the two definitions of "visible" are read together.
CHUNK_SCOPE_SQL = """
(c.workspace_id IS NULL OR (
    c.workspace_id = ANY(%(workspace_ids)s)
    AND (c.user_file_id IS NULL OR EXISTS (
        SELECT 1 FROM compliance_userfile f
        WHERE f.id = c.user_file_id AND f.deleted_at IS NULL AND NOT f.is_private))
))
"""


def chunk_list_visible(scope: AccessScope):
    """The ORM twin of CHUNK_SCOPE_SQL, for pages and admin."""
    from django.db.models import Q

    from chunks.models import ContentChunk

    return ContentChunk.objects.filter(
        Q(workspace__isnull=True)
        | (
            Q(workspace_id__in=scope.workspace_ids)
            & (Q(user_file__isnull=True) | Q(user_file__deleted_at__isnull=True, user_file__is_private=False))
        )
    )
