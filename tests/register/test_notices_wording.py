"""A change notice reads the same wherever it is shown (register.notices.wording): the Lagändringar page, the
notice's own page, the e-mail digest, the report and the assistant's answer about the workspace's changes. An
amendment's day is "gäller från", never "i kraft" (the day may still be to come); a repeal names its act, its
day and the loaded act replacing it.

The digest is sent at a fixed Stockholm instant, so the test is right at any hour the suite runs."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from agent.answering import chat
from compliance.clock import STOCKHOLM
from register.models import ChangeNotice
from register.notices.digests import digests_send
from law.models import StatuteChange
from register.notices.wording import notice_act_text, notice_line, notice_units_text
from tests.law.sfs_records_fixtures import OLD_TEXT, record
from tests.register.notices_fixtures import statute_with_text, sync_records, workspace_with

pytestmark = [pytest.mark.django_db, pytest.mark.clock]

MONDAY_MORNING = datetime(2026, 11, 23, 8, 0, tzinfo=STOCKHOLM)


def _surfaces(client: Client, notice: ChangeNotice, user: User) -> dict[str, str]:
    """The notice as each surface shows it, with the HTML pages' text as served."""
    slug = notice.workspace.slug
    report = client.get(reverse("notice_report", args=[slug, "csv"])).content.decode("utf-8-sig")
    (row,) = [r for r in csv.DictReader(io.StringIO(report))
              if r["beteckning"] == notice.legal_document.sfs_number]
    conversation = chat.conversation_create(workspace=notice.workspace, user=user)
    return {
        "list": client.get(reverse("notice_list", args=[slug])).content.decode(),
        "detail": client.get(reverse("notice_detail", args=[slug, notice.pk])).content.decode(),
        "report": row["andring"],
        "report_units": row["enheter_per_typ"],
        "chat": chat.answer(conversation, user, "Vilka ändringar har vi inte bedömt?").content,
    }


@pytest.fixture
def logged_in(client: Client, settings: Settings, clean_queue: None, tmp_path: Path) -> Client:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    settings.SITE_URL = "https://lagrum.example.se"
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    return client


def test_an_amendment_reads_the_same_on_every_surface(logged_in: Client, tmp_path: Path) -> None:
    with time_machine.travel(MONDAY_MORNING, tick=False) as clock:
        doc = statute_with_text("2099:1", "Lag (2099:1) om provföretag", OLD_TEXT, amended_through="SFS 2099:5")
        ws, alice, _ = workspace_with("Alices AB", owner_name="alice", documents=[doc])
        clock.shift(timedelta(minutes=1))  # the statute changes after it was put on the laglista
        sync_records(tmp_path, [record("2099:1")])
        notice = ChangeNotice.objects.get(workspace=ws)
        logged_in.force_login(alice)
        surfaces = _surfaces(logged_in, notice, alice)
        assert digests_send().sent == 1
    (message,) = mail.outbox

    act = notice_act_text(notice)
    # The version brings two acts' changes (2 § by SFS 2099:10, 6 § by SFS 2099:11), not one; its day is the last
    # act's, from the record and still to come.
    assert notice.act_count == 2
    assert act == "ändrad genom 2 författningar t.o.m. SFS 2099:11, den senaste gäller från 2100-07-01"
    sentence = act[0].upper() + act[1:]  # capfirst
    assert f"{sentence}:" in surfaces["list"] and f"{sentence}." in surfaces["detail"]
    assert surfaces["report"] == act
    assert f"Lag (2099:1) om provföretag: {notice_line(notice)} (inte bedömd)" in surfaces["chat"]
    assert f"Lag (2099:1) om provföretag: {notice_line(notice)}" in message.body
    assert notice_line(notice).startswith(act)
    for text in (*surfaces.values(), message.body):
        assert "i kraft 2100-07-01" not in text

    # The units by kind, as the diff recorded them: a repealed § is not called amended anywhere.
    kinds = list(StatuteChange.objects.filter(to_version=notice.version).values_list("kind", flat=True))
    assert notice.unit_counts == {kind: kinds.count(kind) for kind in StatuteChange.Kind.values if kind in kinds}
    assert notice.unit_counts["REPEALED"] == 1 and sum(notice.unit_counts.values()) == notice.change_count
    units = notice_units_text(notice)
    assert units == (f"{notice.change_count} enheter ({notice.unit_counts['AMENDED']} ändrad, "
                     f"{notice.unit_counts['ADDED']} nya, 1 upphävd och 1 med ny beteckning)")
    assert f"{sentence}: {units}." in surfaces["list"] and f"{sentence}. {units[0].upper()}{units[1:]}" in surfaces[
        "detail"]
    assert surfaces["report_units"] == units
    assert notice_line(notice).startswith(f"{act}; {units}") and notice_line(notice) in message.body


def test_a_repeal_names_its_act_its_day_and_its_successor_on_every_surface(logged_in: Client,
                                                                          tmp_path: Path) -> None:
    with time_machine.travel(MONDAY_MORNING, tick=False) as clock:
        old = statute_with_text("2099:1", "Lag (2099:1) om provföretag", OLD_TEXT, amended_through="SFS 2099:5")
        statute_with_text("2099:99", "Lag (2099:99) om nya prov", "1 § Ny lag.")
        ws, alice, _ = workspace_with("Provbolaget", owner_name="prov", documents=[old])
        clock.shift(timedelta(minutes=1))
        sync_records(tmp_path, [record("2099:1", repealed_on="2100-01-01T00:00:00", repealed_by="SFS 2099:99")])
        notice = ChangeNotice.objects.get(workspace=ws)
        logged_in.force_login(alice)
        surfaces = _surfaces(logged_in, notice, alice)
        assert digests_send().sent == 1
    (message,) = mail.outbox

    assert notice_act_text(notice) == "upphävd genom SFS 2099:99, den 2100-01-01"
    line = "upphävd genom SFS 2099:99, den 2100-01-01; ersätts av Lag (2099:99) om nya prov"
    assert notice_line(notice) == line
    assert "Upphävd genom SFS 2099:99, den 2100-01-01." in surfaces["list"]
    assert "Upphävd genom SFS 2099:99, den 2100-01-01." in surfaces["detail"]
    assert surfaces["report"] == line
    assert f"Lag (2099:1) om provföretag: {line} (inte bedömd)" in surfaces["chat"]
    assert f"Lag (2099:1) om provföretag: {line}" in message.body


@pytest.mark.parametrize(("counts", "total", "text"), [
    ({"AMENDED": 3}, 3, "3 ändrade enheter"),
    ({"AMENDED": 1}, 1, "1 ändrad enhet"),
    ({"ADDED": 1}, 1, "1 ny enhet"),
    ({"REPEALED": 2}, 2, "2 upphävda enheter"),
    ({"RENUMBERED": 1}, 1, "1 enhet med ny beteckning"),
    ({"ADDED": 1, "AMENDED": 3, "REPEALED": 1}, 5, "5 enheter (3 ändrade, 1 ny och 1 upphävd)"),
    ({"AMENDED": 1, "REPEALED": 2}, 3, "3 enheter (1 ändrad och 2 upphävda)"),
    ({}, 4, "4 enheter berörs"),  # counted before the kinds were: the count alone, no kind claimed
    ({"AMENDED": 3}, 4, "4 enheter berörs"),  # a breakdown that does not add up is not shown
    ({}, 0, ""),
])
def test_the_units_are_named_by_kind(counts: dict[str, int], total: int, text: str) -> None:
    notice = ChangeNotice(kind=ChangeNotice.Kind.AMENDED, change_count=total, unit_counts=counts)
    assert notice_units_text(notice) == text
