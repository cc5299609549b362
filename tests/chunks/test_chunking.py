"""Tests of chunks.chunking against the real SFS corpus."""

from __future__ import annotations

import re
from functools import lru_cache

import pytest

from chunks.chunking import ChunkDraft, chunk_parsed_statute, chunk_statute, split_text
from chunks.tokens import count_tokens
from tests.law.test_sfs_parser import corpus, parsed

MAX_TOKENS = 512
SECTION_PARAGRAPH = re.compile(r"(?:^|\n\n)(\d+(?: [a-z])? ?§)")


@lru_cache(maxsize=None)
def chunks(sfs: str, max_tokens: int = MAX_TOKENS) -> tuple[ChunkDraft, ...]:
    return tuple(chunk_parsed_statute(corpus()[sfs]["title"], parsed(sfs), max_tokens=max_tokens))


def locate(text: str, drafts: tuple[ChunkDraft, ...]) -> list[tuple[int, int]]:
    """Offsets of each chunk in the original text; chunks are exact, ordered slices."""
    spans, cursor = [], 0
    for draft in drafts:
        start = text.find(draft.text, cursor)
        assert start >= 0, draft.citation
        spans.append((start, start + len(draft.text)))
        cursor = start + len(draft.text)
    return spans


def is_single_sentence(text: str) -> bool:
    return split_text(text, 1) == [text]


# --- whole corpus -------------------------------------------------------------------------


def test_no_text_lost_or_duplicated_over_the_corpus() -> None:
    squeeze = re.compile(r"\s+")
    for sfs, record in corpus().items():
        statute, drafts = parsed(sfs), chunks(sfs)
        by_unit: dict[int, list[str]] = {}
        for draft in drafts:
            by_unit.setdefault(int(draft.path.split(".")[0]), []).append(draft.text)
        # Chunk texts plus the structural lines shown in headers rebuild the statute.
        rebuilt = [p for unit in statute.units for p in [*unit.prelude, *by_unit[unit.ordinal]]]
        rebuilt += statute.trailing
        assert squeeze.sub("", "".join(rebuilt)) == squeeze.sub("", record["text"]), sfs


def test_every_section_paragraph_is_in_exactly_one_chunk_over_the_corpus() -> None:
    for sfs, record in corpus().items():
        text = record["text"]
        spans = locate(text, chunks(sfs))
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), sfs  # no overlap
        for match in SECTION_PARAGRAPH.finditer(text):
            start = match.start(1)
            owners = [span for span in spans if span[0] <= start < span[1]]
            assert len(owners) == 1, (sfs, text[start:start + 60])


def test_chunk_size_limit_over_the_corpus() -> None:
    for sfs in corpus():
        for draft in chunks(sfs):
            if draft.token_count > MAX_TOKENS:
                assert is_single_sentence(draft.text), (sfs, draft.citation)


def test_token_counts_are_exact() -> None:
    for draft in chunks("2009:400")[::25]:
        assert draft.token_count == count_tokens(draft.text)


def test_paths_ordinals_and_split_parts_over_the_corpus() -> None:
    for sfs in corpus():
        drafts = chunks(sfs)
        paths = [d.path for d in drafts]
        assert paths == sorted(paths) and len(set(paths)) == len(paths), sfs
        assert [d.ordinal for d in drafts] == list(range(len(drafts)))
        groups: dict[str, list[ChunkDraft]] = {}
        for draft in drafts:
            groups.setdefault(draft.path.split(".")[0], []).append(draft)
        for parts in groups.values():
            assert len({(p.citation, p.header, p.kind) for p in parts}) == 1, sfs
            assert [(p.split_index, p.split_count) for p in parts] == [(i, len(parts)) for i in range(len(parts))]


def test_header_and_citation_lengths_fit_the_columns() -> None:
    # ContentChunk.header / .citation bounds used by chunks.file_chunking.
    for sfs in corpus():
        for draft in chunks(sfs):
            assert len(draft.header) <= 1000 and len(draft.citation) <= 200, (sfs, draft.citation)


def test_small_budget_still_cuts_only_between_sentences() -> None:
    record = corpus()["1977:1160"]
    drafts = chunks("1977:1160", 40)
    assert len(drafts) > len(chunks("1977:1160"))
    locate(record["text"], drafts)
    for draft in drafts:
        assert draft.token_count <= 40 or is_single_sentence(draft.text), draft.text
        assert re.search(r"[.:;,!?)]$|\w$", draft.text)  # ends at a sentence/paragraph end


# --- citations and headers -------------------------------------------------------------------


def test_header_and_citation_of_a_section() -> None:
    draft = next(d for d in chunks("1977:1160") if d.citation == "3 kap. 2 a §")
    assert draft.header == "Arbetsmiljölag (1977:1160) > 3 kap. Allmänna skyldigheter > 2 a §"
    assert (draft.chapter, draft.section, draft.kind, draft.page) == ("3", "2 a", "section", None)
    assert draft.text.startswith("2 a § ")


