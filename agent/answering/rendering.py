"""Answers as HTML: Markdown without raw HTML, and [n] linked to its source card."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import reverse
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

from agent.retrieval.sources import NOT_BINDING_KINDS, source_kind
from compliance.anchors import eur_lex_url, formal_citation, statute_url

# Tables: the offline answer sets the company's text and the law's side by side (agent.answering.answer.comparison_table).
_md = MarkdownIt("commonmark", {"html": False, "linkify": False}).disable("image").enable("table")
_CITE = re.compile(r"\[(\d{1,3})\]")
# A table column aligned with ":--" comes out as style="text-align:…", which the CSP forbids: classes instead.
_ALIGN = re.compile(r' style="text-align:(left|right|center)"')


def answer_html(content: str, message_id: int, valid: set[int]) -> str:
    html = _ALIGN.sub(r' class="align-\1"', _md.render(content or ""))

    def link(match: re.Match) -> str:
        n = int(match.group(1))
        if n not in valid:
            return match.group(0)
        return f'<a class="cite" href="#src-{message_id}-{n}" data-n="{n}">[{n}]</a>'

    return mark_safe(_CITE.sub(link, html))


def source_url(source: dict, workspace_slug: str) -> str:
    """Where a source card opens the full source, at the cited place."""
    if source.get("removed"):
        return ""
    # A source from another workspace the question named opens there.
    workspace_slug = source.get("workspace_slug") or workspace_slug
    if source.get("source_type") == "LEGAL_DOCUMENT" and source.get("document_number"):
        return statute_url(source["document_number"], source.get("citation") or "")
    if source.get("source_type") == "USER_FILE":
        url = reverse("file_detail", args=[workspace_slug, source["source_id"]])
        return f"{url}#chunk-{source['chunk_id']}"
    if source.get("source_type") == "ASSESSMENT":
        return reverse("assessment_edit", args=[workspace_slug, source["source_id"]])
    return "#"


@dataclass(frozen=True)
class OfficialSource:
    citation: str  # "Förordning (EU) 2016/679 artikel 6.1"
    url: str  # the article on EUR-Lex


def source_official(source: dict) -> OfficialSource | None:
    """An EU regulation's source: how it is cited and its article on EUR-Lex; None for any other source."""
    if source.get("removed") or source.get("source_type") != "LEGAL_DOCUMENT":
        return None
    number, citation = source.get("document_number") or "", source.get("citation") or ""
    url = eur_lex_url(number, citation)
    return OfficialSource(formal_citation(number, citation), url) if url else None


def source_kind_label(source: dict) -> str:
    """The source card's badge: Lag / Förordning / Föreskrift / Er fil / Er bedömning. Answers saved
    before sources carried their kind show a statute as "Författning"."""
    return source.get("kind") or source_kind(source.get("source_type") or "", source.get("content_type") or "",
                                             source.get("document_number") or "", source.get("citation") or "")


def source_kind_css(source: dict) -> str:
    if source_kind_label(source) in NOT_BINDING_KINDS:
        return "kind-advice"
    return {"LEGAL_DOCUMENT": "kind-statute", "USER_FILE": "kind-own", "ASSESSMENT": "kind-own"}.get(
        source.get("source_type"), "kind-other")
