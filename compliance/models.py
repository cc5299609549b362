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
from collections.abc import Collection
from pathlib import PurePosixPath, PureWindowsPath

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Coalesce
from django.utils import timezone

from .numbers import DOCUMENT_NUMBER_MAX_LENGTH, SFS_NUMBER_RE, agency_series, document_slug, is_document_number


def validate_document_number(value: str) -> None:
    """Any number of the legal corpus: SFS (also historical), an agency series, an EU regulation."""
    if not is_document_number(value or ""):
        raise ValidationError(
            "Ogiltig beteckning %(value)s: ange t.ex. 1977:1160, AFS 2023:1 eller (EU) 2016/679.",
            code="invalid_document_number",
            params={"value": value},
        )


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
    # Bumped whenever the profile, a fact or anyone's preferences here change: the assistant's
    # memory cache keys on it (compliance.services.memory_changed).
    memory_version = models.PositiveIntegerField(default=0)
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
        # An auditor (internal or certification body): reads the register, reviews and audit trail, writes nothing.
        AUDITOR = "auditor", "revisor"

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

    # The document's own text and what was parsed from it: megabytes for a large statute (inkomstskattelagen), and
    # unread by a page or a line that names the document. A query that joins documents for their titles defers
    # these (register.selectors).
    TEXT_FIELDS = ("full_text", "structure", "legal_basis", "error_message")

    class ContentType(models.TextChoices):
        SFS_LAW = "SFS_LAW", "lag"
        SFS_ORDINANCE = "SFS_ORDINANCE", "förordning"
        AGENCY_REGULATION = "AGENCY_REGULATION", "myndighetsföreskrift"
        EU_REGULATION = "EU_REGULATION", "EU-förordning"
        # The rest of the statute book, by the head noun of the title (the data's `kind`).
        SFS_FUNDAMENTAL_LAW = "SFS_FUNDAMENTAL_LAW", "grundlag"
        SFS_AGENCY_RULES = "SFS_AGENCY_RULES", "föreskrifter i SFS"
        SFS_PROCLAMATION = "SFS_PROCLAMATION", "kungörelse"
        SFS_NOTICE = "SFS_NOTICE", "tillkännagivande"
        SFS_OTHER = "SFS_OTHER", "annan författning"

    # The name stays `sfs_number` (used throughout); it holds any number of the corpus, see compliance.numbers.
    sfs_number = models.CharField("beteckning", max_length=DOCUMENT_NUMBER_MAX_LENGTH, unique=True,
                                  validators=[validate_document_number])
    # Room for an amending or repealing regulation's title, which names every regulation it amends (MSBFS 2025:9).
    title = models.CharField("titel", max_length=1000)
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
    # Blank for the few statutes whose text the source lacks (short fastställelseförordningar).
    full_text = models.TextField("fulltext", blank=True)
    # Agency and EU regulations: who issued it, in which series ("AFS"), and the statutes it rests on.
    agency = models.CharField("myndighet", max_length=200, blank=True, db_index=True)
    series = models.CharField("serie", max_length=20, blank=True, db_index=True)
    in_force_date = models.DateField("träder i kraft", null=True, blank=True)
    legal_basis = models.TextField("bemyndigande", blank=True)
    # The SFS numbers the legal basis cites; linked to the statutes at read time, so a statute
    # loaded after the regulation is linked too.
    legal_basis_sfs = ArrayField(models.CharField(max_length=DOCUMENT_NUMBER_MAX_LENGTH), default=list, blank=True,
                                 verbose_name="bemyndigande (SFS)")
    # An agency regulation's legal basis and the statutes its text cites most (law.citations.DetailedStatutes):
    # the acts it fills in, searched beside it for the context block. Derived from the corpus, like cited_by.
    # The database default too, as for cited_by: a migration's historical model knows no such column.
    details_sfs = ArrayField(models.CharField(max_length=DOCUMENT_NUMBER_MAX_LENGTH), default=list, db_default=[],
                             blank=True, verbose_name="preciserar (SFS)")
    # The parsed units of a regulation (law.regulations): what its chunks and its page are built from.
    # Empty for statutes, whose structure is parsed from the text itself.
    structure = models.JSONField("struktur", default=list, blank=True)
    # How many other loaded documents cite this one (law.citations): retrieval's citation prior. The database
    # default too, so code that knows an older shape of the table (a migration's historical model) can insert.
    cited_by = models.PositiveIntegerField("citeras av", default=0, db_default=0,
                                           help_text="Antal andra inlästa författningar som hänvisar hit.")
    # The authority whose own work the statute governs (law.addressees: its instruction, its registers), or
    # "": retrieval's addressee prior. Derived from the titles of the loaded corpus, like cited_by.
    addressee = models.CharField("gäller myndighet", max_length=200, blank=True, default="", db_default="",
                                 help_text="Myndigheten vars egen verksamhet författningen reglerar.")

    class Meta:
        ordering = ["sfs_number"]
        verbose_name = "författning"
        verbose_name_plural = "författningar"

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        validate_document_number(self.sfs_number)

    @property
    def slug(self) -> str:
        """The number's URL form (/lag/<slug>)."""
        return document_slug(self.sfs_number)

    @property
    def kind_label(self) -> str:
        """The badge: "Lag", "Förordning", "Föreskrift (AFS)", "EU-förordning"."""
        return document_kind_label(self.content_type, self.sfs_number)


