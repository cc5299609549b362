"""Writes. Each function saves, then enqueues processing on commit.

`transaction.on_commit` matters: a worker must never pick up a document whose
row is not yet visible, and a rolled-back upload must never be processed.
"""

from __future__ import annotations

import logging
import re
import secrets
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import F, Max, Model, Q, QuerySet
from django.utils import timezone
from django.utils.text import slugify

from .errors import ApplicationError
from .model_update import model_update
from .models import (
    PREFERENCE_FIELDS,
    PROFILE_FIELDS,
    ApiToken,
    Assessment,
    FactOrigin,
    LegalDocument,
    Membership,
    PersonalPreference,
    ProcessingStatus,
    ProfileFact,
    UserFile,
    VersionState,
    Workspace,
    WorkspaceProfile,
    content_hash,
    display_file_name,
)
from .processing import request_processing
from .selectors import user_file_find_by_name, user_file_find_identical

log = logging.getLogger(__name__)


def workspace_touch_knowledge(workspace_id: int) -> None:
    """Invalidate every retrieval cache entry of a workspace."""
    Workspace.objects.filter(pk=workspace_id).update(knowledge_version=F("knowledge_version") + 1)


def memory_changed(sender: type[Model], instance: WorkspaceProfile | ProfileFact | PersonalPreference,
                   **kwargs: Any) -> None:
    """Receiver for saves and deletes of WorkspaceProfile, ProfileFact and PersonalPreference.

    A signal, not a call in each service: admin, inlines and cascades change the memory too,
    and a cached memory that missed one change would answer from a deleted fact.
    """
    Workspace.objects.filter(pk=instance.workspace_id).update(memory_version=F("memory_version") + 1)


def workspace_set_cross_workspace(*, workspace: Workspace, allow: bool) -> Workspace:
    """Whether members may pull this workspace's sources into another workspace's answers."""
    workspace.allow_cross_workspace = bool(allow)
    workspace.save(update_fields=["allow_cross_workspace"])
    return workspace


