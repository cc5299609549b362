"""The keyword half of retrieval: BM25 over chunks.keyword_index's postings.

Query terms are the Swedish-stemmed lexemes of the question (stop words out,
numbers and "kap"/"st"/"§"-words out: the reference search handles those).
Each term is weighted by its idf within the asking workspace's scope: document
frequencies of the shared statutes plus those of the scope's workspaces' own
searchable chunks, both kept by triggers (chunks.keyword_index). Nothing another
workspace holds, and no private, deleted or superseded file, is ever counted, so
no tenant's uploads move another tenant's ranking.

Two SQL forms, same scores:
- general (no filter beyond the scope): each term's postings are read
  best-impact first, at most `depth` per term, then summed. A common word's
  weak postings past the depth are not read: their idf is small, and reading
  them is what made the old keyword search slow on large corpora.
- filtered (a statute, a type or a date range): every posting of the
  matching chunks is scored exactly; within a few named statutes, chunk by
  chunk from the (chunk_id, lexeme) index.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from django.conf import settings
from django.db.backends.utils import CursorWrapper

from chunks.keyword_index import K1
from chunks.selectors import CHUNK_SCOPE_SQL
from compliance.sql import dict_cursor

from . import bridges, vocabulary_neighbours
from .spelling import cased_like, statute_spellings

MAX_TERMS = 48
# Compound splitting (see compound_parts): parts must be this long, and known to the statutes' vocabulary.
MIN_PART = 3
MIN_PART_DF = 3
MAX_WHOLE_DF = 50  # a word the statutes use this often is searched as it is
PART_WEIGHT = 0.5  # a part stands in for the whole word only in part
COMPOUND_WORDS = 12  # the question's words (highest idf first) paired into compounds the statutes may use
SPLIT_COMPOUNDS = True
# Query-term frequency saturation (BM25's k3): a long question repeating a word counts it more, but not linearly.
K3 = 1.2
DEPTH = 1000

_NOT_A_TERM = re.compile(r"^[\d:§.,_-]+$|^(kap|st|p|sfs|mom|lag|§)$")


@dataclass
class KeywordQuery:
    terms: list[str]
    weights: list[float]
    # Weight of the question's words that nothing in scope contains (idf at df 0): no source can
    # match them, and the relevance threshold counts them as missing from every source.
    unmatched_weight: float = 0.0
    # Those words as the question writes them, in its order: the user is told that no source uses them
    # (the law may name the thing otherwise), and so is the model, which can search in the law's words.
    unknown_words: list[str] = field(default_factory=list)
    # Those of them that are one slip from a statute word, which was searched in their place: the written word ->
    # the word as a statute writes it ("skydsombud" -> "skyddsombud"), so the reader sees what was searched.
    corrections: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.terms)

    @property
    def full_match(self) -> float:
        """The BM25 score of a source matching every word of the question fully (impacts saturate at k1 + 1):
        what a return's score is a share of."""
        return (sum(self.weights) + self.unmatched_weight) * (K1 + 1)

    def tsquery(self) -> str:
        """The terms as a tsquery literal (already normalised lexemes: no parser in between)."""
        return " | ".join("'" + t.replace("\\", "\\\\").replace("'", "''") + "'" for t in self.terms)


@dataclass(frozen=True)
class QueryTerm:
    """A candidate term of the keyword query: a word of the question, a part of its compound, or a bridge's."""

    term: str  # the lexeme
    qtf: int  # how often the question writes it
    # False: the question's own word; True: a part of one of its compounds (PART_WEIGHT); a number: a bridge's
    # factor (0 for a dropped acronym, which no source may match).
    part: bool | float
    split: bool  # a question word searched by its compound's parts, so not missing when no statute has it whole
    df: int  # chunks holding it, the statutes' and the scope's own
    n_docs: int  # chunks in scope
    # A question word in a neuter noun's definite form (-et), which the Snowball stemmer leaves whole: the lexeme of
    # the word without it ("avtalet" -> "avtal", "anställningsskyddet" -> "anställningsskyd"); None for the rest.
    base: str | None = None
    # The lexeme stemmed once more, where that changes it ("dagar", a genitive's lexeme, -> "dag"): the base form's
    # lexeme for a word no source writes in this form; None where a second pass changes nothing.
    restem: str | None = None


