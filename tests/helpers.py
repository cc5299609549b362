"""BaseTestCase and fixtures: alice owns the workspace, bob is a member, charlie is an outsider."""

from __future__ import annotations

import shutil
import tempfile
import threading
import unittest
from collections.abc import Callable
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import connections
from django.test import TestCase

from agent.answering.prepare import PreparedContext
from agent.models import RetrievalLog
from agent.monitoring.retrieval_logs import retrieval_log_save
from chunks.services import chunk_document
from compliance.models import LegalDocument, Membership, Workspace
from compliance.services import LegalDocumentData, legal_document_upsert

PASSWORD = "korrekt-häst-batteri"


def make_user(username: str) -> User:
    return get_user_model().objects.create_user(username=username, email=f"{username}@example.se", password=PASSWORD)


def make_member(workspace: Workspace, username: str, role: str) -> User:
    """A user with `role` in `workspace`: the reader or revisor a test adds beside BaseTestCase's three."""
    user = make_user(username)
    Membership.objects.create(user=user, workspace=workspace, role=role)
    return user


def alice_owning_a_workspace() -> tuple[User, Workspace]:
    """alice, owner of Alices AB: the asker of the retrieval tests on statutes of our own."""
    user = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=user, workspace=ws, role=Membership.Role.OWNER)
    return user, ws


def saved_log(prepared: PreparedContext) -> RetrievalLog:
    """A turn's log saved as its caller saves it (the pre-model step only builds it), read back from the database."""
    saved = retrieval_log_save(prepared.log)
    assert saved is not None
    return RetrievalLog.objects.get(pk=saved.pk)


def chunked_statute(number: str, title: str, text: str) -> LegalDocument:
    """A statute of our own, loaded and chunked in this process (its vectors are left to a worker)."""
    doc = legal_document_upsert(LegalDocumentData(sfs_number=number, title=title, full_text=text),
                                process=False).document
    chunk_document("LEGAL_DOCUMENT", doc.pk)
    return doc


class BaseTestCase(TestCase):
    """Every view gets its ownership test from these three."""

    bob_role = Membership.Role.EDITOR

    @classmethod
    def setUpTestData(cls) -> None:
        cls.alice = make_user("alice")
        cls.bob = make_user("bob")
        cls.charlie = make_user("charlie")
        cls.workspace = Workspace.objects.create(name="Alices AB", slug="alices-ab")
        Membership.objects.create(user=cls.alice, workspace=cls.workspace, role=Membership.Role.OWNER)
        Membership.objects.create(user=cls.bob, workspace=cls.workspace, role=cls.bob_role)
        # charlie has a workspace of his own, so "outsider" is not "has nothing".
        cls.charlies_workspace = Workspace.objects.create(name="Charlies AB", slug="charlies-ab")
        Membership.objects.create(user=cls.charlie, workspace=cls.charlies_workspace, role=Membership.Role.OWNER)

    def login(self, user: User) -> None:
        self.client.force_login(user)


def blocked_media_root(testcase: unittest.TestCase, workspace_id: int) -> Path:
    """A media folder where the workspace's folder is a plain file: the disk refuses every write there."""
    root = Path(tempfile.mkdtemp(prefix="lagrum-blocked-"))
    testcase.addCleanup(shutil.rmtree, root, ignore_errors=True)
    (root / "workspaces").mkdir()
    (root / "workspaces" / str(workspace_id)).write_text("not a folder")
    return root


def run_at_once(*targets: Callable[[], object], timeout: float = 300) -> list[BaseException]:
    """Run each target in a thread of its own, all at once, each on database connections of its own (closed when
    it ends); returns what they raised, which a thread would otherwise only print."""
    errors: list[BaseException] = []

    def run(target: Callable[[], object]) -> None:
        try:
            target()
        except BaseException as exc:  # reported to the test, not lost with the thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(target,)) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return errors
