"""The register's REST API under /api/v1/workspaces/<slug>/register/: registers, groups, items, kravpunkter,
evidence, reviews, actions and an item's audit trail. Thin: register.selectors read (every read starts from
the workspace the access selector resolved, so another workspace's ids are a 404), register.services write
(and refuse readers and revisors with a 403). Authentication, throttling, pagination and the one error shape
are compliance.api's.

Ids in a request body (a group, a file, an evidence link) that do not resolve inside the workspace are a
400 on that field, exactly as an id that does not exist."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from auditlog.models import LogEntry
from django.db.models import QuerySet
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from compliance import selectors as compliance_selectors
from compliance.api.views import ApiMixin, BaseApi, WorkspaceMixin, validated
from compliance.models import Assessment, Workspace

from . import selectors, services
from .transfer import exports, imports
from . import serializers as s
from .models import Action, LegalRegister, RegisterItem, Requirement, Review, ReviewEntry

TAGS = ["register"]


def _or_field_error(read: Callable[[], Any], field: str) -> Any:
    """`read()` (a selector that raises Http404), with "does not exist" as a 400 on the request's field."""
    try:
        return read()
    except Http404 as exc:
        raise ValidationError({field: [str(exc) or "Finns inte."]}) from None


class RegisterMixin(WorkspaceMixin):
    parser_classes = [JSONParser]

    def context(self) -> dict:
        return {"workspace": self.workspace,
                "may_see_private": selectors.may_see_private_files(self.membership)}

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        if not self.fake_view():
            context.update(self.context())
        return context


# --- registers and groups ---------------------------------------------------------------------------------


class RegisterListApi(RegisterMixin, ApiMixin, generics.ListAPIView):
    serializer_class = s.RegisterSerializer

    def get_queryset(self) -> QuerySet[LegalRegister]:
        if self.fake_view():
            return LegalRegister.objects.none()
        return selectors.register_list(self.workspace)

    @extend_schema(tags=TAGS, summary="Arbetsytans laglistor")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(tags=TAGS, summary="Skapa en laglista (ägare, redaktör)", request=s.RegisterInputSerializer,
                   responses={201: s.RegisterSerializer})
    def post(self, request: Request, slug: str) -> Response:
        self.require_edit()
        data = validated(s.RegisterInputSerializer, request.data)
        register = services.register_create(workspace=self.workspace, user=request.user, **data)
        register.item_count = 0
        return Response(s.RegisterSerializer(register).data, status=status.HTTP_201_CREATED)


class RegisterDetailApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="En laglista", responses=s.RegisterSerializer)
    def get(self, request: Request, slug: str, register_id: int) -> Response:
        register = selectors.register_list(self.workspace).filter(pk=register_id).first()
        if register is None:
            raise Http404("Laglistan finns inte.")
        return Response(s.RegisterSerializer(register).data)


class GroupListApi(RegisterMixin, BaseApi):
    pagination_class = None  # a register has a handful of groups: one list

    @extend_schema(tags=TAGS, summary="Laglistans grupper", responses=s.GroupSerializer(many=True))
    def get(self, request: Request, slug: str, register_id: int) -> Response:
        register = selectors.register_get(self.workspace, register_id)
        return Response(s.GroupSerializer(selectors.register_group_list(register), many=True).data)

    @extend_schema(tags=TAGS, summary="Skapa en grupp (eller hämta den som redan heter så)",
                   request=s.GroupInputSerializer, responses={201: s.GroupSerializer})
    def post(self, request: Request, slug: str, register_id: int) -> Response:
        register = selectors.register_get(self.workspace, register_id)
        self.require_edit()
        data = validated(s.GroupInputSerializer, request.data)
        group = services.register_group_get_or_create(register=register, user=request.user, name=data["name"])
        return Response(s.GroupSerializer(group).data, status=status.HTTP_201_CREATED)


# --- items ------------------------------------------------------------------------------------------------


