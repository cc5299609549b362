"""Another workspace's sources, only when the question names it, the user is a member and it allows it.

Real statutes (the package's arbetsmiljölagen and LAS), real uploaded files chunked and embedded with the
real model, the real pre-model step, chat, pages and API.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from agent.answering import chat
from agent.answering.prepare import PreparedContext, prepare_context
from agent.retrieval.cache import get_retrieval_cache
from agent.retrieval.workspace_names import workspace_names_for
from chunks.services import chunk_document, embed_chunk_batch
from compliance import services
from compliance.models import LegalDocument, Membership, UserFile, Workspace
from compliance.selectors import access_scope_for
from tests.helpers import make_user, saved_log

pytestmark = pytest.mark.django_db

SUB_POLICY = ("Semesterpolicy för dotterbolaget: semesterperioden är 15 juni till 15 augusti och "
              "ansökan om sommarsemester lämnas till närmaste chef senast den 1 mars.")
SUB_PRIVATE = "Privat anteckning om semesterpolicy: lönetillägg för flygvärdinnor under sommarsemester."
SECRET_POLICY = "Semesterpolicy i det hemliga bolaget: sommarsemester beviljas bara i juli."
OWN_POLICY = "Vår semesterpolicy: sommarsemester om fyra veckor läggs ut under juni, juli eller augusti."
QUESTION = "Jämför vår semesterpolicy om sommarsemester med den i Dotterbolagets semesterpolicy"


def upload(ws: Workspace, user: User, name: str, text: str, *, private: bool = False) -> UserFile:
    f = services.user_file_upload(workspace=ws, user=user, is_private=private,
                                  uploaded=SimpleUploadedFile(name, text.encode(), content_type="text/plain"))
    embed_chunk_batch(chunk_document("USER_FILE", f.pk).to_embed)
    return f


@pytest.fixture
def setup(loaded: list[LegalDocument], settings: Settings) -> dict[str, Any]:
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    get_retrieval_cache().clear()
    alice, bob, charlie = make_user("alice"), make_user("bob"), make_user("charlie")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    sub = Workspace.objects.create(name="Dotterbolaget AB", slug="dotterbolaget-ab")
    secret = Workspace.objects.create(name="Hemliga Bolaget AB", slug="hemliga-bolaget-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    Membership.objects.create(user=alice, workspace=sub, role="owner")
    Membership.objects.create(user=bob, workspace=ws, role="editor")
    Membership.objects.create(user=bob, workspace=sub, role="viewer")
    Membership.objects.create(user=charlie, workspace=ws, role="viewer")
    Membership.objects.create(user=charlie, workspace=secret, role="owner")
    files = {
        "own": upload(ws, alice, "semester.txt", OWN_POLICY),
        "sub_file": upload(sub, alice, "semesterpolicy.txt", SUB_POLICY),
        "sub_private": upload(sub, alice, "privat.txt", SUB_PRIVATE, private=True),
        "secret_file": upload(secret, charlie, "hemlig.txt", SECRET_POLICY),
    }
    return {"alice": alice, "bob": bob, "charlie": charlie, "ws": ws, "sub": sub, "secret": secret, **files}


def ask(text: str, ws: Workspace, user: User) -> PreparedContext:
    return prepare_context([{"role": "user", "content": text}], ws, user)


def file_ids(prepared: PreparedContext) -> set[int]:
    return {c["source_id"] for c in prepared.citations if c["source_type"] == "USER_FILE"}


def test_member_of_both_gets_the_named_workspace_labelled(setup: dict[str, Any]) -> None:
    prepared = ask(QUESTION, setup["ws"], setup["alice"])
    assert {setup["own"].pk, setup["sub_file"].pk} <= file_ids(prepared)
    assert setup["sub_private"].pk not in file_ids(prepared) and setup["secret_file"].pk not in file_ids(prepared)
    row = next(c for c in prepared.citations if c["source_id"] == setup["sub_file"].pk)
    assert (row["workspace_name"], row["workspace_slug"]) == ("Dotterbolaget AB", "dotterbolaget-ab")
    own = next(c for c in prepared.citations if c["source_id"] == setup["own"].pk)
    assert own["workspace_name"] == ""
    assert f"Källa [{row['n']}]: Arbetsytan Dotterbolaget AB > semesterpolicy.txt" in prepared.context_text
    assert "Arbetsytan" not in prepared.context_text.split(f"Källa [{own['n']}]: ", 1)[1].split("\n", 1)[0]
    log = saved_log(prepared)
    assert log.workspace_mentions == ["Dotterbolaget AB"]


@pytest.mark.parametrize("text", [
    "Vad säger dotterbolaget ab:s semesterpolicy om sommarsemester?",
    "Vad står i DOTTERBOLAGET AB om semesterpolicy och sommarsemester?",
    "Hur ser semesterpolicy och sommarsemester ut hos Dotterbolaget?",
])
def test_inflected_and_cased_names_widen_too(setup: dict[str, Any], text: str) -> None:
    assert setup["sub_file"].pk in file_ids(ask(text, setup["ws"], setup["alice"]))


def test_without_a_name_only_the_current_workspace(setup: dict[str, Any]) -> None:
    prepared = ask("Jämför vår semesterpolicy om sommarsemester med lagen", setup["ws"], setup["alice"])
    assert setup["own"].pk in file_ids(prepared)
    assert file_ids(prepared) == {setup["own"].pk}
    # An ordinary word is not a name: "dotterbolag" in lower case names no workspace.
    prepared = ask("Gäller vår semesterpolicy om sommarsemester för dotterbolag?", setup["ws"], setup["alice"])
    assert file_ids(prepared) == {setup["own"].pk}


def test_a_non_member_name_changes_and_reveals_nothing(setup: dict[str, Any]) -> None:
    plain = ask("Vad säger semesterpolicy om sommarsemester?", setup["ws"], setup["alice"])
    # alice is no member of charlie's workspace: naming it is as if she had not.
    named = ask("Vad säger semesterpolicy om sommarsemester i Hemliga Bolaget AB?", setup["ws"], setup["alice"])
    assert setup["secret_file"].pk not in file_ids(named)
    assert file_ids(named) == file_ids(plain)
    assert saved_log(named).workspace_mentions == []
    assert "Hemliga" not in named.context_text


def test_member_of_one_only(setup: dict[str, Any]) -> None:
    """charlie is a member of the current workspace and of his own, not of the subsidiary."""
    prepared = ask(QUESTION, setup["ws"], setup["charlie"])
    assert setup["sub_file"].pk not in file_ids(prepared) and setup["sub_private"].pk not in file_ids(prepared)
    assert "Dotterbolaget AB" not in prepared.context_text
    # His own other workspace, named, comes in.
    prepared = ask("Semesterpolicy om sommarsemester i Hemliga Bolaget AB?", setup["ws"], setup["charlie"])
    assert setup["secret_file"].pk in file_ids(prepared)


def test_an_owner_can_turn_it_off_and_the_scope_obeys(setup: dict[str, Any]) -> None:
    assert setup["sub_file"].pk in file_ids(ask(QUESTION, setup["ws"], setup["bob"]))
    services.workspace_set_cross_workspace(workspace=setup["sub"], allow=False)
    prepared = ask(QUESTION, setup["ws"], setup["bob"])
    assert setup["sub_file"].pk not in file_ids(prepared)
    assert access_scope_for(setup["bob"], setup["ws"], named=[setup["sub"].pk]).workspace_ids == (setup["ws"].pk,)


def test_scope_and_cache_key_reflect_the_widened_scope(setup: dict[str, Any]) -> None:
    plain = access_scope_for(setup["alice"], setup["ws"])
    wide = access_scope_for(setup["alice"], setup["ws"], named=[setup["sub"].pk, setup["secret"].pk, 10 ** 9])
    assert wide.workspace_ids == (setup["ws"].pk, setup["sub"].pk)
    assert plain.key != wide.key
    first = ask(QUESTION, setup["ws"], setup["alice"])
    again = ask(QUESTION, setup["ws"], setup["alice"])
    assert not first.metrics["cache_hit"] and again.metrics["cache_hit"]
    assert file_ids(again) == file_ids(first) and setup["sub_file"].pk in file_ids(again)
    # A change in the named workspace makes its entries stale too.
    services.workspace_touch_knowledge(setup["sub"].pk)
    assert not ask(QUESTION, setup["ws"], setup["alice"]).metrics["cache_hit"]


def test_chat_page_and_api_label_the_source_card(setup: dict[str, Any], client: Client) -> None:
    conversation = chat.conversation_create(workspace=setup["ws"], user=setup["alice"])
    message = chat.answer(conversation, setup["alice"], QUESTION)
    assert any(s.get("workspace_name") == "Dotterbolaget AB" for s in message.sources)
    client.force_login(setup["alice"])
    page = client.get(reverse("conversation", args=[setup["ws"].slug, conversation.pk])).content.decode()
    assert "Från arbetsytan Dotterbolaget AB" in page
    assert reverse("file_detail", args=["dotterbolaget-ab", setup["sub_file"].pk]) in page
    api = client.get(f"/api/v1/workspaces/{setup['ws'].slug}/conversations/{conversation.pk}/").json()
    labelled = [s for m in api["messages"] for s in m["sources"] if s.get("source_id") == setup["sub_file"].pk]
    assert labelled and labelled[0]["workspace_name"] == "Dotterbolaget AB"
    context = client.post(f"/api/v1/workspaces/{setup['ws'].slug}/context", {"query": QUESTION},
                          content_type="application/json").json()
    assert any(c.get("workspace_name") == "Dotterbolaget AB" for c in context["citations"])


def test_membership_changes_count_from_the_next_turn_whatever_the_names_cache_holds(setup: dict[str, Any]) -> None:
    charlie, secret_file = setup["charlie"], setup["secret_file"]
    named = "Semesterpolicy om sommarsemester i Hemliga Bolaget AB?"
    assert secret_file.pk in file_ids(ask(named, setup["ws"], charlie))
    # Removed by another process (no signal here): this process's names still hold the workspace,
    # and the scope is decided afresh all the same.
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM compliance_membership WHERE user_id = %s AND workspace_id = %s",
                       [charlie.pk, setup["secret"].pk])
    assert "Hemliga Bolaget AB" in workspace_names_for(charlie, setup["ws"]).names
    assert secret_file.pk not in file_ids(ask(named, setup["ws"], charlie))
    # And a new membership is a name he can use at once.
    Membership.objects.create(user=charlie, workspace=setup["sub"], role="viewer")
    assert setup["sub_file"].pk in file_ids(ask(QUESTION, setup["ws"], charlie))


def search_file_ids(client: Client, ws: Workspace, text: str) -> dict[int, str]:
    response = client.post(f"/api/v1/workspaces/{ws.slug}/search", {"query": text, "top_k": 20},
                           content_type="application/json")
    assert response.status_code == 200, response.content
    return {r["source_id"]: r["workspace_name"] for r in response.json()["results"] if r["source_type"] == "USER_FILE"}


def test_search_widens_and_labels_by_the_same_rule_as_chat_and_context(setup: dict[str, Any], client: Client) -> None:
    client.force_login(setup["alice"])
    found = search_file_ids(client, setup["ws"], QUESTION)
    assert set(found) == file_ids(ask(QUESTION, setup["ws"], setup["alice"]))
    assert found[setup["sub_file"].pk] == "Dotterbolaget AB" and found[setup["own"].pk] == ""
    assert setup["sub_private"].pk not in found and setup["secret_file"].pk not in found
    # Without the name only the current workspace; naming a workspace alice is no member of reveals nothing.
    assert set(search_file_ids(client, setup["ws"], "Jämför vår semesterpolicy om sommarsemester med lagen")) \
        == {setup["own"].pk}
    named = search_file_ids(client, setup["ws"], "Vad säger semesterpolicy om sommarsemester i Hemliga Bolaget AB?")
    assert setup["secret_file"].pk not in named


def test_search_obeys_an_owner_turning_sharing_off(setup: dict[str, Any], client: Client) -> None:
    services.workspace_set_cross_workspace(workspace=setup["sub"], allow=False)
    client.force_login(setup["alice"])
    assert setup["sub_file"].pk not in search_file_ids(client, setup["ws"], QUESTION)
