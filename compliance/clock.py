"""Which day it is, for every rule that counts in days.

Lagrum's days are Stockholm's calendar days: Swedish law enters into force at midnight Swedish time, a
Swedish user's "i dag" and "förra året" are Swedish, and so are the dashboard's days. The UTC day is an
hour (winter) or two (summer) behind, so for those hours each night the two disagree; no rule uses it.
Rules that count in time rather than days (retention, lockouts, token use, embedding recovery) compare
instants and need no calendar. Tests move the clock with time-machine (tests/clocks.py).
"""

from __future__ import annotations

from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from django.utils import timezone

STOCKHOLM = ZoneInfo("Europe/Stockholm")


def swedish_date(moment: datetime) -> date:
    """The Stockholm calendar day of an instant."""
    return timezone.localdate(moment, STOCKHOLM)


def swedish_today() -> date:
    return swedish_date(timezone.now())


def swedish_midnight(day: date) -> datetime:
    """The instant a Stockholm day begins (midnight exists on DST days too: the clocks change at 02:00/03:00)."""
    return datetime.combine(day, time.min, tzinfo=STOCKHOLM)
