"""API tokens: shown once, stored as a hash, revocable; session and token auth."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from compliance.models import ApiToken
from compliance.services import api_token_create

from .base import API, WS, ApiTestCase, assert_error

pytestmark = pytest.mark.clock


class TokenTests(ApiTestCase):
    def test_create_with_session_shows_key_once_and_stores_only_hash(self) -> None:
        self.login(self.alice)
        response = self.client.post(f"{API}/tokens/", {"name": "CI"}, format="json")
        self.assertEqual(response.status_code, 201, response.content)
        key = response.json()["key"]
        self.assertTrue(key.startswith("lgr_"))
        token = ApiToken.objects.get(pk=response.json()["id"])
        self.assertEqual(token.key_hash, ApiToken.hash_key(key))
        self.assertEqual(response.json()["prefix"], key[4:12])
        # No field of the stored row holds the key.
        for field in ApiToken._meta.concrete_fields:
            self.assertNotEqual(str(getattr(token, field.attname)), key)
        listed = self.client.get(f"{API}/tokens/").json()
        self.assertEqual(listed["count"], 1)
        self.assertNotIn("key", listed["results"][0])
        self.assertNotIn(key, self.client.get(f"{API}/tokens/").content.decode())

    def test_token_auth_works_and_records_use(self) -> None:
        key = self.auth(self.alice)
        response = self.client.get(f"{API}/workspaces/")
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response.json()["results"][0]["slug"], "alices-ab")
        self.assertIsNotNone(ApiToken.objects.get(key_hash=ApiToken.hash_key(key)).last_used_at)
        # "Token <key>" works too.
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        self.assertEqual(self.client.get(f"{WS}/").status_code, 200)

    def test_last_use_is_written_at_most_once_a_minute(self) -> None:
        key = self.auth(self.alice)
        token = ApiToken.objects.get(key_hash=ApiToken.hash_key(key))
        recent = timezone.now() - timedelta(seconds=5)
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=recent)
        with CaptureQueriesContext(connection) as queries:
            self.assertEqual(self.client.get(f"{API}/workspaces/").status_code, 200)
        self.assertFalse([q for q in queries.captured_queries if q["sql"].startswith("UPDATE")])
        self.assertEqual(ApiToken.objects.get(pk=token.pk).last_used_at, recent)
        # A minute later the next request records its use again.
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=recent - timedelta(minutes=1))
        self.client.get(f"{API}/workspaces/")
        self.assertGreater(ApiToken.objects.get(pk=token.pk).last_used_at, recent)

    def test_token_can_create_token(self) -> None:
        self.auth(self.bob)
        response = self.client.post(f"{API}/tokens/", {"name": "Andra"}, format="json")
        self.assertEqual(response.status_code, 201)
        self.assertEqual(ApiToken.objects.filter(user=self.bob).count(), 2)

    def test_revoked_token_fails_with_401(self) -> None:
        key = self.auth(self.alice)
        token = ApiToken.objects.get(key_hash=ApiToken.hash_key(key))
        self.assertEqual(self.client.delete(f"{API}/tokens/{token.pk}/").status_code, 204)
        token.refresh_from_db()
        self.assertIsNotNone(token.revoked_at)
        response = self.client.get(f"{API}/workspaces/")
        error = assert_error(self, response, 401, "authentication_failed")
        self.assertIn("återkallad", error["message"])

    def test_bad_tokens_are_401(self) -> None:
        for header in ("Bearer lgr_nope", "Bearer", "Bearer a b", "Token \x00"):
            with self.subTest(header=header):
                self.client.credentials(HTTP_AUTHORIZATION=header)
                assert_error(self, self.client.get(f"{API}/workspaces/"), 401)

    def test_inactive_user_token_is_401(self) -> None:
        self.auth(self.bob)
        self.bob.is_active = False
        self.bob.save()
        assert_error(self, self.client.get(f"{API}/workspaces/"), 401)

    def test_cannot_revoke_or_see_another_users_token(self) -> None:
        charlies = api_token_create(user=self.charlie, name="c").token
        self.auth(self.alice)
        assert_error(self, self.client.delete(f"{API}/tokens/{charlies.pk}/"), 404, "not_found")
        charlies.refresh_from_db()
        self.assertIsNone(charlies.revoked_at)
        self.assertEqual(self.client.get(f"{API}/tokens/").json()["count"], 1)

    def test_revoke_is_idempotent(self) -> None:
        key = self.auth(self.alice)
        token = ApiToken.objects.get(key_hash=ApiToken.hash_key(key))
        self.login(self.alice)
        self.client.credentials()
        self.assertEqual(self.client.delete(f"{API}/tokens/{token.pk}/").status_code, 204)
        first = ApiToken.objects.get(pk=token.pk).revoked_at
        self.assertEqual(self.client.delete(f"{API}/tokens/{token.pk}/").status_code, 204)
        self.assertEqual(ApiToken.objects.get(pk=token.pk).revoked_at, first)

    def test_token_name_is_validated(self) -> None:
        self.auth(self.alice)
        for body in ({}, {"name": ""}, {"name": "x" * 101}, {"name": "a\x00b"}, {"name": ["a"]}, {"name": None}):
            with self.subTest(body=body):
                assert_error(self, self.client.post(f"{API}/tokens/", body, format="json"), 400, "invalid")

    def test_session_writes_need_csrf(self) -> None:
        client = APIClient(enforce_csrf_checks=True)
        client.force_login(self.alice)
        response = client.post(f"{API}/tokens/", {"name": "x"}, format="json")
        assert_error(self, response, 403, "permission_denied")
        self.assertEqual(client.get(f"{API}/tokens/").status_code, 200)