def workspace_create(*, name: str, owner: AbstractBaseUser, slug: str | None = None) -> Workspace:
    base = slugify(slug or name)[:60] or "arbetsyta"
    candidate, n = base, 1
    while Workspace.objects.filter(slug=candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    with transaction.atomic():
        workspace = Workspace.objects.create(name=name, slug=candidate)
        Membership.objects.create(user=owner, workspace=workspace, role=Membership.Role.OWNER)
    return workspace


def membership_set(*, workspace: Workspace, user: AbstractBaseUser, role: str) -> Membership:
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
    # Agency and EU regulations (law.regulations).
    in_force_date: object = None
    agency: str = ""
    series: str = ""
    legal_basis: str = ""
    legal_basis_sfs: list[str] | None = None
    structure: list[dict] | None = None


@dataclass(frozen=True)
class UpsertedDocument:
    """The statute `legal_document_upsert` wrote, and whether it is new or its text changed."""

    document: LegalDocument
    changed: bool  # new, or its text differs from the stored one (a new title alone is not a change)


def legal_document_upsert(data: LegalDocumentData, *, process: bool = True) -> UpsertedDocument:
    """Create or update a statute.

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
        "in_force_date": data.in_force_date,
        "agency": data.agency,
        "series": data.series,
        "legal_basis": data.legal_basis,
        "legal_basis_sfs": data.legal_basis_sfs or [],
        "structure": data.structure or [],
    }
    with transaction.atomic():
        doc = LegalDocument.objects.select_for_update().filter(sfs_number=data.sfs_number).first()
        if doc is None:
            doc = LegalDocument(sfs_number=data.sfs_number, content_hash=digest, **fields)
            doc.full_clean()
            doc.save()
            changed = True
        else:
            changed = doc.content_hash != digest
            values = {**fields, "content_hash": digest}
            if changed:
                values["status"] = ProcessingStatus.PENDING
            elif doc.title != data.title:
                # Every chunk's header and stored title carry the document's title: under a new title (a
                # parser that now reads it right) they are stale, so the same text is chunked again.
                values["chunked_hash"] = ""
            if not model_update(doc, fields=list(values), data=values).has_updated:
                return UpsertedDocument(document=doc, changed=False)
        if process and (changed or doc.chunked_hash != digest):
            request_processing("LEGAL_DOCUMENT", doc.pk)
    return UpsertedDocument(document=doc, changed=changed)


def legal_document_reprocess(doc: LegalDocument) -> None:
    LegalDocument.objects.filter(pk=doc.pk).update(status=ProcessingStatus.PENDING, error_message="")
    request_processing("LEGAL_DOCUMENT", doc.pk, force=True)


class UploadError(ApplicationError):
    """A file that cannot be accepted at all."""


class VersionError(ApplicationError):
    """A version change that cannot be made."""

    status = 409


def user_file_versions_lock(workspace_id: int) -> None:
    """Serialise every change to which files and versions a workspace has (uploads, activation,
    restore, delete) on the workspace row: two identical uploads at once cannot both get in, two
    versions cannot both become current. Take it first, before any file row, so no two of these
    ever wait for each other's locks in opposite order."""
    list(Workspace.objects.select_for_update().filter(pk=workspace_id).values_list("pk", flat=True))


def _document_versions(user_file: UserFile) -> QuerySet[UserFile]:
    root = user_file.document_id
    return UserFile.objects.filter(workspace_id=user_file.workspace_id).filter(Q(pk=root) | Q(version_of_id=root))


def user_file_upload(*, workspace: Workspace, user: AbstractBaseUser, uploaded: UploadedFile, title: str = "",
                     is_private: bool = False, replaces: UserFile | None = None) -> UserFile:
    """Store an uploaded file and enqueue its processing.

    Only emptiness and size are checked here; type and content are checked by
    extraction, which marks the file as failed with a Swedish message. The file
    itself is always kept, so nothing a user uploaded is lost.

    Bytes equal to a live file of the workspace are refused (DuplicateFile, 409): nothing is
    stored or indexed twice. A file named like a current document of the workspace, or any
    file with `replaces` (a version of the document to replace), becomes that document's next
    version; it stays PENDING, and the old version current, until its chunks are written
    (user_file_version_activate).
    """
    size = getattr(uploaded, "size", None) or 0
    name = display_file_name(getattr(uploaded, "name", ""))
    if size == 0:
        raise UploadError("empty", "Filen är tom.")
    limit = settings.MAX_UPLOAD_BYTES
    if size > limit:
        raise UploadError("too_large", f"Filen är för stor ({size / 1048576:.1f} MB). Största tillåtna storlek är {limit / 1048576:.0f} MB.")
    data = uploaded.read()
    digest = content_hash(data)
    with transaction.atomic():
        user_file_versions_lock(workspace.pk)
        duplicate = user_file_find_identical(workspace, digest)
        if duplicate is not None:
            raise UploadError("duplicate_file", f"Filen finns redan: {duplicate.original_name}", status=409,
                              details={"file_id": duplicate.pk})
        user_file = UserFile(
            workspace=workspace,
            title=(title or name)[:300],
            original_name=name,
            mime_type=(getattr(uploaded, "content_type", "") or "")[:120],
            size=len(data),
            uploaded_by=user if getattr(user, "is_authenticated", False) else None,
            is_private=is_private,
            content_hash=digest,
        )
        previous = (_document_versions(replaces).alive().filter(version_state=VersionState.CURRENT).first()
                    if replaces is not None else user_file_find_by_name(workspace, name))
        if previous is not None:
            versions = _document_versions(previous)
            user_file.version_of_id = previous.document_id
            user_file.version = (versions.aggregate(n=Max("version"))["n"] or 0) + 1
            user_file.version_state = VersionState.PENDING
            user_file.title = (title or previous.title)[:300]
            # Privacy is never lost by a re-upload: a private document's versions stay private.
            user_file.is_private = previous.is_private or is_private
            # The latest upload is the one meant to become current: an earlier one still waiting gives way.
            versions.filter(version_state=VersionState.PENDING).update(version_state=VersionState.SUPERSEDED)
        try:
            # Stored under a safe name (models.stored_file_name) in a folder of its own: a new
            # version never overwrites the bytes of an old one.
            user_file.file.save(name, ContentFile(data), save=False)
        except OSError:
            log.exception("storing upload %r in workspace %s failed", name, workspace.pk)
            raise UploadError("storage_failed", "Filen kunde inte sparas. Försök igen senare.", status=503) from None
        user_file.save()
        request_processing("USER_FILE", user_file.pk)
    return user_file


def user_file_version_activate(user_file_id: int) -> bool:
    """Make a PENDING version current; the version that was current becomes SUPERSEDED.

    Ingestion calls this in the transaction that writes the version's chunks, after
    `user_file_versions_lock`. Switching only then (not at upload) means a version whose
    processing fails or never finishes leaves the old one current and searchable, and the
    switch and the new chunks become visible together. Returns whether it switched.
    """
    user_file = UserFile.objects.filter(pk=user_file_id).first()
    if user_file is None or user_file.version_state != VersionState.PENDING or user_file.is_deleted:
        return False
    _document_versions(user_file).filter(version_state=VersionState.CURRENT).update(
        version_state=VersionState.SUPERSEDED)
    UserFile.objects.filter(pk=user_file.pk).update(version_state=VersionState.CURRENT)
    workspace_touch_knowledge(user_file.workspace_id)
    return True


def user_file_version_restore(version: UserFile) -> UserFile:
    """Make an earlier version current again (editors). Its chunks were kept when it was
    superseded, vectors included, so they are searchable again at once: nothing is re-processed."""
    with transaction.atomic():
        user_file_versions_lock(version.workspace_id)
        version = UserFile.objects.alive().get(pk=version.pk)
        if version.version_state == VersionState.CURRENT:
            return version
        if version.status == ProcessingStatus.FAILED or not version.chunked_hash \
                or version.chunked_hash != version.content_hash:
            raise VersionError("version_not_processed",
                               f"Version {version.version} har inte kunnat bearbetas och kan inte återställas.")
        _document_versions(version).exclude(pk=version.pk).filter(
            version_state__in=[VersionState.CURRENT, VersionState.PENDING]).update(
            version_state=VersionState.SUPERSEDED)
        version.version_state = VersionState.CURRENT
        version.save(update_fields=["version_state", "updated_at"])
        workspace_touch_knowledge(version.workspace_id)
    return version


def user_file_delete(user_file: UserFile) -> None:
    """Soft delete of the whole document, every version: the rows and the stored files stay,
    retrieval stops seeing it at once."""
    with transaction.atomic():
        user_file_versions_lock(user_file.workspace_id)
        now = timezone.now()
        _document_versions(user_file).filter(deleted_at__isnull=True).update(deleted_at=now, updated_at=now)
        workspace_touch_knowledge(user_file.workspace_id)


@dataclass(frozen=True)
class KnowledgeClearResult:
    """What "Rensa kunskapsbasen" removed: documents (all their versions) and assessments."""

    files: int
    assessments: int


def knowledge_clear(*, workspace: Workspace) -> KnowledgeClearResult:
    """"Rensa kunskapsbasen": soft-delete every document (each through `user_file_delete`, so all its
    versions go) and every assessment of the workspace, in one transaction. Rows, stored files and
    chunks stay; retrieval and every list stop seeing them at once. Statutes are shared and untouched."""
    with transaction.atomic():
        user_file_versions_lock(workspace.pk)
        documents: dict[int, UserFile] = {}
        for user_file in UserFile.objects.alive().filter(workspace=workspace).order_by("pk"):
            documents.setdefault(user_file.document_id, user_file)
        for user_file in documents.values():
            user_file_delete(user_file)
        now = timezone.now()
        assessments = Assessment.objects.alive().filter(workspace=workspace).update(deleted_at=now, updated_at=now)
        workspace_touch_knowledge(workspace.pk)
    return KnowledgeClearResult(files=len(documents), assessments=assessments)


def user_file_reprocess(user_file: UserFile) -> None:
    UserFile.objects.filter(pk=user_file.pk).update(status=ProcessingStatus.PENDING, error_message="")
    request_processing("USER_FILE", user_file.pk, force=True)


ASSESSMENT_FIELDS = ("title", "legal_document", "section_ref", "compliance_status", "notes", "owner", "due_date")


def assessment_save(*, workspace: Workspace, user: AbstractBaseUser, assessment: Assessment | None = None,
                    **fields: Any) -> Assessment:
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


@dataclass(frozen=True)
class IssuedToken:
    """A new API token and its raw key, which its owner sees once, in the answer that created it."""

    token: ApiToken
    key: str  # the secret itself; only its hash is stored


def api_token_create(*, user: AbstractBaseUser, name: str) -> IssuedToken:
    """Returns the token and its key. The key is never stored or shown again."""

    key = "lgr_" + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name[:100] or "API-nyckel", prefix=key[4:4 + ApiToken.PREFIX_LENGTH],
        key_hash=ApiToken.hash_key(key),
    )
    return IssuedToken(token=token, key=key)


