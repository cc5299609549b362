"""Tests of law.sfs_parser against the real SFS corpus (data/sfs/sfs.jsonl.gz)."""

from __future__ import annotations

import csv
import gzip
import json
import re
from functools import lru_cache
from pathlib import Path

import pytest

from law.sfs_parser import ParsedSection, ParsedStatute, number_key, parse_statute

DATA = Path(__file__).resolve().parents[2] / "data" / "sfs"

# A deliberately naive § detector, independent of the parser: the way index.tsv's
# `sections` column was counted (every paragraph opening with "N §" / "N a §" before
# the transitional provisions, temporal duplicates included).
NAIVE_SECTION = re.compile(r"^\d+(?: [a-z])? § ")

# Where the parser and the naive count (= index.tsv) legitimately differ:
INDEX_DIFFERENCES = {
    # The naive count misses §§ whose number is glued to the text.
    "1960:729": +1,  # "53 g §Utöver …"
    "1987:672": +1,  # "11 §* Rätten …"
    "2010:110": +1,  # "11 §/Träder i kraft I:2025-12-01/ …"
    "2010:1622": +1,  # "10 kap. Överklagande 1 § …" (§ run into its chapter heading)
    # The naive count takes list items and table rows that cite a § for sections.
    "1994:260": -2,  # "38 § om interimistiskt beslut,", "42 § första och andra styckena …"
    "1995:1554": -5,  # "3 a § om väsentlighet," … "7 § om undertecknande."
    "1999:1079": -2,  # "17 § om jäv, och", "18 § om anlitande av biträde."
    "2005:551": -1,  # "40 § om närvaro vid bolagsstämma och"
    "2011:1244": -10,  # deadline tables: "7 § första stycket\t\tden 26 i månaden …"
}


