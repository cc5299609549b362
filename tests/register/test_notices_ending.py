"""A § an amending act marks to end on a coming day ("/Upphör att gälla U:2100-07-01 genom lag (2099:30)./") is
a repeal of that § from that day: lagbevakning counts it, lists it under "Träder i kraft framöver" as ending, the
API says so, and a source card of the § says when it stops applying. Versions stored before the diff read it so
are read again by `rebuild_statute_changes`.

The pages read today, so those steps run at a fixed Stockholm instant."""

from __future__ import annotations

import io
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from agent.retrieval.dating import change_note
from agent.retrieval.sources import RetrievedChunk
from compliance.clock import STOCKHOLM
from law.models import StatuteChange
from law.selectors import statute_recent_changes
from register.models import ChangeNotice
from register.notices.selectors import coming_into_force
from register.notices.services import notice_answer
from tests.law.sfs_records_fixtures import OLD_TEXT, record
from tests.register.notices_fixtures import add_requirement, statute_with_text, sync_records, workspace_with

pytestmark = [pytest.mark.django_db, pytest.mark.clock]

MONDAY_MORNING = datetime(2026, 11, 23, 8, 0, tzinfo=STOCKHOLM)
TODAY = MONDAY_MORNING.date()
ENDING_TEXT = OLD_TEXT.replace("4 § Avgift", "4 § /Upphör att gälla U:2100-07-01 genom lag (2099:30)./ Avgift")


@pytest.fixture
def setup(clean_queue: None, settings: Settings, tmp_path: Path) -> dict[str, Any]:
    """Alice's and Charlie's laglistor hold the statute, Alice with a kravpunkt on 4 §; the record ends 4 §."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    with time_machine.travel(MONDAY_MORNING, tick=False) as clock:
        doc = statute_with_text("2099:1", "Lag (2099:1) om provföretag", OLD_TEXT, amended_through="SFS 2099:5")
        ws, alice, (item,) = workspace_with("Alices AB", owner_name="alice", documents=[doc])
        add_requirement(item, "4 §", "Avgift enligt taxa")
        charlie_ws, charlie, _ = workspace_with("Charlies AB", owner_name="charlie", documents=[doc])
        clock.shift(timedelta(minutes=1))
        sync_records(tmp_path, [record("2099:1", text=ENDING_TEXT, andring="t.o.m. SFS 2099:30")])
    return {"doc": doc, "ws": ws, "alice": alice, "notice": ChangeNotice.objects.get(workspace=ws),
            "charlie": charlie, "charlies_notice": ChangeNotice.objects.get(workspace=charlie_ws)}


def test_a_section_marked_to_end_is_a_coming_repeal_on_every_surface(setup: dict[str, Any], client: Client) -> None:
    doc, ws, notice = setup["doc"], setup["ws"], setup["notice"]

    (change,) = StatuteChange.objects.filter(document=doc)
    assert (change.kind, change.citation, change.in_force, change.amending_sfs) == (
        StatuteChange.Kind.REPEALED, "4 §", date(2100, 7, 1), "2099:30")
    assert (notice.change_count, notice.relevant_units) == (1, ["4 §"])

    (coming,) = coming_into_force(ws, today=TODAY)
    assert (coming.in_force, coming.act, coming.units, coming.ending, coming.relevant) == (
        date(2100, 7, 1), "SFS 2099:30", (), ("4 §",), ("4 §",))

    with time_machine.travel(MONDAY_MORNING, tick=False):  # the session, too, begins at that instant
        client.force_login(setup["alice"])
        page = client.get(reverse("notice_list", args=[ws.slug])).content.decode()
        detail = client.get(reverse("notice_detail", args=[ws.slug, notice.pk])).content.decode()
        body = client.get(reverse("api-notice-coming", args=[ws.slug])).json()["results"]
        statute = client.get(reverse("statute", args=[doc.sfs_number])).content.decode()
    assert "4 § upphör att gälla (enligt SFS 2099:30); berör era kravpunkter: 4 §" in page
    assert "lydelse enligt" not in page
    assert '<span class="badge">upphävd</span>' in detail and "kommande 2100-07-01" in detail
    assert [(row["units"], row["ending_units"], row["relevant_units"]) for row in body] == [([], ["4 §"], ["4 §"])]
    assert "Kommande ändringar: 4 § upphör att gälla (2100-07-01)" in statute

    # A source card of 4 § says when it stops applying, not that an act amended it.
    recent = statute_recent_changes([doc.pk], since=date(2026, 1, 1))[doc.pk]
    chunk = RetrievedChunk(chunk_id=1, source_type="LEGAL_DOCUMENT", source_id=doc.pk, document_number="2099:1",
                           document_title=doc.title, header=f"{doc.title} > 4 §", path="1", ordinal=1,
                           citation="4 §", text="4 § Avgift tas ut.", token_count=5, score=0.9, content_type="SFS_LAW")
    assert change_note(chunk, recent, TODAY) == "upphör att gälla 2100-07-01 genom SFS 2099:30"
    assert change_note(chunk, recent, date(2100, 7, 1)) == "upphävd genom SFS 2099:30, den 2100-07-01"


def test_rebuild_reads_a_version_stored_by_the_earlier_diff_again(setup: dict[str, Any]) -> None:
    """The earlier diff stored the ending § as repealed at once, undated, with no act: the command reads the version
    again, counts and names the units again on the unanswered notice, leaves the answered one, and a second run
    changes nothing."""
    doc, notice, charlies = setup["doc"], setup["notice"], setup["charlies_notice"]
    notice_answer(notice=charlies, user=setup["charlie"], affects_us="no")
    StatuteChange.objects.filter(document=doc).update(in_force=None, amending_sfs="", temporal="")
    ChangeNotice.objects.filter(pk__in=[notice.pk, charlies.pk]).update(change_count=2, relevant_units=[])

    out = io.StringIO()
    call_command("rebuild_statute_changes", stdout=out)

    assert out.getvalue().strip() == ("1 versioner jämförda, 1 lästa om (1 → 1 ändrade enheter); "
                                      "1 obesvarade lagändringar räknade om.")
    (change,) = StatuteChange.objects.filter(document=doc)
    assert (change.kind, change.in_force, change.amending_sfs) == (StatuteChange.Kind.REPEALED, date(2100, 7, 1),
                                                                   "2099:30")
    notice.refresh_from_db()
    charlies.refresh_from_db()
    assert (notice.change_count, notice.relevant_units) == (1, ["4 §"])
    assert charlies.change_count == 2  # answered as it was

    again = io.StringIO()
    call_command("rebuild_statute_changes", "--sfs", "2099:1", stdout=again)
    assert again.getvalue().startswith("1 versioner jämförda, 0 lästa om")
    with pytest.raises(CommandError, match="Författningen finns inte: 2099:404"):
        call_command("rebuild_statute_changes", "--sfs", "2099:404", stdout=io.StringIO())
