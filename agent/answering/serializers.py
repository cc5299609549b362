"""The search, context and conversation APIs' serializers: input validation and output shapes only.

The field types that refuse bad input to the last byte are shared by every app's API (compliance.api.serializers).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agent.models import Message
from chunks.models import SourceType
from compliance.api.serializers import (
    FiniteFloatField,
    StrictCharField,
    StrictRegexField,
    inline_choice_field,
    validate_sfs,
)
from compliance.models import LegalDocument

from .rendering import source_kind_label


class RetrievalOptionsSerializer(serializers.Serializer):
    source_types = serializers.ListField(child=inline_choice_field(SourceType.choices),
                                         required=False, max_length=3)
    content_types = serializers.ListField(child=inline_choice_field(LegalDocument.ContentType.choices),
                                          required=False, max_length=3)
    sfs_numbers = serializers.ListField(child=StrictCharField(max_length=12, validators=[validate_sfs]),
                                        required=False, max_length=50)
    date_from = serializers.DateField(required=False, allow_null=True)
    date_to = serializers.DateField(required=False, allow_null=True)
    top_k = serializers.IntegerField(min_value=1, max_value=100, default=20)
    min_score = FiniteFloatField(required=False, allow_null=True, min_value=-1e6, max_value=1e6)
    mode = serializers.ChoiceField(choices=[("hybrid", "hybrid"), ("vector", "vector"), ("keyword", "keyword")],
                                   default="hybrid")

    OPTION_FIELDS = ("source_types", "content_types", "sfs_numbers", "date_from", "date_to", "top_k", "min_score",
                     "mode")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("date_from") and attrs.get("date_to") and attrs["date_from"] > attrs["date_to"]:
            raise serializers.ValidationError({"date_to": "Slutdatum får inte vara före startdatum."})
        return attrs

    def options(self) -> dict:
        """The validated retrieval options (only the ones given, plus top_k and mode)."""
        return {k: v for k, v in self.validated_data.items() if k in self.OPTION_FIELDS}


class SearchInputSerializer(RetrievalOptionsSerializer):
    query = StrictCharField(max_length=settings.RETRIEVAL_QUERY_MAX_CHARS)


class RetrievedChunkSerializer(serializers.Serializer):
    chunk_id = serializers.IntegerField()
    source_type = StrictCharField(help_text="LEGAL_DOCUMENT, USER_FILE eller ASSESSMENT.")
    source_id = serializers.IntegerField()
    document_key = StrictCharField()
    document_number = StrictCharField(allow_blank=True)
    document_title = StrictCharField(allow_blank=True)
    header = StrictCharField(allow_blank=True)
    path = StrictCharField(allow_blank=True)
    ordinal = serializers.IntegerField()
    citation = StrictCharField(allow_blank=True)
    text = StrictCharField(allow_blank=True)
    token_count = serializers.IntegerField()
    workspace_id = serializers.IntegerField(allow_null=True)
    page = serializers.IntegerField(allow_null=True)
    content_type = StrictCharField(allow_blank=True)
    kind = StrictCharField(help_text="Vad källan är: Lag, Förordning, Föreskrift (AFS), EU-förordning, "
                                     "Allmänt råd, Skäl, Er fil eller Er bedömning.")
    score = serializers.FloatField()
    vector_similarity = serializers.FloatField(allow_null=True)
    keyword_rank = serializers.FloatField(allow_null=True)
    reference_match = serializers.BooleanField()
    workspace_name = StrictCharField(allow_blank=True, help_text="Arbetsytan en källa från en annan arbetsyta kommer från.")
    workspace_slug = StrictCharField(allow_blank=True)
    source_date = StrictCharField(allow_blank=True, help_text="En egen källas datum (uppladdad/skapad), ISO 8601.")
    date_label = StrictCharField(allow_blank=True, help_text="Vad källkortet säger om datum, t.ex. "
                                 "\"ändring införd t.o.m. SFS 2023:349, i kraft\" eller \"uppladdad 2024-03-12\".")
    extra = serializers.DictField()


UNKNOWN_WORDS_HELP = "Frågans ord som ingen källa i arbetsytans urval använder: lagen kan kalla samma sak något annat."
CORRECTIONS_HELP = ("De av dessa ord som ligger en bokstav från ett ord i lagtexten och söktes som det ordet: "
                    "frågans ord -> ordet som lagtexten skriver det.")
GLOSSARY_HELP = ("Begrepp i arbetsytans ordlista som frågan använder; lagens ord söktes också: "
                 "ert ord -> lagens ord.")


class SearchResultSerializer(serializers.Serializer):
    query = StrictCharField()
    mode = StrictCharField(help_text="Det sökläge som faktiskt användes.")
    degraded = serializers.BooleanField(help_text="Sant om sökningen föll tillbaka (t.ex. bara nyckelord).")
    notice = StrictCharField(allow_blank=True)
    timings_ms = serializers.DictField(child=serializers.FloatField())
    count = serializers.IntegerField()
    results = RetrievedChunkSerializer(many=True)
    unknown_words = serializers.ListField(child=StrictCharField(), help_text=UNKNOWN_WORDS_HELP)
    corrections = serializers.DictField(child=StrictCharField(), help_text=CORRECTIONS_HELP)
    glossary = serializers.DictField(child=StrictCharField(), help_text=GLOSSARY_HELP)


class ChatMessageInputSerializer(serializers.Serializer):
    # A pattern, not an enum: a second "role" enum would collide with the membership roles' component.
    role = StrictRegexField(r"^(user|assistant)$", max_length=9, help_text="`user` eller `assistant`.",
                                  error_messages={"invalid": "Rollen måste vara user eller assistant."})
    content = StrictCharField(max_length=settings.CHAT_MESSAGE_MAX_CHARS, allow_blank=True)


class ContextInputSerializer(RetrievalOptionsSerializer):
    query = StrictCharField(max_length=settings.RETRIEVAL_QUERY_MAX_CHARS)
    messages = ChatMessageInputSerializer(many=True, required=False, max_length=100)


class PreparedContextSerializer(serializers.Serializer):
    messages = serializers.ListField(child=serializers.DictField())
    context_text = StrictCharField(allow_blank=True)
    citations = serializers.ListField(child=serializers.DictField())
    metrics = serializers.DictField()
    intent = StrictCharField(allow_blank=True)
    skipped = serializers.BooleanField()
    degraded = serializers.BooleanField()
    unknown_words = serializers.ListField(child=StrictCharField(), help_text=UNKNOWN_WORDS_HELP)
    corrections = serializers.DictField(child=StrictCharField(), help_text=CORRECTIONS_HELP)
    glossary = serializers.DictField(child=StrictCharField(), help_text=GLOSSARY_HELP)


# --- conversations --------------------------------------------------------------------


class ConversationSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    title = StrictCharField(max_length=200, required=False, allow_blank=True, default="")
    created_at = serializers.DateTimeField(read_only=True)
    updated_at = serializers.DateTimeField(read_only=True)


class MessageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    role = StrictCharField()
    content = StrictCharField(allow_blank=True)
    answer_mode = StrictCharField(allow_blank=True)
    sources = serializers.SerializerMethodField()
    removed_citations = serializers.SerializerMethodField()
    degraded = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    proposals = serializers.SerializerMethodField(
        help_text="Uppgifter i frågan som assistenten erbjuder sig att komma ihåg (sparas bara efter samtycke).")
    unknown_words = serializers.ListField(
        child=StrictCharField(), help_text="Frågans ord som ingen källa använde (utom de som söktes som ett ord i "
                                           "lagtexten): ord som kan läras assistenten i arbetsytans ordlista.")
    glossary = serializers.DictField(child=StrictCharField(), help_text=GLOSSARY_HELP)

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_sources(self, obj: Message) -> list[Any]:
        # Answers saved before sources carried their kind get it here, so every card can show its badge.
        sources = obj.sources if isinstance(obj.sources, list) else []
        return [{**s, "kind": source_kind_label(s)} if isinstance(s, dict) and "kind" not in s else s for s in sources]

    @extend_schema_field(serializers.ListField(child=serializers.JSONField()))
    def get_removed_citations(self, obj: Message) -> list[Any]:
        return obj.removed_citations if isinstance(obj.removed_citations, list) else []

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_proposals(self, obj: Message) -> list[Any]:
        return obj.proposals if isinstance(obj.proposals, list) else []


class ConversationDetailSerializer(ConversationSerializer):
    # The view sets `visible_messages` (agent.selectors.message_list): sources as they may be shown today.
    messages = MessageSerializer(many=True, read_only=True, source="visible_messages")


class MessageCreateSerializer(serializers.Serializer):
    content = StrictCharField(max_length=settings.CHAT_MESSAGE_MAX_CHARS)


class StreamQuerySerializer(serializers.Serializer):
    stream = serializers.BooleanField(required=False, default=False,
                                      help_text="`true` ger svaret som text/event-stream.")


class ServerSentEventSerializer(serializers.Serializer):
    """One event of a streamed answer (`text/event-stream`); `data` is JSON."""

    event = serializers.ChoiceField(choices=[(e, e) for e in ("sources", "token", "notice", "done", "error")],
                                    help_text="`sources` (källkartan) först, `token` (svarstext) under tiden, "
                                              "`notice` vid begränsad sökning, `done` (det sparade meddelandet) "
                                              "sist, `error` om något gick fel.")
    data = serializers.CharField(help_text="JSON-kodat innehåll.")


class FeedbackInputSerializer(serializers.Serializer):
    rating = inline_choice_field([(1, "tummen upp"), (-1, "tummen ner")])
    comment = StrictCharField(max_length=4000, required=False, allow_blank=True, default="")


class FeedbackSerializer(serializers.Serializer):
    message_id = serializers.IntegerField()
    rating = serializers.IntegerField()
    comment = StrictCharField(allow_blank=True)
    updated_at = serializers.DateTimeField()
