"""The settings page's lagbevakning section: the member's e-mail digest setting (posted to register.notices)."""

from __future__ import annotations

from django import template

from compliance.models import Workspace

from ..notices.forms import SubscriptionForm
from ..notices.selectors import notice_subscription_get

register = template.Library()


@register.inclusion_tag("register/notices/_subscription.html", takes_context=True)
def notice_subscription_section(context: template.Context, workspace: Workspace) -> dict:
    subscription = notice_subscription_get(workspace, context["request"].user)
    return {"workspace": workspace, "csrf_token": context.get("csrf_token"),
            "form": SubscriptionForm(initial=SubscriptionForm.initial_from(subscription))}
