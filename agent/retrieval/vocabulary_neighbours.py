"""Query expansion from the statutes' vocabulary and its embedding neighbours (docs/retrieval.md, "Neighbours
in the vocabulary").

A question in the words of practice ("visselblåsare") shares no word with the statute that answers it
("rapporterande person"); the keyword half then finds nothing. The vector half sees the whole question, where one
such word is a small part. Here each word of the question the statutes do not use (or use rarely) is embedded on
its own and compared with every index term of the statutes (a word at least `MIN_DF` statute chunks use, embedded
once by `manage.py build_term_vectors` into an int8 file); the terms closest to it by cosine join the keyword
query as optional terms, at the bridges' weight (agent.retrieval.bridges), bounded by a cosine floor and a number
of terms. Only a term of the statutes can be added, and keyword_search adds it only when the loaded corpus has it.

A question word that is itself an index term reuses its stored vector; the others (the practice words) are
embedded in one batched call, the way the vocabulary was: one word with the passage prefix on both sides, so the
comparison is symmetric (word to word), not question to passage.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from cachetools import LRUCache
from django.conf import settings

from chunks.embedding import EmbeddingError, active_model_name, get_provider
from chunks.selectors import STATUTE_CHUNKS_SQL
from compliance.sql import dict_cursor

log = logging.getLogger(__name__)

# An index term is a word at least this many statute chunks use: a one-off (a name, a misprint) is no bridge.
MIN_DF = 2
# Words shorter than this are not embedded (abbreviations of a letter or two have too many senses).
MIN_WORD_CHARS = 3
_WORD = re.compile(r"[^\W\d_]+")
FILE_FORMAT = 1


@dataclass
class TermVectors:
    """The statutes' index terms: lexeme (as the keyword index writes it), the word embedded for it (its
    most used form in the statutes), and the unit vectors, one row per term."""
    lexemes: list[str]
    words: list[str]
    vectors: np.ndarray  # float32, (n, dim), unit length
    model: str
    row_of: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.row_of:
            self.row_of = {lexeme: i for i, lexeme in enumerate(self.lexemes)}


@dataclass
class Neighboured:
    """What the neighbours add to one question's keyword query."""
    added: dict[str, float] = field(default_factory=dict)  # lexeme -> weight factor (times its idf)
    reasons: dict[str, str] = field(default_factory=dict)  # lexeme -> the question word and the cosine
    embedded: int = 0  # question words embedded now (not in the vocabulary's file)


@dataclass(frozen=True)
class QuestionWord:
    word: str
    lexeme: str
    df: int  # statute chunks using the lexeme


@dataclass(frozen=True)
class CorpusTerm:
    lexeme: str
    word: str
    df: int


def default_path() -> Path:
    """data/sfs/terms-<model>.npz, or RETRIEVAL_NEIGHBOURS_PATH."""
    if settings.RETRIEVAL_NEIGHBOURS_PATH:
        return Path(settings.RETRIEVAL_NEIGHBOURS_PATH)
    return Path(settings.SFS_CORPUS_PATH).parent / f"terms-{active_model_name()}.npz"


def corpus_terms(min_df: int = MIN_DF) -> list[CorpusTerm]:
    """Every lexeme at least `min_df` statute chunks use, with the word form the statutes use most for it.

    The lexeme is what the keyword index stores (the `swedish` configuration's stem, "uppsägningstid" ->
    "uppsägningstid", "arbetsgivare" -> "arbetsgivar"); a stem is no word to embed, so the form embedded is
    the most frequent word of the statutes' text that stems to it."""
    counts: Counter[str] = Counter()
    with dict_cursor() as cursor:
        cursor.execute(f"SELECT c.header || ' ' || c.text AS text FROM chunks_contentchunk c "
                       f"WHERE {STATUTE_CHUNKS_SQL}")
        for row in cursor:
            counts.update(w for w in _WORD.findall(row["text"].lower()) if len(w) >= MIN_WORD_CHARS)
        forms = sorted(counts)
        cursor.execute("""
            SELECT w AS word, v.lexeme, ts.df
            FROM unnest(%s::text[]) AS w, unnest(to_tsvector('swedish', w)) AS v
            JOIN chunks_termstat ts ON ts.lexeme = v.lexeme AND ts.df >= %s""", [forms, min_df])
        rows = cursor.fetchall()
    best: dict[str, tuple[int, str, int]] = {}
    for row in rows:
        word, lexeme, df = row["word"], row["lexeme"], row["df"]
        if lexeme not in best or counts[word] > best[lexeme][0] or (
                counts[word] == best[lexeme][0] and word < best[lexeme][1]):
            best[lexeme] = (counts[word], word, df)
    return [CorpusTerm(lexeme, word, df) for lexeme, (_, word, df) in sorted(best.items())]


