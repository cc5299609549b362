"""The dashboard's figures over the API: GET /api/v1/workspaces/<slug>/metrics?days=30, owners only.

Wiring: agent.monitoring.dashboard computes; this checks ownership, validates `days` and declares the shape.
"""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from compliance.api.views import BaseApi, WorkspaceMixin, validated

from .dashboard import DEFAULT_PERIOD, PERIODS, retrieval_stats_cached


class MetricsQuerySerializer(serializers.Serializer):
    days = serializers.ChoiceField(choices=PERIODS, required=False, default=DEFAULT_PERIOD,
                                   help_text="Perioden i dagar, dagens datum inräknat.")


class IntentCountsSerializer(serializers.Serializer):
    greeting = serializers.IntegerField()
    meta = serializers.IntegerField()
    factual = serializers.IntegerField()
    task = serializers.IntegerField()


class AnswerModeCountsSerializer(serializers.Serializer):
    model = serializers.IntegerField()
    extractive = serializers.IntegerField()
    direct = serializers.IntegerField()
    error = serializers.IntegerField()


class PercentilesSerializer(serializers.Serializer):
    p50 = serializers.FloatField(allow_null=True)
    p95 = serializers.FloatField(allow_null=True)


class FiguresSerializer(serializers.Serializer):
    questions = serializers.IntegerField(help_text="Frågor (varje tur i chatten eller /context).")
    by_intent = IntentCountsSerializer()
    by_answer_mode = AnswerModeCountsSerializer()
    retrieving = serializers.IntegerField(help_text="Frågor som sökte i källorna (inte hälsningar eller metafrågor).")
    zero_match = serializers.IntegerField()
    zero_match_rate = serializers.FloatField(allow_null=True, help_text="Andel av de sökande frågorna, 0–1.")
    cache_hit_rate = serializers.FloatField(allow_null=True, help_text="Andel av de sökande frågorna, 0–1.")
    degraded = serializers.IntegerField()
    degraded_rate = serializers.FloatField(allow_null=True, help_text="Andel av alla frågor, 0–1.")
    retrieval_ms = PercentilesSerializer(help_text="Sökningens tid (cacheträffar och överhoppade ej medräknade).")
    total_ms = PercentilesSerializer(help_text="Hela steget före modellen.")
    sources_considered_avg = serializers.FloatField(allow_null=True)
    sources_included_avg = serializers.FloatField(allow_null=True)
    context_tokens_avg = serializers.FloatField(allow_null=True)


class DayFiguresSerializer(FiguresSerializer):
    date = serializers.DateField()


class BadAnswerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    comment = serializers.CharField()
    created_at = serializers.DateTimeField()
    message_id = serializers.IntegerField()
    conversation_id = serializers.IntegerField()
    workspace_slug = serializers.CharField()
    answer = serializers.CharField(help_text="Svarets början.")


class FeedbackFiguresSerializer(serializers.Serializer):
    good = serializers.IntegerField()
    bad = serializers.IntegerField()
    good_share = serializers.FloatField(allow_null=True)
    bad_share = serializers.FloatField(allow_null=True)
    latest_bad = BadAnswerSerializer(many=True)


class FoundNothingSerializer(serializers.Serializer):
    question = serializers.CharField()
    count = serializers.IntegerField()
    last_at = serializers.DateTimeField()
    conversation_id = serializers.IntegerField(allow_null=True)
    workspace_slug = serializers.CharField()


class QuestionWordSerializer(serializers.Serializer):
    word = serializers.CharField(help_text="Ordet med gemener.")
    count = serializers.IntegerField(help_text="Antal frågor med ordet.")
    last_at = serializers.DateTimeField()
    workspace_slug = serializers.CharField()


class MetricsSerializer(serializers.Serializer):
    days = serializers.IntegerField()
    start = serializers.DateField()
    end = serializers.DateField()
    totals = FiguresSerializer()
    daily = DayFiguresSerializer(many=True)
    feedback = FeedbackFiguresSerializer()
    found_nothing = FoundNothingSerializer(many=True, help_text="Frågor utan träff, vanligast först.")
    unknown_words = QuestionWordSerializer(many=True, help_text="Frågornas ord som ingen källa använder, vanligast "
                                                               "först: det kunskapsbasen saknar eller kallar något annat.")
    glossary_words = QuestionWordSerializer(many=True, help_text="Ordlistans begrepp som frågorna använde (och som "
                                                                "därför söktes även på lagens ord), vanligast först.")


class WorkspaceMetricsApi(WorkspaceMixin, BaseApi):
    @extend_schema(tags=["workspaces"], summary="Översiktens siffror (ägare)", parameters=[MetricsQuerySerializer],
                   responses=MetricsSerializer,
                   description="Samma siffror som sidan Översikt. Bara arbetsytans ägare; andra får 404.")
    def get(self, request: Request, slug: str) -> Response:
        if not self.membership.can_manage:
            raise Http404("Arbetsytan finns inte.")
        days = validated(MetricsQuerySerializer, request.query_params)["days"]
        return Response(MetricsSerializer(retrieval_stats_cached(workspace_ids=[self.workspace.pk], days=days)).data)
