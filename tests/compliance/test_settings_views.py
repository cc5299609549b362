"""The settings page: profile (owners/editors edit, readers see), own preferences, origins,
deleting one fact, "Rensa allt" with a confirmation naming the count, and isolation."""

from django.urls import reverse

from compliance import selectors, services
from compliance.models import FactOrigin, Membership, PersonalPreference, Workspace
from tests.helpers import BaseTestCase


class SettingsPageTests(BaseTestCase):
    def url(self, name: str = "workspace_settings", *args: object, ws: Workspace | None = None) -> str:
        return reverse(name, args=[(ws or self.workspace).slug, *args])

    def test_it_checks_ownership(self) -> None:
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 45})
        fact = services.profile_fact_add(workspace=self.workspace, user=self.alice, text="Vi har lager")
        self.login(self.charlie)
        self.assertEqual(self.client.get(self.url()).status_code, 404)
        self.assertEqual(self.client.post(self.url("profile_save"), {"employee_count": "3"}).status_code, 404)
        self.assertEqual(self.client.post(self.url("profile_fact_delete", fact.pk)).status_code, 404)
        self.assertEqual(self.client.post(self.url("profile_clear", "profil")).status_code, 404)
        # charlie's own workspace does not reach alice's fact either
        self.assertEqual(self.client.post(self.url("profile_fact_delete", fact.pk,
                                                   ws=self.charlies_workspace)).status_code, 404)
        self.assertEqual(selectors.workspace_profile_get(self.workspace).employee_count, 45)
        self.assertTrue(selectors.profile_fact_list(self.workspace).exists())

    def test_the_page_shows_profile_preferences_and_origins(self) -> None:
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 45})
        services.profile_update(workspace=self.workspace, user=self.alice,
                                values={"collective_agreement": "Unionen"}, origin=FactOrigin.CONVERSATION,
                                conversation_id=12)
        services.preference_update(workspace=self.workspace, user=self.alice, values={"role": "HR-chef"})
        self.login(self.alice)
        r = self.client.get(self.url())
        self.assertContains(r, "Företagsprofil")
        self.assertContains(r, "Mina inställningar")
        self.assertContains(r, "<td>45</td>", html=False)
        self.assertContains(r, "Angivet i formuläret")
        self.assertContains(r, 'Lärt från <a href="/ws/alices-ab/chatt/12/">konversation 12</a>')
        self.assertContains(r, "HR-chef")
        self.assertContains(r, 'aria-current="page">Inställningar</a>', html=False)
        # The profile says what it is for: the laglista's suggestions, which the answers weigh first.
        self.assertContains(r, f'href="{reverse("register_suggestions", args=[self.workspace.slug])}"', html=False)

    def test_preferences_are_never_shown_to_another_member(self) -> None:
        services.preference_update(workspace=self.workspace, user=self.alice, values={"role": "Hemlig roll"})
        self.login(self.bob)
        r = self.client.get(self.url())
        self.assertNotContains(r, "Hemlig roll")
        self.assertContains(r, "Inga personliga inställningar ännu.")

    def test_editor_saves_the_profile(self) -> None:
        self.login(self.bob)
        r = self.client.post(self.url("profile_save"), {"employee_count": "45", "has_collective_agreement": "ja",
                                                        "collective_agreement": "Unionen", "sector": "private"})
        self.assertRedirects(r, self.url())
        profile = selectors.workspace_profile_get(self.workspace)
        self.assertEqual((profile.employee_count, profile.has_collective_agreement, profile.sector),
                         (45, True, "private"))

    def test_bad_input_gets_a_swedish_error_and_keeps_what_was_stored(self) -> None:
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 45})
        self.login(self.alice)
        for data, words in (({"employee_count": "-3"}, "kan inte vara negativt"),
                            ({"employee_count": "45", "industry": "<b>Bygg</b>"}, "HTML-kod är inte tillåten"),
                            ({"employee_count": "45", "location": "Umeå\x00"}, "styrtecken"),
                            ({"employee_count": "45", "industry": "x" * 5000}, "för lång")):
            r = self.client.post(self.url("profile_save"), data)
            self.assertEqual(r.status_code, 400)
            self.assertContains(r, words, status_code=400)
        self.assertEqual(selectors.workspace_profile_get(self.workspace).employee_count, 45)
        self.assertEqual(selectors.workspace_profile_get(self.workspace).industry, "")

    def test_reader_sees_but_cannot_edit(self) -> None:
        Membership.objects.filter(user=self.bob).update(role=Membership.Role.VIEWER)
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 45})
        self.login(self.bob)
        r = self.client.get(self.url())
        self.assertContains(r, "<td>45</td>", html=False)
        self.assertNotContains(r, "Spara företagsprofilen")
        self.assertEqual(self.client.post(self.url("profile_save"), {"employee_count": "3"}).status_code, 403)
        self.assertEqual(self.client.post(self.url("profile_clear", "profil")).status_code, 403)
        # their own preferences they may edit
        r = self.client.post(self.url("preferences_save"), {"role": "Skyddsombud", "language": "en"})
        self.assertRedirects(r, self.url())
        self.assertEqual(selectors.preference_get(self.workspace, self.bob).language, "en")

    def test_delete_one_fact_and_one_field(self) -> None:
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 45,
                                                                                   "location": "Umeå"})
        keep = services.profile_fact_add(workspace=self.workspace, user=self.alice, text="Vi har lager")
        gone = services.profile_fact_add(workspace=self.workspace, user=self.alice, text="Vi har kontor i Oslo")
        self.login(self.alice)
        self.client.post(self.url("profile_fact_delete", gone.pk))
        self.client.post(self.url("profile_field_clear", "employee_count"))
        self.assertEqual(list(selectors.profile_fact_list(self.workspace)), [keep])
        profile = selectors.workspace_profile_get(self.workspace)
        self.assertEqual((profile.employee_count, profile.location), (None, "Umeå"))
        self.assertNotIn("employee_count", profile.origins)

    def test_clear_all_asks_first_naming_the_count(self) -> None:
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 45,
                                                                                   "location": "Umeå"})
        services.profile_fact_add(workspace=self.workspace, user=self.alice, text="Vi har lager")
        self.login(self.alice)
        r = self.client.get(self.url("profile_clear", "profil"))
        self.assertContains(r, "3 uppgifter tas bort permanent.")
        self.assertEqual(selectors.workspace_profile_get(self.workspace).employee_count, 45)
        r = self.client.post(self.url("profile_clear", "profil"), follow=True)
        self.assertContains(r, "Inga uppgifter om organisationen ännu.")
        self.assertFalse(selectors.profile_fact_list(self.workspace).exists())

    def test_clear_own_preferences_leaves_others(self) -> None:
        services.preference_update(workspace=self.workspace, user=self.alice, values={"role": "HR-chef"})
        services.preference_update(workspace=self.workspace, user=self.bob, values={"role": "VD"})
        self.login(self.alice)
        self.assertContains(self.client.get(self.url("profile_clear", "installningar")), "1 uppgift tas bort")
        self.client.post(self.url("profile_clear", "installningar"))
        self.assertEqual(selectors.preference_get(self.workspace, self.alice).role, "")
        self.assertEqual(PersonalPreference.objects.get(user=self.bob).role, "VD")