class ItemListApi(RegisterMixin, ApiMixin, generics.ListAPIView):
    serializer_class = s.ItemSerializer

    def get_queryset(self) -> QuerySet[RegisterItem]:
        if self.fake_view():
            return RegisterItem.objects.none()
        filters = validated(s.ItemFilterSerializer, self.request.query_params)
        register_id = filters.pop("register", None)
        register = selectors.register_get(self.workspace, register_id) if register_id else None
        filters = {key: value for key, value in filters.items() if value is not None}
        return selectors.register_item_list(self.workspace, register=register, filters=filters)

    @extend_schema(tags=TAGS, summary="Laglistans poster", parameters=[s.ItemFilterSerializer])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(tags=TAGS, summary="Lägg till en författning (ägare, redaktör)", request=s.ItemCreateSerializer,
                   responses={201: s.ItemDetailSerializer, 200: s.ItemDetailSerializer},
                   description="Idempotent: en författning som redan finns på laglistan lämnas som den är och "
                               "svaret är 200 med den befintliga posten.")
    def post(self, request: Request, slug: str) -> Response:
        self.require_edit()
        data = validated(s.ItemCreateSerializer, request.data, workspace=self.workspace)
        if data.get("register"):
            register = _or_field_error(lambda: selectors.register_get(self.workspace, data["register"]), "register")
        else:
            register = services.register_default(workspace=self.workspace, user=request.user)
        group = None
        if data.get("group"):
            group = _or_field_error(lambda: selectors.register_group_get(register, data["group"]), "group")
        result = services.register_item_add(register=register, user=request.user,
                                            legal_document=data.get("legal_document"), title=data.get("title", ""),
                                            group=group, reason=data.get("reason", ""),
                                            responsible=data.get("responsible"))
        item = selectors.register_item_get(self.workspace, result.item.pk)
        return Response(s.ItemDetailSerializer(item, context=self.context()).data,
                        status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK)


class ItemDetailApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="En post med kravpunkter och bevis", responses=s.ItemDetailSerializer)
    def get(self, request: Request, slug: str, item_id: int) -> Response:
        item = selectors.register_item_get(self.workspace, item_id)
        return Response(s.ItemDetailSerializer(item, context=self.context()).data)

    @extend_schema(tags=TAGS, summary="Ändra en post (ägare, redaktör)", request=s.ItemUpdateSerializer,
                   responses=s.ItemDetailSerializer,
                   description="En ändrad status är en bedömning: posten får dagens datum och dig som senast "
                               "bedömd av.")
    def patch(self, request: Request, slug: str, item_id: int) -> Response:
        item = selectors.register_item_get(self.workspace, item_id)
        self.require_edit()
        data = dict(validated(s.ItemUpdateSerializer, request.data, workspace=self.workspace))
        if data.get("group"):
            data["group"] = _or_field_error(lambda: selectors.register_group_get(item.register, data["group"]),
                                            "group")
        services.register_item_update(item=item, user=request.user, data=data)
        item = selectors.register_item_get(self.workspace, item_id)
        return Response(s.ItemDetailSerializer(item, context=self.context()).data)

    @extend_schema(tags=TAGS, summary="Ta bort en post (ägare, redaktör)", responses={204: None})
    def delete(self, request: Request, slug: str, item_id: int) -> Response:
        item = selectors.register_item_get(self.workspace, item_id)
        self.require_edit()
        services.register_item_remove(item=item, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ItemHistoryApi(RegisterMixin, ApiMixin, generics.ListAPIView):
    """The item's audit trail: read-only for everyone, revisors included."""

    serializer_class = s.AuditRowSerializer

    def get_queryset(self) -> QuerySet[LogEntry]:
        if self.fake_view():
            return LogEntry.objects.none()
        item = selectors.register_item_get(self.workspace, self.kwargs["item_id"])
        return selectors.audit_trail(self.workspace, item=item)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        rows = selectors.audit_rows(page, workspace=self.workspace,
                                    may_see_private=selectors.may_see_private_files(self.membership))
        return self.get_paginated_response(self.get_serializer(rows, many=True).data)

    @extend_schema(tags=TAGS, summary="Postens historik (vem, när, vad, före och efter)",
                   description="Ändringar av posten, dess kravpunkter, bevis, bedömningar i kontroller och "
                               "åtgärder, nyaste först.")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class RegisterHistoryApi(ItemHistoryApi):
    """The workspace's whole register trail, or one review's: what an auditor reads, read-only."""

    def get_queryset(self) -> QuerySet[LogEntry]:
        if self.fake_view():
            return LogEntry.objects.none()
        filters = validated(s.HistoryFilterSerializer, self.request.query_params)
        review = selectors.review_get(self.workspace, filters["review"]) if filters.get("review") else None
        return selectors.audit_trail(self.workspace, review=review)

    @extend_schema(tags=TAGS, summary="Laglistans historik (vem, när, vad, före och efter)",
                   parameters=[s.HistoryFilterSerializer],
                   description="Alla ändringar av arbetsytans laglistor, poster, kravpunkter, bevis, kontroller och "
                               "åtgärder, eller en kontrolls, nyaste först. Går bara att läsa.")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


# --- kravpunkter and evidence -----------------------------------------------------------------------------


class RequirementListApi(RegisterMixin, BaseApi):
    pagination_class = None  # an item's kravpunkter: one list

    @extend_schema(tags=TAGS, summary="Postens kravpunkter", responses=s.RequirementDetailSerializer(many=True))
    def get(self, request: Request, slug: str, item_id: int) -> Response:
        item = selectors.register_item_get(self.workspace, item_id)
        requirements = selectors.requirement_list(self.workspace, item=item)
        return Response(s.RequirementDetailSerializer(requirements, many=True, context=self.context()).data)

    @extend_schema(tags=TAGS, summary="Lägg till en kravpunkt (ägare, redaktör)",
                   request=s.RequirementInputSerializer, responses={201: s.RequirementDetailSerializer})
    def post(self, request: Request, slug: str, item_id: int) -> Response:
        item = selectors.register_item_get(self.workspace, item_id)
        self.require_edit()
        data = validated(s.RequirementInputSerializer, request.data, workspace=self.workspace)
        requirement = services.requirement_create(item=item, user=request.user, data=data)
        requirement = selectors.requirement_list(self.workspace).get(pk=requirement.pk)
        return Response(s.RequirementDetailSerializer(requirement, context=self.context()).data,
                        status=status.HTTP_201_CREATED)


def _requirement(workspace: Workspace, requirement_id: int) -> Requirement:
    found = selectors.requirement_list(workspace).filter(pk=requirement_id).first()
    if found is None:
        raise Http404("Kravpunkten finns inte.")
    return found


class RequirementDetailApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="En kravpunkt med bevis", responses=s.RequirementDetailSerializer)
    def get(self, request: Request, slug: str, requirement_id: int) -> Response:
        return Response(s.RequirementDetailSerializer(_requirement(self.workspace, requirement_id),
                                                      context=self.context()).data)

    @extend_schema(tags=TAGS, summary="Ändra en kravpunkt (ägare, redaktör)",
                   request=s.RequirementInputSerializer(partial=True), responses=s.RequirementDetailSerializer)
    def patch(self, request: Request, slug: str, requirement_id: int) -> Response:
        requirement = selectors.requirement_get(self.workspace, requirement_id)
        self.require_edit()
        serializer = s.RequirementInputSerializer(data=request.data, partial=True,
                                                  context={"workspace": self.workspace})
        serializer.is_valid(raise_exception=True)
        services.requirement_update(requirement=requirement, user=request.user, data=dict(serializer.validated_data))
        return Response(s.RequirementDetailSerializer(_requirement(self.workspace, requirement_id),
                                                      context=self.context()).data)

    @extend_schema(tags=TAGS, summary="Ta bort en kravpunkt (ägare, redaktör)", responses={204: None})
    def delete(self, request: Request, slug: str, requirement_id: int) -> Response:
        requirement = selectors.requirement_get(self.workspace, requirement_id)
        self.require_edit()
        services.requirement_delete(requirement=requirement, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class EvidenceListApi(RegisterMixin, BaseApi):
    pagination_class = None  # a kravpunkt's evidence: one list

    @extend_schema(tags=TAGS, summary="Kravpunktens bevis", responses=s.EvidenceSerializer(many=True))
    def get(self, request: Request, slug: str, requirement_id: int) -> Response:
        requirement = selectors.requirement_get(self.workspace, requirement_id)
        return Response(s.EvidenceSerializer(selectors.evidence_list(requirement), many=True,
                                             context=self.context()).data)

    @extend_schema(tags=TAGS, summary="Koppla bevis till en kravpunkt (ägare, redaktör)",
                   request=s.EvidenceInputSerializer, responses={201: s.EvidenceSerializer},
                   description="En fil eller bedömning måste vara arbetsytans egen; en annan arbetsytas id ger "
                               "400 precis som ett id som inte finns.")
    def post(self, request: Request, slug: str, requirement_id: int) -> Response:
        requirement = selectors.requirement_get(self.workspace, requirement_id)
        self.require_edit()
        data = validated(s.EvidenceInputSerializer, request.data)
        user_file = (selectors.evidence_file_choices(self.workspace).filter(pk=data["user_file"]).first()
                     if data.get("user_file") else None)
        assessment: Assessment | None = (
            compliance_selectors.assessment_list(self.workspace).filter(pk=data["assessment"]).first()
            if data.get("assessment") else None)
        evidence = services.evidence_add(requirement=requirement, user=request.user, kind=data["kind"],
                                         user_file=user_file, assessment=assessment,
                                         reference=data.get("reference", ""), note=data.get("note", ""))
        return Response(s.EvidenceSerializer(evidence, context=self.context()).data, status=status.HTTP_201_CREATED)


class EvidenceDetailApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="Ett bevis", responses=s.EvidenceSerializer)
    def get(self, request: Request, slug: str, evidence_id: int) -> Response:
        evidence = selectors.evidence_list(selectors.evidence_get(self.workspace, evidence_id).requirement).get(
            pk=evidence_id)
        return Response(s.EvidenceSerializer(evidence, context=self.context()).data)

    @extend_schema(tags=TAGS, summary="Ta bort ett bevis (ägare, redaktör)", responses={204: None})
    def delete(self, request: Request, slug: str, evidence_id: int) -> Response:
        evidence = selectors.evidence_get(self.workspace, evidence_id)
        self.require_edit()
        services.evidence_remove(evidence=evidence, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- reviews ----------------------------------------------------------------------------------------------


class ReviewListApi(RegisterMixin, ApiMixin, generics.ListAPIView):
    serializer_class = s.ReviewSerializer

    def get_queryset(self) -> QuerySet[Review]:
        if self.fake_view():
            return Review.objects.none()
        return selectors.review_list(self.workspace).prefetch_related("groups")

    @extend_schema(tags=TAGS, summary="Arbetsytans lagefterlevnadskontroller")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(tags=TAGS, summary="Starta en kontroll (ägare, redaktör)", request=s.ReviewStartSerializer,
                   responses={201: s.ReviewDetailSerializer},
                   description="En post per författning på laglistan, eller i de valda grupperna.")
    def post(self, request: Request, slug: str) -> Response:
        self.require_edit()
        data = validated(s.ReviewStartSerializer, request.data, workspace=self.workspace)
        register = _or_field_error(lambda: selectors.register_get(self.workspace, data["register"]), "register")
        groups = [_or_field_error(lambda g=g: selectors.register_group_get(register, g), "groups")
                  for g in dict.fromkeys(data.get("groups", []))]
        review = services.review_start(register=register, user=request.user, title=data["title"], groups=groups,
                                       lead=data.get("lead"), due_date=data.get("due_date"))
        review = selectors.review_list(self.workspace).get(pk=review.pk)
        return Response(s.ReviewDetailSerializer(review, context=self.context()).data,
                        status=status.HTTP_201_CREATED)


class ReviewDetailApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="En kontroll med alla bedömningar", responses=s.ReviewDetailSerializer,
                   description="En avslutad kontroll visar det den såg när den avslutades: rubrik, "
                               "författningens lydelse, kravpunkter och bevis.")
    def get(self, request: Request, slug: str, review_id: int) -> Response:
        selectors.review_get(self.workspace, review_id)
        review = selectors.review_list(self.workspace).get(pk=review_id)
        return Response(s.ReviewDetailSerializer(review, context=self.context()).data)


