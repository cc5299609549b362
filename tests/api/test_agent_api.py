"""Search, context preparation and conversations over the API."""

from __future__ import annotations

import json

from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from agent.models import Conversation, Feedback, Message
from chunks.models import ContentChunk, SourceType
from compliance.models import Membership, UserFile

from .base import WS, ApiTestCase, assert_error


class SearchTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        private = UserFile.objects.create(workspace=cls.workspace, title="Privat", original_name="p.txt",
                                          file="p.txt", size=1, is_private=True)
        common = dict(source_type=SourceType.USER_FILE, header="Fil", path="00000.00000", ordinal=0,
                      content_hash="y", text="Brandskyddet och ohälsa: utrymningsvägar ska hållas fria.")
        ContentChunk.objects.create(**common, user_file=cls.alice_file, workspace=cls.workspace)
        ContentChunk.objects.create(**common, user_file=private, workspace=cls.workspace)
        ContentChunk.objects.create(**common, user_file=cls.charlie_file, workspace=cls.charlies_workspace)

    def test_keyword_search_sees_statutes_and_own_files_only(self) -> None:
        self.auth(self.bob)
        response = self.client.post(f"{WS}/search", {"query": "ohälsa", "mode": "keyword", "top_k": 10},
                                    format="json")
        self.assertEqual(response.status_code, 200, response.content)
        body = response.json()
        self.assertEqual(body["mode"], "keyword")
        keys = {r["document_key"] for r in body["results"]}
        self.assertIn(f"USER_FILE:{self.alice_file.pk}", keys)
        self.assertIn(f"LEGAL_DOCUMENT:{self.statute.pk}", keys)
        self.assertNotIn(f"USER_FILE:{self.charlie_file.pk}", keys)
        self.assertEqual(len(keys), 2, keys)  # not the private file either
        self.assertEqual(body["count"], len(body["results"]))
        first = body["results"][0]
        for field in ("score", "vector_similarity", "keyword_rank", "citation", "header", "document_number",
                      "source_type", "source_id", "chunk_id", "reference_match"):
            self.assertIn(field, first)
        # The same search from charlie's side finds his file, never alice's.
        self.auth(self.charlie)
        body = self.client.post("/api/v1/workspaces/charlies-ab/search", {"query": "ohälsa", "mode": "keyword",
                                "source_types": ["USER_FILE"]}, format="json").json()
        self.assertEqual({r["document_key"] for r in body["results"]}, {f"USER_FILE:{self.charlie_file.pk}"})

    def test_search_names_the_words_no_source_the_caller_may_see_uses(self) -> None:
        # Only charlie's workspace writes the word: for bob it is unknown, and charlie's file stays unseen.
        ContentChunk.objects.create(source_type=SourceType.USER_FILE, header="Fil", path="00000.00001", ordinal=1,
                                    content_hash="z", text="Kvarkvisslan ringer vid utrymning.",
                                    user_file=self.charlie_file, workspace=self.charlies_workspace)
        query = {"query": "kvarkvisslan och ohälsa", "mode": "keyword"}
        self.auth(self.bob)
        body = self.client.post(f"{WS}/search", query, format="json").json()
        self.assertEqual(body["unknown_words"], ["kvarkvisslan"])
        self.assertNotIn(f"USER_FILE:{self.charlie_file.pk}", {r["document_key"] for r in body["results"]})
        self.auth(self.charlie)
        body = self.client.post("/api/v1/workspaces/charlies-ab/search", query, format="json").json()
        self.assertEqual(body["unknown_words"], [])

    def test_search_reads_the_membership_once(self) -> None:
        self.auth(self.bob)
        with CaptureQueriesContext(connection) as queries:
            response = self.client.post(f"{WS}/search", {"query": "ohälsa", "mode": "keyword"}, format="json")
        self.assertEqual(response.status_code, 200, response.content)
        memberships = [q for q in queries.captured_queries if "compliance_membership" in q["sql"]]
        self.assertEqual(len(memberships), 1, [q["sql"] for q in memberships])

    def test_options_filter_the_real_search(self) -> None:
        self.auth(self.alice)
        response = self.client.post(f"{WS}/search", {
            "query": "ohälsa", "source_types": ["LEGAL_DOCUMENT"], "content_types": ["SFS_LAW"],
            "sfs_numbers": ["1977:1160"], "date_to": "2100-01-01", "top_k": 5, "mode": "keyword"}, format="json")
        self.assertEqual(response.status_code, 200, response.content)
        body = response.json()
        self.assertEqual((body["mode"], body["degraded"]), ("keyword", False))
        self.assertTrue(body["results"])
        self.assertEqual({(r["source_type"], r["document_number"]) for r in body["results"]},
                         {("LEGAL_DOCUMENT", "1977:1160")})
        self.assertLessEqual(len(body["results"]), 5)
        files_only = self.client.post(f"{WS}/search", {"query": "ohälsa", "source_types": ["USER_FILE"],
                                                       "mode": "keyword"}, format="json").json()
        self.assertEqual({r["source_type"] for r in files_only["results"]}, {"USER_FILE"})

    def test_defaults(self) -> None:
        self.auth(self.alice)
        body = self.client.post(f"{WS}/search", {"query": "ohälsa"}, format="json").json()
        self.assertEqual(body["mode"], "hybrid")
        self.assertLessEqual(body["count"], 20)
        self.assertIn("sql", body["timings_ms"])

    def test_retrieval_input_error_is_400(self) -> None:
        self.auth(self.alice)
        error = assert_error(self, self.client.post(f"{WS}/search", {"query": "\x01\x02 "}, format="json"), 400)
        self.assertIn(error["code"], ("empty_query", "invalid"))

    def test_viewer_may_search(self) -> None:
        Membership.objects.filter(user=self.bob).update(role=Membership.Role.VIEWER)
        self.auth(self.bob)
        response = self.client.post(f"{WS}/search", {"query": "ohälsa", "mode": "keyword"}, format="json")
        self.assertEqual(response.status_code, 200)


