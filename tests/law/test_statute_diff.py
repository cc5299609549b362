"""The per-unit diff, the word diff and the tag-agreement report, on small texts of our own."""

from __future__ import annotations

import gzip
import json
from datetime import date
from pathlib import Path

import pytest

from law.diff import ADDED, AMENDED, RENUMBERED, REPEALED, diff_statute, word_diff
from law.report import diff_report
from law.sfs_records import normalise_text, parse_record
from tests.law.sfs_records_fixtures import NEW_TEXT, OLD_TEXT, record, write_records


def test_normalise_joins_hard_wrapped_lines_and_keeps_paragraphs() -> None:
    text = normalise_text("1 § Ett tjänst-\r\ngöringsställe och en\r\nbygg- och\r\nrivningsåtgärd.\r\n2 § Nästa.\r\n\r\nRubrik")
    assert text == "1 § Ett tjänstgöringsställe och en bygg- och rivningsåtgärd.\n\n2 § Nästa.\n\nRubrik"


def test_each_kind_of_change_with_its_act_and_date() -> None:
    new = normalise_text(NEW_TEXT)
    diff = diff_statute(OLD_TEXT, new, "2099:1", in_force_by_act={"2099:11": date(2100, 7, 1)})
    by_citation = {c.citation: c for c in diff.changes}

    assert {c: ch.kind for c, ch in by_citation.items()} == {
        "2 §": AMENDED, "3 §": REPEALED, "4 a §": RENUMBERED, "5 §": ADDED, "6 §": ADDED}
    assert "1 §" not in by_citation  # only re-wrapped: not a change
    amended = by_citation["2 §"]
    assert amended.amending_sfs == "2099:10"
    assert amended.in_force == date(2099, 7, 1)  # from the transitional provisions
    assert "digitalt" in amended.new_text and "digitalt" not in amended.old_text
    assert by_citation["3 §"].amending_sfs == "2099:10" and by_citation["3 §"].old_text.startswith("3 § Tillsyn")
    assert by_citation["4 a §"].old_citation == "4 §"
    coming = by_citation["6 §"]
    assert coming.temporal == "Träder i kraft I:2100-07-01" and coming.in_force == date(2100, 7, 1)


def test_a_section_removed_without_a_stub_is_repealed() -> None:
    diff = diff_statute("1 § A gäller.\n\n2 § B gäller.", "1 § A gäller.", "2099:1")
    assert [(c.kind, c.citation, c.new_text) for c in diff.changes] == [(REPEALED, "2 §", "")]


def test_tag_agreement_counts_wording_and_tags_separately() -> None:
    old = "1 § A gäller. Lag (2099:1).\n\n2 § B gäller.\n\n3 § C gäller."
    # 1 §: new tag, same wording (disagrees with (a)); 2 §: new wording and tag; 3 §: new wording, no tag.
    new = "1 § A gäller. Lag (2099:9).\n\n2 § B gäller inte. Lag (2099:9).\n\n3 § C gäller inte."
    agreement = diff_statute(old, new, "2099:1").agreement
    assert (agreement.tag_changed, agreement.tag_changed_and_text_changed) == (2, 1)
    assert (agreement.text_changed, agreement.text_changed_and_new_tag) == (2, 1)
    assert agreement.tag_changed_share == 0.5 and agreement.text_changed_share == 0.5


def test_word_diff_marks_words_added_and_removed() -> None:
    stycken = word_diff("2 § Ett företag ska föra register.", "2 § Ett företag ska föra ett digitalt register.")
    assert len(stycken) == 1
    ops = [(s.op, s.text.strip()) for s in stycken[0]]
    assert ("added", "ett digitalt") in ops
    assert all(op != "removed" for op, _ in ops)
    removed = word_diff("A gäller alltid nu.", "A gäller nu.")[0]
    assert ("removed", "alltid") in [(s.op, s.text.strip()) for s in removed]


