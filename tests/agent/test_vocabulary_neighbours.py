"""Query expansion from the statutes' vocabulary and its embedding neighbours (agent.retrieval.vocabulary_neighbours).

The vocabulary is built by the real command from arbetsmiljölagen and LAS with the real model; the examples are
our own, from LAS's words ("särskild visstidsanställning", 5 §), never from an evaluation set.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from pytest_django import DjangoDbBlocker, Settings

from agent.retrieval import vocabulary_neighbours
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.keyword_search import keyword_query
from agent.retrieval.warmup import warm_up
from compliance.models import LegalDocument, Membership, Workspace
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

# Words at least this many chunks of the two statutes use: ~400 terms, so the build takes seconds, not minutes.
MIN_DF = 5
QUESTION = "Vad gäller för den som är visstidsanställd?"  # LAS writes "visstidsanställning", never this word


@pytest.fixture(scope="module")
def term_file(statutes: list[LegalDocument], django_db_blocker: DjangoDbBlocker,
              tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("terms") / "terms.npz"
    with django_db_blocker.unblock():
        call_command("build_term_vectors", min_df=MIN_DF, out=str(path), json=True)
    return path


@pytest.fixture
def expanding(loaded: list[LegalDocument], term_file: Path, settings: Settings) -> Iterator[None]:
    settings.RETRIEVAL_NEIGHBOURS = True
    settings.RETRIEVAL_NEIGHBOURS_PATH = str(term_file)
    vocabulary_neighbours.forget()
    yield
    vocabulary_neighbours.forget()


def _lexeme(word: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT lexeme FROM unnest(to_tsvector('swedish', %s))", [word])
        return cursor.fetchone()[0]


def test_the_vocabulary_is_the_statutes_words_in_their_most_used_form(loaded: list[LegalDocument],
                                                                      term_file: Path) -> None:
    vocab = vocabulary_neighbours.load(term_file)
    row = vocab.row_of[_lexeme("arbetstagare")]
    assert vocab.words[row] in ("arbetstagare", "arbetstagaren")  # a word the statutes write, not the stem
    assert _lexeme(vocab.words[row]) == vocab.lexemes[row]
    assert "visstidsanställd" not in vocab.words  # no statute uses it
    terms = {t.lexeme: t.df for t in vocabulary_neighbours.corpus_terms(MIN_DF)}
    assert set(vocab.lexemes) == set(terms) and min(terms.values()) >= MIN_DF
    assert abs(float((vocab.vectors[row] ** 2).sum()) - 1.0) < 1e-3  # unit rows after the int8 round trip


def test_a_practice_word_brings_the_statute_word_next_to_it(expanding: None, settings: Settings) -> None:
    found = vocabulary_neighbours.neighbours(QUESTION, set())
    assert _lexeme("visstidsanställning") in found.added
    assert found.embedded == 1  # the one word the vocabulary lacks; "gäller" is the statutes' own
    assert _lexeme("arbetstagare") not in found.added  # a related word, but not close enough to be the same thing
    assert len(found.added) <= settings.RETRIEVAL_NEIGHBOURS_MAX_TERMS
    settings.RETRIEVAL_NEIGHBOURS_MIN_COSINE = 0.995
    assert vocabulary_neighbours.neighbours(QUESTION, set()).added == {}


def test_a_word_the_statutes_use_often_is_not_expanded(expanding: None) -> None:
    # "arbetstagaren" is in more than a hundred of the two statutes' chunks: it finds its own sections.
    assert vocabulary_neighbours.neighbours("Vad gäller för arbetstagaren?", set()).added == {}


def test_the_keyword_half_finds_the_section_through_the_neighbour(expanding: None, settings: Settings) -> None:
    user = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=user, workspace=ws, role="owner")
    options = RetrievalOptions(mode="keyword", use_references=False, top_k=5, min_relevance=0)

    def writing_it() -> list[bool]:
        chunks = retrieve_context(QUESTION, ws, user=user, options=options).chunks
        return [c.document_number == "1982:80" and "visstidsanställning" in c.text.lower() for c in chunks]

    target = _lexeme("visstidsanställning")
    assert target in keyword_query(QUESTION, [ws.id]).terms
    on = writing_it()
    assert on[:3] == [True, True, True]  # LAS's §§ on särskild visstidsanställning lead
    settings.RETRIEVAL_NEIGHBOURS = False
    assert target not in keyword_query(QUESTION, [ws.id]).terms
    assert sum(writing_it()) < sum(on)


def test_a_process_reads_the_file_before_its_first_question_when_on(expanding: None, term_file: Path) -> None:
    assert "term vectors" in warm_up()
    assert vocabulary_neighbours._loaded[str(term_file)] is not None


def test_the_question_vector_way_adds_terms_as_close_as_its_own(expanding: None, settings: Settings) -> None:
    settings.RETRIEVAL_NEIGHBOURS_FROM = "question"
    present = {_lexeme("gäller")}
    found = vocabulary_neighbours.neighbours(QUESTION, present)
    assert _lexeme("visstidsanställning") in found.added
    assert len(found.added) <= settings.RETRIEVAL_NEIGHBOURS_MAX_TERMS and not present & set(found.added)
    assert vocabulary_neighbours.neighbours(QUESTION, set()).added == {}  # no own term to measure closeness by
