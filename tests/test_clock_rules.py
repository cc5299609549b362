"""Every rule that reads today or now, at each fixed clock of tests/clocks.py.

Day rules use the Stockholm calendar day (compliance/clock.py); time rules compare instants. Each test
travels to its clock itself, so these run in every suite run whatever the hour; the clock-marked tests
elsewhere are also run with the whole run's clock moved (`make test`).
"""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from agent.models import RetrievalLog
from agent.monitoring.dashboard import retrieval_stats, retrieval_stats_cached, rollup_through
from agent.monitoring.retrieval_logs import retrieval_log_prune
from agent.retrieval.dating import date_sources, in_force_on, statute_status
from agent.retrieval.query_analysis import analyse_query
from agent.retrieval.sources import RetrievedChunk
from compliance.clock import STOCKHOLM, swedish_date, swedish_midnight, swedish_today
from compliance.models import UserFile, Workspace
from compliance.templatetags.lagrum_time import relative_time
from tests.clocks import CLOCKS
from tests.helpers import PASSWORD, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.clock]

clocks = pytest.mark.parametrize("clock", list(CLOCKS.values()), ids=list(CLOCKS))


def log_at(workspace: Workspace, moment: datetime, **fields: Any) -> RetrievalLog:
    log = RetrievalLog.objects.create(workspace=workspace, query=fields.pop("query", "Fråga"),
                                      intent=fields.pop("intent", "factual"), **fields)
    RetrievalLog.objects.filter(pk=log.pk).update(created_at=moment)
    return log


@pytest.fixture
def workspace() -> Workspace:
    return Workspace.objects.create(name="Klockans AB", slug="klockans-ab")


def test_the_clocks_are_what_they_say() -> None:
    utc = {name: moment.astimezone(STOCKHOLM).utcoffset() for name, moment in CLOCKS.items()}
    assert utc["just-after-midnight"] == timedelta(hours=1)  # winter: UTC is still the day before
    assert CLOCKS["just-after-midnight"].astimezone(UTC).date() == date(2026, 11, 24)
    assert utc["late-evening"] == timedelta(hours=2)  # summer
    assert utc["dst-spring"] == timedelta(hours=2)  # after the change to CEST
    assert utc["dst-autumn"] == timedelta(hours=1)  # the second 02:30, in CET

    def hours_in(day: date) -> timedelta:  # through UTC: same-zone subtraction ignores the change
        return swedish_midnight(day + timedelta(days=1)).astimezone(UTC) - swedish_midnight(day).astimezone(UTC)

    assert hours_in(swedish_date(CLOCKS["dst-spring"])) == timedelta(hours=23)
    assert hours_in(swedish_date(CLOCKS["dst-autumn"])) == timedelta(hours=25)


@clocks
def test_today_is_the_stockholm_calendar_day(clock: datetime) -> None:
    with time_machine.travel(clock, tick=False):
        assert swedish_today() == clock.date()
        # By timestamp: Python never calls an ambiguous fold=1 time equal to one in another zone.
        assert timezone.now().timestamp() == clock.timestamp()


@clocks
def test_the_dashboards_days_are_stockholm_days(clock: datetime, workspace: Workspace) -> None:
    """A turn asked now counts on today's row; one a second before Stockholm midnight on yesterday's;
    the 7-day period starts at Stockholm midnight six days ago."""
    with time_machine.travel(clock, tick=False):
        today = clock.date()
        log_at(workspace, timezone.now(), query="nu")
        log_at(workspace, swedish_midnight(today) - timedelta(seconds=1), query="i går kväll")
        log_at(workspace, swedish_midnight(today), query="vid midnatt")
        stats = retrieval_stats(workspace_ids=[workspace.pk], days=7)
        daily = {row["date"]: row["questions"] for row in stats["daily"]}
        assert stats["end"] == today.isoformat()
        assert stats["start"] == (today - timedelta(days=6)).isoformat()
        assert daily[today.isoformat()] == 2
        assert daily[(today - timedelta(days=1)).isoformat()] == 1
        assert sum(daily.values()) == 3


@clocks
def test_closed_days_are_rolled_up_15_minutes_after_stockholm_midnight(clock: datetime, workspace: Workspace) -> None:
    with time_machine.travel(clock, tick=False):
        today = clock.date()
        for n in range(4):
            log_at(workspace, swedish_midnight(today - timedelta(days=n)) + timedelta(minutes=5), query=f"dag {n}")
        log_at(workspace, timezone.now(), query="nu")
        through = rollup_through()
        # Yesterday is closed only once today is 15 minutes old.
        closed = today - timedelta(days=1) if timezone.now() - swedish_midnight(today) >= timedelta(minutes=15) \
            else today - timedelta(days=2)
        assert through == closed
        assert retrieval_stats(workspace_ids=[workspace.pk], days=7) == \
            retrieval_stats(workspace_ids=[workspace.pk], days=7, rollup=False)


@clocks
def test_cached_figures_move_to_the_next_day_at_stockholm_midnight(clock: datetime, workspace: Workspace) -> None:
    with time_machine.travel(clock, tick=False) as traveller:
        log_at(workspace, timezone.now())
        before = retrieval_stats_cached(workspace_ids=[workspace.pk], days=7)
        assert before["end"] == clock.date().isoformat()
        traveller.move_to(swedish_midnight(clock.date() + timedelta(days=1)) + timedelta(seconds=1))
        after = retrieval_stats_cached(workspace_ids=[workspace.pk], days=7)
        assert after["end"] == (clock.date() + timedelta(days=1)).isoformat()
        assert after["daily"][-2]["questions"] == 1  # the turn is now yesterday's


