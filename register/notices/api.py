"""The REST API of lagbevakning, under /api/v1/workspaces/<slug>/register/notices/ (routes in
register/api_urls.py): the workspace's change notices with the same filters as the page, one notice with its
changed units as word diffs, the counts of unanswered and (the asking member's own) unread ones, marking one
read or unread for the asking member, and the impact assessment that answers a notice.

Authentication, throttling and the one error shape are compliance.api's. Another workspace, or its notice,
is a 404; a reader or revisor answering is a 403.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response

from compliance.api.serializers import StrictCharField
from compliance.api.views import ApiMixin, BaseApi, WorkspaceMixin, validated
from law.models import ChangeSummary
from law.summaries import SUMMARY_LABEL

from ..models import ChangeNotice, ImpactAssessment
from ..transfer import exports
from . import selectors, services


class NoticeFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=[(key, label) for key, label in selectors.STATE_LABELS.items() if key],
                                     required=False, help_text="olasta, obesvarade eller besvarade.")
    kind = serializers.ChoiceField(choices=ChangeNotice.Kind.choices, required=False)


class NoticeReportFilterSerializer(serializers.Serializer):
    since = serializers.DateField(required=False, allow_null=True, default=None,
                                  help_text="Första dagen (ÅÅÅÅ-MM-DD, Stockholmstid); utelämnad: från början.")
    until = serializers.DateField(required=False, allow_null=True, default=None,
                                  help_text="Sista dagen, inräknad; utelämnad: till i dag.")


class ImpactSerializer(serializers.ModelSerializer):
    answered_by = serializers.CharField(source="answered_by.get_username", default=None, read_only=True,
                                        allow_null=True)
    action_id = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta:
        model = ImpactAssessment
        fields = ["affects_us", "what_to_do", "comment", "action_id", "answered_by", "answered_at"]


class SubjectDocumentSerializer(serializers.Serializer):
    number = serializers.CharField(read_only=True, help_text="SFS-nummer, t.ex. 2010:900.")
    title = serializers.CharField(read_only=True)
    category = serializers.CharField(read_only=True, help_text="Ämnet den ger den nya författningen.")
    listed = serializers.BooleanField(read_only=True, help_text="På laglistan när lagändringen noterades.")


class LeaningDocumentSerializer(serializers.Serializer):
    number = serializers.CharField(read_only=True, help_text="SFS-nummer eller beteckning.")
    title = serializers.CharField(read_only=True)


class NoticeSerializer(serializers.ModelSerializer):
    read_at = serializers.DateTimeField(read_only=True, allow_null=True,
                                        help_text="När du öppnade den (null: oläst för dig).")
    sfs_number = serializers.CharField(source="legal_document.sfs_number", read_only=True)
    title = serializers.CharField(source="legal_document.title", read_only=True)
    amended_through = serializers.SerializerMethodField()
    replacement_sfs = serializers.CharField(source="replacement.sfs_number", default=None, read_only=True,
                                            allow_null=True)
    impact = serializers.SerializerMethodField()
    cited_units = serializers.ListField(child=serializers.CharField(), source="cited_unit_citations", read_only=True,
                                        help_text="Ändrade enheter som era kravpunkters paragrafer hänvisar till.")
    subject_documents = SubjectDocumentSerializer(
        many=True, read_only=True,
        help_text="För en ny författning: de författningar den hänvisar till vars ämne laglistan har, skälet till "
                  "förslaget; tomt för andra lagändringar.")
    leaning_documents = LeaningDocumentSerializer(
        many=True, read_only=True,
        help_text="För en författning som inte finns på laglistan: laglistans författningar som hänvisar till dess "
                  "ändrade enheter eller vilar på den, skälet till lagändringen; tomt annars.")
    act_count = serializers.IntegerField(
        read_only=True, help_text="Hur många ändringsförfattningar de ändrade enheterna kommer från; amended_through "
                                  "är den senaste.")
    unit_counts = serializers.DictField(
        child=serializers.IntegerField(), read_only=True,
        help_text="De ändrade enheterna per typ (ADDED, AMENDED, REPEALED, RENUMBERED), som tillsammans är "
                  "change_count; tomt för en lagändring räknad innan typerna räknades.")

    class Meta:
        model = ChangeNotice
        fields = ["id", "kind", "sfs_number", "title", "item_id", "amended_through", "change_count", "unit_counts",
                  "act_count", "relevant_units", "cited_units", "subject_documents", "leaning_documents", "replaced_by",
                  "replacement_sfs", "created_at", "read_at", "answered_at", "impact"]

    def get_amended_through(self, notice: ChangeNotice) -> str | None:
        return notice.version.amended_through if notice.version_id else None

    @extend_schema_field(ImpactSerializer(allow_null=True))
    def get_impact(self, notice: ChangeNotice) -> dict | None:
        impact = getattr(notice, "impact", None) if notice.answered_at else None
        return ImpactSerializer(impact).data if impact is not None else None


class DiffSegmentSerializer(serializers.Serializer):
    op = serializers.CharField()
    text = serializers.CharField()


class CitingRequirementSerializer(serializers.Serializer):
    requirement_id = serializers.IntegerField(source="requirement.pk")
    title = serializers.CharField(source="requirement.title")
    section_ref = serializers.CharField(source="requirement.section_ref")
    citing = serializers.CharField(source="label", help_text="Paragrafen som hänvisar, t.ex. \"3 kap. 2 a §\".")


class RenumberedRequirementSerializer(serializers.Serializer):
    requirement_id = serializers.IntegerField(source="pk")
    title = serializers.CharField()
    section_ref = serializers.CharField()


class CitingUnitSerializer(serializers.Serializer):
    sfs_number = serializers.CharField(source="number")
    citation = serializers.CharField()
    title = serializers.CharField()


class NoticeChangeSerializer(serializers.Serializer):
    citation = serializers.CharField(source="change.citation")
    kind = serializers.CharField(source="change.kind")
    old_citation = serializers.CharField(source="change.old_citation")
    amending_sfs = serializers.CharField(source="change.amending_sfs")
    in_force = serializers.DateField(source="change.in_force", allow_null=True)
    coming = serializers.BooleanField()
    relevant = serializers.BooleanField(help_text="Berör en kravpunkt (dess paragrafhänvisning).")
    cited_by = CitingRequirementSerializer(many=True, help_text="Kravpunkter vars paragrafer hänvisar till enheten.")
    renumbered_for = RenumberedRequirementSerializer(
        many=True, help_text="Kravpunkter som anger enhetens tidigare beteckning: deras paragrafhänvisning pekar nu "
                             "på något annat.")
    cited_from_register = CitingUnitSerializer(many=True, source="from_register",
                                               help_text="Enheter i laglistans andra författningar som hänvisar till "
                                                         "enheten.")
    diff = serializers.ListField(child=DiffSegmentSerializer(many=True), source="stycken",
                                 help_text="Ordvis skillnad per stycke: op är same, added eller removed.")


class SummarySerializer(serializers.Serializer):
    label = serializers.SerializerMethodField()
    text = serializers.CharField()
    model = serializers.CharField()
    units_shown = serializers.IntegerField()
    units_total = serializers.IntegerField()
    created_at = serializers.DateTimeField()

    def get_label(self, summary: ChangeSummary) -> str:
        return SUMMARY_LABEL


class NoticeDetailSerializer(NoticeSerializer):
    changes = serializers.SerializerMethodField()
    summary = serializers.SerializerMethodField()

    class Meta(NoticeSerializer.Meta):
        fields = [*NoticeSerializer.Meta.fields, "changes", "summary"]

    # The view computes the notice's detail (every changed unit's word diff) once and passes it in the
    # context: both fields read it.
    @extend_schema_field(NoticeChangeSerializer(many=True))
    def get_changes(self, notice: ChangeNotice) -> list:
        return NoticeChangeSerializer(self.context["detail"].changes, many=True).data

    @extend_schema_field(SummarySerializer(allow_null=True, help_text="Maskinskriven sammanfattning (AI) av "
                                                                       "ändringen, om en har skapats; det är "
                                                                       "ändringstexten i changes som gäller."))
    def get_summary(self, notice: ChangeNotice) -> dict | None:
        summary = self.context["detail"].summary
        return SummarySerializer(summary).data if summary is not None else None


class AnswerSerializer(serializers.Serializer):
    affects_us = serializers.ChoiceField(choices=ImpactAssessment.Affects.choices)
    what_to_do = StrictCharField(required=False, allow_blank=True, max_length=20_000, default="")
    comment = StrictCharField(required=False, allow_blank=True, max_length=20_000, default="")
    action_title = StrictCharField(required=False, allow_blank=True, max_length=300, default="")
    action_owner = serializers.PrimaryKeyRelatedField(queryset=get_user_model().objects.none(), required=False,
                                                      allow_null=True, default=None)
    action_due_date = serializers.DateField(required=False, allow_null=True, default=None)
    add_to_register = serializers.BooleanField(required=False, default=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        workspace = self.context.get("workspace")
        if workspace is not None:
            # Only the workspace's members: another person's id is "does not exist", like any foreign id.
            self.fields["action_owner"].queryset = get_user_model().objects.filter(memberships__workspace=workspace)


class ComingSerializer(serializers.Serializer):
    in_force = serializers.DateField(help_text="Dagen då ändringen eller upphävandet börjar gälla.")
    sfs_number = serializers.CharField(source="document.sfs_number")
    title = serializers.CharField(source="document.title")
    act = serializers.CharField(help_text="Ändrings- eller upphävandeförfattningen, t.ex. \"SFS 2025:1142\".")
    repeal = serializers.BooleanField(help_text="Författningen upphävs den dagen.")
    units = serializers.ListField(child=serializers.CharField(),
                                  help_text="Enheterna som får ny lydelse den dagen (nya och ändrade).")
    ending_units = serializers.ListField(child=serializers.CharField(), source="ending",
                                         help_text="Enheterna som upphör att gälla den dagen.")
    relevant_units = serializers.ListField(child=serializers.CharField(), source="relevant",
                                           help_text="Av dem, de som berör era kravpunkter.")
    notice_id = serializers.IntegerField(allow_null=True, help_text="Arbetsytans lagändring om ändringen.")


class CountSerializer(serializers.Serializer):
    unanswered = serializers.IntegerField(help_text="Arbetsytans obesvarade lagändringar.")
    unread = serializers.IntegerField(help_text="Obesvarade lagändringar som du inte har öppnat.")


class NoticeListApi(WorkspaceMixin, ApiMixin, generics.ListAPIView):
    serializer_class = NoticeSerializer

    def get_queryset(self) -> QuerySet[ChangeNotice]:
        if self.fake_view():
            return ChangeNotice.objects.none()
        filters = validated(NoticeFilterSerializer, self.request.query_params)
        return selectors.notice_list(self.workspace, self.request.user, state=filters.get("status", ""),
                                     kind=filters.get("kind", ""))

    @extend_schema(tags=["register"], summary="Arbetsytans lagändringar", parameters=[NoticeFilterSerializer])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class NoticeCountApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["register"], summary="Antal obesvarade och (för dig) olästa lagändringar",
                   responses=CountSerializer)
    def get(self, request: Request, slug: str) -> Response:
        counts = selectors.notice_counts(request.user, self.workspace.slug)
        return Response({"unanswered": counts.unanswered, "unread": counts.unread})


class NoticeDetailApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["register"], summary="En lagändring med ändrade paragrafer som ordvis skillnad",
                   responses=NoticeDetailSerializer)
    def get(self, request: Request, slug: str, notice_id: int) -> Response:
        notice = selectors.notice_get(self.workspace, request.user, notice_id)
        return Response(NoticeDetailSerializer(notice, context={"detail": selectors.notice_detail(notice)}).data)


class NoticeAnswerApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]

    @extend_schema(tags=["register"], summary="Bedöm en lagändring (ägare och redaktörer)", request=AnswerSerializer,
                   responses={200: NoticeSerializer})
    def post(self, request: Request, slug: str, notice_id: int) -> Response:
        notice = selectors.notice_get(self.workspace, request.user, notice_id)
        self.require_edit()
        data = validated(AnswerSerializer, request.data, workspace=self.workspace)
        services.notice_answer(notice=notice, user=request.user, **data)
        return Response(NoticeSerializer(selectors.notice_get(self.workspace, request.user, notice_id)).data,
                        status=status.HTTP_200_OK)


class NoticeReadApi(WorkspaceMixin, BaseApi):
    """Read (POST) or unread again (DELETE) for the asking member only; any role."""

    @extend_schema(tags=["register"], summary="Markera en lagändring som läst för dig", request=None,
                   responses={200: NoticeSerializer})
    def post(self, request: Request, slug: str, notice_id: int) -> Response:
        notice = selectors.notice_get(self.workspace, request.user, notice_id)
        services.notice_mark_read(notice=notice, user=request.user)
        return Response(NoticeSerializer(selectors.notice_get(self.workspace, request.user, notice_id)).data)

    @extend_schema(tags=["register"], summary="Markera en lagändring som oläst för dig", request=None,
                   responses={200: NoticeSerializer})
    def delete(self, request: Request, slug: str, notice_id: int) -> Response:
        notice = selectors.notice_get(self.workspace, request.user, notice_id)
        services.notice_mark_unread(notice=notice, user=request.user)
        return Response(NoticeSerializer(selectors.notice_get(self.workspace, request.user, notice_id)).data)


class NoticeReportApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["register"], summary="Lagbevakningsrapport för en period (xlsx, pdf eller csv)",
                   parameters=[NoticeReportFilterSerializer,
                               OpenApiParameter("fmt", str, OpenApiParameter.PATH,
                                                enum=list(exports.NOTICE_REPORT_FORMATS))],
                   responses={(200, exports.CONTENT_TYPES[fmt].split(";")[0]): OpenApiResponse(OpenApiTypes.BINARY)
                              for fmt in exports.NOTICE_REPORT_FORMATS},
                   description="Arbetsytans lagändringar som noterades under perioden, äldst först, var och en med "
                               "ändringen och arbetsytans bedömning och åtgärd. En period som slutar före den börjar "
                               "ger 400 `period_reversed`.")
    def get(self, request: Request, slug: str, fmt: str) -> HttpResponse:
        if fmt not in exports.NOTICE_REPORT_FORMATS:
            raise Http404("Okänt format.")
        period = validated(NoticeReportFilterSerializer, request.query_params)
        report = selectors.notice_report_get(self.workspace, request.user, since=period["since"],
                                             until=period["until"])
        return exports.notice_report_file(report, fmt).as_download()


class NoticeComingApi(WorkspaceMixin, ApiMixin, generics.ListAPIView):
    """Paged like every list of the API, soonest first."""

    serializer_class = ComingSerializer

    def get_queryset(self) -> list:
        return [] if self.fake_view() else selectors.coming_into_force(self.workspace)

    @extend_schema(tags=["register"], summary="Det som träder i kraft framöver i laglistans författningar")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
