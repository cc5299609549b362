"""The dashboard pages and the metrics API: owners only (members and outsiders get 404), staff see all,
and one workspace's questions never show in another's figures."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from agent.models import Conversation, Feedback, RetrievalLog
from compliance.services import api_token_create
from tests.api.base import assert_error

from .test_dashboard import DashboardSeed

pytestmark = pytest.mark.clock

PAGE = "/ws/alices-ab/oversikt/"
API = "/api/v1/workspaces/alices-ab/metrics"


class DashboardPageTests(DashboardSeed):
    def transcript(self, conversation: Conversation, slug: str = "alices-ab") -> str:
        return f"/ws/{slug}/oversikt/samtal/{conversation.pk}/"

    def test_owner_sees_figures_lists_and_links(self) -> None:
        self.login(self.alice)
        response = self.client.get(PAGE)
        self.assertEqual(response.status_code, 200)
        html = response.content.decode()
        self.assertIn('data-figure="questions">6<', html)
        self.assertIn("Fel paragraf", html)
        self.assertIn(f'href="{self.transcript(self.conv_x)}#msg-{self.messages["a3"].pk}"', html)
        self.assertIn(f'href="{self.transcript(self.conv_y)}"', html)  # the found-nothing question
        self.assertIn("40,0 %", html)  # zero-match rate
        self.assertIn("Visar 2,4 av 2,8", html)
        self.assertIn('data-chart="{&quot;intents&quot;', html)
        self.assertNotIn("<script>", html)
        self.assertNotIn("Charlies", html)
        # The words no source used, with how many questions wrote them; never another workspace's.
        self.assertIn('<span class="word">visselblåsare</span> <span class="muted">(2 frågor)</span>', html)
        self.assertIn('<span class="word">mejl</span> <span class="muted">(1 fråga)</span>', html)
        terms = html.split('data-glossary-words>', 1)[1].split("</ol>", 1)[0]
        self.assertIn('<span class="word">hyrpersonal</span> <span class="muted">(2 frågor)</span>', terms)
        self.assertNotIn("charliesord", html)
        self.assertNotIn("kvarkvisslan", html)

    def test_period_switch_and_bad_period(self) -> None:
        self.login(self.alice)
        ninety = self.client.get(PAGE + "?dagar=90").content.decode()
        self.assertIn('data-figure="questions">7<', ninety)
        self.assertIn('data-period="90" class="active"', ninety)
        self.assertIn("Gammal fråga", ninety)
        self.assertNotIn("Gammal fråga", self.client.get(PAGE + "?dagar=7").content.decode())
        bad = self.client.get(PAGE + "?dagar=14")
        self.assertEqual(bad.status_code, 400)
        self.assertIn("Ogiltig period: välj 7, 30 eller 90 dagar.", bad.content.decode())

    def test_a_new_turn_or_rating_shows_at_once(self) -> None:
        self.login(self.alice)
        self.assertIn('data-figure="questions">6<', self.client.get(PAGE).content.decode())
        self.assertIn("(1 / 2)", self.client.get(PAGE).content.decode())  # Bra / Inte bra
        RetrievalLog.objects.create(workspace=self.workspace, query="Ny fråga", intent="factual")
        self.assertIn('data-figure="questions">7<', self.client.get(PAGE).content.decode())
        Feedback.objects.create(message=self.messages["a6"], user=self.alice, rating=1)
        self.assertIn("(2 / 2)", self.client.get(PAGE).content.decode())
        Feedback.objects.filter(message=self.messages["a6"]).update(rating=-1, updated_at=timezone.now())
        self.assertIn("(1 / 3)", self.client.get(PAGE).content.decode())

    def test_member_who_is_not_owner_and_outsider_get_404(self) -> None:
        for user in (self.bob, self.charlie):
            self.login(user)
            for url in (PAGE, self.transcript(self.conv_x), self.transcript(self.conv_y)):
                with self.subTest(user=user.username, url=url):
                    self.assertEqual(self.client.get(url).status_code, 404)

    def test_anonymous_is_sent_to_login(self) -> None:
        response = self.client.get(PAGE)
        self.assertEqual(response.status_code, 302)
        self.assertIn("/logga-in/", response["Location"])

    def test_owner_reads_a_members_conversation_but_not_another_workspaces(self) -> None:
        self.login(self.alice)
        response = self.client.get(self.transcript(self.conv_y))
        self.assertEqual(response.status_code, 200)
        self.assertIn("svar a5", response.content.decode())
        self.assertIn("bob", response.content.decode())
        self.assertEqual(self.client.get(self.transcript(self.conv_c)).status_code, 404)
        self.assertEqual(self.client.get(self.transcript(self.conv_c, "charlies-ab")).status_code, 404)

    def test_charlie_owns_his_own_dashboard_only(self) -> None:
        self.login(self.charlie)
        html = self.client.get("/ws/charlies-ab/oversikt/").content.decode()
        self.assertIn("Charlies hemliga fråga", html)
        self.assertNotIn("drönare", html)
        self.assertNotIn("Fel paragraf", html)

    def test_staff_see_every_workspace_and_others_do_not(self) -> None:
        self.login(self.alice)
        self.assertEqual(self.client.get("/oversikt/").status_code, 404)
        staff = get_user_model().objects.create_user("stina", password="x", is_staff=True)
        self.login(staff)
        html = self.client.get("/oversikt/?dagar=30").content.decode()
        self.assertIn('data-figure="questions">7<', html)
        self.assertIn("Charlies hemliga fråga", html)
        self.assertIn(f'href="/admin/agent/conversation/{self.conv_y.pk}/change/"', html)


class MetricsApiTests(DashboardSeed):
    client_class = APIClient

    def auth(self, user: User) -> None:
        key = api_token_create(user=user, name="test").key
        self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")

    def test_owner_gets_the_figures(self) -> None:
        self.auth(self.alice)
        body = self.client.get(API + "?days=7").json()
        self.assertEqual(body["days"], 7)
        self.assertEqual(body["totals"]["questions"], 6)
        self.assertEqual(body["totals"]["retrieval_ms"], {"p50": 25.0, "p95": 38.5})
        self.assertEqual(len(body["daily"]), 7)
        self.assertEqual(body["found_nothing"][0]["count"], 2)
        self.assertEqual([(w["word"], w["count"]) for w in body["unknown_words"]], [("visselblåsare", 2), ("mejl", 1)])
        self.assertEqual([(w["word"], w["count"]) for w in body["glossary_words"]], [("hyrpersonal", 2), ("ovk", 1)])
        self.assertNotIn("Charlies", str(body))
        self.assertEqual(self.client.get(API).json()["days"], 30)

    def test_bad_days_is_a_structured_400(self) -> None:
        self.auth(self.alice)
        error = assert_error(self, self.client.get(API + "?days=14"), 400)
        self.assertIn("days", str(error["details"]))

    def test_member_and_outsider_get_404_and_anonymous_401(self) -> None:
        for user in (self.bob, self.charlie):
            self.auth(user)
            with self.subTest(user=user.username):
                assert_error(self, self.client.get(API), 404)
        self.auth(self.alice)
        assert_error(self, self.client.get("/api/v1/workspaces/charlies-ab/metrics"), 404)
        self.client.credentials()
        self.assertEqual(self.client.get(API).status_code, 401)
