"""Bridges between the words a question uses and the words of the statutes, mined from the statutes themselves.

People ask in the words of practice; the law writes its own (docs/retrieval.md, "Bridges"). What the corpus
itself says about its words is used here, on the keyword half's query, never a word list:

- **Acronyms.** A word the question writes in capitals ("LAS", "OVK") is an acronym. If no statute writes it
  in capitals, searching its lower-case twin finds a homograph ("las", the past tense of "läsa"), so it is
  searched only where the statutes write it so; where a statute spells it out ("Europeiska ekonomiska
  samarbetsområdet (EES)") the spelled-out words join the query.
- **Definitions.** "Med personalvårdsförmåner avses … enklare åtgärder för att skapa trivsel i arbetet …": a
  question whose rare words are the explanation's words (trivsel) gets the defined term
  (personalvårdsförmån), which the law's other §§ use.
- **Phrases to compounds.** "tid för uppsägning" and the law's "uppsägningstid": two words of the question
  whose stems form a word the statutes use (modifier + optional linking s + head) add that word.
- **Inflections.** "avtalet" and the law's "avtal": the Swedish Snowball stemmer leaves a neuter noun's definite
  ending (-et, and -ets, whose s it takes), so the two forms of one word are two lexemes. A question word in that
  form also searches its base form where the statutes use it.
- **Particle verbs.** "säga upp" and the law's "uppsägning", "lämna ut" and "utlämnande": Swedish writes a verb
  and its particle apart, and its noun (and formal verb) with the particle first, as one word. Two adjacent question
  words that are a verb and a particle also search the statute words that start with the particle's compound form
  and the verb's stem.
- **Spelling.** "skydsombud" and the law's "skyddsombud": a word no source uses that is one slip from a statute
  word is searched as that word (agent.retrieval.spelling).
- **Synonyms.** "spara" and the law's "lagra", "anställd" and "arbetstagare": a question word's synonyms in
  a Swedish thesaurus (law.thesaurus, Folkets synonymlexikon) that the statutes use join the query at a
  share of the bridge weight. The one bridge from outside the corpus: what the statutes write is still what
  decides which synonyms count.

The vocabulary (acronyms, abbreviations, definitions) is read from the statute chunks in the database once
per process and corpus version (`chunks_corpusstat`), shared through Django's cache, and warmed at start-up
(agent.retrieval.warmup). Workspace files never steer it.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.utils import CursorWrapper

from chunks.selectors import STATUTE_CHUNKS_SQL
from compliance.sql import dict_cursor
from law.definitions import abbreviations_in, acronyms_in, definitions_in
from law.thesaurus import read_synonyms

from .concurrent_search import SideSearch, search_beside
from .spelling import (
    MarkedWords,
    SpellingIndex,
    correction,
    marked_words,
    names_written,
    spelling_index,
    statute_names,
)

log = logging.getLogger(__name__)

# A definition's explanation must hold at least this share of the question's keyword weight (idf) to lend
# its term: a long question shares a common word with hundreds of definitions, a short one its rare word.
DEFINITION_MIN_SHARE = 0.5
# At most this many definitions lend their term to one question.
DEFINITION_MAX_TERMS = 2
# An explanation word found in more definitions than this says nothing about which term is meant.
DEFINITION_MAX_BODY_DF = 40
# A definition that shares a single word with the question lends its term only if that word is in at most
# this many explanations.
DEFINITION_SINGLE_WORD_DF = 3
# Compounds of the statutes a question word is part of ("incident" -> "personuppgiftsincident"): at most this
# many per word, the most used first, each at this share of the bridge weight. A word or part must be used
# this often by the statutes to count.
COMPOUNDS_PER_PART = 3
COMPOUND_PART_SHARE = 0.5
MIN_WORD_DF = 3
# The base form of a word the question writes in its definite form is the same word: searched at its full idf.
INFLECTION_WEIGHT = 1.0
MIN_SPLIT_PART = 3
# The Swedish verb particles (a closed class of the grammar) -> the form each takes at the head of a compound:
# "gå ner" -> "nedgång", "betala tillbaka" -> "återbetalning", "ta emot" -> "mottagande", "slå ihop" -> "sammanslagning".
PARTICLE_FORMS = {
    "av": "av", "bort": "bort", "efter": "efter", "fast": "fast", "fram": "fram", "förbi": "förbi", "hem": "hem",
    "igen": "igen", "igenom": "genom", "in": "in", "kvar": "kvar", "med": "med", "ned": "ned", "ner": "ned",
    "om": "om", "på": "på", "runt": "runt", "till": "till", "tillbaka": "åter", "undan": "undan", "under": "under",
    "upp": "upp", "ut": "ut", "åt": "åt", "över": "över", "emot": "mot", "ihop": "samman", "isär": "isär",
}
# A particle and a verb's stem shorter than this ("utta") begin too many unrelated words.
MIN_PARTICLE_STEM = 5
# The statute words a particle verb finds: at most this many, the most used first, each at most this many letters
# longer than the particle and stem (a derivation: "uppsäg" -> "uppsägning"; not a long compound of it).
PARTICLE_WORDS = 2
PARTICLE_SUFFIX = 6
# A particle verb's statute words at this share of the bridge weight: which derivation the question means is a guess
# ("lämna ut" is "utlämnande", but the law's most used word of that stem is "utlämning", extradition).
PARTICLE_SHARE = 0.5
_SHOUTING_SHARE = 0.5  # a question mostly in capitals is shouting, not writing acronyms
# Part of the shared key: a process of another release never reads a vocabulary of another shape.
_CACHE_KEY = "bridges:vocabulary:v9:"
# A synonym stands in for the question's word only in part: it is the thesaurus's sense, maybe not the question's.
SYNONYM_SHARE = 0.5


@dataclass
class Vocabulary:
    version: tuple
    acronyms: frozenset[str] = frozenset()
    # acronym -> lexemes of the words a statute spells it out with
    expansions: dict[str, list[str]] = field(default_factory=dict)
    # one per definition: (the term's lexemes, the explanation's lexemes)
    definitions: list[tuple[tuple[str, ...], frozenset[str]]] = field(default_factory=list)
    # explanation lexeme -> indexes into `definitions`
    by_body_lexeme: dict[str, list[int]] = field(default_factory=dict)
    # the statute words used at least MIN_WORD_DF times: a compound two question words make must be one
    words: frozenset[str] = frozenset()
    # a word -> the statute compounds it is the head or the modifier of, most used first; read on first use
    # (the compound-parts bridge is off by default, and the index takes seconds to build)
    _compounds_of: dict[str, list[str]] | None = None
    # a lexeme -> the lexemes of its thesaurus synonyms that the statutes use (MIN_WORD_DF times); read on first
    # use like the compounds (the synonym bridge is off by default, and stemming the thesaurus takes a query)
    _synonyms: dict[str, tuple[str, ...]] | None = None
    # the statute words by first letter, for the spelling bridge; read on first use like the compounds
    _spelling: SpellingIndex | None = None
    # the statutes' words with diacritics, for a question typed without them (mined with the rest, as reading
    # every chunk's words is seconds over the whole statute book: once per corpus version, not once per process)
    marks: MarkedWords = field(default_factory=MarkedWords)

    @property
    def spelling(self) -> SpellingIndex:
        if self._spelling is None:
            self._spelling = spelling_index(MIN_WORD_DF)
        return self._spelling

    @property
    def compounds_of(self) -> dict[str, list[str]]:
        if self._compounds_of is None:
            self._compounds_of = _compound_index()
        return self._compounds_of

    @property
    def synonyms(self) -> dict[str, tuple[str, ...]]:
        if self._synonyms is None:
            self._synonyms = _synonym_lexemes(self.words)
        return self._synonyms


@dataclass
class Bridged:
    """What the bridges did to one question's keyword query."""
    dropped: set[str] = field(default_factory=set)  # lexemes not to search (an acronym's homograph)
    added: dict[str, float] = field(default_factory=dict)  # lexeme -> weight factor (times its idf)
    reasons: dict[str, str] = field(default_factory=dict)  # lexeme -> what bridged it (for logs and tests)
    # a question lexeme no source uses -> the statute lexeme one slip away that was searched for it
    corrections: dict[str, str] = field(default_factory=dict)
    # those of them the question wrote without the statute word's diacritics (spelling.Correction.marks_only)
    unmarked: set[str] = field(default_factory=set)
    # a question lexeme no source uses whose other form of the same word a statute uses ("karensavdraget")
    inflected: set[str] = field(default_factory=set)


