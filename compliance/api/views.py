"""The REST API: thin views. Selectors read (and decide access), services write.

Access, the same rule as everywhere else: a workspace the caller is not a member
of, and anything in it, is a 404 (never a 403, so ids leak nothing). A member
without the role for a write gets a 403: they can see the workspace anyway.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from django.db.models import QuerySet
from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.filters import OrderingFilter
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from compliance import selectors, services
from compliance.models import ApiToken, Assessment, LegalDocument, Membership, UserFile, Workspace

from . import serializers as s
from .pagination import StandardPagination
from .schema import LagrumAutoSchema
from .throttling import TokenRateThrottle


def validated(serializer_class: type[Serializer], data: Any, **context: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data, context=context)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class ApiMixin:
    schema = LagrumAutoSchema()
    throttle_classes = [TokenRateThrottle]
    pagination_class = StandardPagination


class BaseApi(ApiMixin, APIView):
    pass


class WorkspaceMixin:
    """Resolves `slug` to the caller's membership, and through it the workspace (404 for non-members)."""

    @cached_property
    def membership(self) -> Membership:
        # Read once per request: the workspace comes with it (membership_get_by_slug selects it).
        return selectors.membership_get_by_slug(self.request.user, self.kwargs["slug"])

    @property
    def workspace(self) -> Workspace:
        return self.membership.workspace

    def require_edit(self) -> None:
        if not self.membership.can_edit:
            raise PermissionDenied("Du har bara läsbehörighet i arbetsytan.")

    def require_manage(self) -> None:
        if not self.membership.can_manage:
            raise PermissionDenied("Bara arbetsytans ägare kan hantera medlemmar.")

    def fake_view(self) -> bool:
        return getattr(self, "swagger_fake_view", False)


class WorkspaceListApi(ApiMixin, generics.ListAPIView):
    """The caller's workspaces."""

    serializer_class = s.WorkspaceSerializer
    filter_backends = [OrderingFilter]
    ordering_fields = ["name", "created_at"]
    ordering = ["name"]

    @extend_schema(tags=["workspaces"], summary="Mina arbetsytor")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Workspace]:
        if getattr(self, "swagger_fake_view", False):
            return Workspace.objects.none()
        return selectors.workspace_list_with_role(self.request.user)


class WorkspaceDetailApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["workspaces"], summary="En arbetsyta", responses=s.WorkspaceSerializer)
    def get(self, request: Request, slug: str) -> Response:
        workspace = self.workspace
        workspace.role = self.membership.role
        return Response(s.WorkspaceSerializer(workspace).data)

    @extend_schema(tags=["workspaces"], summary="Ändra arbetsytans delning (ägare)",
                   request=s.WorkspaceUpdateSerializer, responses=s.WorkspaceSerializer)
    def patch(self, request: Request, slug: str) -> Response:
        membership = self.membership
        workspace = membership.workspace
        if not membership.can_manage:
            raise PermissionDenied("Bara arbetsytans ägare kan ändra delningen.")
        data = validated(s.WorkspaceUpdateSerializer, request.data)
        services.workspace_set_cross_workspace(workspace=workspace, allow=data["allow_cross_workspace"])
        workspace.role = membership.role
        return Response(s.WorkspaceSerializer(workspace).data)


class KnowledgeClearApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["workspaces"], summary="Rensa kunskapsbasen (ägare)", request=None,
                   responses=s.KnowledgeClearSerializer,
                   description="Tar bort arbetsytans alla filer (alla versioner) och bedömningar ur kunskapsbasen "
                               "(mjuk borttagning). Författningarna är gemensamma och påverkas inte. "
                               "Svaret anger hur många som togs bort.")
    def post(self, request: Request, slug: str) -> Response:
        if not self.membership.can_manage:
            raise PermissionDenied("Bara arbetsytans ägare kan rensa kunskapsbasen.")
        result = services.knowledge_clear(workspace=self.workspace)
        return Response(s.KnowledgeClearSerializer(result).data)


# --- members ----------------------------------------------------------------------------


