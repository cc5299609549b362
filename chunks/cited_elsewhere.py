"""The units of other documents that cite a document's units: the förordning, föreskrift or EU act that fills in a §
of a law, seen from the law's page ("Hänvisas till från 5 § Arbetsmiljöförordning (1977:1166)").

The knowledge base's shared chunks are searched for the document's number and names through the full-text index
(a few milliseconds: "1977:1160" is the phrase 1977 1160, "arbetsmiljölagen" the stem arbetsmiljölag, which also
finds its genitive), and only those chunks are read by the reference parser (`law.legal_refs.reference_links`, the
page's own), so a unit is named only when its text really cites this document's unit. A workspace's own files are
never read: they are no document of the law. Repealed documents and stubs are left out, and so is the document
itself (its own §§ citing each other are the page's `cited_by`).

The parse is kept in the shared cache under the directory's version and the candidate chunks' ids and hashes, so a
changed text or a newly loaded regulation is read afresh.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.core.cache import cache

from compliance.anchors import statute_url
from compliance.models import LegalDocument
from compliance.sql import dict_cursor
from law.legal_refs import StatuteDirectory, reference_links
from law.statute_names import derive_short_name

from .models import ContentChunk

# How citations across documents are read: a new value when that changes, so no process serves the old reading.
CITED_ELSEWHERE_FORMAT = "1"
CITED_ELSEWHERE_SECONDS = 7 * 24 * 3600  # the key changes with the texts and the directory
# A document cited from more chunks than this (a name every other law uses) is read from the first ones, in
# document order: the page names at most a dozen per unit anyway.
MAX_CITING_CHUNKS = 3000
# The kinds of unit that cite: a §, an article, an allmänt råd (its citation says so), a recital, a bilaga; not
# transitional provisions, a preamble or a chapter's heading.
CITING_KINDS = ["section", "article", "advice", "recital", "appendix"]

_CANDIDATES_SQL = """
SELECT c.id, c.content_hash
FROM chunks_contentchunk c
WHERE c.legal_document_id IS NOT NULL AND c.workspace_id IS NULL AND c.retrievable AND NOT c.document_repealed
  AND c.document_number <> %s AND c.kind = ANY(%s) AND c.search_vector @@ ({query})
ORDER BY c.document_number, c.path
LIMIT %s
"""


@dataclass(frozen=True)
class CitingElsewhere:
    """A unit of another document citing one of this document's: the document, the unit, and where it is."""

    number: str
    citation: str
    title: str

    @property
    def label(self) -> str:
        return f"{self.citation} {self.title}"

    @property
    def url(self) -> str:
        return statute_url(self.number, self.citation)


def _names(document: LegalDocument) -> list[str]:
    """What the document is cited by: its number and its short names ("arbetsmiljölagen")."""
    names = [document.sfs_number, *document.short_names]
    if document.sfs_number[:1].isdigit():
        names += derive_short_name(document.sfs_number, document.title)
    return list(dict.fromkeys(name for name in names if name))


def document_cited_elsewhere(document: LegalDocument, directory: StatuteDirectory,
                             citations: set[str]) -> dict[str, tuple[CitingElsewhere, ...]]:
    """For each of `citations` (the units the page shows), the units of other documents citing it, in document
    order, each once."""
    names = _names(document)
    # Each name a phrase ("1977:1160" is 1977 followed by 1160), any of them: the full-text index answers.
    query = " || ".join(["phraseto_tsquery('swedish', %s)"] * len(names))
    with dict_cursor() as cursor:
        cursor.execute(_CANDIDATES_SQL.format(query=query),
                       [document.sfs_number, CITING_KINDS, *names, MAX_CITING_CHUNKS])
        rows = cursor.fetchall()
    if not rows:
        return {}
    digest = hashlib.sha256("\x1e".join([
        document.sfs_number, directory.version, *sorted(citations),
        *(f"{row['id']}\x1f{row['content_hash']}" for row in rows)]).encode()).hexdigest()
    key = f"cited-elsewhere:{CITED_ELSEWHERE_FORMAT}:{digest}"
    found = cache.get(key)
    if found is None:
        # The texts only now: a page shown again needs the candidates' ids and hashes alone.
        texts = (ContentChunk.objects.filter(pk__in=[row["id"] for row in rows]).order_by("document_number", "path")
                 .values("document_number", "document_title", "citation", "text"))
        found = _read(document.sfs_number, directory, citations, list(texts))
        cache.set(key, found, timeout=CITED_ELSEWHERE_SECONDS)
    return found


def _read(number: str, directory: StatuteDirectory, citations: set[str],
          rows: list[dict]) -> dict[str, tuple[CitingElsewhere, ...]]:
    found: dict[str, dict[str, CitingElsewhere]] = {}
    for row in rows:
        # The citing text's own bare §§ are not placed (chapter None): only its references to `number` count.
        for link in reference_links(row["text"], directory, self_sfs=row["document_number"], chapter=None):
            if link.number != number:
                continue
            for unit in link.units:
                cited = next((citation for citation in unit if citation in citations), None)
                if cited is None:
                    continue
                citing = CitingElsewhere(row["document_number"], row["citation"], row["document_title"])
                found.setdefault(cited, {}).setdefault(citing.label, citing)
    return {cited: tuple(units.values()) for cited, units in found.items()}
