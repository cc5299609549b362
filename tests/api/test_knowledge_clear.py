"""POST workspaces/<slug>/knowledge/clear: the owner soft-deletes every file and assessment of the workspace."""

from __future__ import annotations

from compliance.models import Assessment, LegalDocument, UserFile, Workspace

from .base import API, CWS, WS, ApiTestCase, assert_error

CLEAR = f"{WS}/knowledge/clear"


class KnowledgeClearApiTests(ApiTestCase):
    def test_owner_clears_and_gets_the_counts(self) -> None:
        Assessment.objects.create(workspace=self.workspace, title="Andra kravet")
        version_before = self.workspace.knowledge_version
        self.auth(self.alice)
        response = self.client.post(CLEAR)
        self.assertEqual(response.status_code, 200, response.content)
        self.assertEqual(response.json(), {"files": 1, "assessments": 2})

        self.assertEqual(self.client.get(f"{WS}/files/").json()["count"], 0)
        self.assertEqual(self.client.get(f"{WS}/assessments/").json()["count"], 0)
        assert_error(self, self.client.get(f"{WS}/files/{self.alice_file.pk}/"), 404, "not_found")
        assert_error(self, self.client.get(f"{WS}/assessments/{self.alice_assessment.pk}/"), 404, "not_found")
        assert_error(self, self.client.patch(f"{WS}/assessments/{self.alice_assessment.pk}/", {"notes": "x"},
                                             format="json"), 404, "not_found")
        stats = self.client.get(f"{WS}/stats/").json()
        self.assertEqual((stats["files"], stats["assessments"], stats["statutes"]), (0, 0, 2))
        self.assertIsNotNone(UserFile.objects.get(pk=self.alice_file.pk).deleted_at)  # soft: the row stays
        self.assertGreater(Workspace.objects.get(pk=self.workspace.pk).knowledge_version, version_before)
        # Statutes are shared; another workspace keeps everything.
        self.assertEqual(self.client.get(f"{API}/statutes/1977:1160/").status_code, 200)
        self.assertEqual(LegalDocument.objects.count(), 2)
        self.assertIsNone(UserFile.objects.get(pk=self.charlie_file.pk).deleted_at)
        self.assertIsNone(Assessment.objects.get(pk=self.charlie_assessment.pk).deleted_at)

        self.assertEqual(self.client.post(CLEAR).json(), {"files": 0, "assessments": 0})

    def test_editors_get_403(self) -> None:
        self.auth(self.bob)
        assert_error(self, self.client.post(CLEAR), 403, "permission_denied")
        self.assertIsNone(UserFile.objects.get(pk=self.alice_file.pk).deleted_at)
        self.assertIsNone(Assessment.objects.get(pk=self.alice_assessment.pk).deleted_at)

    def test_it_checks_ownership(self) -> None:
        self.auth(self.charlie)
        assert_error(self, self.client.post(CLEAR), 404, "not_found")
        self.assertIsNone(UserFile.objects.get(pk=self.alice_file.pk).deleted_at)
        self.assertIsNone(Assessment.objects.get(pk=self.alice_assessment.pk).deleted_at)
        # Charlie's own works, and leaves alice's alone.
        self.assertEqual(self.client.post(f"{CWS}/knowledge/clear").json(), {"files": 1, "assessments": 1})
        self.assertIsNone(UserFile.objects.get(pk=self.alice_file.pk).deleted_at)

    def test_only_post(self) -> None:
        self.auth(self.alice)
        assert_error(self, self.client.get(CLEAR), 405)
        self.assertIsNone(UserFile.objects.get(pk=self.alice_file.pk).deleted_at)

    def test_it_is_in_the_schema(self) -> None:
        schema = self.client.get(f"{API}/schema/?format=json").json()
        operation = schema["paths"]["/api/v1/workspaces/{slug}/knowledge/clear"]["post"]
        ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        body = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
        self.assertEqual(set(body["properties"]), {"files", "assessments"})
        self.assertIn("403", operation["responses"])
