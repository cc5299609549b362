"""The workspace profile and personal preferences: validation, origins, revisions, clearing."""

from django.http import Http404

from compliance import selectors, services
from compliance.models import FactOrigin, PersonalPreference, ProfileFact, WorkspaceProfile
from compliance.services import ProfileInputError
from tests.helpers import BaseTestCase


class ProfileServiceTests(BaseTestCase):
    def test_fields_are_stored_with_their_origin(self) -> None:
        profile = services.profile_update(workspace=self.workspace, user=self.alice,
                                          values={"employee_count": "45", "has_collective_agreement": "ja",
                                                  "collective_agreement": "Unionen", "sector": "private"})
        self.assertEqual(profile.employee_count, 45)
        self.assertIs(profile.has_collective_agreement, True)
        self.assertEqual(profile.origins["employee_count"]["origin"], "form")
        self.assertEqual(profile.origins["employee_count"]["user_id"], self.alice.pk)
        learned = services.profile_update(workspace=self.workspace, user=self.bob, values={"location": "Umeå"},
                                          origin=FactOrigin.CONVERSATION, conversation_id=7)
        self.assertEqual(learned.origins["location"]["conversation_id"], 7)
        self.assertEqual(learned.origins["employee_count"]["origin"], "form")
        self.assertGreater(learned.revision, profile.revision - 1)

    def test_absurd_values_get_swedish_errors_and_lose_nothing(self) -> None:
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 45,
                                                                                   "industry": "Bemanning"})
        cases = [
            ({"employee_count": -3}, "negative", "negativt"),
            ({"employee_count": "10000000"}, "out_of_range", "orimligt"),
            ({"employee_count": "fyrtio"}, "invalid", "heltal"),
            ({"employee_count": True}, "invalid", "heltal"),
            ({"industry": "x" * 10_000_000}, "too_long", "för lång"),
            ({"industry": "Bygg\x00"}, "invalid_characters", "styrtecken"),
            ({"industry": "<script>alert(1)</script>"}, "html_not_allowed", "HTML"),
            ({"sni_code": "abc"}, "invalid_sni", "SNI"),
            ({"sector": "kommunal"}, "invalid_choice", "välj"),
            ({"has_collective_agreement": "kanske"}, "invalid", "ja eller nej"),
            ({"owner": "x"}, "unknown_field", "Okänt"),
        ]
        for values, code, words in cases:
            with self.subTest(values=str(values)[:60]):
                with self.assertRaises(ProfileInputError) as caught:
                    # A valid value alongside a bad one is not stored either.
                    services.profile_update(workspace=self.workspace, user=self.alice,
                                            values={"location": "Luleå", **values})
                self.assertEqual(caught.exception.code, code)
                self.assertIn(words, caught.exception.message)
                self.assertEqual(caught.exception.status, 400)
        profile = selectors.workspace_profile_get(self.workspace)
        self.assertEqual((profile.employee_count, profile.industry, profile.location), (45, "Bemanning", ""))

    def test_facts_validate_and_deduplicate(self) -> None:
        fact = services.profile_fact_add(workspace=self.workspace, user=self.alice, text="  Vi har  kontor i Oslo ")
        self.assertEqual(fact.text, "Vi har kontor i Oslo")
        again = services.profile_fact_add(workspace=self.workspace, user=self.alice, text="vi har kontor i oslo")
        self.assertEqual(again.pk, fact.pk)
        for text, code in (("", "empty"), ("a\x00b", "invalid_characters"), ("<b>x</b>", "html_not_allowed"),
                           ("x" * 501, "too_long")):
            with self.assertRaises(ProfileInputError) as caught:
                services.profile_fact_add(workspace=self.workspace, user=self.alice, text=text)
            self.assertEqual(caught.exception.code, code)
        self.assertEqual(ProfileFact.objects.filter(workspace=self.workspace).count(), 1)

    def test_every_change_bumps_the_revision(self) -> None:
        revisions = []
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 10})
        revisions.append(selectors.workspace_profile_get(self.workspace).revision)
        fact = services.profile_fact_add(workspace=self.workspace, user=self.alice, text="Vi har lager")
        revisions.append(selectors.workspace_profile_get(self.workspace).revision)
        services.profile_fact_delete(fact)
        revisions.append(selectors.workspace_profile_get(self.workspace).revision)
        services.profile_clear(workspace=self.workspace)
        revisions.append(selectors.workspace_profile_get(self.workspace).revision)
        self.assertEqual(revisions, sorted(set(revisions)))

    def test_clear_forgets_fields_facts_and_origins(self) -> None:
        services.profile_update(workspace=self.workspace, user=self.alice, values={"employee_count": 10,
                                                                                   "sector": "public"})
        services.profile_fact_add(workspace=self.workspace, user=self.alice, text="Vi har lager")
        services.profile_clear(workspace=self.workspace)
        profile = WorkspaceProfile.objects.get(workspace=self.workspace)
        self.assertEqual((profile.employee_count, profile.sector, profile.origins), (None, "", {}))
        self.assertFalse(selectors.profile_fact_list(self.workspace).exists())

    def test_another_workspaces_fact_is_not_found(self) -> None:
        fact = services.profile_fact_add(workspace=self.workspace, user=self.alice, text="Vi har lager")
        with self.assertRaises(Http404):
            selectors.profile_fact_get(self.charlies_workspace, fact.pk)


class PreferenceServiceTests(BaseTestCase):
    def test_preferences_are_per_user(self) -> None:
        services.preference_update(workspace=self.workspace, user=self.alice,
                                   values={"role": "HR-chef", "language": "en", "expertise": "novice"})
        self.assertEqual(selectors.preference_get(self.workspace, self.alice).role, "HR-chef")
        self.assertEqual(selectors.preference_get(self.workspace, self.bob).role, "")
        self.assertIsNone(selectors.preference_get(self.workspace, self.bob).pk)

    def test_bad_preferences_are_refused(self) -> None:
        for values, code in (({"language": "fr"}, "invalid_choice"), ({"role": "<i>x</i>"}, "html_not_allowed"),
                             ({"tone": "arg"}, "invalid_choice")):
            with self.assertRaises(ProfileInputError) as caught:
                services.preference_update(workspace=self.workspace, user=self.alice, values=values)
            self.assertEqual(caught.exception.code, code)
        self.assertFalse(PersonalPreference.objects.exists())

    def test_clear_empties_only_own_preferences(self) -> None:
        services.preference_update(workspace=self.workspace, user=self.alice, values={"role": "HR-chef"})
        services.preference_update(workspace=self.workspace, user=self.bob, values={"role": "VD"})
        services.preference_clear(workspace=self.workspace, user=self.alice)
        self.assertEqual(selectors.preference_get(self.workspace, self.alice).role, "")
        self.assertEqual(selectors.preference_get(self.workspace, self.bob).role, "VD")
