"""The laglista: a workspace's legal register, its requirements and evidence, the yearly review and actions.

A workspace has registers (`LegalRegister`), each in groups (`RegisterGroup`). An item (`RegisterItem`) is a
legal document that applies to the organisation, with why it applies, who answers for it, its status and its
review dates; its kravpunkter (`Requirement`) are the concrete requirements inside it, each with evidence
(`Evidence`). A yearly review (`Review`) rates items (`ReviewEntry`) and, when closed, freezes what it saw.
A finding becomes an action (`Action`). Every change is recorded by django-auditlog (register.audit).

Every row carries its workspace, directly or through its register, and every read goes through
register.selectors, which start from the workspace the access selector resolved.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from compliance.models import Assessment, LegalDocument, UserFile, Workspace
from law.models import StatuteRepeal, StatuteVersion

# Long enough for a real justification, short enough that a pasted book is refused with a clear error
# instead of filling the database and every export.
TEXT_MAX_LENGTH = 20_000


class ComplianceStatus(models.TextChoices):
    """How the organisation meets a document or a requirement. Shared by items, kravpunkter and review ratings."""

    NOT_ASSESSED = "not_assessed", "ej bedömd"
    COMPLIANT = "compliant", "uppfylls"
    PARTIAL = "partial", "uppfylls delvis"
    NON_COMPLIANT = "non_compliant", "uppfylls inte"
    NOT_APPLICABLE = "not_applicable", "ej tillämplig"


class ItemOrigin(models.TextChoices):
    MANUAL = "manual", "tillagd för hand"
    SUGGESTION = "suggestion", "förslag från profilen"
    TEMPLATE = "template", "mall"
    IMPORT = "import", "import"
    ASSESSMENT = "assessment", "tidigare bedömning"
    CHANGE = "change", "lagbevakning"
    ASSISTANT = "assistant", "förslag från assistenten"


class LegalRegister(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="registers")
    name = models.CharField("namn", max_length=200)
    description = models.TextField("beskrivning", blank=True, max_length=TEXT_MAX_LENGTH)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = "laglista"
        verbose_name_plural = "laglistor"
        constraints = [models.UniqueConstraint(fields=["workspace", "name"], name="register_unique_name")]

    def __str__(self) -> str:
        return self.name

    def get_additional_data(self) -> dict:
        # Stored with each audit entry (django-auditlog) so the trail is read per workspace and per item.
        return {"workspace_id": self.workspace_id}


class RegisterGroup(models.Model):
    register = models.ForeignKey(LegalRegister, on_delete=models.CASCADE, related_name="groups")
    name = models.CharField("namn", max_length=120)
    position = models.PositiveIntegerField("ordning", default=0)

    class Meta:
        ordering = ["position", "name"]
        verbose_name = "grupp"
        verbose_name_plural = "grupper"
        constraints = [models.UniqueConstraint(fields=["register", "name"], name="register_group_unique_name")]

    def __str__(self) -> str:
        return self.name

    def get_additional_data(self) -> dict:
        return {"workspace_id": self.register.workspace_id}


class RegisterItem(models.Model):
    """One legal document on a register: a statute, a föreskrift or an EU regulation.

    `legal_document` is empty only for the workspace's own requirements that rest on no loaded document
    (older assessments that named none): then `title` says what it is.
    """

    register = models.ForeignKey(LegalRegister, on_delete=models.CASCADE, related_name="items")
    # Denormalised from the register so every scoped read is one indexed condition and a constraint.
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="register_items")
    group = models.ForeignKey(RegisterGroup, null=True, blank=True, on_delete=models.SET_NULL, related_name="items",
                              verbose_name="grupp")
    legal_document = models.ForeignKey(LegalDocument, null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="register_items", verbose_name="författning")
    title = models.CharField("rubrik", max_length=300, blank=True)
    reason = models.TextField("varför den gäller oss", blank=True, max_length=TEXT_MAX_LENGTH)
    responsible = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="register_items", verbose_name="ansvarig")
    status = models.CharField("status", max_length=20, choices=ComplianceStatus.choices,
                              default=ComplianceStatus.NOT_ASSESSED, db_index=True)
    how_we_comply = models.TextField("hur vi uppfyller kraven", blank=True, max_length=TEXT_MAX_LENGTH)
    last_reviewed_at = models.DateField("senast bedömd", null=True, blank=True)
    last_reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                         on_delete=models.SET_NULL, related_name="+",
                                         verbose_name="bedömd av")
    next_review_date = models.DateField("nästa bedömning", null=True, blank=True)
    # Set by change monitoring when the document changed after the last assessment ("ändrad – behöver bedömas").
    needs_reassessment = models.BooleanField("ändrad – behöver bedömas", default=False)
    origin = models.CharField("ursprung", max_length=12, choices=ItemOrigin.choices, default=ItemOrigin.MANUAL)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["group__position", "group__name", "legal_document__sfs_number", "title", "pk"]
        verbose_name = "laglistepost"
        verbose_name_plural = "laglisteposter"
        constraints = [
            models.UniqueConstraint(fields=["register", "legal_document"], condition=Q(legal_document__isnull=False),
                                    name="register_item_unique_document"),
            models.CheckConstraint(condition=Q(legal_document__isnull=False) | ~Q(title=""),
                                   name="register_item_document_or_title"),
        ]
        indexes = [models.Index(fields=["workspace", "status"], name="register_item_ws_status")]

    def __str__(self) -> str:
        return self.display_title

    def get_additional_data(self) -> dict:
        return {"workspace_id": self.workspace_id, "item_id": self.pk}

    @property
    def display_title(self) -> str:
        if self.title or not self.legal_document_id:
            return self.title
        return document_display_title(self.legal_document.title, self.legal_document.sfs_number)


def document_display_title(title: str, number: str) -> str:
    """A legal document's title with its number: statute titles carry it ("Arbetsmiljölag (1977:1160)"),
    regulations' do not ("Systematiskt arbetsmiljöarbete (AFS 2023:1)"), an EU act's stands after it."""
    if number in title:
        return title
    return f"{title} {number}" if number.startswith("(") else f"{title} ({number})"


class Requirement(models.Model):
    """A kravpunkt: one concrete requirement inside an item's document, usually tied to §§ or articles."""

    item = models.ForeignKey(RegisterItem, on_delete=models.CASCADE, related_name="requirements")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="requirements")
    title = models.CharField("krav", max_length=300)
    section_ref = models.CharField("paragraf eller artikel", max_length=80, blank=True,
                                   help_text="T.ex. 3 kap. 2 a §, 4–6 §§ eller artikel 5.1 e")
    description = models.TextField("beskrivning", blank=True, max_length=TEXT_MAX_LENGTH)
    status = models.CharField("status", max_length=20, choices=ComplianceStatus.choices,
                              default=ComplianceStatus.NOT_ASSESSED, db_index=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="owned_requirements", verbose_name="ansvarig")
    needs_evidence = models.BooleanField("kräver bevis", default=False)
    due_date = models.DateField("klart senast", null=True, blank=True)
    position = models.PositiveIntegerField("ordning", default=0)
    # The assessment this kravpunkt was migrated from, so the migration can be undone and re-run without
    # duplicates and the assessment's searchable text stays linked.
    assessment = models.OneToOneField(Assessment, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="requirement", verbose_name="bedömning")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["position", "pk"]
        verbose_name = "kravpunkt"
        verbose_name_plural = "kravpunkter"

    def __str__(self) -> str:
        return f"{self.section_ref} {self.title}".strip()

    def get_additional_data(self) -> dict:
        return {"workspace_id": self.workspace_id, "item_id": self.item_id, "requirement_id": self.pk}


