"""Isolation of change notices as a property: whatever the workspaces, members, laglistor and answers, a user
sees (page, API, header count, digest) exactly the notices of the workspaces they are a member of, each
workspace's notices are those of the documents on its own laglista, and another workspace's notice is a 404."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
from django.core import mail
from django.db import transaction
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from pytest_django import Settings

from compliance.clock import STOCKHOLM
from compliance.models import Membership, Workspace
from compliance.services import LegalDocumentData, legal_document_upsert
from law.models import StatuteVersion
from law.services import statute_record_apply
from law.sfs_records import parse_record
from register.models import ChangeNotice, LegalRegister, RegisterItem
from register.notices.digests import digests_send
from register.notices.services import notice_answer, notices_create_for_versions
from tests.helpers import make_user
from tests.law.sfs_records_fixtures import OLD_TEXT, record

pytestmark = pytest.mark.django_db

NUMBERS = ("2099:1", "2099:2")
MORNING = datetime(2026, 11, 23, 8, 0, tzinfo=STOCKHOLM)
_LINK_RE = re.compile(r"https?://[^/\s]+/ws/([\w-]+)/lagandringar/(\d+)/")

memberships_strategy = st.lists(st.lists(st.booleans(), min_size=3, max_size=3), min_size=2, max_size=2)
registers_strategy = st.lists(st.lists(st.booleans(), min_size=2, max_size=2), min_size=3, max_size=3)
answered_strategy = st.lists(st.booleans(), min_size=3, max_size=3)


@hsettings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@given(memberships=memberships_strategy, registers=registers_strategy, answered=answered_strategy)
def test_notices_reach_only_their_workspaces_members(settings: Settings, memberships: list[list[bool]],
                                                     registers: list[list[bool]], answered: list[bool]) -> None:
    settings.SITE_URL = "https://lagrum.example.se"
    mail.outbox = []
    with transaction.atomic():
        docs = [legal_document_upsert(LegalDocumentData(sfs_number=n, title=f"Lag ({n}) om prov", full_text=OLD_TEXT,
                                                        amended_through="SFS 2099:5"), process=False).document
                for n in NUMBERS]
        owner = make_user("owner")
        workspaces = [Workspace.objects.create(name=f"Ws {w}", slug=f"ws-{w}") for w in range(3)]
        for w, workspace in enumerate(workspaces):
            Membership.objects.create(user=owner, workspace=workspace, role=Membership.Role.OWNER)
            register = LegalRegister.objects.create(workspace=workspace, name="Laglista")
            for d, holds in enumerate(registers[w]):
                if holds:
                    RegisterItem.objects.create(register=register, workspace=workspace, legal_document=docs[d])
        users = [make_user(f"user{u}") for u in range(2)]
        for user, row in zip(users, memberships):
            for workspace, member in zip(workspaces, row):
                if member:
                    Membership.objects.create(user=user, workspace=workspace, role=Membership.Role.EDITOR)
        for number in NUMBERS:
            statute_record_apply(parse_record(record(number, title=f"Lag ({number}) om prov")),
                                 origin=StatuteVersion.Origin.FILE, source_name="r.jsonl", new_since=None,
                                 process=False)
        notices_create_for_versions()
        for w, workspace in enumerate(workspaces):
            first = ChangeNotice.objects.filter(workspace=workspace).order_by("pk").first()
            if answered[w] and first is not None:
                notice_answer(notice=first, user=owner, affects_us="no")

        expected = {w: {n.pk for n in ChangeNotice.objects.filter(workspace=workspace)}
                    for w, workspace in enumerate(workspaces)}
        for w, workspace in enumerate(workspaces):
            held = {docs[d].pk for d, holds in enumerate(registers[w]) if holds}
            assert set(ChangeNotice.objects.filter(workspace=workspace).values_list("legal_document_id",
                                                                                     flat=True)) == held
        all_ids = set().union(*expected.values())

        digests_send(now=MORNING)
        client = Client()
        for u, (user, row) in enumerate(zip(users, memberships)):
            client.force_login(user)
            for w, (workspace, member) in enumerate(zip(workspaces, row)):
                api = client.get(reverse("api-notices", args=[workspace.slug]))
                page = client.get(reverse("notice_list", args=[workspace.slug]))
                if not member:
                    assert api.status_code == 404 and page.status_code == 404
                    for notice_id in expected[w]:
                        assert client.get(reverse("notice_detail", args=[workspace.slug, notice_id])).status_code == 404
                    continue
                assert {row["id"] for row in api.json()["results"]} == expected[w]
                listed = {int(i) for i in re.findall(r'data-notice="(\d+)"', page.content.decode())}
                assert listed == expected[w]
                for notice_id in all_ids - expected[w]:  # another workspace's notice under this slug
                    assert client.get(reverse("notice_detail", args=[workspace.slug, notice_id])).status_code == 404
                    assert client.get(reverse("api-notice", args=[workspace.slug, notice_id])).status_code == 404
                unanswered = ChangeNotice.objects.filter(workspace=workspace, answered_at__isnull=True).count()
                # Nobody opened a notice here: unread for each member is what is unanswered.
                assert client.get(reverse("api-notice-count", args=[workspace.slug])).json() == {
                    "unanswered": unanswered, "unread": unanswered}
            # Each digest names one workspace the user belongs to and links only that workspace's notices.
            for message in [m for m in mail.outbox if m.to == [user.email]]:
                links = _LINK_RE.findall(message.body)
                assert links
                slugs = {slug for slug, _ in links}
                assert len(slugs) == 1
                w = int(slugs.pop().split("-")[1])
                assert row[w]
                assert {int(i) for _, i in links} <= expected[w]
        transaction.set_rollback(True)