@lru_cache(maxsize=1)
def corpus() -> dict[str, dict]:
    with gzip.open(DATA / "sfs.jsonl.gz", "rt", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    return {record["sfs"]: record for record in records}


@lru_cache(maxsize=None)
def parsed(sfs: str) -> ParsedStatute:
    return parse_statute(corpus()[sfs]["text"], sfs)


@lru_cache(maxsize=1)
def index_sections() -> dict[str, int]:
    with open(DATA / "index.tsv", encoding="utf-8") as fh:
        return {row["sfs"]: int(row["sections"]) for row in csv.DictReader(fh, delimiter="\t")}


def naive_section_count(text: str) -> int:
    count = 0
    for paragraph in text.split("\n\n"):
        if paragraph == "Övergångsbestämmelser" or re.fullmatch(r"\d{4}:\d+", paragraph):
            break
        count += bool(NAIVE_SECTION.match(paragraph))
    return count


def sections_of(statute: ParsedStatute) -> list[ParsedSection]:
    return [unit for unit in statute.sections if unit.kind == "section"]


def citations(sfs: str) -> set[str]:
    return {unit.citation for unit in sections_of(parsed(sfs))}


# --- section counts -----------------------------------------------------------------


@pytest.mark.parametrize("sfs, expected", [("1977:1160", 118), ("1982:80", 70), ("2009:400", 593)])
def test_section_count_matches_text(sfs: str, expected: int) -> None:
    statute = parsed(sfs)
    found = sections_of(statute)
    assert naive_section_count(corpus()[sfs]["text"]) == expected
    assert len(found) == expected == index_sections()[sfs]
    # Temporal duplicates are the only §§ sharing a citation in these three statutes.
    versions = [u for u in found if u.temporal]
    assert len({u.citation for u in found}) == expected - (len(versions) - len({u.citation for u in versions}))
    assert len({(u.citation, u.temporal) for u in found}) == expected


def test_known_citations() -> None:
    assert {"1 kap. 1 §", "3 kap. 2 a §", "9 kap. 5 §"} <= citations("1977:1160")
    las = parsed("1982:80")
    assert {"1 §", "7 §", "22 §", "2 a §", "33 d §"} <= citations("1982:80")
    assert las.chapters == [] and all(u.chapter is None for u in las.sections)
    osl = parsed("2009:400")
    assert [number for number, _ in osl.chapters] == [str(n) for n in range(1, 45)]
    assert osl.chapters[-1][1].startswith("Tystnadsplikt som följer av andra författningar")
    assert {"1 kap. 1 §", "21 kap. 7 §", "44 kap. 1 §"} <= citations("2009:400")


def test_section_counts_agree_with_index_tsv_over_the_corpus() -> None:
    differences = {}
    for sfs, record in corpus().items():
        assert naive_section_count(record["text"]) == index_sections()[sfs], sfs
        delta = len(sections_of(parsed(sfs))) - index_sections()[sfs]
        if delta:
            differences[sfs] = delta
    assert differences == INDEX_DIFFERENCES


def test_list_items_citing_sections_are_not_sections() -> None:
    statute = parsed("1995:1554")
    seven = next(u for u in statute.sections if u.citation == "7 kap. 7 §")
    assert "3 a § om väsentlighet," in seven.stycken
    assert "7 § om undertecknande." in seven.stycken


# --- losslessness and order -----------------------------------------------------------


def test_every_paragraph_is_kept_exactly_once_over_the_corpus() -> None:
    for sfs, record in corpus().items():
        statute = parsed(sfs)
        rebuilt = [p for unit in statute.units for p in [*unit.prelude, *unit.stycken]]
        rebuilt += statute.trailing
        squeeze = re.compile(r"\s+")
        original = [p for p in record["text"].split("\n\n") if p.strip()]
        assert squeeze.sub("", "".join(rebuilt)) == squeeze.sub("", "".join(original)), sfs
        assert [u.ordinal for u in statute.units] == list(range(len(statute.units)))
        assert all(unit.stycken for unit in statute.units), sfs


def test_structure_is_ordered_over_the_corpus() -> None:
    """Chapters and §§ only go up: a reference or a contents line taken for structure
    would break the order."""
    for sfs in corpus():
        statute = parsed(sfs)
        chapters = [number_key(number) for number, _ in statute.chapters]
        assert chapters == sorted(set(chapters)), sfs
        previous: dict[str | None, tuple[int, str]] = {}
        for unit in sections_of(statute):
            key = number_key(unit.section or "")
            assert key >= previous.get(unit.chapter, (0, "")), (sfs, unit.citation)
            previous[unit.chapter] = key
        kinds = [unit.kind for unit in statute.units]
        last_body = max((i for i, k in enumerate(kinds) if k in ("section", "chapter")), default=-1)
        assert all(k in ("transitional", "appendix") for k in kinds[last_body + 1:]), sfs
        assert "transitional" not in kinds[:last_body + 1] and "appendix" not in kinds[:last_body + 1]


# --- chapters -------------------------------------------------------------------------


def test_table_of_contents_lines_are_not_chapters() -> None:
    statute = parsed("2021:890")
    assert [number for number, _ in statute.chapters] == [str(n) for n in range(1, 11)]
    first = next(u for u in statute.sections if u.citation == "1 kap. 1 §")
    assert "1 kap. - Inledande bestämmelser" in first.stycken
    assert "10 kap. - Tillsyn" in first.stycken
    # Contents lines without the dash (mervärdesskattelagen 1 kap. 2 §).
    vat = parsed("2023:200")
    contents = next(u for u in vat.sections if u.citation == "1 kap. 2 §")
    assert "24 kap. Överklagande" in contents.stycken
    assert [number for number, _ in vat.chapters][:3] == ["1", "2", "3"]


def test_old_capital_kap_and_m_m_headings_are_chapters() -> None:
    assert parsed("1960:729").chapters[0] == ("1", "Upphovsrättens föremål och innehåll")
    assert ("10", "Bostadsarrende") in parsed("1970:994").chapters
    assert ("20", "Om tjänstefel m. m.") in parsed("1962:700").chapters
    assert ("2", "Allmänna hänsynsregler m.m.") in parsed("1998:808").chapters


def test_references_in_running_text_are_not_chapters() -> None:
    statute = parsed("1977:1160")
    assert [number for number, _ in statute.chapters] == ["1", "2", "3", "4", "5", "6", "7", "8", "9"]
    text = next(u for u in statute.sections if u.citation == "1 kap. 2 c §").text
    assert "3 kap. 4 § andra stycket" in text


def test_chapter_without_title_takes_the_next_line() -> None:
    assert ("19", "Handläggning av inskrivningsärenden m.m.") in parsed("1970:994").chapters


def test_section_run_into_its_chapter_heading_is_split() -> None:
    statute = parsed("2010:1622")
    first = next(u for u in statute.sections if u.citation == "10 kap. 1 §")
    assert first.chapter_title == "Överklagande"
    assert first.stycken[0].startswith("1 § Folkhälsomyndighetens")


def test_a_marker_after_the_chapter_number_keeps_the_chapter() -> None:
    """A text between two versions marks a chapter's rubrik, or the chapter, after its number (our own statute, in
    the records' layout); the §§ under it stay that chapter's, not the one before."""
    text = ("11 kap. Avbrytande\n\n1 § Överföringen får avbrytas.\n\n"
            "12 kap. /Rubriken upphör att gälla U:2027-01-01/ Tillsyn m.m.\n\n"
            "/Rubriken träder i kraft I:2027-01-01/ Tillsyn\n\n"
            "1 § Nätmyndigheten utövar tillsyn.\n\n2 § Tillsynsmyndigheten får begära upplysningar.\n\n"
            "13 kap. /Kapitlet träder i kraft I:2027-01-01/ Förseningsavgifter\n\n"
            "1 § En förseningsavgift tas ut.")
    statute = parse_statute(text, "2099:1")

    assert [number for number, _ in statute.chapters] == ["11", "12", "13"]
    assert ("12", "Tillsyn m.m.") in statute.chapters
    units = {unit.citation: unit for unit in statute.sections if unit.kind == "section"}
    assert list(units) == ["11 kap. 1 §", "12 kap. 1 §", "12 kap. 2 §", "13 kap. 1 §"]
    # Only the rubrik ends: today's §§ of 12 kap. are in force; all of 13 kap. is still to come.
    assert units["12 kap. 1 §"].temporal_kind is None
    assert units["13 kap. 1 §"].temporal_kind == "in_force" and units["13 kap. 1 §"].temporal_date == "2027-01-01"


def test_an_old_chapter_heading_with_two_spaces_is_a_chapter() -> None:
    statute = parse_statute("13 kap. Om tjänstehjon\n\n1 § Förr.\n\n14 kap.  Om legohjon\n\n1 § Sedan.", "2099:1")
    assert [unit.citation for unit in statute.sections] == ["13 kap. 1 §", "14 kap. 1 §"]


def test_repealed_chapter_stub_is_a_unit() -> None:
    stub = next(u for u in parsed("1962:700").sections if u.citation == "33 kap.")
    assert stub.kind == "chapter" and stub.repealed
    assert stub.text == "33 kap. Kapitlet har upphävts genom lag (2018:1253)."


# --- numbering and citations -----------------------------------------------------------


def test_continuous_numbering_is_detected_from_the_text() -> None:
    continuous = {sfs for sfs in corpus() if parsed(sfs).chapters_numbered_continuously}
    assert continuous == {"1915:218", "1960:729"}
    avtalslagen = citations("1915:218")
    assert "36 §" in avtalslagen and not any("kap." in c for c in avtalslagen)
    thirty_six = next(u for u in parsed("1915:218").sections if u.citation == "36 §")
    assert thirty_six.chapter == "3"
    assert {"1 §", "26 k §", "53 g §"} <= citations("1960:729")


# --- headings, amendments, stubs -------------------------------------------------------


def test_section_headings_are_inherited_until_the_next_heading() -> None:
    semesterlag = parsed("1977:480")
    by_citation = {u.citation: u for u in semesterlag.sections}
    assert by_citation["3 §"].heading == "Semesterår och intjänandeår"
    las = {u.citation: u for u in parsed("1982:80").sections}
    assert las["7 §"].heading == las["10 §"].heading == "Uppsägning från arbetsgivarens sida"
    assert las["22 §"].heading == "Turordning vid uppsägning"
    arbetsmiljo = {u.citation: u for u in parsed("1977:1160").sections}
    assert arbetsmiljo["3 kap. 2 a §"].chapter_title == "Allmänna skyldigheter"


def test_avdelning_headings_are_parts_not_section_headings() -> None:
    osl = {u.citation: u for u in parsed("2009:400").sections}
    assert osl["15 kap. 1 §"].part == "AVDELNING IV. SEKRETESS TILL SKYDD FÖR ALLMÄNNA INTRESSEN"
    assert "AVDELNING" not in (osl["15 kap. 1 §"].heading or "")


def test_amendment_tags() -> None:
    first = next(u for u in parsed("1977:1160").sections if u.citation == "1 kap. 1 §")
    assert first.amendment == "Lag (1994:579)" and first.amended_by == "1994:579"
    ordinance = parsed("1977:1166").sections[0]
    assert ordinance.amendment is not None and ordinance.amendment.startswith("Förordning (")
    never_amended = next(u for u in parsed("1982:80").sections if u.citation == "8 §")
    assert never_amended.amendment is None


def test_repealed_stubs_are_sections() -> None:
    las = [u for u in parsed("1982:80").sections if u.citation == "6 a §"]
    assert len(las) == 1 and las[0].repealed and las[0].text == "6 a § Har upphävts genom lag (2006:439)."
    # A stub and the new § with the same number are both kept (1995:584 9 §).
    nine = [u for u in parsed("1995:584").sections if u.citation == "9 §"]
    assert [u.repealed for u in nine] == [True, False]


# --- temporal versions ----------------------------------------------------------------


def test_temporal_versions_are_separate_sections() -> None:
    versions = [u for u in parsed("1995:584").sections if u.citation == "3 §"]
    assert [(u.temporal_kind, u.temporal_date) for u in versions] == [
        ("expires", "2024-07-01"),
        ("in_force", "2024-07-01"),
    ]
    assert versions[0].temporal == "Upphör att gälla U:2024-07-01"
    assert versions[1].temporal == "Träder i kraft I:2024-07-01"
    assert versions[1].text.startswith("3 § /Träder i kraft I:2024-07-01/ Det finns följande former")


def test_temporal_markers_over_the_corpus() -> None:
    marker = re.compile(r"^\d+(?: [a-z])? ?§ ?/(?:Träder|Upphör|Ny beteckning)", re.M)
    for sfs, record in corpus().items():
        statute = parsed(sfs)
        marked = [u for u in sections_of(statute) if marker.match(u.stycken[0])]
        assert len(marked) == len(marker.findall(record["text"])), sfs
        assert all(u.temporal_kind and u.temporal_date for u in marked), sfs
    # §§ of a chapter that is about to be repealed inherit the chapter's marker.
    clearing = [u for u in parsed("2007:528").sections if u.chapter == "19"]
    assert clearing and all(u.temporal_kind == "expires" for u in clearing)


def test_temporal_headings_follow_their_version() -> None:
    """"/Rubriken upphör att gälla …/" and "/Rubriken träder i kraft …/" precede a § pair."""
    versions = [u for u in parsed("2010:110").sections if u.citation == "27 kap. 36 §"]
    assert [(u.temporal_kind, u.heading) for u in versions] == [
        ("expires", "Sjukpenning efter 66-årsdagen"),
        ("in_force", "Sjukpenning efter uppnådd riktålder för pension"),
    ]


# --- transitional provisions and appendices -------------------------------------------


def test_transitional_blocks() -> None:
    statute = parsed("1977:1160")
    labels = [block.label for block in statute.transitional]
    assert labels[0] == "1977:1160" and labels[-1] == "2018:126" and "1994:579" in labels
    block = next(b for b in statute.transitional if b.label == "2008:297")
    assert block.stycken == [
        "1. Denna lag träder i kraft den 1 juli 2008.",
        "2. För beslut som meddelats av Arbetsmiljöverket före den 1 juli 2008 gäller 9 kap. 2 § i sin äldre lydelse.",
    ]
    assert block.citation == "Övergångsbestämmelser 2008:297"
    # The original act's block printed without a number (alkohollagen).
    alcohol = parsed("2010:1622").transitional
    assert alcohol[0].label is None and alcohol[0].stycken[0].startswith("1. Denna lag träder i kraft")
    # No heading at all, only numbered blocks (1981:130).
    assert [b.label for b in parsed("1981:130").transitional][-1] == "2022:976"


def test_transitional_counts_over_the_corpus() -> None:
    for sfs, record in corpus().items():
        statute = parsed(sfs)
        labels = re.findall(r"(?:^|\n\n)(\d{4}:\d+)(?=\n\n|$)", record["text"])
        assert [b.label for b in statute.transitional if b.label] == labels, sfs


def test_appendices() -> None:
    arl = parsed("1995:1554")
    assert [a.label for a in arl.appendices] == ["Bilaga 1", "Bilaga 2", "Bilaga 3"]
    # Transitional blocks before and after the appendices stay in document order.
    kinds = [u.kind for u in arl.units if u.kind != "section"]
    assert kinds[0] == "transitional" and "appendix" in kinds and kinds[-1] == "transitional"
    repealed = parsed("1998:808").appendices[0]
    assert repealed.text == "Bilaga 1 Har upphävts genom lag (2001:1079)."


def test_preamble_and_plain_statute() -> None:
    text = "Inledande text som inte är en paragraf.\n\nAllmänt\n\n1 § Första.\n\nAndra stycket.\n\n2 § Andra."
    statute = parse_statute(text, "2099:1")
    kinds = [(u.kind, u.citation, u.heading) for u in statute.sections]
    assert kinds == [("preamble", "", None), ("section", "1 §", "Allmänt"), ("section", "2 §", "Allmänt")]
    assert statute.sections[1].stycken == ["1 § Första.", "Andra stycket."]
    assert statute.sections[1].prelude == ["Allmänt"]
