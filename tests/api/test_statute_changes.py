"""GET /api/v1/statutes/<number>/changes/: what changed in one document, as its page and the assistant have it.

Our statute (2099:1) synced through `sync_sfs` with a record of our own (tests.law.sfs_records_fixtures): 2099:10
amends 2 §, repeals 3 § and adds 5 §; 2099:11 adds 6 § from 2100-07-01; 4 § became 4 a § with no act named."""

from __future__ import annotations

import tempfile
from pathlib import Path

from django.test import override_settings

from compliance.models import LegalDocument
from compliance.services import LegalDocumentData, legal_document_upsert
from tests.chunks.conftest import purge_test_queue
from tests.law.sfs_records_fixtures import provforetag_statute, record
from tests.register.notices_fixtures import sync_records

from .base import API, ApiTestCase, assert_error


@override_settings(SFS_VECTORS_PATH="/nonexistent/none.npz")
class StatuteChangesTests(ApiTestCase):
    def setUp(self) -> None:
        super().setUp()
        # Syncing a record queues the statute's chunking on the test broker, with no worker to take it.
        purge_test_queue()
        self.addCleanup(purge_test_queue)
        self.auth(self.charlie)  # shared law: any authenticated user
        self.statute = provforetag_statute()

    def sync(self, **fields: object) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            sync_records(Path(tmp), [record("2099:1", **fields)])

    def changes(self, number: str = "2099:1") -> dict:
        response = self.client.get(f"{API}/statutes/{number}/changes/")
        self.assertEqual(response.status_code, 200, response.content)
        return response.json()

    def test_a_synced_statute_lists_its_amending_acts_newest_first(self) -> None:
        self.sync()
        body = self.changes()

        self.assertEqual((body["document_number"], body["title"], body["changes_read"]),
                         ("2099:1", "Lag (2099:1) om provföretag", True))
        self.assertEqual((body["amended_through"], body["records_through"], body["repeal"]),
                         ("SFS 2099:11", "2100-01-01", None))
        self.assertEqual([act["amending_sfs"] for act in body["acts"]], ["2099:11", "2099:10", ""])
        acts = {act["amending_sfs"]: act for act in body["acts"]}
        self.assertEqual((acts["2099:11"]["in_force"], acts["2099:11"]["coming"]), ("2100-07-01", True))
        self.assertEqual(acts["2099:11"]["units"], [{"citation": "6 §", "old_citation": "", "kind": "ADDED"}])
        self.assertEqual([(u["citation"], u["kind"]) for u in acts["2099:10"]["units"]],
                         [("2 §", "AMENDED"), ("3 §", "REPEALED"), ("5 §", "ADDED")])
        self.assertEqual(acts[""]["units"], [{"citation": "4 a §", "old_citation": "4 §", "kind": "RENUMBERED"}])

    def test_a_statute_without_records_and_a_repealed_one(self) -> None:
        body = self.changes()
        self.assertEqual((body["acts"], body["amended_through"], body["valid_from"], body["records_through"]),
                         ([], "SFS 2099:5", None, None))

        self.sync(repealed_on="2100-01-01T00:00:00", repealed_by="SFS 2099:99")
        self.assertEqual(self.changes()["repeal"], {"repealed_by": "SFS 2099:99", "repealed_on": "2100-01-01"})

    def test_a_regulation_says_its_changes_are_not_read(self) -> None:
        legal_document_upsert(LegalDocumentData(sfs_number="AFS 2099:1", title="Föreskrifter om prov",
                                                full_text="1 § Arbetsgivaren ska prova.",
                                                content_type=LegalDocument.ContentType.AGENCY_REGULATION,
                                                agency="Arbetsmiljöverket", series="AFS"), process=False)
        body = self.changes("AFS_2099:1")
        self.assertEqual((body["changes_read"], body["acts"]), (False, []))

    def test_unknown_or_malformed_number_is_404_and_no_token_is_401(self) -> None:
        for sfs in ("1999:1", "nonsense", "%F0%9F%92%A9"):
            with self.subTest(sfs=sfs):
                assert_error(self, self.client.get(f"{API}/statutes/{sfs}/changes/"), 404, "not_found")
        self.client.credentials()
        assert_error(self, self.client.get(f"{API}/statutes/2099:1/changes/"), 401, "not_authenticated")
