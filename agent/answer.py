"""Checking the model's citations, and answering from the sources alone when there is no model."""

from __future__ import annotations

import re

from .prompts import NO_MODEL_LEAD, NO_SOURCES_ANSWER

CITATION_RE = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")


def check_citations(text: str, valid: set[int]) -> tuple[str, list[int]]:
    """Drop every [n] that names no given source. Returns (text, removed numbers)."""
    removed: list[int] = []

    def fix(match: re.Match) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        kept = [n for n in numbers if n in valid]
        removed.extend(n for n in numbers if n not in valid)
        return "".join(f"[{n}]" for n in kept)

    cleaned = CITATION_RE.sub(fix, text)
    cleaned = re.sub(r"[ \t]+([.,;:!?])", r"\1", cleaned) if removed else cleaned
    return cleaned, sorted(set(removed))


def cited_numbers(text: str) -> list[int]:
    found: list[int] = []
    for match in CITATION_RE.finditer(text):
        for n in re.findall(r"\d+", match.group(1)):
            if int(n) not in found:
                found.append(int(n))
    return found


def extractive_answer(citations: list[dict], *, lead: str = NO_MODEL_LEAD, max_passages: int = 6) -> str:
    """The most relevant passages, grouped by statute or file, quoted with their citations.

    No prose is invented: apart from the labelled lead-in and one line naming
    each source, every sentence is a quotation.
    """
    if not citations:
        return NO_SOURCES_ANSWER
    chosen = sorted(citations, key=lambda c: c["n"])[:max_passages]
    groups: dict[str, list[dict]] = {}
    for row in chosen:
        groups.setdefault(row.get("document_title") or row["header"], []).append(row)
    parts = [lead]
    for title, rows in groups.items():
        parts.append(f"**Ur {title}:**")
        for row in rows:
            where = row.get("citation") or row["header"]
            quote = " ".join(row["text"].split())
            parts.append(f"> {where}: \"{quote}\" [{row['n']}]")
    return "\n\n".join(parts)
