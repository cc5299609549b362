from django.urls import reverse

from tests.helpers import PASSWORD, BaseTestCase


class WorkspaceViewTests(BaseTestCase):
    def test_login_page_is_swedish(self):
        r = self.client.get(reverse("login"))
        self.assertContains(r, "Logga in")
        self.assertContains(r, 'lang="sv"')

    def test_login_reaches_the_workspace(self):
        r = self.client.post(reverse("login"), {"username": "alice", "password": PASSWORD}, follow=True)
        self.assertContains(r, "Alices AB")

    def test_bad_login_gets_a_swedish_error(self):
        r = self.client.post(reverse("login"), {"username": "alice", "password": "fel"})
        self.assertContains(r, "Fel användarnamn eller lösenord")

    def test_anonymous_is_sent_to_login(self):
        r = self.client.get(reverse("workspace", args=[self.workspace.slug]))
        self.assertRedirects(r, reverse("login") + "?next=" + reverse("workspace", args=[self.workspace.slug]))

    def test_owner_and_member_see_the_workspace(self):
        for user in (self.alice, self.bob):
            self.login(user)
            self.assertContains(self.client.get(reverse("workspace", args=[self.workspace.slug])), "Alices AB")

    def test_outsider_gets_404(self):
        self.login(self.charlie)
        self.assertEqual(self.client.get(reverse("workspace", args=[self.workspace.slug])).status_code, 404)

    def test_switcher_lists_only_own_workspaces(self):
        self.login(self.charlie)
        r = self.client.get(reverse("workspace", args=[self.charlies_workspace.slug]))
        self.assertContains(r, "Charlies AB")
        self.assertNotContains(r, "Alices AB")