class ReviewEntryListApi(RegisterMixin, ApiMixin, generics.ListAPIView):
    serializer_class = s.ReviewEntrySerializer

    def get_queryset(self) -> QuerySet[ReviewEntry]:
        if self.fake_view():
            return ReviewEntry.objects.none()
        review = selectors.review_get(self.workspace, self.kwargs["review_id"])
        return selectors.review_entry_list(review).select_related("review")

    @extend_schema(tags=TAGS, summary="Kontrollens bedömningar")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class ReviewEntryRateApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="Bedöm och signera en post (ägare, redaktör)", request=s.RateSerializer,
                   responses=s.RatingResultSerializer,
                   description="Posten får bedömningen som status och dagens datum som senast bedömd. "
                               "\"uppfylls inte\" öppnar en åtgärd (en per post). En avslutad kontroll ger 409.")
    def post(self, request: Request, slug: str, review_id: int, entry_id: int) -> Response:
        review = selectors.review_get(self.workspace, review_id)
        entry = selectors.review_entry_get(review, entry_id)
        self.require_edit()
        data = validated(s.RateSerializer, request.data, workspace=self.workspace)
        evidence = [_or_field_error(lambda e=e: selectors.evidence_get(self.workspace, e), "evidence")
                    for e in dict.fromkeys(data.get("evidence", []))]
        result = services.review_entry_rate(
            entry=entry, user=request.user, rating=data["rating"], justification=data.get("justification", ""),
            evidence=evidence, action_owner=data.get("action_owner"), action_due_date=data.get("action_due_date"),
            action_title=data.get("action_title", ""))
        entry = selectors.review_entry_list(review).select_related("review").get(pk=entry.pk)
        return Response(s.RatingResultSerializer({"entry": entry, "action": result.action},
                                                 context=self.context()).data)


class ReviewCloseApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="Avsluta kontrollen (ägare, redaktör)", request=None,
                   responses=s.ReviewDetailSerializer,
                   description="Alla poster måste vara bedömda (annars 400 `review_incomplete`). Avslutad "
                               "fryses kontrollen: bedömningar, kravpunkter, bevis och lydelsen per dagens datum.")
    def post(self, request: Request, slug: str, review_id: int) -> Response:
        review = selectors.review_get(self.workspace, review_id)
        self.require_edit()
        services.review_close(review=review, user=request.user)
        review = selectors.review_list(self.workspace).get(pk=review_id)
        return Response(s.ReviewDetailSerializer(review, context=self.context()).data)


# --- actions ----------------------------------------------------------------------------------------------


class ActionListApi(RegisterMixin, ApiMixin, generics.ListAPIView):
    serializer_class = s.ActionSerializer

    def get_queryset(self) -> QuerySet[Action]:
        if self.fake_view():
            return Action.objects.none()
        filters = validated(s.ActionFilterSerializer, self.request.query_params)
        item = selectors.register_item_get(self.workspace, filters["item"]) if filters.get("item") else None
        return selectors.action_list(self.workspace, state=filters.get("state"), owner_id=filters.get("owner"),
                                     item=item).select_related("closed_by")

    @extend_schema(tags=TAGS, summary="Avvikelser och åtgärder", parameters=[s.ActionFilterSerializer])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(tags=TAGS, summary="Öppna en åtgärd (ägare, redaktör)", request=s.ActionCreateSerializer,
                   responses={201: s.ActionSerializer})
    def post(self, request: Request, slug: str) -> Response:
        self.require_edit()
        data = validated(s.ActionCreateSerializer, request.data, workspace=self.workspace)
        item = (_or_field_error(lambda: selectors.register_item_get(self.workspace, data["item"]), "item")
                if data.get("item") else None)
        requirement = (_or_field_error(lambda: selectors.requirement_get(self.workspace, data["requirement"]),
                                       "requirement") if data.get("requirement") else None)
        action = services.action_create(workspace=self.workspace, user=request.user, title=data["title"], item=item,
                                        requirement=requirement, description=data.get("description", ""),
                                        owner=data.get("owner"), due_date=data.get("due_date"))
        return Response(s.ActionSerializer(action).data, status=status.HTTP_201_CREATED)


class ActionDetailApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="En åtgärd", responses=s.ActionSerializer)
    def get(self, request: Request, slug: str, action_id: int) -> Response:
        return Response(s.ActionSerializer(selectors.action_get(self.workspace, action_id)).data)

    @extend_schema(tags=TAGS, summary="Ändra eller stäng en åtgärd (ägare, redaktör)",
                   request=s.ActionUpdateSerializer, responses=s.ActionSerializer)
    def patch(self, request: Request, slug: str, action_id: int) -> Response:
        action = selectors.action_get(self.workspace, action_id)
        self.require_edit()
        data = validated(s.ActionUpdateSerializer, request.data, workspace=self.workspace)
        action = services.action_update(action=action, user=request.user, data=dict(data))
        return Response(s.ActionSerializer(action).data)



# --- exports and import -----------------------------------------------------------------------------------