class ContextTests(ApiTestCase):
    def test_prepares_context_with_citations(self) -> None:
        self.auth(self.alice)
        response = self.client.post(f"{WS}/context", {
            "query": "Vad är lagens ändamål enligt arbetsmiljölagen?", "mode": "keyword",
            "messages": [{"role": "user", "content": "Hej"}, {"role": "assistant", "content": "Hej! Vad undrar du?"}],
        }, format="json")
        self.assertEqual(response.status_code, 200, response.content)
        body = response.json()
        self.assertEqual(set(body), {"messages", "context_text", "citations", "metrics", "intent", "skipped",
                                     "degraded", "unknown_words", "corrections", "glossary"})
        # The act the question names is understood, whether or not a text writes its short name.
        self.assertNotIn("arbetsmiljölagen", body["unknown_words"])
        self.assertNotIn("ändamål", body["unknown_words"])
        self.assertFalse(body["skipped"])
        self.assertEqual(body["messages"][0]["role"], "system")
        self.assertEqual(body["messages"][-1], {"role": "user",
                                                "content": "Vad är lagens ändamål enligt arbetsmiljölagen?"})
        self.assertTrue(any(c.get("chunk_id") for c in body["citations"]), body)
        self.assertIn("ändamål", body["context_text"])

    def test_greeting_skips_retrieval(self) -> None:
        self.auth(self.alice)
        body = self.client.post(f"{WS}/context", {"query": "Hej!"}, format="json").json()
        self.assertTrue(body["skipped"])
        self.assertEqual(body["citations"], [])


