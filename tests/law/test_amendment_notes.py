"""The §§ and chapters an amending act's notes repeal ("upph. …"), on notes written by us in the records' style,
and the diff naming that act for a § that leaves the text without a stub."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import pytest
from django.core.management import call_command
from pytest_django import Settings

from law.amendment_notes import repeal_notes, repealed_in_notes
from law.diff import REPEALED, diff_statute
from law.models import StatuteChange
from law.sfs_records import AmendingAct
from tests.law.sfs_records_fixtures import OLD_TEXT, record
from tests.register.notices_fixtures import statute_with_text, sync_records


def test_an_upph_list_names_chapters_sections_of_a_chapter_and_plain_sections() -> None:
    notes = ("upph. 9 kap., 11 kap. 6 §, 16 kap. 7, 7 a §§, p 12, 13 i ikrafttr.- och övergångsbest., "
             "rubr. närmast före 10 kap. 25 a §; ändr. 1 kap. 3, 4 §§; nya 2 kap. 1 a §")
    assert repealed_in_notes(notes) == {("9", ""), ("11", "6"), ("16", "7"), ("16", "7 a")}
    assert repealed_in_notes("upph. 3, 4 kap.; ändr. 1 kap. 1 §") == {("3", ""), ("4", "")}
    assert repealed_in_notes("upph. 16 och 27 §§, bil. 2; nuvarande 20 a § betecknas 20 b §") == {("", "16"),
                                                                                                  ("", "27")}
    assert repealed_in_notes("ändr. 2 §; ny 6 §") == set()
    assert repealed_in_notes("upph. 5 kap. 3 §, nuvarande 5 kap. 4 § betecknas 5 kap. 3 §; ändr. 1 §") == {("5", "3")}
    # The abbreviation misspelt, as the register's notes sometimes have it.
    assert repealed_in_notes("upp. 3 kap. 2 a, 4 a §§, rubr. närmast före 3 kap. 2 a §; ändr. 1 kap. 1 §") == {
        ("3", "2 a"), ("3", "4 a")}
    assert repealed_in_notes("uppgifter enligt 3 kap. 2 §") == set()  # a word, not the abbreviation
    # The rubriker come last, each with the units it stood before: those units are not repealed.
    assert repealed_in_notes("upph. 5, 13 kap., 4 kap. 10 §, rubr. närmast före 4 kap. 10, 12 §§, 12 kap. 7 §; "
                             "ändr. 1 kap. 2 §") == {("5", ""), ("13", ""), ("4", "10")}
    assert repealed_in_notes("upph. rubr. närmast före 9 kap. 17, 21 §§; ändr. 9 kap. 3 §") == set()


def test_only_the_acts_a_version_brings_are_read_and_the_newer_wins() -> None:
    acts = [AmendingAct("2010:5", "Lag (2010:5)", date(2010, 7, 1), "upph. 3 §"),
            AmendingAct("2099:20", "Lag (2099:20)", date(2100, 1, 1), "upph. 2 kap."),
            AmendingAct("2099:30", "Lag (2099:30)", date(2100, 7, 1), "upph. 2 kap. 4 §")]

    notes = repeal_notes(acts, after="t.o.m. SFS 2099:5")

    assert notes.act_for(("", "3"), "") is None  # 2010:5 came before the version this one follows
    assert notes.act_for(("2", "1"), "2").act == "2099:20" and notes.act_for(("2", "1"), "2").in_force == date(2100, 1, 1)
    assert notes.act_for(("2", "4"), "2").act == "2099:30"
    assert notes.act_for(("", "1"), "") is None
    # A § cited without its chapter (numbered on across chapters) still goes with a chapter repealed whole.
    assert notes.act_for(("", "7"), "2").act == "2099:20"
    assert notes.act_for(None, "2").act == "2099:20"  # the chapter's own text


def test_a_section_leaving_the_text_without_a_stub_names_the_act_its_notes_give() -> None:
    acts = [AmendingAct("2099:30", "Lag (2099:30)", date(2100, 7, 1), "upph. 3 §; ändr. 1 §")]
    old = "1 § Denna lag gäller.\n\n3 § Tillsyn utövas av myndigheten."

    (change,) = diff_statute(old, "1 § Denna lag gäller.", "2099:1",
                             repeals=repeal_notes(acts, after="SFS 2099:5")).changes
    (unnamed,) = diff_statute(old, "1 § Denna lag gäller.", "2099:1").changes

    assert (change.kind, change.citation, change.amending_sfs, change.in_force) == (
        REPEALED, "3 §", "2099:30", date(2100, 7, 1))
    assert (unnamed.amending_sfs, unnamed.in_force) == ("", None)


def test_a_section_marked_to_end_without_its_act_names_the_act_its_notes_give() -> None:
    """The marker says when the § ends ("/Upphör att gälla U:2100-07-01/") but not through which act; the notes
    repeal its whole chapter."""
    acts = [AmendingAct("2099:30", "Lag (2099:30)", date(2100, 7, 1), "upph. 2 kap.; ändr. 1 kap. 1 §")]
    old = "1 kap. Inledning\n\n1 § Denna lag gäller.\n\n2 kap. Tillsyn\n\n1 § Tillsyn utövas av myndigheten."
    new = old.replace("1 § Tillsyn", "1 § /Upphör att gälla U:2100-07-01/ Tillsyn")

    (change,) = diff_statute(old, new, "2099:1", repeals=repeal_notes(acts, after="SFS 2099:5")).changes
    (unnamed,) = diff_statute(old, new, "2099:1").changes

    assert (change.kind, change.citation, change.amending_sfs, change.in_force) == (
        REPEALED, "2 kap. 1 §", "2099:30", date(2100, 7, 1))
    assert (unnamed.kind, unnamed.amending_sfs, unnamed.in_force) == (REPEALED, "", date(2100, 7, 1))


@pytest.mark.django_db
def test_an_applied_record_stores_the_act_and_a_rebuild_keeps_it(clean_queue: None, settings: Settings,
                                                                  tmp_path: Path) -> None:
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = statute_with_text("2099:1", "Lag (2099:1) om provföretag", OLD_TEXT, amended_through="SFS 2099:5")
    text = OLD_TEXT.replace("3 § Tillsyn utövas av myndigheten.\n\n", "")
    acts = [{"beteckning": "2099:30", "rubrik": "Lag (2099:30) om ändring", "ikraftDateTime": "2100-07-01T00:00:00",
             "anteckningar": "upph. 3 §"}]
    sync_records(tmp_path, [record("2099:1", text=text, andring="t.o.m. SFS 2099:30", andringsforfattningar=acts)])

    (change,) = StatuteChange.objects.filter(document=doc)
    assert (change.kind, change.citation, change.amending_sfs, change.in_force) == (
        StatuteChange.Kind.REPEALED, "3 §", "2099:30", date(2100, 7, 1))
    out = io.StringIO()
    call_command("rebuild_statute_changes", stdout=out)
    assert out.getvalue().startswith("1 versioner jämförda, 0 lästa om")


@pytest.mark.django_db
def test_a_rebuild_after_a_sync_keeps_the_days_the_record_gave(clean_queue: None, settings: Settings,
                                                             tmp_path: Path) -> None:
    """2 § is reworded by 2099:40, in force 2100-01-01 by the record alone (the text has no transitional provisions),
    and marked to end on 2101-01-01: the day stays when the version is read again without the record."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = statute_with_text("2099:1", "Lag (2099:1) om provföretag", OLD_TEXT, amended_through="SFS 2099:5")
    text = OLD_TEXT.replace("2 § Ett företag ska föra register. Lag (2099:5).",
                            "2 § /Upphör att gälla U:2101-01-01/ Ett företag ska föra digitalt register. Lag (2099:40).")
    acts = [{"beteckning": "2099:40", "rubrik": "Lag (2099:40) om ändring", "ikraftDateTime": "2100-01-01T00:00:00",
             "anteckningar": "ändr. 2 §"}]
    sync_records(tmp_path, [record("2099:1", text=text, andring="t.o.m. SFS 2099:40", andringsforfattningar=acts)])
    (change,) = StatuteChange.objects.filter(document=doc)
    assert (change.kind, change.amending_sfs, change.in_force) == (StatuteChange.Kind.AMENDED, "2099:40",
                                                                   date(2100, 1, 1))

    out = io.StringIO()
    call_command("rebuild_statute_changes", stdout=out)

    assert out.getvalue().startswith("1 versioner jämförda, 0 lästa om")
    change.refresh_from_db()
    assert change.in_force == date(2100, 1, 1)


