"""Anchor ids for statute citations, shared by the statute page and the chat's source cards.

    citation_anchor("3 kap. 2 a §")  -> "3kap2a"
    citation_anchor("7 §")           -> "7"
    citation_anchor("1 kap. 1 §")    -> "1kap1"
    citation_anchor("3 kap.")        -> "3kap"
    citation_anchor("Övergångsbestämmelser 2009:1439") -> "overgangsbestammelser-2009-1439"
    citation_anchor("Bilaga 1")      -> "bilaga-1"
    citation_anchor("artikel 33")    -> "artikel-33"
    citation_anchor("artikel 3.3")   -> "artikel-3-3"  (article 3's paragraph 3, not article 33)

A link to a § is then `/lag/1977:1160#3kap2a` (see `statute_url`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.urls import reverse
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.text import slugify

_SECTION_RE = re.compile(
    r"^\s*(?:(?P<chapter>\d+(?:\s*[a-z])?)\s*kap\.?\s*)?(?P<section>\d+(?:\s*[a-z])?)\s*§\s*$",
    re.IGNORECASE,
)
_CHAPTER_RE = re.compile(r"^\s*(?P<chapter>\d+(?:\s*[a-z])?)\s*kap\.?\s*$", re.IGNORECASE)
_NUMBER_DOT_RE = re.compile(r"(?<=\d)\.(?=\d)")
# The statute page's "Övergångsbestämmelser" heading.
TRANSITIONAL_ANCHOR = "overgangsbestammelser"


def _compact(value: str) -> str:
    return re.sub(r"\s+", "", value).lower()


def citation_anchor(citation: str) -> str:
    """A stable, URL-safe fragment id for a citation ("" for an empty citation)."""
    citation = (citation or "").strip()
    if not citation:
        return ""
    match = _SECTION_RE.match(citation)
    if match:
        chapter = match["chapter"]
        section = _compact(match["section"])
        return f"{_compact(chapter)}kap{section}" if chapter else section
    match = _CHAPTER_RE.match(citation)
    if match:
        return f"{_compact(match['chapter'])}kap"
    # A numbered paragraph keeps its dot as a hyphen: "artikel 3.3" is not article 33 ("artikel-3-3" beside
    # "artikel-33"), or a link to the one would open the other.
    return slugify(_NUMBER_DOT_RE.sub("-", citation.replace(":", " ").replace("§", " "))) or "avsnitt"


def statute_url(sfs_number: str, citation: str = "") -> str:
    """The statute page, optionally at one citation: `/lag/1977:1160#3kap2a`."""

    url = reverse("statute", args=[sfs_number])
    anchor = citation_anchor(citation)
    return f"{url}#{anchor}" if anchor else url


# An EU act's official text: EUR-Lex's Swedish page by CELEX number. EUR-Lex's HTML of an act identifies an
# article as "art_6" and a recital as "rct_39" (as law.parsers.eu links each article).
EUR_LEX_URL = "https://eur-lex.europa.eu/legal-content/SV/TXT/?uri=CELEX:{celex}"
_EU_NUMBER_RE = re.compile(r"^\((?:EU|EG|EEG)\) (?P<year>(?:19|20)\d\d)/(?P<n>\d{1,4})$")
_EU_UNIT_RE = re.compile(r"^(?:artikel (?P<article>\d+)|skäl (?P<recital>\d+))\b")


def celex_number(number: str) -> str:
    """The CELEX number of an EU regulation: "(EU) 2016/679" -> "32016R0679"; "" for any other number."""
    match = _EU_NUMBER_RE.match(number or "")
    return f"3{match['year']}R{int(match['n']):04d}" if match else ""


def eur_lex_url(number: str, citation: str = "") -> str:
    """An EU regulation's page on EUR-Lex, at the cited article or recital; "" for any other document."""
    celex = celex_number(number)
    if not celex:
        return ""
    url = EUR_LEX_URL.format(celex=celex)
    unit = _EU_UNIT_RE.match(citation or "")
    if unit and unit["article"]:
        return f"{url}#art_{unit['article']}"
    if unit and unit["recital"]:
        return f"{url}#rct_{unit['recital']}"
    return url


def formal_citation(number: str, citation: str) -> str:
    """How an EU regulation's unit is cited: "Förordning (EU) 2016/679 artikel 6.1"; "" for other documents."""
    if not celex_number(number):
        return ""
    return " ".join(filter(None, [f"Förordning {number}", citation]))


def linked_paragraphs(text: str, links: list[tuple[int, int, str]]) -> str:
    """`text` as the `linebreaks` filter renders it (paragraphs at blank lines, <br> at line breaks), with each
    (start, end, url) span of `links` a link. Every character of `text` is escaped; a span across a blank line
    or overlapping an earlier one stays text."""
    pieces: list[str] = []
    pos = 0
    for start, end, url in sorted(links):
        if start < pos or end > len(text) or "\n\n" in text[start:end]:
            continue
        pieces.append(escape(text[pos:start]))
        pieces.append(format_html('<a class="ref-link" href="{}">{}</a>', url, text[start:end]))
        pos = end
    pieces.append(escape(text[pos:]))
    html = "".join(pieces).strip("\n")
    paragraphs = re.split(r"\n{2,}", html) if html else []
    return mark_safe("\n\n".join(f"<p>{p.replace(chr(10), '<br>')}</p>" for p in paragraphs))