_lock = threading.Lock()
_local: Vocabulary | None = None
_checked_at = 0.0
VERSION_CHECK_SECONDS = 10.0
# While the statutes change (the statute book loading, a sync), a process that has read them answers with the words
# it read and reads them again beside the questions: reading them takes seconds over the whole book (half a minute
# with a load on both cores), and a question should not wait for it. At most one such read runs per process, and
# the next starts at least this long after the last began, so a load of many minutes is read once a minute, not
# without pause.
REFRESH_SECONDS = 60.0
_refresh_lock = threading.Lock()  # guards the two below; never held while mining
_refresh: SideSearch[Vocabulary] | None = None
_refresh_started_at = -REFRESH_SECONDS


def _corpus_version(cursor: CursorWrapper) -> tuple:
    """The statutes' chunk count and length, kept by triggers: a load or a re-chunking changes them."""
    cursor.execute("SELECT n_docs, total_len FROM chunks_corpusstat WHERE id = 1")
    row = cursor.fetchone()
    return (row["n_docs"], row["total_len"]) if row else (0, 0)


def vocabulary() -> Vocabulary:
    """The statutes' bridges, mined once per corpus version. The version is read at most every
    VERSION_CHECK_SECONDS: a statute load shows in the bridges that much later, and a question saves a query.
    A process that has bridges already keeps answering with them while the new version is mined beside it
    (`_refresh_beside`); one that has none, or a caller inside a transaction (whose uncommitted statutes another
    connection cannot see), mines in the caller's thread."""
    global _local, _checked_at
    found = _local
    if found is not None and time.monotonic() - _checked_at < VERSION_CHECK_SECONDS:
        return found
    with dict_cursor() as cursor:
        version = _corpus_version(cursor)
    _checked_at = time.monotonic()
    if found is not None and found.version == version:
        return found
    if found is not None and _refresh_beside(version, found):
        return found
    return _load(version)


