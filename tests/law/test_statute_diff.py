"""The per-unit diff, the word diff and the tag-agreement report, on small texts of our own."""

from __future__ import annotations

import gzip
import json
from datetime import date

from law.diff import ADDED, AMENDED, RENUMBERED, REPEALED, diff_statute, word_diff
from law.report import diff_report
from law.sfs_records import normalise_text, parse_record
from tests.law.sfs_records_fixtures import NEW_TEXT, OLD_TEXT, record, write_records


def test_normalise_joins_hard_wrapped_lines_and_keeps_paragraphs():
    text = normalise_text("1 § Ett tjänst-\r\ngöringsställe och en\r\nbygg- och\r\nrivningsåtgärd.\r\n2 § Nästa.\r\n\r\nRubrik")
    assert text == "1 § Ett tjänstgöringsställe och en bygg- och rivningsåtgärd.\n\n2 § Nästa.\n\nRubrik"


def test_each_kind_of_change_with_its_act_and_date():
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


def test_a_section_removed_without_a_stub_is_repealed():
    diff = diff_statute("1 § A gäller.\n\n2 § B gäller.", "1 § A gäller.", "2099:1")
    assert [(c.kind, c.citation, c.new_text) for c in diff.changes] == [(REPEALED, "2 §", "")]


def test_tag_agreement_counts_wording_and_tags_separately():
    old = "1 § A gäller. Lag (2099:1).\n\n2 § B gäller.\n\n3 § C gäller."
    # 1 §: new tag, same wording (disagrees with (a)); 2 §: new wording and tag; 3 §: new wording, no tag.
    new = "1 § A gäller. Lag (2099:9).\n\n2 § B gäller inte. Lag (2099:9).\n\n3 § C gäller inte."
    agreement = diff_statute(old, new, "2099:1").agreement
    assert (agreement.tag_changed, agreement.tag_changed_and_text_changed) == (2, 1)
    assert (agreement.text_changed, agreement.text_changed_and_new_tag) == (2, 1)
    assert agreement.tag_changed_share == 0.5 and agreement.text_changed_share == 0.5


def test_word_diff_marks_words_added_and_removed():
    stycken = word_diff("2 § Ett företag ska föra register.", "2 § Ett företag ska föra ett digitalt register.")
    assert len(stycken) == 1
    ops = [(s.op, s.text.strip()) for s in stycken[0]]
    assert ("added", "ett digitalt") in ops
    assert all(op != "removed" for op, _ in ops)
    removed = word_diff("A gäller alltid nu.", "A gäller nu.")[0]
    assert ("removed", "alltid") in [(s.op, s.text.strip()) for s in removed]


def test_report_over_a_small_fixture(tmp_path):
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


def test_parse_record_reads_the_fields():
    parsed = parse_record(record("2099:1"))
    assert parsed.amended_through == "SFS 2099:11" and parsed.record_id == "4711"
    assert parsed.amending_acts["2099:11"].in_force == date(2100, 7, 1)
    assert parsed.text.startswith("1 § Denna lag gäller för alla företag.\n\n2 §")
