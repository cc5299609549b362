"""The dashboard pages: a workspace's for its owners, every workspace's for staff. Wiring: agent.monitoring.dashboard counts."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from agent.models import Message
from agent.selectors import conversation_get_in_workspace
from compliance.models import Membership, Workspace
from compliance.selectors import membership_get_by_slug
from glossary.selectors import words_taught

from .dashboard import (
    ANSWER_MODES,
    DEFAULT_PERIOD,
    INTENTS,
    PERIODS,
    retrieval_stats_cached,
)

PERIOD_ERROR = "Ogiltig period: välj 7, 30 eller 90 dagar."
INTENT_LABELS = {"greeting": "Hälsning", "meta": "Om assistenten", "factual": "Faktafråga", "task": "Uppgift"}
MODE_LABELS = {"model": "Språkmodell", "extractive": "Utdrag ur källor", "direct": "Direkt svar", "error": "Fel"}


def owned_membership(user: AbstractBaseUser, slug: str) -> Membership:
    """The user's membership in the workspace `slug` if it may manage it; members who may not get the same
    404 as outsiders."""
    membership = membership_get_by_slug(user, slug)
    if not membership.can_manage:
        raise Http404("Arbetsytan finns inte.")
    return membership


@dataclass(frozen=True)
class _Period:
    """The number of days the page shows, and the message to show when the asked period was not one of
    PERIODS (the default period is shown then, with status 400)."""

    days: int
    error: str = ""


def _period(request: HttpRequest) -> _Period:
    raw = request.GET.get("dagar", "")
    if raw == "":
        return _Period(DEFAULT_PERIOD)
    if raw.isdigit() and int(raw) in PERIODS:
        return _Period(int(raw))
    return _Period(DEFAULT_PERIOD, error=PERIOD_ERROR)


def _render(request: HttpRequest, *, stats: dict, period: _Period, workspace: Workspace | None = None,
            membership: Membership | None = None,
            conversation_url: Callable[[str, int, int | None], str]) -> HttpResponse:
    for row in stats["feedback"]["latest_bad"]:
        row["url"] = conversation_url(row["workspace_slug"], row["conversation_id"], row["message_id"])
    for row in stats["found_nothing"]:
        row["url"] = conversation_url(row["workspace_slug"], row["conversation_id"], None) \
            if row["conversation_id"] else ""
    chart_data = {
        "intents": [[i, INTENT_LABELS[i]] for i in INTENTS], "modes": [[m, MODE_LABELS[m]] for m in ANSWER_MODES],
        "daily": stats["daily"],
    }
    return render(request, "agent/dashboard.html", {
        "workspace": workspace, "membership": membership, "nav": "dashboard", "stats": stats, "days": period.days,
        "periods": PERIODS, "period_error": period.error, "chart_json": json.dumps(chart_data),
        "intent_labels": INTENT_LABELS, "mode_labels": MODE_LABELS, "intents": INTENTS, "modes": ANSWER_MODES,
    }, status=400 if period.error else 200)


@login_required
@require_GET
def workspace_dashboard(request: HttpRequest, slug: str) -> HttpResponse:
    membership = owned_membership(request.user, slug)
    workspace = membership.workspace
    period = _period(request)
    stats = retrieval_stats_cached(workspace_ids=[workspace.pk], days=period.days)
    # Read now, not with the cached figures: a word the team has just taught shows as taught at once.
    taught = words_taught(workspace, [row["word"] for row in stats["unknown_words"]])
    for row in stats["unknown_words"]:
        row["taught"] = row["word"] in taught

    def conversation_url(ws_slug: str, conversation_id: int, message_id: int | None) -> str:
        url = reverse("dashboard_conversation", args=[ws_slug, conversation_id])
        return f"{url}#msg-{message_id}" if message_id else url

    return _render(request, stats=stats, period=period, workspace=workspace, membership=membership,
                   conversation_url=conversation_url)


@login_required
@require_GET
def staff_dashboard(request: HttpRequest) -> HttpResponse:
    if not request.user.is_staff:
        raise Http404
    period = _period(request)
    stats = retrieval_stats_cached(workspace_ids=None, days=period.days)

    def conversation_url(ws_slug: str, conversation_id: int, message_id: int | None) -> str:
        return reverse("admin:agent_conversation_change", args=[conversation_id])

    return _render(request, stats=stats, period=period, conversation_url=conversation_url)


@login_required
@require_GET
def dashboard_conversation(request: HttpRequest, slug: str, conversation_id: int) -> HttpResponse:
    """A read-only transcript of any conversation in the workspace, for its owners (reached from the dashboard)."""
    membership = owned_membership(request.user, slug)
    workspace = membership.workspace
    conversation = conversation_get_in_workspace(workspace, conversation_id)
    messages = conversation.messages.prefetch_related("feedback").order_by("created_at", "id")
    return render(request, "agent/dashboard_conversation.html", {
        "workspace": workspace, "membership": membership, "nav": "dashboard", "conversation": conversation,
        "chat_messages": messages, "assistant": Message.Role.ASSISTANT,
    })
