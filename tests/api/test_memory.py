"""The profile and preferences API: read, change, clear; structured Swedish 400s; roles; privacy."""

from __future__ import annotations

from agent.models import Conversation, Message
from compliance import selectors, services
from compliance.models import Membership

from .base import WS, ApiTestCase, assert_error


class ProfileApiTests(ApiTestCase):
    def test_patch_get_and_origin(self) -> None:
        self.auth(self.alice)
        r = self.client.patch(f"{WS}/profile", {"employee_count": 45, "has_collective_agreement": True,
                                                "collective_agreement": "Unionen"}, format="json")
        self.assertEqual(r.status_code, 200, r.content)
        body = self.client.get(f"{WS}/profile").json()
        self.assertEqual((body["employee_count"], body["collective_agreement"]), (45, "Unionen"))
        self.assertEqual(body["origins"]["employee_count"]["origin"], "api")
        self.assertEqual(body["facts"], [])

    def test_absurd_values_are_structured_400s_and_nothing_is_lost(self) -> None:
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 45})
        self.auth(self.alice)
        for data, code, field in (({"employee_count": -3}, "negative", "employee_count"),
                                  ({"industry": "x" * 100_000}, "too_long", "industry"),
                                  # DRF refuses the NUL byte itself, in Swedish, naming the field
                                  ({"location": "Umeå\u0000"}, "invalid", "location"),
                                  ({"location": "Umeå\u0007"}, "invalid_characters", "location"),
                                  ({"industry": "<img src=x onerror=alert(1)>"}, "html_not_allowed", "industry"),
                                  ({"sector": "kommunal"}, "invalid_choice", "sector")):
            with self.subTest(code=code):
                error = assert_error(self, self.client.patch(f"{WS}/profile", data, format="json"), 400, code)
                self.assertIn(field, error["details"])
        error = assert_error(self, self.client.patch(f"{WS}/profile", {"employee_count": "många"}, format="json"),
                             400, "invalid")
        self.assertIn("employee_count", error["details"])
        self.assertEqual(selectors.workspace_profile_get(self.workspace).employee_count, 45)

    def test_facts_add_and_delete(self) -> None:
        self.auth(self.bob)
        r = self.client.post(f"{WS}/profile/facts", {"text": "Vi har lager i Borås"}, format="json")
        self.assertEqual(r.status_code, 201)
        fact_id = r.json()["id"]
        self.assertEqual(self.client.get(f"{WS}/profile").json()["facts"][0]["text"], "Vi har lager i Borås")
        error = assert_error(self, self.client.post(f"{WS}/profile/facts", {"text": "a\u0000"}, format="json"), 400)
        self.assertIn("text", error["details"])
        self.assertEqual(self.client.delete(f"{WS}/profile/facts/{fact_id}").status_code, 204)
        self.assertEqual(self.client.get(f"{WS}/profile").json()["facts"], [])

    def test_reader_may_read_but_not_write(self) -> None:
        Membership.objects.filter(user=self.bob).update(role=Membership.Role.VIEWER)
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 45})
        self.auth(self.bob)
        self.assertEqual(self.client.get(f"{WS}/profile").json()["employee_count"], 45)
        assert_error(self, self.client.patch(f"{WS}/profile", {"employee_count": 3}, format="json"), 403)
        assert_error(self, self.client.delete(f"{WS}/profile"), 403)
        assert_error(self, self.client.post(f"{WS}/profile/facts", {"text": "x y z"}, format="json"), 403)

    def test_clear(self) -> None:
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 45})
        self.auth(self.alice)
        self.assertEqual(self.client.delete(f"{WS}/profile").status_code, 204)
        self.assertIsNone(self.client.get(f"{WS}/profile").json()["employee_count"])


class PreferenceApiTests(ApiTestCase):
    def test_own_preferences_only(self) -> None:
        self.auth(self.alice)
        r = self.client.patch(f"{WS}/preferences", {"role": "HR-chef", "language": "en"}, format="json")
        self.assertEqual(r.status_code, 200, r.content)
        self.assertEqual(r.json()["role"], "HR-chef")
        self.auth(self.bob)
        self.assertEqual(self.client.get(f"{WS}/preferences").json()["role"], "")
        self.client.delete(f"{WS}/preferences")
        self.assertEqual(selectors.preference_get(self.workspace, self.alice).role, "HR-chef")

    def test_bad_preference_is_a_structured_400(self) -> None:
        self.auth(self.alice)
        error = assert_error(self, self.client.patch(f"{WS}/preferences", {"language": "fr"}, format="json"), 400,
                             "invalid_choice")
        self.assertIn("language", error["details"])


class ProposalApiTests(ApiTestCase):
    def test_save_and_decline(self) -> None:
        conversation = Conversation.objects.create(workspace=self.workspace, user=self.alice)
        message = Message.objects.create(conversation=conversation, role="assistant", content="svar", proposals=[
            {"kind": "profile", "field": "employee_count", "value": 45, "label": "Antal anställda: 45",
             "status": "pending"},
            {"kind": "preference", "field": "language", "value": "en", "label": "Svarsspråk: engelska",
             "status": "pending"}])
        self.auth(self.alice)
        base = f"{WS}/conversations/{conversation.pk}/messages/{message.pk}/proposals"
        r = self.client.post(f"{base}/0", {"decision": "save"}, format="json")
        self.assertEqual(r.json()["status"], "saved")
        self.assertEqual(self.client.post(f"{base}/1", {"decision": "decline"}, format="json").json()["status"],
                         "declined")
        assert_error(self, self.client.post(f"{base}/0", {"decision": "save"}, format="json"), 409,
                     "already_decided")
        assert_error(self, self.client.post(f"{base}/7", {"decision": "save"}, format="json"), 404)
        assert_error(self, self.client.post(f"{base}/0", {"decision": "kanske"}, format="json"), 400)
        self.assertEqual(selectors.workspace_profile_get(self.workspace).employee_count, 45)
        self.assertEqual(selectors.preference_get(self.workspace, self.alice).language, "")
        self.assertEqual(self.client.get(f"{WS}/conversations/{conversation.pk}/").json()["messages"][0]
                         ["proposals"][0]["status"], "saved")
