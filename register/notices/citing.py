"""Which kravpunkter lean on a changed unit through what their own §§ say.

A kravpunkt on 3 kap. 2 a § arbetsmiljölagen is touched by a change to 3 kap. 2 a §, and `sections.touches` finds
that from its reference alone. But 3 kap. 2 a § says "enligt 2 §" and "som avses i 6 kap. 1 §": when those change,
what the kravpunkt requires may change with them, though its own words did not. An AFS § "Av 3 kap. 2 § arbets-
miljölagen (1977:1160) följer …" on the laglista leans on the statute the same way. The reference parser
(`law.legal_refs`) reads each kravpunkt's §§ as the law writes them now, and a change notice names the changed
units a kravpunkt's §§ cite, with the kravpunkter that cite them (`ChangeNotice.cited_units`).

An article of an EU act is not read: a kravpunkt's reference names §§ (`sections.section_spans`), as for the direct
touches.

`documents_leaning_on` asks the same of whole documents, for a law the laglista leaves out: which shared documents
cite its changed units in their text (`chunks.cited_elsewhere`) or in their legal basis, or, for a repeal, rest on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from chunks.cited_elsewhere import CitingElsewhere, document_cited_elsewhere
from chunks.models import ContentChunk
from compliance.models import LegalDocument
from law.diff import statute_units
from law.legal_refs import StatuteDirectory, reference_links

from ..models import Requirement
from .sections import section_spans


@dataclass(frozen=True)
class OwnUnit:
    """A § of a document as the law writes it now: its citation, where it sits, and its text."""

    citation: str
    chapter: str
    section: str
    text: str


@dataclass(frozen=True)
class CitedUnit:
    """A unit of a document that a kravpunkt's § cites (`number`, `citation`), and that §."""

    number: str
    citation: str
    citing: str


def document_units(document: LegalDocument) -> list[OwnUnit]:
    """The §§ of a document in its current text: a regulation's or an EU act's parsed units, or a statute's as the
    version differ reads them (transitional provisions and Bilagor have no § a kravpunkt can name)."""
    if document.structure:
        return [OwnUnit(unit.get("citation") or "", unit.get("chapter") or "", unit.get("section") or "",
                        unit.get("text") or "")
                for unit in document.structure if unit.get("section")]
    return [OwnUnit(unit.citation, unit.chapter, unit.section, unit.text)
            for unit in statute_units(document.full_text or "", document.sfs_number).values()
            if unit.section and not unit.transitional and not unit.repealed]


class CitationReader:
    """What the §§ of each kravpunkt cite, each document read once for a run over many notices."""

    def __init__(self, directory: StatuteDirectory) -> None:
        self.directory = directory
        self._numbers: dict[int, str] = {}
        self._units: dict[int, list[OwnUnit]] = {}
        self._cited: dict[tuple[int, str], list[CitedUnit]] = {}

    def number(self, document_id: int) -> str:
        if document_id not in self._numbers:
            self._numbers[document_id] = LegalDocument.objects.values_list("sfs_number", flat=True).get(pk=document_id)
        return self._numbers[document_id]

    def units(self, document_id: int) -> list[OwnUnit]:
        """The document's §§: its text is read once (a statute's can be megabytes), when a kravpunkt is on it."""
        if document_id not in self._units:
            document = LegalDocument.objects.only("sfs_number", "full_text", "structure").get(pk=document_id)
            self._numbers[document_id] = document.sfs_number
            self._units[document_id] = document_units(document)
        return self._units[document_id]

    def cited(self, document_id: int, section_ref: str) -> list[CitedUnit]:
        """The units the §§ `section_ref` names in the document cite, each with the citing §."""
        key = (document_id, section_ref)
        if key not in self._cited:
            spans = section_spans(section_ref)
            number, units = self.number(document_id), (self.units(document_id) if spans else [])
            # A bare "2 §" in a chaptered text is its own chapter's; in one without chapters, the text's.
            chaptered = any(unit.chapter for unit in units)
            found: list[CitedUnit] = []
            for unit in units:
                if not any(span.covers(unit.chapter, unit.section) for span in spans):
                    continue
                chapter = unit.chapter if chaptered else ""
                for link in reference_links(unit.text, self.directory, self_sfs=number, chapter=chapter):
                    found.extend(CitedUnit(link.number, citation, unit.citation)
                                 for citations in link.units for citation in citations)
            self._cited[key] = found
        return self._cited[key]


def requirements_citing(reader: CitationReader, workspace_id: int, number: str, changed: Iterable[str], *,
                        direct: Iterable[str] = ()) -> list[dict]:
    """The changed units of document `number` (their citations, in order) that a kravpunkt of the workspace cites
    through its §§ and does not name itself (`direct`), each with the kravpunkter citing it:
    `[{"unit": "3 kap. 2 §", "citing": [{"requirement": 7, "document": "1977:1160", "citation": "3 kap. 2 a §"}]}]`.
    """
    named = set(direct)
    changed = [citation for citation in dict.fromkeys(changed) if citation not in named]
    if not changed:
        return []
    wanted = set(changed)
    by_unit: dict[str, list[dict]] = {}
    requirements = (Requirement.objects.filter(workspace_id=workspace_id, item__legal_document__isnull=False)
                    .exclude(section_ref="").order_by("item_id", "position", "pk")
                    .values("pk", "section_ref", "item__legal_document_id"))
    for requirement in requirements:
        document_id = requirement["item__legal_document_id"]
        own_number = reader.number(document_id)
        for cited in reader.cited(document_id, requirement["section_ref"]):
            if cited.number != number or cited.citation not in wanted:
                continue
            entry = {"requirement": requirement["pk"], "document": own_number, "citation": cited.citing}
            if entry not in by_unit.setdefault(cited.citation, []):
                by_unit[cited.citation].append(entry)
    return [{"unit": citation, "citing": by_unit[citation]} for citation in changed if citation in by_unit]


def documents_leaning_on(document: LegalDocument, directory: StatuteDirectory, *, citations: set[str] | None = None,
                         resting: bool = False,
                         elsewhere: dict[str, tuple[CitingElsewhere, ...]] | None = None) -> set[str]:
    """The shared documents whose units cite one of `citations` of `document`, or whose legal basis does (a
    föreskrift "med stöd av 18 § arbetsmiljöförordningen (1977:1166)"). With `citations` None (a repeal): those
    citing any unit it has, and with `resting` every document issued under it, whatever § its legal basis names.
    `elsewhere` is `document_cited_elsewhere` for these citations when the caller has read it already."""
    if citations is None:
        citations = set(ContentChunk.objects.filter(legal_document_id=document.pk).exclude(citation="")
                        .values_list("citation", flat=True))
    if elsewhere is None:
        elsewhere = document_cited_elsewhere(document, directory, citations)
    found = {unit.number for units in elsewhere.values() for unit in units}
    issued_under = LegalDocument.objects.filter(legal_basis_sfs__contains=[document.sfs_number])
    if resting:
        found |= set(issued_under.values_list("sfs_number", flat=True))
    else:
        found |= {number for number, basis in issued_under.values_list("sfs_number", "legal_basis")
                  if _basis_cites(basis, document.sfs_number, citations, directory, number)}
    return found - {document.sfs_number}


def _basis_cites(basis: str, number: str, citations: set[str], directory: StatuteDirectory, own: str) -> bool:
    """Whether a legal basis ("7 § förordningen (2018:1175)") cites one of `citations` of document `number`."""
    return any(link.number == number and any(citation in citations for unit in link.units for citation in unit)
               for link in reference_links(basis or "", directory, self_sfs=own, chapter=None))
