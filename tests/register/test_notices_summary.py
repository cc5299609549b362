"""The model's summary of a change, through the real `openai` client against the local stand-in server
(tests/fake_openai.py): made on request from the exact word diffs, stored once per version and shown to every
workspace the change concerns, always labelled as the model's and above the exact diff; offline there is no
summary and no button, and a failing model leaves the page as it was."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from compliance.models import Workspace
from law.models import ChangeSummary
from register.models import ChangeNotice
from tests.fake_openai import FakeOpenAI
from tests.law.sfs_records_fixtures import provforetag_statute, record
from tests.register.notices_fixtures import sync_records, workspace_with

pytestmark = pytest.mark.django_db

LABEL = "Sammanfattning skapad av AI – kontrollera alltid mot ändringstexten nedan"
SUMMARY = "- 2 § kräver nu ett digitalt register.\n- 3 § har upphävts.\n- Ny 5 § om årlig rapport."


@pytest.fixture
def notices(clean_queue: None, settings: Settings, tmp_path: Path) -> dict[str, Any]:
    """The same amendment noticed by Alices AB and Charlies AB; no model unless a test starts one."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    doc = provforetag_statute()
    ws, alice, _ = workspace_with("Alices AB", owner_name="alice", documents=[doc])
    charlie_ws, charlie, _ = workspace_with("Charlies AB", owner_name="charlie", documents=[doc])
    sync_records(tmp_path, [record("2099:1")])
    return {"ws": ws, "alice": alice, "notice": ChangeNotice.objects.get(workspace=ws),
            "charlie_ws": charlie_ws, "charlie": charlie, "charlies_notice": ChangeNotice.objects.get(workspace=charlie_ws)}


@pytest.fixture
def model(settings: Settings) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        settings.OPENAI_BASE_URL = fake.base_url
        settings.OPENAI_API_KEY = "test-key"
        settings.CHAT_MODEL = "fake-model"
        yield fake


def page(client: Client, ws: Workspace, notice: ChangeNotice) -> str:
    response = client.get(reverse("notice_detail", args=[ws.slug, notice.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_offline_there_is_no_summary_and_the_diff_stands(notices: dict[str, Any], client: Client) -> None:
    ws, notice = notices["ws"], notices["notice"]
    client.force_login(notices["alice"])

    shown = page(client, ws, notice)
    assert "Sammanfatta ändringen med AI" not in shown and LABEL not in shown
    assert "<ins>ett digitalt </ins>" in shown
    response = client.post(reverse("notice_summary", args=[ws.slug, notice.pk]), follow=True)
    assert response.status_code == 200 and "Ingen AI-modell är konfigurerad" in response.content.decode()
    assert not ChangeSummary.objects.exists()


def test_a_summary_is_made_once_from_the_exact_diff_and_shown_to_every_workspace_next_to_it(notices: dict[str, Any],
                                                                                            model: FakeOpenAI,
                                                                                            client: Client) -> None:
    ws, notice = notices["ws"], notices["notice"]
    model.answer = SUMMARY
    client.force_login(notices["alice"])
    before = page(client, ws, notice)
    assert "Sammanfatta ändringen med AI" in before and LABEL not in before

    response = client.post(reverse("notice_summary", args=[ws.slug, notice.pk]))

    assert response.status_code == 302 and response["Location"].endswith("#andringar")
    (sent,) = model.requests
    asked = sent["messages"][1]["content"]
    assert "2 § (ändrad, genom SFS 2099:10" in asked and "{+ett digitalt+}" in asked  # the exact word diff
    assert "3 § (upphävd" in asked and "[-Tillsyn utövas av myndigheten.-]" in asked
    summary = ChangeSummary.objects.get(version=notice.version)
    assert summary.text == SUMMARY and summary.model == "fake-model"
    shown = page(client, ws, notice)
    assert f"{LABEL}." in shown and "2 § kräver nu ett digitalt register.<br>" in shown
    assert shown.index(LABEL) < shown.index('<article class="unit-change') < shown.index("<ins>ett digitalt </ins>")
    assert "Sammanfatta ändringen med AI" not in shown

    # Charlie's workspace has its own notice of the same change: the same summary, no second model call.
    client.force_login(notices["charlie"])
    assert f"{LABEL}." in page(client, notices["charlie_ws"], notices["charlies_notice"])
    client.post(reverse("notice_summary", args=[notices["charlie_ws"].slug, notices["charlies_notice"].pk]))
    assert len(model.requests) == 1 and ChangeSummary.objects.count() == 1
    api = client.get(reverse("api-notice", args=[notices["charlie_ws"].slug, notices["charlies_notice"].pk])).json()
    assert api["summary"]["label"] == LABEL and api["summary"]["text"] == SUMMARY
    assert any(c["citation"] == "2 §" for c in api["changes"])  # the exact diff beside it


def test_a_failing_model_leaves_the_page_as_it_was(notices: dict[str, Any], model: FakeOpenAI, client: Client) -> None:
    ws, notice = notices["ws"], notices["notice"]
    model.script = [{"status": 500}, {"status": 500}]  # the client's one retry fails too
    client.force_login(notices["alice"])

    response = client.post(reverse("notice_summary", args=[ws.slug, notice.pk]), follow=True)

    shown = response.content.decode()
    assert response.status_code == 200 and "Det gick inte att skapa en sammanfattning just nu." in shown
    assert not ChangeSummary.objects.exists() and LABEL not in shown
    assert "Sammanfatta ändringen med AI" in shown and "<ins>ett digitalt </ins>" in shown


def test_the_models_text_is_shown_as_text(notices: dict[str, Any], model: FakeOpenAI, client: Client) -> None:
    ws, notice = notices["ws"], notices["notice"]
    model.answer = "<script>alert(1)</script> 2 § ändras."
    client.force_login(notices["alice"])
    client.post(reverse("notice_summary", args=[ws.slug, notice.pk]))
    shown = page(client, ws, notice)
    assert "<script>alert(1)</script>" not in shown and "&lt;script&gt;alert(1)&lt;/script&gt; 2 § ändras." in shown
