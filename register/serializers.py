"""The register API's serializers: input validation and output shapes, built on compliance.api's field types.

Inputs name people by username or id (a member of the workspace), legal documents by their number and the
register's own rows by id; a name or id that does not resolve inside the workspace is a 400 on its field,
never a row of another workspace. Choice fields are inline enums: several of the API's fields are called
`status` or `state` with different choices.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from compliance import selectors as compliance_selectors
from compliance.api.serializers import StrictCharField, UserRefSerializer, validate_sfs
from compliance.models import LegalDocument
from compliance.numbers import DOCUMENT_NUMBER_MAX_LENGTH

from . import selectors
from .transfer import imports
from .models import (
    TEXT_MAX_LENGTH,
    Action,
    ComplianceStatus,
    Evidence,
    LegalRegister,
    RegisterGroup,
    RegisterItem,
    Requirement,
    Review,
    ReviewEntry,
)

RATINGS = [(value, label) for value, label in ComplianceStatus.choices if value != ComplianceStatus.NOT_ASSESSED]


def _member(serializer: serializers.Serializer, value: str | None) -> User | None:
    """A member of the request's workspace by username or id; None for an empty value."""
    if value in (None, ""):
        return None
    user = compliance_selectors.workspace_member_user(serializer.context["workspace"], value)
    if user is None:
        raise serializers.ValidationError("Personen måste vara medlem i arbetsytan.")
    return user


def _document(value: str | None) -> LegalDocument | None:
    if not value:
        return None
    validate_sfs(value)
    document = compliance_selectors.legal_document_find(value)
    if document is None:
        raise serializers.ValidationError("Författningen finns inte.")
    return document


def member_field(**kwargs: Any) -> StrictCharField:
    return StrictCharField(max_length=150, required=False, allow_null=True, allow_blank=True,
                           help_text="Användarnamn eller id för en medlem i arbetsytan.", **kwargs)


def text_field(max_length: int = TEXT_MAX_LENGTH, **kwargs: Any) -> StrictCharField:
    return StrictCharField(max_length=max_length, required=False, allow_blank=True, **kwargs)


# --- output --------------------------------------------------------------------------------------------


class DocumentRefSerializer(serializers.ModelSerializer):
    kind = serializers.CharField(source="kind_label", read_only=True,
                                 help_text='"Lag", "Förordning", "Föreskrift (AFS)", "EU-förordning".')

    class Meta:
        model = LegalDocument
        fields = ["sfs_number", "title", "content_type", "kind"]


class RegisterSerializer(serializers.ModelSerializer):
    item_count = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = LegalRegister
        fields = ["id", "name", "description", "item_count", "created_at", "updated_at"]


class GroupSerializer(serializers.ModelSerializer):
    class Meta:
        model = RegisterGroup
        fields = ["id", "name", "position"]


class GroupRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = RegisterGroup
        fields = ["id", "name"]


class EvidenceSerializer(serializers.ModelSerializer):
    kind = serializers.ChoiceField(choices=Evidence.Kind.choices)
    label = serializers.SerializerMethodField(help_text="Visningsnamn. En privat fil heter \"Privat fil\" för "
                                                        "den som inte får se privata filer (revisorn).")
    requirement = serializers.IntegerField(source="requirement_id", read_only=True)
    user_file = serializers.IntegerField(source="user_file_id", read_only=True, allow_null=True)
    assessment = serializers.IntegerField(source="assessment_id", read_only=True, allow_null=True)
    added_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = Evidence
        fields = ["id", "requirement", "kind", "label", "user_file", "assessment", "reference", "note", "added_by",
                  "created_at"]

    def get_label(self, evidence: Evidence) -> str:
        return selectors.evidence_label(evidence, may_see_private=self.context.get("may_see_private", False))


class RequirementSerializer(serializers.ModelSerializer):
    item = serializers.IntegerField(source="item_id", read_only=True)
    status = serializers.ChoiceField(choices=ComplianceStatus.choices)
    status_label = serializers.CharField(source="get_status_display", read_only=True)
    owner = UserRefSerializer(allow_null=True, read_only=True)
    evidence_count = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = Requirement
        fields = ["id", "item", "title", "section_ref", "description", "status", "status_label", "owner",
                  "needs_evidence", "due_date", "position", "evidence_count", "created_at", "updated_at"]


class RequirementDetailSerializer(RequirementSerializer):
    evidence = serializers.SerializerMethodField()

    class Meta(RequirementSerializer.Meta):
        fields = [*RequirementSerializer.Meta.fields, "evidence"]

    @extend_schema_field(EvidenceSerializer(many=True))
    def get_evidence(self, requirement: Requirement) -> list:
        return EvidenceSerializer(selectors.evidence_list(requirement), many=True, context=self.context).data


