"""E-mail digests through Django's e-mail backend (the locmem outbox): once per member, workspace and period,
reminding of what is still unanswered, never listing another workspace's items, retried after a failed send.

The tests travel to fixed Stockholm instants (a Monday morning and the days after), so they are right at any
hour the suite runs."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path
from smtplib import SMTPException
from typing import Any, Never

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core import mail
from django.core.mail import EmailMessage
from django.core.mail.backends.base import BaseEmailBackend
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pytest_django import Settings

from compliance.clock import STOCKHOLM
from compliance.models import Membership
from compliance.services import LegalDocumentData, legal_document_upsert
from register.models import ChangeNotice, DigestSent, LegalRegister, NoticeSubscription, RegisterItem
from register.notices.digests import digest_period, digests_send
from register.notices.services import notice_answer, notice_subscription_save
from tests.law.sfs_records_fixtures import OLD_TEXT, provforetag_statute, record
from tests.register.notices_fixtures import member, statute_with_new_version, sync_records, workspace_with

pytestmark = [pytest.mark.django_db, pytest.mark.clock]

MONDAY_MORNING = datetime(2026, 11, 23, 8, 0, tzinfo=STOCKHOLM)


class FailingBackend(BaseEmailBackend):
    """An SMTP server that refuses: the send raises, as smtplib does."""

    def send_messages(self, messages: Sequence[EmailMessage]) -> Never:
        raise SMTPException("451 try again later")


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    with time_machine.travel(MONDAY_MORNING, tick=False) as traveller:
        yield traveller


@pytest.fixture
def setup(clock: time_machine.Traveller, clean_queue: None, settings: Settings, tmp_path: Path) -> dict[str, Any]:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    settings.SITE_URL = "https://lagrum.example.se"
    doc = provforetag_statute()
    alice_ws, alice, _ = workspace_with("Alices AB", owner_name="alice", documents=[doc])
    charlie_ws, charlie, _ = workspace_with("Charlies AB", owner_name="charlie", documents=[doc])
    clock.shift(timedelta(minutes=1))  # the statute changes after it was put on the laglistor
    sync_records(tmp_path, [record("2099:1")])
    clock.shift(timedelta(minutes=1))
    return {"alice_ws": alice_ws, "alice": alice, "charlie_ws": charlie_ws, "charlie": charlie,
            "notice": ChangeNotice.objects.get(workspace=alice_ws),
            "charlies_notice": ChangeNotice.objects.get(workspace=charlie_ws)}


def mails_to(user: User) -> list[EmailMessage]:
    return [m for m in mail.outbox if m.to == [user.email]]


def test_the_digest_lands_once_with_absolute_links_and_only_its_workspace(setup: dict[str, Any]) -> None:
    result = digests_send()

    assert result.sent == 2 and result.failed == 0  # alice's and charlie's, each of their own workspace
    (message,) = mails_to(setup["alice"])
    notice = setup["notice"]
    assert message.subject == "Lagrum: 1 nya lagändringar i Alices AB"
    assert "Lag (2099:1) om provföretag: ändrad genom 2 författningar t.o.m. SFS 2099:11" in message.body
    assert f"https://lagrum.example.se/ws/alices-ab/lagandringar/{notice.pk}/" in message.body
    assert "https://lagrum.example.se/ws/alices-ab/installningar/#lagbevakning" in message.body
    html = message.alternatives[0][0]
    assert f'href="https://lagrum.example.se/ws/alices-ab/lagandringar/{notice.pk}/"' in html
    # Never another workspace's items: not charlie's workspace, not his notice.
    assert "charlies-ab" not in message.body + html and "Charlies AB" not in message.body + html
    assert f"lagandringar/{setup['charlies_notice'].pk}/" not in message.body + html
    assert DigestSent.objects.get(user=setup["alice"]).period == "2026-W48"

    assert digests_send().sent == 0  # the same period again: nobody twice
    assert len(mail.outbox) == 2


def test_the_digest_gives_the_laglistas_own_documents_first_then_laws_it_leaves_out_then_suggestions(
        setup: dict[str, Any]) -> None:
    ws = setup["alice_ws"]

    # Made at the same instant as each other, after the own one: by age and then creation the suggestion would
    # come before the law the list leaves out.
    suggested_doc, suggested_version = statute_with_new_version("2099:31")
    ChangeNotice.objects.create(workspace=ws, legal_document=suggested_doc, version=suggested_version,
                                kind=ChangeNotice.Kind.NEW)
    cited_doc, cited_version = statute_with_new_version("2099:30")
    ChangeNotice.objects.create(workspace=ws, legal_document=cited_doc, version=cited_version,
                                kind=ChangeNotice.Kind.AMENDED)

    digests_send()

    (message,) = mails_to(setup["alice"])
    body = message.body
    assert body.index("Lag (2099:1) om provföretag") < body.index("Lag (2099:30) om prov") \
        < body.index("Lag (2099:31) om prov")


def test_unanswered_notices_are_reminded_in_the_next_period_and_answered_ones_are_not(setup: dict[str, Any],
                                                                                      clock: time_machine.Traveller) -> None:
    digests_send()
    clock.shift(timedelta(days=1))
    assert digests_send().sent == 0  # a weekly digest waits for the next week

    clock.shift(timedelta(days=6))
    digests_send()
    reminder = mails_to(setup["alice"])[-1]
    assert len(mails_to(setup["alice"])) == 2
    assert "Påminnelse, fortfarande inte bedömda:" in reminder.body and "Lag (2099:1) om provföretag" in reminder.body
    assert reminder.subject == "Lagrum: 1 lagändringar väntar på bedömning i Alices AB"

    notice_answer(notice=setup["notice"], user=setup["alice"], affects_us="no")
    clock.shift(timedelta(days=7))
    digests_send()
    assert len(mails_to(setup["alice"])) == 2  # nothing new, nothing unanswered: no mail
    assert len(mails_to(setup["charlie"])) == 3  # charlie's is still unanswered


def test_daily_off_and_per_type(setup: dict[str, Any], clock: time_machine.Traveller) -> None:
    alice_ws = setup["alice_ws"]
    notice_subscription_save(workspace=alice_ws, user=setup["alice"], frequency="daily")
    reader = member(alice_ws, "lasare", Membership.Role.VIEWER)
    notice_subscription_save(workspace=alice_ws, user=reader, frequency="off")
    auditor = member(alice_ws, "revisor", Membership.Role.AUDITOR)
    notice_subscription_save(workspace=alice_ws, user=auditor, frequency="weekly", changes=False, new_statutes=True)

    digests_send()
    assert len(mails_to(setup["alice"])) == 1
    assert mails_to(reader) == [] and mails_to(auditor) == []  # off; only new statutes
    assert DigestSent.objects.get(user=setup["alice"]).period == "2026-11-23"
    clock.shift(timedelta(days=1))
    digests_send()
    assert len(mails_to(setup["alice"])) == 2  # the next day: reminded daily


def test_nothing_goes_out_before_the_digest_hour(setup: dict[str, Any], clock: time_machine.Traveller,
                                                 settings: Settings) -> None:
    settings.NOTICE_DIGEST_HOUR = 9
    assert digests_send().sent == 0 and mail.outbox == []
    clock.shift(timedelta(hours=1))
    assert digests_send().sent == 2


def test_a_failed_send_leaves_no_row_and_is_retried(setup: dict[str, Any], settings: Settings) -> None:
    settings.EMAIL_BACKEND = "tests.register.test_notices_digest.FailingBackend"
    result = digests_send()
    assert (result.sent, result.failed) == (0, 2)
    assert not DigestSent.objects.exists()

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert digests_send().sent == 2
    assert len(mails_to(setup["alice"])) == 1 and DigestSent.objects.count() == 2


def test_a_member_who_left_gets_nothing(setup: dict[str, Any]) -> None:
    Membership.objects.filter(user=setup["charlie"]).delete()
    digests_send()
    assert mails_to(setup["charlie"]) == []
    assert NoticeSubscription.objects.count() == 0


def test_periods_are_stockholm_days_and_iso_weeks() -> None:
    assert digest_period("daily", date(2026, 12, 31)) == "2026-12-31"
    assert digest_period("weekly", date(2026, 12, 31)) == "2026-W53"
    assert digest_period("weekly", date(2027, 1, 3)) == "2026-W53"
    assert digest_period("weekly", date(2027, 1, 4)) == "2027-W01"


def test_the_digest_names_what_enters_into_force_within_thirty_days(
        setup: dict[str, Any], clock: time_machine.Traveller, tmp_path: Path) -> None:
    """Alice's laglista also holds a statute whose official record brings a new 5 § on 1 December 2026 and a 6 § on
    1 March 2027: her digest of 23 November names the first, not the second, and so does Bob's, her workspace's
    other member; Charlie's (no such statute) neither."""
    doc = legal_document_upsert(LegalDocumentData(sfs_number="2099:4", title="Lag (2099:4) om rapporter",
                                                  full_text=OLD_TEXT, amended_through="SFS 2099:5"),
                                process=False).document
    ws = setup["alice_ws"]
    RegisterItem.objects.create(register=LegalRegister.objects.get(workspace=ws), workspace=ws, legal_document=doc)
    clock.shift(timedelta(minutes=1))
    coming = OLD_TEXT.replace("\n", "\r\n") + (
        "\r\n\r\n5 § /Träder i kraft I:2026-12-01/ Företaget ska rapportera årligen. Lag (2099:12)."
        "\r\n\r\n6 § /Träder i kraft I:2027-03-01/ Rapporten ska lämnas digitalt. Lag (2099:13).")
    sync_records(tmp_path, [record("2099:4", text=coming, title="Lag (2099:4) om rapporter",
                                   andring="t.o.m. SFS 2099:13")], name="coming.jsonl")
    clock.shift(timedelta(minutes=1))
    bob = member(ws, "bob", Membership.Role.EDITOR)

    with CaptureQueriesContext(connection) as queries:
        assert digests_send().sent == 3
    # The coming changes are the workspace's: read once for alice's workspace (two members) and once for charlie's.
    assert sum('FROM "law_statuterepeal"' in q["sql"] for q in queries.captured_queries) == 2
    (message,) = mails_to(setup["alice"])
    (bobs,) = mails_to(bob)
    assert bobs.body.split("Träder i kraft inom")[1] == message.body.split("Träder i kraft inom")[1]
    notice = ChangeNotice.objects.get(workspace=ws, legal_document=doc)
    assert ("Träder i kraft inom 30 dagar:\n\n- 2026-12-01 Lag (2099:4) om rapporter: 5 § (lydelse enligt SFS 2099:12)\n"
            f"  https://lagrum.example.se/ws/alices-ab/lagandringar/{notice.pk}/") in message.body
    assert "6 §" not in message.body.split("Träder i kraft inom")[1]
    html = message.alternatives[0][0]
    assert "<h2>Träder i kraft inom 30 dagar</h2>" in html and "5 § (lydelse enligt SFS 2099:12)" in html
    (theirs,) = mails_to(setup["charlie"])
    assert "Träder i kraft" not in theirs.body