def _load(version: tuple, replacing: Vocabulary | None = None) -> Vocabulary:
    """The bridges of `version`: this process's, the shared copy, or mined (and shared) here. `replacing`: the
    bridges a side mining was started to replace; its result becomes this process's only if they still are (a
    mining in a caller's thread, or forget(), may have replaced them meanwhile, with a newer version)."""
    global _local
    with _lock:
        if _local is not None and _local.version == version:
            return _local
        shared = None
        try:
            shared = cache.get(_CACHE_KEY + ":".join(map(str, version)))
        except Exception as exc:  # noqa: BLE001 - the shared copy is an optimisation; mining still answers
            log.warning("bridges cache unavailable: %s", exc)
        if not isinstance(shared, Vocabulary):
            shared = mine_vocabulary(version)
            try:
                cache.set(_CACHE_KEY + ":".join(map(str, version)), shared, timeout=None)
            except Exception as exc:  # noqa: BLE001 - see above
                log.warning("bridges cache unavailable: %s", exc)
        if replacing is None or _local is replacing:
            _local = shared
        return shared


def _refresh_beside(version: tuple, replacing: Vocabulary) -> bool:
    """Whether the caller may answer with the bridges it has while `version` is mined on a side connection: one is
    started unless one runs or began under REFRESH_SECONDS ago. False inside a transaction (a side connection
    cannot see the caller's uncommitted statutes) or with side connections off: the caller mines."""
    global _refresh, _refresh_started_at
    if not settings.RETRIEVAL_CONCURRENT_SEARCHES or connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return False
    with _refresh_lock:
        running = _refresh is not None and _refresh.future is not None and not _refresh.future.done()
        if not running and time.monotonic() - _refresh_started_at >= REFRESH_SECONDS:
            _refresh_started_at = time.monotonic()
            _refresh = search_beside(lambda: _refreshed(version, replacing))
    return True


