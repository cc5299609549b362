"""The version of a § in force on the question's day, in place of one that has expired.

A consolidated statute holds two versions of a § that an act changes on a coming day: "2 § /Upphör att gälla
U:2026-02-01/ …" and "2 § /Träder i kraft I:2026-02-01/ …", chunked as two units with one citation. Once the day has
passed, the first is no longer law, yet it still matches the words it shares with the second, and where it ranks
above the other (or the other is not among the candidates at all) it used to be the § a question was answered from,
labelled "upphörde att gälla". Over the whole statute book 913 § versions had expired by December 2026.

`prefer_version_in_force` (agent.retrieval.dating) puts the version in force first when both are candidates;
`versions_in_force` then fetches, for an expired version left on its own, the version of the same § in force on the
day, and gives it the expired one's place and ranks: the question matched the §, and the § is now that text. A §
that expired with no version after it was repealed on that day, and is treated as a repealed statute is: a source
only when the question cites it or names its statute, its card saying it ended. A coming version ("träder i kraft"
on a later day) stays: it is the law to come, labelled as such, not a text that has ended.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from compliance.selectors import AccessScope

from .chunk_queries import CHUNK_COLUMNS, NO_RANKS, RetrievalOptions, filter_sql, run_chunk_query, search_params
from .dating import has_expired, in_force_on
from .sources import RetrievedChunk


_SIBLINGS_SQL = """
SELECT {columns}, 0.0 AS score, {no_ranks}
FROM chunks_contentchunk c
JOIN unnest(%(vf_doc)s::bigint[], %(vf_citation)s::text[]) AS a(doc, citation)
  ON c.legal_document_id = a.doc AND c.citation = a.citation
LEFT JOIN compliance_legaldocument ld ON ld.id = c.legal_document_id
WHERE {where}
ORDER BY c.legal_document_id, c.ordinal, c.id
"""


def versions_in_force(chunks: list[RetrievedChunk], scope: AccessScope, options: RetrievalOptions,
                      day: date, *, named: frozenset[str] = frozenset()) -> list[RetrievedChunk]:
    """`chunks` with each expired § version replaced by the version of the same § in force on `day`, in its place
    and with its score and ranks (a part by the part of the same position, else the first); the replacement says
    which chunk it replaced (`extra["replaces"]`). An expired § with no version in force is left out unless the
    question cites it or names its statute (`named`: document numbers). One query, made only when an expired version
    is among `chunks`."""
    stale = {c.chunk_id: c for c in chunks if c.source_type == "LEGAL_DOCUMENT" and c.citation and has_expired(c, day)}
    if not stale:
        return chunks
    keys = sorted({(c.source_id, c.citation) for c in stale.values()})
    params = search_params(scope, 0)
    params.update(vf_doc=[doc for doc, _ in keys], vf_citation=[citation for _, citation in keys])
    where = filter_sql(options, params, named=True)
    found = run_chunk_query(_SIBLINGS_SQL.format(columns=CHUNK_COLUMNS, no_ranks=NO_RANKS, where=where), params)
    # Per §, the parts (in document order) of its first version in force on the day.
    current: dict[tuple[int, str], list[RetrievedChunk]] = {}
    for chunk in found:
        if not in_force_on(chunk, day):
            continue
        parts = current.setdefault((chunk.source_id, chunk.citation), [])
        if not parts or parts[0].unit == chunk.unit:
            parts.append(chunk)
    # Every version's parts in document order, to put a part of the version in force in an expired part's place.
    unit_parts: dict[tuple[int, str], list[int]] = {}
    for chunk in found:
        unit_parts.setdefault((chunk.source_id, chunk.unit), []).append(chunk.chunk_id)
    taken = {c.chunk_id for c in chunks}
    out: list[RetrievedChunk] = []
    for chunk in chunks:
        if chunk.chunk_id not in stale:
            out.append(chunk)
            continue
        parts = current.get((chunk.source_id, chunk.citation))
        if not parts:
            if chunk.reference_match or chunk.document_number in named or options.sfs_numbers:
                out.append(chunk)
            continue
        siblings = unit_parts.get((chunk.source_id, chunk.unit), [])
        position = siblings.index(chunk.chunk_id) if chunk.chunk_id in siblings else 0
        part = parts[min(position, len(parts) - 1)]
        if part.chunk_id in taken:
            continue  # the version in force is among the sources already (or took an earlier part's place)
        taken.add(part.chunk_id)
        out.append(replace(part, score=chunk.score, vector_similarity=chunk.vector_similarity,
                           keyword_rank=chunk.keyword_rank, reference_match=chunk.reference_match,
                           extra={**chunk.extra, "replaces": chunk.chunk_id}))
    return out