class MemberListApi(WorkspaceMixin, ApiMixin, generics.ListAPIView):
    serializer_class = s.MemberSerializer
    filter_backends = [OrderingFilter]
    ordering_fields = ["created_at", "role", "user__username"]
    ordering = ["created_at", "id"]

    def get_queryset(self) -> QuerySet[Membership]:
        if self.fake_view():
            return Membership.objects.none()
        return selectors.membership_list(self.workspace)

    @extend_schema(tags=["members"], summary="Arbetsytans medlemmar")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(tags=["members"], summary="Lägg till en medlem (ägare)", request=s.MemberCreateSerializer,
                   responses={201: s.MemberSerializer})
    def post(self, request: Request, slug: str) -> Response:
        self.require_manage()
        data = validated(s.MemberCreateSerializer, request.data)
        membership = services.membership_add(workspace=self.workspace, user=data["username"], role=data["role"])
        return Response(s.MemberSerializer(membership).data, status=status.HTTP_201_CREATED)


class MemberDetailApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["members"], summary="Ändra en medlems roll (ägare)", request=s.MemberUpdateSerializer,
                   responses=s.MemberSerializer)
    def patch(self, request: Request, slug: str, member_id: int) -> Response:
        membership = selectors.membership_get_by_id(self.workspace, member_id)
        self.require_manage()
        data = validated(s.MemberUpdateSerializer, request.data)
        membership = services.membership_change_role(membership=membership, role=data["role"])
        return Response(s.MemberSerializer(membership).data)

    @extend_schema(tags=["members"], summary="Ta bort en medlem (ägare)", responses={204: None})
    def delete(self, request: Request, slug: str, member_id: int) -> Response:
        membership = selectors.membership_get_by_id(self.workspace, member_id)
        self.require_manage()
        services.membership_remove(membership=membership)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- tokens -----------------------------------------------------------------------------


class TokenListApi(ApiMixin, generics.ListAPIView):
    serializer_class = s.ApiTokenSerializer
    filter_backends = [OrderingFilter]
    ordering_fields = ["created_at", "name", "last_used_at"]
    ordering = ["-created_at"]

    def get_queryset(self) -> QuerySet[ApiToken]:
        if getattr(self, "swagger_fake_view", False):
            return ApiToken.objects.none()
        return selectors.api_token_list(self.request.user)

    @extend_schema(tags=["tokens"], summary="Mina API-nycklar (utan nycklarna)")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(tags=["tokens"], summary="Skapa en API-nyckel", request=s.ApiTokenCreateSerializer,
                   responses={201: s.ApiTokenCreatedSerializer},
                   description="Nyckeln (`key`) finns bara i det här svaret; bara dess hash sparas.")
    def post(self, request: Request) -> Response:
        data = validated(s.ApiTokenCreateSerializer, request.data)
        issued = services.api_token_create(user=request.user, name=data["name"])
        issued.token.key = issued.key
        return Response(s.ApiTokenCreatedSerializer(issued.token).data, status=status.HTTP_201_CREATED)


