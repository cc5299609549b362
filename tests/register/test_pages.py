"""The laglista's pages: who may read and write, filters, the inline status change, the review to its end,
the history's before → after. alice owns the workspace, bob edits, dave reads, erik is a revisor, charlie is
an outsider with a workspace of his own."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from compliance import services as compliance_services
from compliance.models import LegalDocument, Membership, ProcessingStatus, Workspace
from register import selectors, services
from register.models import Action, Evidence, LegalRegister, RegisterItem, Requirement, Review, ReviewEntry
from register.pages.history import history_rows
from tests.helpers import BaseTestCase, make_member, make_user


class RegisterPagesTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.dave = make_member(cls.workspace, "dave", Membership.Role.VIEWER)
        cls.erik = make_member(cls.workspace, "erik", Membership.Role.AUDITOR)
        cls.aml = LegalDocument.objects.create(sfs_number="1977:1160", title="Arbetsmiljölag (1977:1160)",
                                               status=ProcessingStatus.DONE)
        cls.gdpr = LegalDocument.objects.create(sfs_number="(EU) 2016/679", title="Dataskyddsförordningen",
                                                content_type=LegalDocument.ContentType.EU_REGULATION,
                                                status=ProcessingStatus.DONE)
        cls.register = services.register_default(workspace=cls.workspace, user=cls.alice)
        cls.group = services.register_group_get_or_create(register=cls.register, user=cls.alice, name="Arbetsmiljö")
        cls.item = services.register_item_add(register=cls.register, user=cls.alice, legal_document=cls.aml,
                                               group=cls.group, reason="Vi har anställda.",
                                               responsible=cls.bob).item
        cls.item2 = services.register_item_add(register=cls.register, user=cls.alice, legal_document=cls.gdpr,
                                                reason="Vi behandlar personuppgifter.").item
        cls.requirement = services.requirement_create(item=cls.item, user=cls.alice, data={
            "title": "Undersöka risker", "section_ref": "3 kap. 2 a §", "owner": cls.alice, "needs_evidence": True})
        cls.external = services.evidence_add(requirement=cls.requirement, user=cls.alice, kind="external",
                                             reference="Rutin SAM-01")
        cls.action = services.action_create(workspace=cls.workspace, user=cls.alice, title="Gör riskbedömning",
                                            item=cls.item, owner=cls.bob)
        cls.review = services.review_start(register=cls.register, user=cls.alice, title="Kontroll 2026")
        cls.entry = cls.review.entries.get(item=cls.item)
        # charlie's own register: alice must not reach any of it through her slug.
        cregister = services.register_default(workspace=cls.charlies_workspace, user=cls.charlie)
        cls.c_item = services.register_item_add(register=cregister, user=cls.charlie, legal_document=cls.aml).item
        cls.c_requirement = services.requirement_create(item=cls.c_item, user=cls.charlie, data={"title": "Hemligt"})
        cls.c_evidence = services.evidence_add(requirement=cls.c_requirement, user=cls.charlie, kind="external",
                                               reference="Charlies pärm")
        cls.c_action = services.action_create(workspace=cls.charlies_workspace, user=cls.charlie, title="Charlies",
                                              item=cls.c_item)
        cls.c_review = services.review_start(register=cregister, user=cls.charlie, title="Charlies kontroll")
        cls.c_entry = cls.c_review.entries.get()

    def url(self, name: str, *args: object, slug: str | None = None) -> str:
        return reverse(name, args=[slug or self.workspace.slug, *args])

    def read_urls(self, slug: str | None = None) -> list[str]:
        return [self.url("register_overview", slug=slug), self.url("register_item", self.item.pk, slug=slug),
                self.url("register_item_history", self.item.pk, slug=slug),
                self.url("register_reviews", slug=slug), self.url("register_review", self.review.pk, slug=slug),
                self.url("register_actions", slug=slug)]

    def write_posts(self, slug: str | None = None, *, item: RegisterItem | None = None,
                    requirement: Requirement | None = None, evidence: Evidence | None = None,
                    review: Review | None = None, entry: ReviewEntry | None = None,
                    action: Action | None = None) -> list[tuple[str, dict]]:
        item, requirement = item or self.item, requirement or self.requirement
        evidence, review, entry, action = evidence or self.external, review or self.review, entry or self.entry, \
            action or self.action
        return [
            (self.url("register_create", slug=slug), {}),
            (self.url("register_item_add", slug=slug), {"legal_document": self.gdpr.pk}),
            (self.url("register_item_edit", item.pk, slug=slug), {"status": "compliant"}),
            (self.url("register_item_status", item.pk, slug=slug), {"status": "compliant"}),
            (self.url("register_item_remove", item.pk, slug=slug), {}),
            (self.url("register_requirement_add", item.pk, slug=slug), {"krav-title": "Nytt", "krav-status": "compliant"}),
            (self.url("register_action_create", item.pk, slug=slug), {"atgard-title": "Ny"}),
            (self.url("register_requirement_edit", requirement.pk, slug=slug), {"title": "Ändrat", "status": "compliant"}),
            (self.url("register_requirement_delete", requirement.pk, slug=slug), {}),
            (self.url("register_evidence_add", requirement.pk, slug=slug),
             {f"bevis-{requirement.pk}-kind": "external", f"bevis-{requirement.pk}-reference": "x"}),
            (self.url("register_evidence_remove", evidence.pk, slug=slug), {}),
            (self.url("register_review_start", slug=slug), {"title": "Ny", "register": self.register.pk}),
            (self.url("register_review_rate", review.pk, entry.pk, slug=slug), {f"post-{entry.pk}-rating": "compliant"}),
            (self.url("register_review_close", review.pk, slug=slug), {}),
            (self.url("register_action_update", action.pk, slug=slug), {"markera": "done"}),
        ]

    def snapshot(self) -> tuple:
        return (list(RegisterItem.objects.order_by("pk").values_list("pk", "status", "reason")),
                list(Requirement.objects.order_by("pk").values_list("pk", "title", "status")),
                list(Evidence.objects.order_by("pk").values_list("pk", "reference")),
                list(Review.objects.order_by("pk").values_list("pk", "state")),
                list(Action.objects.order_by("pk").values_list("pk", "state", "title")),
                LegalRegister.objects.count(), self.review.entries.filter(assessed_at__isnull=False).count())


class OwnershipTests(RegisterPagesTestCase):
    def test_it_checks_ownership(self) -> None:
        """charlie, an outsider, gets 404 on every page and every write, and nothing changes."""
        self.login(self.charlie)
        before = self.snapshot()
        for url in self.read_urls() + [self.url("register_item_add"), self.url("register_review_start"),
                                       self.url("register_requirement_edit", self.requirement.pk)]:
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 404)
        for url, data in self.write_posts():
            with self.subTest(url=url):
                self.assertEqual(self.client.post(url, data).status_code, 404)
        self.assertEqual(self.snapshot(), before)

    def test_other_workspaces_ids_through_own_slug_are_404(self) -> None:
        self.login(self.alice)
        before = self.snapshot()
        urls = [self.url("register_item", self.c_item.pk), self.url("register_item_history", self.c_item.pk),
                self.url("register_review", self.c_review.pk), self.url("register_requirement_edit",
                                                                        self.c_requirement.pk)]
        for url in urls:
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 404)
        posts = self.write_posts(item=self.c_item, requirement=self.c_requirement, evidence=self.c_evidence,
                                 review=self.c_review, entry=self.c_entry, action=self.c_action)
        for url, data in posts:
            if "/poster/ny/" in url or "/skapa/" in url or url.endswith("/kontroller/ny/"):
                continue  # no object id in these
            with self.subTest(url=url):
                self.assertEqual(self.client.post(url, data).status_code, 404)
        self.assertEqual(self.snapshot(), before)

    def test_an_entry_of_another_review_is_404(self) -> None:
        self.login(self.alice)
        url = self.url("register_review_rate", self.review.pk, self.c_entry.pk)
        self.assertEqual(self.client.post(url, {f"post-{self.c_entry.pk}-rating": "compliant"}).status_code, 404)

    def test_anonymous_is_sent_to_login(self) -> None:
        response = self.client.get(self.url("register_overview"))
        self.assertEqual(response.status_code, 302)
        self.assertIn("/logga-in/", response["Location"])


class ReadOnlyTests(RegisterPagesTestCase):
    def test_reader_and_revisor_see_everything_without_forms(self) -> None:
        for user in (self.dave, self.erik):
            self.login(user)
            for url in self.read_urls():
                with self.subTest(user=user.username, url=url):
                    response = self.client.get(url)
                    self.assertEqual(response.status_code, 200)
                    # The only form is the top bar's "Logga ut".
                    self.assertContains(response, 'method="post"', count=1)
            self.assertContains(self.client.get(self.url("register_overview")), "endast läsning")

    def test_reader_and_revisor_cannot_write(self) -> None:
        before = self.snapshot()
        for user in (self.dave, self.erik):
            self.login(user)
            for url in [self.url("register_item_add"), self.url("register_review_start"),
                        self.url("register_requirement_edit", self.requirement.pk)]:
                with self.subTest(user=user.username, url=url):
                    response = self.client.get(url)
                    self.assertEqual(response.status_code, 403)
                    self.assertContains(response, "läsbehörighet", status_code=403)
            for url, data in self.write_posts():
                with self.subTest(user=user.username, url=url):
                    response = self.client.post(url, data)
                    self.assertEqual(response.status_code, 403)
                    self.assertContains(response, "läsbehörighet", status_code=403)
        self.assertEqual(self.snapshot(), before)

    def test_revisor_does_not_see_private_file_titles(self) -> None:
        private = compliance_services.user_file_upload(
            workspace=self.workspace, user=self.alice, is_private=True,
            uploaded=SimpleUploadedFile("lonelista-hemlig.txt", b"Hemliga loner", content_type="text/plain"))
        services.evidence_add(requirement=self.requirement, user=self.alice, kind="file", user_file=private)
        self.login(self.erik)
        for url in (self.url("register_item", self.item.pk), self.url("register_item_history", self.item.pk)):
            response = self.client.get(url)
            self.assertNotContains(response, "lonelista-hemlig")
            self.assertContains(response, "Privat fil")
        self.login(self.bob)
        self.assertContains(self.client.get(self.url("register_item", self.item.pk)), "lonelista-hemlig")


class OverviewTests(RegisterPagesTestCase):
    def test_no_register_is_made_by_a_page_view(self) -> None:
        LegalRegister.objects.filter(workspace=self.workspace).delete()
        self.login(self.alice)
        response = self.client.get(self.url("register_overview"))
        self.assertContains(response, "Ingen laglista ännu")
        self.assertFalse(LegalRegister.objects.filter(workspace=self.workspace).exists())
        self.login(self.dave)
        self.assertEqual(self.client.post(self.url("register_create")).status_code, 403)
        self.assertFalse(LegalRegister.objects.filter(workspace=self.workspace).exists())
        self.login(self.bob)
        self.client.post(self.url("register_create"))
        self.assertEqual(LegalRegister.objects.filter(workspace=self.workspace).count(), 1)

    def test_the_lists_and_an_item_name_their_documents_without_reading_the_text(self) -> None:
        """A large statute's text and structure run to megabytes; a row shows the document's title and number."""
        text = set(LegalDocument.TEXT_FIELDS)
        items = list(selectors.register_item_list(self.workspace, register=self.register))
        self.assertEqual({i.legal_document.sfs_number for i in items}, {"1977:1160", "(EU) 2016/679"})
        self.assertTrue(all(text <= i.legal_document.get_deferred_fields() for i in items))
        item = selectors.register_item_get(self.workspace, self.item.pk)
        self.assertTrue(text <= item.legal_document.get_deferred_fields())
        rows = [*selectors.requirement_list(self.workspace), *selectors.action_list(self.workspace)]
        self.assertEqual({type(row).__name__ for row in rows if row.item_id}, {"Requirement", "Action"})
        for row in rows:
            if row.item_id:
                self.assertTrue(text <= row.item.legal_document.get_deferred_fields())
        self.login(self.alice)
        self.assertContains(self.client.get(self.url("register_overview")), "Arbetsmiljölag (1977:1160)")

    def test_figures_mine_and_actions(self) -> None:
        self.login(self.alice)
        response = self.client.get(self.url("register_overview"))
        self.assertEqual(response.status_code, 200)
        figures = {f["value"]: f["count"] for f in response.context["figures"]}
        self.assertEqual(figures, {"compliant": 0, "partial": 0, "non_compliant": 0, "not_assessed": 2,
                                   "not_applicable": 0})
        self.assertContains(response, "data-register-chart")
        self.assertEqual([r.pk for r in response.context["my_requirements"]], [self.requirement.pk])
        self.assertEqual([a.pk for a in response.context["open_actions"]], [self.action.pk])
        self.login(self.bob)
        self.assertEqual(list(self.client.get(self.url("register_overview")).context["my_requirements"]), [])

    def test_filters(self) -> None:
        self.login(self.alice)
        cases = [({"grupp": self.group.pk}, [self.item.pk]), ({"ansvarig": self.bob.pk}, [self.item.pk]),
                 ({"q": "dataskydd"}, [self.item2.pk]), ({"status": "not_assessed"}, [self.item.pk, self.item2.pk]),
                 ({"status": "compliant"}, [])]
        for query, expected in cases:
            with self.subTest(query=query):
                response = self.client.get(self.url("register_overview"), query)
                self.assertEqual(response.status_code, 200)
                self.assertEqual(sorted(i.pk for i in response.context["page"].object_list), sorted(expected))

    @pytest.mark.clock
    def test_overdue_filter(self) -> None:
        RegisterItem.objects.filter(pk=self.item.pk).update(next_review_date=datetime.date(2000, 1, 1))
        self.login(self.alice)
        response = self.client.get(self.url("register_overview"), {"forsenad": "ja"})
        self.assertEqual([i.pk for i in response.context["page"].object_list], [self.item.pk])
        self.assertEqual(response.context["summary"].overdue_reviews, 1)

    def test_bad_filter_values_get_a_swedish_message(self) -> None:
        self.login(self.alice)
        foreign_group = self.c_item.register.groups.create(name="Charlies grupp")
        for query in ({"status": "bogus"}, {"grupp": "abc"}, {"grupp": foreign_group.pk}, {"ansvarig": self.charlie.pk},
                      {"typ": "x"}, {"q": "x" * 500}, {"lista": "abc"}):
            with self.subTest(query=query):
                response = self.client.get(self.url("register_overview"), query)
                self.assertEqual(response.status_code, 400)
                self.assertContains(response, "Filtret kunde inte användas" if "lista" not in query
                                    else "Okänd laglista", status_code=400)

    def test_another_workspaces_register_is_404(self) -> None:
        self.login(self.alice)
        response = self.client.get(self.url("register_overview"), {"lista": self.c_item.register_id})
        self.assertEqual(response.status_code, 404)

    def test_inline_status_change_with_htmx_returns_the_row(self) -> None:
        self.login(self.bob)
        response = self.client.post(self.url("register_item_status", self.item.pk), {"status": "partial"},
                                    HTTP_HX_REQUEST="true")
        self.assertEqual(response.status_code, 200)
        self.assertTemplateUsed(response, "register/_item_row.html")
        self.assertContains(response, f'id="post-{self.item.pk}"')
        self.assertContains(response, '<option value="partial" selected>')
        self.assertNotContains(response, "<html")
        self.item.refresh_from_db()
        self.assertEqual((self.item.status, self.item.last_reviewed_by), ("partial", self.bob))

    def test_inline_status_change_with_a_bad_value(self) -> None:
        self.login(self.bob)
        response = self.client.post(self.url("register_item_status", self.item.pk), {"status": "bogus"},
                                    HTTP_HX_REQUEST="true")
        self.assertEqual(response.status_code, 400)
        self.assertContains(response, "Okänd status", status_code=400)
        self.item.refresh_from_db()
        self.assertEqual(self.item.status, "not_assessed")


class ItemTests(RegisterPagesTestCase):
    def test_add_an_item_with_a_new_group(self) -> None:
        doc = LegalDocument.objects.create(sfs_number="2021:890", title="Lag (2021:890) om skydd för personer "
                                           "som rapporterar om missförhållanden", status=ProcessingStatus.DONE)
        self.login(self.bob)
        response = self.client.get(self.url("register_item_add"), {"q": "2021:890"})
        self.assertEqual(list(response.context["form"].fields["legal_document"].queryset), [doc])
        response = self.client.post(self.url("register_item_add"), {
            "legal_document": doc.pk, "new_group": "Visselblåsning", "reason": "Fler än 50 anställda.",
            "responsible": self.alice.pk})
        item = RegisterItem.objects.get(legal_document=doc)
        self.assertRedirects(response, self.url("register_item", item.pk))
        self.assertEqual((item.group.name, item.reason, item.responsible), ("Visselblåsning", "Fler än 50 anställda.",
                                                                           self.alice))

    def test_add_refuses_a_non_member_and_nothing_is_saved(self) -> None:
        doc = LegalDocument.objects.create(sfs_number="2021:891", title="X", status=ProcessingStatus.DONE)
        self.login(self.bob)
        response = self.client.post(self.url("register_item_add"), {"legal_document": doc.pk,
                                                                    "responsible": self.charlie.pk})
        self.assertEqual(response.status_code, 400)
        self.assertFalse(RegisterItem.objects.filter(legal_document=doc).exists())

    def test_item_page_shows_what_it_should(self) -> None:
        self.login(self.alice)
        response = self.client.get(self.url("register_item", self.item.pk))
        self.assertContains(response, 'href="/lag/1977:1160"')
        self.assertContains(response, "Vi har anställda.")
        self.assertContains(response, "Undersöka risker")
        self.assertContains(response, "Rutin SAM-01")
        self.assertContains(response, "Gör riskbedömning")

    def test_edit_bad_date_and_too_long_text_save_nothing(self) -> None:
        self.login(self.bob)
        url = self.url("register_item_edit", self.item.pk)
        response = self.client.post(url, {"status": "compliant", "next_review_date": "2026-13-45"})
        self.assertContains(response, "giltigt datum", status_code=400)
        response = self.client.post(url, {"status": "compliant", "how_we_comply": "x" * 30_000})
        self.assertEqual(response.status_code, 400)
        self.assertContains(response, "som mest 20000 tecken", status_code=400)
        self.item.refresh_from_db()
        self.assertEqual((self.item.status, self.item.how_we_comply), ("not_assessed", ""))

    def test_a_10_mb_comment_is_a_clear_error(self) -> None:
        self.login(self.bob)
        response = self.client.post(self.url("register_evidence_add", self.requirement.pk), {
            f"bevis-{self.requirement.pk}-kind": "external", f"bevis-{self.requirement.pk}-reference": "Pärm",
            f"bevis-{self.requirement.pk}-note": "x" * 10_000_000})
        self.assertEqual(response.status_code, 400)
        self.assertContains(response, "för stort", status_code=400)
        self.assertEqual(self.requirement.evidence.count(), 1)

    def test_a_10_mb_comment_refused_before_the_view_is_a_swedish_page_too(self) -> None:
        """With CSRF checks on (as in production) the middleware reads the body first: handler400 answers."""
        client = Client(enforce_csrf_checks=True)
        client.force_login(self.bob)
        client.get(self.url("register_item", self.item.pk))  # the CSRF cookie, so the check reads the body
        response = client.post(self.url("register_evidence_add", self.requirement.pk), {
            f"bevis-{self.requirement.pk}-kind": "external", f"bevis-{self.requirement.pk}-note": "x" * 10_000_000})
        self.assertEqual(response.status_code, 400)
        self.assertContains(response, "Det du skickade är för stort", status_code=400)
        self.assertEqual(self.requirement.evidence.count(), 1)

    def test_requirement_and_evidence(self) -> None:
        user_file = compliance_services.user_file_upload(
            workspace=self.workspace, user=self.alice,
            uploaded=SimpleUploadedFile("sam-rutin.txt", b"Rutin for SAM", content_type="text/plain"))
        self.login(self.bob)
        self.client.post(self.url("register_requirement_add", self.item.pk), {
            "krav-title": "Skriftlig arbetsmiljöpolicy", "krav-section_ref": "AFS 2023:1 2 kap. 2 §",
            "krav-status": "partial", "krav-owner": self.bob.pk, "krav-needs_evidence": "on"})
        requirement = Requirement.objects.get(title="Skriftlig arbetsmiljöpolicy")
        self.assertEqual((requirement.status, requirement.owner, requirement.needs_evidence), ("partial", self.bob, True))
        prefix = f"bevis-{requirement.pk}"
        response = self.client.post(self.url("register_evidence_add", requirement.pk),
                                    {f"{prefix}-kind": "file", f"{prefix}-user_file": user_file.pk})
        self.assertEqual(response.status_code, 302)
        evidence = requirement.evidence.get()
        self.assertEqual(evidence.user_file, user_file)
        # A file of another workspace is not among the choices: refused, nothing added.
        other = compliance_services.user_file_upload(
            workspace=self.charlies_workspace, user=self.charlie,
            uploaded=SimpleUploadedFile("charlie.txt", b"Charlies fil", content_type="text/plain"))
        response = self.client.post(self.url("register_evidence_add", requirement.pk),
                                    {f"{prefix}-kind": "file", f"{prefix}-user_file": other.pk})
        self.assertEqual(response.status_code, 400)
        # An external reference without text: the service's Swedish message at the form.
        response = self.client.post(self.url("register_evidence_add", requirement.pk), {f"{prefix}-kind": "external"})
        self.assertContains(response, "Ange en referens", status_code=400)
        self.assertEqual(requirement.evidence.count(), 1)
        self.client.post(self.url("register_evidence_remove", evidence.pk))
        self.assertEqual(requirement.evidence.count(), 0)
        response = self.client.post(self.url("register_requirement_edit", requirement.pk), {
            "title": "Skriftlig policy", "status": "compliant", "due_date": "inte ett datum"})
        self.assertContains(response, "giltigt datum", status_code=400)
        self.client.post(self.url("register_requirement_edit", requirement.pk),
                         {"title": "Skriftlig policy", "status": "compliant"})
        requirement.refresh_from_db()
        self.assertEqual((requirement.title, requirement.status), ("Skriftlig policy", "compliant"))

    def test_history_shows_who_when_field_before_and_after(self) -> None:
        self.login(self.bob)
        self.client.post(self.url("register_item_edit", self.item.pk), {
            "status": "partial", "how_we_comply": "Rutin SAM-01", "responsible": self.alice.pk,
            "group": self.group.pk})
        self.login(self.erik)
        response = self.client.get(self.url("register_item_history", self.item.pk))
        self.assertEqual(response.status_code, 200)
        rows = response.context["rows"]
        change = next(r for r in rows if r.action == "ändrade" and r.what == "laglistepost"
                      and any(c.label == "status" for c in r.changes))
        self.assertEqual(change.actor, "bob")
        changes = {c.label: (c.before, c.after) for c in change.changes}
        self.assertEqual(changes["status"], ("ej bedömd", "uppfylls delvis"))
        self.assertEqual(changes["ansvarig"], ("bob", "alice"))
        self.assertEqual(changes["hur vi uppfyller kraven"], ("–", "Rutin SAM-01"))
        self.assertContains(response, "<del>ej bedömd</del> → <ins>uppfylls delvis</ins>", html=False)
        # The kravpunkt's and the evidence's creation are in the item's trail too.
        self.assertTrue(any(r.what == "kravpunkt" and r.action == "skapade" for r in rows))
        self.assertTrue(any(r.what == "bevis" for r in rows))


class ReviewTests(RegisterPagesTestCase):
    @pytest.mark.clock
    def test_review_flow_to_close(self) -> None:
        self.login(self.bob)
        response = self.client.post(self.url("register_review_start"), {
            "title": "Årlig kontroll", "register": self.register.pk, "groups": [self.group.pk],
            "lead": self.alice.pk, "due_date": "2026-12-31"})
        review = Review.objects.get(title="Årlig kontroll")
        self.assertRedirects(response, self.url("register_review", review.pk))
        self.assertEqual(list(review.entries.values_list("item", flat=True)), [self.item.pk])
        entry = review.entries.get()
        # Closing with an unsigned entry is refused with a clear message.
        response = self.client.post(self.url("register_review_close", review.pk))
        self.assertContains(response, "1 poster är inte bedömda än", status_code=400)
        review.refresh_from_db()
        self.assertFalse(review.is_closed)
        # "uppfylls inte" → an action, shown on the review page.
        response = self.client.post(self.url("register_review_rate", review.pk, entry.pk), {
            f"post-{entry.pk}-rating": "non_compliant", f"post-{entry.pk}-justification": "Ingen riskbedömning.",
            f"post-{entry.pk}-evidence": [self.external.pk]}, follow=True)
        self.assertContains(response, "En åtgärd är skapad")
        action = Action.objects.get(review_entry=entry)
        self.assertContains(response, f'id="atgard-{action.pk}"')
        entry.refresh_from_db()
        self.assertEqual((entry.rating, entry.assessed_by), ("non_compliant", self.bob))
        self.assertEqual(list(entry.evidence.all()), [self.external])
        response = self.client.post(self.url("register_review_close", review.pk), follow=True)
        self.assertContains(response, "är avslutad")
        review.refresh_from_db()
        self.assertTrue(review.is_closed)
        entry.refresh_from_db()
        # The closed page shows the frozen fields and nothing editable.
        self.item.legal_document.title = "Ändrad titel"
        response = self.client.get(self.url("register_review", review.pk))
        self.assertContains(response, entry.frozen_title)
        self.assertContains(response, "Undersöka risker")  # frozen_requirements
        self.assertContains(response, "Rutin SAM-01")  # frozen_evidence
        self.assertNotContains(response, "Signera")
        self.assertNotContains(response, "Avsluta kontrollen")
        # A rating after closing is refused; nothing changes.
        response = self.client.post(self.url("register_review_rate", review.pk, entry.pk),
                                     {f"post-{entry.pk}-rating": "compliant"})
        self.assertContains(response, "avslutad", status_code=409)
        entry.refresh_from_db()
        self.assertEqual(entry.rating, "non_compliant")

    def test_a_rating_must_be_chosen(self) -> None:
        self.login(self.bob)
        response = self.client.post(self.url("register_review_rate", self.review.pk, self.entry.pk),
                                    {f"post-{self.entry.pk}-rating": ""})
        self.assertEqual(response.status_code, 400)
        self.entry.refresh_from_db()
        self.assertFalse(self.entry.is_signed)

    def test_start_without_a_register_sends_to_the_overview(self) -> None:
        LegalRegister.objects.filter(workspace=self.workspace).delete()
        self.login(self.bob)
        response = self.client.get(self.url("register_review_start"))
        self.assertRedirects(response, self.url("register_overview"))

    def test_start_needs_items_in_scope(self) -> None:
        empty = services.register_group_get_or_create(register=self.register, user=self.alice, name="Tom")
        self.login(self.bob)
        response = self.client.post(self.url("register_review_start"), {
            "title": "Tom kontroll", "register": self.register.pk, "groups": [empty.pk]})
        self.assertContains(response, "Det finns inga poster att bedöma", status_code=400)
        self.assertFalse(Review.objects.filter(title="Tom kontroll").exists())


class ActionTests(RegisterPagesTestCase):
    def test_mark_done_and_filters(self) -> None:
        self.login(self.bob)
        response = self.client.get(self.url("register_actions"))
        self.assertContains(response, "Gör riskbedömning")
        self.client.post(self.url("register_action_update", self.action.pk), {"markera": "done"})
        self.action.refresh_from_db()
        self.assertEqual((self.action.state, self.action.closed_by), ("done", self.bob))
        self.assertEqual(self.client.get(self.url("register_actions")).context["rows"], [])
        rows = self.client.get(self.url("register_actions"), {"lage": "klara"}).context["rows"]
        self.assertEqual([r["action"].pk for r in rows], [self.action.pk])
        self.assertEqual(self.client.get(self.url("register_actions"), {"lage": "x"}).status_code, 400)

    def test_owner_and_due_date(self) -> None:
        self.login(self.bob)
        prefix = f"atgard-{self.action.pk}"
        response = self.client.post(self.url("register_action_update", self.action.pk), {
            f"{prefix}-owner": self.alice.pk, f"{prefix}-due_date": "31/02/2026", f"{prefix}-state": "open"})
        self.assertContains(response, "giltigt datum", status_code=400)
        self.client.post(self.url("register_action_update", self.action.pk), {
            f"{prefix}-owner": self.alice.pk, f"{prefix}-due_date": "2026-12-01", f"{prefix}-state": "open"})
        self.action.refresh_from_db()
        self.assertEqual((self.action.owner, self.action.due_date), (self.alice, datetime.date(2026, 12, 1)))


@pytest.mark.django_db
def test_nav_has_laglista(client: Client) -> None:
    user = make_user("frida")
    ws = Workspace.objects.create(name="F AB", slug="f-ab")
    Membership.objects.create(user=user, workspace=ws, role="owner")
    client.force_login(user)
    response = client.get(reverse("knowledge", args=[ws.slug]))
    assert f'href="/ws/{ws.slug}/laglista/"' in response.content.decode()
    assert selectors.register_list(ws).count() == 0


class HistoryDisplayTests(RegisterPagesTestCase):
    def test_times_are_on_the_stockholm_clock_and_a_finding_names_its_review(self) -> None:
        with time_machine.travel(datetime.datetime(2026, 6, 17, 21, 30, tzinfo=datetime.timezone.utc), tick=False):
            services.review_entry_rate(entry=self.entry, user=self.bob, rating="non_compliant")
        rows = history_rows(selectors.audit_trail(self.workspace, item=self.item), workspace=self.workspace,
                            may_see_private=True)
        signed = next(c for r in rows for c in r.changes if c.label == "signerad")
        self.assertEqual(signed.after, "2026-06-17 23:30")  # CEST
        source = next(c for r in rows for c in r.changes if c.label == "från kontroll")
        self.assertEqual(source.after, "Kontroll 2026")
