"""Search, context preparation and conversations over the API."""

from __future__ import annotations

import json
from types import SimpleNamespace
from unittest import mock

from django.test import override_settings

import agent.prepare  # noqa: F401  (bind the real retrieve_context before any test patches agent.retrieval)
from agent.models import Conversation, Feedback, Message
from agent.retrieval import RetrievalInputError, RetrievalOptions, RetrievalResult
from agent.sources import RetrievedChunk
from chunks.models import ContentChunk, SourceType
from compliance.models import Membership, UserFile

from .base import WS, ApiTestCase, assert_error


try:  # the same for agent.chat, which the URLconf imports on the first request
    import agent.chat  # noqa: F401
except ImportError:
    pass


def a_chunk(**overrides) -> RetrievedChunk:
    fields = dict(chunk_id=1, source_type="LEGAL_DOCUMENT", source_id=1, document_number="1977:1160",
                  document_title="Arbetsmiljölag (1977:1160)", header="AML > 3 kap. > 2 a §", path="00001.00000",
                  ordinal=1, citation="3 kap. 2 a §", text="Arbetsgivaren ska …", token_count=5,
                  content_type="SFS_LAW", score=0.03, vector_similarity=0.8, keyword_rank=None)
    return RetrievedChunk(**{**fields, **overrides})


class SearchTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        private = UserFile.objects.create(workspace=cls.workspace, title="Privat", original_name="p.txt",
                                          file="p.txt", size=1, is_private=True)
        common = dict(source_type=SourceType.USER_FILE, header="Fil", path="00000.00000", ordinal=0,
                      content_hash="y", text="Brandskyddet och ohälsa: utrymningsvägar ska hållas fria.")
        ContentChunk.objects.create(**common, user_file=cls.alice_file, workspace=cls.workspace)
        ContentChunk.objects.create(**common, user_file=private, workspace=cls.workspace)
        ContentChunk.objects.create(**common, user_file=cls.charlie_file, workspace=cls.charlies_workspace)

    def test_keyword_search_sees_statutes_and_own_files_only(self):
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

    def test_options_are_passed_through(self):
        self.auth(self.alice)
        result = RetrievalResult(chunks=[a_chunk()], mode="keyword", degraded=True,
                                 notice="Vektorsökningen är inte tillgänglig.", timings_ms={"sql": 3.2})
        with mock.patch("agent.retrieval.retrieve_context", return_value=result) as retrieve:
            response = self.client.post(f"{WS}/search", {
                "query": "riskbedömning", "source_types": ["LEGAL_DOCUMENT"], "content_types": ["SFS_LAW"],
                "sfs_numbers": ["1977:1160"], "date_from": "2020-01-01", "top_k": 5, "min_score": 0.01,
                "mode": "vector"}, format="json")
        self.assertEqual(response.status_code, 200, response.content)
        args, kwargs = retrieve.call_args
        self.assertEqual(args[:2], ("riskbedömning", self.workspace))
        self.assertEqual(kwargs["user"], self.alice)
        options = kwargs["options"]
        self.assertIsInstance(options, RetrievalOptions)
        self.assertEqual((options.source_types, options.content_types, options.sfs_numbers, options.top_k,
                          options.min_score, options.mode, str(options.date_from), options.date_to),
                         (["LEGAL_DOCUMENT"], ["SFS_LAW"], ["1977:1160"], 5, 0.01, "vector", "2020-01-01", None))
        body = response.json()
        self.assertEqual((body["mode"], body["degraded"], body["notice"], body["timings_ms"]),
                         ("keyword", True, "Vektorsökningen är inte tillgänglig.", {"sql": 3.2}))
        self.assertEqual(body["results"][0]["citation"], "3 kap. 2 a §")
        self.assertEqual(body["results"][0]["document_key"], "LEGAL_DOCUMENT:1")

    def test_defaults(self):
        self.auth(self.alice)
        with mock.patch("agent.retrieval.retrieve_context",
                        return_value=RetrievalResult(chunks=[], mode="hybrid")) as retrieve:
            self.client.post(f"{WS}/search", {"query": "x"}, format="json")
        options = retrieve.call_args.kwargs["options"]
        self.assertEqual((options.top_k, options.mode, options.source_types), (20, "hybrid", []))

    def test_retrieval_input_error_is_400(self):
        self.auth(self.alice)
        with mock.patch("agent.retrieval.retrieve_context",
                        side_effect=RetrievalInputError("empty_query", "Frågan är tom.")):
            error = assert_error(self, self.client.post(f"{WS}/search", {"query": "   ?"}, format="json"), 400,
                                 "empty_query")
        self.assertEqual(error["message"], "Frågan är tom.")

    def test_viewer_may_search(self):
        Membership.objects.filter(user=self.bob).update(role=Membership.Role.VIEWER)
        self.auth(self.bob)
        response = self.client.post(f"{WS}/search", {"query": "ohälsa", "mode": "keyword"}, format="json")
        self.assertEqual(response.status_code, 200)


class ContextTests(ApiTestCase):
    def test_prepares_context_with_citations(self):
        self.auth(self.alice)
        response = self.client.post(f"{WS}/context", {
            "query": "Vad är lagens ändamål enligt arbetsmiljölagen?", "mode": "keyword",
            "messages": [{"role": "user", "content": "Hej"}, {"role": "assistant", "content": "Hej! Vad undrar du?"}],
        }, format="json")
        self.assertEqual(response.status_code, 200, response.content)
        body = response.json()
        self.assertEqual(set(body), {"messages", "context_text", "citations", "metrics", "intent", "skipped",
                                     "degraded"})
        self.assertFalse(body["skipped"])
        self.assertEqual(body["messages"][0]["role"], "system")
        self.assertEqual(body["messages"][-1], {"role": "user",
                                                "content": "Vad är lagens ändamål enligt arbetsmiljölagen?"})
        self.assertTrue(any(c.get("chunk_id") for c in body["citations"]), body)
        self.assertIn("ändamål", body["context_text"])

    def test_greeting_skips_retrieval(self):
        self.auth(self.alice)
        body = self.client.post(f"{WS}/context", {"query": "Hej!"}, format="json").json()
        self.assertTrue(body["skipped"])
        self.assertEqual(body["citations"], [])


