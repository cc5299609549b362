"""The company profile speaks where the laglista has not: the documents a workspace's profile suggests
(data/register/rules.toml) that nobody has decided on are weighed as on its laglista, and before the rest while it
has none (register.suggestions.
profile_prior_documents, agent/retrieval/hybrid.py, docs/retrieval.md "The company profile weighs the sources").

Our own example, not from any question set: a holiday act for every employer, filed under the number of the
semesterlagen, which the rules suggest to any employer, and an act for one trade that repeats the question's words."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from agent.retrieval.chunk_queries import RetrievalOptions
from agent.retrieval.hybrid import retrieve_context
from compliance.models import LegalDocument, Workspace, WorkspaceProfile
from compliance.services import profile_update
from register.models import RegisterItem, SuggestionDecision
from register.services import register_item_remove, suggestion_accept, suggestion_reject, suggestion_restore
from register.suggestions import profile_prior_documents
from tests.agent.test_register_prior import GENERAL as LISTED_GENERAL
from tests.agent.test_register_prior import (
    NAMING_OTHER,
    QUESTION,
    SPECIAL,
    knowledge_version,
    laglista,
    other_workspace,
)
from tests.chunks.test_statute_book_search import OTHERS, add_statute

pytestmark = pytest.mark.django_db

# The laglista tests' general act, filed under the semesterlagen's number so that the rules suggest it, and an act
# on working time under the arbetstidslagen's, which the rules suggest to every employer too.
GENERAL = ("1977:480", "Semesterlag (1977:480)", *LISTED_GENERAL[2:])
WORKING_TIME = ("1982:673", "Arbetstidslag (1982:673)", LegalDocument.ContentType.SFS_LAW,
                "5 § Den ordinarie arbetstiden får uppgå till högst 40 timmar i veckan.")


@pytest.fixture
def acts() -> dict[str, LegalDocument]:
    return {number: add_statute(number, title, content_type, text, embed=True)
            for number, title, content_type, text in (GENERAL, SPECIAL, WORKING_TIME, *OTHERS)}


OURS = [number for number, *_ in (GENERAL, SPECIAL, WORKING_TIME, *OTHERS)]
BY_PROFILE = {"1977:480", "1982:673"}  # the two of ours an employer's profile suggests


def ranked(question: str, member: tuple[User, Workspace], mode: str) -> dict[str, float]:
    """{document number: its best score} among our own acts, in rank order. The agent tests' package corpus
    (arbetsmiljölagen and LAS, committed once for the package) is suggested to every employer too, and may be in
    the database when these tests run: the search is kept to our acts, whose weights are what is asserted."""
    user, ws = member
    result = retrieve_context(question, ws, user=user,
                              options=RetrievalOptions(mode=mode, min_relevance=0, sfs_numbers=OURS))
    scores: dict[str, float] = {}
    for chunk in result.chunks:
        scores.setdefault(chunk.document_number, chunk.score)
    return scores


def suggested(ws: Workspace) -> set[str]:
    """Which of our acts the workspace's profile has the register prior weigh as on its laglista."""
    ids = set(profile_prior_documents(ws.pk))
    return {number for number, pk in LegalDocument.objects.filter(sfs_number__in=OURS).values_list("sfs_number", "pk")
            if pk in ids}


def employer(member: tuple[User, Workspace], employees: int = 12) -> None:
    user, ws = member
    profile_update(workspace=ws, user=user, values={"employee_count": employees})


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_document_the_profile_does_not_suggest_is_weighed_after_one_it_does(member: tuple[User, Workspace],
                                                                             settings: Settings,
                                                                             acts: dict[str, LegalDocument],
                                                                             mode: str) -> None:
    settings.RETRIEVAL_PROFILE_PRIOR = 0.8
    plain = ranked(QUESTION, member, mode)
    assert set(list(plain)[:2]) == {"1977:480", "2090:21"}

    employer(member)
    primed = ranked(QUESTION, member, mode)
    assert suggested(member[1]) == BY_PROFILE
    # The suggested acts keep their scores; every other document has its multiplied by the prior ...
    assert all(primed[n] == pytest.approx(plain[n]) for n in plain if n in BY_PROFILE)
    assert all(primed[n] == pytest.approx(0.8 * plain[n]) for n in plain if n not in BY_PROFILE)
    # ... so the employer's general act comes first, and the trade's act still ranks (evidence, not a fence).
    assert list(primed)[0] == "1977:480"
    assert "2090:21" in primed

    settings.RETRIEVAL_PROFILE_PRIOR = 1.0  # the setting turns it off
    assert ranked(QUESTION, member, mode) == pytest.approx(plain)


