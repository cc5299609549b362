"""Reads. The ONE place that decides what a user may see.

Every read path (views, API, retrieval, the cache, downloads) asks these
functions; which chunks a scope may search is built on AccessScope in
chunks/selectors.py. Admin lists workspace data through `workspace_list_for_user`
too (compliance.admin.WorkspaceScopedAdmin), except for superusers, who operate
the service. Another workspace's object is simply not found: callers turn that
into a 404, never a 403, so ids leak nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, User
from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import Http404

from .clock import swedish_date
from .filters import AssessmentFilter, LegalDocumentFilter, UserFileFilter
from .filters import apply as apply_filters
from .models import (
    ApiToken,
    Assessment,
    LegalDocument,
    Membership,
    PersonalPreference,
    ProfileFact,
    UserFile,
    VersionState,
    Workspace,
    WorkspaceProfile,
)
from .sql import dict_cursor


@dataclass(frozen=True)
class AccessScope:
    """What one user may read inside one workspace.

    `key` identifies the scope for caches: two users share cached retrieval
    only if they would see exactly the same sources.
    """

    workspace_id: int
    user_id: int
    role: str
    # Other workspaces the question named, where the user is a member and which allow it.
    extra_workspace_ids: tuple[int, ...] = ()

    @property
    def workspace_ids(self) -> tuple[int, ...]:
        return (self.workspace_id, *self.extra_workspace_ids)

    @property
    def key(self) -> str:
        # Every member of a workspace sees the same sources today (private files
        # are hidden from everyone's AI context), so the role does not split the key.
        extra = "".join(f"+ws{i}" for i in sorted(self.extra_workspace_ids))
        return f"ws{self.workspace_id}{extra}"


def workspace_list_for_user(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Workspace]:
    if not user.is_authenticated:
        return Workspace.objects.none()
    return Workspace.objects.filter(memberships__user=user).order_by("name")


def membership_get(user: AbstractBaseUser | AnonymousUser, workspace: Workspace | int) -> Membership | None:
    if not user.is_authenticated:
        return None
    ws_id = workspace if isinstance(workspace, int) else workspace.pk
    return Membership.objects.filter(user=user, workspace_id=ws_id).select_related("workspace").first()


def membership_get_by_slug(user: AbstractBaseUser | AnonymousUser, slug: str) -> Membership:
    """The user's membership in the workspace named `slug`, its workspace loaded with it; else Http404.

    The one function that decides whether a user may enter a workspace: every page and API view that
    takes a workspace slug resolves it here. Another workspace is not found (a 404, never a 403), so a
    slug leaks nothing."""
    if not user.is_authenticated:
        raise Http404
    membership = (
        Membership.objects.select_related("workspace")
        .filter(user=user, workspace__slug=slug)
        .first()
    )
    if membership is None:
        raise Http404("Arbetsytan finns inte.")
    return membership


def workspace_get_for_user(user: AbstractBaseUser | AnonymousUser, slug: str) -> Workspace:
    """The workspace named `slug` if the user is a member (membership_get_by_slug decides), for callers
    that need no role; else Http404."""
    return membership_get_by_slug(user, slug).workspace


def access_scope_for(user: AbstractBaseUser | AnonymousUser, workspace: Workspace, *, named: Iterable[int] = (),
                     membership: Membership | None = None) -> AccessScope:
    """The user's scope in `workspace`, widened by the `named` workspaces (the ones the
    question names) only where the user is a member and the workspace allows it; any
    other id in `named` is ignored, exactly as if it had not been named.

    `membership`: the user's membership in `workspace` when the caller has just read it
    (an API view resolving the slug), so it is not read twice."""
    if membership is not None and membership.user_id == user.pk and membership.workspace_id == workspace.pk:
        role = membership.role
    else:
        role = _member_role(user, workspace.pk) if user.is_authenticated else None
    if role is None:
        raise Http404("Arbetsytan finns inte.")
    wanted = {i for i in named if isinstance(i, int) and i != workspace.pk}
    extra = tuple(sorted(
        Workspace.objects.filter(pk__in=wanted, allow_cross_workspace=True, memberships__user=user)
        .values_list("pk", flat=True)
    )) if wanted else ()
    return AccessScope(workspace_id=workspace.pk, user_id=user.pk, role=role, extra_workspace_ids=extra)


def _member_role(user: AbstractBaseUser, workspace_id: int) -> str | None:
    # Every turn asks this: one row by the (user, workspace) unique index, in plain SQL (the ORM's
    # query building costs three times the round trip here).
    with dict_cursor() as cursor:
        cursor.execute("SELECT role FROM compliance_membership WHERE user_id = %s AND workspace_id = %s",
                       [user.pk, workspace_id])
        row = cursor.fetchone()
    return row["role"] if row else None


def workspace_memory_version(workspace: Workspace) -> int:
    """The workspace's memory_version as stored now (a caller's instance may be older than a change).
    Read on every turn, so in plain SQL like _member_role."""
    with dict_cursor() as cursor:
        cursor.execute("SELECT memory_version FROM compliance_workspace WHERE id = %s", [workspace.pk])
        row = cursor.fetchone()
    return row["memory_version"] if row else 0


def workspace_versions(workspace_ids: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """(id, knowledge_version) of the given workspaces, by id: what a widened cache key needs."""
    ids = list(workspace_ids)
    if not ids:
        return ()
    return tuple(Workspace.objects.filter(pk__in=ids).order_by("pk").values_list("pk", "knowledge_version"))


def source_dates(*, file_ids: Iterable[int] = (), assessment_ids: Iterable[int] = (),
                 legal_document_ids: Iterable[int] = ()) -> dict[tuple[str, int], dict]:
    """The dates a source card shows, by (source type, id): a file's upload date and version, an
    assessment's creation date, a statute's amended_through. Callers pass ids they already may see."""
    found: dict[tuple[str, int], dict] = {}
    for pk, created, version in UserFile.objects.filter(pk__in=list(file_ids)).values_list("pk", "created_at",
                                                                                           "version"):
        found[("USER_FILE", pk)] = {"date": swedish_date(created), "version": version}
    for pk, created in Assessment.objects.filter(pk__in=list(assessment_ids)).values_list("pk", "created_at"):
        found[("ASSESSMENT", pk)] = {"date": swedish_date(created)}
    for pk, amended in LegalDocument.objects.filter(pk__in=list(legal_document_ids)).values_list(
            "pk", "amended_through"):
        found[("LEGAL_DOCUMENT", pk)] = {"amended_through": amended}
    return found


def workspace_mention_candidates(user: AbstractBaseUser, workspace: Workspace) -> list[tuple[int, str, str]]:
    """(id, name, slug) of the user's other workspaces: the names a question may mention.
    Only the user's own memberships, so another tenant's name can never match."""
    return list(workspace_list_for_user(user).exclude(pk=workspace.pk).values_list("pk", "name", "slug"))


def user_file_list(workspace: Workspace, *, filters: dict | None = None) -> QuerySet[UserFile]:
    """The workspace's documents that are not deleted, each as its current version
    (private ones included: members see them)."""
    qs = (UserFile.objects.alive().filter(workspace=workspace, version_state=VersionState.CURRENT)
          .select_related("uploaded_by"))
    return apply_filters(UserFileFilter, filters, qs)


def user_file_get(workspace: Workspace, file_id: int) -> UserFile:
    """Any version of a document of the workspace that is not deleted (members may open the history)."""
    try:
        return UserFile.objects.alive().filter(workspace=workspace).select_related("uploaded_by").get(pk=file_id)
    except (UserFile.DoesNotExist, ValueError, TypeError):
        raise Http404("Filen finns inte.") from None


def user_file_versions(user_file: UserFile) -> QuerySet[UserFile]:
    """Every version of the document `user_file` belongs to, newest first. Only call with a file
    from `user_file_get`: the versions are looked up within its workspace."""
    root = user_file.document_id
    return (UserFile.objects.alive().filter(workspace_id=user_file.workspace_id)
            .filter(Q(pk=root) | Q(version_of_id=root)).select_related("uploaded_by").order_by("-version"))


def user_file_version_get(user_file: UserFile, number: int) -> UserFile:
    try:
        return user_file_versions(user_file).get(version=number)
    except (UserFile.DoesNotExist, ValueError, TypeError):
        raise Http404("Versionen finns inte.") from None


def user_file_find_identical(workspace: Workspace, digest: str) -> UserFile | None:
    """A live file of the workspace with exactly these bytes: the current version of a document,
    or a new version still being processed. Superseded versions and deleted files do not count."""
    return (UserFile.objects.alive().filter(workspace=workspace, content_hash=digest)
            .exclude(version_state=VersionState.SUPERSEDED).order_by("-created_at").first())


def user_file_find_by_name(workspace: Workspace, name: str) -> UserFile | None:
    """The current version of the workspace's document uploaded under `name`, if any."""
    return user_file_list(workspace).filter(original_name=name).order_by("-created_at").first()