class ConversationTests(ApiTestCase):
    def setUp(self):
        super().setUp()
        self.auth(self.bob)
        response = self.client.post(f"{WS}/conversations/", {"title": "Brand"}, format="json")
        self.assertEqual(response.status_code, 201, response.content)
        self.conv = Conversation.objects.get(pk=response.json()["id"])
        self.base = f"{WS}/conversations/{self.conv.pk}"

    def fake_chat(self, answer=None, events=None):
        def _answer(conversation, user, content):
            Message.objects.create(conversation=conversation, role="user", content=content)
            return Message.objects.create(conversation=conversation, role="assistant", content="Svar [1].",
                                          answer_mode="model", sources=[{"n": 1, "chunk_id": 7}],
                                          removed_citations=[3])

        def _stream(conversation, user, content):
            yield from events or []

        return SimpleNamespace(answer=answer or _answer, stream_answer=_stream)

    def test_create_list_detail(self):
        Conversation.objects.create(workspace=self.workspace, user=self.alice, title="Alices")
        listed = self.client.get(f"{WS}/conversations/").json()
        self.assertEqual([c["title"] for c in listed["results"]], ["Brand"])
        detail = self.client.get(f"{self.base}/").json()
        self.assertEqual((detail["title"], detail["messages"]), ("Brand", []))
        assert_error(self, self.client.post(f"{WS}/conversations/", {"title": "x" * 201}, format="json"), 400)

    def test_answer(self):
        with mock.patch("compliance.api.agent_views.agent_module", return_value=self.fake_chat()):
            response = self.client.post(f"{self.base}/messages", {"content": "Hur ofta brandövning?"},
                                        format="json")
        self.assertEqual(response.status_code, 201, response.content)
        body = response.json()
        self.assertEqual((body["role"], body["content"], body["answer_mode"], body["sources"],
                          body["removed_citations"], body["degraded"]),
                         ("assistant", "Svar [1].", "model", [{"n": 1, "chunk_id": 7}], [3], False))
        detail = self.client.get(f"{self.base}/").json()
        self.assertEqual([m["role"] for m in detail["messages"]], ["user", "assistant"])

    def test_message_validation(self):
        for body in ({}, {"content": ""}, {"content": "x" * 8001}, {"content": 1}, {"content": "a\x00"}):
            with self.subTest(body=body):
                assert_error(self, self.client.post(f"{self.base}/messages", body, format="json"), 400)
        assert_error(self, self.client.post(f"{self.base}/messages?stream=kanske", {"content": "x"},
                                            format="json"), 400)

    def test_stream(self):
        events = [{"event": "token", "data": "Hej "}, {"event": "token", "data": "då"},
                  {"event": "sources", "data": [{"n": 1}]}, {"event": "done", "data": {"message_id": 9}}]
        with mock.patch("compliance.api.agent_views.agent_module", return_value=self.fake_chat(events=events)):
            response = self.client.post(f"{self.base}/messages?stream=true", {"content": "Hej"}, format="json",
                                        HTTP_ACCEPT="text/event-stream")
            self.assertEqual(response.status_code, 200)
            self.assertTrue(response["Content-Type"].startswith("text/event-stream"))
            text = b"".join(response.streaming_content).decode()
        frames = [f for f in text.split("\n\n") if f]
        self.assertEqual(frames[0], 'event: token\ndata: "Hej "')
        self.assertEqual(frames[-1], 'event: done\ndata: {"message_id": 9}')
        self.assertEqual(json.loads(frames[2].split("data: ", 1)[1]), [{"n": 1}])

    def test_stream_failure_is_an_error_event(self):
        def broken(conversation, user, content):
            yield {"event": "token", "data": "Hej"}
            raise RuntimeError("model down")

        chat = SimpleNamespace(answer=None, stream_answer=broken)
        with mock.patch("compliance.api.agent_views.agent_module", return_value=chat):
            response = self.client.post(f"{self.base}/messages?stream=true", {"content": "Hej"}, format="json")
            text = b"".join(response.streaming_content).decode()
        self.assertIn("event: error", text)
        self.assertIn("Svaret kunde inte slutföras", text)

    def test_stream_validation_error_with_sse_accept_is_still_4xx(self):
        response = self.client.post(f"{self.base}/messages?stream=true", {}, format="json",
                                    HTTP_ACCEPT="text/event-stream")
        assert_error(self, response, 400, "invalid")  # JSON, whatever the client accepts

    def test_missing_chat_module_is_503(self):
        with mock.patch("importlib.import_module", side_effect=ImportError("no chat")):
            error = assert_error(self, self.client.post(f"{self.base}/messages", {"content": "x"}, format="json"),
                                 503, "unavailable")
        self.assertIn("otillgänglig", error["message"])

    def test_feedback(self):
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
    """The endpoints against the real agent.chat (no model configured: the answer quotes the sources)."""

    def setUp(self):
        super().setUp()
        self.auth(self.alice)
        conversation = self.client.post(f"{WS}/conversations/", {}, format="json").json()
        self.base = f"{WS}/conversations/{conversation['id']}"

    def test_answer_with_sources(self):
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

    def test_stream(self):
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
