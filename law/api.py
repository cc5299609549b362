"""The statute book's changes in the REST API: GET /api/v1/statutes/<number>/changes/ (routes in law/api_urls.py).

What changed in one document as its page's "Ändringar" and the assistant's answer have it
(law.selectors.statute_amendments_get): the acts that made the current version, each with its day and the units it
changed, and the repeal. Shared law, the same for every caller; authentication, errors and throttling are
compliance.api's. An unknown number is a 404 in the one error shape.
"""

from __future__ import annotations

from datetime import date

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from compliance import selectors
from compliance.api.views import BaseApi
from compliance.clock import swedish_today
from compliance.numbers import is_document_number

from .models import StatuteChange
from .selectors import AmendingAct, StatuteAmendments, statute_amendments_get, statute_records_through


class ChangedUnitSerializer(serializers.Serializer):
    citation = serializers.CharField(help_text="Enheten i den gällande lydelsen, t.ex. ”3 kap. 2 a §”.")
    old_citation = serializers.CharField(help_text="Den tidigare beteckningen när enheten fått en ny; annars tom.")
    kind = serializers.ChoiceField(choices=StatuteChange.Kind.choices,
                                   help_text="ADDED ny, AMENDED ändrad, REPEALED upphävd, RENUMBERED ny beteckning.")


class AmendingActSerializer(serializers.Serializer):
    amending_sfs = serializers.CharField(help_text="Ändringsförfattningen, t.ex. ”2025:1077”; tom när texten inte "
                                                   "anger någon.")
    in_force = serializers.DateField(allow_null=True, help_text="Dagen ändringen träder i kraft, när den är känd.")
    coming = serializers.SerializerMethodField(help_text="Ändringen har inte trätt i kraft än (Stockholmstid).")
    units = ChangedUnitSerializer(source="changes", many=True)

    def get_coming(self, act: AmendingAct) -> bool:
        return act.in_force is not None and act.in_force > self.context["today"]


class RepealSerializer(serializers.Serializer):
    repealed_by = serializers.CharField(help_text="Författningen som upphäver den, t.ex. ”SFS 2025:1506”.")
    repealed_on = serializers.DateField(allow_null=True, help_text="Dagen den upphör att gälla.")


class StatuteChangesSerializer(serializers.Serializer):
    document_number = serializers.CharField(source="document.sfs_number")
    title = serializers.CharField(source="document.title")
    changes_read = serializers.BooleanField(
        source="read", help_text="Ändringarna läses in från rättsdatabaserna (SFS). Falskt för myndigheters "
                                 "föreskrifter och EU-förordningar: en tom lista säger då inget om ändringar.")
    amended_through = serializers.CharField(help_text="Den senaste ändring den inlästa lydelsen har, t.ex. "
                                                      "”SFS 2025:1077”; tom när den inte är känd.")
    valid_from = serializers.DateField(source="current.valid_from", allow_null=True, default=None,
                                       help_text="Dagen den gällande lydelsen gäller från, när en post från "
                                                 "rättsdatabaserna har gett den.")
    records_through = serializers.SerializerMethodField(help_text="Hur långt rättsdatabasernas poster är inlästa "
                                                                  "(null: bara kopian från våren 2024).")
    repeal = RepealSerializer(allow_null=True)
    acts = AmendingActSerializer(many=True, help_text="Ändringsförfattningarna, den senaste först.")

    def get_records_through(self, amendments: StatuteAmendments) -> date | None:
        return self.context["records_through"]


class StatuteChangesApi(BaseApi):
    @extend_schema(tags=["statutes"], summary="En författnings ändringar", responses=StatuteChangesSerializer)
    def get(self, request: Request, sfs: str) -> Response:
        if not is_document_number(sfs):
            raise NotFound("Författningen finns inte.")
        amendments = statute_amendments_get(selectors.legal_document_get(sfs))
        context = {"today": swedish_today(), "records_through": statute_records_through()}
        return Response(StatuteChangesSerializer(amendments, context=context).data)