def test_header_includes_the_section_heading() -> None:
    draft = next(d for d in chunks("1982:80") if d.citation == "22 §")
    assert draft.header == "Lag (1982:80) om anställningsskydd > Turordning vid uppsägning > 22 §"
    assert draft.heading == "Turordning vid uppsägning"


def test_long_section_is_split_and_keeps_its_citation() -> None:
    drafts = [d for d in chunks("2009:400") if d.split_count > 1]
    assert drafts
    first = drafts[0]
    parts = [d for d in chunks("2009:400") if d.path.split(".")[0] == first.path.split(".")[0]]
    assert parts[0].text.startswith(first.citation.split(" kap. ")[-1])
    assert all(p.citation == first.citation for p in parts)
    assert all(p.token_count <= MAX_TOKENS for p in parts)


def test_continuous_numbering_cites_without_chapter() -> None:
    draft = next(d for d in chunks("1915:218") if d.citation == "36 §")
    assert draft.chapter == "3" and draft.header.endswith(" > 36 §")
    assert " kap. " in draft.header  # the header still shows where the § sits
    assert not any("kap." in d.citation for d in chunks("1960:729") if d.kind == "section")


def test_temporal_versions_are_both_chunked() -> None:
    versions = [d for d in chunks("1995:584") if d.citation == "3 §"]
    assert [d.header.rsplit(" > ", 1)[-1] for d in versions] == [
        "3 § (upphör att gälla 2024-07-01)",
        "3 § (träder i kraft 2024-07-01)",
    ]
    assert versions[1].temporal == "Träder i kraft I:2024-07-01"


def test_transitional_and_appendix_chunks() -> None:
    transitional = [d for d in chunks("1977:1160") if d.kind == "transitional"]
    assert transitional[-1].header == "Arbetsmiljölag (1977:1160) > Övergångsbestämmelser > 2018:126"
    assert transitional[-1].citation == "Övergångsbestämmelser 2018:126"
    assert chunks("1977:1160")[-1] is transitional[-1]
    appendix = [d for d in chunks("1995:1554") if d.kind == "appendix"]
    assert appendix[0].citation == "Bilaga 1" and appendix[0].header.endswith(" > Bilaga 1")


def test_chunk_statute_from_plain_text() -> None:
    text = "\n\n".join([
        "1 kap. Allmänt", "Syfte", "1 § Lagen gäller.",
        "Övergångsbestämmelser", "2099:2", "Denna lag träder i kraft.",
    ])
    drafts = chunk_statute("Testlag", "2099:1", text)
    assert [(d.header, d.citation, d.text) for d in drafts] == [
        ("Testlag (2099:1) > 1 kap. Allmänt > Syfte > 1 §", "1 kap. 1 §", "1 § Lagen gäller."),
        ("Testlag (2099:1) > Övergångsbestämmelser > 2099:2", "Övergångsbestämmelser 2099:2",
         "Denna lag träder i kraft."),
    ]
    assert [d.path for d in drafts] == ["00000.00000", "00001.00000"]


# --- split_text ---------------------------------------------------------------------------------


def test_split_text_keeps_short_text_whole() -> None:
    assert split_text("  Kort text.  ", 50) == ["Kort text."]
    assert split_text(" \n ", 50) == []


def test_split_text_prefers_paragraph_boundaries() -> None:
    paragraphs = [f"Stycke {n} har en mening som är ganska lång och saknar förkortningar." for n in range(6)]
    parts = split_text("\n\n".join(paragraphs), 40)
    assert len(parts) > 1
    assert all(part.split("\n\n")[0] in paragraphs for part in parts)
    assert "\n\n".join(parts) == "\n\n".join(paragraphs)


@pytest.mark.parametrize(
    "abbreviation",
    ["m.m.", "m. m.", "t.ex.", "bl.a.", "s.k.", "3 kap.", "jfr.", "1 §.", "m.fl.", "punkt 2."],
)
def test_split_text_does_not_break_after_abbreviations(abbreviation: str) -> None:
    sentence = f"Arbetsgivaren ska enligt avtalet {abbreviation} Detta gäller hela tiden."
    assert split_text(sentence, 5) == [sentence]


def test_split_text_breaks_between_sentences() -> None:
    text = "Den första meningen slutar här. Den andra meningen slutar den 1 juli 2024. Tredje? Ja!"
    parts = split_text(text, 9)
    assert parts == ["Den första meningen slutar här.", "Den andra meningen slutar den 1 juli 2024.", "Tredje? Ja!"]


def test_split_text_returns_an_overlong_sentence_whole() -> None:
    sentence = "Detta är en mycket lång mening " + "och den fortsätter " * 80 + "ända hit."
    assert split_text(sentence, 20) == [sentence]


def test_split_text_splits_tables_at_line_breaks() -> None:
    table = "\n".join(f"Rad {n}\t\tvärde {n}" for n in range(200))
    parts = split_text(table, 60)
    assert len(parts) > 1 and all(count_tokens(p) <= 60 for p in parts)
    assert "\n".join(parts) == table
