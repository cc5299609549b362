"""No IDOR: every workspace endpoint is a 404 for outsiders, and another
workspace's object ids are a 404 even through the caller's own workspace."""

from __future__ import annotations

from django.http import HttpResponse

from agent.models import Conversation, Message
from compliance import selectors, services
from compliance.models import Membership
from glossary import services as glossary_services
from glossary.models import Term

from .base import API, CWS, WS, ApiTestCase, assert_error


class IsolationTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.alice_conv = Conversation.objects.create(workspace=cls.workspace, user=cls.alice, title="A")
        cls.alice_msg = Message.objects.create(conversation=cls.alice_conv, role="assistant", content="svar")
        cls.charlie_conv = Conversation.objects.create(workspace=cls.charlies_workspace, user=cls.charlie)
        cls.charlie_msg = Message.objects.create(conversation=cls.charlie_conv, role="assistant", content="svar")
        cls.charlie_membership = Membership.objects.get(user=cls.charlie)
        cls.bob_membership = Membership.objects.get(user=cls.bob)
        cls.alice_fact = services.profile_fact_add(workspace=cls.workspace, user=cls.alice, text="Alices uppgift")
        cls.charlie_fact = services.profile_fact_add(workspace=cls.charlies_workspace, user=cls.charlie,
                                                     text="Charlies uppgift")
        cls.alice_term = glossary_services.term_create(workspace=cls.workspace, user=cls.alice, word="hyrpersonal",
                                                       law_words="inhyrd arbetskraft")
        cls.charlie_term = glossary_services.term_create(workspace=cls.charlies_workspace, user=cls.charlie,
                                                         word="skyddsrond", law_words="undersökning av arbetsförhållanden")
        cls.alice_msg.proposals = [{"kind": "profile", "field": "employee_count", "value": 45,
                                    "label": "Antal anställda: 45", "status": "pending"}]
        cls.alice_msg.save()
        cls.charlie_msg.proposals = cls.alice_msg.proposals
        cls.charlie_msg.save()

    def endpoints(self, base: str, *, file_id: int, assessment_id: int, conv_id: int, msg_id: int, member_id: int,
                  fact_id: int, term_id: int) -> list[tuple[str, str, dict | None]]:
        return [
            ("get", f"{base}/", None),
            ("get", f"{base}/stats/", None),
            ("get", f"{base}/metrics", None),
            ("get", f"{base}/members/", None),
            ("post", f"{base}/members/", {"username": "bob", "role": "viewer"}),
            ("patch", f"{base}/members/{member_id}/", {"role": "viewer"}),
            ("delete", f"{base}/members/{member_id}/", None),
            ("get", f"{base}/files/", None),
            ("get", f"{base}/files/{file_id}/", None),
            ("get", f"{base}/files/{file_id}/download/", None),
            ("delete", f"{base}/files/{file_id}/", None),
            ("get", f"{base}/assessments/", None),
            ("post", f"{base}/assessments/", {"title": "x"}),
            ("get", f"{base}/assessments/{assessment_id}/", None),
            ("put", f"{base}/assessments/{assessment_id}/", {"title": "x"}),
            ("patch", f"{base}/assessments/{assessment_id}/", {"notes": "x"}),
            ("delete", f"{base}/assessments/{assessment_id}/", None),
            ("post", f"{base}/search", {"query": "arbetsmiljö"}),
            ("post", f"{base}/context", {"query": "arbetsmiljö"}),
            ("get", f"{base}/conversations/", None),
            ("post", f"{base}/conversations/", {"title": "x"}),
            ("get", f"{base}/conversations/{conv_id}/", None),
            ("post", f"{base}/conversations/{conv_id}/messages", {"content": "hej"}),
            ("post", f"{base}/conversations/{conv_id}/messages?stream=true", {"content": "hej"}),
            ("post", f"{base}/conversations/{conv_id}/messages/{msg_id}/feedback", {"rating": 1}),
            ("post", f"{base}/conversations/{conv_id}/messages/{msg_id}/proposals/0", {"decision": "save"}),
            ("get", f"{base}/profile", None),
            ("patch", f"{base}/profile", {"employee_count": 3}),
            ("delete", f"{base}/profile", None),
            ("post", f"{base}/profile/facts", {"text": "x"}),
            ("delete", f"{base}/profile/facts/{fact_id}", None),
            ("get", f"{base}/preferences", None),
            ("patch", f"{base}/preferences", {"role": "x"}),
            ("delete", f"{base}/preferences", None),
            ("get", f"{base}/glossary/", None),
            ("post", f"{base}/glossary/", {"word": "bemanning", "law_words": "inhyrd arbetskraft"}),
            ("get", f"{base}/glossary/{term_id}/", None),
            ("patch", f"{base}/glossary/{term_id}/", {"law_words": "x y"}),
            ("delete", f"{base}/glossary/{term_id}/", None),
            ("get", f"{base}/glossary/export/xlsx", None),
            ("get", f"{base}/glossary/export/csv", None),
            ("post", f"{base}/glossary/import/", None),
        ]

    def call(self, method: str, url: str, body: dict | None) -> HttpResponse:
        return getattr(self.client, method)(url, body, format="json") if body is not None \
            else getattr(self.client, method)(url)

    def test_outsider_gets_404_everywhere(self) -> None:
        self.auth(self.charlie)
        ids = dict(file_id=self.alice_file.pk, assessment_id=self.alice_assessment.pk, conv_id=self.alice_conv.pk,
                   msg_id=self.alice_msg.pk, member_id=self.bob_membership.pk,
                   fact_id=self.alice_fact.pk, term_id=self.alice_term.pk)
        for method, url, body in self.endpoints(WS, **ids):
            with self.subTest(method=method, url=url):
                assert_error(self, self.call(method, url, body), 404, "not_found")

    def test_other_workspaces_ids_through_own_workspace_are_404(self) -> None:
        self.auth(self.alice)
        ids = dict(file_id=self.charlie_file.pk, assessment_id=self.charlie_assessment.pk,
                   conv_id=self.charlie_conv.pk, msg_id=self.charlie_msg.pk, member_id=self.charlie_membership.pk,
                   fact_id=self.charlie_fact.pk, term_id=self.charlie_term.pk)
        for method, url, body in self.endpoints(WS, **ids):
            if url.rstrip("/") in (WS, f"{WS}/stats", f"{WS}/metrics", f"{WS}/members", f"{WS}/files", f"{WS}/assessments",
                                   f"{WS}/search", f"{WS}/context", f"{WS}/conversations", f"{WS}/profile",
                                   f"{WS}/profile/facts", f"{WS}/preferences", f"{WS}/glossary",
                                   f"{WS}/glossary/export/xlsx", f"{WS}/glossary/export/csv", f"{WS}/glossary/import"):
                continue  # no object id in these
            with self.subTest(method=method, url=url):
                assert_error(self, self.call(method, url, body), 404, "not_found")
        # Nothing of charlie's was touched.
        self.charlie_file.refresh_from_db()
        self.assertIsNone(self.charlie_file.deleted_at)
        self.charlie_assessment.refresh_from_db()
        self.assertEqual(self.charlie_assessment.title, "Charlies krav")
        self.assertTrue(Membership.objects.filter(pk=self.charlie_membership.pk, role="owner").exists())
        self.assertFalse(self.charlie_msg.feedback.exists())
        self.assertTrue(selectors.profile_fact_list(self.charlies_workspace).filter(pk=self.charlie_fact.pk).exists())
        self.charlie_msg.refresh_from_db()
        self.assertEqual(self.charlie_msg.proposals[0]["status"], "pending")
        self.assertEqual(Term.objects.get(pk=self.charlie_term.pk).law_words, "undersökning av arbetsförhållanden")

    def test_charlies_workspace_is_404_for_alice(self) -> None:
        self.auth(self.alice)
        ids = dict(file_id=self.charlie_file.pk, assessment_id=self.charlie_assessment.pk,
                   conv_id=self.charlie_conv.pk, msg_id=self.charlie_msg.pk, member_id=self.charlie_membership.pk,
                   fact_id=self.charlie_fact.pk, term_id=self.charlie_term.pk)
        for method, url, body in self.endpoints(CWS, **ids):
            with self.subTest(method=method, url=url):
                assert_error(self, self.call(method, url, body), 404, "not_found")

    def test_another_members_conversation_is_404(self) -> None:
        """Conversations are personal: bob, a member, cannot read or write alice's."""
        self.auth(self.bob)
        base = f"{WS}/conversations/{self.alice_conv.pk}"
        assert_error(self, self.client.get(f"{base}/"), 404)
        assert_error(self, self.client.post(f"{base}/messages", {"content": "hej"}, format="json"), 404)
        assert_error(self, self.client.post(f"{base}/messages/{self.alice_msg.pk}/feedback", {"rating": -1},
                                            format="json"), 404)
        self.assertEqual(self.client.get(f"{WS}/conversations/").json()["count"], 0)

    def test_workspace_list_only_shows_own(self) -> None:
        self.auth(self.charlie)
        body = self.client.get(f"{API}/workspaces/").json()
        self.assertEqual([w["slug"] for w in body["results"]], ["charlies-ab"])
        self.assertEqual(body["results"][0]["role"], "owner")

    def test_unauthenticated_is_401_everywhere(self) -> None:
        ids = dict(file_id=self.alice_file.pk, assessment_id=self.alice_assessment.pk, conv_id=self.alice_conv.pk,
                   msg_id=self.alice_msg.pk, member_id=self.bob_membership.pk,
                   fact_id=self.alice_fact.pk, term_id=self.alice_term.pk)
        extra = [("get", f"{API}/workspaces/", None), ("get", f"{API}/tokens/", None),
                 ("post", f"{API}/tokens/", {"name": "x"}), ("get", f"{API}/statutes/", None),
                 ("get", f"{API}/statutes/1977:1160/", None), ("get", f"{API}/statutes/1977:1160/changes/", None)]
        for method, url, body in extra + self.endpoints(WS, **ids):
            with self.subTest(method=method, url=url):
                response = self.call(method, url, body)
                assert_error(self, response, 401, "not_authenticated")
                self.assertEqual(response["WWW-Authenticate"], "Bearer")
