"""Where the company's own text and the law speak of the same thing: pairs of sentences for the
extractive answer, so a reader can set a policy's wording beside the statute's.

"Same subject" is decided the way the keyword search decides relevance, not by a list of topics:
two sentences are on the same subject when they share content words, compared as Postgres's Swedish
Snowball lexemes (`to_tsvector('swedish', …)`: inflections folded, stop words out), each shared lexeme
weighted by its idf over the statute corpus (`chunks_termstat`). Sharing "uppsägningstid" or
"provanställning" (rare in the statutes) thus counts far more than sharing "arbetsgivare" (everywhere).
Pairs are ranked by the idf-weighted cosine of the two sentences' lexeme sets (tf-idf cosine with binary
term frequency), so a long sentence that merely mentions many words does not beat a short one that is
about the same thing. A pair needs at least MIN_SHARED shared lexemes, one of them telling (idf of at
least MIN_TELLING_IDF: words such as "arbetsgivare" or "gäller" alone do not make a subject), and a
cosine of MIN_COSINE; see tests/agent/test_comparison.py for real statutes against a real
uploaded policy.

Nothing here judges whether the company's text complies: the pair is shown, the reader compares.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from agent.retrieval.sources import OWN_SOURCE_TYPES
from compliance.sql import dict_cursor
from compliance.text import sentence_ends

MIN_SHARED = 2
# In at most about one statute chunk of seven.
MIN_TELLING_IDF = 2.0
MIN_COSINE = 0.2
MAX_PAIRS = 3
MIN_SENTENCE_CHARS = 25
# A lexeme that is a number or a reference word says where, not what.
_NOT_CONTENT = re.compile(r"^[\d:§.,_/-]+$|^(kap|st|p|sfs|mom|lag|§|punkt|stycket|stycke)$")


@dataclass
class Pair:
    own: dict  # the citation row of the company's file or assessment
    own_sentence: str
    law: dict  # the citation row of the statute section
    law_sentence: str
    shared: list[str] = field(default_factory=list)  # the shared lexemes, most telling first
    weight: float = 0.0  # the shared lexemes' idf, summed
    cosine: float = 0.0


def _sentences(text: str) -> list[str]:
    """Sentences, within paragraphs: a blank line ends one (a list item, a heading), a line wrap does not."""
    out = []
    for paragraph in re.split(r"\n\s*\n", text):
        flat = " ".join(paragraph.split())
        start = 0
        for end in [*sentence_ends(flat), len(flat)]:
            piece = flat[start:end].strip()
            start = end
            if len(piece) >= MIN_SENTENCE_CHARS:
                out.append(piece)
    return out


@dataclass(frozen=True)
class _Lexemes:
    per_text: list[set[str]]  # each text's content lexemes, in the texts' order
    idf: dict[str, float]  # every such lexeme's idf over the statutes


def _lexemes(texts: list[str]) -> _Lexemes:
    """Each text's content lexemes, and every lexeme's idf over the statutes (one query)."""
    with dict_cursor() as cursor:
        cursor.execute("""
            SELECT t.i, v.lexeme, coalesce(ts.df, 0) AS df,
                   (SELECT n_docs FROM chunks_corpusstat WHERE id = 1) AS n_docs
            FROM unnest(%s::text[]) WITH ORDINALITY AS t(txt, i)
            CROSS JOIN LATERAL unnest(to_tsvector('swedish', t.txt)) AS v
            LEFT JOIN chunks_termstat ts ON ts.lexeme = v.lexeme""", [texts])
        rows = cursor.fetchall()
    sets: list[set[str]] = [set() for _ in texts]
    idf: dict[str, float] = {}
    for row in rows:
        lexeme, df = row["lexeme"], row["df"]
        if _NOT_CONTENT.match(lexeme) or len(lexeme) < 3:
            continue
        sets[row["i"] - 1].add(lexeme)
        n = max(row["n_docs"] or 0, df)
        # A lexeme no statute uses cannot be shared with a statute sentence; give it no weight anyway.
        idf[lexeme] = math.log(1 + (n - df + 0.5) / (df + 0.5)) if df else 0.0
    return _Lexemes(per_text=sets, idf=idf)


def pair_own_with_law(citations: list[dict], *, max_pairs: int = MAX_PAIRS) -> list[Pair]:
    """The best-matching (own sentence, statute sentence) pairs among the answer's sources, strongest first.

    Empty unless the sources hold both the company's own text and statute text. Each sentence is in
    at most one pair, and each statute section answers at most one own sentence.
    """
    own_rows = [c for c in citations if c.get("source_type") in OWN_SOURCE_TYPES and not c.get("removed")]
    # The block's reserve (sources ranked past the top k) is there for a model to read, not to be set beside
    # the company's text: a lower-ranked § sharing more words would win the pair over the § the question is about.
    law_rows = [c for c in citations if c.get("source_type") == "LEGAL_DOCUMENT" and not c.get("reserve")]
    if not own_rows or not law_rows:
        return []
    own = [(row, s) for row in own_rows for s in _sentences(row.get("passage") or row.get("text") or "")]
    law = [(row, s) for row in law_rows for s in _sentences(row.get("passage") or row.get("text") or "")]
    if not own or not law:
        return []
    vocabulary = _lexemes([s for _, s in own] + [s for _, s in law])
    sets, idf = vocabulary.per_text, vocabulary.idf
    own_sets, law_sets = sets[:len(own)], sets[len(own):]
    norm = [sum(idf.get(lexeme, 0.0) for lexeme in lexemes) for lexemes in sets]
    candidates = []
    for i, own_set in enumerate(own_sets):
        for j, law_set in enumerate(law_sets):
            shared = own_set & law_set
            if len(shared) < MIN_SHARED:
                continue
            weight = sum(idf.get(lexeme, 0.0) for lexeme in shared)
            cosine = weight / math.sqrt(norm[i] * norm[len(own) + j]) if weight else 0.0
            telling = max(idf.get(lexeme, 0.0) for lexeme in shared) >= MIN_TELLING_IDF
            if telling and cosine >= MIN_COSINE:
                candidates.append((cosine, weight, i, j, shared))
    candidates.sort(key=lambda c: (-c[0], c[2], c[3]))
    pairs: list[Pair] = []
    used_own: set[int] = set()
    used_law_rows: set[int] = set()
    for cosine, weight, i, j, shared in candidates:
        law_row = law[j][0]
        if i in used_own or law_row["n"] in used_law_rows:
            continue
        used_own.add(i)
        used_law_rows.add(law_row["n"])
        pairs.append(Pair(own=own[i][0], own_sentence=own[i][1], law=law_row, law_sentence=law[j][1],
                          shared=sorted(shared, key=lambda lexeme: -idf.get(lexeme, 0.0)), weight=round(weight, 3),
                          cosine=round(cosine, 3)))
        if len(pairs) == max_pairs:
            break
    return pairs
