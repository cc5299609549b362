"""Conversations, their messages and feedback, and one RetrievalLog per turn."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import JSONField, Value


class Conversation(models.Model):
    workspace = models.ForeignKey("compliance.Workspace", on_delete=models.CASCADE, related_name="conversations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField("rubrik", max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["workspace", "user", "-updated_at"], name="conv_ws_user_updated")]
        verbose_name = "konversation"
        verbose_name_plural = "konversationer"

    def __str__(self) -> str:
        return self.title or f"Konversation {self.pk}"


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user", "användare"
        ASSISTANT = "assistant", "assistent"

    class AnswerMode(models.TextChoices):
        NONE = "", "–"
        MODEL = "model", "språkmodell"
        EXTRACTIVE = "extractive", "utdrag ur källor"
        DIRECT = "direct", "direkt svar"
        ERROR = "error", "fel"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=10, choices=Role.choices)
    content = models.TextField(blank=True)
    answer_mode = models.CharField(max_length=12, choices=AnswerMode.choices, blank=True, default="")
    # The citation map given to the model: [{"n": 1, "chunk_id": ..., "header": ..., ...}]
    sources = models.JSONField(default=list, blank=True)
    removed_citations = models.JSONField(default=list, blank=True)
    degraded = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    model_name = models.CharField(max_length=100, blank=True)
    # Facts the user's message stated, offered for saving (agent.memory.detection): on the assistant's
    # answer, each {"kind", "field", "value", "label", "status": "pending" | "saved" | "declined"}.
    proposals = models.JSONField(default=list, blank=True)
    # How the question's words were searched, kept with the answer so its page can say so later: the words no
    # source used (less those searched as a statute word instead), which the page offers to teach in the
    # glossary, and the glossary's terms the question used, word -> the law's words searched too (as they read
    # when asked; a term changed since does not rewrite an old answer).
    # (db_default too: an insert that names only the older columns, the dashboard's seed or code still running
    # the previous release while the migration runs, gets the empty value instead of failing.)
    unknown_words = models.JSONField(default=list, db_default=Value([], JSONField()), blank=True)
    glossary = models.JSONField(default=dict, db_default=Value({}, JSONField()), blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        verbose_name = "meddelande"
        verbose_name_plural = "meddelanden"

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.content[:60]}"


class Feedback(models.Model):
    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="feedback")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    rating = models.SmallIntegerField(choices=[(1, "tummen upp"), (-1, "tummen ner")])
    comment = models.TextField("kommentar", blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["message", "user"], name="feedback_one_per_user")]
        verbose_name = "återkoppling"
        verbose_name_plural = "återkoppling"


class RetrievalLog(models.Model):
    """What the pre-model step did for one turn: the dashboard's raw material."""

    workspace = models.ForeignKey("compliance.Workspace", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    message = models.OneToOneField(Message, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="retrieval_log")
    query = models.TextField(blank=True)
    intent = models.CharField(max_length=20)
    intent_confidence = models.FloatField(null=True, blank=True)
    # What the query analysis found (empty for greetings and meta questions, which skip it).
    keywords = models.JSONField(default=list, blank=True)
    references = models.JSONField(default=list, blank=True)  # e.g. ["1977:1160 3 kap. 2 a §"]
    dates = models.JSONField(null=True, blank=True)  # {"start": "2024-01-01", "end": ..., "label": ...}
    workspace_mentions = models.JSONField(default=list, blank=True)
    # The question's words no source in its scope uses (KeywordQuery.unknown_words), less those searched as the
    # statute word they are one slip from: what the dashboard lists as words the knowledge base lacks.
    unknown_words = models.JSONField(default=list, blank=True)
    # The glossary's terms (their words) the question used: which of the team's words the answers lean on.
    glossary_words = models.JSONField(default=list, db_default=Value([], JSONField()), blank=True)
    fallback = models.BooleanField(default=False)  # the message had no keywords of its own
    skipped = models.BooleanField(default=False)
    cache_hit = models.BooleanField(default=False)
    # Candidates the search returned (matched), then what assembly made of them (considered =
    # included + excluded_by_budget). Null where the figure is not known for the turn: a cache hit
    # reuses chunks without the search's counts, and private files are filtered inside the
    # search's SQL, so no per-turn count of them exists.
    chunks_matched = models.PositiveIntegerField(default=0)
    chunks_excluded_by_threshold = models.PositiveIntegerField(null=True, blank=True)
    chunks_excluded_by_privacy = models.PositiveIntegerField(null=True, blank=True)
    chunks_considered = models.PositiveIntegerField(default=0)
    chunks_included = models.PositiveIntegerField(default=0)
    chunks_excluded_by_budget = models.PositiveIntegerField(default=0)
    tokens_used = models.PositiveIntegerField(default=0)
    token_budget = models.PositiveIntegerField(default=0)
    latency_ms = models.JSONField(default=dict, blank=True)  # every stage's time
    # Columns of their own so that percentiles are computed by Postgres without parsing JSON.
    retrieval_ms = models.FloatField(null=True, blank=True)  # the search itself; null when skipped or cached
    total_ms = models.FloatField(null=True, blank=True)  # the whole pre-model step
    zero_match = models.BooleanField(default=False)
    degraded = models.BooleanField(default=False)
    # The answer's mode, copied in the same UPDATE that links the message, so that the dashboard's
    # aggregates read this table alone (no join with every message).
    answer_mode = models.CharField(max_length=12, blank=True, default="")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["workspace", "created_at"], name="retrievallog_ws_created"),
            # The dashboard's "found nothing" list reads only these (a few percent of the rows), from the
            # index alone.
            models.Index(fields=["workspace", "created_at"], condition=models.Q(zero_match=True, skipped=False),
                         include=["query", "message"], name="retrievallog_ws_nothing"),
        ]
        verbose_name = "hämtningslogg"
        verbose_name_plural = "hämtningsloggar"


