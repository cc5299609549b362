"""Legal reference detection on the real forms in data/sfs/REFERENCE_FORMATS.md."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from law.legal_refs import (
    LegalReference,
    StatuteDirectory,
    analyse_references,
    citation,
    document_links,
    find_sfs_numbers,
    parse_references,
    reference_links,
    statute_links,
    unit_citations,
)
from law.statute_names import CURATED, name_key, names_for, regulation_names

INDEX = Path(__file__).resolve().parents[2] / "data" / "sfs" / "index.tsv"


@pytest.fixture(autouse=True)
def _media_root() -> None:
    """Shadow the Django-only autouse fixture of tests/conftest.py: pure Python tests."""


@pytest.fixture(scope="module")
def directory() -> StatuteDirectory:
    return StatuteDirectory.from_index_tsv(INDEX)


def cites(refs: list[LegalReference]) -> list[str]:
    return [citation(r) for r in refs]


def full(refs: list[LegalReference]) -> list[tuple]:
    return [(r.sfs, r.chapter, r.section, r.stycke, r.punkt) for r in refs]


# ------------------------------------------------------------ SFS numbers


@pytest.mark.parametrize(
    "text, expected",
    [
        ("SFS 1977:1160", ["1977:1160"]),
        ("Arbetsmiljölag (1977:1160)", ["1977:1160"]),
        ("se 1977:1160 och 1982:80", ["1977:1160", "1982:80"]),
        ("t.o.m. SFS 2023:349", ["2023:349"]),
        ("SFS\u00a01977:1160", ["1977:1160"]),
        ("Lag (1994:579). Lag (1994:579).", ["1994:579"]),
    ],
)
def test_find_sfs_numbers(text: str, expected: list[str]) -> None:
    assert find_sfs_numbers(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "prop. 1976/77:149",
        "bet. 2005/06:FöU9",
        "SOU 2019:1",
        "NJA 2005 s. 1",
        "AD 2005 nr 1",
        "RH 1999:1",
        "HFD 2015 ref. 1",
        "2001/23/EG",
        "Ds 2019:1",
        "kl. 10:30",
    ],
)
def test_look_alikes_are_not_sfs_numbers_or_references(text: str) -> None:
    assert find_sfs_numbers(text) == []
    assert parse_references(text) == []


@pytest.mark.parametrize(
    "text, number",
    [
        ("(EU) 2016/679", "(EU) 2016/679"),
        ("förordning (EG) nr 1907/2006", "(EG) 2006/1907"),
        ("AFS 2001:1", "AFS 2001:1"),
        ("ELSÄK-FS 2022:1", "ELSÄK-FS 2022:1"),
        ("MSBFS 2020:1", "MSBFS 2020:1"),
    ],
)
def test_regulation_and_eu_numbers_name_documents_not_sfs_numbers(text: str, number: str) -> None:
    assert find_sfs_numbers(text) == []
    assert [(r.sfs, r.section, r.article) for r in parse_references(text)] == [(number, None, None)]


# ------------------------------------------- REFERENCE_FORMATS.md examples


def test_01_amendment_tag_is_not_a_reference() -> None:
    text = "… uppnå en god arbetsmiljö. Lag (1994:579)."
    assert parse_references(text) == []
    assert find_sfs_numbers(text) == ["1994:579"]


def test_02_amendment_tag_ordinance() -> None:
    text = "… inom Sveriges sjöterritorium. Förordning (2018:128)."
    assert parse_references(text) == []
    assert find_sfs_numbers(text) == ["2018:128"]


def test_03_chapter_carries_over_in_section_lists() -> None:
    text = "2 c § Bestämmelserna i 2 kap. 1 § första stycket, 2 och 3 §§ och 3 kap. 4 § andra stycket gäller utländska fartyg"
    refs = parse_references(text)
    assert full(refs) == [
        (None, "2", "1", 1, None),
        (None, "2", "2", None, None),
        (None, "2", "3", None, None),
        (None, "3", "4", 2, None),
    ]
    assert refs[0].raw == "2 kap. 1 § första stycket, 2 och 3 §§ och 3 kap. 4 § andra stycket"
    assert text[refs[0].span[0] : refs[0].span[1]] == refs[0].raw


def test_04_letter_suffix() -> None:
    assert cites(parse_references("… uppfyller kraven i 3 kap. 2 a §.")) == ["3 kap. 2 a §"]


def test_05_chapter_ranges_without_section() -> None:
    refs = parse_references("3 § Vid tillämpning av 2–4 och 7–9 kap. ska med arbetstagare likställas")
    assert cites(refs) == ["2 kap.", "3 kap.", "4 kap.", "7 kap.", "8 kap.", "9 kap."]


def test_06_short_name_with_sfs(directory: StatuteDirectory) -> None:
    (ref,) = parse_references("… finns i fartygssäkerhetslagen (2003:364).")
    assert (ref.sfs, ref.statute_name, ref.section) == ("2003:364", "fartygssäkerhetslagen", None)
    assert ref.raw == "fartygssäkerhetslagen (2003:364)"


def test_07_chapter_of_named_statute(directory: StatuteDirectory) -> None:
    (ref,) = analyse_references("… enligt 30 kap. socialförsäkringsbalken vilar på honom.", directory)
    assert (ref.sfs, ref.statute_name, ref.chapter, ref.section) == ("2010:110", "socialförsäkringsbalken", "30", None)
    assert citation(ref) == "30 kap."


def test_08_lagen_sfs_om_form() -> None:
    (ref,) = parse_references("1. bank- eller finansieringsrörelse enligt lagen (2004:297) om bank- och finansieringsrörelse,")
    assert ref.sfs == "2004:297"
    assert ref.statute_name == "lagen om bank- och finansieringsrörelse"
    assert ref.raw == "lagen (2004:297) om bank- och finansieringsrörelse"


def test_09_chapter_section_name_sfs() -> None:
    (ref,) = parse_references("… enligt definitionen i 1 kap. 4 § årsredovisningslagen (1995:1554),")
    assert (ref.sfs, ref.statute_name, citation(ref)) == ("1995:1554", "årsredovisningslagen", "1 kap. 4 §")


def test_10_denna_lag() -> None:
    text = "Sanktionsavgift som avses i 8 kap. 5 § denna lag får påföras"
    (ref,) = parse_references(text)
    assert (ref.statute_name, ref.sfs, ref.anaphoric, citation(ref)) == ("denna lag", None, True, "8 kap. 5 §")
    (own,) = parse_references(text, self_sfs="1977:1160")
    assert own.sfs == "1977:1160"


def test_11_samma_lag_and_den_lagen() -> None:
    (ref,) = parse_references("… som anges i 4 kap. 1 § samma lag. Lag (2004:572).")
    assert (ref.statute_name, ref.anaphoric, citation(ref)) == ("samma lag", True, "4 kap. 1 §")
    refs = parse_references(
        "… tillstånd enligt 2 kap. 1 § den lagen eller bedriver verksamhet enligt 3 kap. 1 § andra stycket 2"
    )
    assert [(r.statute_name, r.chapter, r.section, r.stycke, r.punkt) for r in refs] == [
        ("den lagen", "2", "1", None, None),
        (None, "3", "1", 2, 2),
    ]


def test_11_anaphora_resolves_to_most_recent_named_statute(directory: StatuteDirectory) -> None:
    text = (
        "tillstånd enligt lagen (2004:297) om bank- och finansieringsrörelse eller enligt miljöbalken; "
        "tillstånd enligt 2 kap. 1 § den lagen"
    )
    refs = analyse_references(text, directory)
    last = refs[-1]
    assert (last.sfs, last.statute_name, last.anaphoric, citation(last)) == ("1998:808", "miljöbalken", True, "2 kap. 1 §")
    text2 = "enligt 7 § LAS. Se även 22 § samma lag."
    assert [r.sfs for r in analyse_references(text2, directory)] == ["1982:80", "1982:80"]


def test_12_punkt_range_after_stycket() -> None:
    refs = parse_references("… som avses i 1 kap. 2 § första stycket 1-13 får inte tillhandahålla anonyma konton …")
    assert [r.punkt for r in refs] == list(range(1, 14))
    assert {(r.chapter, r.section, r.stycke) for r in refs} == {("1", "2", 1)}


def test_13_punkt_alternatives_and_fundamental_laws(directory: StatuteDirectory) -> None:
    text = (
        "Om rätten enligt 3 kap. 4 § första stycket 4 eller 5 tryckfrihetsförordningen eller "
        "2 kap. 4 § första stycket 4 eller 5 yttrandefrihetsgrundlagen"
    )
    refs = analyse_references(text, directory)
    assert full(refs) == [
        ("1949:105", "3", "4", 1, 4),
        ("1949:105", "3", "4", 1, 5),
        ("1991:1469", "2", "4", 1, 4),
        ("1991:1469", "2", "4", 1, 5),
    ]


def test_14_mening_inside_same_section() -> None:
    (ref,) = parse_references("… gäller första stycket andra meningen i fråga om domförhet. Lag (2021:285).")
    assert (ref.section, ref.stycke, ref.statute_name) == (None, 1, None)


def test_15_mixed_list_then_law_name() -> None:
    text = (
        "2 kap. 1 § andra stycket, 5 kap. 20, 37–44 och 48 §§, 6 kap. 2 § första stycket och 5 § "
        "årsredovisningslagen (1995:1554),"
    )
    refs = parse_references(text)
    assert cites(refs) == (
        ["2 kap. 1 §", "5 kap. 20 §"]
        + [f"5 kap. {n} §" for n in range(37, 45)]
        + ["5 kap. 48 §", "6 kap. 2 §", "6 kap. 5 §"]
    )
    assert {r.sfs for r in refs} == {"1995:1554"}
    assert refs[0].stycke == 2 and refs[-2].stycke == 1


def test_16_hyphen_ranges_with_letters() -> None:
    refs = parse_references("Bestämmelserna i 4-6 b, 6 f, 6 g, 7-20, 22-37, 39 och 40 §§ gäller inte för")
    sections = [r.section for r in refs]
    # Documented approximation: "4-6 b" is 4, 5, 6, 6 b (6 a cannot be known).
    assert sections[:6] == ["4", "5", "6", "6 b", "6 f", "6 g"]
    assert sections[6:] == [str(n) for n in range(7, 21)] + [str(n) for n in range(22, 38)] + ["39", "40"]
    assert all(r.chapter is None for r in refs)


def test_17_lettered_chapter() -> None:
    refs = parse_references("… det som föreskrivs om sanktionsavgift i 7 a kap. 5-11 §§ den lagen.")
    assert cites(refs) == [f"7 a kap. {n} §" for n in range(5, 12)]
    assert all(r.anaphoric for r in refs)


def test_18_eu_articles_are_articles_of_the_eu_act_not_sfs_references() -> None:
    text = (
        "… med stöd av artikel 6.1 e i EU:s dataskyddsförordning, … enligt artikel 16 i Europaparlamentets "
        "och rådets förordning (EU) 2016/679 av den 27 april 2016 …"
    )
    refs = parse_references(text)
    # Without a directory the GDPR's name is unknown; its number is not.
    assert [(r.sfs, r.article, r.punkt, r.led, r.section) for r in refs] == [
        (None, "6", 1, "e", None), ("(EU) 2016/679", "16", None, None, None)]
    assert find_sfs_numbers(text) == []


def test_19_temporal_markers_are_not_references() -> None:
    assert parse_references("3 § /Träder i kraft I:2024-07-01/ Det finns följande former av föräldraledighet:") == []
    assert parse_references("3 § /Upphör att gälla U:2024-07-01/ Det finns följande former") == []


def test_20_sfs_prefix_in_running_text() -> None:
    text = "(I kraft den 1 januari 1994 genom SFS 1993:1646 och den 1 december 1995 genom SFS 1995:1185). Lag (1993:647)."
    refs = parse_references(text)
    assert [(r.sfs, r.section) for r in refs] == [("1993:1646", None), ("1995:1185", None)]
    assert find_sfs_numbers(text) == ["1993:1646", "1995:1185", "1993:647"]


def test_21_moment() -> None:
    (ref,) = parse_references("… enligt 27 § 1 mom. värnpliktslagen (1941:967) …")
    assert (ref.sfs, ref.statute_name, citation(ref)) == ("1941:967", "värnpliktslagen", "27 §")


def test_22_punkten_in_transitional_provisions() -> None:
    text = (
        "… med stöd av punkten 3 i övergångsbestämmelserna till lagen (1999:1114) om ändring i "
        "lagen (1995:1560) om årsredovisning i försäkringsföretag"
    )
    refs = parse_references(text)
    assert [r.sfs for r in refs] == ["1999:1114", "1995:1560"]
    assert refs[1].statute_name == "lagen om årsredovisning i försäkringsföretag"


@pytest.mark.parametrize(
    "heading",
    [
        "20 kap. Om tjänstefel m. m.",
        "1 Kap. Upphovsrättens föremål och innehåll",
        "10 Kap. Bostadsarrende",
        "1 kap. - Inledande bestämmelser",
        "4 § En arbetstagare har rätt till tjugofem semesterdagar",
    ],
)
def test_structural_headings_are_not_references(heading: str) -> None:
    assert parse_references(heading) == []
    assert parse_references("Text.\n\n" + heading) == []


def test_official_titles_and_definite_forms(directory: StatuteDirectory) -> None:
    text = "lagen (1982:80) om anställningsskydd, semesterlagen (1977:480), offentlighets- och sekretesslagen (2009:400)"
    refs = analyse_references(text, directory)
    assert [(r.sfs, r.statute_name) for r in refs] == [
        ("1982:80", "lagen om anställningsskydd"),
        ("1977:480", "semesterlagen"),
        ("2009:400", "offentlighets- och sekretesslagen"),
    ]


def test_hard_line_breaks_and_nbsp_inside_references() -> None:
    refs = parse_references("enligt 12\u00a0kap.\n16\u00a0b\u00a0§ och 3\u2013 5 §§")
    assert cites(refs) == ["12 kap. 16 b §", "12 kap. 3 §", "12 kap. 4 §", "12 kap. 5 §"]


# --------------------------------------------------------- informal forms


@pytest.mark.parametrize(
    "text, expected",
    [
        ("enligt 3 kap 2 § gäller", ["3 kap. 2 §"]),
        ("enligt 30 kap.1 § gäller", ["30 kap. 1 §"]),
        ("se 3 kap. 2 a § och 5 §", ["3 kap. 2 a §", "3 kap. 5 §"]),
        ("kraven i 2a §", ["2 a §"]),
    ],
)
def test_informal_section_forms(text: str, expected: list[str]) -> None:
    assert cites(parse_references(text)) == expected


@pytest.mark.parametrize(
    "text, sfs, cite, stycke",
    [
        ("Enligt AML 3:2 ska arbetsgivaren", "1977:1160", "3 kap. 2 §", None),
        ("BrB 3:1 handlar om mord", "1962:700", "3 kap. 1 §", None),
        ("se JB 12:46 1 st. om uppsägning", "1970:994", "12 kap. 46 §", 1),
        ("Gäller 7 § LAS här?", "1982:80", "7 §", None),
        ("Enligt LAS 7 § krävs saklig grund", "1982:80", "7 §", None),
        ("5 kap. 1 § UtlL", "2005:716", "5 kap. 1 §", None),
        ("3 kap. 2 a § arbetsmiljölagen", "1977:1160", "3 kap. 2 a §", None),
        ("36 § avtalslagen", "1915:218", "36 §", None),
        ("22 § lagen om anställningsskydd", "1982:80", "22 §", None),
        ("3 kap. 2 § i arbetsmiljölagen", "1977:1160", "3 kap. 2 §", None),
        ("3 kap. arbetsmiljölagen", "1977:1160", "3 kap.", None),
        ("2 kap. 3 § MB", "1998:808", "2 kap. 3 §", None),
        ("21 kap. 7 § OSL", "2009:400", "21 kap. 7 §", None),
        ("4 § första stycket 2 diskrimineringslagen", "2008:567", "4 §", 1),
    ],
)
def test_abbreviation_and_name_forms(directory: StatuteDirectory, text: str, sfs: str, cite: str,
                                     stycke: int | None) -> None:
    (ref,) = analyse_references(text, directory)
    assert (ref.sfs, citation(ref), ref.stycke) == (sfs, cite, stycke)


def test_stycke_punkt_abbreviations() -> None:
    (ref,) = parse_references("7 § 3 st. 2 p. gäller")
    assert (ref.section, ref.stycke, ref.punkt) == ("7", 3, 2)
    assert citation(ref, detailed=True) == "7 § tredje stycket 2"


@pytest.mark.parametrize(
    "text, sfs",
    [
        ("arbetsmiljölagen", "1977:1160"),
        ("arbetsmiljölag", "1977:1160"),
        ("Arbetsmiljölagens", "1977:1160"),
        ("lagen om anställningsskydd", "1982:80"),
        ("anställningsskyddslagen", "1982:80"),
        ("diskrimineringslagen", "2008:567"),
        ("dataskyddslagen", "2018:218"),
        ("penningtvättslagen", "2017:630"),
        ("LAS", "1982:80"),
        ("MBL", "1976:580"),
        ("brottsbalken", "1962:700"),
        ("plan- och bygglagen", "2010:900"),
        ("regeringsformen", "1974:152"),
        ("Arbetsmiljölag (1977:1160)", "1977:1160"),
    ],
)
def test_statute_only_mentions(directory: StatuteDirectory, text: str, sfs: str) -> None:
    (ref,) = analyse_references(f"Vad säger {text} om detta?", directory)
    assert (ref.sfs, ref.chapter, ref.section) == (sfs, None, None)


@pytest.mark.parametrize(
    "text",
    [
        "Jag las boken igår.",
        "Filen är 5 MB stor.",
        "Ett fl antal personer",
        "Vårt AML-arbete och våra AML rutiner",
        "Aktiebolagen lämnade förslag och underlag till vårt arbetslag.",
        "Vi pratade om lagen och det nya förslaget.",
        "Det finns ingen lag om det.",
        "Vi träffas kl. 10:30 den 3 maj.",
        "Sida 12 av 40, punkt 3.",
        "lagen om det här gäller inte",
        "Finns det en lag om distansarbete?",
        "Varuslag, aktieslag och avgångsvederlag i skatteupplag",
    ],
)
def test_false_positives(text: str) -> None:
    assert parse_references(text) == []


def test_ambiguous_abbreviation_after_citing_word(directory: StatuteDirectory) -> None:
    refs = analyse_references("Vad säger FL om kommunicering, och hur tillämpas MB enligt RF?", directory)
    assert [r.sfs for r in refs] == ["2017:900", "1974:152"]


def test_an_abbreviation_opening_a_hyphenated_compound_names_its_statute(directory: StatuteDirectory) -> None:
    refs = analyse_references("Hur långt har PBL-ärendet kommit, och vad innebär MBL-förhandlingen för oss?", directory)
    assert [(r.sfs, r.section) for r in refs] == [("2010:900", None), ("1976:580", None)]
    assert [(r.sfs, r.section) for r in analyse_references("Enligt LAS-reglerna 22 § gäller det", directory)] == [
        ("1982:80", "22")]
    # An ambiguous abbreviation ("AML" is also money laundering), a capitalised tail and a word that is no
    # abbreviation name nothing; the abbreviation alone is read as before.
    assert analyse_references("Vi ser över AML-rutinerna och MBL-Nytt.", directory) == []
    assert analyse_references("EU-förordningen och ROT-avdraget", directory) == []
    # In lower case a head names its statute only when it cannot be a word (no vowel): "las" is a verb.
    assert [r.sfs for r in analyse_references("pbl-ärendet och mbl-förhandlingen", directory)] == ["2010:900", "1976:580"]
    assert analyse_references("las-reglerna", directory) == []
    assert [r.sfs for r in analyse_references("Vad säger LAS om det?", directory)] == ["1982:80"]


# ------------------------------------------------------------ directory


def test_directory_resolution(directory: StatuteDirectory) -> None:
    assert len(directory) == 177
    assert directory.resolve("LAS") == "1982:80"
    assert directory.resolve("las") == "1982:80"  # explicit lookups are lenient
    assert directory.resolve("arbetsmiljölagens") == "1977:1160"
    assert directory.resolve("lagen om anställningsskydd") == "1982:80"
    assert directory.resolve("Lag (1982:80) om anställningsskydd") == "1982:80"
    assert directory.resolve("offentlighets- och sekretesslagen") == "2009:400"
    assert directory.resolve("förordningen om skydd mot olyckor") == "2003:789"
    assert directory.resolve("lagen om skydd mot olyckor") == "2003:778"
    assert directory.resolve("SFS 1977:1160") == "1977:1160"
    assert directory.resolve("1941:967") is None
    assert directory.resolve("okändalagen") is None
    assert directory.resolve("") is None
    assert directory.title("1982:80") == "Lag (1982:80) om anställningsskydd"


def test_directory_from_rows() -> None:
    d = StatuteDirectory([("1982:80", "Lag (1982:80) om anställningsskydd", ["lagen om anställningsskydd"], ["LAS"])])
    assert d.resolve("LAS") == "1982:80"
    assert "1982:80" in d
    refs = analyse_references("7 § LAS och 3 kap. 2 § AML", d)
    assert [(r.sfs, r.statute_name) for r in refs] == [("1982:80", "LAS"), (None, "AML")]


def test_names_for_titles() -> None:
    assert names_for("1977:1160", "Arbetsmiljölag (1977:1160)").short_names == ["arbetsmiljölagen"]
    las = names_for("1982:80", "Lag (1982:80) om anställningsskydd")
    assert las.short_names == ["lagen om anställningsskydd", "anställningsskyddslagen"]
    assert las.abbreviations == ["LAS"]
    assert names_for("2009:400", "Offentlighets- och sekretesslag (2009:400)").short_names[0] == "offentlighets- och sekretesslagen"
    assert names_for("1998:808", "Miljöbalk (1998:808)").short_names == ["miljöbalken"]
    assert names_for("2003:789", "Förordning (2003:789) om skydd mot olyckor").short_names == ["förordningen om skydd mot olyckor"]
    assert names_for("1974:152", "Kungörelse (1974:152) om beslutad ny regeringsform").short_names == [
        "regeringsformen", "kungörelsen om beslutad ny regeringsform",
    ]
    assert names_for("2010:696", "Radio- och tv-lag (2010:696)").short_names == ["radio- och tv-lagen"]
    assert name_key("Arbetsmiljölagens") == name_key("arbetsmiljölag") == "arbetsmiljölag"


def test_curated_table_only_lists_corpus_statutes(directory: StatuteDirectory) -> None:
    missing = [sfs for sfs in CURATED if sfs not in directory]
    assert missing == []
    for abbr in ["LAS", "AML", "MBL", "OSL", "BrB", "RB", "JB", "AvtL", "SkL", "TF", "RF", "MB", "PBL", "BFL",
                 "ÅRL", "ABL", "DL", "DSL", "PTL", "LSO", "YGL", "FL", "ATL", "UtlL"]:
        assert directory.resolve(abbr) is not None, abbr


def test_every_derived_name_resolves_to_its_own_statute(directory: StatuteDirectory) -> None:
    with open(INDEX, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    clashes = []
    for row in rows:
        for name in names_for(row["sfs"], row["title"]).short_names:
            if directory.resolve(name) != row["sfs"]:
                clashes.append((row["sfs"], name, directory.resolve(name)))
    assert clashes == []


def test_every_derived_name_is_detected_in_text(directory: StatuteDirectory) -> None:
    with open(INDEX, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    missed = []
    for row in rows:
        for name in names_for(row["sfs"], row["title"]).short_names:
            refs = analyse_references(f"Enligt 3 § {name} gäller detta.", directory)
            if not refs or refs[0].sfs != row["sfs"] or refs[0].section != "3":
                missed.append((row["sfs"], name, refs[:1]))
    assert missed == []


# ------------------------------------------------------- robustness


@hsettings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(codec=None, blacklist_categories=("Cs",)), max_size=300))
def test_fuzz_never_crashes(text: str) -> None:
    refs = parse_references(text)
    for ref in refs:
        assert 0 <= ref.span[0] <= ref.span[1] <= len(text)
        assert ref.raw == text[ref.span[0] : ref.span[1]]
        citation(ref)
    find_sfs_numbers(text)


_PIECES = ["3", " kap.", " 2 a", " §", "§", ", ", " och ", "-", "–", " första stycket", " 4", " LAS", " MB", "lagen",
           " om ", "(1982:80)", "SFS 1977:1160", "denna lag", "\n", "\u00a0", "\x00", "😀", "BrB 3:1", " 1 st.",
           "offentlighets- och ", "sekretesslagen", "Lag (1994:579).", "/Träder i kraft I:2024-07-01/"]


@hsettings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=60))
def test_fuzz_reference_like_input(pieces: list[str]) -> None:
    text = "".join(pieces)
    for directory in (None, _DIRECTORY):
        refs = parse_references(text) if directory is None else analyse_references(text, directory)
        for ref in refs:
            assert ref.raw == text[ref.span[0] : ref.span[1]]


_DIRECTORY = StatuteDirectory.from_index_tsv(INDEX)

_LINK_PIECES = [*_PIECES, " §§", "artikel", "artiklarna", " 6.1 f", " 9", " i EU:s dataskyddsförordning", " AML",
                "3:2", " eller ", " samt ", " till ", " 12"]


@hsettings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINK_PIECES), max_size=60))
def test_fuzz_reference_links_are_ordered_disjoint_words_of_the_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    links = reference_links(text, _DIRECTORY, self_sfs="1982:80", chapter="")
    assert all(0 <= link.start < link.end <= len(text) for link in links)
    assert all(a.end <= b.start for a, b in zip(links, links[1:]))
    # A link neither starts nor ends in the space or separator between two units.
    assert not any(text[link.start].isspace() or text[link.end - 1] in " ,\u00a0" for link in links)


@pytest.mark.parametrize(
    "text",
    [
        "a-" * 50_000,
        "1 " * 50_000,
        "1-" * 50_000,
        "1, " * 33_000 + "§",
        "2 kap. " * 14_000,
        "lagen om " + "x " * 50_000,
        "(" * 100_000,
        "/Träder i kraft " * 6_000,
        "😀\x00§" * 33_000,
        "arbetsmiljölagens" * 6_000,
        "SFS 1977:" * 11_000,
        "första stycket " * 7_000,
        "1 st. och " * 10_000,
        "8 § 2 eller " * 8_000,
        "5 § c och " * 10_000,
        "Enligt LAS gäller 7 §. " * 5_000,
    ],
)
def test_adversarial_input_is_handled(text: str) -> None:
    """Pathological inputs parse to a bounded, well-formed result; their speed is
    measured by `manage.py bench_legal_refs` (linear: doubling the input doubles the time)."""
    refs = analyse_references(text, _DIRECTORY)
    assert len(refs) <= 5000
    for ref in refs[:50]:
        assert ref.raw == text[ref.span[0] : ref.span[1]]
    assert isinstance(find_sfs_numbers(text), list)


def test_non_string_and_empty_input() -> None:
    assert parse_references("") == []
    assert parse_references("   ") == []
    assert find_sfs_numbers("") == []
    assert parse_references(None) == []  # type: ignore[arg-type]


def test_citation_forms() -> None:
    ref = LegalReference(None, None, "3", "2 a", None, None, (0, 0), "")
    assert citation(ref) == "3 kap. 2 a §"
    assert citation(LegalReference(None, None, None, "7", None, None, (0, 0), "")) == "7 §"
    assert citation(LegalReference(None, None, "3", None, None, None, (0, 0), "")) == "3 kap."
    assert citation(LegalReference("1982:80", "LAS", None, None, None, None, (0, 0), "")) == ""


@pytest.mark.parametrize("text", ["1-200 § " * 12_000, "1 kap. 1-200 §§, " * 6_000, "LAS 7 § " * 12_000])
def test_reference_heavy_input_is_capped(text: str) -> None:
    refs = analyse_references(text, _DIRECTORY)
    assert len(refs) == 5000
    assert {r.sfs for r in refs} <= {None, "1982:80"}


# ------------------------------------- issue 17: references in running text
#
# Our own examples of each failure class, on statutes in the corpus (and older
# acts cited by their own number). Each expects every reference that names a
# section: (sfs, chapter, section, stycke, punkt).

SUBDIVISION_CHAINS = [
    ("Enligt 7 § 2 eller 8 § 1 lagen om anställningsskydd gäller",
     [("1982:80", None, "7", None, 2), ("1982:80", None, "8", None, 1)]),
    ("Se 3 kap. 2 a § 1 arbetsmiljölagen.", [("1977:1160", "3", "2 a", None, 1)]),
    ("Bestämmelserna i 2 §, 4 §, 6 § b och 11 § semesterlagen gäller",
     [("1977:480", None, n, None, None) for n in ("2", "4", "6", "11")]),
    ("Se 6 kap. 5 § 1 st. och 3 st. samt 7 kap. 1 § brottsbalken.",
     [("1962:700", "6", "5", 1, None), ("1962:700", "6", "5", 3, None), ("1962:700", "7", "1", None, None)]),
    ("enligt 2 kap. 3 § första och andra styckena miljöbalken",
     [("1998:808", "2", "3", 1, None), ("1998:808", "2", "3", 2, None)]),
    ("enligt 15 § punkt 2 och 3 föräldraledighetslagen",
     [("1995:584", None, "15", None, 2), ("1995:584", None, "15", None, 3)]),
    ("I 36 § andra stycket 1 och 38 § avtalslagen finns", [("1915:218", None, "36", 2, 1), ("1915:218", None, "38", None, None)]),
    ("Av 22 § 1 och 25 § LAS framgår", [("1982:80", None, "22", None, 1), ("1982:80", None, "25", None, None)]),
    ("enligt 9 kap. 7 § första stycket 2 och andra stycket plan- och bygglagen",
     [("2010:900", "9", "7", 1, 2), ("2010:900", "9", "7", 2, None)]),
    ("Läs 10 § c och 12 § medbestämmandelagen.", [("1976:580", None, "10", None, None), ("1976:580", None, "12", None, None)]),
    ("enligt 4 kap. 2 § 1, 3 eller 4 § aktiebolagslagen",
     [("2005:551", "4", "2", None, 1), ("2005:551", "4", "3", None, None), ("2005:551", "4", "4", None, None)]),
    ("enligt 2 kap. 1 § 1, 2 och 4 samt 3 § 2 lagen om värdepappersmarknaden",
     [("2007:528", "2", "1", None, 1), ("2007:528", "2", "1", None, 2), ("2007:528", "2", "1", None, 4),
      ("2007:528", "2", "3", None, 2)]),
    ("Av 2 kap. 2 § 3 och 4 och 9 § brottsbalken följer",
     [("1962:700", "2", "2", None, 3), ("1962:700", "2", "2", None, 4), ("1962:700", "2", "9", None, None)]),
    ("enligt 16 § och 17 § punkt 3 e-handelslagen", [("2002:562", None, "16", None, None), ("2002:562", None, "17", None, 3)]),
]

WRITTEN_NUMBER_WINS = [
    ("Enligt 7 § lagen om anställningsskydd (1974:12) gällde", [("1974:12", None, "7", None, None)]),
    ("Se 2 § förordningen om skydd mot olyckor (1986:1107).", [("1986:1107", None, "2", None, None)]),
    ("enligt 3 § arbetstidslagen (SFS 1970:103)", [("1970:103", None, "3", None, None)]),
    ("enligt 4 § lagen om offentlig anställning (1976:600) gällde", [("1976:600", None, "4", None, None)]),
    ("9 § semesterlagen (1963:114) gav fyra veckor", [("1963:114", None, "9", None, None)]),
    ("enligt 5 § lagen (SFS 1974:12) om anställningsskydd", [("1974:12", None, "5", None, None)]),
    ("enligt 4 § förordningen om områdesskydd enligt miljöbalken m.m. (1987:938)", [("1987:938", None, "4", None, None)]),
]

CARRIED_STATUTES = [
    ("Arbetsmiljölagen ställer krav på arbetsgivaren. Enligt 3 kap. 2 a § ska arbetet vara systematiskt.",
     [("1977:1160", "3", "2 a", None, None)]),
    ("I semesterlagen finns regler om semesterlön. Hur beräknas den enligt 16 § nämnda lag?",
     [("1977:480", None, "16", None, None)]),
    ("Diskrimineringslagen gäller i arbetslivet. Enligt 2 kap. 1 § denna lag får arbetsgivaren inte diskriminera.",
     [("2008:567", "2", "1", None, None)]),
    ("Vad innebär 2 kap. 1 § för en arbetsgivare enligt diskrimineringslagen?", [("2008:567", "2", "1", None, None)]),
    ("Först gäller miljöbalken, sedan arbetsmiljölagen. Vad säger 3 kap. 1 §?", [("1977:1160", "3", "1", None, None)]),
    ("Jag läser brottsbalken. Skillnaden mellan 3 kap. 1 § och 3 kap. 2 § är viktig.",
     [("1962:700", "3", "1", None, None), ("1962:700", "3", "2", None, None)]),
    ("Arbetsmiljöförordningen kompletterar lagen. Se 4 § samma förordning.", [("1977:1166", None, "4", None, None)]),
    ("Köplagen gäller mellan näringsidkare. Enligt 17 § ovannämnda lag ska varan vara fri från fel.",
     [("1990:931", None, "17", None, None)]),
    ("Enligt LAS krävs saklig grund. Turordningen i 22 § gäller också, liksom 25 § samma lag.",
     [("1982:80", None, "22", None, None), ("1982:80", None, "25", None, None)]),
]

STATUTE_WORDS = [
    ("Se 2 kap. 1 § kungörelsen om beslutad ny regeringsform.", [("1974:152", "2", "1", None, None)]),
    ("Enligt 8 kap. 2 § kungörelsen (1974:152) om beslutad ny regeringsform", [("1974:152", "8", "2", None, None)]),
    ("enligt 3 § ordningsstadgan (1868:22) för rikets städer", [("1868:22", None, "3", None, None)]),
    ("Kungörelsen (1974:152) om beslutad ny regeringsform är grundlag. Se 2 kap. 1 § samma kungörelse.",
     [("1974:152", "2", "1", None, None)]),
    ("enligt 12 § arbetarskyddskungörelsen (1949:208)", [("1949:208", None, "12", None, None)]),
    ("Ordningsstadgan (1868:22) gällde länge. Se 5 § nämnda stadga.", [("1868:22", None, "5", None, None)]),
]

NEW_EXAMPLES = SUBDIVISION_CHAINS + WRITTEN_NUMBER_WINS + CARRIED_STATUTES + STATUTE_WORDS


def section_refs(refs: list[LegalReference]) -> list[tuple]:
    return [(r.sfs, r.chapter, r.section, r.stycke, r.punkt) for r in refs if r.section or r.chapter]


@pytest.mark.parametrize("text, expected", NEW_EXAMPLES)
def test_references_in_running_text(directory: StatuteDirectory, text: str, expected: list[tuple]) -> None:
    refs = analyse_references(text, directory)
    assert section_refs(refs) == expected
    for ref in refs:
        assert ref.raw == text[ref.span[0] : ref.span[1]]


def test_chain_bound_through_subdivisions_keeps_one_span() -> None:
    (first, second) = parse_references("Se 8 § 2 eller 9 § 1 konsumentköplagen (2022:260).")
    assert first.span == second.span
    assert first.raw == "8 § 2 eller 9 § 1 konsumentköplagen (2022:260)"
    assert (first.sfs, first.statute_name) == ("2022:260", "konsumentköplagen")


def test_written_number_wins_in_directory_lookups(directory: StatuteDirectory) -> None:
    assert directory.resolve("Lag (1974:12) om anställningsskydd") is None
    assert directory.resolve("lagen (SFS 1982:80) om anställningsskydd") == "1982:80"
    (ref,) = analyse_references("lagen om anställningsskydd (1974:12)", directory)
    assert (ref.sfs, ref.statute_name) == ("1974:12", "lagen om anställningsskydd")


def test_bare_references_in_a_statutes_own_text_point_to_it() -> None:
    text = "Det som sägs i 30 kap. socialförsäkringsbalken gäller. Bestämmelserna i 3 kap. 2 § gäller också."
    refs = parse_references(text, self_sfs="1977:1160")
    assert [(r.statute_name, r.chapter, r.section) for r in refs] == [
        ("socialförsäkringsbalken", "30", None), (None, "3", "2"),
    ]
    assert refs[1].sfs == "1977:1160" and refs[1].anaphoric


def test_carried_statute_is_marked_as_inferred(directory: StatuteDirectory) -> None:
    refs = analyse_references("Vi följer LAS. Vad säger 7 §?", directory)
    assert [(r.sfs, r.section, r.anaphoric) for r in refs] == [("1982:80", None, False), ("1982:80", "7", True)]


@pytest.mark.parametrize(
    "text",
    [
        "Vad säger 3 kap. 2 §? Arbetsmiljölagen är svår att läsa.",  # a later sentence does not bind back
        "Filen är 5 MB stor. Se 3 kap. 2 § samma lag.",  # an ambiguous abbreviation is no antecedent
        "Föreningens stadga säger att 3 § gäller.",
    ],
)
def test_bare_references_without_an_antecedent_stay_unresolved(directory: StatuteDirectory, text: str) -> None:
    assert {r.sfs for r in analyse_references(text, directory) if r.section} == {None}


def test_a_statute_with_its_own_chain_does_not_claim_earlier_bare_chains(directory: StatuteDirectory) -> None:
    refs = analyse_references("Regeln i 4 § liknar den som finns i 3 kap. 2 § arbetsmiljölagen.", directory)
    assert section_refs(refs) == [(None, None, "4", None, None), ("1977:1160", "3", "2", None, None)]


@pytest.mark.parametrize("text", ["Föreningens stadgar och bolagets stadga gäller.", "Föreningsstadgan ändrades.",
                                  "Vi läste kungörelsen på anslagstavlan.", "Han betalade 2 § 3 000 kronor"])
def test_statute_words_in_ordinary_prose(text: str) -> None:
    assert [r for r in parse_references(text) if r.sfs or r.statute_name] == []


# Property tests over the whole directory: a statute's own name, its own numbers.

_INDEX_ROWS = [(sfs, title) for sfs, title in ((r[0], r[1]) for r in (
    line.rstrip("\n").split("\t") for line in INDEX.read_text(encoding="utf-8").splitlines()[1:]))]
_NAMED = [(sfs, name) for sfs, title in _INDEX_ROWS for name in names_for(sfs, title).short_names]
_ABBREVIATED = [(sfs, a) for sfs, (_, abbrs) in CURATED.items() for a in abbrs
                if not __import__("law.statute_names", fromlist=["x"]).is_ambiguous_abbreviation(a)]
_SUBDIVISIONS = ["", " första stycket", " 1 st.", " 2 p.", " punkt 3", " 2", " c", " andra stycket 4",
                 " första och andra styckena", " 1 st. och 2 st.", " första stycket andra meningen", " 3 och 4"]


@hsettings(max_examples=300, deadline=None)
@given(
    st.sampled_from(_NAMED + _ABBREVIATED),
    st.integers(1, 40), st.sampled_from(["", " a", " b"]), st.integers(1, 60),
    st.sampled_from(_SUBDIVISIONS), st.integers(1, 30), st.sampled_from(_SUBDIVISIONS), st.booleans(),
)
def test_property_chain_binds_through_subdivisions(named: tuple[str, str], chapter: int, letter: str, section: int,
                                                   sub1: str, step: int, sub2: str, with_chapter: bool) -> None:
    sfs, name = named
    second = section + step
    prefix = f"{chapter} kap. " if with_chapter else ""
    text = f"Enligt {prefix}{section}{letter} §{sub1} och {second} §{sub2} {name} gäller detta."
    refs = [r for r in analyse_references(text, _DIRECTORY) if r.section]
    assert refs, text
    assert {r.sfs for r in refs} == {sfs}, text
    assert {r.section for r in refs} == {f"{section}{letter}", str(second)}, text
    assert {r.chapter for r in refs} == {str(chapter) if with_chapter else None}, text


@hsettings(max_examples=200, deadline=None)
@given(st.sampled_from(_NAMED), st.integers(1800, 2030), st.integers(1, 1999), st.integers(1, 60),
       st.booleans())
def test_property_written_number_wins_over_the_name(named: tuple[str, str], year: int, number: int, section: int,
                                                    sfs_prefix: bool) -> None:
    sfs, name = named
    written = f"{year}:{number}"
    text = f"Enligt {section} § {name} ({'SFS ' if sfs_prefix else ''}{written}) gällde annat."
    (ref,) = [r for r in analyse_references(text, _DIRECTORY) if r.section]
    assert (ref.sfs, ref.section) == (written, str(section)), text


@hsettings(max_examples=200, deadline=None)
@given(st.sampled_from(_NAMED + _ABBREVIATED), st.integers(1, 40), st.integers(1, 60),
       st.sampled_from(["", " samma lag", " nämnda lag", " denna lag"]), st.sampled_from([". ", "; ", ", och "]))
def test_property_named_statute_is_carried_forward(named: tuple[str, str], chapter: int, section: int, anaphor: str,
                                                   gap: str) -> None:
    sfs, name = named
    text = f"Frågan gäller {name}{gap}enligt {chapter} kap. {section} §{anaphor} ska arbetsgivaren agera."
    refs = [r for r in analyse_references(text, _DIRECTORY) if r.section]
    assert [(r.sfs, r.chapter, r.section, r.anaphoric) for r in refs] == [(sfs, str(chapter), str(section), True)], text


# ------------------------------------------- agency regulations and the GDPR

# Titles as the loaded documents carry them (data/foreskrifter, data/eu): the directory derives the names
# a regulation is cited by from these (law.statute_names.regulation_names).
_REGULATION_TITLES = [
    ("AFS 2023:1", "Arbetsmiljöverkets föreskrifter och allmänna råd om systematiskt arbetsmiljöarbete – "
                   "grundläggande skyldigheter för dig med arbetsgivaransvar"),
    ("AFS 2023:4", "Arbetsmiljöverkets föreskrifter om produkter – maskiner"),
    ("AFS 2023:5", "Arbetsmiljöverkets föreskrifter om produkter – tryckbärande anordningar"),
    ("AFS 2023:10", "Arbetsmiljöverkets föreskrifter och allmänna råd om risker i arbetsmiljön"),
    ("MSBFS 2020:1", "Myndigheten för samhällsskydd och beredskaps föreskrifter om hantering av brandfarlig gas "
                     "och brandfarliga aerosoler"),
    ("KIFS 2017:7", "Kemikalieinspektionens föreskrifter (KIFS 2017:7) om kemiska produkter och biotekniska organismer"),
    ("(EU) 2016/679", "Allmän dataskyddsförordning (GDPR)"),
]


@pytest.fixture(scope="module")
def book() -> StatuteDirectory:
    """The statutes of index.tsv, some agency regulations and the GDPR, with no names but their titles."""
    with open(INDEX, encoding="utf-8") as handle:
        rows = [line.split("\t")[:2] for line in handle.read().splitlines()[1:]]
    entries = [(sfs, title, names.short_names, names.abbreviations)
               for sfs, title in rows for names in [names_for(sfs, title)]]
    return StatuteDirectory([*entries, *((number, title, [], []) for number, title in _REGULATION_TITLES)])


def units(refs: list[LegalReference]) -> list[tuple[str | None, str]]:
    return [(r.sfs, citation(r, detailed=True)) for r in refs]


@pytest.mark.parametrize(
    "text, expected",
    [
        # the number before or after the chain, with or without "i"
        ("Vad säger AFS 2023:1 11 § om riskbedömningar?", [("AFS 2023:1", "11 §")]),
        ("Enligt 11 § AFS 2023:1 ska riskbedömningar dokumenteras.", [("AFS 2023:1", "11 §")]),
        ("Gäller 2 kap. 3 § i AFS 2023:10 oss?", [("AFS 2023:10", "2 kap. 3 §")]),
        ("Vad kräver 3 kap. 1 § MSBFS 2020:1?", [("MSBFS 2020:1", "3 kap. 1 §")]),
        ("Gäller 2 kap. 1 § ELSÄK-FS 2022:1 för oss?", [("ELSÄK-FS 2022:1", "2 kap. 1 §")]),
        # a document by number only, loaded or not
        ("Vad säger BFS 2011:6 om tillgänglighet?", [("BFS 2011:6", "")]),
        # by a title the directory derives from the document's own: agency, "om …", without "och allmänna råd"
        ("6 kap. 2 § i Arbetsmiljöverkets föreskrifter om systematiskt arbetsmiljöarbete",
         [("AFS 2023:1", "6 kap. 2 §")]),
        ("enligt 2 kap. 1 § i föreskrifterna om risker i arbetsmiljön", [("AFS 2023:10", "2 kap. 1 §")]),
        ("3 § i Myndigheten för samhällsskydd och beredskaps föreskrifter om hantering av brandfarlig gas och "
         "brandfarliga aerosoler", [("MSBFS 2020:1", "3 §")]),
        ("4 kap. 2 § Kemikalieinspektionens föreskrifter om kemiska produkter och biotekniska organismer",
         [("KIFS 2017:7", "4 kap. 2 §")]),
        # the number written in the name wins (the form of AFS 2023:10's own cross references)
        ("Bestämmelser om utrustning för explosionsfarlig miljö finns i 3 § Arbetsmiljöverkets föreskrifter "
         "(AFS 2023:7) om produkter – utrustning för potentiellt explosiva atmosfärer.", [("AFS 2023:7", "3 §")]),
    ],
)
def test_agency_regulation_references(book: StatuteDirectory, text: str, expected: list) -> None:
    assert units(analyse_references(text, book)) == expected


def test_a_short_title_several_regulations_share_names_none_of_them(book: StatuteDirectory) -> None:
    (ref,) = analyse_references("Vad säger 5 § i Arbetsmiljöverkets föreskrifter om produkter?", book)
    assert ref.section == "5" and ref.sfs is None
    assert book.resolve("Arbetsmiljöverkets föreskrifter om produkter – maskiner") == "AFS 2023:4"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Får vi behandla uppgifterna enligt artikel 6.1 f GDPR?", [("(EU) 2016/679", "artikel 6.1 f")]),
        ("Vad innebär art. 9.2 g dataskyddsförordningen?", [("(EU) 2016/679", "artikel 9.2 g")]),
        ("Förordning (EU) 2016/679 artikel 6.1 f", [("(EU) 2016/679", "artikel 6.1 f")]),
        ("Vad säger artikel 17 i EU:s dataskyddsförordning?", [("(EU) 2016/679", "artikel 17")]),
        ("Article 6(1)(f) GDPR", [("(EU) 2016/679", "artikel 6.1 f")]),
        # no act named: in a question, the only EU act the directory knows
        ("Vad kräver artiklarna 12–14?", [("(EU) 2016/679", f"artikel {n}") for n in (12, 13, 14)]),
        ("Gäller artikel 9.2 b, g och h även oss?",
         [("(EU) 2016/679", f"artikel 9.2 {led}") for led in "bgh"]),
        # an act named earlier in the question
        ("Vi följer dataskyddsförordningen. Vad kräver artikel 30.1?", [("(EU) 2016/679", ""),
                                                                        ("(EU) 2016/679", "artikel 30.1")]),
    ],
)
def test_gdpr_article_references(book: StatuteDirectory, text: str, expected: list) -> None:
    assert units(analyse_references(text, book)) == expected


def test_articles_range_and_list_and_a_following_section_chain(book: StatuteDirectory) -> None:
    # Dataskyddslagen (2018:218) 1 kap. 7 § second stycke.
    text = ("Artiklarna 5–30 och 35–50 i EU:s dataskyddsförordning samt 2–5 kap. denna lag ska inte tillämpas "
            "vid behandling av personuppgifter som sker för journalistiska ändamål")
    refs = analyse_references(text, book, self_sfs="2018:218")
    articles = [r.article for r in refs if r.article]
    assert articles == [str(n) for n in range(5, 31)] + [str(n) for n in range(35, 51)]
    assert {r.sfs for r in refs if r.article} == {"(EU) 2016/679"}
    assert [(r.sfs, r.chapter) for r in refs if r.chapter] == [("2018:218", str(n)) for n in range(2, 6)]


@pytest.mark.parametrize(
    "text, expected",
    [
        # Dataskyddslagen (2018:218) 2 kap. 1 §, with the source's line-break hyphen
        ("1 § Personuppgifter får behandlas med stöd av artikel 6.1 c i EU:s data-skyddsförordning, om behandlingen "
         "är nödvändig", [("(EU) 2016/679", "artikel 6.1 c")]),
        # 3 kap. 3 §
        ("3 § Känsliga personuppgifter får behandlas av en myndighet med stöd av artikel 9.2 g i EU:s "
         "dataskyddsförordning", [("(EU) 2016/679", "artikel 9.2 g")]),
        # 5 kap. 1 §
        ("1 § Artiklarna 13–15 i EU:s dataskyddsförordning om information och rätt att få tillgång till "
         "personuppgifter gäller inte", [("(EU) 2016/679", f"artikel {n}") for n in (13, 14, 15)]),
    ],
)
def test_dataskyddslagens_references_resolve_to_the_gdpr(book: StatuteDirectory, text: str, expected: list) -> None:
    assert units(analyse_references(text, book, self_sfs="2018:218")) == expected


def test_in_a_statutes_own_text_a_bare_article_is_not_guessed(book: StatuteDirectory) -> None:
    # A statute's bare "artikel 5" may be any act's: only a question falls back on the only EU act.
    (ref,) = analyse_references("enligt artikel 5 ska", book, self_sfs="2000:1225")
    assert (ref.article, ref.sfs) == ("5", None)
    (ref,) = analyse_references("Vad säger artikel 5?", book)
    assert (ref.article, ref.sfs) == ("5", "(EU) 2016/679")


@pytest.mark.parametrize(
    "text, act",
    [
        # The GDPR's own recitals and articles cite the treaties, the charter and directives by their articles.
        ("i enlighet med artikel 263 i EUF-fördraget.", "EUF-fördraget"),
        ("Artikel 8.1 i Europeiska unionens stadga om de grundläggande rättigheterna", "Europeiska unionens stadga"),
        ("artikel 5 i fördraget om Europeiska unionen (EU-fördraget)", "fördraget"),
        ("artiklarna 12–15 i det direktivet.", "direktivet"),
        ("artikel 25.6 eller 26.4 i direktiv 95/46/EG fungerar", "direktiv"),
        ("enligt artikel 47.3 i Europaparlamentets och rådets direktiv 2006/43/EG",
         "Europaparlamentets och rådets direktiv"),
        ("artikel 6 i Europakonventionen", "Europakonventionen"),
    ],
)
def test_articles_of_an_act_the_directory_does_not_know_are_not_its_own_or_the_gdprs(
        book: StatuteDirectory, text: str, act: str) -> None:
    # Neither in the GDPR's own text (bare articles there are its own) nor in a question (bare articles there are
    # the one EU act's): the act named after them claims them, by name.
    for self_sfs in ("(EU) 2016/679", "2001:883", None):
        refs = analyse_references(text, book, self_sfs=self_sfs)
        assert refs and all(r.article and r.sfs is None and r.statute_name == act for r in refs), (self_sfs, refs)
    assert document_links(text, book, self_sfs="(EU) 2016/679") == []


@pytest.mark.parametrize(
    "text, expected",
    [
        ("i enlighet med artikel 89.1 ska", [("(EU) 2016/679", "artikel 89.1")]),
        ("enligt artikel 6.1 f i denna förordning", [("(EU) 2016/679", "artikel 6.1 f")]),
        ("artikel 9 i enlighet med direktivet", [("(EU) 2016/679", "artikel 9")]),  # "enlighet med" names no act
    ],
)
def test_the_gdprs_own_bare_articles_stay_its_own(book: StatuteDirectory, text: str, expected: list) -> None:
    assert units(analyse_references(text, book, self_sfs="(EU) 2016/679")) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Jag skrev en artikel i tidningen om arbetsmiljölagen.",
        "artikel 6 och 7 § arbetsmiljölagen",  # 7 is a §, not an article
        "Vad säger artikel 9.2 i dataskyddsförordningen?",  # "i" is the preposition, not led i
        "Jag läste en artikel 2023 om arbetsmiljölagen.",  # a year, not an article
    ],
)
def test_article_look_alikes(book: StatuteDirectory, text: str) -> None:
    refs = analyse_references(text, book)
    assert all(r.article in (None, "6", "9") for r in refs)
    assert all(r.led is None for r in refs)
    assert not any(r.article and r.section for r in refs)


def test_unit_citations_most_specific_first() -> None:
    (article,) = parse_references("artikel 6.1 f GDPR")
    assert unit_citations(article) == ["artikel 6.1", "artikel 6"]
    (whole,) = parse_references("artikel 13 GDPR")
    assert unit_citations(whole) == ["artikel 13"]
    (section,) = parse_references("3 kap. 2 a § AFS 2023:10")
    assert unit_citations(section) == ["3 kap. 2 a §"]
    (document,) = parse_references("AFS 2023:10")
    assert unit_citations(document) == []


def test_regulation_names_are_derived_from_titles() -> None:
    afs = regulation_names("AFS 2023:1", _REGULATION_TITLES[0][1])
    assert "Arbetsmiljöverkets föreskrifter om systematiskt arbetsmiljöarbete" in afs.short_names
    assert "föreskrifterna om systematiskt arbetsmiljöarbete" in afs.short_names
    assert name_key("Arbetsmiljöverkets föreskrifter om systematiskt arbetsmiljöarbete") == name_key(
        "Arbetsmiljöverkets föreskrifterna om systematiskt arbetsmiljöarbete")
    gdpr = regulation_names("(EU) 2016/679", "Allmän dataskyddsförordning (GDPR)")
    assert gdpr.abbreviations == ["GDPR"]
    assert gdpr.short_names == ["dataskyddsförordningen", "EU:s dataskyddsförordning"]
    assert regulation_names("1977:1160", "Arbetsmiljölag (1977:1160)").short_names == []


def test_a_section_opening_with_a_capitalised_name_is_its_label(book: StatuteDirectory) -> None:
    # Dataskyddslagen (2018:218) 1 kap. 7 §.
    text = ("7 § EU:s dataskyddsförordning och denna lag ska inte tillämpas i den utsträckning det skulle strida mot "
            "tryckfrihetsförordningen eller yttrandefrihetsgrundlagen.")
    assert [r for r in analyse_references(text, book, self_sfs="2018:218") if r.section] == []
    assert units(analyse_references("7 § LAS gäller?", book)) == [("1982:80", "7 §")]
    assert units(analyse_references("3 § AFS 2023:1 gäller?", book)) == [("AFS 2023:1", "3 §")]


def test_statute_links_in_a_regulation_point_to_the_act_sections_it_restates(book: StatuteDirectory) -> None:
    # AFS 2023:3 2 kap. 9 §'s first sentence, and a chain of two §§.
    text = "9 § Av 3 kap. 6 § arbetsmiljölagen (1977:1160) följer att byggherren ska utse en lämplig Bas-P."
    (link,) = statute_links(text, book, self_sfs="AFS 2023:3")
    assert (link.number, link.units) == ("1977:1160", (("3 kap. 6 §",),))
    assert text[link.start:link.end].startswith("3 kap. 6 § arbetsmiljölagen")
    (chain,) = statute_links("enligt 7 och 8 §§ lagen (1982:80) om anställningsskydd", book, self_sfs="AFS 2023:1")
    assert chain.units == (("7 §",), ("8 §",))
    # An EU article or the regulation's own bare § is no statute link; a text without a § is not parsed.
    assert statute_links("enligt artikel 6.1 i EU:s dataskyddsförordning och 4 §", book, self_sfs="AFS 2023:1") == []
    assert statute_links("enligt arbetsmiljölagen", book, self_sfs="AFS 2023:1") == []


def test_document_links_in_dataskyddslagen_point_to_gdpr_articles(book: StatuteDirectory) -> None:
    text = ("3 § Känsliga personuppgifter får behandlas av en myndighet med stöd av artikel 9.2 g i EU:s "
            "dataskyddsförordning\n\n1. om uppgifterna har lämnats till myndigheten och behandlingen krävs enligt lag,")
    (link,) = document_links(text, book, self_sfs="2018:218")
    assert (link.number, link.citation) == ("(EU) 2016/679", "artikel 9.2")
    assert text[link.start:link.end] == "artikel 9.2 g i EU:s dataskyddsförordning"
    # A reference to a statute is no such link; nor is a text that cites none.
    assert document_links("enligt 3 kap. 2 § arbetsmiljölagen", book, self_sfs="2018:218") == []
    # In a regulation's own text: its articles, not its bare §§ (their chapter is not known).
    assert [(link.number, link.citation) for link in document_links(
        "enligt artikel 6.1 och 4 §", book, self_sfs="(EU) 2016/679")] == [("(EU) 2016/679", "artikel 6.1")]


def test_reference_links_complete_a_bare_section_with_the_texts_own_chapter(book: StatuteDirectory) -> None:
    # Our own text, written as inkomstskattelagen writes its references.
    text = ("37 § Avdrag görs enligt 3 och 4 §§, enligt 13 kap. 2 § och enligt 6 kap. 6 § bokföringslagen "
            "(1999:1078). Bestämmelser om uppskov finns i lagen (1982:80) om anställningsskydd.")
    links = reference_links(text, book, self_sfs="1999:1229", chapter="12")
    assert [(link.number, link.units) for link in links] == [
        ("1999:1229", (("12 kap. 3 §",),)),
        ("1999:1229", (("12 kap. 4 §",),)),
        ("1999:1229", (("13 kap. 2 §",),)),
        ("1999:1078", (("6 kap. 6 §",),)),
        ("1982:80", ()),
    ]
    # The § heading opening the text is no reference; each § of a chain is a link of its own.
    assert [text[link.start:link.end] for link in links[:2]] == ["3", "4 §§"]
    # Outside the chapters (transitional provisions), a bare § cannot be placed; a chapter named with it can.
    outside = reference_links(text, book, self_sfs="1999:1229", chapter=None)
    assert [link.units for link in outside][:1] == [(("13 kap. 2 §",),)]
    # In a document without chapters, the bare § is the document's own.
    (own, *_) = reference_links("Enligt 7 § gäller detta.", book, self_sfs="1982:80", chapter="")
    assert (own.number, own.units) == ("1982:80", (("7 §",),))


def test_reference_links_give_each_unit_of_a_chain_its_own_words(book: StatuteDirectory) -> None:
    # Our own sentence, in the ways statutes list the units they cite.
    text = ("Se 7 kap. 2 och 3 §§ samt 8 kap. 1 § lagen (1982:80) om anställningsskydd, 3-5 §§, "
            "6 § första stycket 2 eller 9 § arbetsmiljölagen (1977:1160), 1-3 och 5 kap. AML och 3:2 och 4:5 AML.")
    links = reference_links(text, book, self_sfs="1999:1229", chapter="12")
    assert [(text[link.start:link.end], link.number, link.units) for link in links] == [
        # A chapter's first § is named from the chapter on; the statute goes with the chain's last unit.
        ("7 kap. 2", "1982:80", (("7 kap. 2 §",),)),
        ("3 §§", "1982:80", (("7 kap. 3 §",),)),
        ("8 kap. 1 § lagen (1982:80) om anställningsskydd", "1982:80", (("8 kap. 1 §",),)),
        # A range's ends are links; the § between them, which has no words, goes with the first.
        ("3", "1977:1160", (("3 §",), ("4 §",))),
        ("5 §§", "1977:1160", (("5 §",),)),
        ("6 § första stycket 2", "1977:1160", (("6 §",),)),
        ("9 § arbetsmiljölagen (1977:1160)", "1977:1160", (("9 §",),)),
        ("1", "1977:1160", (("1 kap.",), ("2 kap.",))),
        ("3", "1977:1160", (("3 kap.",),)),
        ("5 kap. AML", "1977:1160", (("5 kap.",),)),
        ("3:2", "1977:1160", (("3 kap. 2 §",),)),
        ("4:5 AML", "1977:1160", (("4 kap. 5 §",),)),
    ]
    # Links never overlap, and what separates two units is in neither.
    assert all(a.end <= b.start for a, b in zip(links, links[1:]))
    assert not any(text[link.start:link.end].endswith((" ", ",", "och", "-")) for link in links)
    # The words before a chain's first number are its first unit's; an EU act's articles are cut the same way.
    text = "Enligt LAS 7 och 8 §§ samt artiklarna 6 och 9 i EU:s dataskyddsförordning och artikel 9.2 b och g."
    assert [(text[link.start:link.end], link.units) for link in reference_links(text, book, self_sfs="1999:1229")] == [
        ("LAS 7", (("7 §",),)),
        ("8 §§", (("8 §",),)),
        ("artiklarna 6", (("artikel 6",),)),
        ("9 i EU:s dataskyddsförordning", (("artikel 9",),)),
        ("artikel 9.2 b och g", (("artikel 9.2", "artikel 9"),)),  # a led is no unit of its own
    ]


@pytest.mark.parametrize("text", [
    "16 § I 49 kap. finns bestämmelser om uppskov.",  # "I" opens the § (the token is lower-cased)
    "2 § Till ledamot får endast den antas som har hemvist i Sverige.",
    "7 § har upphävts genom lag (1990:443).",
    "14 § har upphört att gälla genom lag (1976:567).",
])
def test_a_sections_own_heading_is_not_a_reference_to_it(book: StatuteDirectory, text: str) -> None:
    refs = analyse_references(text, book, self_sfs="1942:740")
    assert all(r.section is None for r in refs), refs
