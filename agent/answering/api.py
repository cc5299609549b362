"""Retrieval, context preparation and conversations over the API. Thin: agent/ does the work."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import generics, renderers, status
from rest_framework.exceptions import NotAcceptable, ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from agent.models import Conversation, Message
from agent.monitoring.retrieval_logs import retrieval_log_save
from agent.retrieval import hybrid as retrieval
from agent.retrieval.hybrid import RetrievalOptions
from agent.retrieval.question_scope import label_workspaces, question_scope
from agent.selectors import conversation_get, conversation_list, message_get, message_list
from compliance.api.views import ApiMixin, BaseApi, WorkspaceMixin, validated
from compliance.errors import ApplicationError

from . import chat, prepare
from . import serializers as s
from .chat import sse_event

log = logging.getLogger(__name__)


def retrieval_options(options: dict) -> RetrievalOptions:
    return RetrievalOptions(**options)


class JsonFallbackNegotiation(DefaultContentNegotiation):
    """`Accept: text/event-stream` must not be a 406: the streamed answer is a
    StreamingHttpResponse that bypasses renderers, and everything else (the
    non-streamed answer, errors) is JSON whatever the client accepts."""

    def select_renderer(self, request: Request, renderers: list[BaseRenderer],
                        format_suffix: str | None = None) -> tuple[BaseRenderer, str]:
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type


# --- examples -------------------------------------------------------------------------

SEARCH_REQUEST_EXAMPLE = OpenApiExample(
    "Sök i arbetsmiljölagen",
    request_only=True,
    value={"query": "Vilka skyldigheter har arbetsgivaren enligt 3 kap. 2 a § arbetsmiljölagen?",
           "source_types": ["LEGAL_DOCUMENT", "USER_FILE"], "sfs_numbers": ["1977:1160"], "top_k": 5,
           "mode": "hybrid"},
)
SEARCH_RESPONSE_EXAMPLE = OpenApiExample(
    "Träffar",
    response_only=True,
    status_codes=["200"],
    value={
        "query": "Vilka skyldigheter har arbetsgivaren enligt 3 kap. 2 a § arbetsmiljölagen?",
        "mode": "hybrid", "degraded": False, "notice": "",
        "timings_ms": {"embed": 12.4, "sql": 18.9, "fuse": 0.3},
        "count": 1, "unknown_words": [], "corrections": {}, "glossary": {},
        "results": [{
            "chunk_id": 4711, "source_type": "LEGAL_DOCUMENT", "source_id": 12, "document_key": "LEGAL_DOCUMENT:12",
            "document_number": "1977:1160", "document_title": "Arbetsmiljölag (1977:1160)",
            "header": "Arbetsmiljölag (1977:1160) > 3 kap. Allmänna skyldigheter > 2 a §",
            "path": "00031.00000", "ordinal": 31, "citation": "3 kap. 2 a §",
            "text": "Arbetsgivaren skall systematiskt planera, leda och kontrollera verksamheten …",
            "token_count": 182, "workspace_id": None, "page": None, "content_type": "SFS_LAW",
            "score": 0.0328, "vector_similarity": 0.87, "keyword_rank": 0.41, "reference_match": True, "extra": {},
        }],
    },
)
MESSAGE_REQUEST_EXAMPLE = OpenApiExample(
    "Fråga",
    request_only=True,
    value={"content": "Måste vi dokumentera riskbedömningen skriftligt?"},
)
MESSAGE_RESPONSE_EXAMPLE = OpenApiExample(
    "Svar med källor",
    response_only=True,
    status_codes=["201"],
    value={
        "id": 42, "role": "assistant",
        "content": "Ja. Arbetsgivaren ska dokumentera riskbedömningen skriftligt när det finns minst tio "
                   "arbetstagare [1].",
        "answer_mode": "model",
        "sources": [{"n": 1, "chunk_id": 4711, "header": "Arbetsmiljöverkets föreskrifter (AFS 2001:1) > 8 §",
                     "citation": "8 §", "document_number": "", "source_type": "LEGAL_DOCUMENT"}],
        "removed_citations": [], "degraded": False, "created_at": "2025-03-01T10:15:00+01:00",
    },
)
STREAM_EXAMPLE = {"event": "token", "data": '"Arbetsgivaren ska …"'}


# --- search and context ---------------------------------------------------------------


class SearchApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]

    @extend_schema(
        tags=["retrieval"], summary="Sök i lagar och arbetsytans dokument",
        description="Hybrid sökning (vektor + nyckelord) i det användaren får se: delade författningar och "
                    "arbetsytans egna filer och bedömningar (aldrig privata filer). Nämner frågan en annan "
                    "arbetsyta där användaren är medlem och som tillåter det (\"i Dotterbolaget AB\"), söks även "
                    "den, precis som i chatten och `context`; träffarna därifrån har `workspace_name` och "
                    "`workspace_slug`. Ett namn på en arbetsyta användaren inte får läsa ändrar ingenting.",
        request=s.SearchInputSerializer, responses=s.SearchResultSerializer,
        examples=[SEARCH_REQUEST_EXAMPLE, SEARCH_RESPONSE_EXAMPLE],
    )
    def post(self, request: Request, slug: str) -> Response:
        workspace = self.workspace
        serializer = s.SearchInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        options = retrieval_options(serializer.options())
        query = serializer.validated_data["query"]
        # The same rule as chat and context: a workspace the question names widens the scope.
        asked = question_scope(query, (), request.user, workspace, membership=self.membership)
        result = retrieval.retrieve_context(asked.analysis.text or query, workspace, user=request.user,
                                            options=options, scope=asked.scope, analysis=asked.analysis)
        chunks = [chunk.to_dict() for chunk in label_workspaces(result.chunks, asked.named)]
        data = {
            "query": query, "mode": result.mode, "degraded": bool(result.degraded),
            "notice": result.notice or "", "timings_ms": result.timings_ms or {}, "count": len(chunks),
            "results": chunks, "unknown_words": result.unknown_words, "corrections": result.corrections,
            "glossary": result.glossary_words,
        }
        return Response(s.SearchResultSerializer(data).data)


class ContextApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]

    @extend_schema(
        tags=["retrieval"], summary="Förbered modellens kontext",
        description="Det steg som körs före språkmodellen: avsiktsklassning, sökning och en token-begränsad, "
                    "numrerad kontext med källkarta. `query` läggs till sist i `messages` som användarens fråga.",
        request=s.ContextInputSerializer, responses=s.PreparedContextSerializer,
    )
    def post(self, request: Request, slug: str) -> Response:
        workspace = self.workspace
        serializer = s.ContextInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        messages = [dict(m) for m in serializer.validated_data.get("messages", [])]
        messages.append({"role": "user", "content": serializer.validated_data["query"]})
        options = prepare.PrepareOptions(retrieval=retrieval_options(serializer.options()))
        prepared = prepare.prepare_context(messages, workspace, request.user, options)
        retrieval_log_save(prepared.log)  # the turn ends here: no answer follows to save it with
        data = {
            "messages": prepared.messages, "context_text": prepared.context_text, "citations": prepared.citations,
            "metrics": prepared.metrics, "intent": prepared.intent, "skipped": bool(prepared.skipped),
            "degraded": bool(prepared.degraded), "unknown_words": prepared.unknown_words,
            "corrections": prepared.corrections, "glossary": prepared.glossary,
        }
        return Response(json.loads(json.dumps(s.PreparedContextSerializer(data).data, default=str)))


# --- conversations --------------------------------------------------------------------


class ConversationListApi(WorkspaceMixin, ApiMixin, generics.ListAPIView):
    serializer_class = s.ConversationSerializer
    parser_classes = [JSONParser]
    filter_backends = [OrderingFilter]
    ordering_fields = ["updated_at", "created_at", "title"]
    ordering = ["-updated_at"]

    def get_queryset(self) -> QuerySet[Conversation]:
        if self.fake_view():
            return Conversation.objects.none()
        return conversation_list(self.workspace, self.request.user)

    @extend_schema(tags=["conversations"], summary="Mina konversationer i arbetsytan")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(tags=["conversations"], summary="Starta en konversation", request=s.ConversationSerializer,
                   responses={201: s.ConversationSerializer})
    def post(self, request: Request, slug: str) -> Response:
        data = validated(s.ConversationSerializer, request.data)
        conversation = chat.conversation_create(workspace=self.workspace, user=request.user, title=data["title"])
        return Response(s.ConversationSerializer(conversation).data, status=status.HTTP_201_CREATED)


class ConversationDetailApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["conversations"], summary="En konversation med dess meddelanden",
                   responses=s.ConversationDetailSerializer)
    def get(self, request: Request, slug: str, conversation_id: int) -> Response:
        conversation = conversation_get(self.workspace, request.user, conversation_id)
        conversation.visible_messages = message_list(conversation)
        return Response(s.ConversationDetailSerializer(conversation).data)


class MessageCreateApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]
    renderer_classes = [renderers.JSONRenderer]
    content_negotiation_class = JsonFallbackNegotiation

    @extend_schema(
        tags=["conversations"], summary="Ställ en fråga",
        description="Svarar med assistentens meddelande: text, `answer_mode`, källkarta (`sources`) och "
                    "borttagna hänvisningar. Med `?stream=true` kommer svaret som `text/event-stream` med "
                    "händelserna `token`, `sources`, `done` och `error`.",
        parameters=[s.StreamQuerySerializer], request=s.MessageCreateSerializer,
        responses={
            201: s.MessageSerializer,
            (200, "text/event-stream"): OpenApiResponse(s.ServerSentEventSerializer,
                                                        description="Server-sent events, ett per händelse.",
                                                        examples=[OpenApiExample("Ström", value=STREAM_EXAMPLE,
                                                                                 response_only=True)]),
        },
        examples=[MESSAGE_REQUEST_EXAMPLE, MESSAGE_RESPONSE_EXAMPLE],
    )
    def post(self, request: Request, slug: str, conversation_id: int) -> Response | StreamingHttpResponse:
        conversation = conversation_get(self.workspace, request.user, conversation_id)
        stream = validated(s.StreamQuerySerializer, request.query_params)["stream"]
        content = validated(s.MessageCreateSerializer, request.data)["content"]
        if stream:
            return self._stream(chat, conversation, request.user, content)
        message = chat.answer(conversation, request.user, content)
        return Response(s.MessageSerializer(message).data, status=status.HTTP_201_CREATED)

    def _stream(self, chat: ModuleType, conversation: Conversation, user: AbstractBaseUser,
                content: str) -> StreamingHttpResponse:
        def events() -> Iterator[str]:
            try:
                for item in chat.stream_answer(conversation, user, content):
                    yield sse_event(str(item.get("event", "message")), item.get("data"))
            except ApplicationError as exc:  # in-band: the status line is already sent
                yield sse_event("error", {"code": exc.code, "message": exc.message})
            except Exception:  # the status line is long gone: report in-band
                log.exception("streaming answer failed")
                yield sse_event("error", {"code": "server_error",
                                          "message": "Svaret kunde inte slutföras. Försök igen."})

        response = StreamingHttpResponse(events(), content_type="text/event-stream; charset=utf-8")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
        return response


class FeedbackApi(WorkspaceMixin, BaseApi):
    parser_classes = [JSONParser]

    @extend_schema(tags=["conversations"], summary="Tumme upp/ner på ett svar", request=s.FeedbackInputSerializer,
                   responses=s.FeedbackSerializer)
    def post(self, request: Request, slug: str, conversation_id: int, message_id: int) -> Response:
        conversation = conversation_get(self.workspace, request.user, conversation_id)
        message = message_get(conversation, message_id)
        data = validated(s.FeedbackInputSerializer, request.data)
        if message.role != Message.Role.ASSISTANT:
            raise ValidationError({"message": ["Återkoppling kan bara ges på assistentens svar."]})
        feedback = chat.feedback_save(message=message, user=request.user, rating=data["rating"],
                                      comment=data["comment"])
        return Response(s.FeedbackSerializer({"message_id": message.pk, "rating": feedback.rating,
                                              "comment": feedback.comment, "updated_at": feedback.updated_at}).data)