def _refreshed(version: tuple, replacing: Vocabulary) -> Vocabulary:
    try:
        vocab = _load(version, replacing)
        vocab.spelling  # noqa: B018 - read here, not by the next question that corrects a word
        return vocab
    except Exception:
        log.exception("reading the statutes' bridges again failed; questions keep the ones read before")
        raise


def question_marks() -> MarkedWords | None:
    """The statutes' words a question typed without diacritics is given its marks from (spelling.restore_marks),
    or None when the spelling bridge is off."""
    return vocabulary().marks if settings.RETRIEVAL_BRIDGE_SPELLING else None


def forget() -> None:
    """Drop this process's copy and the shared one of the current corpus version (a test that writes statutes
    of its own, whose counts another test's statutes may have had)."""
    global _local, _checked_at, _refresh, _refresh_started_at
    with _lock:
        _local = None
        _checked_at = 0.0
    with _refresh_lock:
        _refresh = None
        _refresh_started_at = -REFRESH_SECONDS
    with dict_cursor() as cursor:
        version = _corpus_version(cursor)
    try:
        cache.delete(_CACHE_KEY + ":".join(map(str, version)))
    except Exception as exc:  # noqa: BLE001 - as in vocabulary()
        log.warning("bridges cache unavailable: %s", exc)


def mine_vocabulary(version: tuple) -> Vocabulary:
    """Read the acronyms, abbreviations and definitions of every statute chunk (one § at a time)."""
    with dict_cursor() as cursor:
        cursor.execute(f"""
            SELECT c.header || ' ' || c.text AS text FROM chunks_contentchunk c
            WHERE {STATUTE_CHUNKS_SQL} AND c.header || ' ' || c.text ~ '[A-ZÅÄÖ]{{2}}'""")
        acronyms = frozenset(a for row in cursor.fetchall() for a in acronyms_in(row["text"]))
        # The parts of a split § in order; only §§ that may define something or spell out an abbreviation.
        cursor.execute(f"""
            WITH hit AS (
                SELECT DISTINCT c.legal_document_id, c.citation FROM chunks_contentchunk c
                WHERE {STATUTE_CHUNKS_SQL} AND c.citation <> ''
                  AND c.text ~ '(avses|betyder|följande betydelse|med följande innebörd|\\([A-ZÅÄÖ]{{2}}|, [A-ZÅÄÖ]{{2,8}},)')
            SELECT string_agg(c.text, E'\\n\\n' ORDER BY c.ordinal) AS text
            FROM chunks_contentchunk c JOIN hit h ON h.legal_document_id = c.legal_document_id AND h.citation = c.citation
            WHERE {STATUTE_CHUNKS_SQL}
            GROUP BY c.legal_document_id, c.citation""")
        sections = cursor.fetchall()
    terms: list[str] = []
    bodies: list[str] = []
    spelled: dict[str, str] = {}
    for section in sections:
        text = section["text"]
        for definition in definitions_in(text):
            terms.append(definition.term)
            bodies.append(definition.body)
        for abbreviation in abbreviations_in(text):
            spelled.setdefault(abbreviation.short, abbreviation.phrase)
    term_lexemes = _lexemes(terms)
    body_lexemes = _lexemes(bodies)
    phrase_lexemes = _lexemes(list(spelled.values()))
    definitions: list[tuple[tuple[str, ...], frozenset[str]]] = []
    seen: set[tuple] = set()
    for term, body in zip(term_lexemes, body_lexemes):
        key = (tuple(term), frozenset(body) - set(term))
        if term and key[1] and key not in seen:
            seen.add(key)
            definitions.append(key)
    by_body: dict[str, list[int]] = defaultdict(list)
    for index, (_, body) in enumerate(definitions):
        for lexeme in body:
            by_body[lexeme].append(index)
    by_body_lexeme = {lexeme: ids for lexeme, ids in by_body.items() if len(ids) <= DEFINITION_MAX_BODY_DF}
    expansions = {short: lexemes for short, lexemes in zip(spelled, phrase_lexemes) if lexemes}
    with dict_cursor() as cursor:
        cursor.execute("SELECT lexeme FROM chunks_termstat WHERE df >= %s", [MIN_WORD_DF])
        words = frozenset(row["lexeme"] for row in cursor.fetchall())
    return Vocabulary(version=version, acronyms=acronyms, expansions=expansions, definitions=definitions,
                      by_body_lexeme=by_body_lexeme, words=words, marks=marked_words())