@dataclass(frozen=True)
class BridgedTerms:
    """The bridges' terms for one question and the misspelt lexemes they searched a statute word for."""

    rows: list[QueryTerm] = field(default_factory=list)
    corrections: dict[str, str] = field(default_factory=dict)  # question lexeme -> statute lexeme
    unmarked: frozenset[str] = frozenset()  # those written without the statute word's diacritics
    inflected: frozenset[str] = frozenset()  # lexemes no source uses, in a form of a word the statutes use


@dataclass(frozen=True)
class WrittenWord:
    word: str  # as the question writes it
    lexeme: str  # the one of its lexemes that was asked for


@dataclass(frozen=True)
class CompoundSplit:
    parts: list[str]  # the lexemes of the parts, sorted
    words: list[str]  # the question's words that were split, sorted


_WORD = re.compile(r"[^\W\d_]+")
# A word as the user wrote it, hyphenated compounds whole ("GDPR-incident"): the parser makes one lexeme of those too.
_WRITTEN_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def compound_parts(text: str) -> list[str]:
    return split_compounds(text).parts


def split_compounds(text: str) -> CompoundSplit:
    """Lexemes of the parts of the question's compound words ("arbetsmiljöansvar" -> arbetsmiljö, ansvar).

    Swedish writes compounds as one word and the Snowball stemmer keeps them whole, so a
    question's "uppsägningstid" never meets the law's "tid för uppsägning". A word is split
    once, at the point where both sides (after an optional linking -s-) are words the
    shared statutes use; of several such points the most balanced wins (the shorter side
    longest), which prefers arbetsmiljö|ansvar to arbet|s|miljöansvar. Words the statutes
    themselves use often are left whole. The vocabulary is the statutes' own, so the
    method holds for any question and no workspace's text steers it.
    """
    words = {w for w in _WORD.findall(text.lower()) if len(w) >= 2 * MIN_PART + 2}
    candidates: list[tuple[str, int, str, str]] = []
    for word in words:
        for i in range(MIN_PART, len(word) - MIN_PART + 1):
            head, tail = word[:i], word[i:]
            candidates.append((word, i, head, tail))
            if head.endswith("s") and len(head) > MIN_PART:
                candidates.append((word, i, head[:-1], tail))
    if not candidates:
        return CompoundSplit(parts=[], words=[])
    parts = sorted({p for _, _, head, tail in candidates for p in (head, tail)} | words)
    with dict_cursor() as cursor:
        cursor.execute("""
            SELECT p AS word, v.lexeme, ts.df FROM unnest(%s::text[]) AS p, unnest(to_tsvector('swedish', p)) AS v
            JOIN chunks_termstat ts ON ts.lexeme = v.lexeme""", [parts])
        known = {row["word"]: (row["lexeme"], row["df"]) for row in cursor.fetchall()}
    best: dict[str, tuple[int, str, str]] = {}
    for word, _, head, tail in candidates:
        if known.get(word, ("", 0))[1] >= MAX_WHOLE_DF:
            continue
        if known.get(head, ("", 0))[1] >= MIN_PART_DF and known.get(tail, ("", 0))[1] >= MIN_PART_DF:
            balance = min(len(head), len(tail))
            if word not in best or balance >= best[word][0]:  # ties: the longer head
                best[word] = (balance, known[head][0], known[tail][0])
    return CompoundSplit(parts=sorted({lex for _, h, t in best.values() for lex in (h, t)}), words=sorted(best))


