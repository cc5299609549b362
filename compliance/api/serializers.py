"""API serializers: input validation and output shapes only, no queries of their own.

Inputs are validated to the last byte (lengths, ranges, enums, NUL bytes: DRF's
CharField refuses them) so bad input is a 400, never a database error.
"""

from __future__ import annotations

import math

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agent.rendering import source_kind_label
from chunks.models import SourceType
from compliance import selectors
from compliance.models import (
    SFS_NUMBER_RE,
    ApiToken,
    Assessment,
    LegalDocument,
    Membership,
    ProcessingStatus,
    UserFile,
    Workspace,
)


def validate_sfs(value: str) -> str:
    if not SFS_NUMBER_RE.match(value):
        raise serializers.ValidationError("Ogiltigt SFS-nummer: ange år och löpnummer, t.ex. 1977:1160.")
    return value


class StrictCharField(serializers.CharField):
    """A string, and only a string: JSON numbers are a type error, not silently "5"."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictRegexField(serializers.RegexField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class FiniteFloatField(serializers.FloatField):
    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not math.isfinite(value):
            raise serializers.ValidationError("Ange ett ändligt tal.")
        return value


def inline_choice_field(choices, **kwargs) -> serializers.ChoiceField:
    """A ChoiceField documented as an inline enum, not a named component.

    For choice sets that appear under several field names (`source_types` items,
    `content_types` items): named components would duplicate.
    """
    values = [value for value, _ in choices]
    schema = {"type": "integer" if all(isinstance(v, int) for v in values) else "string", "enum": values}
    field_class = extend_schema_field(schema)(type("InlineChoiceField", (serializers.ChoiceField,), {}))
    return field_class(choices=choices, **kwargs)


# --- shared pieces -------------------------------------------------------------------


class UserRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = StrictCharField()
    full_name = serializers.SerializerMethodField()

    def get_full_name(self, user) -> str:
        return user.get_full_name()


class ProgressSerializer(serializers.Serializer):
    chunks_embedded = serializers.IntegerField()
    chunks_total = serializers.IntegerField()
    percent = serializers.IntegerField(source="progress_percent", min_value=0, max_value=100)


# --- workspaces and members -----------------------------------------------------------


class WorkspaceSerializer(serializers.ModelSerializer):
    role = serializers.ChoiceField(choices=Membership.Role.choices, read_only=True,
                                   help_text="Din roll i arbetsytan.")

    class Meta:
        model = Workspace
        fields = ["id", "name", "slug", "role", "allow_cross_workspace", "created_at"]
        read_only_fields = ("allow_cross_workspace",)


class WorkspaceUpdateSerializer(serializers.Serializer):
    allow_cross_workspace = serializers.BooleanField(
        help_text="Får arbetsytans icke-privata källor användas i svar i andra arbetsytor där frågan nämner den?")


class MemberSerializer(serializers.ModelSerializer):
    user = UserRefSerializer()

    class Meta:
        model = Membership
        fields = ["id", "user", "role", "created_at"]


class MemberCreateSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150)
    role = serializers.ChoiceField(choices=Membership.Role.choices, default=Membership.Role.VIEWER)

    def validate_username(self, value):
        user = selectors.user_find_active(value)
        if user is None:
            raise serializers.ValidationError("Användaren finns inte.")
        return user


class MemberUpdateSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Membership.Role.choices)


# --- tokens ---------------------------------------------------------------------------


class ApiTokenSerializer(serializers.ModelSerializer):
    is_active = serializers.BooleanField(read_only=True)

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at", "is_active"]


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    key = StrictCharField(help_text="Nyckeln visas bara nu, en gång. Endast dess hash sparas.")

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "key"]


class ApiTokenCreateSerializer(serializers.Serializer):
    name = StrictCharField(max_length=100)


# --- statutes -------------------------------------------------------------------------


class StatuteFilterSerializer(serializers.Serializer):
    sfs = StrictRegexField(r"^\d{4}(:\d{1,5})?$", required=False, max_length=12,
                                 help_text="Exakt SFS-nummer (1977:1160) eller ett år (1977).",
                                 error_messages={"invalid": "Ange ett SFS-nummer (1977:1160) eller ett år."})
    content_type = serializers.ChoiceField(choices=LegalDocument.ContentType.choices, required=False)
    q = StrictCharField(max_length=200, required=False, help_text="Sök i titel, kortnamn och förkortningar.")


class StatuteSerializer(serializers.ModelSerializer):
    progress = ProgressSerializer(source="*")

    class Meta:
        model = LegalDocument
        fields = ["sfs_number", "title", "short_names", "abbreviations", "content_type", "category", "issued",
                  "amended_through", "in_force", "source", "status", "progress", "updated_at"]


class StatuteSectionSerializer(serializers.Serializer):
    citation = StrictCharField()
    header = StrictCharField()
    text = StrictCharField()
    kind = StrictCharField()
    chapter = StrictCharField(allow_blank=True)
    section = StrictCharField(allow_blank=True)


class StatuteDetailSerializer(StatuteSerializer):
    sections = StatuteSectionSerializer(many=True)

    class Meta(StatuteSerializer.Meta):
        fields = [*StatuteSerializer.Meta.fields, "sections"]


# --- files ----------------------------------------------------------------------------


def _workspace_slug(serializer, obj) -> str:
    return serializer.context["workspace"].slug if "workspace" in serializer.context else obj.workspace.slug


class UserFileVersionSerializer(serializers.ModelSerializer):
    """One version of a document, as listed in its history."""

    uploaded_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    is_current = serializers.BooleanField(read_only=True, help_text="Den version som används som underlag.")
    document_id = serializers.IntegerField(read_only=True,
                                           help_text="Id som alla versioner av dokumentet delar (första versionens).")
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = UserFile
        fields = ["id", "document_id", "version", "version_state", "is_current", "original_name", "size", "status",
                  "error_message", "uploaded_by", "download_url", "created_at"]

    def get_download_url(self, obj) -> str:
        return reverse("api-file-version-download", args=[_workspace_slug(self, obj), obj.pk, obj.version])


class UserFileSerializer(serializers.ModelSerializer):
    progress = ProgressSerializer(source="*")
    uploaded_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    download_url = serializers.SerializerMethodField()
    is_current = serializers.BooleanField(read_only=True,
                                          help_text="Nuvarande version: den enda som används som underlag.")
    document_id = serializers.IntegerField(read_only=True,
                                           help_text="Id som alla versioner av dokumentet delar (första versionens).")

    class Meta:
        model = UserFile
        fields = ["id", "title", "original_name", "mime_type", "size", "is_private", "status", "error_message",
                  "progress", "page_count", "uploaded_by", "download_url", "document_id", "version",
                  "version_state", "is_current", "created_at", "updated_at"]

    def get_download_url(self, obj) -> str:
        return reverse("api-file-download", args=[_workspace_slug(self, obj), obj.pk])


class UserFileDetailSerializer(UserFileSerializer):
    versions = UserFileVersionSerializer(many=True, source="history", read_only=True,
                                         help_text="Dokumentets alla versioner, nyaste först.")

    class Meta(UserFileSerializer.Meta):
        fields = [*UserFileSerializer.Meta.fields, "versions"]


class UserFileVersionUploadSerializer(serializers.Serializer):
    # Emptiness and size are the service's call (UploadError with its own code).
    file = serializers.FileField(allow_empty_file=True, max_length=500)


class UserFileUploadSerializer(serializers.Serializer):
    # Emptiness and size are the service's call (UploadError with its own code).
    file = serializers.FileField(allow_empty_file=True, max_length=500)
    title = StrictCharField(max_length=300, required=False, allow_blank=True, default="")
    is_private = serializers.BooleanField(required=False, default=False)


class UserFileFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=ProcessingStatus.choices, required=False)
    is_private = serializers.BooleanField(required=False, allow_null=True, default=None)
    q = StrictCharField(max_length=200, required=False, help_text="Sök i titel och filnamn.")


# --- assessments ----------------------------------------------------------------------


class StatuteRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = LegalDocument
        fields = ["sfs_number", "title"]


class AssessmentSerializer(serializers.ModelSerializer):
    legal_document = StatuteRefSerializer(allow_null=True)
    owner = UserRefSerializer(allow_null=True)
    progress = ProgressSerializer(source="*")

    class Meta:
        model = Assessment
        fields = ["id", "title", "legal_document", "section_ref", "compliance_status", "notes", "owner", "due_date",
                  "status", "error_message", "progress", "created_at", "updated_at"]


class AssessmentInputSerializer(serializers.Serializer):
    title = StrictCharField(max_length=300)
    legal_document = StrictCharField(max_length=12, required=False, allow_null=True, allow_blank=True,
                                           help_text="Författningens SFS-nummer, t.ex. 1977:1160.")
    section_ref = StrictCharField(max_length=80, required=False, allow_blank=True)
    compliance_status = serializers.ChoiceField(choices=Assessment.Status.choices, required=False)
    notes = StrictCharField(max_length=20000, required=False, allow_blank=True)
    owner = StrictCharField(max_length=150, required=False, allow_null=True, allow_blank=True,
                                  help_text="Ansvarig: användarnamn eller id för en medlem i arbetsytan.")
    due_date = serializers.DateField(required=False, allow_null=True)

    def validate_legal_document(self, value):
        if not value:
            return None
        validate_sfs(value)
        doc = selectors.legal_document_find(value)
        if doc is None:
            raise serializers.ValidationError("Författningen finns inte.")
        return doc

    def validate_owner(self, value):
        if not value:
            return None
        user = selectors.workspace_member_user(self.context["workspace"], value)
        if user is None:
            raise serializers.ValidationError("Den ansvarige måste vara medlem i arbetsytan.")
        return user


class AssessmentFilterSerializer(serializers.Serializer):
    compliance_status = serializers.ChoiceField(choices=Assessment.Status.choices, required=False)
    sfs = StrictCharField(max_length=12, required=False, validators=[validate_sfs])
    owner = StrictCharField(max_length=150, required=False, help_text="Ansvarigs användarnamn.")
    q = StrictCharField(max_length=200, required=False, help_text="Sök i krav och anteckningar.")


# --- stats ----------------------------------------------------------------------------


class KnowledgeStatsSerializer(serializers.Serializer):
    files = serializers.IntegerField()
    assessments = serializers.IntegerField()
    statutes = serializers.IntegerField()
    chunks = serializers.IntegerField()
    chunks_embedded = serializers.IntegerField()
    embedded_share = serializers.FloatField()


class KnowledgeClearSerializer(serializers.Serializer):
    files = serializers.IntegerField(help_text="Borttagna filer (med alla sina versioner).")
    assessments = serializers.IntegerField(help_text="Borttagna bedömningar.")


# --- retrieval ------------------------------------------------------------------------


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

    def validate(self, attrs):
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


class SearchResultSerializer(serializers.Serializer):
    query = StrictCharField()
    mode = StrictCharField(help_text="Det sökläge som faktiskt användes.")
    degraded = serializers.BooleanField(help_text="Sant om sökningen föll tillbaka (t.ex. bara nyckelord).")
    notice = StrictCharField(allow_blank=True)
    timings_ms = serializers.DictField(child=serializers.FloatField())
    count = serializers.IntegerField()
    results = RetrievedChunkSerializer(many=True)


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

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_sources(self, obj):
        # Answers saved before sources carried their kind get it here, so every card can show its badge.
        sources = obj.sources if isinstance(obj.sources, list) else []
        return [{**s, "kind": source_kind_label(s)} if isinstance(s, dict) and "kind" not in s else s for s in sources]

    @extend_schema_field(serializers.ListField(child=serializers.JSONField()))
    def get_removed_citations(self, obj):
        return obj.removed_citations if isinstance(obj.removed_citations, list) else []

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_proposals(self, obj):
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



# --- memory: workspace profile and personal preferences -----------------------------------


class FactOriginSerializer(serializers.Serializer):
    origin = StrictCharField(help_text="`form`, `conversation` eller `api`.")
    conversation_id = serializers.IntegerField(allow_null=True, help_text="Konversationen uppgiften lärdes från.")
    at = serializers.CharField(allow_null=True, help_text="När uppgiften sparades (ISO 8601).")


class ProfileFactSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    text = StrictCharField(help_text="Högst 500 tecken, vanlig text.")
    origin = StrictCharField(read_only=True)
    conversation_id = serializers.IntegerField(read_only=True, allow_null=True)
    created_at = serializers.DateTimeField(read_only=True)


class ProfileFieldsSerializer(serializers.Serializer):
    """The structured profile. Every field is optional in a PATCH; null or "" clears it."""

    employee_count = serializers.IntegerField(required=False, allow_null=True,
                                              help_text="Antal anställda, 0–1 000 000.")
    industry = StrictCharField(required=False, allow_blank=True, allow_null=True, help_text="Bransch.")
    sni_code = StrictCharField(required=False, allow_blank=True, allow_null=True, help_text="T.ex. 78.200.")
    has_collective_agreement = serializers.BooleanField(required=False, allow_null=True)
    collective_agreement = StrictCharField(required=False, allow_blank=True, allow_null=True,
                                           help_text="Vilket kollektivavtal.")
    sector = StrictCharField(required=False, allow_blank=True, allow_null=True,
                             help_text="`private`, `public` eller tomt.")
    processes_sensitive_data = serializers.BooleanField(required=False, allow_null=True)
    location = StrictCharField(required=False, allow_blank=True, allow_null=True, help_text="Verksamhetsort.")


class ProfileSerializer(ProfileFieldsSerializer):
    origins = serializers.DictField(child=FactOriginSerializer(), read_only=True,
                                    help_text="Per fält: varifrån värdet kom.")
    facts = ProfileFactSerializer(many=True, read_only=True)
    revision = serializers.IntegerField(read_only=True)


class PreferenceFieldsSerializer(serializers.Serializer):
    role = StrictCharField(required=False, allow_blank=True, allow_null=True, help_text="T.ex. HR-chef.")
    expertise = StrictCharField(required=False, allow_blank=True, allow_null=True,
                                help_text="`novice`, `intermediate`, `expert` eller tomt.")
    answer_length = StrictCharField(required=False, allow_blank=True, allow_null=True,
                                    help_text="`short`, `normal`, `detailed` eller tomt.")
    tone = StrictCharField(required=False, allow_blank=True, allow_null=True, help_text="`plain`, `formal` eller tomt.")
    language = StrictCharField(required=False, allow_blank=True, allow_null=True, help_text="`sv`, `en` eller tomt.")


class PreferenceSerializer(PreferenceFieldsSerializer):
    origins = serializers.DictField(child=FactOriginSerializer(), read_only=True)
    revision = serializers.IntegerField(read_only=True)


class ProposalSerializer(serializers.Serializer):
    kind = StrictCharField(help_text="`profile`, `preference` eller `fact`.")
    field = StrictCharField()
    value = serializers.JSONField()
    label = StrictCharField()
    status = StrictCharField(help_text="`pending`, `saved` eller `declined`.")


class ProposalDecisionSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=["save", "decline"], help_text="`save` sparar, `decline` avböjer.")