class Evidence(models.Model):
    """What proves a kravpunkt is met: a file of the workspace's knowledge base, an assessment, or an
    external reference (a document in another system, a URL)."""

    class Kind(models.TextChoices):
        FILE = "file", "fil i kunskapsbasen"
        ASSESSMENT = "assessment", "bedömning"
        EXTERNAL = "external", "extern referens"

    requirement = models.ForeignKey(Requirement, on_delete=models.CASCADE, related_name="evidence")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="evidence")
    kind = models.CharField("typ", max_length=12, choices=Kind.choices)
    user_file = models.ForeignKey(UserFile, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                  verbose_name="fil")
    assessment = models.ForeignKey(Assessment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                   verbose_name="bedömning")
    reference = models.CharField("referens", max_length=500, blank=True,
                                 help_text="Dokumentnamn, diarienummer eller webbadress")
    note = models.TextField("kommentar", blank=True, max_length=TEXT_MAX_LENGTH)
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]
        verbose_name = "bevis"
        verbose_name_plural = "bevis"
        constraints = [
            models.CheckConstraint(
                condition=(Q(kind="file", user_file__isnull=False) | Q(kind="assessment", assessment__isnull=False)
                           | Q(kind="external") & ~Q(reference="")),
                name="evidence_kind_has_target",
            ),
        ]

    def __str__(self) -> str:
        if self.kind == self.Kind.FILE and self.user_file_id:
            return str(self.user_file)
        if self.kind == self.Kind.ASSESSMENT and self.assessment_id:
            return str(self.assessment)
        return self.reference

    def get_additional_data(self) -> dict:
        return {"workspace_id": self.workspace_id, "item_id": self.requirement.item_id,
                "requirement_id": self.requirement_id}