class RetrievalLogDay(models.Model):
    """One closed day of one workspace's retrieval logs (or, with no workspace, of every workspace's),
    aggregated once by agent.monitoring.dashboard.rollup_through so the dashboard reads at most 90 rows per scope
    instead of every log. Counts and sums add up over days; the day's percentiles are exact; the
    latency histograms (sparse: bucket numbers and their counts, see agent.monitoring.dashboard.LatencyBucket)
    merge into a period's percentiles when the period is too large to sort."""

    workspace = models.ForeignKey("compliance.Workspace", null=True, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    questions = models.PositiveIntegerField(default=0)
    intent_greeting = models.PositiveIntegerField(default=0)
    intent_meta = models.PositiveIntegerField(default=0)
    intent_factual = models.PositiveIntegerField(default=0)
    intent_task = models.PositiveIntegerField(default=0)
    mode_model = models.PositiveIntegerField(default=0)
    mode_extractive = models.PositiveIntegerField(default=0)
    mode_direct = models.PositiveIntegerField(default=0)
    mode_error = models.PositiveIntegerField(default=0)
    retrieving = models.PositiveIntegerField(default=0)
    zero_match = models.PositiveIntegerField(default=0)
    cache_hit = models.PositiveIntegerField(default=0)
    degraded = models.PositiveIntegerField(default=0)
    considered_sum = models.BigIntegerField(default=0)
    included_sum = models.BigIntegerField(default=0)
    tokens_sum = models.BigIntegerField(default=0)
    retrieval_p50 = models.FloatField(null=True)
    retrieval_p95 = models.FloatField(null=True)
    total_p50 = models.FloatField(null=True)
    total_p95 = models.FloatField(null=True)
    retrieval_buckets = ArrayField(models.IntegerField(), default=list)
    retrieval_counts = ArrayField(models.IntegerField(), default=list)
    total_buckets = ArrayField(models.IntegerField(), default=list)
    total_counts = ArrayField(models.IntegerField(), default=list)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["workspace", "day"], nulls_distinct=False,
                                               name="retrievallogday_ws_day")]
        verbose_name = "hämtningslogg per dag"
        verbose_name_plural = "hämtningsloggar per dag"


class RollupState(models.Model):
    """How far the daily rollup has got: every day up to and including `through` is in RetrievalLogDay."""

    name = models.CharField(max_length=40, primary_key=True)
    through = models.DateField(null=True)


class DashboardVersion(models.Model):
    """When a workspace's dashboard material (its retrieval logs and ratings) last changed, as a stamp from
    one sequence.

    Kept by statement-level triggers on agent_retrievallog and agent_feedback (agent/dashboard_version.py),
    so every insert, update and delete counts, whatever its timestamp and whichever code path made it.
    No foreign key: a deleted workspace's logs go by cascade, and the stamp that change left stays.
    """

    workspace_id = models.BigIntegerField(primary_key=True)
    version = models.BigIntegerField(default=0)

    class Meta:
        verbose_name = "översiktens version"
        verbose_name_plural = "översiktens versioner"
