"""Writes. Each function saves, then enqueues processing on commit.

`transaction.on_commit` matters: a worker must never pick up a document whose
row is not yet visible, and a rolled-back upload must never be processed.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.text import slugify

from .errors import ApplicationError
from .models import (
    ApiToken,
    Assessment,
    LegalDocument,
    Membership,
    ProcessingStatus,
    UserFile,
    Workspace,
    content_hash,
    display_file_name,
)
from .processing import request_processing

log = logging.getLogger(__name__)


def workspace_touch_knowledge(workspace_id: int) -> None:
    """Invalidate every retrieval cache entry of a workspace."""
    Workspace.objects.filter(pk=workspace_id).update(knowledge_version=F("knowledge_version") + 1)


def workspace_set_cross_workspace(*, workspace: Workspace, allow: bool) -> Workspace:
    """Whether members may pull this workspace's sources into another workspace's answers."""
    workspace.allow_cross_workspace = bool(allow)
    workspace.save(update_fields=["allow_cross_workspace"])
    return workspace


def workspace_create(*, name: str, owner, slug: str | None = None) -> Workspace:
    base = slugify(slug or name)[:60] or "arbetsyta"
    candidate, n = base, 1
    while Workspace.objects.filter(slug=candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    with transaction.atomic():
        workspace = Workspace.objects.create(name=name, slug=candidate)
        Membership.objects.create(user=owner, workspace=workspace, role=Membership.Role.OWNER)
    return workspace


def membership_set(*, workspace: Workspace, user, role: str) -> Membership:
    """Make `user` a member with `role`: added if new, else their role changed (the last owner is kept)."""
    existing = Membership.objects.filter(workspace=workspace, user=user).first()
    if existing is None:
        return membership_add(workspace=workspace, user=user, role=role)
    return membership_change_role(membership=existing, role=role)


@dataclass
class LegalDocumentData:
    sfs_number: str
    title: str
    full_text: str
    content_type: str = LegalDocument.ContentType.SFS_LAW
    short_names: list[str] | None = None
    abbreviations: list[str] | None = None
    category: str = ""
    issued: object = None
    amended_through: str = ""
    in_force: str = ""
    source: str = ""


def legal_document_upsert(data: LegalDocumentData, *, process: bool = True) -> tuple[LegalDocument, bool]:
    """Create or update a statute. Returns (document, changed).

    Unchanged text (same hash) keeps its chunks and embeddings: loading the
    corpus twice does nothing the second time.
    """
    digest = content_hash(data.full_text)
    fields = {
        "title": data.title,
        "full_text": data.full_text,
        "content_type": data.content_type,
        "short_names": data.short_names or [],
        "abbreviations": data.abbreviations or [],
        "category": data.category,
        "issued": data.issued,
        "amended_through": data.amended_through or "",
        "in_force": data.in_force or "",
        "source": data.source,
    }
    with transaction.atomic():
        doc = LegalDocument.objects.select_for_update().filter(sfs_number=data.sfs_number).first()
        if doc is None:
            doc = LegalDocument(sfs_number=data.sfs_number, content_hash=digest, **fields)
            doc.full_clean()
            doc.save()
            changed = True
        else:
            meta_changed = any(getattr(doc, k) != v for k, v in fields.items() if k != "full_text")
            changed = doc.content_hash != digest
            if not (changed or meta_changed):
                return doc, False
            for key, value in fields.items():
                setattr(doc, key, value)
            doc.content_hash = digest
            if changed:
                doc.status = ProcessingStatus.PENDING
            doc.full_clean()
            doc.save()
        if process and (changed or doc.chunked_hash != digest):
            request_processing("LEGAL_DOCUMENT", doc.pk)
    return doc, changed


def legal_document_reprocess(doc: LegalDocument) -> None:
    LegalDocument.objects.filter(pk=doc.pk).update(status=ProcessingStatus.PENDING, error_message="")
    request_processing("LEGAL_DOCUMENT", doc.pk, force=True)


class UploadError(ApplicationError):
    """A file that cannot be accepted at all."""


def user_file_upload(*, workspace: Workspace, user, uploaded, title: str = "", is_private: bool = False) -> UserFile:
    """Store an uploaded file and enqueue its processing.

    Only emptiness and size are checked here; type and content are checked by
    extraction, which marks the file as failed with a Swedish message. The file
    itself is always kept, so nothing a user uploaded is lost.
    """
    size = getattr(uploaded, "size", None) or 0
    name = display_file_name(getattr(uploaded, "name", ""))
    if size == 0:
        raise UploadError("empty", "Filen är tom.")
    limit = settings.MAX_UPLOAD_BYTES
    if size > limit:
        raise UploadError("too_large", f"Filen är för stor ({size / 1048576:.1f} MB). Största tillåtna storlek är {limit / 1048576:.0f} MB.")
    data = uploaded.read()
    with transaction.atomic():
        user_file = UserFile(
            workspace=workspace,
            title=(title or name)[:300],
            original_name=name,
            mime_type=(getattr(uploaded, "content_type", "") or "")[:120],
            size=len(data),
            uploaded_by=user if getattr(user, "is_authenticated", False) else None,
            is_private=is_private,
            content_hash=content_hash(data),
        )
        try:
            # Stored under a safe name (models.stored_file_name); a disk that still refuses
            # (full, read-only) is this file's error, not the request's.
            user_file.file.save(name, ContentFile(data), save=False)
        except OSError:
            log.exception("storing upload %r in workspace %s failed", name, workspace.pk)
            raise UploadError("storage_failed", "Filen kunde inte sparas. Försök igen senare.", status=503) from None
        user_file.save()
        request_processing("USER_FILE", user_file.pk)
    return user_file


def user_file_delete(user_file: UserFile) -> None:
    """Soft delete: the row and the stored file stay, retrieval stops seeing it at once."""
    with transaction.atomic():
        user_file.deleted_at = timezone.now()
        user_file.save(update_fields=["deleted_at", "updated_at"])
        workspace_touch_knowledge(user_file.workspace_id)


def user_file_reprocess(user_file: UserFile) -> None:
    UserFile.objects.filter(pk=user_file.pk).update(status=ProcessingStatus.PENDING, error_message="")
    request_processing("USER_FILE", user_file.pk, force=True)


ASSESSMENT_FIELDS = ("title", "legal_document", "section_ref", "compliance_status", "notes", "owner", "due_date")


def assessment_save(*, workspace: Workspace, user, assessment: Assessment | None = None, **fields) -> Assessment:
    unknown = set(fields) - set(ASSESSMENT_FIELDS)
    if unknown:
        raise ValueError(f"unknown assessment fields: {sorted(unknown)}")
    with transaction.atomic():
        if assessment is None:
            assessment = Assessment(workspace=workspace, created_by=user if user and user.is_authenticated else None)
        for key, value in fields.items():
            setattr(assessment, key, value)
        assessment.full_clean()
        assessment.status = ProcessingStatus.PENDING
        assessment.save()
        request_processing("ASSESSMENT", assessment.pk)
    return assessment


def assessment_delete(assessment: Assessment) -> None:
    with transaction.atomic():
        workspace_id = assessment.workspace_id
        assessment.delete()  # its chunks go with it (CASCADE)
        workspace_touch_knowledge(workspace_id)


def api_token_create(*, user, name: str) -> tuple[ApiToken, str]:
    """Returns the token and its key. The key is never stored or shown again."""

    key = "lgr_" + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name[:100] or "API-nyckel", prefix=key[4:4 + ApiToken.PREFIX_LENGTH],
        key_hash=ApiToken.hash_key(key),
    )
    return token, key


class MembershipError(ApplicationError):
    """A membership change that would break the workspace."""


def _other_owners_exist(membership: Membership) -> bool:
    return (Membership.objects.filter(workspace_id=membership.workspace_id, role=Membership.Role.OWNER)
            .exclude(pk=membership.pk).exists())


def membership_add(*, workspace: Workspace, user, role: str) -> Membership:
    if role not in Membership.Role.values:
        raise MembershipError("invalid_role", "Okänd roll.")
    if Membership.objects.filter(workspace=workspace, user=user).exists():
        raise MembershipError("already_member", "Användaren är redan medlem i arbetsytan.")
    return Membership.objects.create(workspace=workspace, user=user, role=role)


def membership_change_role(*, membership: Membership, role: str) -> Membership:
    """Change a member's role; the last owner cannot be demoted."""
    if role not in Membership.Role.values:
        raise MembershipError("invalid_role", "Okänd roll.")
    with transaction.atomic():
        # Lock the workspace's owners: two owners demoting each other at once must not both succeed.
        list(Membership.objects.select_for_update().filter(workspace_id=membership.workspace_id,
                                                            role=Membership.Role.OWNER))
        if (membership.role == Membership.Role.OWNER and role != Membership.Role.OWNER
                and not _other_owners_exist(membership)):
            raise MembershipError("last_owner", "Arbetsytan måste ha minst en ägare.")
        membership.role = role
        membership.save(update_fields=["role"])
    return membership


def membership_remove(*, membership: Membership) -> None:
    """Remove a member; the last owner cannot be removed."""
    with transaction.atomic():
        list(Membership.objects.select_for_update().filter(workspace_id=membership.workspace_id,
                                                            role=Membership.Role.OWNER))
        if membership.role == Membership.Role.OWNER and not _other_owners_exist(membership):
            raise MembershipError("last_owner", "Arbetsytan måste ha minst en ägare.")
        membership.delete()


def api_token_revoke(token: ApiToken) -> None:
    """Idempotent: revoking a revoked token keeps its first revocation time."""
    if token.revoked_at is None:
        token.revoke()