_CHAPTER_PART_RE = re.compile(r"^\d+(?:\s*[a-z])?\s*kap\.", re.IGNORECASE)
_TEMPORAL_RE = re.compile(r"\(([^()]*)\)\s*$")
_KIND_RANK = {"transitional": 1, "appendix": 2}


def _unused(anchor: str, used: set[str]) -> str:
    """`anchor`, taken, or "" (no id) when the page has it already (a chapter heading met again; an article of one
    unnumbered paragraph, which cites that paragraph as the article itself): one id must lead to one place."""
    if not anchor or anchor in used:
        return ""
    used.add(anchor)
    return anchor


def _numbered(base: str, used: set[str]) -> str:
    """`base`, or `base-2`, `base-3`, … when the page has it already (two versions of one §), taken."""
    anchor, n = base, 1
    while anchor in used:
        n += 1
        anchor = f"{base}-{n}"
    used.add(anchor)
    return anchor


def statute_blocks(chunks: Iterable[Any]) -> list[dict]:
    """Group a statute's chunks into display blocks, one per § (or other unit).

    The chunks of one unit (a § split into parts shares its citation and the
    unit prefix of its path) become one block. Body units come in path order,
    then the transitional provisions, then the appendices. Every block gets a
    unique anchor: a second block with the same citation (the other temporal
    version of a §) gets "-2". A block that opens a new chapter carries the
    chapter's heading.
    """
    ordered = sorted(chunks, key=lambda c: (_KIND_RANK.get(c.kind, 0), c.path))
    blocks: list[dict] = []
    for chunk in ordered:
        unit = chunk.path.split(".", 1)[0] if "." in chunk.path else None
        key = (unit, chunk.citation, chunk.kind)
        if blocks and blocks[-1]["key"] == key:
            blocks[-1]["texts"].append(chunk.text)
            blocks[-1]["chunk_ids"].append(chunk.pk)
            continue
        parts = [p.strip() for p in (chunk.header or "").split(" > ")]
        chapter_part = next((p for p in parts[1:] if _CHAPTER_PART_RE.match(p)), "")
        inner = [p for p in parts[1:-1] if p != chapter_part]
        temporal = _TEMPORAL_RE.search(parts[-1]) if chunk.kind == "section" and len(parts) > 1 else None
        blocks.append({
            "key": key,
            "kind": chunk.kind,
            "citation": chunk.citation,
            "chapter": chunk.chapter,
            "chapter_title": chapter_part or (f"{chunk.chapter} kap." if chunk.chapter else ""),
            "heading": inner[-1] if chunk.kind == "section" and inner else "",
            "temporal": temporal.group(1) if temporal else "",
            "texts": [chunk.text],
            "chunk_ids": [chunk.pk],
        })
    used: set[str] = set()
    previous_chapter = None
    previous_heading = ""
    for block in blocks:
        block["anchor"] = _numbered(citation_anchor(block["citation"])
                                    or ("inledning" if block["kind"] == "preamble" else "avsnitt"), used)
        block["text"] = "\n\n".join(block.pop("texts"))
        block.pop("key")
        # A chapter heading opens each new chapter (a repealed-chapter stub is its own heading).
        opens = (block["kind"] in ("section", "chapter") and block["chapter"]
                 and block["chapter"] != previous_chapter)
        block["opens_chapter"] = bool(opens) and block["kind"] != "chapter"
        block["chapter_anchor"] = _unused(citation_anchor(f"{block['chapter']} kap.") if block["opens_chapter"]
                                          else "", used)
        if block["kind"] in ("section", "chapter"):
            previous_chapter = block["chapter"] or previous_chapter
        # A rubrik usually covers several §§: show it where it starts (again in each chapter).
        if block["opens_chapter"] or block["kind"] != "section":
            previous_heading = ""
        block["show_heading"] = bool(block["heading"]) and block["heading"] != previous_heading
        previous_heading = block["heading"]
        block["is_transitional"] = block["kind"] == "transitional"
        # Under the "Övergångsbestämmelser" heading the amending SFS number alone says enough.
        label = block["citation"]
        if block["is_transitional"] and label.startswith("Övergångsbestämmelser"):
            label = label[len("Övergångsbestämmelser"):].strip() or label
        block["label"] = label
    first_transitional = next((b for b in blocks if b["is_transitional"]), None)
    anchors = {b["anchor"] for b in blocks}
    for block in blocks:
        block["opens_transitional"] = block is first_transitional
        # The heading's id, unless the first transitional provision (cited as "Övergångsbestämmelser" alone)
        # already has it: one id, one place.
        block["transitional_anchor"] = (TRANSITIONAL_ANCHOR if block is first_transitional
                                        and TRANSITIONAL_ANCHOR not in anchors else "")
    return blocks