def keyword_query(text: str, workspace_ids: list[int]) -> KeywordQuery:
    """BM25 query weights for `text` within the scope of `workspace_ids` (shared statutes always)."""
    params = {"text": text, "workspace_ids": list(workspace_ids), "parts": [], "split": ""}
    if SPLIT_COMPOUNDS:
        split = split_compounds(text)
        params["parts"], params["split"] = split.parts, " ".join(split.words)
    with dict_cursor() as cursor:
        cursor.execute("""
            WITH whole AS (
                SELECT lexeme AS term, coalesce(array_length(positions, 1), 1) AS qtf,
                       lexeme = ANY(tsvector_to_array(to_tsvector('swedish', %(split)s))) AS split,
                       -- stemmed again without the ending, as the stemmer would have stemmed the base form
                       CASE WHEN lexeme ~ '^[[:alpha:]]{5,}et$'
                            THEN (tsvector_to_array(to_tsvector('swedish', left(lexeme, -2))))[1] END AS base,
                       -- stemmed once more: the stemmer takes one suffix a pass, so a genitive keeps the ending
                       -- its base form loses ("dagars" -> "dagar", "dagar" -> "dag")
                       nullif((tsvector_to_array(to_tsvector('swedish', lexeme)))[1], lexeme) AS restem
                FROM unnest(to_tsvector('swedish', %(text)s))),
            q AS (
                SELECT term, qtf, false AS part, split, base, restem FROM whole
                UNION ALL
                SELECT p, 1, true, false, NULL, NULL FROM unnest(%(parts)s::text[]) AS p WHERE p NOT IN (SELECT term FROM whole)),
            ws AS (
                SELECT s.lexeme, sum(s.df)::bigint AS n FROM chunks_scopetermstat s
                WHERE s.workspace_id = ANY(%(workspace_ids)s) AND s.lexeme IN (SELECT term FROM q)
                GROUP BY s.lexeme)
            SELECT q.term, q.qtf, q.part, q.split, q.base, q.restem, coalesce(ts.df, 0) + coalesce(ws.n, 0) AS df,
                   (SELECT n_docs FROM chunks_corpusstat WHERE id = 1)
                   + (SELECT coalesce(sum(n_docs), 0)::bigint FROM chunks_scopestat WHERE workspace_id = ANY(%(workspace_ids)s))
                   AS n_docs
            FROM q
            LEFT JOIN chunks_termstat ts ON ts.lexeme = q.term
            LEFT JOIN ws ON ws.lexeme = q.term
        """, params)
        rows = [QueryTerm(**row) for row in cursor.fetchall()]
        bridged = _bridged_rows(cursor, text, rows, params)
        rows = rows + bridged.rows
    scored = []
    unmatched = 0.0
    unknown: list[str] = []
    # The parts of the question's hyphenated words that a source writes whole ("BAS-P" where a regulation writes
    # "Bas-P"): the parser gives the whole word its own lexeme beside its parts'.
    written_whole = {part for row in rows if row.part is False and row.df > 0 and "-" in row.term
                     for part in row.term.split("-")}
    for row in rows:
        if _NOT_A_TERM.match(row.term):
            continue
        idf = math.log(1 + (row.n_docs - row.df + 0.5) / (row.df + 0.5))
        factor = 1.0 if row.part is False else PART_WEIGHT if row.part is True else row.part
        saturated = idf * (K3 + 1) * row.qtf / (K3 + row.qtf)
        weight = saturated * factor
        if factor <= 0:
            if row.term in written_whole:
                continue  # its homograph is not searched, but the word it is part of is, and a source writes it
            # An acronym no statute writes in capitals: its homograph is not searched, and no source has it.
            unmatched += saturated
            unknown.append(row.term)
            continue
        if row.df <= 0:
            # A compound the statutes lack whole is searched by its parts: not a missing word.
            if row.part is False and not row.split:
                if row.term in bridged.inflected:
                    continue  # the statutes write the word, in its base form: not missing, nothing to tell
                # A statute word typed without its diacritics is searched as the statute's word (the spelling
                # bridge), so the relevance floor does not count it missing; a slip's correction stays a guess.
                if row.term not in bridged.unmarked:
                    unmatched += weight
                unknown.append(row.term)
            continue
        scored.append((weight, row.term))
    written = _words_of(text, unknown) if unknown else []
    words = list(dict.fromkeys(w.word for w in written))
    corrections = _corrections(written, bridged.corrections)
    scored.sort(reverse=True)
    scored = scored[:MAX_TERMS]
    return KeywordQuery(terms=[t for _, t in scored], weights=[w for w, _ in scored], unmatched_weight=unmatched,
                        unknown_words=words, corrections=corrections)


