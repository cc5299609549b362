"""Tests of law.parsers.foreskrift against the agencies' real PDFs (copies in tests/law/fixtures, provenance
in its README)."""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter

from law.parsers.foreskrift import ParsedRegulation, legal_basis, parse_regulation
from law.parsers.pdf_lines import RegulationPdfError, read_pages, strip_furniture
from law.quality import check_file
from law.regulations import regulation_from_record

FIXTURES = Path(__file__).resolve().parent / "fixtures"

# pypdf logs a warning for every font it cannot fully decode; the text still comes out.
logging.getLogger("pypdf").setLevel(logging.ERROR)


@lru_cache(maxsize=None)
def parsed(relative: str) -> ParsedRegulation:
    return parse_regulation(FIXTURES / Path(relative).name)


def afs1() -> ParsedRegulation:
    return parsed("afs/AFS-2023-1.pdf")


def afs10() -> ParsedRegulation:
    return parsed("afs/AFS-2023-10.pdf")


# --- AFS 2023:1: metadata, §§ and allmänna råd ----------------------------------------


def test_afs_2023_1_metadata() -> None:
    regulation = afs1()
    assert regulation.designation == "AFS 2023:1"
    assert regulation.agency == "Arbetsmiljöverket"
    assert regulation.title == ("Arbetsmiljöverkets föreskrifter och allmänna råd om systematiskt arbetsmiljöarbete"
                                " – grundläggande skyldigheter för dig med arbetsgivaransvar")
    assert regulation.issued == "2023-09-15"
    assert regulation.published == "2023-11-22"
    assert regulation.in_force == "2025-01-01"


def test_legal_basis_keeps_text_and_sfs_numbers() -> None:
    basis = afs1().legal_basis
    assert basis is not None
    assert basis.text == "18 § arbetsmiljöförordningen (1977:1166)"
    assert basis.sfs == ["1977:1166"]
    # Footnote markers glued to words ("föreskriver1", "(2010:1075)2") are not part of it.
    msb = parsed("msbfs/MSBFS-2020-1.pdf").legal_basis
    assert msb is not None and msb.text == "25 § förordningen (2010:1075) om brandfarliga och explosiva varor"
    several = legal_basis("Kemikalieinspektionen föreskriver1 följande med stöd av 15 § förordningen (2001:100) om "
                          "den officiella statistiken, samt 2 kap. 4 och 37 a §§ förordningen (2014:425) om "
                          "bekämpningsmedel. Nästa mening.")
    assert several is not None and several.sfs == ["2001:100", "2014:425"]
    assert several.text.endswith("förordningen (2014:425) om bekämpningsmedel")


def test_afs_2023_1_sections_in_order_with_headings() -> None:
    sections = afs1().units_of("paragraf")
    assert [u.section for u in sections] == [str(n) for n in range(1, 17)]
    eleven = afs1().unit("11 §")
    assert eleven.heading == "Undersökning och riskbedömning"
    assert eleven.stycken[0].startswith("11 § Arbetsgivaren ska regelbundet undersöka arbetsmiljöförhållandena")
    # The § continues over a page break (page 12 → 13) without the running header.
    assert eleven.stycken[-1] == ("Riskbedömningar ska alltid dokumenteras skriftligt. Av dokumentationen ska det "
                                  "framgå vilka riskerna är, och om de är allvarliga.") or \
        "Riskbedömningar ska alltid dokumenteras skriftligt." in eleven.text
    assert "AFS 2023:1" not in eleven.text