def assessment_list(workspace: Workspace, *, filters: dict | None = None) -> QuerySet[Assessment]:
    """The workspace's assessments that are not deleted."""
    qs = Assessment.objects.alive().filter(workspace=workspace).select_related("legal_document", "owner")
    return apply_filters(AssessmentFilter, filters, qs)


def assessment_get(workspace: Workspace, assessment_id: int) -> Assessment:
    try:
        return assessment_list(workspace).get(pk=assessment_id)
    except (Assessment.DoesNotExist, ValueError, TypeError):
        raise Http404("Bedömningen finns inte.") from None


def knowledge_clear_counts(workspace: Workspace) -> dict[str, int]:
    """What "Rensa kunskapsbasen" would remove: the documents (every version counted once) and assessments."""
    return {"files": user_file_list(workspace).count(), "assessments": assessment_list(workspace).count()}


def legal_document_list(*, filters: dict | None = None) -> QuerySet[LegalDocument]:
    """The shared statutes (everyone may read them), without their full text."""
    qs = LegalDocument.objects.defer("full_text", "structure").order_by("sfs_number")
    return apply_filters(LegalDocumentFilter, filters, qs)


def legal_document_find(sfs_number: str) -> LegalDocument | None:
    return LegalDocument.objects.filter(sfs_number=sfs_number).first()


