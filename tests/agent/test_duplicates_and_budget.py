"""Part of the pre-model step's contract: identical text from two documents takes one slot, and the
whole step warns when it runs over its budget."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from agent.answering import chat
from agent.answering.prepare import prepare_context
from agent.retrieval.cache import get_retrieval_cache
from chunks.services import chunk_document, embed_chunk_batch
from compliance import services
from compliance.models import UserFile, Workspace

pytestmark = pytest.mark.django_db

POLICY = ("Rutin för zebrasäkerhet: skyddsombudet går en runda på lagret varje fredag och "
          "rapporterar brister i zebrasäkerheten till arbetsmiljöansvarig samma dag.")
QUESTION = "Hur går det till med zebrasäkerhet på lagret?"


@pytest.fixture
def setup(team: dict[str, Any]) -> tuple[User, Workspace, list[UserFile]]:
    get_retrieval_cache().clear()
    alice, ws = team["alice"], team["ws"]
    files = []
    # The copy differs in its bytes (a trailing line break), so it is a second document, not a re-upload.
    for name, body in (("rutin.txt", POLICY), ("kopia av rutin.txt", POLICY + "\n")):
        f = services.user_file_upload(workspace=ws, user=alice,
                                      uploaded=SimpleUploadedFile(name, body.encode(), content_type="text/plain"))
        embed_chunk_batch(chunk_document("USER_FILE", f.pk).to_embed)
        files.append(f)
    return alice, ws, files


def test_a_duplicate_upload_takes_one_slot_shown_with_both_sources(setup: tuple[User, Workspace, list[UserFile]],
                                                                   client: Client) -> None:
    alice, ws, (first, second) = setup
    prepared = prepare_context([{"role": "user", "content": QUESTION}], ws, alice)
    rows = [c for c in prepared.citations if c["source_type"] == "USER_FILE"]
    assert len(rows) == 1, rows
    shown = {rows[0]["source_id"], *(a["source_id"] for a in rows[0]["also_sources"])}
    assert shown == {first.pk, second.pk}
    assert prepared.context_text.count("varje fredag") == 1
    assert "samma text i:" in prepared.context_text

    conversation = chat.conversation_create(workspace=ws, user=alice)
    chat.answer(conversation, alice, QUESTION)
    client.force_login(alice)
    page = client.get(reverse("conversation", args=[ws.slug, conversation.pk])).content.decode()
    assert "Samma text finns även i:" in page
    # Once one copy is deleted, old answers no longer name it.
    other = rows[0]["also_sources"][0]["source_id"]
    services.user_file_delete(UserFile.objects.get(pk=other))
    api = client.get(f"/api/v1/workspaces/{ws.slug}/conversations/{conversation.pk}/").json()
    kept = [s for m in api["messages"] for s in m["sources"] if s.get("source_type") == "USER_FILE"]
    assert kept and all(a["source_id"] != other for s in kept for a in s.get("also_sources", []))


def test_the_whole_step_warns_over_its_budget(setup: tuple[User, Workspace, list[UserFile]], settings: Settings,
                                              caplog: pytest.LogCaptureFixture) -> None:
    alice, ws, _ = setup
    settings.PREPARE_SLOW_MS = 600000
    with caplog.at_level(logging.WARNING, logger="agent.answering.prepare"):
        prepare_context([{"role": "user", "content": QUESTION}], ws, alice)
    assert not [r for r in caplog.records if "pre-model step" in r.getMessage()]
    settings.PREPARE_SLOW_MS = 1  # retrieval with an embedding never takes under a millisecond
    get_retrieval_cache().clear()
    with caplog.at_level(logging.WARNING, logger="agent.answering.prepare"):
        prepare_context([{"role": "user", "content": "Vad gäller för skyddsombud?"}], ws, alice)
    slow = [r for r in caplog.records if "pre-model step" in r.getMessage()]
    assert slow and slow[0].levelno == logging.WARNING and slow[0].prepare_budget_ms == 1
    assert "analysis" in slow[0].getMessage()