class Review(models.Model):
    """A lagefterlevnadskontroll: the yearly review of a register, or of some of its groups."""

    class State(models.TextChoices):
        OPEN = "open", "pågår"
        CLOSED = "closed", "avslutad"

    register = models.ForeignKey(LegalRegister, on_delete=models.CASCADE, related_name="reviews")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="reviews")
    title = models.CharField("rubrik", max_length=200)
    groups = models.ManyToManyField(RegisterGroup, blank=True, related_name="reviews",
                                    verbose_name="grupper (tomt = hela listan)")
    lead = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="led_reviews", verbose_name="ansvarig granskare")
    due_date = models.DateField("klar senast", null=True, blank=True)
    state = models.CharField("läge", max_length=8, choices=State.choices, default=State.OPEN, db_index=True)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    started_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField("avslutad", null=True, blank=True)
    closed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+", verbose_name="avslutad av")
    # The day the review speaks for: the legal texts are frozen as they read on this Stockholm day.
    as_of = models.DateField("per datum", null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]
        verbose_name = "lagefterlevnadskontroll"
        verbose_name_plural = "lagefterlevnadskontroller"

    def __str__(self) -> str:
        return self.title

    def get_additional_data(self) -> dict:
        return {"workspace_id": self.workspace_id, "review_id": self.pk}

    @property
    def is_closed(self) -> bool:
        return self.state == self.State.CLOSED


class ReviewEntry(models.Model):
    """One item's rating in a review. On closing, the `frozen_*` fields keep what the review saw, so the
    review reads the same after the item, its kravpunkter, evidence or the law change, or the item is removed."""

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="entries")
    item = models.ForeignKey(RegisterItem, null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="review_entries")
    rating = models.CharField("bedömning", max_length=20, choices=ComplianceStatus.choices,
                              default=ComplianceStatus.NOT_ASSESSED)
    justification = models.TextField("motivering", blank=True, max_length=TEXT_MAX_LENGTH)
    evidence = models.ManyToManyField(Evidence, blank=True, related_name="review_entries", verbose_name="bevis")
    assessed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+", verbose_name="bedömd av")
    assessed_at = models.DateTimeField("signerad", null=True, blank=True)
    # What the review saw, written when it closes (register.services.review_close).
    frozen_title = models.CharField(max_length=1100, blank=True)  # a document's title (up to 1000) and its number
    frozen_document_number = models.CharField(max_length=40, blank=True)
    frozen_document_kind = models.CharField(max_length=40, blank=True)
    # "t.o.m. SFS 2025:1079" or the regulation's own date: which text the rating was made against.
    frozen_version = models.CharField(max_length=120, blank=True)
    frozen_version_id = models.BigIntegerField(null=True, blank=True)
    frozen_requirements = models.JSONField(default=list, blank=True)
    frozen_evidence = models.JSONField(default=list, blank=True)
    frozen_assessor = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["pk"]
        verbose_name = "bedömning i kontroll"
        verbose_name_plural = "bedömningar i kontroll"
        constraints = [models.UniqueConstraint(fields=["review", "item"], name="review_entry_unique_item")]

    def __str__(self) -> str:
        return self.frozen_title or (str(self.item) if self.item_id else f"#{self.pk}")

    def get_additional_data(self) -> dict:
        return {"workspace_id": self.review.workspace_id, "review_id": self.review_id, "item_id": self.item_id}

    @property
    def is_signed(self) -> bool:
        return self.assessed_at is not None