class ConversationTests(ApiTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.auth(self.bob)
        response = self.client.post(f"{WS}/conversations/", {"title": "Brand"}, format="json")
        self.assertEqual(response.status_code, 201, response.content)
        self.conv = Conversation.objects.get(pk=response.json()["id"])
        self.base = f"{WS}/conversations/{self.conv.pk}"

    def test_create_list_detail(self) -> None:
        Conversation.objects.create(workspace=self.workspace, user=self.alice, title="Alices")
        listed = self.client.get(f"{WS}/conversations/").json()
        self.assertEqual([c["title"] for c in listed["results"]], ["Brand"])
        detail = self.client.get(f"{self.base}/").json()
        self.assertEqual((detail["title"], detail["messages"]), ("Brand", []))
        assert_error(self, self.client.post(f"{WS}/conversations/", {"title": "x" * 201}, format="json"), 400)

    def test_message_validation(self) -> None:
        for body in ({}, {"content": ""}, {"content": "x" * 8001}, {"content": 1}, {"content": "a\x00"}):
            with self.subTest(body=body):
                assert_error(self, self.client.post(f"{self.base}/messages", body, format="json"), 400)
        assert_error(self, self.client.post(f"{self.base}/messages?stream=kanske", {"content": "x"},
                                            format="json"), 400)

    def test_stream_validation_error_with_sse_accept_is_still_4xx(self) -> None:
        response = self.client.post(f"{self.base}/messages?stream=true", {}, format="json",
                                    HTTP_ACCEPT="text/event-stream")
        assert_error(self, response, 400, "invalid")  # JSON, whatever the client accepts

    def test_feedback(self) -> None:
        answer = Message.objects.create(conversation=self.conv, role="assistant", content="Svar")
        question = Message.objects.create(conversation=self.conv, role="user", content="Fråga")
        url = f"{self.base}/messages/{answer.pk}/feedback"
        response = self.client.post(url, {"rating": -1, "comment": "Fel paragraf"}, format="json")
        self.assertEqual(response.status_code, 200, response.content)
        self.assertEqual(response.json()["rating"], -1)
        self.client.post(url, {"rating": 1}, format="json")
        feedback = Feedback.objects.get(message=answer)
        self.assertEqual((feedback.rating, feedback.comment, feedback.user), (1, "", self.bob))
        for body in ({"rating": 0}, {"rating": 2}, {"rating": "up"}, {"rating": True}, {}):
            with self.subTest(body=body):
                assert_error(self, self.client.post(url, body, format="json"), 400)
        assert_error(self, self.client.post(f"{self.base}/messages/{question.pk}/feedback", {"rating": 1},
                                            format="json"), 400)
        other = Conversation.objects.create(workspace=self.workspace, user=self.bob)
        assert_error(self, self.client.post(f"{WS}/conversations/{other.pk}/messages/{answer.pk}/feedback",
                                            {"rating": 1}, format="json"), 404)


@override_settings(OPENAI_API_KEY="", OPENAI_BASE_URL="")
class RealChatTests(ApiTestCase):
    """The endpoints against the real agent.answering.chat (no model configured: the answer quotes the sources)."""

    def setUp(self) -> None:
        super().setUp()
        self.auth(self.alice)
        conversation = self.client.post(f"{WS}/conversations/", {}, format="json").json()
        self.base = f"{WS}/conversations/{conversation['id']}"

    def test_answer_with_sources(self) -> None:
        response = self.client.post(f"{self.base}/messages", {"content": "Vad är arbetsmiljölagens ändamål?"},
                                    format="json")
        self.assertEqual(response.status_code, 201, response.content)
        body = response.json()
        self.assertEqual((body["role"], body["answer_mode"]), ("assistant", "extractive"))
        self.assertTrue(body["sources"], body)
        self.assertTrue(all("chunk_id" in source for source in body["sources"]))
        detail = self.client.get(f"{self.base}/").json()
        self.assertEqual([m["role"] for m in detail["messages"]], ["user", "assistant"])
        self.assertEqual(detail["title"], "Vad är arbetsmiljölagens ändamål?")
        feedback = self.client.post(f"{self.base}/messages/{body['id']}/feedback", {"rating": 1}, format="json")
        self.assertEqual(feedback.status_code, 200)

    def test_stream(self) -> None:
        response = self.client.post(f"{self.base}/messages?stream=true", {"content": "Hej!"}, format="json",
                                    HTTP_ACCEPT="text/event-stream")
        self.assertEqual(response.status_code, 200)
        self.assertTrue(response["Content-Type"].startswith("text/event-stream"))
        frames = [f for f in b"".join(response.streaming_content).decode().split("\n\n") if f]
        events = [frame.split("\n")[0].removeprefix("event: ") for frame in frames]
        self.assertEqual(events[0], "sources")
        self.assertIn("token", events)
        self.assertEqual(events[-1], "done")
        done = json.loads(frames[-1].split("data: ", 1)[1])
        self.assertTrue(Message.objects.filter(pk=done["message_id"], role="assistant").exists())