def _file_responses(formats: Iterable[str]) -> dict:
    return {(200, exports.CONTENT_TYPES[fmt].split(";")[0]): OpenApiResponse(OpenApiTypes.BINARY) for fmt in formats}


class RegisterExportApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="Exportera laglistan (xlsx, pdf eller csv)",
                   responses=_file_responses(exports.REGISTER_FORMATS),
                   parameters=[OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=list(exports.REGISTER_FORMATS))],
                   description="Daterad (dagens datum i Stockholm), med arbetsytans namn och varje posts status, "
                               "ansvarig, bevis, bedömare och datum. CSV är för integrationer: UTF-8 med BOM, "
                               "kommaseparerad, ISO-datum.")
    def get(self, request: Request, slug: str, register_id: int, fmt: str) -> HttpResponse:
        register = selectors.register_get(self.workspace, register_id)
        if fmt not in exports.REGISTER_FORMATS:
            raise Http404("Okänt format.")
        data = selectors.register_export_get(self.workspace, register,
                                             may_see_private=selectors.may_see_private_files(self.membership))
        return exports.register_file(data, fmt).as_download()


class ReviewExportApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="Exportera en avslutad kontroll (xlsx eller pdf)",
                   responses=_file_responses(exports.REVIEW_FORMATS),
                   parameters=[OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=list(exports.REVIEW_FORMATS))],
                   description="Det kontrollen frös när den avslutades. En pågående kontroll ger 409 `review_open`.")
    def get(self, request: Request, slug: str, review_id: int, fmt: str) -> HttpResponse:
        review = selectors.review_get(self.workspace, review_id)
        if fmt not in exports.REVIEW_FORMATS:
            raise Http404("Okänt format.")
        if not review.is_closed:
            raise services.ReviewOpenError()
        data = selectors.review_export_get(self.workspace, review,
                                           may_see_private=selectors.may_see_private_files(self.membership))
        return exports.review_file(data, fmt).as_download()


class RegisterImportApi(RegisterMixin, BaseApi):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(tags=TAGS, summary="Importera en lista: förhandsgranska (ägare, redaktör)",
                   request=s.ImportUploadSerializer, responses=s.ImportPreviewSerializer,
                   description="Läser filen och matchar varje rad mot författningarna: exakt beteckning, exakt "
                               "titel, liknande titel eller ingen träff. Inget sparas; bekräfta med `token` och "
                               "dina val. Trasiga rader ger 400 `broken_rows` med raderna i `details.rows`.")
    def post(self, request: Request, slug: str, register_id: int) -> Response:
        register = selectors.register_get(self.workspace, register_id)
        self.require_edit()
        data = validated(s.ImportUploadSerializer, request.data)
        uploaded = data["file"]
        if uploaded.size > imports.MAX_FILE_BYTES:
            raise imports.RegisterImportError("file_too_large", "Filen är för stor (högst 2 MB).",
                                              details={"field": "file", "max_bytes": imports.MAX_FILE_BYTES})
        preview = imports.import_preview(workspace_id=self.workspace.pk, register_id=register.pk,
                                         user_id=request.user.pk, file_name=uploaded.name or "",
                                         content=uploaded.read())
        return Response(s.ImportPreviewSerializer(preview).data)


class RegisterImportConfirmApi(RegisterMixin, BaseApi):
    @extend_schema(tags=TAGS, summary="Importera en lista: bekräfta (ägare, redaktör)",
                   request=s.ImportConfirmSerializer, responses=s.ImportResultSerializer,
                   description="Lägger till alla valda rader i en transaktion: alla eller, vid fel, ingen. En "
                               "författning som redan finns på laglistan lämnas orörd, så samma import två gånger "
                               "lägger inte till något andra gången.")
    def post(self, request: Request, slug: str, register_id: int) -> Response:
        register = selectors.register_get(self.workspace, register_id)
        self.require_edit()
        data = validated(s.ImportConfirmSerializer, request.data)
        preview = imports.preview_from_token(data["token"], workspace_id=self.workspace.pk,
                                             register_id=register.pk, user_id=request.user.pk)
        choices = {choice["line"]: choice["document"] for choice in data.get("choices", [])}
        result = services.register_import_confirm(register=register, user=request.user,
                                                  rows=imports.import_choices(preview, choices))
        return Response(s.ImportResultSerializer(result).data)
