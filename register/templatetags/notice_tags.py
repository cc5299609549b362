"""Lagbevakning in templates: the settings page's e-mail digest section (posted to register.notices), and a
change notice in the words of `register.notices.wording`."""

from __future__ import annotations

from django import template

from compliance.models import Workspace

from ..models import ChangeNotice
from ..notices.forms import SubscriptionForm
from ..notices.selectors import ComingChange, notice_subscription_get
from ..notices.wording import (
    notice_act_text,
    notice_line,
    notice_off_list_text,
    notice_subject_text,
    notice_units_text,
)

register = template.Library()


@register.inclusion_tag("register/notices/_subscription.html", takes_context=True)
def notice_subscription_section(context: template.Context, workspace: Workspace) -> dict:
    subscription = notice_subscription_get(workspace, context["request"].user)
    return {"workspace": workspace, "csrf_token": context.get("csrf_token"),
            "form": SubscriptionForm(initial=SubscriptionForm.initial_from(subscription))}


@register.filter
def notice_act(notice: ChangeNotice) -> str:
    """"ändrad genom SFS 2025:1142, gäller från 2026-01-01" (`notice_act_text`)."""
    return notice_act_text(notice)


@register.filter(name="notice_line")
def notice_line_filter(notice: ChangeNotice) -> str:
    """The notice in one line of running text (`notice_line`)."""
    return notice_line(notice)


@register.filter
def notice_units(notice: ChangeNotice) -> str:
    """"5 enheter (3 ändrade, 1 ny och 1 upphävd)" (`notice_units_text`)."""
    return notice_units_text(notice)


@register.filter
def notice_subject(notice: ChangeNotice) -> str:
    """Why a new statute is suggested: "hänvisar till … på er laglista" (`notice_subject_text`), or ""."""
    return notice_subject_text(notice)


@register.filter
def notice_off_list(notice: ChangeNotice) -> str:
    """Why an unlisted document's notice is there, or "" (`notice_off_list_text`)."""
    return notice_off_list_text(notice)


@register.filter
def coming_path(change: ComingChange, slug: str) -> str:
    """Where a coming change is read (`ComingChange.path`)."""
    return change.path(slug)