def written_words(text: str) -> list[str]:
    """The words of `text` as written, hyphenated compounds whole."""
    return _WRITTEN_WORD.findall(text)


def corrected_text(text: str, corrections: dict[str, str]) -> str:
    """`text` with each misspelt word (as written, whole: `KeywordQuery.corrections`' keys) written as the statute
    word searched in its stead: what the vector half embeds, as the embedder reads a slip's pieces as other words
    ("skydsombud" is not "skydd")."""
    if not corrections:
        return text

    def correct(match: re.Match[str]) -> str:
        word = match.group(0)
        found = corrections.get(word)
        return word if found is None else cased_like(word, found)

    return _WRITTEN_WORD.sub(correct, text)


def _corrections(written: list[WrittenWord], corrected: dict[str, str]) -> dict[str, str]:
    """Each misspelt written word -> how a statute writes the word searched in its place."""
    wanted = {w.word: corrected[w.lexeme] for w in written if w.lexeme in corrected}
    if not wanted:
        return {}
    spelt = statute_spellings(sorted(set(wanted.values())))
    return {word: spelt[lexeme] for word, lexeme in wanted.items() if lexeme in spelt}


def _words_of(text: str, lexemes: list[str]) -> list[WrittenWord]:
    """The question's words (as written, first occurrence, in its order) whose lexeme is one of `lexemes`, each
    with that lexeme; none for a question written in English.

    Only asked when some word is missing from every source, so a question whose words are all known pays
    nothing for it. A question in English (the chat takes one) misses the Swedish statutes with most of its
    words, and listing them would tell the reader nothing: it is told apart by its function words, those the
    English text search configuration drops as stop words outnumbering those the Swedish one drops."""
    written = written_words(text)
    # A lone letter ("Ä." for an abbreviation) says nothing to the reader.
    words = list(dict.fromkeys(w for w in written if len(w) > 1))
    with dict_cursor() as cursor:
        cursor.execute("""
            WITH english AS (
                SELECT count(*) FILTER (WHERE to_tsvector('english', w) = ''::tsvector)
                       > count(*) FILTER (WHERE to_tsvector('swedish', w) = ''::tsvector) AS is_english
                FROM unnest(%(written)s::text[]) AS w)
            SELECT w.word, min(v.lexeme) AS lexeme FROM unnest(%(words)s::text[]) WITH ORDINALITY AS w(word, i)
            CROSS JOIN LATERAL unnest(to_tsvector('swedish', w.word)) AS v
            WHERE NOT (SELECT is_english FROM english) AND v.lexeme = ANY(%(lexemes)s)
            GROUP BY w.word, w.i ORDER BY w.i""", {"written": written, "words": words, "lexemes": lexemes})
        return [WrittenWord(word=row["word"], lexeme=row["lexeme"]) for row in cursor.fetchall()]


