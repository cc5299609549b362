"""A question naming a statute: the named statute's search runs on a connection of its own beside the general
search when the caller is outside a transaction (agent.retrieval.concurrent_search), in turn on the caller's
connection inside one. Statutes of our own from real statutes' sentences."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from pytest_django import Settings

from agent.retrieval.concurrent_search import close_side_connections
from agent.retrieval.hybrid import RetrievalOptions, RetrievalResult, retrieve_context
from compliance.models import Workspace
from law.statute_directory import statute_directory_invalidate
from tests.helpers import alice_owning_a_workspace, chunked_statute

LIFTING = "\n\n".join([
    "1 § I denna lag finns bestämmelser om lyftanordningar på arbetsplatser.",
    "2 § En lyftanordning ska besiktas innan den tas i bruk.",
    "3 § Arbetsgivaren ska föra journal över varje besiktning.",
])
BOILERS = "\n\n".join([
    "1 § I denna lag finns bestämmelser om ångpannor.",
    "2 § En ångpanna ska besiktas varje år av ett ackrediterat organ.",
    "3 § Den som besiktar ska lämna ett protokoll över besiktningen.",
])
QUESTION = "Vad säger lagen (2099:3) om besiktning?"
# The named statute's search is the one statement that limits the documents by number (chunk_queries.filter_sql).
NAMED_ONLY = "c.document_number = ANY("


@pytest.fixture
def statutes() -> Iterator[tuple[User, Workspace]]:
    chunked_statute("2099:3", "Lag (2099:3) om lyftanordningar", LIFTING)
    chunked_statute("2099:4", "Lag (2099:4) om ångpannor", BOILERS)
    statute_directory_invalidate()  # the question names 2099:3 by its number
    yield alice_owning_a_workspace()
    statute_directory_invalidate()


def _ask(user: User, ws: Workspace, question: str = QUESTION) -> tuple[RetrievalResult, int]:
    options = RetrievalOptions(mode="keyword", use_references=True, top_k=5, min_relevance=0)
    with CaptureQueriesContext(connection) as caller:
        result = retrieve_context(question, ws, user=user, options=options)
    on_callers_connection = sum(NAMED_ONLY in query["sql"] for query in caller.captured_queries)
    return result, on_callers_connection


def _ranking(result: RetrievalResult) -> list[tuple[int, float]]:
    return [(c.chunk_id, round(c.score, 9)) for c in result.chunks]


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_named_statutes_search_runs_on_another_connection(statutes: tuple[User, Workspace],
                                                                                    settings: Settings) -> None:
    user, ws = statutes
    beside, on_callers = _ask(user, ws)
    assert on_callers == 0
    assert beside.chunks[0].document_number == "2099:3"  # the named statute's hits came back and rank first

    settings.RETRIEVAL_CONCURRENT_SEARCHES = False
    in_turn, on_callers = _ask(user, ws)
    assert on_callers == 1
    assert _ranking(beside) == _ranking(in_turn)  # the same sources in the same order either way
    # Both searches gave sources: the named statute and the other one (and whatever else the database holds).
    assert {"2099:3", "2099:4"} <= {c.document_number for c in in_turn.chunks}


@pytest.mark.django_db(transaction=True)
def test_inside_a_transaction_both_run_on_the_callers_connection_and_see_its_rows(statutes: tuple[User, Workspace]) -> None:
    user, ws = statutes
    with transaction.atomic():
        # Uncommitted: another connection would not see this statute at all.
        chunked_statute("2099:5", "Lag (2099:5) om lyftbord", "1 § Ett lyftbord ska genomgå besiktning varje år.")
        statute_directory_invalidate()
        result, on_callers = _ask(user, ws, "Vad säger lagen (2099:5) om besiktning?")
        transaction.set_rollback(True)
    assert on_callers == 1
    assert result.chunks[0].document_number == "2099:5"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.django_db(transaction=True)
def test_a_side_connection_that_cannot_be_had_costs_time_not_sources(statutes: tuple[User, Workspace],
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    user, ws = statutes
    expected, _ = _ask(user, ws)
    close_side_connections()
    shared = connection.settings_dict  # every thread's connection is made from this one dict
    port = shared["PORT"]
    shared["PORT"] = str(_closed_port())  # the caller's connection is open already; a new one is refused
    try:
        result, on_callers = _ask(user, ws)
    finally:
        shared["PORT"] = port
    assert "a side search failed on its own connection" in caplog.text
    assert on_callers == 1  # run again on the caller's connection
    assert _ranking(result) == _ranking(expected)