def test_report_over_a_small_fixture(tmp_path: Path) -> None:
    baseline = tmp_path / "corpus.jsonl.gz"
    with gzip.open(baseline, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"sfs": "2099:1", "title": "Lag (2099:1) om provföretag", "text": OLD_TEXT,
                             "amended_through": "SFS 2099:5"}) + "\n")
        fh.write(json.dumps({"sfs": "2099:2", "title": "Lag (2099:2) om annat", "text": "1 § X.",
                             "amended_through": "SFS 2099:7"}) + "\n")
    records = write_records(tmp_path / "records.jsonl", [
        record("2099:1"),
        record("2099:2", text="1 § X.", andring="t.o.m. SFS 2099:3"),  # older: not compared
        "{not json",
    ])
    report = diff_report(baseline, records).as_dict()
    assert report["statutes_compared"] == 1
    assert report["changes_by_kind"] == {"ADDED": 2, "AMENDED": 1, "RENUMBERED": 1, "REPEALED": 1}
    # 2 § amended and 3 § repealed ("Har upphävts genom lag (2099:10)." is its new tag): both agree.
    assert report["tag_changed"] == 2 and report["share_tag_changed_showing_change"] == 1.0
    assert report["text_changed"] == 2 and report["share_text_changed_with_new_tag"] == 1.0
    assert len(report["errors"]) == 1 and report["errors"][0].startswith("rad 3")


def test_parse_record_reads_the_fields() -> None:
    parsed = parse_record(record("2099:1"))
    assert parsed.amended_through == "SFS 2099:11" and parsed.record_id == "4711"
    assert parsed.amending_acts["2099:11"].in_force == date(2100, 7, 1)
    assert parsed.text.startswith("1 § Denna lag gäller för alla företag.\n\n2 §")


# A förordning of our own shaped like the ones that name the authorities of a council in a Bilaga (the
# item lines of a list, the amendment tag on the last one) and list duties in a § with list items.
COUNCIL_OLD = (
    "1 § Denna förordning innehåller bestämmelser om ett samordningsråd för provtillsyn.\n\n"
    "2 § Rådet ska\n\n{m} samordna tillsynen,\n\n{m} följa utvecklingen på området, och\n\n"
    "{m} lämna en årlig rapport till regeringen.\n\n"
    "3 § Rådet består av de myndigheter som anges i bilagan. Förordning (2099:3).\n\n"
    "Bilaga\n\n"
    "Myndigheter som ingår i samordningsrådet\n\n"
    "- Provverket\n\n- Myndigheten för provberedskap\n\n- Provinspektionen. Förordning (2099:3)."
)


def test_a_changed_item_of_a_dashed_list_in_a_bilaga_is_a_change_with_its_act() -> None:
    old = COUNCIL_OLD.format(m="–")
    # As the service sends it: hard-wrapped, CRLF; only one item of the Bilaga (and its tag) changed.
    new = normalise_text(old.replace("\n", "\r\n").replace("Myndigheten för provberedskap",
                                                           "Myndigheten för\r\nprovförsvar")
                         .replace("Provinspektionen. Förordning (2099:3).", "Provinspektionen. Förordning (2099:12)."))

    diff = diff_statute(old, new, "2099:7")

    assert [(c.kind, c.citation, c.amending_sfs) for c in diff.changes] == [(AMENDED, "Bilaga", "2099:12")]
    shown = word_diff(diff.changes[0].old_text, diff.changes[0].new_text)
    changed = [(s.op, s.text.strip()) for stycke in shown for s in stycke if s.op != "same"]
    assert ("removed", "provberedskap") in changed and ("added", "provförsvar") in changed
    assert ("removed", "Provverket") not in changed  # the items around it are not shown as changed


@pytest.mark.parametrize("marker", ["–", "-", "•", "1."])
def test_a_changed_list_item_inside_a_section_is_a_change_whatever_its_marker(marker: str) -> None:
    old = COUNCIL_OLD.format(m=marker)
    new = old.replace(f"{marker} följa utvecklingen på området, och",
                      f"{marker} följa och analysera utvecklingen på området, och")

    diff = diff_statute(old, new, "2099:7")

    assert [(c.kind, c.citation) for c in diff.changes] == [(AMENDED, "2 §")]
    shown = word_diff(diff.changes[0].old_text, diff.changes[0].new_text)
    assert [[(s.op, s.text.strip()) for s in stycke if s.op != "same"] for stycke in shown] == [
        [], [], [("added", "och analysera")], []]


