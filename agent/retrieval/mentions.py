"""Documents a question cites that the knowledge base does not hold: the sources that write their numbers.

An old AFS number, an amending act, an EU directive: what the sources say of it is all there is to say, and what
repealed it is what the question is about now (docs/retrieval.md, "A cited document the knowledge base does not
hold").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from compliance.selectors import AccessScope
from law.legal_refs import analyse_references
from law.statute_directory import statute_directory

from .chunk_queries import CHUNK_COLUMNS, NO_RANKS, RetrievalOptions, filter_sql, run_chunk_query, search_params
from .sources import NOT_BINDING_KINDS, RetrievedChunk

# The most chunks a document the knowledge base does not hold brings: its mentions are evidence about it, not
# its text, and an amending act is written under every § it changed.
MENTIONS_MAX = 6
# "Genom denna lag upphävs …", "… upphör att gälla": the formulas of a repeal. Not the noun ("om upphävande av
# direktiv 95/46/EG" is the title of the act cited), and not "ersätter", which as often says what a rule does
# instead of another.
_REPEAL_WORDS = re.compile(r"\bupphäv(?:s|es|des|ts|as)\b|\bupphör att gälla", re.IGNORECASE)


def _mention_sql(where: str) -> str:
    # The number as a phrase of the text search (phraseto_tsquery parses it as the index did: "AFS 1999:3" is
    # 'afs' <-> '1999' <-> '3'), so the GIN index finds the few chunks that write it.
    return f"""
    SELECT {CHUNK_COLUMNS}, 1.0 AS score, {NO_RANKS}
    FROM chunks_contentchunk c
    LEFT JOIN compliance_legaldocument ld ON ld.id = c.legal_document_id
    WHERE c.search_vector @@ phraseto_tsquery('swedish', %(mentioned)s) AND {where}
    ORDER BY c.document_number, c.path
    LIMIT 200
    """


@dataclass(frozen=True)
class Mentions:
    """What the sources say of the documents a question cites that the knowledge base does not hold."""

    chunks: list[RetrievedChunk]  # the chunks that write their numbers, a repealing provision first
    # The held documents that repealed or replaced them, by number: the question is about those now.
    replacements: list[str] = field(default_factory=list)


def mention_search(numbers: list[str], scope: AccessScope, options: RetrievalOptions) -> Mentions:
    """The chunks that write a document number the question cites and the knowledge base has no document for
    ("Vad gäller enligt AFS 1999:3?", an agency regulation since repealed; an amending act; an EU directive).
    What the sources say of it is all there is to say: the transitional provision that repealed it comes first
    (a sentence with the number that repeals it), then the others in document order, at most
    MENTIONS_MAX. Each is marked `extra["mentions"]` with the number, which the context block's label
    states, and is kept whatever its similarity to the question (_relevant).

    The replacements are the held documents a repealing sentence names ("Genom AFS 2023:12 och AFS 2023:13
    upphävs … (AFS 1999:3)"), or, when it names none ("Genom denna författning upphävs …"), the statute or
    regulation it stands in. A workspace's own file replaces nothing."""
    found: list[RetrievedChunk] = []
    replacements: list[str] = []
    directory = statute_directory()
    for number in numbers:
        params = search_params(scope, MENTIONS_MAX)
        params["mentioned"] = number
        written = re.compile(rf"(?<![\w/:]){re.escape(number)}(?![\d/])")
        seen = {c.chunk_id for c in found}
        rows = [c for c in run_chunk_query(_mention_sql(filter_sql(options, params, named=True)), params)
                if written.search(c.text) and c.chunk_id not in seen]
        repealing = {c.chunk_id: _repealing_sentences(c.text, written) for c in rows}
        rows.sort(key=lambda c: not repealing[c.chunk_id])  # stable: document order within each group
        for chunk in rows[:MENTIONS_MAX]:
            chunk.extra["mentions"] = number
            found.append(chunk)
            if chunk.source_type != "LEGAL_DOCUMENT" or chunk.kind in NOT_BINDING_KINDS:
                continue  # a file of the workspace, an allmänt råd or a recital repeals nothing
            for sentence in repealing[chunk.chunk_id]:
                named = [r.sfs for r in analyse_references(sentence, directory)
                         if r.sfs and r.sfs in directory and r.sfs != number]
                for replacement in named or [chunk.document_number]:
                    if replacement not in replacements:
                        replacements.append(replacement)
    return Mentions(chunks=found, replacements=replacements)


def _repealing_sentences(text: str, written: re.Pattern) -> list[str]:
    """The sentences of `text` that write the number and repeal it ("upphävs", "upphör att gälla")."""
    return [sentence for sentence in re.split(r"(?<=[.;])\s+", text)
            if written.search(sentence) and _REPEAL_WORDS.search(sentence)]
