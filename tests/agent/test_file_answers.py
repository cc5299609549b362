"""The assistant knows the workspace's own files: "Vilka dokument har vi laddat upp?" lists them (current versions,
not deleted, the asking workspace's only), with or without a model; a question about what the files say is
retrieval's."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from agent.answering import chat
from agent.answering.file_answers import file_answer, is_files_question
from agent.models import Message
from compliance.models import ProcessingStatus, UserFile, VersionState, Workspace
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.django_db


def _file(ws: Workspace, title: str, **fields: Any) -> UserFile:
    return UserFile.objects.create(workspace=ws, title=title, original_name=f"{title}.pdf", file=f"{title}.pdf",
                                   **fields)


@pytest.mark.parametrize("question", ["Vilka dokument har vi laddat upp?", "vilka filer finns i kunskapsbasen",
                                      "Visa våra dokument", "Vad för filer har vi?", "Which files do we have?"])
def test_questions_for_the_files_themselves(question: str) -> None:
    assert is_files_question(question)


@pytest.mark.parametrize("question", ["Vilka dokument har vi om arbetsmiljö?", "Vad står i våra dokument om semester?",
                                      "Vilka dokument måste vi spara enligt bokföringslagen?"])
def test_questions_about_what_the_files_say_stay_retrievals(question: str) -> None:
    assert not is_files_question(question)


def test_it_checks_ownership(team: dict[str, Any]) -> None:
    """Alice's files are listed with their state and links; a deleted file, an earlier version and Charlie's
    workspace's file are not."""
    ws = team["ws"]
    policy = _file(ws, "Arbetsmiljöpolicy", status=ProcessingStatus.DONE)
    _file(ws, "Personalhandbok", status=ProcessingStatus.PENDING, is_private=True)
    _file(ws, "Gammal rutin", status=ProcessingStatus.DONE, deleted_at=timezone.now())
    _file(ws, "Policy utkast", status=ProcessingStatus.DONE, version_state=VersionState.SUPERSEDED)
    _file(team["other"], "Charlies hemliga avtal", status=ProcessingStatus.DONE)
    conversation = chat.conversation_create(workspace=ws, user=team["bob"])

    message = chat.answer(conversation, team["bob"], "Vilka dokument har vi laddat upp?")

    assert message.answer_mode == Message.AnswerMode.DIRECT and message.sources == []
    assert message.content.startswith("**Arbetsytans filer (2):**")
    assert f"- [Arbetsmiljöpolicy](/ws/{ws.slug}/filer/{policy.pk}/): klar, uppladdad " in message.content
    assert "Personalhandbok" in message.content and ": väntar, uppladdad " in message.content
    assert ", privat" in message.content
    for absent in ("Gammal rutin", "Policy utkast", "Charlies"):
        assert absent not in message.content
    charlies = file_answer("Vilka dokument har vi laddat upp?", team["other"])
    assert charlies.startswith("**Arbetsytans filer (1):**\n\n- [Charlies hemliga avtal](/ws/charlies-ab/filer/")
    assert "Arbetsmiljöpolicy" not in charlies


def test_no_files_points_to_the_knowledge_page_and_a_model_is_not_asked(team: dict[str, Any],
                                                                        fake_model: FakeOpenAI) -> None:
    ws = team["ws"]
    message = chat.answer(chat.conversation_create(workspace=ws, user=team["alice"]), team["alice"],
                          "Vilka filer finns i kunskapsbasen?")
    assert message.answer_mode == Message.AnswerMode.DIRECT and fake_model.requests == []
    assert message.content.startswith("Arbetsytan Alices AB har inga egna filer.")
    assert f"[Kunskapsbas](/ws/{ws.slug}/kunskapsbas/)" in message.content
