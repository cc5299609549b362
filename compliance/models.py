"""The compliance domain: workspaces, their members, the shared statutes, and
each workspace's own files and assessments.

Every knowledge source (LegalDocument, UserFile, Assessment) carries the same
processing fields so admin, the API and the UI can show one status and one
progress bar whatever the source is.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from pathlib import PurePosixPath, PureWindowsPath

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

SFS_NUMBER_RE = re.compile(r"^(1[6-9]\d\d|20\d\d):[1-9]\d{0,3}$")


def validate_sfs_number(value: str) -> None:
    if not SFS_NUMBER_RE.match(value or ""):
        raise ValidationError(
            "Ogiltigt SFS-nummer %(value)s: ange år och löpnummer, t.ex. 1977:1160.",
            code="invalid_sfs_number",
            params={"value": value},
        )


def content_hash(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


class Workspace(models.Model):
    name = models.CharField("namn", max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Bumped whenever the workspace's knowledge changes: retrieval caches key on it.
    knowledge_version = models.PositiveIntegerField(default=0)
    # A member who names this workspace in another workspace's chat gets its non-private
    # sources too; an owner can switch that off (then they stay inside this workspace).
    allow_cross_workspace = models.BooleanField("får användas i andra arbetsytors svar", default=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "arbetsyta"
        verbose_name_plural = "arbetsytor"

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        OWNER = "owner", "ägare"
        EDITOR = "editor", "redaktör"
        VIEWER = "viewer", "läsare"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField("roll", max_length=10, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "workspace"], name="membership_unique_user_workspace")]
        verbose_name = "medlemskap"
        verbose_name_plural = "medlemskap"

    def __str__(self) -> str:
        return f"{self.user} i {self.workspace} ({self.get_role_display()})"

    @property
    def can_edit(self) -> bool:
        return self.role in (self.Role.OWNER, self.Role.EDITOR)

    @property
    def can_manage(self) -> bool:
        return self.role == self.Role.OWNER


class ProcessingStatus(models.TextChoices):
    PENDING = "pending", "väntar"
    PROCESSING = "processing", "bearbetas"
    DONE = "done", "klar"
    FAILED = "failed", "fel"


class ProcessedSource(models.Model):
    """Processing state shared by every knowledge source."""

    status = models.CharField("status", max_length=12, choices=ProcessingStatus.choices,
                              default=ProcessingStatus.PENDING, db_index=True)
    error_message = models.TextField("felmeddelande", blank=True)
    content_hash = models.CharField(max_length=64, blank=True, db_index=True)
    # The hash the current chunks were built from: equal to content_hash when up to date.
    chunked_hash = models.CharField(max_length=64, blank=True)
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_embedded = models.PositiveIntegerField(default=0)
    processed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True

    @property
    def progress_percent(self) -> int:
        if not self.chunks_total:
            return 100 if self.status == ProcessingStatus.DONE else 0
        return int(100 * self.chunks_embedded / self.chunks_total)


class LegalDocument(ProcessedSource):
    """A shared statute or regulation: visible to every workspace."""

    class ContentType(models.TextChoices):
        SFS_LAW = "SFS_LAW", "lag"
        SFS_ORDINANCE = "SFS_ORDINANCE", "förordning"
        AGENCY_REGULATION = "AGENCY_REGULATION", "myndighetsföreskrift"

    sfs_number = models.CharField("SFS-nummer", max_length=12, unique=True, validators=[validate_sfs_number])
    title = models.CharField("titel", max_length=500)
    short_names = ArrayField(models.CharField(max_length=200), default=list, blank=True,
                             verbose_name="kortnamn")
    abbreviations = ArrayField(models.CharField(max_length=20), default=list, blank=True,
                               verbose_name="förkortningar")
    content_type = models.CharField("typ", max_length=20, choices=ContentType.choices,
                                    default=ContentType.SFS_LAW, db_index=True)
    category = models.CharField("område", max_length=200, blank=True)
    issued = models.DateField("utfärdad", null=True, blank=True)
    amended_through = models.CharField("ändring införd t.o.m.", max_length=40, blank=True)
    in_force = models.CharField("ikraftträdande", max_length=200, blank=True)
    source = models.CharField("källa", max_length=300, blank=True)
    full_text = models.TextField("fulltext")

    class Meta:
        ordering = ["sfs_number"]
        verbose_name = "författning"
        verbose_name_plural = "författningar"

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        validate_sfs_number(self.sfs_number)


# A stored name's length in bytes: file systems limit a name to 255 bytes, not characters
# ("ä" is two), and the storage may add a suffix to avoid a clash.
STORED_NAME_MAX_BYTES = 120
DISPLAY_NAME_MAX_CHARS = 250
# What counts as an extension: a short run of ASCII letters and digits after the last dot.
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,10}$")
_NOT_NAME_CHARACTER = re.compile(r"[^\w-]+")


def display_file_name(original: str) -> str:
    """The uploaded name as users see it: the last path part, printable characters only,
    at most DISPLAY_NAME_MAX_CHARS, a cut made before the extension so it survives."""
    name = unicodedata.normalize("NFC", original or "")
    name = PureWindowsPath(PurePosixPath(name).name).name
    name = "".join(ch for ch in name if ch.isprintable()).strip()
    if name in ("", ".", ".."):
        return "fil"
    if len(name) > DISPLAY_NAME_MAX_CHARS:
        match = _EXTENSION.search(name)
        ext = match.group() if match else ""
        name = name[: DISPLAY_NAME_MAX_CHARS - len(ext)].rstrip() + ext
    return name


def stored_file_name(original: str) -> str:
    """The name a file is stored under, safe by construction: letters, digits, "_" and "-"
    plus its extension, at most STORED_NAME_MAX_BYTES bytes of UTF-8, never cut inside a
    character. The original name is kept apart (UserFile.original_name) for display."""
    name = display_file_name(original)
    match = _EXTENSION.search(name)
    ext = match.group() if match else ""
    stem = _NOT_NAME_CHARACTER.sub("_", name[: len(name) - len(ext)]).strip("_") or "fil"
    stem = stem.encode()[: STORED_NAME_MAX_BYTES - len(ext)].decode("utf-8", "ignore")
    return stem + ext


def user_file_path(instance: "UserFile", filename: str) -> str:
    # A random folder: two uploads with the same name never overwrite each other.
    return f"workspaces/{instance.workspace_id}/{secrets.token_hex(8)}/{stored_file_name(filename)}"


class UserFileQuerySet(models.QuerySet):
    def alive(self) -> "UserFileQuerySet":
        return self.filter(deleted_at__isnull=True)


class UserFile(ProcessedSource):
    """A workspace's own uploaded document."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="files")
    title = models.CharField("titel", max_length=300)
    original_name = models.CharField("filnamn", max_length=300)
    file = models.FileField(upload_to=user_file_path, max_length=500)
    mime_type = models.CharField(max_length=120, blank=True)
    size = models.PositiveBigIntegerField("storlek", default=0)
    uploaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="uploaded_files")
    is_private = models.BooleanField("privat", default=False,
                                     help_text="Privata filer används aldrig som underlag för AI-svar.")
    deleted_at = models.DateTimeField(null=True, blank=True, db_index=True)
    page_count = models.PositiveIntegerField(null=True, blank=True)

    objects = UserFileQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "fil"
        verbose_name_plural = "filer"

    def __str__(self) -> str:
        return self.title or self.original_name

    def clean(self) -> None:
        if not self.workspace_id:
            raise ValidationError({"workspace": "En fil måste höra till en arbetsyta."})

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None


