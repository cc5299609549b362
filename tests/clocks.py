"""Fixed clocks for every rule that reads today or now.

Each is an instant in Stockholm time where a day-based rule could go wrong: the two hours each night
when the Stockholm day and the UTC day differ (just after midnight, late evening), the DST changes
(the last Sundays of March and October: a 23-hour and a 25-hour day), the turn of the year and a leap
day. Tests travel to them with time-machine; `pytest -m clock --clock NAME` runs every clock-marked
test with the whole run's clock starting there (`make test` does it for two of them).
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

STOCKHOLM = ZoneInfo("Europe/Stockholm")

CLOCKS: dict[str, datetime] = {
    # 00:00:30 in Stockholm is still the previous day in UTC (23:00:30).
    "just-after-midnight": datetime(2026, 11, 25, 0, 0, 30, tzinfo=STOCKHOLM),
    # Before noon: the seeded "today at noon" bug of the dashboard test showed only here.
    "morning": datetime(2026, 11, 25, 9, 0, tzinfo=STOCKHOLM),
    # Stockholm's day ends an hour (winter) or two (summer) before UTC's.
    "late-evening": datetime(2026, 6, 17, 23, 55, tzinfo=STOCKHOLM),
    # 29 March 2026: 02:00 CET became 03:00 CEST, the day has 23 hours.
    "dst-spring": datetime(2026, 3, 29, 3, 30, tzinfo=STOCKHOLM),
    # 25 October 2026: 03:00 CEST became 02:00 CET; this is the second 02:30 (fold=1), the day has 25 hours.
    "dst-autumn": datetime(2026, 10, 25, 2, 30, fold=1, tzinfo=STOCKHOLM),
    # The last minutes of the year: "förra året" and "i år" are about to change.
    "new-year": datetime(2026, 12, 31, 23, 55, tzinfo=STOCKHOLM),
    "leap-day": datetime(2028, 2, 29, 12, 0, tzinfo=STOCKHOLM),
}