# Kinds of statute that are rarely the rule a company follows: notices (index figures, treaties' entry
# into force), the old kungörelser and resolutions, stadgar and letters. Retrieval ranks them below the
# binding rules (lag, förordning, föreskrift, EU-förordning) as a prior, never as a filter.
SECONDARY_CONTENT_TYPES = (LegalDocument.ContentType.SFS_PROCLAMATION, LegalDocument.ContentType.SFS_NOTICE,
                           LegalDocument.ContentType.SFS_OTHER)
# Every kind printed in SFS (has a page at rkrattsbaser.gov.se).
SFS_CONTENT_TYPES = (LegalDocument.ContentType.SFS_LAW, LegalDocument.ContentType.SFS_ORDINANCE,
                     LegalDocument.ContentType.SFS_FUNDAMENTAL_LAW, LegalDocument.ContentType.SFS_AGENCY_RULES,
                     LegalDocument.ContentType.SFS_PROCLAMATION, LegalDocument.ContentType.SFS_NOTICE,
                     LegalDocument.ContentType.SFS_OTHER)
_KIND_LABELS = {"SFS_LAW": "Lag", "SFS_ORDINANCE": "Förordning", "EU_REGULATION": "EU-förordning",
                "SFS_FUNDAMENTAL_LAW": "Grundlag", "SFS_AGENCY_RULES": "Föreskrifter (SFS)",
                "SFS_PROCLAMATION": "Kungörelse", "SFS_NOTICE": "Tillkännagivande"}


def document_kind_label(content_type: str, number: str = "") -> str:
    """What a legal document is, as a badge says it. An agency regulation names its series."""
    if content_type == LegalDocument.ContentType.AGENCY_REGULATION:
        series = agency_series(number)
        return f"Föreskrift ({series})" if series else "Föreskrift"
    return _KIND_LABELS.get(content_type, "Författning")


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


class VersionState(models.TextChoices):
    """Where one version of an uploaded document stands. Only CURRENT versions are searched
    (chunks.selectors.CHUNK_SCOPE_SQL); the others keep their bytes and chunks for the history."""

    CURRENT = "current", "nuvarande version"
    # Uploaded to replace the current version: takes over once its chunks are written.
    PENDING = "pending", "ny version, bearbetas"
    SUPERSEDED = "superseded", "tidigare version"


class UserFile(ProcessedSource):
    """A workspace's own uploaded document, one row per version.

    Versions of one document share `version_of` (the first version; NULL on the first
    version itself) and are numbered 1, 2, …; exactly one of them is CURRENT.
    """

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
    version_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="later_versions", verbose_name="första versionen")
    version = models.PositiveIntegerField("version", default=1)
    version_state = models.CharField("versionsstatus", max_length=12, choices=VersionState.choices,
                                     default=VersionState.CURRENT, db_index=True)

    objects = UserFileQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "fil"
        verbose_name_plural = "filer"
        constraints = [
            models.UniqueConstraint(Coalesce("version_of", "id"), condition=models.Q(version_state="current"),
                                    name="userfile_one_current_version"),
            models.UniqueConstraint(Coalesce("version_of", "id"), "version", name="userfile_unique_version_number"),
        ]

    def __str__(self) -> str:
        return self.title or self.original_name

    def clean(self) -> None:
        if not self.workspace_id:
            raise ValidationError({"workspace": "En fil måste höra till en arbetsyta."})

    def validate_constraints(self, exclude: Collection[str] | None = None) -> None:
        # The version constraints compare expressions over the row's id, which Django cannot
        # evaluate for an unsaved row; the services keep them under a lock and the database enforces them.
        super().validate_constraints(exclude={*(exclude or ()), "version_of"})

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def document_id(self) -> int:
        """The id every version of this document shares: its first version's."""
        return self.version_of_id or self.pk

    @property
    def is_current(self) -> bool:
        return self.version_state == VersionState.CURRENT


class AssessmentQuerySet(models.QuerySet):
    def alive(self) -> "AssessmentQuerySet":
        return self.filter(deleted_at__isnull=True)


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
    # Soft delete ("Rensa kunskapsbasen"): the row and its chunks stay, every read leaves it out.
    deleted_at = models.DateTimeField(null=True, blank=True, db_index=True)

    objects = AssessmentQuerySet.as_manager()

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