def test_a_profile_that_suggests_nothing_changes_nothing(member: tuple[User, Workspace], settings: Settings,
                                                         acts: dict[str, LegalDocument]) -> None:
    settings.RETRIEVAL_PROFILE_PRIOR = 0.8
    user, ws = member
    plain = ranked(QUESTION, member, "hybrid")
    # No employees, and a field no rule reads: no rule holds, so nothing is weighed.
    profile_update(workspace=ws, user=user, values={"employee_count": 0, "location": "Göteborg"})
    assert profile_prior_documents(ws.pk) == ()
    assert ranked(QUESTION, member, "hybrid") == pytest.approx(plain)


def test_a_suggestion_turned_down_is_not_weighed_as_suggested(member: tuple[User, Workspace], settings: Settings,
                                                              acts: dict[str, LegalDocument]) -> None:
    settings.RETRIEVAL_PROFILE_PRIOR = 0.8
    user, ws = member
    plain = ranked(QUESTION, member, "hybrid")
    employer(member)
    assert suggested(ws) == BY_PROFILE

    decision = suggestion_reject(workspace=ws, user=user, number="1977:480")
    # Turned down, the general act is weighed like any document the profile does not suggest.
    assert suggested(ws) == {"1982:673"}
    primed = ranked(QUESTION, member, "hybrid")
    assert all(primed[n] == pytest.approx(0.8 * plain[n]) for n in plain if n != "1982:673")

    suggestion_restore(workspace=ws, user=user, decision=decision)
    assert suggested(ws) == BY_PROFILE
    assert ranked(QUESTION, member, "hybrid")["1977:480"] == pytest.approx(plain["1977:480"])


def test_the_undecided_suggestions_count_beside_the_laglista(member: tuple[User, Workspace], settings: Settings,
                                                              acts: dict[str, LegalDocument]) -> None:
    """A team part way through the suggestions has not turned the rest down: they still weigh as on its laglista.
    A suggestion decided is weighed by the laglista alone: accepted it is on it, taken off it again it is not."""
    settings.RETRIEVAL_PROFILE_PRIOR = 0.8
    settings.RETRIEVAL_REGISTER_PRIOR = 0.7
    user, ws = member
    plain = ranked(QUESTION, member, "hybrid")
    employer(member)
    register = laglista(member, acts["2090:21"])  # the trade's act, which no rule suggests
    assert suggested(ws) == BY_PROFILE
    primed = ranked(QUESTION, member, "hybrid")
    assert all(primed[n] == pytest.approx(plain[n]) for n in plain if n in {"2090:21", *BY_PROFILE})
    # Beside a laglista, the rest is weighed by the laglista's factor.
    assert all(primed[n] == pytest.approx(0.7 * plain[n]) for n in plain if n not in {"2090:21", *BY_PROFILE})

    suggestion_accept(workspace=ws, user=user, number="1977:480", register=register)
    assert suggested(ws) == {"1982:673"}
    assert ranked(QUESTION, member, "hybrid") == pytest.approx(primed)

    register_item_remove(item=RegisterItem.objects.get(legal_document=acts["1977:480"]), user=user)
    assert ranked(QUESTION, member, "hybrid")["1977:480"] == pytest.approx(0.7 * plain["1977:480"])


def test_it_checks_ownership(member: tuple[User, Workspace], settings: Settings,
                             acts: dict[str, LegalDocument]) -> None:
    """Another workspace's profile never weighs this workspace's sources, even when the question names that
    workspace and its files are searched too."""
    settings.RETRIEVAL_PROFILE_PRIOR = 0.8
    user, _ = member
    other = other_workspace(member)
    plain, plain_naming = ranked(QUESTION, member, "hybrid"), ranked(NAMING_OTHER, member, "hybrid")
    employer((user, other))
    assert suggested(other) == BY_PROFILE
    assert ranked(QUESTION, member, "hybrid") == pytest.approx(plain)
    assert ranked(NAMING_OTHER, member, "hybrid") == pytest.approx(plain_naming)


def test_a_change_of_what_the_profile_suggests_outdates_cached_answers(member: tuple[User, Workspace],
                                                                       acts: dict[str, LegalDocument]) -> None:
    """Retrieval's cache keys on knowledge_version: every change of the fields the rules read, and every decision
    on a suggestion, bumps it, whatever code path made it; a field no rule reads does not."""
    user, ws = member
    start = knowledge_version(ws)
    employer(member)
    after_profile = knowledge_version(ws)
    assert after_profile > start

    profile_update(workspace=ws, user=user, values={"location": "Malmö"})
    assert knowledge_version(ws) == after_profile

    WorkspaceProfile.objects.filter(workspace=ws).update(sni_code="56100")  # around the services
    after_sni = knowledge_version(ws)
    assert after_sni > after_profile

    decision = suggestion_reject(workspace=ws, user=user, number="1977:480")
    after_reject = knowledge_version(ws)
    assert after_reject > after_sni

    SuggestionDecision.objects.filter(pk=decision.pk).update(reason="Ny motivering")
    assert knowledge_version(ws) == after_reject

    suggestion_restore(workspace=ws, user=user, decision=decision)
    assert knowledge_version(ws) > after_reject