def test_a_list_joined_in_one_version_and_split_in_the_other_shows_only_the_changed_item() -> None:
    old = "2 § Rådet ska\n\n- samordna tillsynen,\n\n- följa utvecklingen, och\n\n- lämna en rapport."
    new = "2 § Rådet ska - samordna tillsynen, - följa utvecklingen noga, och - lämna en rapport."

    (stycke,) = word_diff(old, new)

    # Stycke by stycke, the joined list would have shown every item removed and the whole § added.
    assert [(s.op, s.text.strip()) for s in stycke if s.op != "same"] == [
        ("removed", "utvecklingen,"), ("added", "utvecklingen noga,")]


def test_a_later_act_moving_a_date_in_transitional_provisions_is_a_change_but_a_new_block_is_not() -> None:
    old = ("1 § Bidrag lämnas för provverksamhet.\n\nÖvergångsbestämmelser\n\n2099:7\n\n"
           "1. Denna förordning träder i kraft den 1 juli 2099.\n\n"
           "2. Bestämmelserna tillämpas på ansökningar som kommer in senast 2101.")
    new = ("1 § Bidrag lämnas för provverksamhet.\n\nÖvergångsbestämmelser\n\n2099:7\n\n"
           "1. Denna förordning träder i kraft den 1 juli 2099.\n\n"
           "2. Bestämmelserna tillämpas på ansökningar som kommer in senast 2105. Förordning (2100:4).\n\n"
           "2100:9\n\nDenna förordning träder i kraft den 1 januari 2101.")

    diff = diff_statute(old, new, "2099:7")

    assert [(c.kind, c.citation, c.amending_sfs) for c in diff.changes] == [
        (AMENDED, "Övergångsbestämmelser 2099:7", "2100:4")]


def test_a_coming_version_now_in_force_is_no_change_and_alike_sections_are_not_renumbered() -> None:
    old = ("1 kap. Första\n\n1 § Avgift tas inte ut.\n\n"
           "2 kap. Andra\n\n1 § /Upphör att gälla U:2100-01-01/ Avgift tas ut.\n\n"
           "1 § /Träder i kraft I:2100-01-01/ Avgift tas inte ut.")
    new = "1 kap. Första\n\n1 § Avgift tas inte ut.\n\n2 kap. Andra\n\n1 § Avgift tas inte ut."

    assert diff_statute(old, new, "2099:7").changes == []


def test_a_reference_wrapped_to_a_line_start_does_not_start_a_paragraph() -> None:
    text = normalise_text("5 § Den som sprider bild i strid med 5 kap.\r\n9 b § döms till böter.\r\n6 § Nästa.")
    assert text == "5 § Den som sprider bild i strid med 5 kap. 9 b § döms till böter.\n\n6 § Nästa."


def test_a_coming_wording_is_todays_section_amended_from_its_day() -> None:
    """2 § gets a wording that applies from 2100-01-01: compared with today's words, not a § repealed today and
    another one new."""
    old = "1 § Denna lag gäller för alla företag.\n\n2 § Avgift tas ut. Lag (2099:5)."
    new = ("1 § Denna lag gäller för alla företag.\n\n"
           "2 § /Upphör att gälla U:2100-01-01/ Avgift tas ut. Lag (2099:5).\n\n"
           "2 § /Träder i kraft I:2100-01-01/ Avgift tas inte ut. Lag (2099:20).")

    (change,) = diff_statute(old, new, "2099:1").changes

    assert (change.kind, change.citation, change.amending_sfs, change.in_force) == (
        AMENDED, "2 §", "2099:20", date(2100, 1, 1))
    assert change.old_text.startswith("2 § Avgift tas ut.") and "inte" in change.new_text
    ops = [(segment.op, segment.text.strip()) for stycke in word_diff(change.old_text, change.new_text)
           for segment in stycke]
    assert any(op == "added" and "inte" in text for op, text in ops)


