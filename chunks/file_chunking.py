"""Chunking of extracted workspace files and of assessments.

Chunks follow the document's own structure: a chunk never spans two headings
or two PDF pages, so its header and citation ("Sida 3", "2. Ansvar") are
always true for all of its text. Within one heading/page, small paragraphs
are merged up to the token budget and large ones are split at sentence
boundaries by the shared `split_text`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import Iterable

from .chunking import PATH_WIDTH, ChunkDraft, split_text
from .extract import ExtractedDocument, TextBlock
from .tokens import count_tokens

# Bounds of the ContentChunk columns these strings land in.
MAX_HEADER_CHARS = 1000
MAX_CITATION_CHARS = 200
SEPARATOR = " > "
PARAGRAPH_JOIN = "\n\n"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _hard_split(text: str, max_tokens: int) -> list[str]:
    """Last resort for a "sentence" over budget (a long table row, a URL list):
    split between words, and inside a word only if the word alone is too big.
    """
    pieces: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if count_tokens(candidate) <= max_tokens:
            current = candidate
            continue
        if current:
            pieces.append(current)
        if count_tokens(word) <= max_tokens:
            current = word
            continue
        # A character is at most 4 UTF-8 bytes, hence at most 4 tokens.
        step = max(1, max_tokens // 4)
        pieces.extend(word[i:i + step] for i in range(0, len(word) - step, step))
        current = word[(len(word) - 1) // step * step:]
    if current:
        pieces.append(current)
    return pieces


def _split_bounded(text: str, max_tokens: int) -> list[str]:
    if count_tokens(text) <= max_tokens:
        return [text]
    pieces: list[str] = []
    for piece in split_text(text, max_tokens):
        piece = piece.strip()
        if not piece:
            continue
        pieces.extend([piece] if count_tokens(piece) <= max_tokens else _hard_split(piece, max_tokens))
    return pieces


def _pack(texts: Iterable[str], max_tokens: int) -> list[str]:
    """Merge consecutive paragraphs greedily, never past the budget."""
    packed: list[str] = []
    current = ""
    for text in texts:
        for piece in _split_bounded(text, max_tokens):
            candidate = f"{current}{PARAGRAPH_JOIN}{piece}" if current else piece
            if current and count_tokens(candidate) > max_tokens:
                packed.append(current)
                current = piece
            else:
                current = candidate
    if current:
        packed.append(current)
    return packed


@dataclass(frozen=True)
class _Location:
    header: str
    citation: str
    heading: str | None
    page: int | None
    kind: str


def _locate(title: str, heading_path: tuple[str, ...], page: int | None) -> _Location:
    heading = heading_path[-1] if heading_path else None
    if page is not None:
        # Page first: a PDF citation a reader can check is the page number.
        return _Location(
            header=_clip(f"{title}{SEPARATOR}Sida {page}", MAX_HEADER_CHARS),
            citation=f"Sida {page}",
            heading=heading,
            page=page,
            kind="page",
        )
    return _Location(
        header=_clip(SEPARATOR.join((title, *heading_path)), MAX_HEADER_CHARS),
        citation=_clip(heading or title, MAX_CITATION_CHARS),
        heading=heading,
        page=None,
        kind="section",
    )


def _path(unit: int, part: int) -> str:
    # Same shape as statute paths: zero-padded, so sorting gives document order.
    return f"{unit:0{PATH_WIDTH}d}.{part:0{PATH_WIDTH}d}"


def chunk_extracted(title: str, doc: ExtractedDocument, *, max_tokens: int = 400) -> list[ChunkDraft]:
    """Chunks of an extracted file, in document order, each at most `max_tokens` of text."""
    if max_tokens < 8:
        raise ValueError("max_tokens must leave room for at least a few words")
    drafts: list[ChunkDraft] = []

    def section_key(block: TextBlock) -> tuple[tuple[str, ...], int | None]:
        return block.heading_path, block.page

    for unit, ((heading_path, page), blocks) in enumerate(groupby(doc.blocks, key=section_key)):
        location = _locate(title, heading_path, page)
        parts = _pack((block.text for block in blocks), max_tokens)
        for index, text in enumerate(parts):
            drafts.append(ChunkDraft(
                header=location.header,
                path=_path(unit, index),
                ordinal=len(drafts),
                citation=location.citation,
                text=text,
                token_count=count_tokens(text),
                page=location.page,
                heading=location.heading,
                kind=location.kind,
                split_index=index,
                split_count=len(parts),
            ))
    return drafts


def _assessment_preamble(
    title: str, reference: str, status_label: str, owner: str | None, due_date: str | None
) -> str:
    lines = [f"Krav: {title}"]
    if reference:
        lines.append(f"Lagrum: {reference}")
    lines.append(f"Status: {status_label.strip() or 'ej bedömt'}")
    if owner and owner.strip():
        lines.append(f"Ansvarig: {owner.strip()}")
    if due_date and str(due_date).strip():
        lines.append(f"Klart senast: {str(due_date).strip()}")
    return "\n".join(lines)


def chunk_assessment(
    *,
    title: str,
    statute_title: str | None,
    section_ref: str | None,
    status_label: str,
    notes: str,
    owner: str | None,
    due_date: str | None,
    max_tokens: int = 400,
) -> list[ChunkDraft]:
    """An assessment as chunk(s); every chunk repeats requirement, reference and status,
    so a retrieved continuation of long notes still says what it is about.
    """
    title = " ".join(title.split())
    reference = " ".join(" ".join(p for p in (statute_title, section_ref) if p and p.strip()).split())
    header = _clip(f"Bedömning: {title}" + (f"{SEPARATOR}{reference}" if reference else ""), MAX_HEADER_CHARS)
    citation = _clip(f"Bedömning: {title}", MAX_CITATION_CHARS)
    preamble = _assessment_preamble(title, reference, status_label, owner, due_date)
    notes = (notes or "").strip()
    notes_label = f"{PARAGRAPH_JOIN}Anteckningar:\n"
    bodies: list[str]
    if not notes:
        bodies = [preamble]
    elif count_tokens(preamble + notes_label + notes) <= max_tokens:
        bodies = [preamble + notes_label + notes]
    else:
        # The preamble rides along in every chunk; the notes get what is left,
        # but never so little that they shatter into word-sized pieces.
        budget = max(max_tokens - count_tokens(preamble + notes_label) - 2, max_tokens // 3)
        bodies = [preamble + notes_label + piece for piece in _pack([notes], budget)]
    return [
        ChunkDraft(
            header=header,
            path=_path(0, ordinal),
            ordinal=ordinal,
            citation=citation,
            text=body,
            token_count=count_tokens(body),
            heading=_clip(title, MAX_CITATION_CHARS) or None,
            kind="assessment",
            split_index=ordinal,
            split_count=len(bodies),
        )
        for ordinal, body in enumerate(bodies)
    ]
