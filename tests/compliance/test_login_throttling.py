"""Login throttling: repeated wrong passwords lock out the user name and the client IP.

The tests post to the real login view; each runs in a rolled-back transaction, so the
lockout rows (axes' database handler) never outlive the test that made them.
"""

import re
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from axes.utils import reset
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.http import HttpResponse
from django.test import override_settings
from django.urls import reverse

from tests.helpers import PASSWORD, BaseTestCase

pytestmark = pytest.mark.clock

LIMIT = 3


@override_settings(AXES_FAILURE_LIMIT=LIMIT)
class LoginThrottlingTests(BaseTestCase):
    def post_login(self, username: str, password: str, ip: str = "10.0.0.1") -> HttpResponse:
        return self.client.post(reverse("login"), {"username": username, "password": password},
                                REMOTE_ADDR=ip)

    def fail(self, username: str, times: int, ip: str = "10.0.0.1") -> HttpResponse:
        for _ in range(times):
            response = self.post_login(username, "fel-lösenord", ip)
        return response

    def test_a_few_wrong_passwords_lock_the_user_even_with_the_right_one(self) -> None:
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

    def test_one_ip_guessing_many_user_names_is_locked_out(self) -> None:
        for name in ("anna", "bertil", "cecilia"):
            self.post_login(name, "fel-lösenord", ip="10.0.0.9")
        # bob never failed, but this IP did: it is shut out, another IP is not.
        response = self.post_login("bob", PASSWORD, ip="10.0.0.9")
        self.assertEqual(response.status_code, 429)
        response = self.post_login("bob", PASSWORD, ip="10.0.0.10")
        self.assertEqual(response.status_code, 302)
        self.assertEqual(int(self.client.session["_auth_user_id"]), self.bob.pk)

    def test_a_success_before_the_limit_clears_the_count(self) -> None:
        self.fail("alice", LIMIT - 1)
        self.assertEqual(self.post_login("alice", PASSWORD).status_code, 302)
        self.client.logout()
        self.assertEqual(self.fail("alice", LIMIT - 1).status_code, 200)
        self.assertEqual(self.post_login("alice", PASSWORD).status_code, 302)

    def test_lockouts_are_listed_in_admin_and_can_be_cleared(self) -> None:
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

    @override_settings(AXES_COOLOFF_TIME=timedelta(minutes=7))
    def test_the_lockout_message_says_how_long_it_lasts_also_to_someone_coming_back(self) -> None:
        response = self.fail("alice", LIMIT)
        self.assertContains(response, "spärrad i 7 minuter räknat från det senaste misslyckade försöket",
                            status_code=429)
        # Coming back to the login page from the locked address: told before typing a password.
        page = self.client.get(reverse("login"), REMOTE_ADDR="10.0.0.1")
        self.assertContains(page, "spärrad i 7 minuter")
        self.assertContains(page, 'name="password"')  # the form is still there, for after the lockout
        # Another address is not locked: no message.
        self.assertNotContains(self.client.get(reverse("login"), REMOTE_ADDR="10.0.0.2"), "spärrad")

    @override_settings(AXES_COOLOFF_TIME=timedelta(minutes=1))
    def test_one_minute_is_singular(self) -> None:
        self.assertContains(self.fail("alice", LIMIT), "spärrad i 1 minut räknat", status_code=429)

    def test_the_readmes_way_to_lift_a_lockout_works(self) -> None:
        readme = (Path(settings.BASE_DIR) / "README.md").read_text(encoding="utf-8")
        commands = re.findall(r"manage\.py (axes_reset\w*)(?: ([\w.]+))?`", readme)
        self.assertIn(("axes_reset_ip", "127.0.0.1"), commands)
        self.assertIn(("axes_reset", ""), commands)
        self.assertIn("admin under Axes", readme)
        for command, argument in commands:
            with self.subTest(command=command):
                ip = argument if command == "axes_reset_ip" else "10.0.0.1"
                username = argument if command == "axes_reset_username" else "alice"
                self.fail(username, LIMIT, ip=ip)
                self.assertEqual(self.post_login(username, "fel", ip=ip).status_code, 429)
                call_command(command, *([argument] if argument else []), stdout=StringIO())
                self.assertNotContains(self.client.get(reverse("login"), REMOTE_ADDR=ip), "spärrad")
                reset()
