"""Relative times in Swedish as people say them: "för 5 minuter sedan"."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.contrib.humanize.templatetags.humanize import naturaltime

register = template.Library()


@register.filter
def relative_time(value: datetime) -> str:
    """Django's naturaltime; its Swedish "5 minuter sedan" gets the "för" that Swedish puts before it."""
    text = str(naturaltime(value))
    return f"för {text}" if text.endswith(" sedan") and not text.startswith("för ") else text
