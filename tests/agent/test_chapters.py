"""The chapter's core sections join the context block (agent.retrieval.context_additions): a statute of our own
from real statutes' sentences."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from agent.retrieval.context_additions import chapter_sections
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.sources import RetrievedChunk
from chunks.models import ContentChunk
from compliance.models import Workspace
from compliance.selectors import access_scope_for
from tests.helpers import alice_owning_a_workspace, chunked_statute

pytestmark = pytest.mark.django_db

STATUTE = "\n\n".join([
    "1 kap. Lyftanordningar",
    "1 § I detta kapitel finns bestämmelser om lyftanordningar på arbetsplatser.",
    "Definitioner",
    "2 § Med lyftanordning avses vid tillämpningen av detta kapitel en kran, en truck eller en hiss.",
    "Besiktning",
    "3 § En lyftanordning ska besiktas innan den tas i bruk.",
    "4 § Arbetsgivaren ska föra journal över varje besiktning.",
    "5 § Den som besiktar ska vara certifierad.",
    "2 kap. Annat",
    "1 § Protokollet las upp för parterna och justerades vid sammanträdet.",
    "3 kap. Traverser",
    "1 § En travers ska vara märkt med den största last den får lyfta.",
    "Skötsel",
    "2 § Arbetsgivaren ska smörja traversens vajrar varje månad.",
    "Tillämpningsområde",
    "3 § Bestämmelserna i 1 och 2 §§ gäller även portalkranar.",
])


@pytest.fixture
def statute(db: None) -> tuple[User, Workspace]:
    chunked_statute("2099:2", "Lag (2099:2) om lyftanordningar", STATUTE)
    return alice_owning_a_workspace()


def _hits(question: str, user: User, ws: Workspace,
          sfs_numbers: tuple[str, ...] = ()) -> tuple[list[RetrievedChunk], RetrievalOptions]:
    options = RetrievalOptions(mode="keyword", use_references=False, top_k=1, min_relevance=0,
                               sfs_numbers=list(sfs_numbers))
    return retrieve_context(question, ws, user=user, options=options).chunks, options


def test_a_hit_brings_its_chapters_introductory_and_defining_sections(statute: tuple[User, Workspace]) -> None:
    user, ws = statute
    hits, options = _hits("journal över besiktning", user, ws)
    assert [h.citation for h in hits] == ["1 kap. 4 §"]
    added = chapter_sections(hits, access_scope_for(user, ws), options, anchors=1, full_tokens=0)
    assert [c.citation for c in added] == ["1 kap. 1 §", "1 kap. 2 §"]  # document order, the hit itself not again
    assert all(c.score < hits[0].score for c in added)  # after every hit: the budget drops them first
    assert all(c.extra["chapter_of"] == "2099:2 1 kap." for c in added)


def test_a_section_under_a_core_rubrik_comes_though_it_defines_nothing(statute: tuple[User, Workspace]) -> None:
    user, ws = statute
    hits, options = _hits("smörja vajrar", user, ws)
    assert [h.citation for h in hits] == ["3 kap. 2 §"]
    added = chapter_sections(hits, access_scope_for(user, ws), options, anchors=1, full_tokens=0)
    assert [c.citation for c in added] == ["3 kap. 1 §", "3 kap. 3 §"]  # the first §, and the scope's


def test_a_short_chapter_comes_whole(statute: tuple[User, Workspace]) -> None:
    user, ws = statute
    hits, options = _hits("journal över besiktning", user, ws)
    added = chapter_sections(hits, access_scope_for(user, ws), options, anchors=1, full_tokens=10_000)
    assert [c.citation for c in added] == ["1 kap. 1 §", "1 kap. 2 §", "1 kap. 3 §", "1 kap. 5 §"]


def test_no_anchor_no_chapter(statute: tuple[User, Workspace]) -> None:
    user, ws = statute
    hits, options = _hits("journal över besiktning", user, ws)
    assert chapter_sections(hits, access_scope_for(user, ws), options, anchors=0) == []


# A law without chapters, in the manner of many short Swedish laws: its §§ under rubriker, then its transitional
# provisions.
UNCHAPTERED = "\n\n".join([
    "Lagens tillämpningsområde",
    "1 § Denna lag gäller fordon som används för transporter på väg.",
    "Definitioner",
    "2 § Med färdskrivare avses i denna lag en apparat som registrerar fordonets hastighet och körtid.",
    "Kontroll",
    "3 § En färdskrivare ska kontrolleras vartannat år.",
    "4 § Ägaren ska spara uppgifterna från kontrollen i ett år.",
    "5 § Den som kontrollerar ska vara ackrediterad.",
    "Övergångsbestämmelser",
    "2099:4",
    "Denna lag träder i kraft den 1 juli 2099.",
])


# Searches are limited to it: other tests' statutes write transitional provisions and duties to keep records in
# the same words.
OWN_LAW = ("2099:3",)


@pytest.fixture
def unchaptered(db: None) -> tuple[User, Workspace]:
    chunked_statute("2099:3", "Lag (2099:3) om färdskrivare", UNCHAPTERED)
    return alice_owning_a_workspace()


def test_a_law_without_chapters_is_its_own_one_chapter(unchaptered: tuple[User, Workspace]) -> None:
    user, ws = unchaptered
    hits, options = _hits("spara uppgifterna från kontrollen", user, ws, OWN_LAW)
    assert [h.citation for h in hits] == ["4 §"]
    added = chapter_sections(hits, access_scope_for(user, ws), options, anchors=1, full_tokens=0)
    assert [c.citation for c in added] == ["1 §", "2 §"]  # the first § and the defining one, in document order
    assert all(c.extra["chapter_of"] == "2099:3" for c in added)
    assert all(c.score < hits[0].score for c in added)


def test_a_short_law_without_chapters_comes_whole_but_not_its_transitional_provisions(
        unchaptered: tuple[User, Workspace]) -> None:
    user, ws = unchaptered
    hits, options = _hits("spara uppgifterna från kontrollen", user, ws, OWN_LAW)
    # Short means its §§ alone: the transitional provisions' tokens would take it over this bound.
    sections = ContentChunk.objects.filter(legal_document__sfs_number="2099:3", kind="section")
    bound = sum(sections.values_list("token_count", flat=True))
    added = chapter_sections(hits, access_scope_for(user, ws), options, anchors=1, full_tokens=bound)
    assert [c.citation for c in added] == ["1 §", "2 §", "3 §", "5 §"]


def test_a_transitional_provision_anchors_no_chapter(unchaptered: tuple[User, Workspace]) -> None:
    user, ws = unchaptered
    hits, options = _hits("träder i kraft den 1 juli 2099", user, ws, OWN_LAW)
    assert [h.citation for h in hits] == ["Övergångsbestämmelser 2099:4"]
    assert chapter_sections(hits, access_scope_for(user, ws), options, anchors=1, full_tokens=10_000) == []


@override_settings(RETRIEVAL_UNCHAPTERED_ANCHORS=False)
def test_without_the_setting_a_law_without_chapters_anchors_nothing(unchaptered: tuple[User, Workspace]) -> None:
    user, ws = unchaptered
    hits, options = _hits("spara uppgifterna från kontrollen", user, ws, OWN_LAW)
    assert chapter_sections(hits, access_scope_for(user, ws), options, anchors=1, full_tokens=10_000) == []


LETTERED = "\n\n".join([
    "1 kap. Allmänt",
    "1 § Denna lag gäller kranar.",
    "2 a kap. Mobila kranar",
    "1 § I detta kapitel finns bestämmelser om mobila kranar.",
    "2 § En mobil kran ska stödbenas innan den lyfter.",
])


def test_a_lettered_chapter_is_anchored_as_the_chunker_wrote_it(db: None) -> None:
    chunked_statute("2099:5", "Lag (2099:5) om kranar", LETTERED)
    user, ws = alice_owning_a_workspace()
    hits, options = _hits("stödbenas innan den lyfter", user, ws, ("2099:5",))
    assert [h.citation for h in hits] == ["2 a kap. 2 §"]
    added = chapter_sections(hits, access_scope_for(user, ws), options, anchors=1, full_tokens=0)
    assert [c.citation for c in added] == ["2 a kap. 1 §"]
    assert added[0].extra["chapter_of"] == "2099:5 2 a kap."
