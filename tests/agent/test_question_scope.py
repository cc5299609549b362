"""A question asked again reuses its analysis, and only while nothing it depends on has changed."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine

from agent.retrieval.question_scope import question_scope
from compliance.models import LegalDocument
from tests.helpers import alice_owning_a_workspace

pytestmark = pytest.mark.django_db

STOCKHOLM = ZoneInfo("Europe/Stockholm")


def test_a_question_asked_again_gets_an_analysis_of_its_own() -> None:
    alice, ws = alice_owning_a_workspace()
    LegalDocument.objects.create(sfs_number="2099:11", title="Lag (2099:11) om zebrahägn")
    question = "Vad säger 3 § lagen om zebrahägn om stängslets höjd?"
    first = question_scope(question, [], alice, ws).analysis
    assert first.sfs_numbers == ["2099:11"] and "stängslets" in first.keywords
    first.keywords.append("tillagt av en tur")
    first.sfs_numbers.clear()

    second = question_scope(question, [], alice, ws).analysis
    assert "tillagt av en tur" not in second.keywords and second.sfs_numbers == ["2099:11"]
    # Reused, not analysed again: the (frozen) reference is the very one the first turn got.
    assert second.references[0] is first.references[0]
    assert question_scope(question, [], alice, ws).analysis == second


def test_a_statute_loaded_between_two_askings_is_recognised_the_second_time() -> None:
    alice, ws = alice_owning_a_workspace()
    question = "Vad säger lagen om giraffhägn om stängslets höjd?"
    assert question_scope(question, [], alice, ws).analysis.sfs_numbers == []

    LegalDocument.objects.create(sfs_number="2099:12", title="Lag (2099:12) om giraffhägn")
    assert question_scope(question, [], alice, ws).analysis.sfs_numbers == ["2099:12"]


def test_the_same_words_after_other_ones_are_analysed_as_a_follow_up() -> None:
    alice, ws = alice_owning_a_workspace()
    alone = question_scope("och uppsägningstiden?", [], alice, ws).analysis
    after = question_scope("och uppsägningstiden?", ["Vad gäller för semester enligt semesterlagen?"],
                           alice, ws).analysis
    assert not alone.is_follow_up and after.is_follow_up
    assert "semester" in after.keywords and "semester" not in alone.keywords


def test_last_month_follows_the_day_the_question_is_asked() -> None:
    alice, ws = alice_owning_a_workspace()
    question = "Vilka regler ändrades förra månaden?"
    with time_machine.travel(datetime(2026, 3, 10, 12, tzinfo=STOCKHOLM), tick=False):
        march = question_scope(question, [], alice, ws).analysis.dates
    with time_machine.travel(datetime(2026, 4, 10, 12, tzinfo=STOCKHOLM), tick=False):
        april = question_scope(question, [], alice, ws).analysis.dates
    assert (march.start, march.end) == (date(2026, 2, 1), date(2026, 2, 28))
    assert (april.start, april.end) == (date(2026, 3, 1), date(2026, 3, 31))
