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


# --- Pages: the knowledge base, the sources --------------------------------------------
# (added for the workspace UI; reads only, same access rules as above)

EMBEDDING_ERROR_CACHE_KEY = "lagrum:embedding:last_error"


def workspace_members(workspace: Workspace):
    """The users who are members of a workspace (the choices for "ansvarig")."""
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(memberships__workspace=workspace).order_by("username")


def user_file_chunks(user_file: UserFile):
    """A file's chunks in document order. Only call with a file from `user_file_get`."""
    from chunks.models import ContentChunk

    return ContentChunk.objects.filter(user_file=user_file).order_by("path")


def legal_document_search(query: str = "", content_type: str = "") -> QuerySet[LegalDocument]:
    """Statutes matching an SFS number, a title word, a short name or an abbreviation."""
    from django.db.models import Q

    qs = legal_document_list().defer("full_text")
    query = (query or "").strip()
    if query:
        qs = qs.filter(
            Q(sfs_number__icontains=query)
            | Q(title__icontains=query)
            | Q(abbreviations__contains=[query])
            | Q(abbreviations__contains=[query.upper()])
            | Q(short_names__contains=[query])
            | Q(short_names__contains=[query.lower()])
        )
    if content_type in LegalDocument.ContentType.values:
        qs = qs.filter(content_type=content_type)
    return qs.order_by("sfs_number")


def legal_document_chunks(doc: LegalDocument):
    """A statute's chunks, in document order."""
    from chunks.models import ContentChunk

    return ContentChunk.objects.filter(legal_document=doc).order_by("path")


def chunk_index_size() -> dict:
    """Bytes used by the chunks table: its rows (with TOAST) and its indexes."""
    from django.db import connection

    from chunks.models import ContentChunk

    table = ContentChunk._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_table_size(%s::regclass), pg_indexes_size(%s::regclass), pg_total_relation_size(%s::regclass)",
            [table, table, table],
        )
        table_bytes, index_bytes, total_bytes = cursor.fetchone()
    return {"table_bytes": table_bytes, "index_bytes": index_bytes, "total_bytes": total_bytes}


def embedding_state(workspace: Workspace) -> dict:
    """The embedding model and whether it works, as seen from one workspace.

    "fel" when the last embedding attempt failed (recorded in the cache by
    `services.embedding_record_error`, cleared by `embedding_record_ok`);
    otherwise "laddar" while any chunk the workspace can search still lacks a
    vector of the active model, and "klar" when none does.
    """
    from django.core.cache import cache
    from django.db.models import Q

    from chunks.embedding import active_model_name
    from chunks.models import ContentChunk

    model = active_model_name()
    pending = (
        ContentChunk.objects.filter(Q(workspace__isnull=True) | Q(workspace=workspace))
        .filter(Q(embedding__isnull=True) | ~Q(embedding_model=model))
        .count()
    )
    error = cache.get(EMBEDDING_ERROR_CACHE_KEY)
    if error:
        state, label = "error", "fel"
    elif pending:
        state, label = "loading", "laddar"
    else:
        state, label = "ready", "klar"
    return {"model": model, "state": state, "label": label, "pending": pending, "error": error or ""}


_ACTIVE = ("pending", "processing")


def knowledge_is_processing(workspace: Workspace) -> bool:
    """True while any source the workspace sees is waiting or being processed."""
    return (
        user_file_list(workspace).filter(status__in=_ACTIVE).exists()
        or assessment_list(workspace).filter(status__in=_ACTIVE).exists()
        or LegalDocument.objects.filter(status__in=_ACTIVE).exists()
    )


def knowledge_last_update(workspace: Workspace):
    """The latest processed_at among the workspace's files and assessments and the statutes."""
    from django.db.models import Max

    candidates = [
        user_file_list(workspace).aggregate(m=Max("processed_at"))["m"],
        assessment_list(workspace).aggregate(m=Max("processed_at"))["m"],
        LegalDocument.objects.aggregate(m=Max("processed_at"))["m"],
    ]
    candidates = [c for c in candidates if c is not None]
    return max(candidates) if candidates else None


