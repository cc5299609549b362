"""Chunking of statutes (and generic text) into retrieval-sized pieces.

A statute is chunked along its legal structure: one chunk per § (per temporal
version), per transitional block, per appendix and for any preamble. Only a unit that
is longer than `max_tokens` is split, at stycke boundaries first, then at line breaks
(tables), then at sentence boundaries; a single sentence is never cut, so a chunk can
exceed `max_tokens` only when one sentence does. Every part is a contiguous slice of
the original text and keeps the citation of its unit.

`token_count` is the token count of `text` alone; callers that embed `header + text`
should keep a margin for the header.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from compliance.text import sentence_ends
from law.sfs_parser import Appendix, ParsedSection, ParsedStatute, TransitionalBlock, Unit, parse_statute

from .tokens import count_tokens

PATH_WIDTH = 5  # zero padding so that paths sort lexicographically in document order


@dataclass
class ChunkDraft:
    """A chunk ready to be stored and embedded.

    header: breadcrumb for display and embedding,
        "Arbetsmiljölag (1977:1160) > 3 kap. Allmänna skyldigheter > 2 a §".
    path: "<unit>.<part>" with zero-padded numbers; sorts in document order.
    ordinal: running index of the chunk in the document (0, 1, 2 …).
    citation: "3 kap. 2 a §", "36 §", "Övergångsbestämmelser 2009:1439", "Bilaga 1".
    text: contiguous original text of the chunk.
    token_count: tokens in `text` (chunks.tokens.count_tokens).
    chapter / section: "3 a" / "2 a" where applicable.
    page: page number for paginated sources (files); None for statutes.
    heading: the rubrik of the §, if any.
    kind: "section", "preamble", "chapter", "transitional", "appendix" (files may use
        their own kinds).
    temporal: version marker of the §, "Träder i kraft I:2024-07-01".
    retrievable: False for stubs that say only that a § or chapter was repealed or
        renumbered, and for units with no words beyond their label (see is_stub).
    split_index / split_count: position of this part when a unit was split.
    """

    header: str
    path: str
    ordinal: int
    citation: str
    text: str
    token_count: int
    chapter: str | None = None
    section: str | None = None
    page: int | None = None
    heading: str | None = None
    kind: str = "section"
    temporal: str | None = None
    split_index: int = 0
    split_count: int = 1
    retrievable: bool = True


def chunk_statute(title: str, sfs: str, text: str, *, max_tokens: int = 512) -> list[ChunkDraft]:
    """Chunk one consolidated statute (see law.sfs_parser for the structure). An agency or EU regulation
    is chunked from the units its loader stored (`chunk_regulation`)."""
    return chunk_parsed_statute(title, parse_statute(text, sfs), max_tokens=max_tokens)


def chunk_parsed_statute(title: str, parsed: ParsedStatute, *, max_tokens: int = 512) -> list[ChunkDraft]:
    if parsed.sfs not in title:
        title = f"{title} ({parsed.sfs})"
    drafts: list[ChunkDraft] = []
    for unit in parsed.units:
        header = unit_header(title, unit)
        parts = split_text(unit.text, max_tokens)
        for index, part in enumerate(parts):
            drafts.append(_draft(unit, header, part, len(drafts), index, len(parts)))
    return drafts


def _draft(unit: Unit, header: str, text: str, ordinal: int, index: int, count: int) -> ChunkDraft:
    section = unit if isinstance(unit, ParsedSection) else None
    return ChunkDraft(
        header=header,
        path=f"{unit.ordinal:0{PATH_WIDTH}d}.{index:0{PATH_WIDTH}d}",
        ordinal=ordinal,
        citation=unit.citation,
        text=text,
        token_count=count_tokens(text),
        chapter=section.chapter if section else None,
        section=section.section if section else None,
        heading=section.heading if section else None,
        kind=unit.kind,
        temporal=section.temporal if section else None,
        split_index=index,
        split_count=count,
        retrievable=not (getattr(unit, "repealed", False) or is_stub(text)),
    )


# --- agency and EU regulations ------------------------------------------------------

# What the context block, the source card and the page say of a unit that is not a rule.
ADVICE_LABEL = "allmänt råd (inte bindande)"
RECITAL_LABEL = "inte bindande"
_REGULATION_KIND = {"inledning": "preamble", "kapitel": "chapter", "paragraf": "section", "allmänt råd": "advice",
                    "övergångsbestämmelser": "transitional", "bilaga": "appendix", "artikel": "article",
                    "skäl": "recital"}


def regulation_title(title: str, number: str) -> str:
    """The first part of every header: "Förordning (EU) 2016/679 – Allmän dataskyddsförordning (GDPR)",
    "Arbetsmiljöverkets föreskrifter … (AFS 2023:1)"."""
    if number.startswith("("):
        return f"Förordning {number} – {title}"
    return title if number in title else f"{title} ({number})"


def advice_citation(citation: str) -> str:
    """"2 kap. 4 § allmänna råd" -> "2 kap. 4 § allmänt råd (inte bindande)"."""
    base = citation.removesuffix("allmänna råd").removesuffix("allmänt råd").strip()
    return f"{base} {ADVICE_LABEL}".strip()


def chunk_regulation(title: str, number: str, structure: list[dict], *, max_tokens: int = 512) -> list[ChunkDraft]:
    """Chunk an agency regulation or an EU regulation along its units (law.regulations):
    each § its own chunk, each allmänt råd its own chunk labelled as advice (never merged into the
    § it explains), each bilaga, the preamble and transitional provisions; an EU regulation's
    recitals as "skäl N" (not binding) and its articles, a long article by its numbered punkter."""
    base = regulation_title(title, number)
    drafts: list[ChunkDraft] = []
    for ordinal, unit in enumerate(structure):
        kind = _REGULATION_KIND.get(unit.get("kind", ""), "section")
        pieces = _regulation_pieces(unit, kind, max_tokens)
        for citation, label, text in pieces:
            header = " > ".join(filter(None, [base, *_regulation_path(unit, kind), label]))
            parts = split_text(text, max_tokens)
            for index, part in enumerate(parts):
                drafts.append(ChunkDraft(
                    header=header,
                    path=f"{ordinal:0{PATH_WIDTH}d}.{len(drafts):0{PATH_WIDTH}d}",
                    ordinal=len(drafts),
                    citation=citation,
                    text=part,
                    token_count=count_tokens(part),
                    chapter=unit.get("chapter") or None,
                    section=unit.get("section") or None,
                    heading=unit.get("heading") or None,
                    kind=kind,
                    split_index=index,
                    split_count=len(parts),
                    retrievable=not is_stub(part) or kind in ("recital", "article"),
                ))
    return drafts


def _regulation_path(unit: dict, kind: str) -> list[str]:
    """The headings between the document and the unit: avdelning, chapter, rubrik."""
    if kind in ("recital", "transitional", "appendix", "preamble"):
        return []
    if kind == "article":
        chapter = " ".join(filter(None, [f"Kapitel {unit['chapter']}" if unit.get("chapter") else "",
                                         unit.get("chapter_title")]))
        article = " ".join(filter(None, [unit["citation"].capitalize(), unit.get("title")]))
        return [chapter, unit.get("heading") or "", article]
    chapter = " ".join(filter(None, [f"{unit['chapter']} kap." if unit.get("chapter") else "",
                                     unit.get("chapter_title")]))
    return [unit.get("avdelning") or "", chapter, unit.get("heading") if kind != "chapter" else ""]


def _regulation_pieces(unit: dict, kind: str, max_tokens: int) -> list[tuple[str, str, str]]:
    """(citation, last header part, text) of each chunk-sized piece of a unit before splitting."""
    citation = unit.get("citation") or ""
    text = unit.get("text") or ""
    if kind == "advice":
        cited = advice_citation(citation)
        return [(cited, cited.split(" kap. ")[-1], text)]
    if kind == "recital":
        return [(citation, f"{citation} ({RECITAL_LABEL})", text)]
    if kind == "article":
        parts = unit.get("parts") or []
        if len(parts) > 1 and not fits(text, max_tokens):
            # A long article by punkt: "artikel 6.1" is found and cited on its own.
            return [(p["citation"], f"punkt {p['number']}" if p.get("number") else "", p["text"]) for p in parts]
        return [(citation, "", text)]
    if kind == "section":
        return [(citation, f"{unit['section']} §" if unit.get("section") else citation, text)]
    if kind == "appendix":
        return [(citation, " ".join(filter(None, [citation, unit.get("title")])), text)]
    if kind == "transitional":
        return [(citation or "Övergångsbestämmelser", citation or "Övergångsbestämmelser", text)]
    return [(citation, "", text)]


# "9 § Har upphävts genom lag (2000:764).", "33 kap. Kapitlet har upphävts …",
# "40 § Ny beteckning genom lag (2017:679).", "3 a § Har betecknats 24 kap. 7 § genom lag …"
_LABEL = re.compile(r"^\s*(?:\d+\s*(?:[a-z]\s*)?(?:kap\.|§)\s*)+", re.IGNORECASE)
_STUB = re.compile(
    r"^(?:/[^/]*/\s*)?(?:kapitlet\s+)?(?:har\s+(?:upp?hävts?|utgått|upphört att gälla|betecknats)|ny beteckning)\b",
    re.IGNORECASE)


def is_stub(text: str) -> bool:
    """A unit that only records a repeal or a renumbering, or has no words beyond its label."""
    body = _LABEL.sub("", text.strip(), count=1).strip()
    return bool(_STUB.match(body)) or len(re.findall(r"[^\W\d_]{2,}", body)) < 2


def unit_header(title: str, unit: Unit) -> str:
    if isinstance(unit, TransitionalBlock):
        return " > ".join(filter(None, [title, "Övergångsbestämmelser", unit.label]))
    if isinstance(unit, Appendix):
        return f"{title} > {unit.label}"
    chapter = None
    if unit.chapter is not None:
        chapter = " ".join(filter(None, [f"{unit.chapter} kap.", unit.chapter_title]))
    if unit.kind == "preamble":
        return title
    if unit.kind == "chapter":
        return " > ".join(filter(None, [title, chapter]))
    label = f"{unit.section} §" + (f" ({_temporal_label(unit.temporal)})" if unit.temporal else "")
    return " > ".join(filter(None, [title, chapter, unit.heading, label]))


def _temporal_label(marker: str) -> str:
    """"Träder i kraft I:2024-07-01" -> "träder i kraft 2024-07-01"."""
    label = re.sub(r" [IU]:", " ", marker).rstrip(". ")
    return label[:1].lower() + label[1:]


# --- generic splitting -------------------------------------------------------------

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_LINE_BREAK = re.compile(r"\n\s*")


def split_text(text: str, max_tokens: int) -> list[str]:
    """Split text into parts of at most `max_tokens` tokens where possible.

    Cuts at paragraph breaks (blank lines) first, then at line breaks, then at sentence
    ends; a sentence longer than `max_tokens` is returned whole. Parts are contiguous,
    stripped slices of `text`, so joining them with whitespace restores the text.
    Neighbouring pieces are packed greedily towards an even part size.
    """
    stripped = text.strip()
    if not stripped:
        return []
    offset = text.index(stripped[0])
    spans = _split_span(text, offset, offset + len(stripped), max_tokens, 0)
    return [text[start:end].strip() for start, end in spans if text[start:end].strip()]


def fits(text: str, max_tokens: int) -> bool:
    # A token covers at least one UTF-8 byte, so short texts need no tokenizer call.
    return len(text.encode("utf-8")) <= max_tokens or count_tokens(text) <= max_tokens


def _split_span(text: str, start: int, end: int, max_tokens: int, level: int) -> list[tuple[int, int]]:
    if fits(text[start:end], max_tokens) or level == len(_BOUNDARY_FINDERS):
        return [(start, end)]
    cuts = _BOUNDARY_FINDERS[level](text, start, end)
    if not cuts:
        return _split_span(text, start, end, max_tokens, level + 1)
    edges = [start, *cuts, end]
    atoms: list[tuple[int, int]] = []
    for a, b in zip(edges, edges[1:]):
        atoms.extend(_split_span(text, a, b, max_tokens, level + 1))
    return _pack(text, atoms, max_tokens)


def _pack(text: str, atoms: list[tuple[int, int]], max_tokens: int) -> list[tuple[int, int]]:
    counts = [count_tokens(text[a:b]) for a, b in atoms]
    total = sum(counts)
    # Aim for equal parts instead of leaving a small remainder at the end.
    part_count = max(1, math.ceil(total / max_tokens))
    target = min(max_tokens, math.ceil(total / part_count * 1.1))
    packed: list[tuple[int, int]] = []
    i = 0
    while i < len(atoms):
        j, estimate = i + 1, counts[i]
        while j < len(atoms) and estimate + counts[j] + 1 <= target:
            estimate += counts[j] + 1
            j += 1
        while j > i + 1 and not fits(text[atoms[i][0]:atoms[j - 1][1]], max_tokens):
            j -= 1
        packed.append((atoms[i][0], atoms[j - 1][1]))
        i = j
    return packed


def _paragraph_cuts(text: str, start: int, end: int) -> list[int]:
    return [m.end() for m in _PARAGRAPH_BREAK.finditer(text, start, end) if m.end() < end]


def _line_cuts(text: str, start: int, end: int) -> list[int]:
    return [m.end() for m in _LINE_BREAK.finditer(text, start, end) if m.end() < end]


def _sentence_cuts(text: str, start: int, end: int) -> list[int]:
    cuts = []
    for cut in sentence_ends(text, start, end):
        while cut < end and text[cut].isspace():
            cut += 1
        if cut < end:
            cuts.append(cut)
    return cuts


_BOUNDARY_FINDERS = (_paragraph_cuts, _line_cuts, _sentence_cuts)