class TokenDetailApi(BaseApi):
    @extend_schema(tags=["tokens"], summary="Återkalla en API-nyckel", responses={204: None})
    def delete(self, request: Request, token_id: int) -> Response:
        services.api_token_revoke(selectors.api_token_get(request.user, token_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- statutes ---------------------------------------------------------------------------


class StatuteListApi(ApiMixin, generics.ListAPIView):
    serializer_class = s.StatuteSerializer
    filter_backends = [OrderingFilter]
    ordering_fields = ["sfs_number", "title", "issued", "updated_at"]
    ordering = ["sfs_number"]

    def get_queryset(self) -> QuerySet[LegalDocument]:
        if getattr(self, "swagger_fake_view", False):
            return selectors.legal_document_list().none()
        return selectors.legal_document_list(filters=validated(s.StatuteFilterSerializer, self.request.query_params))

    @extend_schema(tags=["statutes"], summary="Författningar", parameters=[s.StatuteFilterSerializer])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


# --- files ------------------------------------------------------------------------------


class FileListApi(WorkspaceMixin, ApiMixin, generics.ListAPIView):
    serializer_class = s.UserFileSerializer
    parser_classes = [MultiPartParser, FormParser]
    filter_backends = [OrderingFilter]
    ordering_fields = ["created_at", "title", "size", "status"]
    ordering = ["-created_at"]

    def get_queryset(self) -> QuerySet[UserFile]:
        if self.fake_view():
            return UserFile.objects.none()
        filters = validated(s.UserFileFilterSerializer, self.request.query_params)
        return selectors.user_file_list(self.workspace, filters=filters)

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        if not self.fake_view():
            context["workspace"] = self.workspace
        return context

    @extend_schema(tags=["files"], summary="Arbetsytans filer", parameters=[s.UserFileFilterSerializer])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(tags=["files"], summary="Ladda upp en fil", request=s.UserFileUploadSerializer,
                   responses={201: s.UserFileSerializer},
                   description="PDF, DOCX, TXT, Markdown eller HTML. Filen bearbetas i bakgrunden: "
                               "följ `status` och `progress`. En fil som inte kan läsas får status `failed` "
                               "och ett felmeddelande.")
    def post(self, request: Request, slug: str) -> Response:
        self.require_edit()
        data = validated(s.UserFileUploadSerializer, request.data)
        user_file = services.user_file_upload(workspace=self.workspace, user=request.user, uploaded=data["file"],
                                              title=data["title"], is_private=data["is_private"])
        return Response(s.UserFileSerializer(user_file, context={"workspace": self.workspace}).data,
                        status=status.HTTP_201_CREATED)


class FileDetailApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["files"], summary="En fil (en version av ett dokument) med versionshistorik",
                   responses=s.UserFileDetailSerializer)
    def get(self, request: Request, slug: str, file_id: int) -> Response:
        user_file = selectors.user_file_get(self.workspace, file_id)
        user_file.history = list(selectors.user_file_versions(user_file))
        return Response(s.UserFileDetailSerializer(user_file, context={"workspace": self.workspace}).data)

    @extend_schema(tags=["files"], summary="Ta bort en fil", responses={204: None})
    def delete(self, request: Request, slug: str, file_id: int) -> Response:
        user_file = selectors.user_file_get(self.workspace, file_id)
        self.require_edit()
        services.user_file_delete(user_file)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _file_response(user_file: UserFile) -> FileResponse:
    try:
        handle = user_file.file.open("rb")
    except (OSError, ValueError):
        raise NotFound("Den lagrade filen saknas.") from None
    response = FileResponse(handle, as_attachment=True, filename=user_file.original_name,
                            content_type="application/octet-stream")
    response["X-Content-Type-Options"] = "nosniff"
    return response


class FileDownloadApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["files"], summary="Hämta filen",
                   responses={(200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY)})
    def get(self, request: Request, slug: str, file_id: int) -> FileResponse:
        return _file_response(selectors.user_file_get(self.workspace, file_id))


class FileVersionListApi(WorkspaceMixin, BaseApi):
    parser_classes = [MultiPartParser, FormParser]
    pagination_class = None  # a document has a handful of versions: the whole history, one list

    @extend_schema(tags=["files"], summary="Dokumentets versioner, nyaste först",
                   responses=s.UserFileVersionSerializer(many=True))
    def get(self, request: Request, slug: str, file_id: int) -> Response:
        user_file = selectors.user_file_get(self.workspace, file_id)
        versions = selectors.user_file_versions(user_file)
        return Response(s.UserFileVersionSerializer(versions, many=True, context={"workspace": self.workspace}).data)

    @extend_schema(tags=["files"], summary="Ladda upp en ny version", request=s.UserFileVersionUploadSerializer,
                   responses={201: s.UserFileSerializer},
                   description="Den nya versionen (status `pending`) ersätter nuvarande version som underlag när "
                               "den är bearbetad; misslyckas bearbetningen förblir den gamla nuvarande. "
                               "Samma innehåll som en befintlig fil ger 409 `duplicate_file`.")
    def post(self, request: Request, slug: str, file_id: int) -> Response:
        user_file = selectors.user_file_get(self.workspace, file_id)
        self.require_edit()
        data = validated(s.UserFileVersionUploadSerializer, request.data)
        saved = services.user_file_upload(workspace=self.workspace, user=request.user, uploaded=data["file"],
                                          replaces=user_file)
        return Response(s.UserFileSerializer(saved, context={"workspace": self.workspace}).data,
                        status=status.HTTP_201_CREATED)


class FileVersionDownloadApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["files"], summary="Hämta en version",
                   responses={(200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY)})
    def get(self, request: Request, slug: str, file_id: int, number: int) -> FileResponse:
        version = selectors.user_file_version_get(selectors.user_file_get(self.workspace, file_id), number)
        return _file_response(version)


class FileVersionRestoreApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["files"], summary="Återställ en version (redaktör, ägare)", request=None,
                   responses=s.UserFileSerializer,
                   description="Versionen blir nuvarande version igen; dess textavsnitt används direkt.")
    def post(self, request: Request, slug: str, file_id: int, number: int) -> Response:
        version = selectors.user_file_version_get(selectors.user_file_get(self.workspace, file_id), number)
        self.require_edit()
        restored = services.user_file_version_restore(version)
        return Response(s.UserFileSerializer(restored, context={"workspace": self.workspace}).data)


# --- assessments ------------------------------------------------------------------------


ASSESSMENT_DEFAULTS = {"legal_document": None, "section_ref": "", "compliance_status": Assessment.Status.NOT_ASSESSED,
                       "notes": "", "owner": None, "due_date": None}


class AssessmentListApi(WorkspaceMixin, ApiMixin, generics.ListAPIView):
    serializer_class = s.AssessmentSerializer
    parser_classes = [JSONParser]
    filter_backends = [OrderingFilter]
    ordering_fields = ["updated_at", "created_at", "due_date", "title", "compliance_status"]
    ordering = ["-updated_at"]

    def get_queryset(self) -> QuerySet[Assessment]:
        if self.fake_view():
            return Assessment.objects.none()
        filters = validated(s.AssessmentFilterSerializer, self.request.query_params)
        return selectors.assessment_list(self.workspace, filters=filters)

    @extend_schema(tags=["assessments"], summary="Arbetsytans bedömningar", parameters=[s.AssessmentFilterSerializer])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(tags=["assessments"], summary="Skapa en bedömning", request=s.AssessmentInputSerializer,
                   responses={201: s.AssessmentSerializer})
    def post(self, request: Request, slug: str) -> Response:
        self.require_edit()
        data = validated(s.AssessmentInputSerializer, request.data, workspace=self.workspace)
        assessment = services.assessment_save(workspace=self.workspace, user=request.user, **data)
        return Response(s.AssessmentSerializer(assessment).data, status=status.HTTP_201_CREATED)


class AssessmentDetailApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]

    @extend_schema(tags=["assessments"], summary="En bedömning", responses=s.AssessmentSerializer)
    def get(self, request: Request, slug: str, assessment_id: int) -> Response:
        return Response(s.AssessmentSerializer(selectors.assessment_get(self.workspace, assessment_id)).data)

    def _save(self, request: Request, assessment_id: int, *, partial: bool) -> Response:
        assessment = selectors.assessment_get(self.workspace, assessment_id)
        self.require_edit()
        serializer = s.AssessmentInputSerializer(data=request.data, partial=partial,
                                                 context={"workspace": self.workspace})
        serializer.is_valid(raise_exception=True)
        fields = serializer.validated_data
        if not partial:  # PUT replaces: what is left out goes back to its default
            fields = {**ASSESSMENT_DEFAULTS, **fields}
        assessment = services.assessment_save(workspace=self.workspace, user=request.user, assessment=assessment,
                                              **fields)
        return Response(s.AssessmentSerializer(assessment).data)

    @extend_schema(tags=["assessments"], summary="Ersätt en bedömning", request=s.AssessmentInputSerializer,
                   responses=s.AssessmentSerializer)
    def put(self, request: Request, slug: str, assessment_id: int) -> Response:
        return self._save(request, assessment_id, partial=False)

    @extend_schema(tags=["assessments"], summary="Ändra en bedömning", request=s.AssessmentInputSerializer(partial=True),
                   responses=s.AssessmentSerializer)
    def patch(self, request: Request, slug: str, assessment_id: int) -> Response:
        return self._save(request, assessment_id, partial=True)

    @extend_schema(tags=["assessments"], summary="Ta bort en bedömning", responses={204: None})
    def delete(self, request: Request, slug: str, assessment_id: int) -> Response:
        assessment = selectors.assessment_get(self.workspace, assessment_id)
        self.require_edit()
        services.assessment_delete(assessment)
        return Response(status=status.HTTP_204_NO_CONTENT)