@pytest.mark.django_db
def test_a_rebuild_keeps_each_units_day_when_one_act_brings_several(clean_queue: None, settings: Settings,
                                                                     tmp_path: Path) -> None:
    """2099:40 rewords 1 kap. 1 §, in force 2100-01-01 by the record, and 2 kap. 1 § under a rubrik that changes on
    2101-01-01, dated by its marker: read again without the record, each keeps its own day."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    old = "1 kap. Allmänt\n\n1 § Lagen gäller. Lag (2099:5).\n\n2 kap. Tillsyn\n\n1 § Tillsyn utövas. Lag (2099:5)."
    new = ("1 kap. Allmänt\n\n1 § Lagen gäller alla. Lag (2099:40).\n\n"
           "/Rubriken upphör att gälla U:2101-01-01/ 2 kap. Tillsyn\n\n"
           "/Rubriken träder i kraft I:2101-01-01/ 2 kap. Tillsyn och kontroll\n\n"
           "1 § Tillsyn utövas av länsstyrelsen. Lag (2099:40).")
    doc = statute_with_text("2099:1", "Lag (2099:1) om provföretag", old, amended_through="SFS 2099:5")
    acts = [{"beteckning": "2099:40", "rubrik": "Lag (2099:40) om ändring", "ikraftDateTime": "2100-01-01T00:00:00",
             "anteckningar": "ändr. 1 kap. 1 §, 2 kap. 1 §, rubr. närmast före 2 kap. 1 §"}]
    sync_records(tmp_path, [record("2099:1", text=new, andring="t.o.m. SFS 2099:40", andringsforfattningar=acts)])
    days = dict(StatuteChange.objects.filter(document=doc).values_list("citation", "in_force"))
    assert days == {"1 kap. 1 §": date(2100, 1, 1), "2 kap. 1 §": date(2101, 1, 1)}

    out = io.StringIO()
    call_command("rebuild_statute_changes", stdout=out)

    assert out.getvalue().startswith("1 versioner jämförda, 0 lästa om")
    assert dict(StatuteChange.objects.filter(document=doc).values_list("citation", "in_force")) == days