class Assessment(ProcessedSource):
    """A workspace's assessment of how it meets a legal requirement."""

    class Status(models.TextChoices):
        COMPLIANT = "compliant", "uppfyllt"
        PARTIAL = "partial", "delvis uppfyllt"
        NON_COMPLIANT = "non_compliant", "ej uppfyllt"
        NOT_ASSESSED = "not_assessed", "ej bedömt"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="assessments")
    title = models.CharField("krav", max_length=300)
    legal_document = models.ForeignKey(LegalDocument, null=True, blank=True, on_delete=models.SET_NULL,
                                       related_name="assessments", verbose_name="författning")
    section_ref = models.CharField("paragraf", max_length=80, blank=True,
                                   help_text="T.ex. 3 kap. 2 a §")
    compliance_status = models.CharField("bedömning", max_length=20, choices=Status.choices,
                                         default=Status.NOT_ASSESSED)
    notes = models.TextField("anteckningar", blank=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="owned_assessments", verbose_name="ansvarig")
    due_date = models.DateField("förfallodatum", null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")

    class Meta:
        ordering = ["-updated_at"]
        verbose_name = "bedömning"
        verbose_name_plural = "bedömningar"

    def __str__(self) -> str:
        return self.title


class ApiToken(models.Model):
    """A personal API token. Only a hash is stored: the key is shown once."""

    PREFIX_LENGTH = 8

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField("namn", max_length=100)
    prefix = models.CharField(max_length=PREFIX_LENGTH, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API-nyckel"
        verbose_name_plural = "API-nycklar"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @staticmethod
    def hash_key(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def revoke(self) -> None:
        self.revoked_at = timezone.now()
        self.save(update_fields=["revoked_at"])
