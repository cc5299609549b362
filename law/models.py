"""A statute's consolidated versions, what changed between them unit by unit, and its repeal.

`LegalDocument` (compliance) keeps the current text, the one search and chunking read; these models
keep the history beside it, linked by foreign key, so compliance's migrations stay untouched.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from compliance.models import LegalDocument


class StatuteVersion(models.Model):
    """One consolidated text of a statute ("t.o.m. SFS 2025:1079") and the days it was in force."""

    class Origin(models.TextChoices):
        CORPUS = "CORPUS", "den medföljande korpusen (2024)"
        FILE = "FILE", "fil från rättsdatabaserna"
        SERVICE = "SERVICE", "rättsdatabasernas tjänst"

    document = models.ForeignKey(LegalDocument, on_delete=models.CASCADE, related_name="versions")
    amended_through = models.CharField("ändring införd t.o.m.", max_length=40, blank=True)
    full_text = models.TextField("fulltext")
    content_hash = models.CharField(max_length=64)
    # In force from the amending act's in-force date (or when we first saw it) until the next version.
    valid_from = models.DateField("gäller från", null=True, blank=True)
    valid_to = models.DateField("gäller till", null=True, blank=True)
    is_current = models.BooleanField("gällande", default=False)
    origin = models.CharField("källa", max_length=10, choices=Origin.choices)
    source_name = models.CharField("källans namn", max_length=500, blank=True)
    # The record's own id in the service (fulltextInformationId) and the hash of the fields we read:
    # the same record from the file or the service has the same hash, so a second import is a no-op.
    record_id = models.CharField("post-id", max_length=40, blank=True)
    record_hash = models.CharField(max_length=64, blank=True)
    # The service's uppdateradDateTime: orders two records with the same andringInford (a correction).
    record_updated = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document", "-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["document"], condition=Q(is_current=True),
                                    name="law_one_current_version"),
        ]

    def __str__(self) -> str:
        return f"{self.document.sfs_number} {self.amended_through or '(ursprunglig)'}"


class StatuteChange(models.Model):
    """One unit (§ or chapter-level text) that differs between two consecutive versions."""

    class Kind(models.TextChoices):
        ADDED = "ADDED", "ny"
        AMENDED = "AMENDED", "ändrad"
        REPEALED = "REPEALED", "upphävd"
        RENUMBERED = "RENUMBERED", "ny beteckning"

    document = models.ForeignKey(LegalDocument, on_delete=models.CASCADE, related_name="changes")
    from_version = models.ForeignKey(StatuteVersion, on_delete=models.CASCADE, related_name="changes_from")
    to_version = models.ForeignKey(StatuteVersion, on_delete=models.CASCADE, related_name="changes_to")
    kind = models.CharField("typ", max_length=10, choices=Kind.choices)
    citation = models.CharField("enhet", max_length=200)  # "3 kap. 2 a §" in the new version
    old_citation = models.CharField("tidigare beteckning", max_length=200, blank=True)
    chapter = models.CharField(max_length=20, blank=True)
    section = models.CharField(max_length=20, blank=True)
    # "/Träder i kraft I:2026-07-01/": a version of the § that is not in force yet.
    temporal = models.CharField(max_length=100, blank=True)
    amending_sfs = models.CharField("ändringsförfattning", max_length=20, blank=True, db_index=True)
    in_force = models.DateField("ikraftträdande", null=True, blank=True)
    old_text = models.TextField(blank=True)
    new_text = models.TextField(blank=True)
    ordinal = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["to_version", "ordinal"]

    def __str__(self) -> str:
        return f"{self.document.sfs_number} {self.citation}: {self.get_kind_display()}"


class StatuteRepeal(models.Model):
    """A repealed statute: it leaves retrieval by default but stays readable."""

    document = models.OneToOneField(LegalDocument, on_delete=models.CASCADE, related_name="repeal")
    repealed_by = models.CharField("upphävd genom", max_length=40, blank=True)  # "SFS 2025:1506"
    repealed_on = models.DateField("upphör att gälla", null=True, blank=True)
    source_name = models.CharField(max_length=500, blank=True)
    record_hash = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.document.sfs_number} upphävd genom {self.repealed_by}"


class ChangeSummary(models.Model):
    """A plain-Swedish summary of one version's changes, written by the chat model from their exact word diffs.
    One per version: the law change is the same for every workspace, so it is made once (on request) and
    shown to all, always labelled as the model's and always next to the exact diff."""

    version = models.OneToOneField(StatuteVersion, on_delete=models.CASCADE, related_name="summary")
    text = models.TextField("sammanfattning")
    model = models.CharField("modell", max_length=100)
    # The units the model was shown (a large amendment is summarised from its first units within a budget).
    units_shown = models.PositiveIntegerField(default=0)
    units_total = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Sammanfattning av {self.version}"
