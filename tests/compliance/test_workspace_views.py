from django.urls import reverse

from compliance.models import Membership
from tests.helpers import PASSWORD, BaseTestCase


class WorkspaceViewTests(BaseTestCase):
    def test_login_page_is_swedish(self) -> None:
        r = self.client.get(reverse("login"))
        self.assertContains(r, "Logga in")
        self.assertContains(r, 'lang="sv"')

    def test_login_reaches_the_workspace(self) -> None:
        r = self.client.post(reverse("login"), {"username": "alice", "password": PASSWORD}, follow=True)
        self.assertContains(r, "Alices AB")

    def test_bad_login_gets_a_swedish_error(self) -> None:
        r = self.client.post(reverse("login"), {"username": "alice", "password": "fel"})
        self.assertContains(r, "Fel användarnamn eller lösenord")

    def test_anonymous_is_sent_to_login(self) -> None:
        r = self.client.get(reverse("workspace", args=[self.workspace.slug]))
        self.assertRedirects(r, reverse("login") + "?next=" + reverse("workspace", args=[self.workspace.slug]))

    def test_owner_and_member_see_the_workspace(self) -> None:
        for user in (self.alice, self.bob):
            self.login(user)
            self.assertContains(self.client.get(reverse("workspace", args=[self.workspace.slug])), "Alices AB")

    def test_outsider_gets_404(self) -> None:
        self.login(self.charlie)
        self.assertEqual(self.client.get(reverse("workspace", args=[self.workspace.slug])).status_code, 404)

    def test_switcher_lists_only_own_workspaces(self) -> None:
        self.login(self.charlie)
        r = self.client.get(reverse("workspace", args=[self.charlies_workspace.slug]))
        self.assertContains(r, "Charlies AB")
        self.assertNotContains(r, "Alices AB")


class LayoutTests(BaseTestCase):
    def test_nav_links_for_the_current_workspace(self) -> None:
        self.login(self.alice)
        r = self.client.get(reverse("workspace", args=[self.workspace.slug]))
        self.assertContains(r, 'href="/ws/alices-ab/chatt/"')
        self.assertContains(r, 'href="%s"' % reverse("knowledge", args=[self.workspace.slug]))
        self.assertContains(r, 'href="%s"' % reverse("statute_list"))
        self.assertContains(r, "Chatt")
        self.assertContains(r, "Kunskapsbas")
        self.assertContains(r, "Författningar")
        self.assertContains(r, "Logga ut")
        self.assertContains(r, "htmx")

    def test_active_nav_link_is_marked(self) -> None:
        self.login(self.alice)
        r = self.client.get(reverse("knowledge", args=[self.workspace.slug]))
        self.assertContains(r, 'class="active" aria-current="page">Kunskapsbas</a>', html=False)

    def test_statute_pages_keep_the_last_visited_workspace_in_the_nav(self) -> None:
        Membership.objects.create(user=self.alice, workspace=self.charlies_workspace, role=Membership.Role.VIEWER)
        self.login(self.alice)
        self.client.get(reverse("workspace", args=[self.charlies_workspace.slug]))
        r = self.client.get(reverse("statute_list"))
        self.assertContains(r, 'href="/ws/charlies-ab/chatt/"')
        self.assertNotContains(r, 'href="/ws/alices-ab/chatt/"')

    def test_statute_pages_never_offer_a_workspace_the_user_is_not_in(self) -> None:
        self.login(self.charlie)
        session = self.client.session
        session["current_workspace"] = self.workspace.slug  # tampered or stale
        session.save()
        r = self.client.get(reverse("statute_list"))
        self.assertNotContains(r, "alices-ab")
        self.assertContains(r, 'href="/ws/charlies-ab/chatt/"')

    def test_workspace_home_links_to_the_knowledge_base(self) -> None:
        self.login(self.bob)
        r = self.client.get(reverse("workspace", args=[self.workspace.slug]))
        self.assertContains(r, "Alices AB")
        self.assertContains(r, "redaktör")
        self.assertContains(r, reverse("knowledge", args=[self.workspace.slug]))

    def test_only_owners_are_offered_the_dashboard(self) -> None:
        dashboard = reverse("dashboard", args=[self.workspace.slug])
        self.login(self.alice)
        self.assertContains(self.client.get(reverse("workspace", args=[self.workspace.slug])), f'href="{dashboard}"',
                            count=2)  # the nav and the tile
        self.login(self.bob)
        self.assertNotContains(self.client.get(reverse("workspace", args=[self.workspace.slug])), dashboard)
        self.assertNotContains(self.client.get(reverse("knowledge", args=[self.workspace.slug])), dashboard)


class SharingViewTests(BaseTestCase):
    def test_owner_sees_and_changes_the_setting(self) -> None:
        self.login(self.alice)
        page = self.client.get(reverse("workspace", args=["alices-ab"])).content.decode()
        self.assertIn("Får användas i andra arbetsytors svar", page)
        response = self.client.post(reverse("workspace_sharing", args=["alices-ab"]), {}, follow=True)
        self.assertContains(response, "används nu bara i den här arbetsytan")
        self.workspace.refresh_from_db()
        self.assertFalse(self.workspace.allow_cross_workspace)
        self.client.post(reverse("workspace_sharing", args=["alices-ab"]), {"allow_cross_workspace": "on"})
        self.workspace.refresh_from_db()
        self.assertTrue(self.workspace.allow_cross_workspace)

    def test_it_checks_ownership(self) -> None:
        self.login(self.bob)
        self.assertNotIn("Får användas i andra arbetsytors svar",
                         self.client.get(reverse("workspace", args=["alices-ab"])).content.decode())
        self.assertEqual(self.client.post(reverse("workspace_sharing", args=["alices-ab"])).status_code, 403)
        self.login(self.charlie)
        self.assertEqual(self.client.post(reverse("workspace_sharing", args=["alices-ab"])).status_code, 404)
        self.workspace.refresh_from_db()
        self.assertTrue(self.workspace.allow_cross_workspace)
