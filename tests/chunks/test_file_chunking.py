"""Chunking of extracted files and assessments: headers, pages, bounds, order, no loss."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from chunks.chunking import ChunkDraft
from chunks.extract import ExtractedDocument, TextBlock, extract_text
from chunks.file_chunking import chunk_assessment, chunk_extracted
from chunks.tokens import count_tokens
from tests.chunks.test_extract import PDF_PAGES, make_docx, make_pdf


@pytest.fixture(autouse=True)
def _media_root() -> Iterator[None]:
    # Shadows the suite-wide fixture of the same name: pure Python, no Django.
    yield


def _words(text: str) -> list[str]:
    return text.split()


def _assert_no_loss(doc: ExtractedDocument, chunks: list[ChunkDraft]) -> None:
    # Chunk boundaries may move whitespace, never words, and never reorder them.
    assert _words(" ".join(c.text for c in chunks)) == _words(" ".join(b.text for b in doc.blocks))


def _assert_well_formed(chunks: list[ChunkDraft], max_tokens: int) -> None:
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    paths = [c.path for c in chunks]
    assert paths == sorted(paths) and len(set(paths)) == len(paths)
    for chunk in chunks:
        assert chunk.text.strip()
        assert chunk.token_count == count_tokens(chunk.text) <= max_tokens
        assert len(chunk.header) <= 1000 and len(chunk.citation) <= 200 and len(chunk.path) <= 200


SENTENCE = "Arbetsgivaren ska systematiskt planera, leda och kontrollera verksamheten så att arbetsmiljön blir god."


def test_pdf_chunks_have_page_headers_and_citations() -> None:
    doc = extract_text(make_pdf(PDF_PAGES), "Arbetsmiljöpolicy.pdf")
    chunks = chunk_extracted("Arbetsmiljöpolicy.pdf", doc)

    assert [c.page for c in chunks] == [1, 2, 3]  # small pages: one chunk each
    assert chunks[2].header == "Arbetsmiljöpolicy.pdf > Sida 3"
    assert chunks[2].citation == "Sida 3"
    assert chunks[0].kind == "page"
    assert "förebygga ohälsa" in chunks[0].text
    _assert_well_formed(chunks, 400)
    _assert_no_loss(doc, chunks)


def test_docx_chunks_follow_headings() -> None:
    doc = extract_text(make_docx(), "Rutin för tillbud.docx")
    chunks = chunk_extracted("Rutin för tillbud.docx", doc)

    by_heading = {c.heading: c for c in chunks}
    responsibility = by_heading["2. Ansvar"]
    assert responsibility.header == "Rutin för tillbud.docx > Rutin för tillbud > 2. Ansvar"
    assert responsibility.citation == "2. Ansvar"
    assert responsibility.page is None
    assert responsibility.text == "Närmaste chef ansvarar för utredningen."
    # Small consecutive paragraphs under one heading are merged, table rows too.
    ombud = by_heading["2.1 Skyddsombud"]
    assert ombud.header.endswith("2. Ansvar > 2.1 Skyddsombud")
    assert ombud.text == (
        "Skyddsombudet informeras inom en vecka.\n\n• Rapportera i systemet\n\n"
        "Roll | Uppgift\n\nChef | Utreder tillbudet"
    )
    _assert_well_formed(chunks, 400)
    _assert_no_loss(doc, chunks)


def test_long_section_is_split_at_sentences_within_budget() -> None:
    paragraph = " ".join(f"Punkt {i}: {SENTENCE}" for i in range(40))
    doc = ExtractedDocument(
        blocks=[TextBlock("Kort inledning.", ("Policy",)), TextBlock(paragraph, ("Policy", "Detaljer"))],
        page_count=None,
        kind="txt",
    )
    chunks = chunk_extracted("policy.txt", doc, max_tokens=60)

    assert len(chunks) > 5
    assert chunks[0].text == "Kort inledning." and chunks[0].header == "policy.txt > Policy"
    assert all(c.header == "policy.txt > Policy > Detaljer" for c in chunks[1:])
    for chunk in chunks[1:]:
        # Never inside a sentence: every piece starts a sentence and ends one.
        assert chunk.text.startswith("Punkt") and chunk.text.endswith(".")
        assert re.fullmatch(r"(Punkt \d+: Arbetsgivaren[^.]*\.\s*)+", chunk.text)
    _assert_well_formed(chunks, 60)
    _assert_no_loss(doc, chunks)


def test_merge_never_crosses_heading_or_page() -> None:
    doc = ExtractedDocument(
        blocks=[
            TextBlock("Ett.", (), 1),
            TextBlock("Två.", (), 1),
            TextBlock("Tre.", (), 2),
            TextBlock("Fyra.", (), 2),
        ],
        page_count=2,
        kind="pdf",
    )
    chunks = chunk_extracted("a.pdf", doc)
    assert [(c.page, c.citation, c.text) for c in chunks] == [
        (1, "Sida 1", "Ett.\n\nTvå."),
        (2, "Sida 2", "Tre.\n\nFyra."),
    ]


def test_multi_page_pdf_many_chunks_in_document_order() -> None:
    pages = [[f"Sida {p} mening {i}: " + SENTENCE for i in range(12)] for p in range(1, 13)]
    doc = extract_text(make_pdf(pages), "lång.pdf")
    chunks = chunk_extracted("lång.pdf", doc, max_tokens=80)

    assert len(chunks) > 24
    assert [c.page for c in chunks] == sorted(c.page for c in chunks)
    assert {c.page for c in chunks} == set(range(1, 13))
    assert all(c.header == f"lång.pdf > Sida {c.page}" for c in chunks)
    _assert_well_formed(chunks, 80)
    _assert_no_loss(doc, chunks)


def test_text_without_sentences_is_still_bounded_and_complete() -> None:
    row = " | ".join(f"kolumn{i} värde{i}" for i in range(300))  # a table row: no full stops
    url = "https://exempel.se/" + "a" * 3000  # one "word" far over budget
    doc = ExtractedDocument(blocks=[TextBlock(row), TextBlock(url)], page_count=None, kind="txt")
    chunks = chunk_extracted("data.txt", doc, max_tokens=50)
    _assert_well_formed(chunks, 50)
    words = _words(" ".join(c.text for c in chunks))
    n = len(_words(row))
    assert words[:n] == _words(row)
    assert "".join(words[n:]) == url
    assert all(c.header == "data.txt" and c.citation == "data.txt" for c in chunks)


def test_paths_stay_sorted_past_ten_chunks() -> None:
    doc = ExtractedDocument([TextBlock(f"Stycke {i}.", (f"Rubrik {i}",)) for i in range(120)], None, "md")
    chunks = chunk_extracted("a.md", doc)
    assert len(chunks) == 120
    assert sorted(chunks, key=lambda c: c.path) == chunks


def test_long_heading_is_clipped_to_column_sizes() -> None:
    heading = "Rubrik " * 200
    doc = ExtractedDocument([TextBlock("Text.", (heading, heading))], None, "docx")
    chunk = chunk_extracted("a.docx", doc)[0]
    assert len(chunk.header) <= 1000 and len(chunk.citation) <= 200
    assert chunk.header.endswith("…")


def test_assessment_single_chunk() -> None:
    chunks = chunk_assessment(
        title="Systematiskt arbetsmiljöarbete",
        statute_title="Arbetsmiljölag (1977:1160)",
        section_ref="3 kap. 2 a §",
        status_label="delvis uppfyllt",
        notes="Rutin finns men följs inte upp årligen.",
        owner="Anna Svensson",
        due_date="2025-06-30",
    )
    assert len(chunks) == 1
    chunk = chunks[0]
    assert chunk.header == "Bedömning: Systematiskt arbetsmiljöarbete > Arbetsmiljölag (1977:1160) 3 kap. 2 a §"
    assert chunk.citation == "Bedömning: Systematiskt arbetsmiljöarbete"
    assert chunk.kind == "assessment" and chunk.ordinal == 0
    for expected in (
        "Krav: Systematiskt arbetsmiljöarbete",
        "Lagrum: Arbetsmiljölag (1977:1160) 3 kap. 2 a §",
        "Status: delvis uppfyllt",
        "Ansvarig: Anna Svensson",
        "Klart senast: 2025-06-30",
        "Anteckningar:\nRutin finns men följs inte upp årligen.",
    ):
        assert expected in chunk.text
    assert chunk.token_count == count_tokens(chunk.text)


def test_assessment_minimal_fields() -> None:
    (chunk,) = chunk_assessment(
        title="Brandskydd", statute_title=None, section_ref=None, status_label="",
        notes="", owner=None, due_date=None,
    )
    assert chunk.header == "Bedömning: Brandskydd"
    assert chunk.text == "Krav: Brandskydd\nStatus: ej bedömt"


def test_assessment_long_notes_split_with_context_in_every_chunk() -> None:
    notes = " ".join(f"Åtgärd {i}: {SENTENCE}" for i in range(60))
    chunks = chunk_assessment(
        title="Riskbedömning", statute_title="Arbetsmiljöförordning (1977:1166)", section_ref=None,
        status_label="ej uppfyllt", notes=notes, owner="Bo", due_date=None, max_tokens=120,
    )
    assert len(chunks) > 3
    _assert_well_formed(chunks, 120)
    for chunk in chunks:
        assert chunk.text.startswith(
            "Krav: Riskbedömning\nLagrum: Arbetsmiljöförordning (1977:1166)\nStatus: ej uppfyllt"
        )
        assert chunk.header == "Bedömning: Riskbedömning > Arbetsmiljöförordning (1977:1166)"
    carried = " ".join(c.text.split("Anteckningar:\n", 1)[1] for c in chunks)
    assert _words(carried) == _words(notes)
