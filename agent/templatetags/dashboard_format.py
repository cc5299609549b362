"""Swedish number formats for the dashboard: 12,5 %, 48 ms, – for no data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

register = template.Library()

NO_DATA = "–"


def _number(value: float, digits: int) -> str:
    return f"{value:.{digits}f}".replace(".", ",")


@register.filter
def percent(value: float | None) -> str:
    return NO_DATA if value is None else f"{_number(value * 100, 1)} %"


@register.filter
def ms(value: float | None) -> str:
    return NO_DATA if value is None else f"{_number(value, 0 if value >= 100 else 1)} ms"


@register.filter
def decimal(value: float | None) -> str:
    return NO_DATA if value is None else _number(value, 1)


@register.filter
def get(mapping: Mapping[str, Any], key: str) -> Any:
    return mapping.get(key)
