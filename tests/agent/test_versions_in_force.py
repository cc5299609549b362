"""A question about today's law gets the version of a § in force today: an expired version that ranks better gives
way to the current one, and one left on its own is replaced by it. A § that expired with nothing after it is a
source only when cited; a version still to come stays, labelled. A statute of our own whose days are set around
whatever day the test runs on."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User

from agent.retrieval.cache import get_retrieval_cache
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from compliance.clock import swedish_today
from chunks.models import ContentChunk
from compliance.models import LegalDocument, Membership, Workspace
from law.statute_directory import statute_directory_invalidate
from tests.helpers import chunked_statute, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.clock]

NUMBER = "2099:77"


@pytest.fixture
def zebra() -> tuple[User, Workspace, LegalDocument, str, str]:
    """Lag (2099:77) om zebrafartyg: 2 § changed some days ago (both versions in the text, as a consolidation
    made before the day holds them), 3 § ended then with nothing after it, 4 § comes into force next month."""
    get_retrieval_cache().clear()
    past, future = (swedish_today() - timedelta(days=10)).isoformat(), (swedish_today() + timedelta(days=30)).isoformat()
    text = (
        "1 § Denna lag gäller zebrafartyg.\n\n"
        f"2 § /Upphör att gälla U:{past}/ Ett zebrafartyg ska föra en lotsflagga och visa en signal.\n\n"
        f"2 § /Träder i kraft I:{past}/ Fartyget ska visa en signal.\n\n"
        f"3 § /Upphör att gälla U:{past}/ Zebrafartygets lanterna ska lysa grönt.\n\n"
        f"4 § /Träder i kraft I:{future}/ Ett zebrafartyg ska ha en nödsändare."
    )
    doc = chunked_statute(NUMBER, f"Lag ({NUMBER}) om zebrafartyg", text)
    statute_directory_invalidate()
    user = make_user("alice")
    ws = Workspace.objects.create(name="Rederiet", slug="rederiet")
    Membership.objects.create(user=user, workspace=ws, role=Membership.Role.OWNER)
    return user, ws, doc, past, future


def versions(question: str, ws: Workspace, user: User) -> dict[str, tuple[str, object]]:
    """The statute's §§ among the sources: citation → (the header's version label, the chunk it replaced)."""
    get_retrieval_cache().clear()
    result = retrieve_context(question, ws, user=user, options=RetrievalOptions(mode="keyword", top_k=10))
    found: dict[str, tuple[str, object]] = {}
    for chunk in result.chunks:
        if chunk.document_number == NUMBER:
            assert chunk.citation not in found  # one version per §
            found[chunk.citation] = (chunk.header.rsplit(" > ", 1)[-1], chunk.extra.get("replaces"))
    return found


def test_an_expired_version_left_on_its_own_is_replaced_by_the_section_in_force(
        zebra: tuple[User, Workspace, LegalDocument, str, str]) -> None:
    user, ws, doc, past, _ = zebra
    expired = ContentChunk.objects.get(legal_document=doc, citation="2 §", header__contains="upphör att gälla")
    # "lotsflagga" is a word of the expired text only: the current 2 § does not rank at all on it.
    assert versions("Behövs lotsflagga?", ws, user)["2 §"] == (
        f"2 § (träder i kraft {past})", expired.pk)


def test_of_two_versions_among_the_sources_the_one_in_force_is_kept(
        zebra: tuple[User, Workspace, LegalDocument, str, str]) -> None:
    user, ws, _, past, _ = zebra
    # Both versions say "visa en signal"; the expired one says "föra en lotsflagga" too, so it ranks first.
    assert versions("Ska man föra lotsflagga och visa signal?", ws, user)["2 §"] == (
        f"2 § (träder i kraft {past})", None)


def test_a_section_that_ended_with_nothing_after_it_is_a_source_only_when_cited_and_one_to_come_stays(
        zebra: tuple[User, Workspace, LegalDocument, str, str]) -> None:
    """3 § was repealed on the day: like a repealed statute, it answers a question that cites it (labelled), not
    one that only shares its words. 4 § is the law to come, labelled so."""
    user, ws, _, past, future = zebra
    assert "3 §" not in versions("Vilken färg ska lanterna på zebrafartyg ha?", ws, user)
    assert versions(f"Vilken färg ska lanterna ha enligt 3 § lagen ({NUMBER})?", ws, user)["3 §"] == (
        f"3 § (upphör att gälla {past})", None)
    assert versions("Behöver zebrafartyg en nödsändare?", ws, user)["4 §"] == (
        f"4 § (träder i kraft {future})", None)


def test_a_period_before_the_change_keeps_the_version_in_force_then(
        zebra: tuple[User, Workspace, LegalDocument, str, str]) -> None:
    user, ws, _, past, _ = zebra
    # Asked about the day before the change: the version that ended is the law of that day, not replaced.
    day = (swedish_today() - timedelta(days=11)).isoformat()
    assert versions(f"Vad gällde för signal på zebrafartyg {day}?", ws, user)["2 §"] == (
        f"2 § (upphör att gälla {past})", None)


def test_a_part_of_a_long_expired_section_is_replaced_by_the_same_part_of_the_section_in_force(
        zebra: tuple[User, Workspace, LegalDocument, str, str]) -> None:
    """A § over the chunk size is split in parts; the part a question matched gives way to the same part of the
    version in force, not to its first."""
    user, ws, _, past, _ = zebra
    filler = "Fartyget ska ha sina besiktningsprotokoll ombord under hela resan. " * 45
    doc = chunked_statute("2099:78", "Lag (2099:78) om zebrahamnar", (
        f"1 § /Upphör att gälla U:{past}/ {filler}\n\nEn hamn ska ha en kvartsmästare.\n\n"
        f"1 § /Träder i kraft I:{past}/ {filler}\n\nEn hamn ska ha en hamnkapten."))
    expired, current = (list(ContentChunk.objects.filter(legal_document=doc, header__contains=words)
                             .order_by("ordinal", "path")) for words in ("upphör att gälla", "träder i kraft"))
    assert len(expired) == len(current) >= 2
    get_retrieval_cache().clear()
    result = retrieve_context("Behövs kvartsmästare?", ws, user=user, options=RetrievalOptions(mode="keyword"))
    (source,) = [c for c in result.chunks if c.document_number == "2099:78"]
    assert (source.chunk_id, source.extra["replaces"]) == (current[-1].pk, expired[-1].pk)
    assert "hamnkapten" in source.text
