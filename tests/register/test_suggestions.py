"""Suggestions from the company profile and the knowledge base, the templates, and their pages."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from django.urls import reverse

from chunks.models import ContentChunk
from compliance.models import LegalDocument, Membership, UserFile, WorkspaceProfile, content_hash
from compliance.numbers import is_document_number
from register.models import ItemOrigin, RegisterItem, Requirement, SuggestionDecision
from register.services import PermissionDeniedError, RegisterError, suggestion_accept, suggestion_reject, template_apply
from register.suggestions import (
    RULES_PATH,
    Rule,
    Suggestion,
    SuggestionDataError,
    knowledge_suggestions,
    load_rules,
    rule_matches,
    rules,
    suggestion_list,
    template_get,
    template_list,
)
from tests.helpers import BaseTestCase
from tests.register.corpus_numbers import shipped_numbers

# Real titles, so the pages read as they will.
DOCUMENTS = {
    "1977:1160": ("Arbetsmiljölag (1977:1160)", "SFS_LAW", ["arbetsmiljölagen"], ["AML"]),
    "AFS 2023:1": ("Arbetsmiljöverkets föreskrifter och allmänna råd om systematiskt arbetsmiljöarbete",
                   "AGENCY_REGULATION", [], []),
    "AFS 2023:2": ("Arbetsmiljöverkets föreskrifter och allmänna råd om planering och organisering av "
                   "arbetsmiljöarbete", "AGENCY_REGULATION", [], []),
    "1982:80": ("Lag (1982:80) om anställningsskydd", "SFS_LAW", ["anställningsskyddslagen"], ["LAS"]),
    "2008:567": ("Diskrimineringslag (2008:567)", "SFS_LAW", ["diskrimineringslagen"], []),
    "1976:580": ("Lag (1976:580) om medbestämmande i arbetslivet", "SFS_LAW", ["medbestämmandelagen"], ["MBL"]),
    "2021:890": ("Lag (2021:890) om skydd för personer som rapporterar om missförhållanden", "SFS_LAW",
                 ["visselblåsarlagen"], []),
    "(EU) 2016/679": ("Allmän dataskyddsförordning (GDPR)", "EU_REGULATION", ["dataskyddsförordningen"], ["GDPR"]),
    "2018:218": ("Lag (2018:218) med kompletterande bestämmelser till EU:s dataskyddsförordning", "SFS_LAW",
                 ["dataskyddslagen"], []),
    "1998:808": ("Miljöbalk (1998:808)", "SFS_LAW", ["miljöbalken"], ["MB"]),
    "2017:630": ("Lag (2017:630) om åtgärder mot penningtvätt och finansiering av terrorism", "SFS_LAW",
                 ["penningtvättslagen"], []),
    "1999:1078": ("Bokföringslag (1999:1078)", "SFS_LAW", ["bokföringslagen"], ["BFL"]),
    "1972:207": ("Skadeståndslag (1972:207)", "SFS_LAW", ["skadeståndslagen"], []),
}


def load_documents(*numbers: str) -> dict[str, LegalDocument]:
    out = {}
    for number in numbers or DOCUMENTS:
        title, kind, short, abbr = DOCUMENTS[number]
        out[number], _ = LegalDocument.objects.get_or_create(
            sfs_number=number, defaults={"title": title, "content_type": kind, "full_text": title,
                                         "short_names": short, "abbreviations": abbr})
    return out


def numbers(suggestions: list[Suggestion]) -> list[str]:
    return [s.number for s in suggestions]


class RulesDataTests(BaseTestCase):
    def test_every_rule_names_a_valid_document_number_and_is_unique(self) -> None:
        loaded = rules()
        self.assertGreaterEqual(len(loaded), 25)
        self.assertLessEqual(len(loaded), 80)
        self.assertEqual(len({r.id for r in loaded}), len(loaded))
        for rule in loaded:
            self.assertTrue(is_document_number(rule.document), rule.id)
            self.assertIn("→", rule.reason, rule.id)

    def test_every_rule_names_a_document_of_the_shipped_corpus(self) -> None:
        shipped = shipped_numbers()
        missing = [(r.id, r.document) for r in rules() if r.document not in shipped]
        self.assertEqual(missing, [])

    def test_every_template_names_valid_documents_with_kravpunkter(self) -> None:
        shipped = shipped_numbers()
        slugs = {t.slug for t in template_list()}
        self.assertTrue({"arbetsmiljo", "miljo", "dataskydd"} <= slugs)
        for template in template_list():
            self.assertTrue(template.items)
            for item in template.items:
                self.assertIn(item.document, shipped, (template.slug, item.document))
                self.assertTrue(item.reason)
            self.assertTrue(any(item.requirements for item in template.items))

    def test_a_rule_with_an_unknown_condition_is_refused(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "rules.toml"
            path.write_text('[[rule]]\nid = "x"\ndocument = "1977:1160"\ngroup = "G"\nreason = "r"\nemployes = 3\n')
            with self.assertRaises(SuggestionDataError):
                load_rules(path)
        self.assertTrue(load_rules(RULES_PATH))


class RuleMatchingTests(BaseTestCase):
    def profile(self, **values: Any) -> WorkspaceProfile:
        return WorkspaceProfile(workspace=self.workspace, **values)

    def rule(self, rule_id: str) -> Rule:
        return next(r for r in rules() if r.id == rule_id)

    def test_whistleblowing_from_fifty_employees(self) -> None:
        self.assertFalse(rule_matches(self.rule("visselblasare-50"), self.profile(employee_count=49)))
        self.assertTrue(rule_matches(self.rule("visselblasare-50"), self.profile(employee_count=50)))

    def test_an_empty_field_never_matches(self) -> None:
        self.assertFalse(rule_matches(self.rule("aml-employer"), self.profile()))
        self.assertFalse(rule_matches(self.rule("mbl-agreement"), self.profile(employee_count=10)))
        self.assertFalse(rule_matches(self.rule("mbl-no-agreement"), self.profile(employee_count=10)))

    def test_collective_agreement_chooses_the_mbl_reason(self) -> None:
        with_agreement = self.profile(employee_count=10, has_collective_agreement=True)
        without = self.profile(employee_count=10, has_collective_agreement=False)
        self.assertTrue(rule_matches(self.rule("mbl-agreement"), with_agreement))
        self.assertFalse(rule_matches(self.rule("mbl-agreement"), without))
        self.assertTrue(rule_matches(self.rule("mbl-no-agreement"), without))

    def test_sni_prefix_or_industry_word(self) -> None:
        rule = self.rule("penningtvatt-sni")
        self.assertTrue(rule_matches(rule, self.profile(sni_code="69.201")))
        self.assertTrue(rule_matches(rule, self.profile(industry="Redovisningsbyrå")))
        self.assertFalse(rule_matches(rule, self.profile(sni_code="62010", industry="IT-konsult")))


    def matching(self, profile: WorkspaceProfile) -> set[str]:
        return {r.id for r in rules() if rule_matches(r, profile)}

    def test_a_restaurant_keeps_a_staff_register_and_a_cash_register_and_may_need_a_serving_licence(self) -> None:
        found = self.matching(self.profile(employee_count=12, sni_code="56.100", sector="private"))
        self.assertTrue({"sfl-employer", "sfl-personalliggare", "sfl-kassaregister", "alkohollag-serving",
                         "prisinformation-consumer", "livsmedelslag-food"} <= found, found)
        self.assertFalse({"konsumentkop-retail", "distansavtal-ecommerce", "pbl-construction"} & found, found)

    def test_an_online_shop_gets_distance_selling_and_no_cash_register_reason_of_its_own(self) -> None:
        web_shop = self.matching(self.profile(sni_code="47.910"))
        shop = self.matching(self.profile(sni_code="47.110"))
        for rule_id in ("distansavtal-ecommerce", "ehandelslag-ecommerce", "lek-cookies-ecommerce"):
            self.assertIn(rule_id, web_shop)
            self.assertNotIn(rule_id, shop)
        self.assertTrue({"konsumentkop-retail", "mfl-consumer-facing", "avtalsvillkor-consumer"} <= web_shop & shop)
        # The SNI prefix cannot tell a web shop from a shop: the kassaregister reason names the exemption.
        reason = next(r.reason for r in rules() if r.id == "sfl-kassaregister")
        self.assertIn("distansförsäljning", reason)

    def test_an_it_consultancy_gets_none_of_the_trade_rules(self) -> None:
        found = self.matching(self.profile(employee_count=8, sni_code="62.010", industry="IT-konsult",
                                           sector="private", has_collective_agreement=False))
        self.assertIn("sfl-employer", found)
        self.assertFalse({"sfl-personalliggare", "sfl-kassaregister", "alkohollag-serving", "konsumentkop-retail",
                          "distansavtal-ecommerce", "pbl-construction", "lbe-flammable", "vagtransport-drivers",
                          "uthyrning-staffing", "fortroendeman-agreement", "loa-public"} & found, found)

    def test_an_industry_word_does_not_match_inside_an_unrelated_word(self) -> None:
        # Industry words match as substrings, so none may hide in a common unrelated trade name.
        for industry in ("Barnomsorg", "Publicering", "Förlag", "Elgrossist", "Konsultverksamhet"):
            found = self.matching(self.profile(industry=industry))
            self.assertFalse({"alkohollag-serving", "sfl-personalliggare", "sfl-kassaregister",
                              "konsumentkop-retail"} & found, (industry, found))

    def test_the_cybersecurity_act_for_a_mid_sized_operator_of_a_nis2_sector_and_the_public_sector(self) -> None:
        self.assertIn("cybersakerhetslag-sector", self.matching(self.profile(employee_count=50, sni_code="35.110")))
        self.assertNotIn("cybersakerhetslag-sector", self.matching(self.profile(employee_count=49, sni_code="35.110")))
        self.assertNotIn("cybersakerhetslag-sector", self.matching(self.profile(employee_count=500, sni_code="62.010")))
        self.assertIn("cybersakerhetslag-public", self.matching(self.profile(sector="public")))

    def test_public_employers_get_the_public_employment_act(self) -> None:
        self.assertIn("loa-public", self.matching(self.profile(employee_count=200, sector="public")))
        self.assertNotIn("loa-public", self.matching(self.profile(employee_count=200, sector="private")))

    def test_union_representatives_only_with_a_collective_agreement(self) -> None:
        rule = self.rule("fortroendeman-agreement")
        self.assertTrue(rule_matches(rule, self.profile(employee_count=5, has_collective_agreement=True)))
        self.assertFalse(rule_matches(rule, self.profile(employee_count=5, has_collective_agreement=False)))

class SuggestionListTests(BaseTestCase):
    def setUp(self) -> None:
        self.docs = load_documents()

    def set_profile(self, **values: Any) -> None:
        WorkspaceProfile.objects.update_or_create(workspace=self.workspace, defaults=values)

    def test_profile_suggestions_with_reasons(self) -> None:
        self.set_profile(employee_count=60, has_collective_agreement=True, sector="private")
        found = {s.number: s for s in suggestion_list(self.workspace)}
        for number in ("1977:1160", "AFS 2023:1", "1982:80", "1976:580", "2021:890", "(EU) 2016/679",
                       "1999:1078"):
            self.assertIn(number, found)
        self.assertNotIn("2017:630", found)  # not a money-laundering business
        self.assertIn("minst 50 anställda", found["2021:890"].reason_text)
        # Two rules for one document: both reasons, one suggestion.
        self.assertIn("3 kap. 13 §", found["2008:567"].reason_text)
        self.assertIn("förbjuder diskriminering", found["2008:567"].reason_text)
        self.assertEqual(found["1977:1160"].group, "Arbetsmiljö")

    def test_a_small_company_gets_no_whistleblowing_suggestion(self) -> None:
        self.set_profile(employee_count=12)
        self.assertNotIn("2021:890", numbers(suggestion_list(self.workspace)))
        self.assertIn("3 kap. 14 §", next(s for s in suggestion_list(self.workspace)
                                          if s.number == "2008:567").reason_text)

    def test_a_rule_whose_document_is_not_loaded_is_skipped(self) -> None:
        LegalDocument.objects.filter(sfs_number="AFS 2023:1").delete()
        self.set_profile(employee_count=5)
        found = numbers(suggestion_list(self.workspace))
        self.assertNotIn("AFS 2023:1", found)
        self.assertIn("1977:1160", found)

    def test_knowledge_base_mentions_become_suggestions_but_not_from_private_files(self) -> None:
        public = UserFile.objects.create(workspace=self.workspace, title="Personalhandbok.pdf",
                                         original_name="p.pdf", file="x", status="done")
        private = UserFile.objects.create(workspace=self.workspace, title="Hemligt.pdf", original_name="h.pdf",
                                          file="x", status="done", is_private=True)
        other = UserFile.objects.create(workspace=self.charlies_workspace, title="Charlie.pdf",
                                        original_name="c.pdf", file="x", status="done")
        for f, text in ((public, "Vid skada gäller skadeståndslagen och 1998:808 för vår miljö."),
                        (private, "Se GDPR."), (other, "Penningtvättslagen gäller oss.")):
            ContentChunk.objects.create(workspace=f.workspace, user_file=f, source_type="USER_FILE",
                                        document_title=f.title, header=f.title, path="0", ordinal=0, text=text,
                                        token_count=10, content_hash=content_hash(text))
        found = {s.number: s for s in knowledge_suggestions(self.workspace)}
        self.assertEqual(set(found), {"1972:207", "1998:808"})
        self.assertIn("Personalhandbok.pdf", found["1972:207"].reason_text)
        self.assertNotIn("Hemligt", " ".join(s.reason_text for s in suggestion_list(self.workspace)))

    def test_accepted_and_rejected_are_not_suggested_again(self) -> None:
        self.set_profile(employee_count=30)
        result = suggestion_accept(workspace=self.workspace, user=self.alice, number="1977:1160")
        self.assertTrue(result.created)
        self.assertEqual(result.item.origin, ItemOrigin.SUGGESTION)
        self.assertEqual(result.item.group.name, "Arbetsmiljö")
        self.assertIn("arbetsmiljölagen gäller", result.item.reason)
        suggestion_reject(workspace=self.workspace, user=self.bob, number="1982:80")
        found = numbers(suggestion_list(self.workspace))
        self.assertNotIn("1977:1160", found)
        self.assertNotIn("1982:80", found)
        self.assertEqual(SuggestionDecision.objects.get(legal_document__sfs_number="1982:80").decision, "rejected")
        # A page shown before the decision cannot decide it again.
        with self.assertRaises(RegisterError) as raised:
            suggestion_accept(workspace=self.workspace, user=self.alice, number="1982:80")
        self.assertEqual(raised.exception.code, "suggestion_gone")
        self.assertFalse(RegisterItem.objects.filter(legal_document__sfs_number="1982:80").exists())

    def test_a_reader_cannot_accept(self) -> None:
        Membership.objects.filter(user=self.bob).update(role=Membership.Role.VIEWER)
        self.set_profile(employee_count=30)
        with self.assertRaises(PermissionDeniedError):
            suggestion_accept(workspace=self.workspace, user=self.bob, number="1977:1160")
        self.assertFalse(RegisterItem.objects.exists())


class TemplateApplyTests(BaseTestCase):
    def test_applying_twice_adds_nothing_the_second_time(self) -> None:
        load_documents()
        template = template_get("arbetsmiljo")
        first = template_apply(workspace=self.workspace, user=self.alice, template=template)
        self.assertEqual(first.group.name, "Arbetsmiljö")
        self.assertEqual(first.items_added, 3)  # AML, AFS 2023:1 and 2023:2; the ordinance is not loaded here
        self.assertEqual(first.missing_documents, ["1977:1166"])
        afs = RegisterItem.objects.get(legal_document__sfs_number="AFS 2023:1")
        self.assertEqual(afs.origin, ItemOrigin.TEMPLATE)
        titles = list(Requirement.objects.filter(item=afs).values_list("section_ref", "title"))
        self.assertIn(("11 §", "Undersökning och riskbedömning"), titles)
        self.assertIn(("14 §", "Årlig uppföljning"), titles)
        count = Requirement.objects.count()
        second = template_apply(workspace=self.workspace, user=self.bob, template=template)
        self.assertEqual((second.items_added, second.items_kept, second.requirements_added), (0, 3, 0))
        self.assertEqual(Requirement.objects.count(), count)

    def test_a_missing_kravpunkt_is_added_to_an_item_already_on_the_list(self) -> None:
        load_documents()
        template = template_get("dataskydd")
        template_apply(workspace=self.workspace, user=self.alice, template=template)
        gdpr = RegisterItem.objects.get(legal_document__sfs_number="(EU) 2016/679")
        gdpr.requirements.filter(section_ref="artikel 30").delete()
        again = template_apply(workspace=self.workspace, user=self.alice, template=template)
        self.assertEqual(again.requirements_added, 1)
        self.assertTrue(gdpr.requirements.filter(section_ref="artikel 30", needs_evidence=True).exists())


class SuggestionPagesTests(BaseTestCase):
    def setUp(self) -> None:
        load_documents()
        WorkspaceProfile.objects.create(workspace=self.workspace, employee_count=55)

    def url(self, name: str, *args: object) -> str:
        return reverse(name, args=[self.workspace.slug, *args])

    def test_it_lists_suggestions_with_reasons(self) -> None:
        self.login(self.bob)
        response = self.client.get(self.url("register_suggestions"))
        self.assertContains(response, "visselblåsarlagen")
        self.assertContains(response, "Lägg till")
        self.assertContains(response, 'data-document="2021:890"')

    def test_accept_by_htmx_swaps_the_row(self) -> None:
        self.login(self.bob)
        response = self.client.post(self.url("register_suggestion_accept"), {"document": "2021:890"},
                                    HTTP_HX_REQUEST="true")
        self.assertContains(response, "har lagts till i laglistan")
        self.assertTrue(RegisterItem.objects.filter(workspace=self.workspace,
                                                    legal_document__sfs_number="2021:890").exists())
        response = self.client.post(self.url("register_suggestion_accept"), {"document": "2021:890"},
                                    HTTP_HX_REQUEST="true")
        self.assertEqual(response.status_code, 409)
        self.assertContains(response, "gäller inte längre", status_code=409)

    def test_reject_and_restore(self) -> None:
        self.login(self.alice)
        response = self.client.post(self.url("register_suggestion_reject"), {"document": "1982:80"})
        self.assertRedirects(response, self.url("register_suggestions"))
        page = self.client.get(self.url("register_suggestions"))
        self.assertNotContains(page, 'data-document="1982:80" ')
        self.assertContains(page, "Avvisade förslag")
        decision = SuggestionDecision.objects.get(legal_document__sfs_number="1982:80")
        self.client.post(self.url("register_suggestion_restore", decision.pk))
        self.assertFalse(SuggestionDecision.objects.exists())

    def test_templates_page_applies_a_template(self) -> None:
        self.login(self.alice)
        self.assertContains(self.client.get(self.url("register_templates")), "Lägg till mall")
        response = self.client.post(self.url("register_template_apply", "miljo"), follow=True)
        self.assertContains(response, "Mallen Miljö har lagts till")
        self.assertTrue(RegisterItem.objects.filter(group__name="Miljö", legal_document__sfs_number="1998:808")
                        .exists())
        self.assertEqual(self.client.post(self.url("register_template_apply", "finns-inte")).status_code, 404)

    def test_readers_and_revisors_read_only(self) -> None:
        for role in (Membership.Role.VIEWER, Membership.Role.AUDITOR):
            Membership.objects.filter(user=self.bob).update(role=role)
            self.login(self.bob)
            page = self.client.get(self.url("register_suggestions"))
            self.assertContains(page, "läsbehörighet")
            self.assertNotContains(page, "Lägg till</button>")
            self.assertNotContains(self.client.get(self.url("register_templates")), "Lägg till mall")
            self.assertEqual(self.client.post(self.url("register_suggestion_accept"),
                                              {"document": "2021:890"}).status_code, 403)
            self.assertEqual(self.client.post(self.url("register_template_apply", "miljo")).status_code, 403)
        self.assertFalse(RegisterItem.objects.exists())

    def test_it_checks_ownership(self) -> None:
        self.login(self.charlie)
        for name, args in (("register_suggestions", ()), ("register_templates", ())):
            self.assertEqual(self.client.get(self.url(name, *args)).status_code, 404)
        for name, args in (("register_suggestion_accept", ()), ("register_suggestion_reject", ()),
                           ("register_template_apply", ("miljo",))):
            self.assertEqual(self.client.post(self.url(name, *args), {"document": "2021:890"}).status_code, 404)
        decision = SuggestionDecision.objects.create(workspace=self.workspace,
                                                     legal_document=LegalDocument.objects.get(sfs_number="1982:80"),
                                                     decision="rejected")
        self.assertEqual(self.client.post(self.url("register_suggestion_restore", decision.pk)).status_code, 404)
        self.assertTrue(SuggestionDecision.objects.filter(pk=decision.pk).exists())
        self.assertFalse(RegisterItem.objects.exists())
        # An outsider who is logged out is sent to log in.
        self.client.logout()
        self.assertEqual(self.client.get(self.url("register_suggestions")).status_code, 302)
