"""A question's misspelt word, searched as the word of the statutes it is one slip away from.

Real questions are typed quickly: "skydsombud", "arbetstagre", "bostadsärtt". Such a word is in no source, so the
keyword half searched nothing for it and the answer named it as a word no source uses. Here a word no source
uses is compared with the statutes' own vocabulary (the lexemes at least `bridges.MIN_WORD_DF` chunks hold):
one lexeme a single edit away (a letter added, dropped, changed, or two letters swapped) is taken as the word
meant, and searched at its idf (`RETRIEVAL_BRIDGE_SPELLING`, `RETRIEVAL_SPELLING_WEIGHT`; docs/retrieval.md,
"A misspelt word").

What keeps a real word of practice from being "corrected" into another word:
- only a word no source in the asker's scope uses is looked at, never one a statute or the workspace writes;
- it must be at least `MIN_LENGTH` letters as stemmed: a short word is one edit from dozens of others;
- its first letter stays: a slip of the first letter is rare, and a word that lost it reads as another word;
- of several words one edit away the one the statutes use most is taken.
A word typed without its diacritics ("uppsagningstid", "overtid", on a keyboard or phone without å, ä and ö) is
as many edits away as it lacks marks, first letter included; it is matched on its letters without marks instead:
the statute word most used among those that read the same without them ("övertid"), from a stem of
`FOLDED_MIN_LENGTH` letters. Before that, the question itself is given the statutes' marks (`restore_marks`, called
by the query analysis), so the vector half embeds, and the reference parser reads, what the asker meant.
What is left is a guess, so the reader is told what was searched ("sökt som …"), and the word stays in the list
of words no source uses, so the relevance floor still counts it as unmatched. A word read without its marks is no
guess but the statute's word as typed: the floor counts it as the statute word (`Correction.marks_only`).

The comparison is rapidfuzz's optimal-string-alignment distance over the words of the same first letter, all in
memory (a few thousand per letter): well under a millisecond per word.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field

from rapidfuzz import process
from rapidfuzz.distance import OSA

from chunks.selectors import STATUTE_CHUNKS_SQL
from compliance.sql import dict_cursor
from compliance.text import STOP_WORDS

# A stem shorter than this is one edit from too many other words to tell which was meant.
MIN_LENGTH = 5
MAX_EDITS = 1
# Read without its marks, a stem this long is seldom two words of the statutes ("lan": lån or län).
FOLDED_MIN_LENGTH = 4
# A question word typed without marks is given the statutes' marks (restore_marks) from this length, and only to
# a word they write at least this often: a one-off is no safe target.
RESTORE_MIN_LENGTH = 3
MIN_MARKED_USES = 3


@dataclass(frozen=True)
class SpellingIndex:
    """The statutes' lexemes (alphabetic, used by at least `min_df` chunks) by first letter, most used first."""

    by_initial: dict[str, tuple[str, ...]]
    # a lexeme with diacritics, read without them -> the most used lexeme that reads so
    by_folded: dict[str, str]


@dataclass(frozen=True)
class Correction:
    lexeme: str  # the statute lexeme searched in the question's stead
    # The question wrote the statute word without its diacritics: no guess, so the relevance floor counts the
    # word as the statute's (a slip of one edit stays a guess, counted as missing).
    marks_only: bool