def quantise(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows and their scales (float16): a unit vector's cosine survives to about 1e-3."""
    scales = np.maximum(np.abs(vectors).max(axis=1), 1e-12) / 127.0
    return np.round(vectors / scales[:, None]).astype(np.int8), scales.astype(np.float16)


def save(path: Path, terms: list[CorpusTerm], vectors: np.ndarray, *, model: str) -> None:
    q, scales = quantise(vectors)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, format=np.array(FILE_FORMAT), model=np.array(model),
                        lexemes=np.array([t.lexeme for t in terms]), words=np.array([t.word for t in terms]),
                        vectors=q, scales=scales)
    tmp.replace(path)


def load(path: Path) -> TermVectors:
    with np.load(path, allow_pickle=False) as data:
        if int(data["format"]) != FILE_FORMAT:
            raise ValueError(f"{path}: format {int(data['format'])}, expected {FILE_FORMAT}")
        vectors = data["vectors"].astype(np.float32) * data["scales"].astype(np.float32)[:, None]
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return TermVectors(lexemes=data["lexemes"].tolist(), words=data["words"].tolist(), vectors=vectors,
                           model=str(data["model"]))


_lock = threading.Lock()
_loaded: dict[str, TermVectors | None] = {}
# Practice words embedded at question time, per process: the same few words come back in many questions.
_word_vectors: LRUCache = LRUCache(maxsize=4096)
_word_lock = threading.Lock()


def term_vectors() -> TermVectors | None:
    """The vocabulary's vectors, read once per process; None when the file is missing or of another model
    (the neighbours are then off: keyword search works as without them)."""
    path = default_path()
    key = str(path)
    if key in _loaded:
        return _loaded[key]
    with _lock:
        if key not in _loaded:
            found = None
            try:
                found = load(path)
                if found.model != active_model_name():
                    log.warning("%s holds %s vectors, the active model is %s: neighbours off",
                                path, found.model, active_model_name())
                    found = None
            except (OSError, ValueError, KeyError) as exc:
                log.warning("term vectors unavailable (%s): neighbours off", exc)
            _loaded[key] = found
        return _loaded[key]


def forget() -> None:
    """Drop the loaded file and the embedded words (a test that writes a file of its own)."""
    with _lock:
        _loaded.clear()
    with _word_lock:
        _word_vectors.clear()


def question_words(text: str) -> list[QuestionWord]:
    """The question's words with their lexeme and how many statute chunks use it (0: none)."""
    words = sorted({w for w in _WORD.findall(text.lower()) if len(w) >= MIN_WORD_CHARS})
    if not words:
        return []
    with dict_cursor() as cursor:
        cursor.execute("""
            SELECT w AS word, v.lexeme, coalesce(ts.df, 0) AS df
            FROM unnest(%s::text[]) AS w, unnest(to_tsvector('swedish', w)) AS v
            LEFT JOIN chunks_termstat ts ON ts.lexeme = v.lexeme""", [words])
        return [QuestionWord(row["word"], row["lexeme"], row["df"]) for row in cursor.fetchall()]