def legal_document_get(sfs_number: str) -> LegalDocument:
    try:
        return LegalDocument.objects.get(sfs_number=sfs_number)
    except LegalDocument.DoesNotExist:
        raise Http404("Författningen finns inte.") from None


def user_find_active(username: str) -> User | None:
    """An active user by exact username, or None (adding a member names them)."""
    return get_user_model().objects.filter(username=username, is_active=True).first()


def workspace_members(workspace: Workspace) -> QuerySet[User]:
    """The users who are members of a workspace (the choices for "ansvarig")."""
    return get_user_model().objects.filter(memberships__workspace=workspace).order_by("username")


def workspace_list_with_role(user: AbstractBaseUser) -> QuerySet[Workspace]:
    """The user's workspaces, each annotated with `role` (the user's role in it)."""
    role = Membership.objects.filter(workspace=OuterRef("pk"), user=user).values("role")[:1]
    return workspace_list_for_user(user).annotate(role=Subquery(role))


def membership_list(workspace: Workspace) -> QuerySet[Membership]:
    return Membership.objects.filter(workspace=workspace).select_related("user").order_by("created_at", "id")


def membership_get_by_id(workspace: Workspace, membership_id: int) -> Membership:
    try:
        return membership_list(workspace).get(pk=membership_id)
    except (Membership.DoesNotExist, ValueError, TypeError):
        raise Http404("Medlemmen finns inte.") from None


def workspace_member_user(workspace: Workspace, ref: str | int) -> User | None:
    """A member of the workspace by username or id, or None."""
    memberships = membership_list(workspace)
    ref = str(ref).strip()
    found = memberships.filter(user__username=ref).first()
    if found is None and ref.isdigit() and len(ref) < 19:
        found = memberships.filter(user_id=int(ref)).first()
    return found.user if found else None


def api_token_list(user: AbstractBaseUser) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user)


def api_token_get(user: AbstractBaseUser, token_id: int) -> ApiToken:
    try:
        return api_token_list(user).get(pk=token_id)
    except (ApiToken.DoesNotExist, ValueError, TypeError):
        raise Http404("API-nyckeln finns inte.") from None


def workspace_profile_get(workspace: Workspace) -> WorkspaceProfile:
    """The workspace's profile; an unsaved empty one if nothing has been stated yet."""
    return WorkspaceProfile.objects.filter(workspace=workspace).first() or WorkspaceProfile(workspace=workspace)


def profile_fact_list(workspace: Workspace) -> QuerySet[ProfileFact]:
    return ProfileFact.objects.filter(workspace=workspace).order_by("created_at", "id")


def profile_fact_get(workspace: Workspace, fact_id: int) -> ProfileFact:
    try:
        return profile_fact_list(workspace).get(pk=fact_id)
    except (ProfileFact.DoesNotExist, ValueError, TypeError):
        raise Http404("Uppgiften finns inte.") from None


def preference_get(workspace: Workspace, user: AbstractBaseUser) -> PersonalPreference:
    """The user's own preferences in the workspace (an unsaved empty one if none). Only ever the caller's own:
    there is no selector for another user's preferences."""
    return (PersonalPreference.objects.filter(workspace=workspace, user=user).first()
            or PersonalPreference(workspace=workspace, user=user))


@dataclass(frozen=True)
class LegalBasisLink:
    """A statute a regulation's legal basis cites; `document` is None when that statute is not loaded."""

    sfs_number: str
    document: LegalDocument | None


def legal_document_basis(doc: LegalDocument) -> list[LegalBasisLink]:
    """The statutes a regulation rests on, linked where they are loaded (resolved now, so a statute
    loaded after the regulation is linked too)."""
    if not doc.legal_basis_sfs:
        return []
    loaded = {d.sfs_number: d for d in LegalDocument.objects.defer("full_text", "structure")
              .filter(sfs_number__in=doc.legal_basis_sfs)}
    return [LegalBasisLink(number, loaded.get(number)) for number in doc.legal_basis_sfs]


def legal_document_agencies() -> list[tuple[str, str]]:
    """(series, agency) of every loaded regulation's issuer, for the list's filter."""
    rows = (LegalDocument.objects.exclude(series="").values_list("series", "agency").distinct()
            .order_by("series"))
    return list(rows)