@clocks
def test_retention_counts_whole_days_of_time_not_calendar_days(clock: datetime, workspace: Workspace) -> None:
    with time_machine.travel(clock, tick=False):
        cutoff = timezone.now() - timedelta(days=30)
        old = log_at(workspace, cutoff - timedelta(seconds=1), query="gammal")
        kept = log_at(workspace, cutoff + timedelta(seconds=1), query="kvar")
        assert retrieval_log_prune(days=30) == 1
        assert list(RetrievalLog.objects.values_list("pk", flat=True)) == [kept.pk]
        assert not RetrievalLog.objects.filter(pk=old.pk).exists()


@clocks
def test_date_words_in_questions_mean_stockholm_days(clock: datetime) -> None:
    with time_machine.travel(clock, tick=False):
        today = clock.date()
        assert analyse_query("Vad har vi laddat upp i dag?").dates.start == today
        yesterday = analyse_query("Vilka filer kom i går?").dates
        assert (yesterday.start, yesterday.end) == (today - timedelta(days=1),) * 2
        last_year = analyse_query("Vad ändrades förra året?").dates
        assert (last_year.start, last_year.end) == (date(today.year - 1, 1, 1), date(today.year - 1, 12, 31))
        half_year = analyse_query("Vad har hänt de senaste 6 månaderna?").dates
        assert half_year.end == today
        # Calendar months, clamped to the month's end (29 February - 6 months = 29 August).
        months = today.year * 12 + today.month - 1 - 6
        assert (half_year.start.year, half_year.start.month) == (months // 12, months % 12 + 1)
        assert half_year.start.day == min(today.day, calendar.monthrange(half_year.start.year,
                                                                         half_year.start.month)[1])


def statute_chunk(header: str) -> RetrievedChunk:
    return RetrievedChunk(chunk_id=1, source_type="LEGAL_DOCUMENT", source_id=1, document_number="1977:1160",
                          document_title="Arbetsmiljölag", header=header, path="1", ordinal=0, citation="",
                          text="t", token_count=1, score=1.0)


@clocks
def test_a_section_enters_into_force_at_stockholm_midnight(clock: datetime) -> None:
    with time_machine.travel(clock, tick=False):
        today = swedish_today()
        starts_today = statute_chunk(f"1 kap. > 7 § (träder i kraft {today.isoformat()})")
        starts_tomorrow = statute_chunk(f"1 kap. > 7 § (träder i kraft {(today + timedelta(days=1)).isoformat()})")
        ends_today = statute_chunk(f"1 kap. > 7 § (upphör att gälla {today.isoformat()})")
        assert in_force_on(starts_today, today) and not in_force_on(starts_tomorrow, today)
        assert not in_force_on(ends_today, today)
        assert statute_status(starts_today, today) == f"i kraft sedan {today.isoformat()}"
        assert statute_status(starts_tomorrow, today).startswith("träder i kraft ")


@clocks
def test_a_files_card_date_is_its_stockholm_upload_day(clock: datetime, workspace: Workspace) -> None:
    alice = make_user("alice")
    with time_machine.travel(clock, tick=False):
        f = UserFile.objects.create(workspace=workspace, title="f", original_name="f.txt", file="x",
                                    uploaded_by=alice)
        chunk = RetrievedChunk(chunk_id=1, source_type="USER_FILE", source_id=f.pk, document_number="",
                               document_title="f", header="f", path="0", ordinal=0, citation="", text="t",
                               token_count=1, score=0.5)
        [dated] = date_sources([chunk], None, swedish_today())
        assert dated.source_date == clock.date().isoformat()


@clocks
def test_relative_times_count_elapsed_time_across_dst(clock: datetime) -> None:
    with time_machine.travel(clock, tick=False):
        assert relative_time(timezone.now() - timedelta(minutes=5)) == "för 5\u00a0minuter sedan"
        assert relative_time(timezone.now() - timedelta(hours=2)) == "för 2\u00a0timmar sedan"


@clocks
@override_settings(AXES_FAILURE_LIMIT=2, AXES_COOLOFF_TIME=timedelta(minutes=15))
def test_a_lockout_lasts_its_minutes_whatever_the_wall_clock_does(clock: datetime, client: Client) -> None:
    make_user("alice")
    login = reverse("login")
    with time_machine.travel(clock, tick=False) as traveller:
        for _ in range(2):
            client.post(login, {"username": "alice", "password": "fel"}, REMOTE_ADDR="10.0.0.1")
        traveller.shift(timedelta(minutes=14))
        assert client.post(login, {"username": "alice", "password": PASSWORD},
                           REMOTE_ADDR="10.0.0.2").status_code == 429
        traveller.shift(timedelta(minutes=2))
        assert client.post(login, {"username": "alice", "password": PASSWORD},
                           REMOTE_ADDR="10.0.0.2").status_code == 302


def test_make_test_runs_the_clock_tests_before_noon_and_around_midnight() -> None:
    makefile = (settings.BASE_DIR / "Makefile").read_text()
    [line] = [line for line in makefile.splitlines() if line.startswith("FIXED_CLOCKS ?=")]
    names = line.split("?=")[1].split()
    assert set(names) <= set(CLOCKS)
    assert any(CLOCKS[name].hour < 12 for name in names)
    assert any(CLOCKS[name].astimezone(UTC).date() != CLOCKS[name].date() for name in names)
    assert "--clock $$clock" in makefile
