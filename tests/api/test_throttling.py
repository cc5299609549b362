from __future__ import annotations

from django.conf import settings
from django.test import override_settings

from compliance.services import api_token_create

from .base import API, ApiTestCase, assert_error


class ThrottleTests(ApiTestCase):
    def test_each_token_has_its_own_budget(self) -> None:
        rest = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"user": "2/min"}}
        other = api_token_create(user=self.alice, name="andra").key
        with override_settings(REST_FRAMEWORK=rest):
            self.auth(self.alice)
            self.assertEqual(self.client.get(f"{API}/workspaces/").status_code, 200)
            self.assertEqual(self.client.get(f"{API}/workspaces/").status_code, 200)
            response = self.client.get(f"{API}/workspaces/")
            assert_error(self, response, 429, "throttled")
            self.assertIn("Retry-After", response)
            self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {other}")
            self.assertEqual(self.client.get(f"{API}/workspaces/").status_code, 200)
