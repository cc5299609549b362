"""Read state is each member's own: opening a notice makes it read for the one who opened it, and the "Olästa"
filter, the header's count and the API follow the asking member; answering is the workspace's. Another
workspace's notice stays a 404 for reading and unreading, on the page and in the API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from pytest_django import Settings

from compliance.models import Membership, Workspace
from register.models import ChangeNotice, NoticeRead
from register.notices.selectors import notice_counts, notice_list
from register.notices.services import notice_answer, notice_mark_read
from tests.law.sfs_records_fixtures import provforetag_statute, record
from tests.register.notices_fixtures import member, sync_records, workspace_with

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(clean_queue: None, settings: Settings, tmp_path: Path) -> dict[str, Any]:
    """Alices AB with its owner alice and reader bob, one notice; Charlies AB with its own notice."""
    settings.SFS_VECTORS_PATH = str(tmp_path / "none.npz")
    doc = provforetag_statute()
    ws, alice, _ = workspace_with("Alices AB", owner_name="alice", documents=[doc])
    bob = member(ws, "bob", Membership.Role.VIEWER)
    charlie_ws, charlie, _ = workspace_with("Charlies AB", owner_name="charlie", documents=[doc])
    sync_records(tmp_path, [record("2099:1")])
    return {"ws": ws, "alice": alice, "bob": bob, "notice": ChangeNotice.objects.get(workspace=ws),
            "charlie": charlie, "charlies_notice": ChangeNotice.objects.get(workspace=charlie_ws)}


def unread_ids(client: Client, ws: Workspace) -> list[int]:
    return [row["id"] for row in client.get(reverse("api-notices", args=[ws.slug]) + "?status=olasta").json()["results"]]


def test_opening_a_notice_reads_it_for_that_member_only(team: dict[str, Any], client: Client) -> None:
    ws, notice, alice, bob = team["ws"], team["notice"], team["alice"], team["bob"]
    page_unread = reverse("notice_list", args=[ws.slug]) + "?status=olasta"

    client.force_login(bob)
    assert client.get(reverse("notice_detail", args=[ws.slug, notice.pk])).status_code == 200
    assert f'data-notice="{notice.pk}"' not in client.get(page_unread).content.decode()
    assert unread_ids(client, ws) == []
    assert client.get(reverse("api-notice-count", args=[ws.slug])).json() == {"unanswered": 1, "unread": 0}

    client.force_login(alice)
    assert f'data-notice="{notice.pk}"' in client.get(page_unread).content.decode()
    assert unread_ids(client, ws) == [notice.pk]
    assert client.get(reverse("api-notice-count", args=[ws.slug])).json() == {"unanswered": 1, "unread": 1}
    listed = client.get(reverse("api-notices", args=[ws.slug])).json()["results"]
    assert listed[0]["read_at"] is None  # alice's own state, not bob's

    first = NoticeRead.objects.get(notice=notice, user=bob).read_at
    client.force_login(bob)
    client.get(reverse("notice_detail", args=[ws.slug, notice.pk]))
    assert NoticeRead.objects.get(notice=notice, user=bob).read_at == first  # the first opening counts


def test_a_member_marks_a_notice_unread_again_for_themselves(team: dict[str, Any], client: Client) -> None:
    ws, notice, alice, bob = team["ws"], team["notice"], team["alice"], team["bob"]
    notice_mark_read(notice=notice, user=alice)
    notice_mark_read(notice=notice, user=bob)

    client.force_login(bob)  # a reader may: it is their own state
    response = client.post(reverse("notice_unread", args=[ws.slug, notice.pk]))
    assert response.status_code == 302 and response["Location"].endswith("?status=olasta")
    assert unread_ids(client, ws) == [notice.pk]
    assert set(NoticeRead.objects.filter(notice=notice).values_list("user", flat=True)) == {alice.pk}

    api = reverse("api-notice-read", args=[ws.slug, notice.pk])
    assert client.post(api).json()["read_at"] is not None and unread_ids(client, ws) == []
    assert client.delete(api).json()["read_at"] is None and unread_ids(client, ws) == [notice.pk]


def test_an_answered_notice_is_unread_for_nobody_and_read_for_the_one_who_answered(team: dict[str, Any]) -> None:
    ws, notice, alice, bob = team["ws"], team["notice"], team["alice"], team["bob"]

    notice_answer(notice=notice, user=alice, affects_us="no")

    assert NoticeRead.objects.filter(notice=notice, user=alice).exists()
    assert not NoticeRead.objects.filter(notice=notice, user=bob).exists()
    assert list(notice_list(ws, bob, state="olasta")) == []
    assert notice_counts(bob, ws.slug).unread == 0 and notice_counts(bob, ws.slug).unanswered == 0


def test_another_workspaces_notice_cannot_be_read_or_unread(team: dict[str, Any], client: Client) -> None:
    ws, charlies_notice = team["ws"], team["charlies_notice"]
    client.force_login(team["alice"])
    for url in (reverse("notice_detail", args=[ws.slug, charlies_notice.pk]),
                reverse("notice_unread", args=[ws.slug, charlies_notice.pk]),
                reverse("api-notice-read", args=[ws.slug, charlies_notice.pk])):
        response = client.get(url) if "detail" in url or url.endswith(f"/{charlies_notice.pk}/") else client.post(url)
        assert response.status_code == 404, url
    assert client.delete(reverse("api-notice-read", args=[ws.slug, charlies_notice.pk])).status_code == 404
    assert not NoticeRead.objects.filter(notice=charlies_notice).exists()
    assert notice_counts(team["alice"], "charlies-ab").unread == 0  # not a member: nothing to count
