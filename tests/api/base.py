"""Shared setup for the API tests: alice owns, bob edits, charlie is an outsider."""

from __future__ import annotations

import unittest

from django.contrib.auth.models import User
from django.core.cache import cache
from django.http import HttpResponse
from rest_framework.test import APIClient

from chunks.models import ContentChunk, SourceType
from chunks.services import source_progress_refresh
from compliance.models import Assessment, LegalDocument, UserFile
from compliance.services import api_token_create
from tests.helpers import BaseTestCase

API = "/api/v1"
WS = f"{API}/workspaces/alices-ab"
CWS = f"{API}/workspaces/charlies-ab"


def assert_error(testcase: unittest.TestCase, response: HttpResponse, status: int, code: str | None = None) -> dict:
    testcase.assertEqual(response.status_code, status, getattr(response, "content", b"")[:500])
    body = response.json()
    testcase.assertEqual(set(body), {"error"}, body)
    testcase.assertEqual(set(body["error"]), {"code", "message", "details"}, body)
    testcase.assertTrue(body["error"]["message"])
    if code is not None:
        testcase.assertEqual(body["error"]["code"], code, body)
    return body["error"]


class ApiTestCase(BaseTestCase):
    client_class = APIClient

    def setUp(self) -> None:
        super().setUp()
        cache.clear()  # throttling counters

    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.statute = LegalDocument.objects.create(
            sfs_number="1977:1160", title="Arbetsmiljölag (1977:1160)", full_text="1 § Text.",
            short_names=["arbetsmiljölagen"], abbreviations=["AML"], content_type="SFS_LAW",
        )
        cls.ordinance = LegalDocument.objects.create(
            sfs_number="1977:1166", title="Arbetsmiljöförordning (1977:1166)", full_text="1 § Text.",
            content_type="SFS_ORDINANCE",
        )
        chunk = dict(source_type=SourceType.LEGAL_DOCUMENT, legal_document=cls.statute,
                     document_number="1977:1160", document_title=cls.statute.title, content_hash="x")
        ContentChunk.objects.create(**chunk, header="AML > 1 kap. > 1 §", path="00000.00000", ordinal=0,
                                    citation="1 kap. 1 §", text="Lagens ändamål är att förebygga ohälsa.")
        # 3 kap. 2 a § was split in two parts: the API gives it back whole.
        ContentChunk.objects.create(**chunk, header="AML > 3 kap. > 2 a §", path="00001.00000", ordinal=1,
                                    citation="3 kap. 2 a §", text="Första delen.")
        ContentChunk.objects.create(**chunk, header="AML > 3 kap. > 2 a §", path="00001.00001", ordinal=2,
                                    citation="3 kap. 2 a §", text="Andra delen.")
        # The figures come from the per-source counters that ingestion keeps; these hand-made chunks
        # get them from the same service the worker calls.
        source_progress_refresh({(SourceType.LEGAL_DOCUMENT, cls.statute.pk)})
        cls.alice_file = UserFile.objects.create(workspace=cls.workspace, title="Policy", original_name="policy.txt",
                                                 file="workspaces/x/policy.txt", size=10)
        cls.charlie_file = UserFile.objects.create(workspace=cls.charlies_workspace, title="Hemlig",
                                                   original_name="hemlig.txt", file="workspaces/y/hemlig.txt",
                                                   size=10)
        cls.alice_assessment = Assessment.objects.create(workspace=cls.workspace, title="Riskbedömning",
                                                         legal_document=cls.statute)
        cls.charlie_assessment = Assessment.objects.create(workspace=cls.charlies_workspace, title="Charlies krav")

    def auth(self, user: User) -> str:
        """Authenticate the client with a fresh API token of `user`."""
        key = api_token_create(user=user, name="test").key
        self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
        return key