def test_a_section_that_ends_without_a_coming_wording_is_repealed_on_its_day() -> None:
    """3 § stops applying on 2100-07-01 by lag (2099:30): a repeal dated by its marker, announced now; the day it
    goes, the text dropping it is no second change."""
    old = "1 § Denna lag gäller för alla företag.\n\n3 § Tillsyn utövas av myndigheten."
    marked = ("1 § Denna lag gäller för alla företag.\n\n"
              "3 § /Upphör att gälla U:2100-07-01 genom lag (2099:30)./ Tillsyn utövas av myndigheten.")

    (change,) = diff_statute(old, marked, "2099:1").changes

    assert (change.kind, change.citation, change.amending_sfs, change.in_force) == (
        REPEALED, "3 §", "2099:30", date(2100, 7, 1))
    assert change.temporal.startswith("Upphör att gälla U:2100-07-01")
    assert change.old_text.startswith("3 § Tillsyn") and change.new_text == ""
    assert diff_statute(marked, "1 § Denna lag gäller för alla företag.", "2099:1").changes == []


def test_a_chapters_new_rubrik_marking_its_sections_changes_no_section() -> None:
    """A rubrik that changes on a coming day marks every § under it with the day; their words stay as they are."""
    old = "1 kap. Tillsyn\n\n1 § Tillsyn utövas av myndigheten.\n\n2 § Myndigheten får göra inspektioner."
    new = ("/Rubriken upphör att gälla U:2100-01-01/ 1 kap. Tillsyn\n\n"
           "/Rubriken träder i kraft I:2100-01-01/ 1 kap. Tillsyn och kontroll\n\n"
           "1 § Tillsyn utövas av myndigheten.\n\n2 § Myndigheten får göra inspektioner.")

    assert diff_statute(old, new, "2099:1").changes == []


def test_a_coming_section_under_the_citation_of_a_renumbered_one_is_new() -> None:
    """4 § moves to 9 § now, and a new 4 § comes on 2100-01-01: a renumbering and a new §, not 4 § amended."""
    old = "1 § Denna lag gäller för alla företag.\n\n4 § Avgift tas ut enligt taxa."
    new = ("1 § Denna lag gäller för alla företag.\n\n"
           "4 § /Träder i kraft I:2100-01-01/ Anmälan ska göras digitalt. Lag (2099:20).\n\n"
           "9 § Avgift tas ut enligt taxa.")

    changes = diff_statute(old, new, "2099:1").changes

    assert [(c.kind, c.citation, c.old_citation) for c in changes] == [(ADDED, "4 §", ""), (RENUMBERED, "9 §", "4 §")]
    assert changes[0].in_force == date(2100, 1, 1)


def test_a_coming_wording_come_and_worded_again_is_an_amendment() -> None:
    """2 § had a coming wording from 2100-01-01; the next text gives 2 § plainly, worded again by lag (2100:5): one
    amendment of the coming wording, not 2 § repealed and another 2 § new."""
    old = ("1 § Denna lag gäller för alla företag.\n\n"
           "2 § /Upphör att gälla U:2100-01-01/ Avgift tas ut. Lag (2099:5).\n\n"
           "2 § /Träder i kraft I:2100-01-01/ Avgift tas inte ut. Lag (2099:20).")
    new = "1 § Denna lag gäller för alla företag.\n\n2 § Avgift tas inte ut av små företag. Lag (2100:5)."

    (change,) = diff_statute(old, new, "2099:1").changes

    assert (change.kind, change.citation, change.amending_sfs) == (AMENDED, "2 §", "2100:5")
    assert "Avgift tas inte ut." in change.old_text and "små företag" in change.new_text


def test_a_chapter_replaced_on_a_coming_day_is_amended_not_repealed() -> None:
    """2 kap. ends on 2100-01-01 and a new 2 kap. comes that day, its §§ given plainly: 2 kap. 1 § is amended
    from that day, not also repealed."""
    old = "1 kap. Inledning\n\n1 § Denna lag gäller.\n\n2 kap. Odling\n\n1 § Tillstånd krävs för odling."
    new = ("1 kap. Inledning\n\n1 § Denna lag gäller.\n\n"
           "/Kapitlet upphör att gälla U:2100-01-01 genom lag (2099:30)./ 2 kap. Odling\n\n"
           "1 § Tillstånd krävs för odling.\n\n"
           "/Kapitlet träder i kraft I:2100-01-01/ 2 kap. Vattenbruk\n\n1 § Med vattenbruk avses odling i vatten.")

    kinds = [(c.kind, c.citation) for c in diff_statute(old, new, "2099:1").changes]

    assert (REPEALED, "2 kap. 1 §") not in kinds and (AMENDED, "2 kap. 1 §") in kinds


