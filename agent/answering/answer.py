"""Checking the model's citations, and answering from the sources alone when there is no model."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .comparison import Pair, pair_own_with_law
from .prompts import (
    COMPARISON_HEADING,
    COMPARISON_NOTE,
    CORRECTED_WORDS_NOTE,
    GLOSSARY_NOTE,
    NO_MODEL_LEAD,
    NO_SOURCES_ANSWER,
    NO_SOURCES_UNKNOWN_WORDS_ANSWER,
    UNKNOWN_WORDS_NOTE,
    glossary_terms,
    quoted_words,
)

CITATION_RE = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")


@dataclass(frozen=True)
class CheckedCitations:
    text: str  # the answer without the citations that name no source
    removed: list[int]  # the numbers dropped, sorted


def check_citations(text: str, valid: set[int]) -> CheckedCitations:
    """Drop every [n] that names no given source."""
    removed: list[int] = []

    def fix(match: re.Match) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        kept = [n for n in numbers if n in valid]
        removed.extend(n for n in numbers if n not in valid)
        return "".join(f"[{n}]" for n in kept)

    cleaned = CITATION_RE.sub(fix, text)
    cleaned = re.sub(r"[ \t]+([.,;:!?])", r"\1", cleaned) if removed else cleaned
    return CheckedCitations(text=cleaned, removed=sorted(set(removed)))


def cited_numbers(text: str) -> list[int]:
    found: list[int] = []
    for match in CITATION_RE.finditer(text):
        for n in re.findall(r"\d+", match.group(1)):
            if int(n) not in found:
                found.append(int(n))
    return found


QUOTE_CHARS = 700


def _quote(text: str) -> str:
    """The passage verbatim, cut after a sentence when long."""
    flat = " ".join(text.split())
    if len(flat) <= QUOTE_CHARS:
        return flat
    cut = flat.rfind(". ", 0, QUOTE_CHARS)
    return flat[: cut + 1 if cut > QUOTE_CHARS // 3 else QUOTE_CHARS] + " […]"


def _cell(row: dict, quote: str) -> str:
    """One table cell: where, the verbatim quote, the citation. A "|" would end the cell early."""
    where = row.get("citation") or row.get("header") or ""
    title = row.get("document_title") or ""
    label = f"{title}, {where}" if title and where and where not in title else (where or title)
    return f"{label}: \"{quote}\" [{row['n']}]".replace("|", "\\|")


def comparison_table(pairs: list[Pair]) -> str:
    """The company's sentences and the law's beside each other, one row per shared subject."""
    rows = ["| Ur era dokument | Ur lagen |", "| --- | --- |"]
    for pair in pairs:
        # A short section is quoted whole (the reader needs its conditions); a long one at the matching sentence.
        law_text = " ".join((pair.law.get("passage") or pair.law.get("text") or "").split())
        law_quote = _quote(law_text) if len(law_text) <= QUOTE_CHARS else _quote(pair.law_sentence)
        rows.append(f"| {_cell(pair.own, _quote(pair.own_sentence))} | {_cell(pair.law, law_quote)} |")
    return "\n".join(rows)


def extractive_answer(citations: list[dict], *, lead: str = NO_MODEL_LEAD, max_passages: int = 6,
                      profile_note: str = "", compare: bool = True, unknown_words: Sequence[str] = (),
                      corrections: Mapping[str, str] | None = None, glossary: Mapping[str, str] | None = None) -> str:
    """The most relevant passages, grouped by statute or file, quoted with their citations.

    When the sources hold both the company's own documents and statute text on the same subject
    (agent.answering.comparison), those sentences come first, side by side, with a note that this is a
    mechanical reading and not legal advice. No prose is invented: apart from the labelled
    lead-in, the profile facts the reader stated (`profile_note`, agent.memory.profile.mention_sentence),
    the note naming the question's words no source uses (`unknown_words`, a misspelt one with the statute word
    searched for it, `corrections`), the terms of the workspace's glossary the question used (`glossary`), the
    comparison's heading and note
    and one line naming each source, every sentence is a quotation.
    """
    taught = GLOSSARY_NOTE.format(terms=glossary_terms(glossary)) if glossary else ""
    if not citations:
        empty = (NO_SOURCES_UNKNOWN_WORDS_ANSWER.format(words=quoted_words(unknown_words, corrections))
                 if unknown_words else NO_SOURCES_ANSWER)
        return f"{empty}\n\n{taught}" if taught else empty
    # The most relevant passages (cited sections first), grouped by source in order of relevance.
    by_relevance = sorted(citations, key=lambda c: (not c.get("reference_match"), -c.get("score", 0.0), c["n"]))
    groups: dict[str, list[dict]] = {}
    for row in by_relevance[:max_passages]:
        groups.setdefault(row.get("document_title") or row["header"], []).append(row)
    parts = [lead, profile_note] if profile_note else [lead]
    if taught:
        parts.append(taught)
    corrections = corrections or {}
    missing = [word for word in unknown_words if word not in corrections]
    corrected = [word for word in unknown_words if word in corrections]
    if missing:
        parts.append(UNKNOWN_WORDS_NOTE.format(words=quoted_words(missing)))
    if corrected:
        parts.append(CORRECTED_WORDS_NOTE.format(words=quoted_words(corrected, corrections)))
    pairs = pair_own_with_law(citations) if compare else []
    if pairs:
        parts += [COMPARISON_HEADING, comparison_table(pairs), COMPARISON_NOTE]
    for title, rows in groups.items():
        parts.append(f"**Ur {title}:**")
        for row in rows:
            where = row.get("citation") or row["header"]
            quote = _quote(row.get("passage") or row["text"])
            parts.append(f"> {where}: \"{quote}\" [{row['n']}]")
    return "\n\n".join(parts)
