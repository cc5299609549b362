"""The §§ an amending act's notes renumber ("nuvarande 3 kap. 7, 7 a §§ betecknas 3 kap. 2, 3 §§"), on notes
written by us in the records' style, and the diff comparing a moved § with its own old text rather than with the §
that had its number before."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from law.amendment_notes import renumber_notes, renumbered_in_notes, repeal_notes
from law.diff import ADDED, AMENDED, RENUMBERED, REPEALED, diff_statute
from law.models import StatuteChange, StatuteVersion
from law.services import _change_rows
from law.sfs_records import AmendingAct
from register.models import ChangeNotice
from register.notices.services import notices_refresh_units
from tests.law.sfs_records_fixtures import record
from tests.register.notices_fixtures import add_requirement, statute_with_text, sync_records, workspace_with

OLD = ("1 § Lagen gäller för provföretag.\n\n"
       "2 § Ett provföretag ska föra register.\n\n"
       "3 § Tillsyn utövas av myndigheten.\n\n"
       "4 § Avgift tas ut enligt taxa.")
# 2 § repealed; 3 and 4 §§ renumbered 2 and 3 §§, the new 3 § reworded; a new 4 §.
NEW = ("1 § Lagen gäller för provföretag.\n\n"
       "2 § Tillsyn utövas av myndigheten. Lag (2099:30).\n\n"
       "3 § Avgift tas ut enligt taxa som kommunen beslutar. Lag (2099:30).\n\n"
       "4 § Företaget ska rapportera årligen. Lag (2099:30).")
NOTES = "upph. 2 §; nuvarande 3, 4 §§ betecknas 2, 3 §§; ändr. den nya 3 §; ny 4 §"


def test_a_betecknas_list_pairs_old_and_new_numbers_in_order() -> None:
    assert renumbered_in_notes("upph. 9 kap. 2 §; nuvarande 9 kap. 3 § betecknas 9 kap. 2 §; ändr. 9 kap. 1 §") == [
        (("9", "3"), ("9", "2"))]
    assert renumbered_in_notes("7 kap. 9, 9 a §§ betecknas 7 kap. 13, 14 §§; nya 7 kap. 9 §") == [
        (("7", "9"), ("7", "13")), (("7", "9 a"), ("7", "14"))]
    assert renumbered_in_notes("nuvarande 3 kap. 7 a §, 16 kap. 6 a § betecknas 3 kap. 3 §, 16 kap. 6 §") == [
        (("3", "7 a"), ("3", "3")), (("16", "6 a"), ("16", "6"))]
    assert renumbered_in_notes("upph. 5 kap. 3 §, nuvarande 5 kap. 4 § betecknas 5 kap. 3 §") == [
        (("5", "4"), ("5", "3"))]
    assert renumbered_in_notes("nuvarande 2 a § betecknas 2 b §, nuvarande 3 § betecknas 4 §; ny 3 §") == [
        (("", "2 a"), ("", "2 b")), (("", "3"), ("", "4"))]
    assert renumbered_in_notes("nuvarande 3, 4 §§ betecknas 2 §") == []  # two sides that do not pair
    assert renumbered_in_notes("nuvarande 5 kap. betecknas 6 kap.") == []  # whole chapters: §§ not listed
    assert renumbered_in_notes("ändr. 2 §; ny 6 §") == []


def test_two_acts_moving_a_section_in_turn_leave_it_where_the_newer_put_it() -> None:
    acts = [AmendingAct("2010:5", "Lag (2010:5)", date(2010, 7, 1), "nuvarande 8 § betecknas 9 §"),
            AmendingAct("2099:20", "Lag (2099:20)", date(2100, 1, 1), "nuvarande 3 § betecknas 4 §"),
            AmendingAct("2099:30", "Lag (2099:30)", date(2100, 7, 1), "nuvarande 4, 5 §§ betecknas 5, 6 §§")]

    moves = renumber_notes(acts, after="t.o.m. SFS 2099:5")

    # 3 § went to 4 and on to 5; 5 § went to 6; "4 §" of the second act is the moved 3 §, not the old 4 §, which
    # no note moves. 2010:5 came before the version this one follows.
    assert moves == {("", "3"): ("", "5"), ("", "5"): ("", "6")}


def test_a_renumbered_section_is_compared_with_its_own_old_text() -> None:
    acts = [AmendingAct("2099:30", "Lag (2099:30)", date(2100, 7, 1), NOTES)]
    noted = diff_statute(OLD, NEW, "2099:1", repeals=repeal_notes(acts, after="SFS 2099:5"),
                         renumbered=renumber_notes(acts, after="SFS 2099:5"))
    unread = diff_statute(OLD, NEW, "2099:1", repeals=repeal_notes(acts, after="SFS 2099:5"))

    assert sorted((c.kind, c.citation, c.old_citation, c.amending_sfs) for c in noted.changes) == [
        (ADDED, "4 §", "", "2099:30"),
        (AMENDED, "3 §", "4 §", "2099:30"),      # the old 4 §, reworded under its new number
        (RENUMBERED, "2 §", "3 §", "2099:30"),   # the old 3 §, word for word
        (REPEALED, "2 §", "", "2099:30"),        # the old 2 §, whose number the old 3 § took
    ]
    # Without the notes every § keeping a number read as that number's § amended.
    assert sorted((c.kind, c.citation) for c in unread.changes) == [(AMENDED, "2 §"), (AMENDED, "3 §"),
                                                                     (AMENDED, "4 §")]


def test_a_statute_numbered_on_across_chapters_is_read_by_citation() -> None:
    """Upphovsrättslagen's kind: §§ numbered on across chapters, cited without the chapter ("36 §"), and so are they
    in the notes. The repealed 2 § leaves no stub and the old 3 § moves into its number, now heading 2 kap."""
    old = ("1 kap. Inledande bestämmelser\n\n1 § Lagen gäller för provföretag.\n\n"
           "2 § Ett provföretag ska föra register.\n\n"
           "2 kap. Tillsyn\n\n3 § Tillsyn utövas av myndigheten.\n\n4 § Avgift tas ut enligt taxa.")
    new = ("1 kap. Inledande bestämmelser\n\n1 § Lagen gäller för provföretag.\n\n"
           "2 kap. Tillsyn\n\n2 § Tillsyn utövas av myndigheten. Lag (2099:30).\n\n"
           "3 § Avgift tas ut enligt taxa som kommunen beslutar. Lag (2099:30).\n\n"
           "4 § Företaget ska rapportera årligen. Lag (2099:30).")
    acts = [AmendingAct("2099:30", "Lag (2099:30)", date(2100, 7, 1), NOTES)]

    changes = diff_statute(old, new, "2099:1", repeals=repeal_notes(acts, after="SFS 2099:5"),
                           renumbered=renumber_notes(acts, after="SFS 2099:5")).changes

    assert sorted((c.kind, c.citation, c.old_citation, c.amending_sfs) for c in changes) == [
        (ADDED, "4 §", "", "2099:30"),
        (AMENDED, "3 §", "4 §", "2099:30"),
        (RENUMBERED, "2 §", "3 §", "2099:30"),
        (REPEALED, "2 §", "", "2099:30"),        # dated by the notes' "upph. 2 §", though it stood in 1 kap.
    ]
    # The moved § stands in the chapter the new text puts it in.
    assert {c.citation: c.chapter for c in changes if c.kind == RENUMBERED} == {"2 §": "2"}


def test_a_renumbering_still_to_come_leaves_the_section_its_number() -> None:
    """The act gives 3 § the number 4 § from a day to come: until then the text gives today's 3 and 4 §§ as they
    are and the moved 3 § as a coming wording of 4 §. Today nothing has moved, and 4 § is not repealed."""
    old = "3 § Tillsyn utövas av myndigheten.\n\n4 § Avgift tas ut enligt taxa."
    new = ("3 § Tillsyn utövas av myndigheten.\n\n"
           "4 § Avgift tas ut enligt taxa.\n\n"
           "4 § /Träder i kraft I:2100-07-01/ Tillsyn utövas av myndigheten. Lag (2099:30).")
    moves = {("", "3"): ("", "4")}

    changes = diff_statute(old, new, "2099:1", renumbered=moves).changes
    assert [(c.kind, c.citation, c.old_citation) for c in changes] == [
        (c.kind, c.citation, c.old_citation) for c in diff_statute(old, new, "2099:1").changes]
    assert REPEALED not in {c.kind for c in changes}


@pytest.mark.django_db
def test_an_applied_record_stores_the_moves_and_a_rebuild_keeps_them(clean_queue: None, settings: Settings,
                                                                      client: Client, tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = statute_with_text("2099:1", "Lag (2099:1) om provföretag", OLD, amended_through="SFS 2099:5")
    # A kravpunkt on 3 § (tillsyn) as it was numbered when the kravpunkt was written.
    _, owner, (item,) = workspace_with("Provbolaget", owner_name="prov", documents=[doc])
    add_requirement(item, "3 §", "Tillsyn")
    item.refresh_from_db()
    acts = [{"beteckning": "2099:30", "rubrik": "Lag (2099:30) om ändring", "ikraftDateTime": "2100-07-01T00:00:00",
             "anteckningar": NOTES}]
    sync_records(tmp_path, [record("2099:1", text=NEW, andring="t.o.m. SFS 2099:30", andringsforfattningar=acts)])

    stored = sorted(StatuteChange.objects.filter(document=doc).values_list("kind", "citation", "old_citation"))
    assert stored == [("ADDED", "4 §", ""), ("AMENDED", "3 §", "4 §"), ("RENUMBERED", "2 §", "3 §"),
                      ("REPEALED", "2 §", "")]
    # The notice names both §§ the kravpunkt's "3 §" now touches: the § it meant, renumbered 2 §, and the § that
    # now has its number.
    notice = ChangeNotice.objects.get(item=item)
    assert notice.relevant_units == ["2 §", "3 §"]
    # Its page and the API say the kravpunkt's reference now points elsewhere.
    client.force_login(owner)
    page = client.get(reverse("notice_detail", args=[item.workspace.slug, notice.pk])).content.decode()
    assert "Er kravpunkt ”Tillsyn” anger 3 §, som nu betecknas 2 §: se över kravpunktens paragraf." in page
    requirement = item.requirements.get()
    assert reverse("register_requirement_edit", args=[item.workspace.slug, requirement.pk]) in page
    detail = client.get(reverse("api-notice", args=[item.workspace.slug, notice.pk])).json()
    assert sorted((change["kind"], change["citation"], [r["section_ref"] for r in change["renumbered_for"]])
                  for change in detail["changes"]) == [
        ("ADDED", "4 §", []), ("AMENDED", "3 §", []), ("RENUMBERED", "2 §", ["3 §"]), ("REPEALED", "2 §", [])]
    out = io.StringIO()
    call_command("rebuild_statute_changes", stdout=out)
    assert out.getvalue().startswith("1 versioner jämförda, 0 lästa om")


@pytest.mark.django_db
def test_a_version_stored_before_renumbering_was_read_is_read_again_from_its_records_file(
        clean_queue: None, settings: Settings, tmp_path: Path) -> None:
    """The records are not kept: a version whose changes were stored by a diff that did not read the notes'
    renumbering (here: stored as that diff read it) keeps them on a plain rebuild, and is read with the notes
    again from the file it was synced from; the unanswered notice is counted again with it."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = statute_with_text("2099:1", "Lag (2099:1) om provföretag", OLD, amended_through="SFS 2099:5")
    _, _, (item,) = workspace_with("Provbolaget", owner_name="prov", documents=[doc])
    add_requirement(item, "4 §", "Avgift")
    acts = [{"beteckning": "2099:30", "rubrik": "Lag (2099:30) om ändring", "ikraftDateTime": "2100-07-01T00:00:00",
             "anteckningar": NOTES}]
    sync_records(tmp_path, [record("2099:1", text=NEW, andring="t.o.m. SFS 2099:30", andringsforfattningar=acts)])
    version = StatuteVersion.objects.get(document=doc, is_current=True)
    before = StatuteVersion.objects.get(document=doc, is_current=False)
    StatuteChange.objects.filter(to_version=version).delete()
    StatuteChange.objects.bulk_create(_change_rows(doc, before, version, diff_statute(OLD, NEW, "2099:1").changes))
    notices_refresh_units(version_ids=[version.pk])
    assert ChangeNotice.objects.get(item=item).relevant_units == ["4 §"]

    out = io.StringIO()
    call_command("rebuild_statute_changes", stdout=out)
    assert out.getvalue().startswith("1 versioner jämförda, 0 lästa om")
    call_command("rebuild_statute_changes", "--file", str(tmp_path / "records.jsonl"), stdout=out)
    assert "1 versioner jämförda, 1 lästa om (3 → 4 ändrade enheter); 1 obesvarade lagändringar" in out.getvalue()

    stored = sorted(StatuteChange.objects.filter(to_version=version).values_list("kind", "citation", "old_citation"))
    assert stored == [("ADDED", "4 §", ""), ("AMENDED", "3 §", "4 §"), ("RENUMBERED", "2 §", "3 §"),
                      ("REPEALED", "2 §", "")]
    notice = ChangeNotice.objects.get(item=item)
    assert (notice.relevant_units, notice.unit_counts) == (["3 §", "4 §"], {"ADDED": 1, "AMENDED": 1, "REPEALED": 1,
                                                                             "RENUMBERED": 1})
    with pytest.raises(CommandError, match="Filen finns inte"):
        call_command("rebuild_statute_changes", "--file", str(tmp_path / "none.jsonl"))
