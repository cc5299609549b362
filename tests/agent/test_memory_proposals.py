"""Learning from the conversation with consent: proposals on the answer, Spara / Nej tack, nothing silent."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from agent.answering import chat
from agent.memory.profile import proposal_decide
from agent.models import Message
from compliance import selectors, services
from compliance.models import PersonalPreference, ProfileFact, Workspace, WorkspaceProfile

pytestmark = pytest.mark.django_db

STATEMENT = "Vi är 45 anställda och vi har kollektivavtal med Unionen. Vad gäller för skyddsombud?"


@pytest.fixture
def setup(team: dict[str, Any]) -> tuple[User, User, User, Workspace]:
    return team["alice"], team["bob"], team["charlie"], team["ws"]


def proposal_url(ws: Workspace, message: Message, index: int) -> str:
    return reverse("message_proposal", args=[ws.slug, message.conversation_id, message.pk, index])


def test_a_statement_is_proposed_not_stored(setup: tuple[User, User, User, Workspace]) -> None:
    alice, _, _, ws = setup
    conversation = chat.conversation_create(workspace=ws, user=alice)
    message = chat.answer(conversation, alice, STATEMENT)
    labels = [p["label"] for p in message.proposals]
    assert labels == ["Antal anställda: 45", "Kollektivavtal: ja", "Kollektivavtal med: Unionen"]
    assert all(p["status"] == "pending" for p in message.proposals)
    assert not WorkspaceProfile.objects.filter(workspace=ws).exists()


def test_a_question_proposes_nothing(setup: tuple[User, User, User, Workspace]) -> None:
    alice, _, _, ws = setup
    conversation = chat.conversation_create(workspace=ws, user=alice)
    assert chat.answer(conversation, alice, "Har vi kollektivavtal?").proposals == []


def test_spara_stores_with_the_conversation_as_origin_and_nej_tack_stores_nothing(setup: tuple[User, User, User, Workspace],
                                                                                  client: Client) -> None:
    alice, _, _, ws = setup
    conversation = chat.conversation_create(workspace=ws, user=alice)
    message = chat.answer(conversation, alice, STATEMENT)
    client.force_login(alice)
    page = client.get(reverse("message_detail", args=[ws.slug, conversation.pk, message.pk]))
    assert "Spara" in page.content.decode() and "Nej tack" in page.content.decode()
    r = client.post(proposal_url(ws, message, 0), {"decision": "spara"}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and "Sparat: Antal anställda: 45" in r.content.decode()
    r = client.post(proposal_url(ws, message, 2), {"decision": "nej"}, HTTP_HX_REQUEST="true")
    assert "Inte sparat: Kollektivavtal med: Unionen" in r.content.decode()
    profile = selectors.workspace_profile_get(ws)
    assert profile.employee_count == 45 and profile.collective_agreement == ""
    assert profile.origins["employee_count"]["origin"] == "conversation"
    assert profile.origins["employee_count"]["conversation_id"] == conversation.pk
    statuses = [p["status"] for p in Message.objects.get(pk=message.pk).proposals]
    assert statuses == ["saved", "pending", "declined"]
    again = client.post(proposal_url(ws, message, 0), {"decision": "spara"}, HTTP_HX_REQUEST="true")
    assert again.status_code == 409 and "redan besvarat" in again.content.decode()
    assert client.post(proposal_url(ws, message, 9), {"decision": "spara"},
                       HTTP_HX_REQUEST="true").status_code == 404


def test_known_values_are_not_proposed_again(setup: tuple[User, User, User, Workspace]) -> None:
    alice, _, _, ws = setup
    services.profile_update(workspace=ws, user=alice, values={"employee_count": 45})
    conversation = chat.conversation_create(workspace=ws, user=alice)
    message = chat.answer(conversation, alice, "Vi är 45 anställda. Jag jobbar som HR-chef")
    assert [p["field"] for p in message.proposals] == ["role"]


def test_a_reader_is_offered_only_own_preferences(setup: tuple[User, User, User, Workspace]) -> None:
    _, bob, _, ws = setup
    conversation = chat.conversation_create(workspace=ws, user=bob)
    message = chat.answer(conversation, bob, "Vi är 45 anställda. I'm not a lawyer, answer in English")
    assert [(p["kind"], p["field"]) for p in message.proposals] == [("preference", "expertise"),
                                                                    ("preference", "language")]
    proposal_decide(message=message, index=1, user=bob, save=True)
    assert PersonalPreference.objects.get(user=bob, workspace=ws).language == "en"
    assert not ProfileFact.objects.exists()


def test_it_checks_ownership(setup: tuple[User, User, User, Workspace], client: Client) -> None:
    alice, _, charlie, ws = setup
    conversation = chat.conversation_create(workspace=ws, user=alice)
    message = chat.answer(conversation, alice, STATEMENT)
    client.force_login(charlie)
    assert client.post(proposal_url(ws, message, 0), {"decision": "spara"}).status_code == 404
    other = Workspace.objects.get(slug="charlies-ab")
    url = reverse("message_proposal", args=[other.slug, conversation.pk, message.pk, 0])
    assert client.post(url, {"decision": "spara"}).status_code == 404
    assert not WorkspaceProfile.objects.filter(workspace=ws).exists()