def _bridged_rows(cursor: CursorWrapper, text: str, rows: list[QueryTerm], params: dict) -> BridgedTerms:
    """The terms the bridges add (agent.retrieval.bridges), each with its factor as `part`; a dropped
    question term gets factor 0 in place. `rows` are the question's own, changed in place; `cursor` is a
    dict_cursor."""
    if not (settings.RETRIEVAL_BRIDGE_ACRONYMS or settings.RETRIEVAL_BRIDGE_DEFINITIONS
            or settings.RETRIEVAL_BRIDGE_COMPOUNDS or settings.RETRIEVAL_BRIDGE_COMPOUND_PARTS
            or settings.RETRIEVAL_BRIDGE_SYNONYMS or settings.RETRIEVAL_BRIDGE_SPELLING
            or settings.RETRIEVAL_BRIDGE_INFLECTIONS or settings.RETRIEVAL_BRIDGE_PARTICLES
            or settings.RETRIEVAL_NEIGHBOURS) or not rows:
        return BridgedTerms()
    n_docs = rows[0].n_docs
    own = {row.term: bridges.idf_of(row.df, n_docs) for row in rows
           if row.part is False and row.df > 0 and not _NOT_A_TERM.match(row.term)}
    unknown = frozenset(row.term for row in rows
                        if row.part is False and row.df <= 0 and not _NOT_A_TERM.match(row.term))
    vocab = bridges.vocabulary()
    # A word no source writes in the form asked is searched in its base form too; a word the sources write is left
    # alone, since a second pass also cuts base forms that only look inflected (docs/retrieval.md, "Inflections").
    bases = {row.term: row.base or row.restem for row in rows
             if row.part is False and (row.base or (row.restem and row.df <= 0))}
    particle_stems = _particle_stems(cursor, text) if settings.RETRIEVAL_BRIDGE_PARTICLES else []
    bridged = bridges.bridge(text, own, vocab, unknown=unknown, bases=bases, particle_stems=particle_stems)
    if bridged.dropped:
        # The workspace's own documents may write the acronym ("IKEA", a project's name): there it is no homograph.
        cursor.execute("""
            SELECT DISTINCT lexeme FROM chunks_scopetermstat
            WHERE workspace_id = ANY(%(workspace_ids)s) AND lexeme = ANY(%(dropped)s) AND df > 0""",
                       {"workspace_ids": params["workspace_ids"], "dropped": sorted(bridged.dropped)})
        bridged.dropped -= {row["lexeme"] for row in cursor.fetchall()}
    for i, row in enumerate(rows):
        if row.term in bridged.dropped:
            rows[i] = replace(row, part=0.0)
    added = dict(bridged.added)
    if settings.RETRIEVAL_BRIDGE_COMPOUNDS:
        # The question's rarest words only: a long question's every pair would be thousands of look-ups.
        rare = sorted((t for t in own if t not in bridged.dropped), key=lambda t: -own[t])[:COMPOUND_WORDS]
        for candidate in bridges.compound_candidates(rare):
            if candidate not in added and candidate in vocab.words:
                # a word the statutes use (MIN_WORD_DF times), not a one-off
                added[candidate] = settings.RETRIEVAL_BRIDGE_WEIGHT
    present = {row.term for row in rows}
    if settings.RETRIEVAL_NEIGHBOURS:
        near = vocabulary_neighbours.neighbours(text, present | set(added) | bridged.dropped)
        for term, factor in near.added.items():
            added[term] = max(added.get(term, 0.0), factor)
    added = {term: factor for term, factor in added.items() if term not in present and factor > 0}
    if not added:
        return BridgedTerms(corrections=bridged.corrections, unmarked=frozenset(bridged.unmarked),
                        inflected=frozenset(bridged.inflected))
    cursor.execute("""
        SELECT ts.lexeme, ts.df + coalesce((SELECT sum(s.df) FROM chunks_scopetermstat s
                                            WHERE s.workspace_id = ANY(%(workspace_ids)s) AND s.lexeme = ts.lexeme), 0)
               AS df
        FROM chunks_termstat ts WHERE ts.lexeme = ANY(%(added)s) AND ts.df > 0""",
                   {"added": list(added), "workspace_ids": params["workspace_ids"]})
    return BridgedTerms(rows=[QueryTerm(term=row["lexeme"], qtf=1, part=added[row["lexeme"]], split=False,
                                        df=row["df"], n_docs=n_docs) for row in cursor.fetchall()],
                        corrections=bridged.corrections, unmarked=frozenset(bridged.unmarked),
                        inflected=frozenset(bridged.inflected))