def _synonym_lexemes(words: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """The thesaurus in the index's terms: each word's stem -> the stems of its synonyms the statutes use.
    Stemming both sides the way the index does makes "sparade" find the synonyms of "spara"."""
    thesaurus = read_synonyms()
    if not thesaurus or not words:
        return {}
    entries = sorted(set(thesaurus) | {s for synonyms in thesaurus.values() for s in synonyms})
    stem = {word: lexemes[0] for word, lexemes in zip(entries, _lexemes(entries)) if len(lexemes) == 1}
    out: dict[str, set[str]] = defaultdict(set)
    for word, synonyms in thesaurus.items():
        if word not in stem:
            continue
        for synonym in synonyms:
            target = stem.get(synonym)
            if target and target != stem[word] and target in words:
                out[stem[word]].add(target)
    return {lexeme: tuple(sorted(targets)) for lexeme, targets in out.items()}


def _compound_index() -> dict[str, list[str]]:
    """Each statute word of two known parts (modifier, optional linking s, head), split once where the parts
    are most balanced, listed under both parts: the index-side twin of the question's compound split."""
    with dict_cursor() as cursor:
        cursor.execute("SELECT lexeme, df FROM chunks_termstat WHERE df >= %s", [MIN_WORD_DF])
        df = {row["lexeme"]: row["df"] for row in cursor.fetchall()}
    known = {lx for lx in df if lx.isalpha()}
    by_part: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for word in known:
        if len(word) < 2 * MIN_SPLIT_PART + 1:
            continue
        best: tuple[int, str, str] | None = None
        for i in range(MIN_SPLIT_PART, len(word) - MIN_SPLIT_PART + 1):
            head, tail = word[:i], word[i:]
            if tail not in known:
                continue
            modifier = head if head in known else head[:-1] if head.endswith("s") and head[:-1] in known else ""
            if len(modifier) >= MIN_SPLIT_PART and (best is None or min(len(modifier), len(tail)) > best[0]):
                best = (min(len(modifier), len(tail)), modifier, tail)
        if best:
            by_part[best[1]].append((df[word], word))
            by_part[best[2]].append((df[word], word))
    return {part: [w for _, w in sorted(words, reverse=True)[:COMPOUNDS_PER_PART]] for part, words in by_part.items()}


def _lexemes(texts: list[str]) -> list[list[str]]:
    """Each text's Swedish lexemes (stop words out), in one statement."""
    if not texts:
        return []
    with dict_cursor() as cursor:
        cursor.execute("""
            SELECT x.i, coalesce(array(SELECT lexeme FROM unnest(to_tsvector('swedish', x.t)) ORDER BY lexeme), '{}')
                   AS lexemes
            FROM unnest(%s::text[]) WITH ORDINALITY AS x(t, i)""", [texts])
        by_index = {row["i"]: list(row["lexemes"]) for row in cursor.fetchall()}
    return [[lx for lx in by_index.get(i + 1, []) if not _NUMERIC.match(lx)] for i in range(len(texts))]


_NUMERIC = re.compile(r"^[\d:§.,_-]+$")


def acronym_tokens(text: str) -> list[str]:
    """The words `text` writes in capitals, unless the whole question is in capitals."""
    words = re.findall(r"[^\W\d_]+", text)
    capitals = [w for w in words if len(w) >= 2 and w.isupper()]
    if not words or len(capitals) > _SHOUTING_SHARE * len(words):
        return []
    return sorted(acronyms_in(text))


def bridge(text: str, lexemes: dict[str, float], vocab: Vocabulary, *,
           unknown: frozenset[str] = frozenset(), bases: dict[str, str] | None = None,
           particle_stems: list[str] | None = None) -> Bridged:
    """The bridges for a question `text` whose keyword lexemes and their idf weights are `lexemes`; `unknown`
    are its lexemes no statute uses (a word of practice: only a synonym can bring it to the law); `bases` maps a
    lexeme in a definite form the stemmer leaves to its base form's lexeme (keyword_search.keyword_query);
    `particle_stems` are the question's particle verbs as a particle's compound form and the verb's stem ("uppsäg")."""
    out = Bridged()
    if settings.RETRIEVAL_BRIDGE_ACRONYMS:
        for token in acronym_tokens(text):
            if token in vocab.acronyms:
                continue
            lower = token.lower()
            out.dropped.add(lower)
            out.reasons[lower] = f"{token}: no statute writes it in capitals"
        for token in acronym_tokens(text):
            for lexeme in vocab.expansions.get(token, []):
                if lexeme not in lexemes:
                    out.added[lexeme] = max(out.added.get(lexeme, 0.0), settings.RETRIEVAL_BRIDGE_WEIGHT)
                    out.reasons[lexeme] = f"{token} spelled out by a statute"
    if settings.RETRIEVAL_BRIDGE_DEFINITIONS:
        _definition_terms(lexemes, vocab, out)
    if settings.RETRIEVAL_BRIDGE_INFLECTIONS:
        _inflections(bases or {}, lexemes, vocab, out)
    if settings.RETRIEVAL_BRIDGE_PARTICLES:
        _particle_verbs(particle_stems or [], lexemes, vocab, out)
    if settings.RETRIEVAL_BRIDGE_SPELLING:
        _spelling(lexemes, unknown - out.inflected, vocab, out, text)
    if settings.RETRIEVAL_BRIDGE_SYNONYMS:
        _synonyms(lexemes, unknown, vocab, out)
    if settings.RETRIEVAL_BRIDGE_COMPOUND_PARTS:
        factor = settings.RETRIEVAL_BRIDGE_WEIGHT * COMPOUND_PART_SHARE
        for lexeme in lexemes:
            if lexeme in out.dropped:
                continue
            for compound in vocab.compounds_of.get(lexeme, ()):
                if compound not in lexemes and factor > out.added.get(compound, 0.0):
                    out.added[compound] = factor
                    out.reasons[compound] = f"a statute compound of {lexeme}"
    return out


def _inflections(bases: dict[str, str], lexemes: dict[str, float], vocab: Vocabulary, out: Bridged) -> None:
    """Each question lexeme in the definite form the stemmer leaves -> its base form too, where the statutes use it.
    The same word in another form, no guess: searched at its full idf, and not missing when no source has the
    definite form ("karensavdraget" beside the law's "karensavdrag")."""
    for lexeme, base in sorted(bases.items()):
        if lexeme in out.dropped or base not in vocab.words or base in lexemes:
            continue
        if lexeme not in lexemes:
            out.inflected.add(lexeme)
        if INFLECTION_WEIGHT > out.added.get(base, 0.0):
            out.added[base] = INFLECTION_WEIGHT
            out.reasons[base] = f"{lexeme} in another form"


def particle_verbs(text: str) -> list[tuple[str, str]]:
    """The question's adjacent word pairs that may be a verb and its particle, each as (the particle's compound form,
    the verb as written): "Får vi säga upp henne?" -> [("upp", "säga")]. Which of them are verbs the statutes decide:
    only a pair whose compound they use finds anything."""
    words = re.findall(r"[^\W\d_]+", text)
    return [(PARTICLE_FORMS[particle.lower()], verb.lower()) for verb, particle in zip(words, words[1:])
            if particle.lower() in PARTICLE_FORMS and verb.lower() not in PARTICLE_FORMS and len(verb) >= 2]


def _particle_verbs(stems: list[str], lexemes: dict[str, float], vocab: Vocabulary, out: Bridged) -> None:
    """Each particle + verb stem ("uppsäg") -> the statute words starting with it, the most used first."""
    factor = settings.RETRIEVAL_BRIDGE_WEIGHT * PARTICLE_SHARE
    for stem in sorted(set(stems)):
        if len(stem) < MIN_PARTICLE_STEM or not stem.isalpha():
            continue
        found = [w for w in vocab.spelling.by_initial.get(stem[0], ()) if w.startswith(stem)
                 and len(w) <= len(stem) + PARTICLE_SUFFIX][:PARTICLE_WORDS]
        for word in found:
            if word not in lexemes and factor > out.added.get(word, 0.0):
                out.added[word] = factor
                out.reasons[word] = f"the particle verb {stem}"


def _spelling(lexemes: dict[str, float], unknown: frozenset[str], vocab: Vocabulary, out: Bridged, text: str) -> None:
    factor = settings.RETRIEVAL_SPELLING_WEIGHT
    found = {lexeme: meant for lexeme in sorted(unknown - out.dropped)
             if (meant := correction(lexeme, vocab.spelling)) is not None and meant.lexeme not in lexemes}
    # The question's words written as names, whose slips may become one; read only when a word would be corrected.
    written_names = names_written(text) if found else []
    # A word written in lower case is an everyday word: its slip becomes a word, never a name. Read only when such a
    # word would be corrected (rare). The stemmer only cuts endings, so a word begins with its lexeme.
    everyday = {lexeme: meant for lexeme, meant in found.items()
                if not meant.marks_only and not any(word.startswith(lexeme) for word in written_names)}
    names = statute_names(sorted({meant.lexeme for meant in everyday.values()}))
    for lexeme, meant in found.items():
        if lexeme in everyday and meant.lexeme in names:
            continue
        out.corrections[lexeme] = meant.lexeme
        if meant.marks_only:
            out.unmarked.add(lexeme)
        if factor > out.added.get(meant.lexeme, 0.0):
            out.added[meant.lexeme] = factor
            out.reasons[meant.lexeme] = f"{lexeme} " + ("without its marks" if meant.marks_only else "one slip from it")


def _synonyms(lexemes: dict[str, float], unknown: frozenset[str], vocab: Vocabulary, out: Bridged) -> None:
    factor = settings.RETRIEVAL_BRIDGE_WEIGHT * SYNONYM_SHARE
    for lexeme in sorted(set(lexemes) | unknown):
        if lexeme in out.dropped:
            continue
        for synonym in vocab.synonyms.get(lexeme, ()):
            if synonym not in lexemes and factor > out.added.get(synonym, 0.0):
                out.added[synonym] = factor
                out.reasons[synonym] = f"a synonym of {lexeme}"


def _definition_terms(lexemes: dict[str, float], vocab: Vocabulary, out: Bridged) -> None:
    total = sum(w for lx, w in lexemes.items() if lx not in out.dropped)
    if total <= 0:
        return
    shares: dict[int, float] = defaultdict(float)
    matched: dict[int, list[int]] = defaultdict(list)  # definition -> how many definitions each matched word is in
    for lexeme, weight in lexemes.items():
        if lexeme in out.dropped:
            continue
        found = vocab.by_body_lexeme.get(lexeme, ())
        for index in found:
            shares[index] += weight / total
            matched[index].append(len(found))
    # One word in common says which term is meant only when few explanations use it: "barn" is in dozens.
    best = sorted(((share, index) for index, share in shares.items() if share >= DEFINITION_MIN_SHARE
                   and (len(matched[index]) >= 2 or matched[index][0] <= DEFINITION_SINGLE_WORD_DF)),
                  reverse=True)[:DEFINITION_MAX_TERMS]
    for share, index in best:
        term, _ = vocab.definitions[index]
        if all(lx in lexemes for lx in term):
            continue  # the question already says the term
        for lexeme in term:
            if lexeme in lexemes:
                continue
            factor = settings.RETRIEVAL_BRIDGE_WEIGHT * min(1.0, share)
            if factor > out.added.get(lexeme, 0.0):
                out.added[lexeme] = factor
                out.reasons[lexeme] = "defined by a statute in the question's words"


def compound_candidates(stems: list[str]) -> list[str]:
    """Words two of the question's stems would make as a compound: modifier + head, with and without a
    linking s ("uppsägning" + "tid" -> "uppsägningtid", "uppsägningstid")."""
    words = [s for s in dict.fromkeys(stems) if len(s) >= 3 and s.isalpha()]
    out = []
    for head in words:
        for modifier in words:
            if head == modifier:
                continue
            out.append(modifier + head)
            if not modifier.endswith("s"):
                out.append(modifier + "s" + head)
    return out


def idf_of(df: int, n_docs: int) -> float:
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
