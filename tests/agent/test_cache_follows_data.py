"""Private files are never AI context, whichever code path hides them.

With the retrieval cache warm, a file or an assessment leaves every read path (the context block, search,
chat) as soon as it is made private, deleted or superseded, whether that is
done by a model save (what admin does), a bulk `update()` or plain SQL: the workspace's knowledge_version
follows the rows (compliance/knowledge_version.py), not the services that used to bump it.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.utils import timezone
from pytest_django import Settings

from agent.retrieval.cache import get_retrieval_cache
from chunks.services import chunk_document, embed_chunk_batch
from compliance import services
from compliance.models import Assessment, LegalDocument, Membership, UserFile, VersionState, Workspace
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

FILE_TEXT = "Zebrarutinen för lagret: zebrorna matas klockan sju och räknas varje fredag."
ASSESSMENT_TEXT = "Bedömning av zebrarutinen: zebrorna räknas inte alltid på fredagar."
QUESTION = "Vad säger zebrarutinen om att zebrorna räknas?"

# Each change: (the model, the field, the new value, or a callable giving it).
CHANGES = {
    "private": (UserFile, "is_private", True),
    "deleted": (UserFile, "deleted_at", timezone.now),
    "superseded": (UserFile, "version_state", VersionState.SUPERSEDED),
    "assessment_deleted": (Assessment, "deleted_at", timezone.now),
}


def change_by(path: str, obj: UserFile | Assessment, field: str, value: object) -> None:
    if path == "save":  # what admin's change form does
        setattr(obj, field, value)
        obj.save()
    elif path == "update":
        type(obj).objects.filter(pk=obj.pk).update(**{field: value})
    else:
        with connection.cursor() as cursor:
            cursor.execute(f"UPDATE {type(obj)._meta.db_table} SET {field} = %s WHERE id = %s", [value, obj.pk])


@pytest.fixture
def setup(loaded: list[LegalDocument], settings: Settings, client: Client) -> dict[str, Any]:
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    get_retrieval_cache().clear()
    alice = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    f = services.user_file_upload(workspace=ws, user=alice, uploaded=SimpleUploadedFile(
        "zebrarutin.txt", FILE_TEXT.encode(), content_type="text/plain"))
    embed_chunk_batch(chunk_document("USER_FILE", f.pk).to_embed)
    assessment = services.assessment_save(workspace=ws, user=alice, title="Zebrarutinen",
                                          notes=ASSESSMENT_TEXT)
    embed_chunk_batch(chunk_document("ASSESSMENT", assessment.pk).to_embed)
    client.force_login(alice)
    return {"ws": ws, "file": f, "assessment": assessment, "client": client}


def read_paths(client: Client, ws: Workspace) -> dict[str, str]:
    """What each read path shows for the question: the context block, the search hits, a chat answer's sources."""
    api = f"/api/v1/workspaces/{ws.slug}/"
    context = client.post(api + "context", {"query": QUESTION}, content_type="application/json").json()
    search = client.post(api + "search", {"query": QUESTION}, content_type="application/json").json()
    conversation = client.post(api + "conversations/", {}, content_type="application/json").json()
    message = client.post(api + f"conversations/{conversation['id']}/messages", {"content": QUESTION},
                          content_type="application/json").json()
    return {
        "context": context["context_text"],
        "search": " ".join(r["text"] for r in search["results"]),
        "chat": " ".join(str(s) for s in message["sources"]) + message["content"],
    }


@pytest.mark.parametrize("path", ["save", "update", "sql"])
@pytest.mark.parametrize("change", list(CHANGES))
def test_a_hidden_source_leaves_every_read_path_with_the_cache_warm(setup: dict[str, Any], change: str,
                                                                    path: str) -> None:
    model, field, value = CHANGES[change]
    target = setup["file"] if model is UserFile else setup["assessment"]
    marker = "klockan sju" if model is UserFile else "inte alltid"
    client, ws = setup["client"], setup["ws"]
    before = read_paths(client, ws)
    assert all(marker in shown for shown in before.values()), before  # seen everywhere, and now cached
    assert client.post(f"/api/v1/workspaces/{ws.slug}/context", {"query": QUESTION},
                       content_type="application/json").json()["metrics"]["cache_hit"]
    value = value() if callable(value) else value
    change_by(path, target, field, value)
    after = read_paths(client, ws)
    for read_path, shown in after.items():
        assert marker not in shown, f"{change} by {path}: still in {read_path}"


def test_a_change_that_hides_nothing_keeps_the_cache(setup: dict[str, Any]) -> None:
    client, ws = setup["client"], setup["ws"]
    read_paths(client, ws)
    version = Workspace.objects.get(pk=ws.pk).knowledge_version
    UserFile.objects.filter(pk=setup["file"].pk).update(title="Zebrarutin (reviderad)")
    assert Workspace.objects.get(pk=ws.pk).knowledge_version == version
    assert client.post(f"/api/v1/workspaces/{ws.slug}/context", {"query": QUESTION},
                       content_type="application/json").json()["metrics"]["cache_hit"]


def test_a_hard_delete_bumps_too(setup: dict[str, Any]) -> None:
    version = Workspace.objects.get(pk=setup["ws"].pk).knowledge_version
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM chunks_contentchunk WHERE assessment_id = %s", [setup["assessment"].pk])
        cursor.execute("DELETE FROM compliance_assessment WHERE id = %s", [setup["assessment"].pk])
    assert Workspace.objects.get(pk=setup["ws"].pk).knowledge_version > version