def _vectors_of(words: list[QuestionWord], vocab: TermVectors, out: Neighboured) -> np.ndarray | None:
    """One unit vector per word: the stored one for an index term, else embedded (one call for all)."""
    missing = []
    with _word_lock:
        for w in words:
            if w.lexeme not in vocab.row_of and w.word not in _word_vectors:
                missing.append(w.word)
    if missing:
        try:
            fresh = get_provider().embed_passages(missing)
        except (EmbeddingError, OSError, RuntimeError, ValueError) as exc:
            log.warning("word embedding failed, no neighbours: %s", exc)
            return None
        out.embedded = len(missing)
        with _word_lock:
            for word, vector in zip(missing, fresh):
                _word_vectors[word] = vector / max(float(np.linalg.norm(vector)), 1e-12)
    rows = []
    with _word_lock:
        for w in words:
            row = vocab.row_of.get(w.lexeme)
            found = vocab.vectors[row] if row is not None else _word_vectors.get(w.word)
            if found is None:  # evicted by another thread in between: rare, and only this word is lost
                found = np.zeros(vocab.vectors.shape[1], dtype=np.float32)
            rows.append(found)
    return np.vstack(rows).astype(np.float32)


def neighbours(text: str, present: set[str], vocab: TermVectors | None = None) -> Neighboured:
    """The index terms close to the question's rare words. `present`: lexemes the query has already."""
    out = Neighboured()
    vocab = vocab if vocab is not None else term_vectors()
    if vocab is None or settings.RETRIEVAL_NEIGHBOURS_MAX_TERMS <= 0:
        return out
    if settings.RETRIEVAL_NEIGHBOURS_FROM == "question":
        return _question_neighbours(text, present, vocab, out)
    # A word the statutes use often finds its own §§; its neighbours would only dilute it.
    words = [w for w in question_words(text) if w.df <= settings.RETRIEVAL_NEIGHBOURS_MAX_DF]
    if not words:
        return out
    vectors = _vectors_of(words, vocab, out)
    if vectors is None:
        return out
    cosines = vectors @ vocab.vectors.T  # (words, terms)
    floor = settings.RETRIEVAL_NEIGHBOURS_MIN_COSINE
    best: dict[str, tuple[float, str]] = {}
    for i, w in enumerate(words):
        row = cosines[i]
        # The closest candidates only: more than the cap per word is never needed.
        top = np.argpartition(-row, min(len(row) - 1, 4 * settings.RETRIEVAL_NEIGHBOURS_MAX_TERMS))
        for j in top[:4 * settings.RETRIEVAL_NEIGHBOURS_MAX_TERMS + 1]:
            lexeme, cosine = vocab.lexemes[j], float(row[j])
            if cosine < floor or lexeme == w.lexeme or lexeme in present:
                continue
            if lexeme not in best or cosine > best[lexeme][0]:
                best[lexeme] = (cosine, w.word)
    chosen = sorted(best.items(), key=lambda item: (-item[1][0], item[0]))[:settings.RETRIEVAL_NEIGHBOURS_MAX_TERMS]
    for lexeme, (cosine, word) in chosen:
        out.added[lexeme] = settings.RETRIEVAL_BRIDGE_WEIGHT
        out.reasons[lexeme] = f"a neighbour of {word} ({cosine:.3f})"
    return out


def _question_neighbours(text: str, present: set[str], vocab: TermVectors, out: Neighboured) -> Neighboured:
    """The other way measured: the whole question's query vector against the terms. A term joins when the
    model puts it at least as close to the question as the question's own index terms are on average."""
    own = [vocab.row_of[lexeme] for lexeme in present if lexeme in vocab.row_of]
    if not own:
        return out
    try:
        qvec = get_provider().embed_query(text)
    except (EmbeddingError, OSError, RuntimeError, ValueError) as exc:
        log.warning("question embedding failed, no neighbours: %s", exc)
        return out
    qvec = qvec / max(float(np.linalg.norm(qvec)), 1e-12)
    cosines = vocab.vectors @ qvec
    floor = float(cosines[own].mean())
    cap = settings.RETRIEVAL_NEIGHBOURS_MAX_TERMS
    top = np.argpartition(-cosines, min(len(cosines) - 1, cap + len(own)))[:cap + len(own) + 1]
    chosen = sorted(((float(cosines[j]), vocab.lexemes[j]) for j in top
                     if vocab.lexemes[j] not in present and cosines[j] >= floor), reverse=True)[:cap]
    for cosine, lexeme in chosen:
        out.added[lexeme] = settings.RETRIEVAL_BRIDGE_WEIGHT
        out.reasons[lexeme] = f"a neighbour of the question ({cosine:.3f} >= {floor:.3f})"
    return out