class Action(models.Model):
    """An avvikelse or åtgärd: something to do, with an owner and a due date, tracked until closed."""

    class State(models.TextChoices):
        OPEN = "open", "öppen"
        DONE = "done", "åtgärdad"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="actions")
    item = models.ForeignKey(RegisterItem, null=True, blank=True, on_delete=models.SET_NULL, related_name="actions",
                             verbose_name="laglistepost")
    requirement = models.ForeignKey(Requirement, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="actions", verbose_name="kravpunkt")
    review_entry = models.ForeignKey(ReviewEntry, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="actions", verbose_name="från kontroll")
    title = models.CharField("åtgärd", max_length=300)
    description = models.TextField("beskrivning", blank=True, max_length=TEXT_MAX_LENGTH)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="owned_actions", verbose_name="ansvarig")
    due_date = models.DateField("klar senast", null=True, blank=True)
    state = models.CharField("läge", max_length=8, choices=State.choices, default=State.OPEN, db_index=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField("åtgärdad", null=True, blank=True)
    closed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+", verbose_name="åtgärdad av")

    class Meta:
        ordering = ["state", "due_date", "pk"]
        verbose_name = "åtgärd"
        verbose_name_plural = "åtgärder"

    def __str__(self) -> str:
        return self.title

    def get_additional_data(self) -> dict:
        return {"workspace_id": self.workspace_id, "item_id": self.item_id, "action_id": self.pk}


class SuggestionDecision(models.Model):
    """A person's answer to a suggested document (register.suggestions): accepted onto the register, or
    rejected. A decided document is not suggested again; a rejection can be undone (the row goes)."""

    class Decision(models.TextChoices):
        ACCEPTED = "accepted", "accepterad"
        REJECTED = "rejected", "avvisad"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="suggestion_decisions")
    legal_document = models.ForeignKey(LegalDocument, on_delete=models.CASCADE, related_name="+",
                                       verbose_name="författning")
    decision = models.CharField("beslut", max_length=10, choices=Decision.choices)
    # The reasons shown when it was decided, so a later reader sees what was accepted or turned down.
    reason = models.TextField("motivering", blank=True, max_length=TEXT_MAX_LENGTH)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+", verbose_name="beslutad av")
    decided_at = models.DateTimeField("beslutad", auto_now_add=True)

    class Meta:
        ordering = ["-decided_at", "-pk"]
        verbose_name = "beslut om förslag"
        verbose_name_plural = "beslut om förslag"
        constraints = [models.UniqueConstraint(fields=["workspace", "legal_document"],
                                               name="suggestion_decision_unique_document")]

    def __str__(self) -> str:
        return f"{self.legal_document}: {self.get_decision_display()}"

    def get_additional_data(self) -> dict:
        return {"workspace_id": self.workspace_id}


# --- Lagbevakning: change notices, impact assessments and their e-mail digests (register.notices) ----------


