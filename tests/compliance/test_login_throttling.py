"""Login throttling: repeated wrong passwords lock out the user name and the client IP.

The tests post to the real login view; each runs in a rolled-back transaction, so the
lockout rows (axes' database handler) never outlive the test that made them.
"""

import pytest
from axes.utils import reset
from django.contrib.auth import get_user_model
from django.test import override_settings
from django.urls import reverse

from tests.helpers import PASSWORD, BaseTestCase

pytestmark = pytest.mark.clock

LIMIT = 3


@override_settings(AXES_FAILURE_LIMIT=LIMIT)
class LoginThrottlingTests(BaseTestCase):
    def post_login(self, username, password, ip="10.0.0.1"):
        return self.client.post(reverse("login"), {"username": username, "password": password},
                                REMOTE_ADDR=ip)

    def fail(self, username, times, ip="10.0.0.1"):
        for _ in range(times):
            response = self.post_login(username, "fel-lösenord", ip)
        return response

    def test_a_few_wrong_passwords_lock_the_user_even_with_the_right_one(self):
        response = self.fail("alice", LIMIT - 1)
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, "Fel användarnamn eller lösenord")
        response = self.fail("alice", 1)
        self.assertEqual(response.status_code, 429)
        self.assertContains(response, "För många misslyckade inloggningsförsök", status_code=429)
        # The right password no longer helps, from this IP or another one.
        response = self.post_login("alice", PASSWORD, ip="10.0.0.2")
        self.assertEqual(response.status_code, 429)
        self.assertNotIn("_auth_user_id", self.client.session)
        self.assertContains(response, "Logga in", status_code=429)

    def test_one_ip_guessing_many_user_names_is_locked_out(self):
        for name in ("anna", "bertil", "cecilia"):
            self.post_login(name, "fel-lösenord", ip="10.0.0.9")
        # bob never failed, but this IP did: it is shut out, another IP is not.
        response = self.post_login("bob", PASSWORD, ip="10.0.0.9")
        self.assertEqual(response.status_code, 429)
        response = self.post_login("bob", PASSWORD, ip="10.0.0.10")
        self.assertEqual(response.status_code, 302)
        self.assertEqual(int(self.client.session["_auth_user_id"]), self.bob.pk)

    def test_a_success_before_the_limit_clears_the_count(self):
        self.fail("alice", LIMIT - 1)
        self.assertEqual(self.post_login("alice", PASSWORD).status_code, 302)
        self.client.logout()
        self.assertEqual(self.fail("alice", LIMIT - 1).status_code, 200)
        self.assertEqual(self.post_login("alice", PASSWORD).status_code, 302)

    def test_lockouts_are_listed_in_admin_and_can_be_cleared(self):
        self.fail("alice", LIMIT)
        admin = get_user_model().objects.create_superuser("admin", "admin@example.se", "pw")
        self.client.force_login(admin)
        response = self.client.get(reverse("admin:axes_accessattempt_changelist"))
        self.assertContains(response, "alice")
        self.assertContains(response, "10.0.0.1")
        self.client.logout()
        reset(username="alice")
        reset(ip="10.0.0.1")
        self.assertEqual(self.post_login("alice", PASSWORD).status_code, 302)