class ItemSerializer(serializers.ModelSerializer):
    register = serializers.IntegerField(source="register_id", read_only=True)
    group = GroupRefSerializer(allow_null=True, read_only=True)
    legal_document = DocumentRefSerializer(allow_null=True, read_only=True)
    display_title = serializers.CharField(read_only=True)
    status = serializers.ChoiceField(choices=ComplianceStatus.choices)
    status_label = serializers.CharField(source="get_status_display", read_only=True)
    responsible = UserRefSerializer(allow_null=True, read_only=True)
    last_reviewed_by = UserRefSerializer(allow_null=True, read_only=True)
    origin = serializers.CharField(read_only=True)
    requirement_count = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = RegisterItem
        fields = ["id", "register", "group", "legal_document", "title", "display_title", "reason", "responsible",
                  "status", "status_label", "how_we_comply", "last_reviewed_at", "last_reviewed_by",
                  "next_review_date", "needs_reassessment", "origin", "requirement_count", "created_at",
                  "updated_at"]


class ItemDetailSerializer(ItemSerializer):
    requirements = serializers.SerializerMethodField()

    class Meta(ItemSerializer.Meta):
        fields = [*ItemSerializer.Meta.fields, "requirements"]

    @extend_schema_field(RequirementDetailSerializer(many=True))
    def get_requirements(self, item: RegisterItem) -> list:
        requirements = selectors.requirement_list(item.workspace, item=item)
        return RequirementDetailSerializer(requirements, many=True, context=self.context).data


class FrozenEvidenceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = StrictCharField()
    label = StrictCharField()
    requirement_id = serializers.IntegerField(allow_null=True)


class ReviewEntrySerializer(serializers.ModelSerializer):
    item = serializers.IntegerField(source="item_id", read_only=True, allow_null=True)
    title = serializers.SerializerMethodField()
    rating = serializers.ChoiceField(choices=ComplianceStatus.choices)
    rating_label = serializers.CharField(source="get_rating_display", read_only=True)
    assessed_by = UserRefSerializer(allow_null=True, read_only=True)
    is_signed = serializers.BooleanField(read_only=True)
    evidence = serializers.SerializerMethodField(
        help_text="Bevisen bedömningen vilar på; i en avslutad kontroll så som de var när den avslutades.")
    frozen_requirements = serializers.JSONField(read_only=True,
                                                help_text="Kravpunkterna när kontrollen avslutades.")

    class Meta:
        model = ReviewEntry
        fields = ["id", "item", "title", "rating", "rating_label", "justification", "assessed_by", "assessed_at",
                  "is_signed", "evidence", "frozen_document_number", "frozen_document_kind", "frozen_version",
                  "frozen_requirements", "frozen_assessor"]

    def get_title(self, entry: ReviewEntry) -> str:
        return entry.frozen_title or (entry.item.display_title if entry.item_id else "")

    @extend_schema_field(FrozenEvidenceSerializer(many=True))
    def get_evidence(self, entry: ReviewEntry) -> list:
        may_see = self.context.get("may_see_private", False)
        if entry.review.is_closed:
            rows = [{"id": e.get("id"), "kind": e.get("kind", ""), "requirement_id": e.get("requirement_id"),
                     "label": selectors.frozen_evidence_label(e, may_see_private=may_see)}
                    for e in entry.frozen_evidence]
        else:
            rows = [{"id": e.pk, "kind": e.kind, "requirement_id": e.requirement_id,
                     "label": selectors.evidence_label(e, may_see_private=may_see)} for e in entry.evidence.all()]
        return FrozenEvidenceSerializer(rows, many=True).data


class ReviewSerializer(serializers.ModelSerializer):
    register = serializers.IntegerField(source="register_id", read_only=True)
    groups = serializers.SerializerMethodField()
    lead = UserRefSerializer(allow_null=True, read_only=True)
    state = serializers.ChoiceField(choices=Review.State.choices)
    closed_by = UserRefSerializer(allow_null=True, read_only=True)
    entry_count = serializers.IntegerField(read_only=True, default=0)
    signed_count = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = Review
        fields = ["id", "register", "title", "groups", "lead", "due_date", "state", "started_at", "closed_at",
                  "closed_by", "as_of", "entry_count", "signed_count"]

    @extend_schema_field(GroupRefSerializer(many=True))
    def get_groups(self, review: Review) -> list:
        return GroupRefSerializer(review.groups.all(), many=True).data