def test_allmanna_rad_are_their_own_units_after_their_section() -> None:
    regulation = afs1()
    advice = regulation.units_of("allmänt råd")
    assert [u.section for u in advice] == ["3", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15"]
    three, three_advice = regulation.unit("3 §"), regulation.unit("3 § allmänna råd")
    assert three_advice.ordinal == three.ordinal + 1
    assert three_advice.binding is False and three.binding is True
    assert three.text == ("3 § Bestämm elserna i dessa föreskrifter reglerar all verksamhet där arbetstagare utför "
                          "arbete för arbetsgivares räkning.")
    assert three_advice.text.startswith("Det systematiska arbetsmiljöarbetet omfattar hela verksamheten")
    assert "Allmänna råd" not in three.text and three_advice.prelude == ["Allmänna råd"]
    # The heading of the next § ends the advice: it is not swallowed as advice text.
    assert "Vem föreskrifterna riktar sig till" not in three_advice.text
    assert regulation.unit("4 §").prelude == ["Vem föreskrifterna riktar sig till"]


def test_lists_are_stycken_and_hyphenation_is_undone() -> None:
    eight = afs1().unit("8 §")
    assert eight.stycken[1:4] == ["1. när och hur arbetsmiljöarbetet ska genomföras,",
                                  "2. vem som ska se till att det genomförs, och", "3. vilka som ska medverka."]
    advice = afs1().unit("11 § allmänna råd")
    assert "felhandlingar" in advice.text and "felhand-" not in advice.text
    # A real hyphen before a conjunction stays: "arbetsanpassnings- och rehabiliteringsåtgärder".
    assert "arbetsanpassnings- och rehabiliteringsåtgärder" in advice.text


def test_transitional_provisions_and_bilaga() -> None:
    regulation = afs1()
    [transitional] = regulation.units_of("övergångsbestämmelser")
    assert transitional.stycken[0] == "1. Denna författning träder i kraft den 1 januari 2025."
    assert any("AFS 2001:1" in s for s in transitional.stycken)
    [bilaga] = regulation.units_of("bilaga")
    assert bilaga.citation == "Bilaga 1" and bilaga.title == "Arbetstagare med uppgifter enligt 9 §"
    assert bilaga.stycken[-1] == "j) hur informationen i dessa frågor ska utformas."
    assert [u.kind for u in regulation.units][-2:] == ["övergångsbestämmelser", "bilaga"]


def test_footnote_is_kept_apart_from_the_section() -> None:
    regulation = afs1()
    [note] = regulation.footnotes
    assert note.number == "1" and note.text.startswith("Jämför rådets direktiv 89/391/EEG")
    assert "89/391/EEG" not in regulation.unit("1 §").text


# --- AFS 2023:10: avdelningar, chapters, bilagor ---------------------------------------


def test_afs_2023_10_avdelningar_and_chapters() -> None:
    regulation = afs10()
    assert regulation.title == "Arbetsmiljöverkets föreskrifter och allmänna råd om risker i arbetsmiljön"
    assert regulation.avdelningar == [
        "Avdelning I: Allmänna bestämmelser", "Avdelning II: Buller och vibrationer", "Avdelning III: Fall och ras",
        "Avdelning IV: Hälsofarliga eller onödigt tröttande fysiska belastningar", "Avdelning V: Kemiska riskkällor",
        "Avdelning VI: Smitta", "Avdelning VII: Strålning",
    ]
    assert [n for n, _ in regulation.chapters] == [str(n) for n in range(1, 14)]
    assert dict(regulation.chapters)["9"] == ("Kompletterande bestämmelser för vissa riskfyllda arbeten i "
                                              "kombination med kemiska riskkällor")
    # The README counts 306 §§; every chapter's §§ run 1, 2, 3 … without gaps.
    sections = regulation.units_of("paragraf")
    assert len(sections) == 306
    for chapter, _ in regulation.chapters:
        numbers = [u.section for u in sections if u.chapter == chapter]
        assert numbers == [str(n) for n in range(1, len(numbers) + 1)], chapter
    noise = regulation.unit("2 kap. 1 §")
    assert noise.avdelning == "Avdelning II: Buller och vibrationer" and noise.chapter_title == "Buller"
    # The chapter tab ("Kapitel 2", even when pypdf splits it "Kapi tel 2") is furniture.
    assert not any("Kapitel" in s or "Kapi tel" in s for u in regulation.units for s in u.stycken)


def test_afs_2023_10_bilagor_kept_with_titles() -> None:
    bilagor = afs10().units_of("bilaga")
    assert [u.citation for u in bilagor] == [f"Bilaga {n}" for n in range(1, 19)]
    assert bilagor[0].title == "Beräkning av daglig bullerexponeringsnivå"
    assert bilagor[6].title == "Tabeller över smittämnen med tillhörande riskklass"
    assert bilagor[0].stycken[0] == "Denna bilaga hör till 2 kap."
    # Bilaga 7 runs over 50 pages with "Bilaga 7" printed on each: one unit, no header lines.
    assert bilagor[6].page == 171 and "Bilaga 7" not in bilagor[6].text


# --- BFS and MSBFS ------------------------------------------------------------------------


def test_bfs_2024_1() -> None:
    regulation = parsed("bfs/BFS-2024-1.pdf")
    assert regulation.agency == "Boverket"
    assert regulation.title == "Boverkets föreskrifter och allmänna råd om certifierade byggprojekteringsföretag"
    assert (regulation.issued, regulation.in_force) == ("2024-01-30", "2024-03-01")
    assert regulation.legal_basis is not None and regulation.legal_basis.sfs == ["2011:338"]
    assert [u.section for u in regulation.units_of("paragraf")] == [str(n) for n in range(1, 14)]
    # Boverket's single "Allmänt råd" heading works like AFS's "Allmänna råd".
    assert [u.section for u in regulation.units_of("allmänt råd")] == ["6", "7", "9"]
    # No heading announces the entry into force: the sentence after the last § opens it.
    [transitional] = regulation.units_of("övergångsbestämmelser")
    assert transitional.stycken[0] == "Denna författning träder i kraft den 1 mars 2024."
    assert "träder i kraft" not in regulation.unit("13 §").text


def test_msbfs_2020_1_chapters_advice_and_footnotes() -> None:
    regulation = parsed("msbfs/MSBFS-2020-1.pdf")
    assert regulation.agency == "Myndigheten för samhällsskydd och beredskap"
    assert regulation.issued == "2020-03-17" and regulation.in_force == "2020-08-01"
    assert regulation.chapters[0] == ("1", "Inledande bestämmelser")
    assert [n for n, _ in regulation.chapters] == [str(n) for n in range(1, 9)]
    advice = regulation.unit("2 kap. 2 § allmänna råd")
    assert advice.chapter == "2" and advice.section == "2" and not advice.binding
    assert advice.text.startswith("Rörledningar bör vara av stål eller koppar")
    assert [f.number for f in regulation.footnotes][:3] == ["1", "2", "3"]
    assert regulation.footnotes[1].text == "Förordningen senast ändrad genom SFS 2020:87."
    # The list of chapters under 1 kap. is chapter prose, not chapter headings.
    assert regulation.units[1].kind == "kapitel" and "- 2 kap. Allmänna hanteringskrav" in regulation.units[1].text


# --- titles outside the usual title block ----------------------------------------------------


def test_a_consolidated_version_s_title_ends_before_its_amendment_note() -> None:
    """BFS 2011:16 (the OVK regulation) as Boverket publishes it consolidated: no "beslutade den" and no
    ";", the title runs until "… med ändringar till och med BFS 2017:10"."""
    regulation = parsed("bfs/BFS-2011-16.pdf")
    assert regulation.title == ("Boverkets föreskrifter och allmänna råd om funktionskontroll av ventilationssystem "
                                "och certifiering av sakkunniga funktionskontrollanter")
    assert regulation.title_from == "first page"
    assert regulation.unit("1 §").text.startswith("1 § Denna författning innehåller föreskrifter och allmänna råd")
    assert regulation.units_of("allmänt råd")


def test_a_date_glued_before_the_title_is_dropped_and_a_split_word_rejoined() -> None:
    """BFS 2012:8's text layer prints "den 2 7 juni 2012 Boverkets allmänna rå d (2012:8) om …;" on one line."""
    regulation = parsed("bfs/BFS-2012-8.pdf")
    assert regulation.title == "Boverkets allmänna råd (2012:8) om den kontrollansvariges självständiga ställning"
    assert ("den 2 7 juni 2012", "beteckning/datum före rubriken") in {(d.text, d.reason) for d in regulation.dropped}
    # The loader reads the title: advice only, so no unit of it is binding.
    data = regulation_from_record(regulation.to_dict())
    assert data.structure and all(unit["binding"] is False for unit in data.structure)


def test_a_pdf_without_its_title_in_the_text_is_named_by_its_designation() -> None:
    regulation = parsed("bfs/BFS-2011-19.pdf")
    assert regulation.title == "Boverkets författning BFS 2011:19"
    assert regulation.title_from == "designation"
    assert "rubriken saknas i PDF:ens text: beteckningen namnger dokumentet" in check_file(
        FIXTURES / "BFS-2011-19.pdf", regulation).problems


def test_an_agency_name_that_wraps_opens_the_title() -> None:
    """MSBFS 2009:1: "Myndigheten för samhällsskydd och" / "beredskaps föreskrifter om ändring i vissa" …"""
    assert parsed("msbfs/MSBFS-2009-1.pdf").title == (
        "Myndigheten för samhällsskydd och beredskaps föreskrifter om ändring i vissa författningar som beslutats "
        "av Statens räddningsverk, Krisberedskapsmyndigheten eller Sprängämnesinspektionen")


def test_an_amending_regulation_s_title_starts_at_its_first_word() -> None:
    """MSBFS 2019:2's title names the agency only inside it: "Föreskrifter om ändring i Myndigheten för" / …"""
    assert parsed("msbfs/MSBFS-2019-2.pdf").title == (
        "Föreskrifter om ändring i Myndigheten för samhällsskydd och beredskaps föreskrifter (MSBFS 2016:4) om "
        "tillstånd för överföring, import och export av explosiva varor")


def test_the_usual_title_block_is_still_where_the_title_comes_from() -> None:
    assert [parsed(name).title_from for name in ("AFS-2023-1.pdf", "AFS-2023-10.pdf", "BFS-2024-1.pdf",
                                                 "MSBFS-2020-1.pdf")] == ["title block"] * 4


# --- furniture ------------------------------------------------------------------------------


def test_furniture_is_dropped_by_general_rules() -> None:
    regulation = afs1()
    dropped = {(line.text, line.reason) for line in regulation.dropped}
    assert ("AFS 2023:1", "sidhuvud/sidfot") in dropped
    assert ("ISSN 1650-3163", "ISSN/ISBN") in dropped
    assert ("Utgivare: Eva Nilsson", "utgivare") in dropped
    assert any(reason == "adress" and "Box 9082" in text for text, reason in dropped)
    assert any(reason == "sidnummer" for _, reason in dropped)
    everything = " ".join([regulation.title or ""] + [s for u in regulation.units for s in u.stycken])
    for furniture in ("ISSN", "www.av.se", "Box 9082", "Utgivare"):
        assert furniture not in everything


def test_repeated_edge_lines_are_furniture_but_structure_is_not() -> None:
    pages = [["AFS 2099:9", f"{n}", "Allmänna råd", f"{n} § Text om något.", "Sidfot AB"] for n in range(1, 6)]
    stripped = strip_furniture(pages)
    kept, dropped = stripped.kept, stripped.dropped
    assert {line.text for line in dropped} == {"AFS 2099:9", "1", "2", "3", "4", "5", "Sidfot AB"}
    assert [line.text for line in kept].count("Allmänna råd") == 5
    assert len([line for line in kept if "§" in line.text]) == 5


@pytest.mark.parametrize("number", ["3 (25)", "3", "Sida 3 av 25", "3 av 25"])
def test_page_number_forms(number: str) -> None:
    words = ["alfa", "beta", "gamma", "delta", "epsilon"]
    pages = [[f"Text om {word}.", number] for word in words]
    stripped = strip_furniture(pages)
    kept, dropped = stripped.kept, stripped.dropped
    assert {line.reason for line in dropped} == {"sidnummer"} and len(dropped) == 5
    assert [line.text for line in kept] == [f"Text om {word}." for word in words]


# --- unreadable files -------------------------------------------------------------------------


def test_not_a_pdf(tmp_path: Path) -> None:
    path = tmp_path / "AFS-2099-1.pdf"
    path.write_text("<html>Sidan kunde inte hittas</html>", encoding="utf-8")
    with pytest.raises(RegulationPdfError, match=r"^AFS-2099-1\.pdf: filen är inte en PDF-fil"):
        parse_regulation(path)


def test_truncated_pdf(tmp_path: Path) -> None:
    data = (FIXTURES / "AFS-2023-1.pdf").read_bytes()
    path = tmp_path / "AFS-2099-2.pdf"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(RegulationPdfError, match=r"^AFS-2099-2\.pdf: PDF-filen är trunkerad"):
        parse_regulation(path)


def test_encrypted_pdf(tmp_path: Path) -> None:
    writer = PdfWriter()
    for page in PdfReader(FIXTURES / "BFS-2024-1.pdf").pages:
        writer.add_page(page)
    writer.encrypt(user_password="hemligt", owner_password="hemligare", algorithm="AES-128")
    path = tmp_path / "BFS-2099-3.pdf"
    with open(path, "wb") as fh:
        writer.write(fh)
    with pytest.raises(RegulationPdfError, match=r"^BFS-2099-3\.pdf: PDF-filen är krypterad") as caught:
        parse_regulation(path)
    assert caught.value.path == path


def test_readable_pages_are_returned_for_a_good_file() -> None:
    pages = read_pages(FIXTURES / "BFS-2024-1.pdf")
    assert len(pages) == 3 and any("beslutade den 30 januari 2024." in line for line in pages[0])