# What the page says of units that are not rules (the same words as the chunks' citations).
_ADVICE_NAME = "Allmänna råd (inte bindande)"
_RECITAL_NAME = "skäl (inte bindande)"


def _advice_anchor_citation(citation: str) -> str:
    # The chunk's citation ("2 kap. 4 § allmänt råd (inte bindande)"): a source card links to its anchor.
    base = citation.removesuffix("allmänna råd").removesuffix("allmänt råd").strip()
    return f"{base} allmänt råd (inte bindande)".strip()


def regulation_blocks(structure: list[dict]) -> list[dict]:
    """An agency or EU regulation's units (LegalDocument.structure) as display blocks in document order.

    Each block has an anchor matching its chunks' citations (so source cards land on it), says which
    avdelning, chapter and rubrik it opens, and is marked `binding` False for allmänna råd and recitals,
    which the page sets apart. An article carries its EUR-Lex link and its punkter with their own anchors.
    """
    blocks: list[dict] = []
    used: set[str] = set()
    avdelning = chapter = heading = None
    for unit in structure:
        kind = unit.get("kind", "")
        citation = unit.get("citation") or ""
        anchor_citation = _advice_anchor_citation(citation) if kind == "allmänt råd" else citation
        anchor = _numbered(citation_anchor(anchor_citation) or ("inledning" if kind == "inledning" else "avsnitt"),
                           used)
        opens_avdelning = bool(unit.get("avdelning")) and unit["avdelning"] != avdelning
        opens_chapter = bool(unit.get("chapter")) and (unit["chapter"] != chapter or opens_avdelning)
        if opens_chapter:
            heading = None
        is_article = kind == "artikel"
        chapter_label = (f"Kapitel {unit.get('chapter')}" if is_article else f"{unit.get('chapter')} kap.")
        block = {
            "kind": kind,
            "anchor": anchor,
            "citation": citation,
            "chapter": unit.get("chapter") or "",  # its own, not carried: a bilaga or transitional unit has none
            "label": _ADVICE_NAME if kind == "allmänt råd" else (
                f"{citation} – {_RECITAL_NAME}" if kind == "skäl" else citation),
            "binding": bool(unit.get("binding", True)),
            "opens_avdelning": opens_avdelning,
            "avdelning": unit.get("avdelning") or "",
            "avdelning_anchor": f"avdelning-{slugify(unit['avdelning'].split(':')[0])}" if opens_avdelning else "",
            "opens_chapter": opens_chapter,
            "chapter_title": " ".join(filter(None, [chapter_label, unit.get("chapter_title")])) if opens_chapter else "",
            "chapter_anchor": (slugify(chapter_label) if is_article else citation_anchor(chapter_label))
            if opens_chapter else "",
            "show_heading": bool(unit.get("heading")) and unit.get("heading") != heading and kind != "allmänt råd",
            "heading": unit.get("heading") or "",
            "title": unit.get("title") or "",
            "url": unit.get("url") or "",
            "text": unit.get("text") or "",
            "parts": [{"anchor": _unused(citation_anchor(p["citation"]), used), "citation": p["citation"],
                       "text": p["text"]} for p in unit.get("parts") or []] if is_article else [],
        }
        block["chapter_anchor"] = _unused(block["chapter_anchor"], used)
        blocks.append(block)
        avdelning = unit.get("avdelning") or avdelning
        chapter = unit.get("chapter") or chapter
        heading = unit.get("heading") or heading
    return blocks


def regulation_contents(blocks: list[dict]) -> list[dict]:
    """The table of contents: avdelningar with their chapters, chapters, then the transitional provisions
    and each bilaga; an EU regulation's recitals as one entry. Each entry: label, anchor, children."""
    contents: list[dict] = []
    current_avdelning = None
    recitals_listed = False
    for block in blocks:
        if block["kind"] == "skäl" and not recitals_listed:
            contents.append({"label": "Skäl (inte bindande)", "anchor": block["anchor"], "children": []})
            recitals_listed = True
        if block["opens_avdelning"]:
            current_avdelning = {"label": block["avdelning"], "anchor": block["avdelning_anchor"], "children": []}
            contents.append(current_avdelning)
        if block["opens_chapter"]:
            entry = {"label": block["chapter_title"], "anchor": block["chapter_anchor"] or block["anchor"],
                     "children": []}
            (current_avdelning["children"] if current_avdelning and block["avdelning"] else contents).append(entry)
        if block["kind"] == "övergångsbestämmelser":
            contents.append({"label": "Övergångsbestämmelser", "anchor": block["anchor"], "children": []})
            current_avdelning = None
        if block["kind"] == "bilaga":
            label = " – ".join(filter(None, [block["citation"], block["title"]]))
            contents.append({"label": label, "anchor": block["anchor"], "children": []})
            current_avdelning = None
    return contents
