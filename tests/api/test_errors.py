"""Bad input anywhere is a 400 in the one error shape, never a 500."""

from __future__ import annotations

from django.http import HttpResponse

from .base import API, WS, ApiTestCase, assert_error


class ErrorShapeTests(ApiTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.auth(self.alice)

    def raw(self, method: str, url: str, body: bytes, content_type: str = "application/json") -> HttpResponse:
        return getattr(self.client, method)(url, data=body, content_type=content_type)

    def test_malformed_json_is_400(self) -> None:
        for body in (b"{", b"{'a': 1}", b"\xff\xfe", b'{"title": NaN}', b'{"title": Infinity}', b"[1, 2"):
            with self.subTest(body=body):
                assert_error(self, self.raw("post", f"{WS}/assessments/", body), 400, "parse_error")

    def test_json_that_is_not_an_object_is_400(self) -> None:
        for body in (b"[]", b"1", b'"x"', b"null"):
            with self.subTest(body=body):
                assert_error(self, self.raw("post", f"{WS}/assessments/", body), 400)
                assert_error(self, self.raw("post", f"{API}/tokens/", body), 400)

    def test_search_input_validation(self) -> None:
        cases = [
            {},
            {"query": ""},
            {"query": "x" * 2001},
            {"query": "a\x00b"},
            {"query": "x", "top_k": 0},
            {"query": "x", "top_k": 101},
            {"query": "x", "top_k": 10**40},
            {"query": "x", "top_k": "many"},
            {"query": "x", "top_k": 1.5},
            {"query": "x", "min_score": "nan"},
            {"query": "x", "min_score": 1e300},
            {"query": "x", "mode": "semantic"},
            {"query": "x", "source_types": ["FILE"]},
            {"query": "x", "source_types": "USER_FILE"},
            {"query": "x", "content_types": ["LAW"]},
            {"query": "x", "sfs_numbers": ["1977"]},
            {"query": "x", "date_from": "igår"},
            {"query": "x", "date_from": "2024-02-01", "date_to": "2024-01-01"},
            {"query": 5},
            {"query": ["x"]},
        ]
        for body in cases:
            with self.subTest(body=body):
                assert_error(self, self.client.post(f"{WS}/search", body, format="json"), 400, "invalid")
                assert_error(self, self.client.post(f"{WS}/context", body, format="json"), 400, "invalid")

    def test_context_messages_validation(self) -> None:
        for messages in ("x", [{"role": "system", "content": "x"}], [{"role": "user"}], [{"content": "x"}],
                         [{"role": "user", "content": "a\x00"}]):
            with self.subTest(messages=messages):
                assert_error(self, self.client.post(f"{WS}/context", {"query": "x", "messages": messages},
                                                    format="json"), 400, "invalid")

    def test_huge_ids_are_404(self) -> None:
        for url in (f"{WS}/files/{10**30}/", f"{WS}/assessments/{2**63}/", f"{API}/tokens/{10**25}/",
                    f"{WS}/conversations/{10**20}/"):
            with self.subTest(url=url):
                response = self.client.delete(url) if "tokens" in url else self.client.get(url)
                assert_error(self, response, 404)

    def test_unknown_api_paths_are_json_404(self) -> None:
        for url in (f"{API}/nope", f"{API}/workspaces/ä/", f"{WS}/files/-1/", f"{WS}/files/abc/", f"{API}/"):
            with self.subTest(url=url):
                assert_error(self, self.client.get(url), 404, "not_found")

    def test_wrong_method_is_405(self) -> None:
        assert_error(self, self.client.put(f"{API}/workspaces/", {}, format="json"), 405, "method_not_allowed")
        assert_error(self, self.client.get(f"{WS}/search"), 405)

    def test_unsupported_media_type_is_415(self) -> None:
        assert_error(self, self.raw("post", f"{WS}/assessments/", b"title=x", "application/x-www-form-urlencoded"),
                     415, "unsupported_media_type")

    def test_messages_are_swedish(self) -> None:
        error = assert_error(self, self.client.post(f"{WS}/assessments/", {}, format="json"), 400)
        self.assertEqual(error["message"], "Ogiltig indata.")
        self.assertIn("title", error["details"])
        self.client.credentials()
        error = assert_error(self, self.client.get(f"{API}/workspaces/"), 401)
        self.assertNotIn("credentials", error["message"].lower())