def knowledge_overview(workspace: Workspace) -> dict:
    """Every figure of the Kunskapsbas page in one dict."""
    from chunks.services import workspace_knowledge_stats

    stats = workspace_knowledge_stats(workspace)
    size = chunk_index_size()
    return {
        **stats,
        "documents": stats["files"] + stats["assessments"] + stats["statutes"],
        "embedded_percent": round(100 * stats["embedded_share"], 1),
        "size": size,
        "size_mb": round(size["total_bytes"] / 1048576, 1),
        "index_mb": round(size["index_bytes"] / 1048576, 1),
        "embedding": embedding_state(workspace),
        "last_update": knowledge_last_update(workspace),
        "processing": knowledge_is_processing(workspace),
    }


# --- API additions -------------------------------------------------------------------


def workspace_list_with_role(user) -> QuerySet[Workspace]:
    """The user's workspaces, each annotated with `role` (the user's role in it)."""
    from django.db.models import OuterRef, Subquery

    role = Membership.objects.filter(workspace=OuterRef("pk"), user=user).values("role")[:1]
    return workspace_list_for_user(user).annotate(role=Subquery(role))


def membership_list(workspace: Workspace) -> QuerySet[Membership]:
    return Membership.objects.filter(workspace=workspace).select_related("user").order_by("created_at", "id")


def membership_get_by_id(workspace: Workspace, membership_id: int) -> Membership:
    try:
        return membership_list(workspace).get(pk=membership_id)
    except (Membership.DoesNotExist, ValueError, TypeError):
        raise Http404("Medlemmen finns inte.") from None


def workspace_member_user(workspace: Workspace, ref):
    """A member of the workspace by username or id, or None."""
    memberships = membership_list(workspace)
    ref = str(ref).strip()
    found = memberships.filter(user__username=ref).first()
    if found is None and ref.isdigit() and len(ref) < 19:
        found = memberships.filter(user_id=int(ref)).first()
    return found.user if found else None


def api_token_list(user):
    from .models import ApiToken

    return ApiToken.objects.filter(user=user)


def api_token_get(user, token_id: int):
    from .models import ApiToken

    try:
        return api_token_list(user).get(pk=token_id)
    except (ApiToken.DoesNotExist, ValueError, TypeError):
        raise Http404("API-nyckeln finns inte.") from None


def legal_document_sections(document: LegalDocument) -> list[dict]:
    """The statute's sections in document order, from its chunks.

    A section that chunking split into parts ("00012.00000", "00012.00001")
    comes back whole: the parts' texts joined by blank lines.
    """
    from chunks.models import ContentChunk

    rows = (ContentChunk.objects.filter(legal_document=document).order_by("path")
            .values("path", "citation", "header", "text", "kind", "chapter", "section"))
    sections: list[dict] = []
    last_unit = None
    for row in rows:
        unit = row.pop("path").split(".", 1)[0]
        if sections and unit == last_unit:
            sections[-1]["text"] += "\n\n" + row["text"]
            continue
        sections.append(row)
        last_unit = unit
    return sections


def conversation_list(workspace: Workspace, user):
    """Only the user's own conversations in the workspace."""
    from agent.models import Conversation

    if not getattr(user, "is_authenticated", False):
        return Conversation.objects.none()
    return Conversation.objects.filter(workspace=workspace, user=user)


def conversation_get(workspace: Workspace, user, conversation_id: int):
    from agent.models import Conversation

    try:
        return conversation_list(workspace, user).get(pk=conversation_id)
    except (Conversation.DoesNotExist, ValueError, TypeError):
        raise Http404("Konversationen finns inte.") from None


def message_get(conversation, message_id: int):
    from agent.models import Message

    try:
        return conversation.messages.get(pk=message_id)
    except (Message.DoesNotExist, ValueError, TypeError):
        raise Http404("Meddelandet finns inte.") from None