# --- Memory: the workspace's profile and each member's preferences -----------------------------


class FactOrigin(models.TextChoices):
    FORM = "form", "angivet i formuläret"
    CONVERSATION = "conversation", "lärt från en konversation"
    API = "api", "angivet via API"


class WorkspaceProfile(models.Model):
    """What the law needs to know about the organisation, shared by the workspace's members.

    Every structured field is optional (empty = not stated). `origins` records, per field,
    where its value came from: {"employee_count": {"origin": "conversation",
    "conversation_id": 12, "at": "2026-…", "user_id": 3}}. `revision` is bumped on every
    change so caches that depend on the profile never serve an old one.
    """

    class Sector(models.TextChoices):
        PRIVATE = "private", "privat"
        PUBLIC = "public", "offentlig"

    workspace = models.OneToOneField(Workspace, on_delete=models.CASCADE, related_name="profile")
    employee_count = models.PositiveIntegerField("antal anställda", null=True, blank=True)
    industry = models.CharField("bransch", max_length=200, blank=True)
    sni_code = models.CharField("SNI-kod", max_length=10, blank=True)
    has_collective_agreement = models.BooleanField("kollektivavtal", null=True, blank=True)
    collective_agreement = models.CharField("vilket kollektivavtal", max_length=200, blank=True)
    sector = models.CharField("sektor", max_length=10, choices=Sector.choices, blank=True)
    processes_sensitive_data = models.BooleanField("behandlar känsliga personuppgifter", null=True, blank=True)
    location = models.CharField("verksamhetsort", max_length=200, blank=True)
    origins = models.JSONField(default=dict, blank=True)
    revision = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "företagsprofil"
        verbose_name_plural = "företagsprofiler"

    def __str__(self) -> str:
        return f"Profil för {self.workspace}"


class ProfileFact(models.Model):
    """A free-text fact about the organisation ("Vi har verksamhet i Norge")."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="profile_facts")
    text = models.CharField("uppgift", max_length=500)
    origin = models.CharField("ursprung", max_length=12, choices=FactOrigin.choices, default=FactOrigin.FORM)
    # A conversation lives in the agent layer: kept as a plain id, so this layer never refers upwards.
    conversation_id = models.PositiveBigIntegerField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = "profiluppgift"
        verbose_name_plural = "profiluppgifter"

    def __str__(self) -> str:
        return self.text


class PersonalPreference(models.Model):
    """One member's wishes for answers in one workspace. Nobody else sees them."""

    class Expertise(models.TextChoices):
        NOVICE = "novice", "nybörjare"
        INTERMEDIATE = "intermediate", "van"
        EXPERT = "expert", "expert/jurist"

    class Length(models.TextChoices):
        SHORT = "short", "korta svar"
        NORMAL = "normal", "normala svar"
        DETAILED = "detailed", "utförliga svar"

    class Tone(models.TextChoices):
        PLAIN = "plain", "enkel och vardaglig"
        FORMAL = "formal", "formell"

    class Language(models.TextChoices):
        SWEDISH = "sv", "svenska"
        ENGLISH = "en", "engelska"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="preferences")
    role = models.CharField("roll", max_length=200, blank=True)
    expertise = models.CharField("kunskapsnivå", max_length=12, choices=Expertise.choices, blank=True)
    answer_length = models.CharField("svarslängd", max_length=10, choices=Length.choices, blank=True)
    tone = models.CharField("ton", max_length=10, choices=Tone.choices, blank=True)
    language = models.CharField("språk", max_length=2, choices=Language.choices, blank=True)
    origins = models.JSONField(default=dict, blank=True)
    revision = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "workspace"], name="preference_unique_user_workspace")]
        verbose_name = "personlig inställning"
        verbose_name_plural = "personliga inställningar"

    def __str__(self) -> str:
        return f"{self.user} i {self.workspace}"


PROFILE_FIELDS = ("employee_count", "industry", "sni_code", "has_collective_agreement", "collective_agreement",
                  "sector", "processes_sensitive_data", "location")
PREFERENCE_FIELDS = ("role", "expertise", "answer_length", "tone", "language")


def _display(instance: models.Model, name: str) -> str:
    value = getattr(instance, name)
    if value is None or value == "":
        return ""
    if isinstance(value, bool):
        return "ja" if value else "nej"
    field = instance._meta.get_field(name)
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    return str(value)


def stated_fields(instance: models.Model, names: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """(field name, Swedish label, displayed value) of each field that has a value."""
    out = []
    for name in names:
        shown = _display(instance, name)
        if shown:
            out.append((name, str(instance._meta.get_field(name).verbose_name), shown))
    return out
