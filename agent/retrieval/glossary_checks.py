"""What a glossary's law words would find, shown beside each term by the Ordlista page and its API: the provisions
they cite and whether the knowledge base holds them, and the words no source uses.

A term's law words may say where the law says it ("personalvårdsförmån (11 kap. 11 § inkomstskattelagen)"), and
retrieval then gives the cited § first (`workspace_glossary.taught_references`). A slip in the citation ("11 kap.
99 §", an act the knowledge base has not loaded, a § without its act) would find nothing, silently; the team should
see it where it wrote it. Held is decided by the match a question citing it uses (`cited_units_held`, the SQL of
`exact_reference_search`), in the workspace's access scope, so the page cannot call a provision held that retrieval
would not find. A law word no source uses finds nothing either (a slip, or not the law's term); it is read as
retrieval reads a question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce
from operator import or_

from django.db.models import Q

from chunks.chunking import ADVICE_LABEL
from chunks.models import ContentChunk
from compliance.models import Workspace
from compliance.numbers import is_sfs_number
from compliance.selectors import AccessScope
from glossary.selectors import term_list_citing
from law.legal_refs import LegalReference, analyse_references, unit_citations
from law.statute_directory import statute_directory
from law.statute_names import derive_short_name

from .hybrid import CitedUnit, cited_units_held, unit_holds
from .keyword_search import keyword_query, written_words


@dataclass(frozen=True)
class TaughtProvision:
    """One citation in a term's law words, as written: "11 kap. 11 § inkomstskattelagen", or a range, "67 kap.
    11–19 §§ inkomstskattelagen", which cites each § of it."""

    written: str
    number: str  # the act's number ("1999:1229"), "" when the text names none (a § without its act)
    citation: str  # the first unit it cites ("11 kap. 11 §", "artikel 33", "67 kap."; where a link goes), "" for an act
    held: bool  # the knowledge base has the act and at least one of the units, so a question using the term gets it
    missing: tuple[str, ...] = ()  # of the units it cites, those the knowledge base lacks when some are held


@dataclass(frozen=True)
class LawWordsCheck:
    provisions: list[TaughtProvision]
    # The law's words no source in the scope uses, in the order written; the words of a citation ("kap", the act's
    # name) are the citation's, not words the text search should find, so never among them.
    unused_words: list[str]


def _written(ref: LegalReference) -> str:
    # A reference read inside the term's brackets can end on the bracket that closes them.
    text = ref.raw.strip()
    while text.endswith(")") and text.count(")") > text.count("("):
        text = text[:-1].rstrip()
    return text


def _unit(ref: LegalReference) -> str:
    """The unit a reference cites as the statute page anchors it: "11 kap. 11 §", "artikel 33", "67 kap.", or ""
    for a whole act."""
    citations = unit_citations(ref)
    return citations[0] if citations else (f"{ref.chapter} kap." if ref.chapter else "")


def law_words_checks(law_words: Sequence[str], scope: AccessScope) -> dict[str, LawWordsCheck]:
    """Per distinct law words, what they cite (held or not) and the words no source uses: one search for every
    citation and one keyword look-up for every word."""
    distinct = list(dict.fromkeys(law_words))
    if not distinct:
        return {}
    directory = statute_directory()
    refs = {words: analyse_references(words, directory) for words in distinct}
    cited = [ref for found in refs.values() for ref in found if ref.sfs in directory]
    units = [CitedUnit(ref.sfs or "", tuple(unit_citations(ref)), ref.led) for ref in cited if unit_citations(ref)]
    held = cited_units_held(units, scope)
    chapters = [Q(document_number=ref.sfs, chapter=ref.chapter) for ref in cited
                if ref.chapter and not unit_citations(ref)]
    held_chapters = (set(ContentChunk.objects.filter(reduce(or_, chapters), legal_document__isnull=False,
                                                     retrievable=True).values_list("document_number", "chapter"))
                     if chapters else set())

    def is_held(ref: LegalReference) -> bool:
        if ref.sfs not in directory:
            return False
        citations = unit_citations(ref)
        if not citations and ref.chapter:
            return (ref.sfs, ref.chapter) in held_chapters
        return not citations or any(number == ref.sfs and unit_holds(cit, chunk_citation)
                                    for number, chunk_citation in held for cit in citations)

    unknown = set(keyword_query(" ; ".join(distinct), list(scope.workspace_ids)).unknown_words)
    out: dict[str, LawWordsCheck] = {}
    for words, found_refs in refs.items():
        # A range ("11–19 §§") or a list ("2 och 3 §§") is one citation as written, one reference per unit.
        spans: dict[tuple[int, int], list[LegalReference]] = {}
        for ref in found_refs:
            spans.setdefault(ref.span, []).append(ref)
        provisions = []
        for units_cited in spans.values():
            first, held_units = units_cited[0], [is_held(ref) for ref in units_cited]
            provisions.append(TaughtProvision(
                written=_written(first), number=first.sfs or "", citation=_unit(first), held=any(held_units),
                missing=tuple(_unit(ref) for ref, h in zip(units_cited, held_units) if not h) if any(held_units)
                else ()))
        cited_words = {word for ref in found_refs for word in written_words(ref.raw)}
        out[words] = LawWordsCheck(provisions=provisions, unused_words=[
            word for word in written_words(words) if word in unknown and word not in cited_words])
    return out


@dataclass(frozen=True)
class TermsCiting:
    """A workspace's terms whose law words cite units of one document, by the unit as the statute page anchors it:
    `units` "11 kap. 11 §", "artikel 4", "3 §" (a range cites each of its units); `chapters` "7" for a chapter
    cited as a whole."""

    units: dict[str, list[str]]
    chapters: dict[str, list[str]]


def terms_citing(workspace: Workspace, number: str) -> TermsCiting:
    """The words of the workspace's glossary whose law words cite document `number`, read as retrieval reads them
    (a question using the word gets the unit first), in the glossary's order."""
    directory = statute_directory()
    units: dict[str, list[str]] = {}
    chapters: dict[str, list[str]] = {}

    def add(by_unit: dict[str, list[str]], unit: str, word: str) -> None:
        words = by_unit.setdefault(unit, [])
        if word not in words:
            words.append(word)

    for term in term_list_citing(workspace):
        for ref in analyse_references(term.law_words, directory):
            if ref.sfs != number:
                continue
            citations = unit_citations(ref)
            for citation in citations:
                add(units, citation, term.word)
            if not citations and ref.chapter:
                add(chapters, ref.chapter, term.word)
    return TermsCiting(units=units, chapters=chapters)


def glossary_citation(number: str, citation: str, title: str) -> str:
    """How a term's law words cite a source's unit so that retrieval reads it back as that unit ("11 kap. 11 §
    inkomstskattelagen", "3 § AFS 2023:1", "artikel 33 (EU) 2016/679"), or "" for a unit no citation reaches (a
    transitional provision, an appendix). A statute goes by its short name where the reference parser resolves it
    so, else by its number; the round trip is checked, so the offer never cites what retrieval would not find."""
    unit = citation.removesuffix(f" {ADVICE_LABEL}").strip()
    if not unit:
        return ""
    sfs = is_sfs_number(number)
    names = derive_short_name(number, title) if sfs else []
    candidates = [*(f"{unit} {name}" for name in names if len(name) <= 60), f"{unit} SFS {number}" if sfs
                  else f"{unit} {number}"]
    directory = statute_directory()
    for text in candidates:
        refs = analyse_references(text, directory)
        if len(refs) == 1 and refs[0].sfs == number and _unit(refs[0]) == unit:
            return text
    return ""
