"""The API's shared field types, and the serializers of compliance's own endpoints (workspaces, members,
tokens, statutes, files, assessments): input validation and output shapes only, no queries of their own.
Each app's API keeps its serializers beside it (chunks/api.py, agent/*/serializers.py) and builds on
the field types here.

Inputs are validated to the last byte (lengths, ranges, enums, NUL bytes: DRF's
CharField refuses them) so bad input is a 400, never a database error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from compliance import selectors
from compliance.models import (
    ApiToken,
    Assessment,
    LegalDocument,
    Membership,
    ProcessingStatus,
    UserFile,
    Workspace,
)
from compliance.numbers import DOCUMENT_NUMBER_MAX_LENGTH, is_document_number


def validate_sfs(value: str) -> str:
    if not is_document_number(value):
        raise serializers.ValidationError(
            "Ogiltig beteckning: ange t.ex. 1977:1160, AFS 2023:1 eller (EU) 2016/679.")
    return value


class StrictCharField(serializers.CharField):
    """A string, and only a string: JSON numbers are a type error, not silently "5"."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictRegexField(serializers.RegexField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class FiniteFloatField(serializers.FloatField):
    def to_internal_value(self, data: Any) -> float:
        value = super().to_internal_value(data)
        if not math.isfinite(value):
            raise serializers.ValidationError("Ange ett ändligt tal.")
        return value


def inline_choice_field(choices: Sequence[tuple[str | int, str]], **kwargs: Any) -> serializers.ChoiceField:
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

    def get_full_name(self, user: User) -> str:
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

    def validate_username(self, value: str) -> User:
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
    agency = StrictCharField(max_length=200, required=False,
                             help_text="Myndighet eller serie: Arbetsmiljöverket eller AFS.")
    q = StrictCharField(max_length=200, required=False, help_text="Sök i titel, kortnamn och förkortningar.")


class StatuteSerializer(serializers.ModelSerializer):
    progress = ProgressSerializer(source="*")

    class Meta:
        model = LegalDocument
        fields = ["sfs_number", "title", "short_names", "abbreviations", "content_type", "kind", "category",
                  "issued", "amended_through", "in_force", "source", "agency", "series", "in_force_date",
                  "legal_basis", "legal_basis_sfs", "addressee", "status", "progress", "updated_at"]

    kind = serializers.CharField(source="kind_label", read_only=True,
                                 help_text='"Lag", "Förordning", "Föreskrift (AFS)", "EU-förordning".')
    addressee = serializers.CharField(read_only=True, help_text=(
        'Myndigheten vars egen verksamhet författningen reglerar ("Tullverket"), annars tom.'))


# --- files ----------------------------------------------------------------------------


def _workspace_slug(serializer: serializers.Serializer, obj: UserFile) -> str:
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

    def get_download_url(self, obj: UserFile) -> str:
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

    def get_download_url(self, obj: UserFile) -> str:
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
    legal_document = StrictCharField(max_length=DOCUMENT_NUMBER_MAX_LENGTH, required=False, allow_null=True,
                                     allow_blank=True,
                                     help_text="Författningens beteckning, t.ex. 1977:1160 eller AFS 2023:1.")
    section_ref = StrictCharField(max_length=80, required=False, allow_blank=True)
    compliance_status = serializers.ChoiceField(choices=Assessment.Status.choices, required=False)
    notes = StrictCharField(max_length=20000, required=False, allow_blank=True)
    owner = StrictCharField(max_length=150, required=False, allow_null=True, allow_blank=True,
                                  help_text="Ansvarig: användarnamn eller id för en medlem i arbetsytan.")
    due_date = serializers.DateField(required=False, allow_null=True)

    def validate_legal_document(self, value: str | None) -> LegalDocument | None:
        if not value:
            return None
        validate_sfs(value)
        doc = selectors.legal_document_find(value)
        if doc is None:
            raise serializers.ValidationError("Författningen finns inte.")
        return doc

    def validate_owner(self, value: str | None) -> User | None:
        if not value:
            return None
        user = selectors.workspace_member_user(self.context["workspace"], value)
        if user is None:
            raise serializers.ValidationError("Den ansvarige måste vara medlem i arbetsytan.")
        return user


class AssessmentFilterSerializer(serializers.Serializer):
    compliance_status = serializers.ChoiceField(choices=Assessment.Status.choices, required=False)
    sfs = StrictCharField(max_length=DOCUMENT_NUMBER_MAX_LENGTH, required=False, validators=[validate_sfs])
    owner = StrictCharField(max_length=150, required=False, help_text="Ansvarigs användarnamn.")
    q = StrictCharField(max_length=200, required=False, help_text="Sök i krav och anteckningar.")


# --- stats ----------------------------------------------------------------------------


class KnowledgeClearSerializer(serializers.Serializer):
    files = serializers.IntegerField(help_text="Borttagna filer (med alla sina versioner).")
    assessments = serializers.IntegerField(help_text="Borttagna bedömningar.")
