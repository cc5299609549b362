"""The profile, preferences and proposals APIs' serializers: input validation and output shapes only."""

from __future__ import annotations

from rest_framework import serializers

from compliance.api.serializers import StrictCharField


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
    kind = StrictCharField(help_text="`profile`, `preference`, `fact` eller `register_item` (lägg till en "
                           "författning som svaret hänvisade till i laglistan).")
    field = StrictCharField()
    value = serializers.JSONField()
    label = StrictCharField()
    status = StrictCharField(help_text="`pending`, `saved` eller `declined`.")


class ProposalDecisionSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=["save", "decline"], help_text="`save` sparar, `decline` avböjer.")