class MembershipError(ApplicationError):
    """A membership change that would break the workspace."""


def _other_owners_exist(membership: Membership) -> bool:
    return (Membership.objects.filter(workspace_id=membership.workspace_id, role=Membership.Role.OWNER)
            .exclude(pk=membership.pk).exists())


def membership_add(*, workspace: Workspace, user: AbstractBaseUser, role: str) -> Membership:
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



# --- Memory: the workspace profile and personal preferences ----------------------------------


class ProfileInputError(ApplicationError):
    """A profile or preference value that cannot be stored. `field` names the input at fault."""

    def __init__(self, code: str, message: str, *, field: str = "") -> None:
        super().__init__(code, message)
        self.field = field
        self.details = {field: [message]} if field else {}


EMPLOYEE_COUNT_MAX = 1_000_000  # more than any employer in Sweden: anything above is a typo
PROFILE_TEXT_MAX = 200
FACT_TEXT_MAX = 500
MAX_FACTS = 50
_HTML = re.compile(r"<\s*[A-Za-z!/?]|&[A-Za-z#][A-Za-z0-9]*;")
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SNI = re.compile(r"^\d{2}(?:\.?\d{1,3})?$")


def clean_profile_text(value: object, *, field: str, label: str, limit: int) -> str:
    """One line of plain text: no control characters, no markup, at most `limit` characters."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ProfileInputError("invalid", f"{label}: ange text.", field=field)
    if len(value) > limit:
        raise ProfileInputError("too_long", f"{label}: texten är för lång (högst {limit} tecken).", field=field)
    if _CONTROL_CHARACTERS.search(value):
        raise ProfileInputError("invalid_characters", f"{label}: texten innehåller otillåtna styrtecken.",
                                field=field)
    if _HTML.search(value):
        raise ProfileInputError("html_not_allowed", f"{label}: HTML-kod är inte tillåten, skriv vanlig text.",
                                field=field)
    return " ".join(value.split())


def _clean_bool(value: object, *, field: str, label: str) -> bool | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("ja", "true", "1", "yes"):
        return True
    if text in ("nej", "false", "0", "no"):
        return False
    raise ProfileInputError("invalid", f"{label}: ange ja eller nej.", field=field)


def _clean_choice(model: type[WorkspaceProfile] | type[PersonalPreference], field: str, value: Any) -> str:
    model_field = model._meta.get_field(field)
    value = "" if value is None else value
    if value == "" or value in dict(model_field.flatchoices):
        return value
    allowed = ", ".join(str(label) for _, label in model_field.flatchoices)
    raise ProfileInputError("invalid_choice", f"{str(model_field.verbose_name).capitalize()}: välj något av "
                            f"{allowed}.", field=field)


def _clean_employee_count(value: object) -> int | None:
    label = "Antal anställda"
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ProfileInputError("invalid", f"{label}: ange ett heltal.", field="employee_count")
    text = str(value).strip().replace(" ", "").replace("\u00a0", "")
    if not re.fullmatch(r"-?\d{1,12}", text):
        raise ProfileInputError("invalid", f"{label}: ange ett heltal, t.ex. 45.", field="employee_count")
    number = int(text)
    if number < 0:
        raise ProfileInputError("negative", f"{label} kan inte vara negativt.", field="employee_count")
    if number > EMPLOYEE_COUNT_MAX:
        raise ProfileInputError("out_of_range", f"{label}: {number} är orimligt många (högst "
                                f"{EMPLOYEE_COUNT_MAX:,} anställda).".replace(",", " "), field="employee_count")
    return number


def clean_profile_values(values: dict) -> dict:
    """Validated structured profile values; raises ProfileInputError on the first bad one."""
    unknown = set(values) - set(PROFILE_FIELDS)
    if unknown:
        raise ProfileInputError("unknown_field", f"Okänt fält: {sorted(unknown)[0]}.", field=sorted(unknown)[0])
    out = {}
    for field, value in values.items():
        label = str(WorkspaceProfile._meta.get_field(field).verbose_name).capitalize()
        if field == "employee_count":
            out[field] = _clean_employee_count(value)
        elif field in ("has_collective_agreement", "processes_sensitive_data"):
            out[field] = _clean_bool(value, field=field, label=label)
        elif field == "sector":
            out[field] = _clean_choice(WorkspaceProfile, field, value)
        else:
            text = clean_profile_text(value, field=field, label=label, limit=PROFILE_TEXT_MAX)
            if field == "sni_code" and text and not _SNI.match(text):
                raise ProfileInputError("invalid_sni", "SNI-kod: ange 2–5 siffror, t.ex. 78.200.", field=field)
            out[field] = text
    return out


def clean_preference_values(values: dict) -> dict:
    unknown = set(values) - set(PREFERENCE_FIELDS)
    if unknown:
        raise ProfileInputError("unknown_field", f"Okänt fält: {sorted(unknown)[0]}.", field=sorted(unknown)[0])
    out = {}
    for field, value in values.items():
        if field == "role":
            out[field] = clean_profile_text(value, field=field, label="Roll", limit=PROFILE_TEXT_MAX)
        else:
            out[field] = _clean_choice(PersonalPreference, field, value)
    return out


def _origin(origin: str, user: AbstractBaseUser, conversation_id: int | None) -> dict:
    return {"origin": origin, "conversation_id": conversation_id, "at": timezone.now().isoformat(),
            "user_id": getattr(user, "pk", None)}


def _set_fields(instance: WorkspaceProfile | PersonalPreference, cleaned: dict, origin: dict) -> None:
    # Only what changed gets a new origin: saving the whole form keeps "learned from conversation X".
    changed = {field: value for field, value in cleaned.items() if getattr(instance, field) != value}
    if not changed and instance.pk:
        return
    for field, value in changed.items():
        setattr(instance, field, value)
        if value is None or value == "":
            instance.origins.pop(field, None)
        else:
            instance.origins[field] = origin
    instance.revision += 1
    instance.save()


def profile_update(*, workspace: Workspace, user: AbstractBaseUser, values: dict, origin: str = FactOrigin.FORM,
                   conversation_id: int | None = None) -> WorkspaceProfile:
    """Set some profile fields (an empty value clears one). All are validated before any is stored."""
    cleaned = clean_profile_values(values)
    with transaction.atomic():
        profile, _ = WorkspaceProfile.objects.select_for_update().get_or_create(workspace=workspace)
        _set_fields(profile, cleaned, _origin(origin, user, conversation_id))
    return profile


def profile_fact_add(*, workspace: Workspace, user: AbstractBaseUser, text: str, origin: str = FactOrigin.FORM,
                     conversation_id: int | None = None) -> ProfileFact:
    text = clean_profile_text(text, field="text", label="Uppgift", limit=FACT_TEXT_MAX)
    if not text:
        raise ProfileInputError("empty", "Uppgiften är tom.", field="text")
    with transaction.atomic():
        profile, _ = WorkspaceProfile.objects.select_for_update().get_or_create(workspace=workspace)
        if ProfileFact.objects.filter(workspace=workspace).count() >= MAX_FACTS:
            raise ProfileInputError("too_many", f"Profilen har redan {MAX_FACTS} uppgifter. Ta bort någon först.",
                                    field="text")
        fact = ProfileFact.objects.filter(workspace=workspace, text__iexact=text).first()
        if fact is None:
            fact = ProfileFact.objects.create(workspace=workspace, text=text, origin=origin,
                                              conversation_id=conversation_id,
                                              created_by=user if getattr(user, "is_authenticated", False) else None)
        profile.revision += 1
        profile.save(update_fields=["revision", "updated_at"])
    return fact


def profile_fact_delete(fact: ProfileFact) -> None:
    with transaction.atomic():
        fact.delete()
        WorkspaceProfile.objects.filter(workspace_id=fact.workspace_id).update(revision=F("revision") + 1,
                                                                               updated_at=timezone.now())


def profile_clear(*, workspace: Workspace) -> None:
    """Forget everything about the organisation: every field and every free-text fact."""
    with transaction.atomic():
        ProfileFact.objects.filter(workspace=workspace).delete()
        profile = WorkspaceProfile.objects.select_for_update().filter(workspace=workspace).first()
        if profile is not None:
            _set_fields(profile, {field: WorkspaceProfile._meta.get_field(field).get_default()
                                  for field in PROFILE_FIELDS}, {})
            profile.origins = {}
            profile.save(update_fields=["origins"])


def preference_update(*, workspace: Workspace, user: AbstractBaseUser, values: dict, origin: str = FactOrigin.FORM,
                      conversation_id: int | None = None) -> PersonalPreference:
    cleaned = clean_preference_values(values)
    with transaction.atomic():
        preference, _ = PersonalPreference.objects.select_for_update().get_or_create(workspace=workspace, user=user)
        _set_fields(preference, cleaned, _origin(origin, user, conversation_id))
    return preference


def preference_clear(*, workspace: Workspace, user: AbstractBaseUser) -> None:
    with transaction.atomic():
        preference = PersonalPreference.objects.select_for_update().filter(workspace=workspace, user=user).first()
        if preference is not None:
            _set_fields(preference, {field: "" for field in PREFERENCE_FIELDS}, {})
