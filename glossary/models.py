"""A workspace's glossary: the team's own words for what the law calls otherwise.

People ask in the words of their practice ("friskvårdsbidrag", "visselblåsare", "OVK"); the statutes write
"personalvårdsförmån", "rapporterande person", "funktionskontroll av ventilationssystem". No statute writes the
nickname, so no bridge mined from the corpus reaches it (docs/retrieval.md, "Where realq fails"). A compliance team
knows its own words: each term here says which words of the law one of them means, and the assistant searches those
too when a question in this workspace uses it (agent/retrieval/workspace_glossary.py).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from compliance.models import Workspace

WORD_MAX_LENGTH = 100
DUPLICATE_MESSAGE = "Ordet finns redan i ordlistan; ändra det i stället."
LAW_WORDS_MAX_LENGTH = 200


class Term(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="glossary_terms")
    word = models.CharField("ert ord", max_length=WORD_MAX_LENGTH,
                            help_text="Ordet som ni använder, t.ex. ”visselblåsare”.")
    law_words = models.CharField("lagens ord", max_length=LAW_WORDS_MAX_LENGTH,
                                 help_text="Vad lagen kallar samma sak, t.ex. ”rapporterande person”, gärna med "
                                           "lagrummet: ”personalvårdsförmån (11 kap. 11 § inkomstskattelagen)”.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = [Lower("word"), "id"]
        verbose_name = "begrepp"
        verbose_name_plural = "begrepp"
        constraints = [
            # One meaning per word and workspace, however it is capitalised ("OVK" and "ovk" are one word).
            models.UniqueConstraint(Lower("word"), "workspace", name="glossary_term_word_unique",
                                    violation_error_message=DUPLICATE_MESSAGE),
        ]

    def __str__(self) -> str:
        return f"{self.word} → {self.law_words}"

    def get_additional_data(self) -> dict:
        """What the audit trail keeps beside each entry: the workspace it belongs to."""
        return {"workspace_id": self.workspace_id}