class ReviewDetailSerializer(ReviewSerializer):
    entries = serializers.SerializerMethodField()

    class Meta(ReviewSerializer.Meta):
        fields = [*ReviewSerializer.Meta.fields, "entries"]

    @extend_schema_field(ReviewEntrySerializer(many=True))
    def get_entries(self, review: Review) -> list:
        return ReviewEntrySerializer(selectors.review_entry_list(review), many=True, context=self.context).data


class ActionSerializer(serializers.ModelSerializer):
    item = serializers.IntegerField(source="item_id", read_only=True, allow_null=True)
    requirement = serializers.IntegerField(source="requirement_id", read_only=True, allow_null=True)
    review_entry = serializers.IntegerField(source="review_entry_id", read_only=True, allow_null=True)
    owner = UserRefSerializer(allow_null=True, read_only=True)
    state = serializers.ChoiceField(choices=Action.State.choices)
    closed_by = UserRefSerializer(allow_null=True, read_only=True)

    class Meta:
        model = Action
        fields = ["id", "item", "requirement", "review_entry", "title", "description", "owner", "due_date", "state",
                  "created_at", "closed_at", "closed_by"]


class RatingResultSerializer(serializers.Serializer):
    entry = ReviewEntrySerializer()
    action = ActionSerializer(allow_null=True, help_text="Åtgärden som bedömningen \"uppfylls inte\" öppnade.")


class AuditRowSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    timestamp = serializers.DateTimeField()
    actor = StrictCharField(allow_blank=True, help_text="Användarnamn; tomt när systemet gjorde ändringen.")
    actor_name = StrictCharField()
    action = serializers.ChoiceField(choices=[("create", "skapad"), ("update", "ändrad"), ("delete", "borttagen"),
                                  ("access", "läst")])
    action_label = StrictCharField()
    model = StrictCharField(allow_blank=True)
    model_label = StrictCharField(allow_blank=True)
    object_id = serializers.IntegerField(allow_null=True)
    object_repr = StrictCharField(allow_blank=True)
    changes = serializers.JSONField(help_text="Ändrade fält: {fält: [före, efter]}.")


# --- input ---------------------------------------------------------------------------------------------


class RegisterInputSerializer(serializers.Serializer):
    name = StrictCharField(max_length=200)
    description = text_field()


class GroupInputSerializer(serializers.Serializer):
    name = StrictCharField(max_length=120)


class ItemFilterSerializer(serializers.Serializer):
    register = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1,
                                        help_text="Bara denna laglistas poster.")
    group = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    status = serializers.ChoiceField(choices=ComplianceStatus.choices, required=False)
    responsible = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1,
                                           help_text="Den ansvariges användar-id.")
    kind = serializers.ChoiceField(choices=LegalDocument.ContentType.choices, required=False)
    needs_reassessment = serializers.BooleanField(required=False, allow_null=True, default=None)
    q = StrictCharField(max_length=200, required=False, help_text="Sök i rubrik, titel och beteckning.")


class ItemCreateSerializer(serializers.Serializer):
    register = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1,
                                        help_text="Laglistans id; utan den arbetsytans första laglista.")
    legal_document = StrictCharField(max_length=DOCUMENT_NUMBER_MAX_LENGTH, required=False, allow_null=True,
                                     allow_blank=True, help_text="Beteckning, t.ex. 1977:1160 eller AFS 2023:1.")
    title = text_field(300, help_text="Rubrik för ett eget krav utan författning.")
    group = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**63 - 1)
    reason = text_field()
    responsible = member_field()

    def validate_legal_document(self, value: str | None) -> LegalDocument | None:
        return _document(value)

    def validate_responsible(self, value: str | None) -> User | None:
        return _member(self, value)


class ItemUpdateSerializer(serializers.Serializer):
    title = text_field(300)
    group = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**63 - 1)
    reason = text_field()
    responsible = member_field()
    status = serializers.ChoiceField(choices=ComplianceStatus.choices, required=False)
    how_we_comply = text_field()
    next_review_date = serializers.DateField(required=False, allow_null=True)

    def validate_responsible(self, value: str | None) -> User | None:
        return _member(self, value)


class RequirementInputSerializer(serializers.Serializer):
    title = StrictCharField(max_length=300)
    section_ref = text_field(80)
    description = text_field()
    status = serializers.ChoiceField(choices=ComplianceStatus.choices, required=False)
    owner = member_field()
    needs_evidence = serializers.BooleanField(required=False)
    due_date = serializers.DateField(required=False, allow_null=True)

    def validate_owner(self, value: str | None) -> User | None:
        return _member(self, value)


class EvidenceInputSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Evidence.Kind.choices)
    user_file = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**63 - 1,
                                         help_text="Id för en fil i arbetsytans kunskapsbas (kind=file).")
    assessment = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**63 - 1,
                                          help_text="Id för en bedömning i arbetsytan (kind=assessment).")
    reference = text_field(500, help_text="Dokumentnamn, diarienummer eller webbadress (kind=external).")
    note = text_field()


class ReviewStartSerializer(serializers.Serializer):
    register = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    title = StrictCharField(max_length=200)
    groups = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**63 - 1), required=False,
                                   max_length=200, help_text="Gruppernas id; tomt = hela laglistan.")
    lead = member_field()
    due_date = serializers.DateField(required=False, allow_null=True)

    def validate_lead(self, value: str | None) -> User | None:
        return _member(self, value)


class RateSerializer(serializers.Serializer):
    rating = serializers.ChoiceField(choices=RATINGS)
    justification = text_field()
    evidence = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
                                     required=False, max_length=500, help_text="Id för postens egna bevis.")
    action_owner = member_field()
    action_due_date = serializers.DateField(required=False, allow_null=True)
    action_title = text_field(300)

    def validate_action_owner(self, value: str | None) -> User | None:
        return _member(self, value)


class HistoryFilterSerializer(serializers.Serializer):
    review = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1,
                                      help_text="Bara denna kontrolls historik.")


class ActionFilterSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=Action.State.choices, required=False)
    owner = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1,
                                     help_text="Den ansvariges användar-id.")
    item = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)


class ActionCreateSerializer(serializers.Serializer):
    title = StrictCharField(max_length=300)
    item = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**63 - 1)
    requirement = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**63 - 1)
    description = text_field()
    owner = member_field()
    due_date = serializers.DateField(required=False, allow_null=True)

    def validate_owner(self, value: str | None) -> User | None:
        return _member(self, value)


class ActionUpdateSerializer(serializers.Serializer):
    title = StrictCharField(max_length=300, required=False)
    description = text_field()
    owner = member_field()
    due_date = serializers.DateField(required=False, allow_null=True)
    state = serializers.ChoiceField(choices=Action.State.choices, required=False)

    def validate_owner(self, value: str | None) -> User | None:
        return _member(self, value)


# --- import --------------------------------------------------------------------------------------------


class ImportUploadSerializer(serializers.Serializer):
    # Size, emptiness and kind are the import's call (its own codes and Swedish messages).
    file = serializers.FileField(allow_empty_file=True, max_length=500,
                                 help_text="Excel (.xlsx) eller CSV (; , eller tab; UTF-8 eller Windows-1252).")


class DocumentChoiceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    sfs_number = StrictCharField()
    title = StrictCharField()


class ImportRowSerializer(serializers.Serializer):
    line = serializers.IntegerField(help_text="Radnummer i filen.")
    number_text = StrictCharField(allow_blank=True, help_text="Beteckningen som den stod i filen.")
    title = StrictCharField(allow_blank=True)
    group = StrictCharField(allow_blank=True)
    confidence = serializers.ChoiceField(choices=list(imports.Confidence.LABELS.items()))
    confidence_label = StrictCharField()
    document = DocumentChoiceSerializer(allow_null=True, help_text="Föreslagen författning; tom = ingen träff.")
    candidates = DocumentChoiceSerializer(many=True, help_text="Liknande titlar att välja bland.")


class ImportPreviewSerializer(serializers.Serializer):
    token = StrictCharField(help_text="Skicka tillbaka till confirm (giltig en timme). Inget är importerat än.")
    file_name = StrictCharField(allow_blank=True)
    matched = serializers.IntegerField()
    unmatched = serializers.IntegerField()
    rows = ImportRowSerializer(many=True)


class ImportChoiceSerializer(serializers.Serializer):
    line = serializers.IntegerField(min_value=1, max_value=10**6)
    document = StrictCharField(max_length=DOCUMENT_NUMBER_MAX_LENGTH,
                               help_text="Beteckning att lägga till för raden, eller \"skip\" för att hoppa över.")


class ImportConfirmSerializer(serializers.Serializer):
    token = StrictCharField(max_length=1_000_000)
    choices = ImportChoiceSerializer(many=True, required=False, max_length=imports.MAX_ROWS,
                                     help_text="Val per rad. En rad utan val får den föreslagna författningen; "
                                               "en rad utan träff hoppas över.")


class ImportResultSerializer(serializers.Serializer):
    created = serializers.IntegerField(help_text="Nya poster.")
    existing = serializers.IntegerField(help_text="Fanns redan på laglistan (oförändrade).")
    skipped = serializers.IntegerField(help_text="Överhoppade rader.")
