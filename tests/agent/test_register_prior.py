"""The register prior: a workspace's laglista names the documents that apply to it, so a document not on it is
weighed after those on it (agent/retrieval/hybrid.py, docs/retrieval.md "The laglista weighs the sources").

Our own example, not from any question set: the general act on holidays for every employer, and an act for one
trade that repeats the words of a question about holidays (it wins on words and meaning alone)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django import Settings

from compliance.models import LegalDocument, Membership, Workspace
from register.models import ComplianceStatus, LegalRegister, RegisterItem
from register.services import register_create, register_item_add, register_item_remove, register_item_update
from tests.chunks.test_statute_book_search import OTHERS, add_statute, ranked

pytestmark = pytest.mark.django_db

GENERAL = ("2090:20", "Lag (2090:20) om semester", LegalDocument.ContentType.SFS_LAW,
           "1 § En arbetstagare har rätt till semesterledighet om tjugofem dagar varje semesterår.")
SPECIAL = ("2090:21", "Lag (2090:21) om semester för hundförare", LegalDocument.ContentType.SFS_LAW,
           "1 § En hundförare har rätt till semester om tjugo dagar. Dagar av semester läggs ut så att tillsynen över "
           "hundarna inte hindras.")
QUESTION = "Hur många dagar semester har man rätt till?"


@pytest.fixture
def acts() -> dict[str, LegalDocument]:
    return {number: add_statute(number, title, content_type, text, embed=True)
            for number, title, content_type, text in (GENERAL, SPECIAL, *OTHERS)}


def laglista(member: tuple[User, Workspace], *documents: LegalDocument) -> LegalRegister:
    user, ws = member
    register = register_create(workspace=ws, user=user, name="Laglista")
    for document in documents:
        register_item_add(register=register, user=user, legal_document=document)
    return register


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_document_off_the_laglista_is_weighed_after_one_on_it(member: tuple[User, Workspace], settings: Settings,
                                                                acts: dict[str, LegalDocument], mode: str) -> None:
    settings.RETRIEVAL_REGISTER_PRIOR = 0.8
    plain = ranked(QUESTION, member, mode)
    # Without a laglista the two holiday acts lead, within the prior of each other (which one leads differs by mode).
    first, second = list(plain)[:2]
    assert {first, second} == {"2090:20", "2090:21"}
    assert plain[second] > 0.8 * plain[first]

    laglista(member, acts[second])
    primed = ranked(QUESTION, member, mode)
    # Every document off the list has its score multiplied by the prior; the one on it keeps its score ...
    assert primed[second] == pytest.approx(plain[second])
    assert all(primed[n] == pytest.approx(0.8 * plain[n]) for n in plain if n != second)
    # ... which puts the act on the laglista first; the other is still next (evidence, not a fence).
    assert list(primed)[:2] == [second, first]

    settings.RETRIEVAL_REGISTER_PRIOR = 1.0  # the setting turns it off
    assert ranked(QUESTION, member, mode) == pytest.approx(plain)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_question_naming_an_act_off_the_laglista_still_gets_it_first(member: tuple[User, Workspace],
                                                                      settings: Settings,
                                                                      acts: dict[str, LegalDocument], mode: str) -> None:
    settings.RETRIEVAL_REGISTER_PRIOR = 0.5  # far stronger than the default, so the named act's prior is what wins
    laglista(member, acts["2090:20"])
    assert list(ranked(QUESTION, member, mode))[0] == "2090:20"
    assert list(ranked("Hur många dagar semester ger lag (2090:21)?", member, mode))[0] == "2090:21"


def test_a_laglista_without_a_document_changes_nothing(member: tuple[User, Workspace], settings: Settings,
                                                       acts: dict[str, LegalDocument]) -> None:
    settings.RETRIEVAL_REGISTER_PRIOR = 0.8
    plain = ranked(QUESTION, member, "hybrid")
    register = laglista(member)
    user, _ = member
    # The workspace's own requirement, resting on no loaded document, says nothing about which statutes apply.
    register_item_add(register=register, user=user, legal_document=None, title="Vår semesterpolicy")
    assert ranked(QUESTION, member, "hybrid") == pytest.approx(plain)


def test_a_document_marked_not_applicable_is_not_on_the_laglista(member: tuple[User, Workspace], settings: Settings,
                                                                 acts: dict[str, LegalDocument]) -> None:
    settings.RETRIEVAL_REGISTER_PRIOR = 0.8
    plain = ranked(QUESTION, member, "hybrid")
    user, _ = member
    laglista(member, acts["2090:20"], acts["2090:21"])
    both = ranked(QUESTION, member, "hybrid")
    assert {n: both[n] for n in ("2090:20", "2090:21")} == pytest.approx({n: plain[n] for n in ("2090:20", "2090:21")})

    item = RegisterItem.objects.get(legal_document=acts["2090:21"])
    register_item_update(item=item, user=user, data={"status": ComplianceStatus.NOT_APPLICABLE})
    primed = ranked(QUESTION, member, "hybrid")
    assert primed["2090:21"] == pytest.approx(0.8 * plain["2090:21"])
    assert primed["2090:20"] == pytest.approx(plain["2090:20"])


# The question asked again naming the member's other workspace, whose files it then searches too.
NAMING_OTHER = f"{QUESTION} Gäller det hos Hundgården AB?"


def other_workspace(member: tuple[User, Workspace]) -> Workspace:
    """Another workspace of the same member: the one NAMING_OTHER names."""
    user, _ = member
    other = Workspace.objects.create(name="Hundgården AB", slug="hundgarden-ab")
    Membership.objects.create(user=user, workspace=other, role="owner")
    return other


def test_it_checks_ownership(member: tuple[User, Workspace], settings: Settings,
                             acts: dict[str, LegalDocument]) -> None:
    """Another workspace's laglista never weighs this workspace's sources, even when the question names that
    workspace and its files are searched too: the rules that apply are the asking workspace's."""
    settings.RETRIEVAL_REGISTER_PRIOR = 0.8
    user, _ = member
    other = other_workspace(member)
    plain, plain_naming = ranked(QUESTION, member, "hybrid"), ranked(NAMING_OTHER, member, "hybrid")
    second = list(plain)[1]  # the act the other laglista would put first, were it this workspace's
    laglista((user, other), acts[second])
    assert ranked(QUESTION, member, "hybrid") == pytest.approx(plain)
    assert ranked(NAMING_OTHER, member, "hybrid") == pytest.approx(plain_naming)


