from __future__ import annotations

from compliance.models import Assessment, Membership

from .base import WS, ApiTestCase, assert_error


class AssessmentTests(ApiTestCase):
    def test_crud(self) -> None:
        self.auth(self.bob)
        response = self.client.post(f"{WS}/assessments/", {
            "title": "Systematiskt arbetsmiljöarbete", "legal_document": "1977:1160", "section_ref": "3 kap. 2 a §",
            "compliance_status": "partial", "notes": "Rutiner saknas.", "owner": "alice", "due_date": "2025-06-30",
        }, format="json")
        self.assertEqual(response.status_code, 201, response.content)
        body = response.json()
        self.assertEqual(body["legal_document"], {"sfs_number": "1977:1160", "title": "Arbetsmiljölag (1977:1160)"})
        self.assertEqual(body["owner"]["username"], "alice")
        self.assertEqual((body["compliance_status"], body["due_date"], body["status"]),
                         ("partial", "2025-06-30", "pending"))
        url = f"{WS}/assessments/{body['id']}/"

        response = self.client.patch(url, {"compliance_status": "compliant", "owner": str(self.bob.pk)},
                                     format="json")
        self.assertEqual(response.status_code, 200, response.content)
        self.assertEqual((response.json()["compliance_status"], response.json()["owner"]["username"]),
                         ("compliant", "bob"))
        self.assertEqual(response.json()["notes"], "Rutiner saknas.")  # untouched by PATCH

        response = self.client.put(url, {"title": "Nytt krav", "notes": "Ny anteckning"}, format="json")
        self.assertEqual(response.status_code, 200, response.content)
        body = response.json()  # PUT replaces: omitted fields are back to their defaults
        self.assertEqual((body["title"], body["notes"], body["legal_document"], body["owner"], body["section_ref"],
                          body["compliance_status"], body["due_date"]),
                         ("Nytt krav", "Ny anteckning", None, None, "", "not_assessed", None))

        self.assertEqual(self.client.get(url).json()["title"], "Nytt krav")
        self.assertEqual(self.client.delete(url).status_code, 204)
        assert_error(self, self.client.get(url), 404)

    def test_list_filters(self) -> None:
        self.auth(self.alice)
        Assessment.objects.create(workspace=self.workspace, title="Dataskydd", compliance_status="compliant",
                                  owner=self.bob)
        titles = lambda q: [a["title"] for a in self.client.get(f"{WS}/assessments/{q}").json()["results"]]  # noqa: E731
        self.assertEqual(titles("?ordering=title"), ["Dataskydd", "Riskbedömning"])
        self.assertEqual(titles("?compliance_status=compliant"), ["Dataskydd"])
        self.assertEqual(titles("?sfs=1977:1160"), ["Riskbedömning"])
        self.assertEqual(titles("?owner=bob"), ["Dataskydd"])
        self.assertEqual(titles("?q=risk"), ["Riskbedömning"])
        for query in ("?compliance_status=maybe", "?sfs=x", "?q=%00"):
            with self.subTest(query=query):
                assert_error(self, self.client.get(f"{WS}/assessments/{query}"), 400)

    def test_owner_must_be_a_member(self) -> None:
        self.auth(self.alice)
        for owner in ("charlie", str(self.charlie.pk), "nobody", "9" * 40):
            with self.subTest(owner=owner):
                error = assert_error(self, self.client.post(f"{WS}/assessments/", {"title": "x", "owner": owner},
                                                            format="json"), 400, "invalid")
                self.assertIn("owner", error["details"])
                self.assertIn("medlem", error["details"]["owner"][0])

    def test_bad_input_is_400(self) -> None:
        self.auth(self.alice)
        cases = [
            {},
            {"title": ""},
            {"title": "x" * 301},
            {"title": "x", "legal_document": "1999:999"},
            {"title": "x", "legal_document": "abc"},
            {"title": "x", "compliance_status": "done"},
            {"title": "x", "due_date": "2025-13-40"},
            {"title": "x", "due_date": 12},
            {"title": "x\x00"},
            {"title": ["x"]},
            {"title": {"a": 1}},
        ]
        for body in cases:
            with self.subTest(body=body):
                assert_error(self, self.client.post(f"{WS}/assessments/", body, format="json"), 400, "invalid")
        self.assertEqual(Assessment.objects.filter(workspace=self.workspace).count(), 1)

    def test_viewer_cannot_write(self) -> None:
        Membership.objects.filter(user=self.bob).update(role=Membership.Role.VIEWER)
        self.auth(self.bob)
        url = f"{WS}/assessments/{self.alice_assessment.pk}/"
        self.assertEqual(self.client.get(url).status_code, 200)
        self.assertEqual(self.client.get(f"{WS}/assessments/").json()["count"], 1)
        assert_error(self, self.client.post(f"{WS}/assessments/", {"title": "x"}, format="json"), 403)
        assert_error(self, self.client.patch(url, {"title": "y"}, format="json"), 403)
        assert_error(self, self.client.put(url, {"title": "y"}, format="json"), 403)
        assert_error(self, self.client.delete(url), 403)
        self.assertEqual(Assessment.objects.get(pk=self.alice_assessment.pk).title, "Riskbedömning")
