"""The API of what ingestion knows: a workspace's knowledge-base figures and a statute with its sections
(read from its chunks). Routes in chunks/api_urls.py; authentication, errors and throttling are shared
(compliance.api)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from compliance import selectors
from compliance.api.serializers import StatuteSerializer, StrictCharField
from compliance.api.views import BaseApi, WorkspaceMixin
from compliance.numbers import is_document_number

from .selectors import knowledge_stats, legal_document_sections


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


class KnowledgeStatsSerializer(serializers.Serializer):
    files = serializers.IntegerField()
    assessments = serializers.IntegerField()
    statutes = serializers.IntegerField()
    chunks = serializers.IntegerField()
    chunks_embedded = serializers.IntegerField()
    embedded_share = serializers.FloatField()


class WorkspaceStatsApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["workspaces"], summary="Kunskapsbasens omfattning", responses=KnowledgeStatsSerializer)
    def get(self, request: Request, slug: str) -> Response:
        return Response(KnowledgeStatsSerializer(knowledge_stats(self.workspace)).data)


class StatuteDetailApi(BaseApi):
    @extend_schema(tags=["statutes"], summary="En författning med dess paragrafer",
                   responses=StatuteDetailSerializer)
    def get(self, request: Request, sfs: str) -> Response:
        if not is_document_number(sfs):
            raise NotFound("Författningen finns inte.")
        document = selectors.legal_document_get(sfs)
        document.sections = legal_document_sections(document)
        return Response(StatuteDetailSerializer(document).data)