def folded(word: str) -> str:
    """`word` without its diacritics: "övertid" -> "overtid"."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def spelling_index(min_df: int) -> SpellingIndex:
    with dict_cursor() as cursor:
        cursor.execute("SELECT lexeme, df FROM chunks_termstat WHERE df >= %s ORDER BY df DESC, lexeme", [min_df])
        rows = cursor.fetchall()
    by_initial: dict[str, list[str]] = defaultdict(list)
    by_folded: dict[str, str] = {}
    for row in rows:
        lexeme = row["lexeme"]
        if lexeme.isalpha():
            by_initial[lexeme[0]].append(lexeme)
            plain = folded(lexeme)
            if plain != lexeme:
                by_folded.setdefault(plain, lexeme)  # rows come most used first
    return SpellingIndex(by_initial={initial: tuple(words) for initial, words in by_initial.items()},
                         by_folded=by_folded)


def correction(lexeme: str, index: SpellingIndex) -> Correction | None:
    """The statute lexeme `lexeme` (a question's stem no source uses) reads as without diacritics, or else is one
    edit away from, the most used of several; None for a short or non-alphabetic stem, or none near."""
    if len(lexeme) < FOLDED_MIN_LENGTH or not lexeme.isalpha():
        return None
    marked = index.by_folded.get(folded(lexeme))
    if marked is not None and marked != lexeme:
        return Correction(lexeme=marked, marks_only=True)
    if len(lexeme) < MIN_LENGTH:
        return None
    candidates = index.by_initial.get(lexeme[0], ())
    # The choices are ordered most used first and extractOne keeps the first of equal distance.
    found = process.extractOne(lexeme, candidates, scorer=OSA.distance, score_cutoff=MAX_EDITS)
    if found is None or found[0] == lexeme:
        return None
    return Correction(lexeme=found[0], marks_only=False)


def statute_names(lexemes: list[str]) -> set[str]:
    """Those of `lexemes` that the statutes write as a name: never with a lower-case initial, and with a capital
    inside a sentence at least once (a state, a place, an agency). "cookies" is one letter from "Cooköarna" (the Cook
    Islands, "mellan Sverige och Cooköarna" in three statutes). A word the statutes write in lower case
    ("skyddsombud"), or with a capital only where a heading or sentence begins ("Användningsbegränsningar"), is no
    name."""
    if not lexemes:
        return set()
    with dict_cursor() as cursor:
        # A common word's lower-case use is found in its first chunks; only a name's are all read.
        cursor.execute(f"""
            SELECT l.lexeme FROM unnest(%s::text[]) AS l(lexeme)
            WHERE NOT EXISTS (
                SELECT 1 FROM chunks_contentchunk c
                WHERE {STATUTE_CHUNKS_SQL} AND c.search_vector @@ quote_literal(l.lexeme)::tsquery
                  AND c.text ~ ('\\m' || l.lexeme))
              AND EXISTS (
                SELECT 1 FROM chunks_contentchunk c
                WHERE {STATUTE_CHUNKS_SQL} AND c.search_vector @@ quote_literal(l.lexeme)::tsquery
                  AND c.text ~ ('[[:alpha:],] +' || initcap(l.lexeme)))""", [lexemes])
        return {row["lexeme"] for row in cursor.fetchall()}


def names_written(text: str) -> list[str]:
    """The words of `text` written with a capital initial, lower-cased: maybe a name the asker means
    ("Arbetsmiljöverket", misspelt or not; a sentence's first word may be one too), where a word typed in lower case
    is an everyday word. A word in capitals is an abbreviation (the acronym bridge's)."""
    return [word.lower() for word in _LETTERS.findall(text) if word[0].isupper() and not word.isupper()]


def statute_spellings(lexemes: list[str]) -> dict[str, str]:
    """How a statute writes each of `lexemes` (one word of one chunk holding it, as Postgres's headline marks
    it): what the reader is shown as searched, "arbetstagare" rather than the stem "arbetstag"."""
    if not lexemes:
        return {}
    with dict_cursor() as cursor:
        cursor.execute(f"""
            SELECT l.lexeme, ts_headline('swedish', c.text, quote_literal(l.lexeme)::tsquery,
                                         'StartSel=«, StopSel=», MaxWords=2, MinWords=1, MaxFragments=1') AS headline
            FROM unnest(%s::text[]) AS l(lexeme)
            CROSS JOIN LATERAL (
                SELECT c.text FROM chunks_contentchunk c
                WHERE {STATUTE_CHUNKS_SQL} AND c.search_vector @@ quote_literal(l.lexeme)::tsquery
                  -- the text itself, not only its header (a title naming the word), holds it: the headline marks it
                  AND to_tsvector('swedish', c.text) @@ quote_literal(l.lexeme)::tsquery
                LIMIT 1) AS c""", [lexemes])
        rows = cursor.fetchall()
    out = {}
    for row in rows:
        marked = _MARKED.search(row["headline"])
        if marked:
            out[row["lexeme"]] = marked.group(1)
    return out


_MARKED = re.compile(r"«([^»]+)»")


@dataclass(frozen=True)
class MarkedWords:
    """The statutes' words with diacritics (lower case, as their text writes them) by how they read without them,
    the most used of several; and those readings the statutes also write as they are ("ar" beside "år", "är")."""

    by_folded: dict[str, str] = field(default_factory=dict)
    written_plain: frozenset[str] = frozenset()


@dataclass(frozen=True)
class RestoredText:
    text: str
    words: dict[str, str]  # each word as written -> as the statutes write it, marks and all


def marked_words() -> MarkedWords:
    """Read the statutes' words with Postgres's simple parser (ts_stat over their chunks)."""
    statute_text = f"SELECT to_tsvector('simple', c.text) FROM chunks_contentchunk c WHERE {STATUTE_CHUNKS_SQL}"
    with dict_cursor() as cursor:
        cursor.execute("SELECT word, nentry FROM ts_stat(%s) ORDER BY nentry DESC, word", [statute_text])
        rows = cursor.fetchall()
    by_folded: dict[str, str] = {}
    for row in rows:
        word = row["word"]
        if row["nentry"] >= MIN_MARKED_USES and word.isalpha():
            plain = folded(word)
            if plain != word:
                by_folded.setdefault(plain, word)
    written = {row["word"] for row in rows}
    return MarkedWords(by_folded=by_folded, written_plain=frozenset(plain for plain in by_folded if plain in written))


def restore_marks(text: str, marked: MarkedWords) -> RestoredText:
    """`text` with each word typed without diacritics that no statute writes so, but that reads as a statute word
    with them, written as the statutes write it: "Hur lang ar uppsagningstiden?" -> "Hur lång ar uppsägningstiden?"
    ("ar" is left: the statutes write it, and it is "år" or "är"). A word typed with a mark, a word in capitals
    (an abbreviation), one shorter than RESTORE_MIN_LENGTH and a stop word as typed ("man", not "män": it was a
    word of the sentence, not a content word missing its marks) are left as typed."""
    words: dict[str, str] = {}

    def restore(match: re.Match[str]) -> str:
        word = match.group(0)
        lower = word.lower()
        if (len(lower) < RESTORE_MIN_LENGTH or not lower.isascii() or word.isupper() or lower in marked.written_plain
                or lower in STOP_WORDS):
            return word
        found = marked.by_folded.get(lower)
        if found is None:
            return word
        restored = cased_like(word, found)
        words[word] = restored
        return restored

    return RestoredText(text=_LETTERS.sub(restore, text), words=words)


_LETTERS = re.compile(r"[^\W\d_]+")


def cased_like(written: str, statute_word: str) -> str:
    """`statute_word` (lower case, as the statutes write it) with the capital `written` begins with, if any."""
    return statute_word[0].upper() + statute_word[1:] if written[0].isupper() else statute_word