class ChangeNotice(models.Model):
    """A change to a document that concerns a workspace: an amendment or a repeal of a document on its
    laglista, or a new statute whose subject matches its laglista (a suggestion). Created once per workspace
    and change (the unique constraints decide, also between two workers), answered by an `ImpactAssessment`.
    """

    class Kind(models.TextChoices):
        AMENDED = "amended", "ändrad"
        REPEALED = "repealed", "upphävd"
        NEW = "new", "ny författning"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="change_notices")
    # The workspace's item holding the document (the first, when several registers hold it); empty for a
    # suggested new statute, which is on no register yet.
    item = models.ForeignKey(RegisterItem, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="change_notices", verbose_name="laglistepost")
    legal_document = models.ForeignKey(LegalDocument, on_delete=models.CASCADE, related_name="change_notices",
                                       verbose_name="författning")
    # The version the change made (amended, new) or the repeal (repealed).
    version = models.ForeignKey(StatuteVersion, null=True, blank=True, on_delete=models.CASCADE,
                                related_name="change_notices")
    repeal = models.ForeignKey(StatuteRepeal, null=True, blank=True, on_delete=models.CASCADE,
                               related_name="change_notices")
    kind = models.CharField("typ", max_length=10, choices=Kind.choices)
    # The changed units touching the item's kravpunkter (their section_ref), when the notice was made: the
    # notice lists these first.
    relevant_units = models.JSONField(default=list, blank=True)
    # The changed units the §§ of the workspace's kravpunkter cite without naming them ("enligt 2 §"), each with the
    # kravpunkter citing it, when the notice was made (register.notices.citing): listed after the touched ones.
    cited_units = models.JSONField(default=list, blank=True)
    change_count = models.PositiveIntegerField(default=0)
    # The changed units by the diff's kind ({"AMENDED": 3, "REPEALED": 1}; `law.models.StatuteChange.Kind`), counted
    # with `change_count`: a notice says which units are new or repealed, not "ändrade" for all of them.
    unit_counts = models.JSONField(default=dict, blank=True)
    # How many amending acts the changed units name: a version may bring the changes of many (offentlighets- och
    # sekretesslagen's of 2025: 40), and "ändrad genom SFS 2025:1508" would name only the last.
    act_count = models.PositiveIntegerField(default=0)
    # A new statute's reason: the loaded documents it cites whose subject the laglista has, each {"number", "title",
    # "category", "listed": on the laglista when the notice was made} (register.notices.subjects).
    subject_documents = models.JSONField(default=list, blank=True)
    # For a document the laglista leaves out: the laglista's documents that cite its changed units or rest on it, each
    # {"number", "title"}, when the notice was made (register.notices.citing.documents_leaning_on). A law cited by a
    # list's offentlighets- och sekretesslag (which cites 448 statutes) reads otherwise than one a listed föreskrift
    # rests on, and the list says which.
    leaning_documents = models.JSONField(default=list, blank=True)
    # "upphävd genom SFS 2025:1506": the act the repeal names, and that act when it is loaded.
    replaced_by = models.CharField("upphävd genom", max_length=40, blank=True)
    replacement = models.ForeignKey(LegalDocument, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+", verbose_name="ersättande författning")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    # Read or not is each member's own (`NoticeRead`); answered is the workspace's.
    # Set with the impact assessment: what the badge, the filters and the digests count.
    answered_at = models.DateTimeField("besvarad", null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = "lagändring"
        verbose_name_plural = "lagändringar"
        constraints = [
            models.UniqueConstraint(fields=["workspace", "legal_document", "version"],
                                    condition=Q(version__isnull=False), name="notice_once_per_version"),
            models.UniqueConstraint(fields=["workspace", "legal_document", "repeal"],
                                    condition=Q(repeal__isnull=False), name="notice_once_per_repeal"),
            models.CheckConstraint(
                condition=(Q(kind="repealed", repeal__isnull=False, version__isnull=True)
                           | Q(kind__in=["amended", "new"], version__isnull=False, repeal__isnull=True)),
                name="notice_kind_has_change"),
        ]
        indexes = [models.Index(fields=["workspace", "answered_at"], name="notice_ws_answered")]

    def __str__(self) -> str:
        return f"{self.legal_document.sfs_number} {self.get_kind_display()}"

    def get_additional_data(self) -> dict:
        return {"workspace_id": self.workspace_id, "item_id": self.item_id, "notice_id": self.pk}

    @property
    def is_answered(self) -> bool:
        return self.answered_at is not None

    @property
    def cited_unit_citations(self) -> list[str]:
        """The changed units the kravpunkter's §§ cite ("3 kap. 2 §"), in the version's order."""
        return [cited["unit"] for cited in self.cited_units]


class NoticeRead(models.Model):
    """One member has opened one change notice: "oläst" on the Lagändringar page, its filter, the header's
    count and the API are each member's own. No row: unread for that member."""

    notice = models.ForeignKey(ChangeNotice, on_delete=models.CASCADE, related_name="reads")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    read_at = models.DateTimeField("läst")

    class Meta:
        verbose_name = "läst lagändring"
        verbose_name_plural = "lästa lagändringar"
        constraints = [models.UniqueConstraint(fields=["notice", "user"], name="notice_read_once_per_user")]

    def __str__(self) -> str:
        return f"{self.notice} läst av {self.user}"


class ImpactAssessment(models.Model):
    """A person's answer to a change notice: does it affect us, what must be done, and the action if any."""

    class Affects(models.TextChoices):
        YES = "yes", "ja"
        NO = "no", "nej"
        UNKNOWN = "unknown", "vet inte"

    notice = models.OneToOneField(ChangeNotice, on_delete=models.CASCADE, related_name="impact")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="impact_assessments")
    affects_us = models.CharField("påverkar oss", max_length=8, choices=Affects.choices)
    what_to_do = models.TextField("vad som behöver göras", blank=True, max_length=TEXT_MAX_LENGTH)
    action = models.ForeignKey(Action, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                               verbose_name="åtgärd")
    comment = models.TextField("kommentar", blank=True, max_length=TEXT_MAX_LENGTH)
    answered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+", verbose_name="besvarad av")
    answered_at = models.DateTimeField("besvarad")

    class Meta:
        verbose_name = "konsekvensbedömning"
        verbose_name_plural = "konsekvensbedömningar"

    def __str__(self) -> str:
        return f"{self.notice}: {self.get_affects_us_display()}"

    def get_additional_data(self) -> dict:
        return {"workspace_id": self.workspace_id, "item_id": self.notice.item_id, "notice_id": self.notice_id}


class NoticeSubscription(models.Model):
    """How often one member hears of a workspace's change notices by e-mail (Inställningar). A member
    without a row gets the default (`DEFAULT_FREQUENCY`)."""

    class Frequency(models.TextChoices):
        OFF = "off", "av"
        DAILY = "daily", "dagligen"
        WEEKLY = "weekly", "veckovis"

    DEFAULT_FREQUENCY = Frequency.WEEKLY

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notice_subscriptions")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="notice_subscriptions")
    frequency = models.CharField("sammanställning per e-post", max_length=8, choices=Frequency.choices,
                                 default=DEFAULT_FREQUENCY)
    # Off per type: amendments and repeals of the laglista's documents, and new statutes suggested for it.
    changes = models.BooleanField("ändrade och upphävda författningar i laglistan", default=True)
    new_statutes = models.BooleanField("nya författningar som kan gälla oss", default=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "bevakning per e-post"
        verbose_name_plural = "bevakningar per e-post"
        constraints = [models.UniqueConstraint(fields=["user", "workspace"], name="notice_subscription_unique")]

    def __str__(self) -> str:
        return f"{self.user} i {self.workspace}: {self.get_frequency_display()}"


class DigestSent(models.Model):
    """One digest e-mail per user, workspace and period ("2026-11-25" daily, "2026-W48" weekly). The row is
    inserted in the transaction that sends, before sending: a second worker finds it and skips, and a failed
    send rolls it back so the next run retries."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    period = models.CharField(max_length=12)
    sent_at = models.DateTimeField()
    notice_ids = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-sent_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["user", "workspace", "period"], name="digest_once_per_period")]

    def __str__(self) -> str:
        return f"{self.user} {self.workspace} {self.period}"
