"""A repealed statute leaves ordinary retrieval, but a question that names it (by number or by title) still
gets its sections, each labelled with the repeal on the source card and in the context block. Its stubs
never come back.

The real lag om arbetslöshetsförsäkring (1997:238) as the bundled corpus holds it, repealed through `sync_sfs`
by its own record from rättsdatabaserna (upphävd genom SFS 2024:506); arbetsmiljölagen and LAS compete.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from pytest_django import Settings

from agent.answering.prepare import PrepareOptions, prepare_context
from agent.retrieval.hybrid import RetrievalOptions, RetrievalResult, retrieve_context
from chunks.models import ContentChunk
from chunks.services import chunk_document
from compliance.models import LegalDocument, Membership, Workspace
from law.models import StatuteRepeal
from law.statute_directory import statute_directory_invalidate
from tests.corpus import load_statutes
from tests.helpers import make_user
from tests.law.sfs_records_fixtures import write_records
from tests.register.notices_fixtures import official_record

pytestmark = pytest.mark.django_db

ALF = "1997:238"
NOT_NAMING = "Hur länge måste man ha varit medlem i en arbetslöshetskassa för att få inkomstrelaterad ersättning?"
BY_NUMBER = "Vad sa lagen (1997:238) om villkoren för inkomstrelaterad ersättning?"
BY_TITLE = "Vad sa lagen om arbetslöshetsförsäkring om villkoren för inkomstrelaterad ersättning?"
A_REPEALED_SECTION = "Vad stod i 27 § lagen (1997:238)?"  # a stub: "27 § Har upphävts genom lag (2018:107)."
WARNING = "upphävd genom SFS 2024:506, den 2025-10-01"


@pytest.fixture
def member(loaded: list[LegalDocument], settings: Settings,
           tmp_path: Path) -> Iterator[tuple[User, Workspace, LegalDocument]]:
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    settings.RETRIEVAL_CACHE_ENABLED = False
    (doc,) = load_statutes(ALF, embed=False)
    statute_directory_invalidate()
    alice = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    yield alice, ws, doc
    statute_directory_invalidate()


def repeal(tmp_path: Path) -> None:
    path = write_records(tmp_path / "repeal.jsonl", [official_record(ALF)])
    out = io.StringIO()
    call_command("sync_sfs", "--file", str(path), "--sync", "--no-progress", stdout=out, stderr=io.StringIO())
    assert "1 upphävda" in out.getvalue()


def stubs(doc: LegalDocument) -> set[int]:
    found = set(ContentChunk.objects.filter(legal_document=doc, retrievable=False).values_list("pk", flat=True))
    assert found  # the act's repealed §§ ("27 § Har upphävts …"): chunked, never retrieved
    return found


def numbers(result: RetrievalResult) -> set[str]:
    return {c.document_number for c in result.chunks}


def test_a_repealed_statute_leaves_retrieval_unless_the_question_names_it(member: tuple[User, Workspace, LegalDocument],
                                                                          tmp_path: Path) -> None:
    alice, ws, doc = member
    assert ALF in numbers(retrieve_context(NOT_NAMING, ws, user=alice))  # in force: found without its name

    repeal(tmp_path)

    assert ALF not in numbers(retrieve_context(NOT_NAMING, ws, user=alice))
    for question in (BY_NUMBER, BY_TITLE):
        found = [c for c in retrieve_context(question, ws, user=alice).chunks if c.document_number == ALF]
        assert found, question
        assert all(c.chunk_id not in stubs(doc) for c in found)
    cited = retrieve_context(A_REPEALED_SECTION, ws, user=alice)
    assert f"{ALF} 27 §" in cited.references and not any(c.citation == "27 §" for c in cited.chunks)


def test_a_named_repealed_statute_carries_the_repeal_on_the_card_and_in_the_context(member: tuple[User, Workspace, LegalDocument],
                                                                                    tmp_path: Path) -> None:
    alice, ws, _ = member
    repeal(tmp_path)

    prepared = prepare_context([{"role": "user", "content": BY_NUMBER}], ws, alice,
                               PrepareOptions(use_cache=False, retrieval=RetrievalOptions()))

    cards = [row for row in prepared.citations if row["document_number"] == ALF]
    assert cards and all(row["date_label"].startswith(WARNING) for row in cards)
    assert f"({WARNING})" in prepared.context_text


def test_a_repealed_statute_chunked_again_stays_out_of_ordinary_retrieval(member: tuple[User, Workspace, LegalDocument],
                                                                          tmp_path: Path) -> None:
    alice, ws, doc = member
    repeal(tmp_path)
    assert StatuteRepeal.objects.filter(document=doc).exists()

    chunk_document("LEGAL_DOCUMENT", doc.pk, force=True)

    assert not ContentChunk.objects.filter(legal_document=doc, document_repealed=False).exists()
    assert ALF not in numbers(retrieve_context(NOT_NAMING, ws, user=alice))
    assert ALF in numbers(retrieve_context(BY_NUMBER, ws, user=alice))