def knowledge_version(ws: Workspace) -> int:
    ws.refresh_from_db(fields=["knowledge_version"])
    return ws.knowledge_version


def test_a_change_of_what_the_laglista_holds_outdates_cached_answers(member: tuple[User, Workspace],
                                                                     acts: dict[str, LegalDocument]) -> None:
    """Retrieval's cache keys on knowledge_version, so every change of which documents apply bumps it, whatever
    code path made it; a change retrieval does not read (a status between two others, a note) does not."""
    user, ws = member
    start = knowledge_version(ws)
    register = laglista(member, acts["2090:20"])
    after_add = knowledge_version(ws)
    assert after_add > start

    item = RegisterItem.objects.get(legal_document=acts["2090:20"])
    register_item_update(item=item, user=user, data={"status": ComplianceStatus.COMPLIANT,
                                                     "how_we_comply": "Semesterplan varje vår."})
    assert knowledge_version(ws) == after_add

    register_item_update(item=item, user=user, data={"status": ComplianceStatus.NOT_APPLICABLE})
    after_not_applicable = knowledge_version(ws)
    assert after_not_applicable > after_add

    RegisterItem.objects.filter(pk=item.pk).update(legal_document=acts["2090:21"])  # around the services
    after_swap = knowledge_version(ws)
    assert after_swap > after_not_applicable

    register_item_remove(item=RegisterItem.objects.get(pk=item.pk), user=user)
    after_remove = knowledge_version(ws)
    assert after_remove > after_swap

    register_item_add(register=register, user=user, legal_document=acts["2090:21"])
    before_delete = knowledge_version(ws)
    register.delete()  # a laglista deleted with its items
    assert knowledge_version(ws) > before_delete