def _particle_stems(cursor: CursorWrapper, text: str) -> list[str]:
    """The question's particle verbs as the particle's compound form and the verb's stem, stemmed as the index stems
    ("säga upp" -> "uppsäg"); a stop word ("ha", "vara") is no verb of one."""
    pairs = bridges.particle_verbs(text)
    if not pairs:
        return []
    cursor.execute("""
        SELECT x.particle || (tsvector_to_array(to_tsvector('swedish', x.verb)))[1] AS stem
        FROM unnest(%(particles)s::text[], %(verbs)s::text[]) AS x(particle, verb)
        WHERE to_tsvector('swedish', x.verb) <> ''::tsvector""",
                   {"particles": [p for p, _ in pairs], "verbs": [v for _, v in pairs]})
    return [row["stem"] for row in cursor.fetchall()]


def keyword_cte(where: str, *, filtered: bool, few_chunks: bool = False) -> str:
    """`kw(id, rank, rnk)`: the top %(candidates)s chunks by BM25 among those passing `where`.

    `few_chunks`: `where` keeps a few statutes' chunks only (a named statute). Each of them
    then sums its own postings of the query terms, read from the (chunk_id, lexeme) index:
    a few hundred short index reads, whatever the corpus size. Reading every posting of
    every query term and keeping those in the statute (the other filtered form) grows with
    the corpus: 148 ms p95 against 44 ms at 100k chunks (docs/retrieval.md, "Speed").
    """
    if filtered and few_chunks:
        inner = f"""
          SELECT c.id, s.rank
          FROM chunks_contentchunk c
          CROSS JOIN LATERAL (
            SELECT sum(q.w * p.impact) AS rank
            FROM chunks_posting p
            JOIN unnest(%(kw_terms)s::text[], %(kw_weights)s::float8[]) AS q(term, w) ON q.term = p.lexeme
            WHERE p.chunk_id = c.id) s
          WHERE s.rank IS NOT NULL AND c.retrievable AND {where}
          ORDER BY s.rank DESC, c.id
          LIMIT %(candidates)s"""
    elif filtered:
        inner = f"""
          SELECT c.id, sum(q.w * p.impact) AS rank
          FROM chunks_contentchunk c
          JOIN chunks_posting p ON p.chunk_id = c.id
          JOIN unnest(%(kw_terms)s::text[], %(kw_weights)s::float8[]) AS q(term, w) ON q.term = p.lexeme
          WHERE c.search_vector @@ %(kw_tsquery)s::tsquery AND c.retrievable AND {where}
          GROUP BY c.id
          ORDER BY rank DESC, c.id
          LIMIT %(candidates)s"""
    else:
        inner = f"""
          SELECT s.id, s.rank FROM (
            SELECT p.chunk_id AS id, sum(q.w * p.impact) AS rank
            FROM unnest(%(kw_terms)s::text[], %(kw_weights)s::float8[]) AS q(term, w)
            CROSS JOIN LATERAL (
              SELECT p.chunk_id, p.impact FROM chunks_posting p
              WHERE p.lexeme = q.term
                AND (p.workspace_id IS NULL OR (p.workspace_id = ANY(%(workspace_ids)s) AND EXISTS (
                     SELECT 1 FROM chunks_contentchunk c WHERE c.id = p.chunk_id AND {CHUNK_SCOPE_SQL})))
              ORDER BY p.impact DESC
              LIMIT %(kw_depth)s) p
            GROUP BY p.chunk_id
            ORDER BY rank DESC, p.chunk_id
            LIMIT %(candidates)s) s
          JOIN chunks_contentchunk c ON c.id = s.id
          WHERE {where}"""
    return f"""
      kw AS (
        SELECT id, rank, row_number() OVER (ORDER BY rank DESC, id) AS rnk FROM ({inner}) k)"""


def keyword_params(query: KeywordQuery) -> dict:
    return {"kw_terms": query.terms, "kw_weights": query.weights, "kw_tsquery": query.tsquery(),
            "kw_depth": DEPTH}