def test_coming_wordings_that_have_come_are_no_repeal_of_their_section() -> None:
    """2 § had two coming wordings (2100-01-01 and 2100-07-01); the next text gives 2 § plainly in other words: it is
    amended from the later one, and neither coming wording reads as a repeal. 3 § kept its words while its coming
    wording left the text: no change at all."""
    old = ("1 § Denna lag gäller för alla företag.\n\n"
           "2 § /Upphör att gälla U:2100-01-01/ Avgift tas ut. Lag (2099:5).\n\n"
           "2 § /Träder i kraft I:2100-01-01/ Avgift tas ut av stora företag. Lag (2099:20).\n\n"
           "2 § /Träder i kraft I:2100-07-01/ Avgift tas ut av medelstora företag. Lag (2099:21).\n\n"
           "3 § Tillsyn utövas av myndigheten.\n\n"
           "3 § /Träder i kraft I:2100-01-01/ Tillsyn utövas av länsstyrelsen. Lag (2099:22).")
    new = ("1 § Denna lag gäller för alla företag.\n\n"
           "2 § Avgift tas ut av alla företag. Lag (2100:5).\n\n3 § Tillsyn utövas av myndigheten.")

    (change,) = diff_statute(old, new, "2099:1").changes

    assert (change.kind, change.citation, change.amending_sfs) == (AMENDED, "2 §", "2100:5")
    assert "medelstora" in change.old_text


def test_a_section_marked_to_end_and_worded_again_is_an_amendment() -> None:
    """3 § was to end on 2100-01-01; the next text gives 3 § plainly in other words: amended, not new."""
    old = "1 § Denna lag gäller.\n\n3 § /Upphör att gälla U:2100-01-01 genom lag (2099:30)./ Tillsyn utövas av myndigheten."
    new = "1 § Denna lag gäller.\n\n3 § Tillsyn utövas av länsstyrelsen. Lag (2099:40)."

    (change,) = diff_statute(old, new, "2099:1").changes

    assert (change.kind, change.citation, change.amending_sfs) == (AMENDED, "3 §", "2099:40")


def test_a_section_still_cited_in_the_new_text_is_not_repealed() -> None:
    """The old text gave 3 § plainly and, left over, as coming; the new one gives only a coming wording and its end
    for 3 §: 3 § is amended from that day, and the plain 3 § leaving the text is no repeal. An act ending a § may be
    named without parentheses."""
    old = ("1 § Denna lag gäller.\n\n3 § Tillsyn utövas av myndigheten.\n\n"
           "3 § /Träder i kraft I:2024-07-01/ Tillsyn utövas av myndigheten.")
    new = ("1 § Denna lag gäller.\n\n3 § /Upphör att gälla U:2100-07-01/ Tillsyn utövas av myndigheten.\n\n"
           "3 § /Träder i kraft I:2100-07-01/ Tillsyn utövas av länsstyrelsen. Lag (2099:40).")
    ended = "1 § Denna lag gäller.\n\n3 § /Upphör att gälla U:2100-07-01 genom lag 2099:41/ Tillsyn utövas av myndigheten."

    kinds = [(c.kind, c.citation) for c in diff_statute(old, new, "2099:1").changes]
    (repeal,) = diff_statute("1 § Denna lag gäller.\n\n3 § Tillsyn utövas av myndigheten.", ended, "2099:1").changes

    assert (REPEALED, "3 §") not in kinds and (AMENDED, "3 §") in kinds
    assert (repeal.kind, repeal.amending_sfs, repeal.in_force) == (REPEALED, "2099:41", date(2100, 7, 1))
