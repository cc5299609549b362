"""The register's services: every write, its permission check, its refusal of bad input and its audit trail."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta

import pytest
import time_machine
from auditlog.models import LogEntry
from django.contrib.auth.models import User
from django.db.models import Model

from compliance.clock import STOCKHOLM
from compliance.models import Membership, Workspace
from law.models import StatuteVersion
from register import selectors, services
from register.models import (
    Action,
    ComplianceStatus,
    Evidence,
    ItemOrigin,
    LegalRegister,
    RegisterGroup,
    RegisterItem,
    Requirement,
    Review,
    ReviewEntry,
)
from register.services import PermissionDeniedError, RegisterError, ReviewClosedError

from .base import RegisterTestCase

pytestmark = pytest.mark.clock

REGISTER_MODELS: tuple[type[Model], ...] = (LegalRegister, RegisterGroup, RegisterItem, Requirement, Evidence,
                                            Review, ReviewEntry, Action)


def counts() -> dict[str, int]:
    """Every register table's row count and the audit trail's: "nothing written" compares two of these."""
    return {**{model.__name__: model.objects.count() for model in REGISTER_MODELS},
            "LogEntry": LogEntry.objects.count()}


class RegisterAndGroupTests(RegisterTestCase):
    def test_register_create_and_default(self) -> None:
        register = services.register_create(workspace=self.workspace, user=self.alice, name="  Miljö  ",
                                            description="ISO 14001")
        self.assertEqual((register.name, register.description, register.created_by), ("Miljö", "ISO 14001",
                                                                                         self.alice))
        # The default is the first register, not a second one.
        self.assertEqual(services.register_default(workspace=self.workspace, user=self.bob), register)
        self.assertEqual(LegalRegister.objects.filter(workspace=self.workspace).count(), 1)

    def test_register_default_creates_laglista_when_none(self) -> None:
        register = services.register_default(workspace=self.workspace, user=self.bob)
        self.assertEqual(register.name, "Laglista")
        self.assertEqual(register.workspace, self.workspace)

    def test_register_create_bad_input(self) -> None:
        self.make_register("Miljö")
        for name, code in (("", "name_required"), ("  ", "name_required"), ("miljö", "name_taken"),
                           ("x" * 201, "text_too_long")):
            with self.subTest(name=name[:10]), self.assertRaises(RegisterError) as caught:
                services.register_create(workspace=self.workspace, user=self.alice, name=name)
            self.assertEqual(caught.exception.code, code)
            self.assertEqual(caught.exception.details["field"], "name")
        self.assertEqual(LegalRegister.objects.count(), 1)

    def test_group_get_or_create_is_idempotent_and_case_insensitive(self) -> None:
        register = self.make_register()
        first = services.register_group_get_or_create(register=register, user=self.bob, name="Arbetsmiljö")
        second = services.register_group_get_or_create(register=register, user=self.bob, name="ARBETSMILJÖ")
        other = services.register_group_get_or_create(register=register, user=self.bob, name="Miljö")
        self.assertEqual(first, second)
        self.assertEqual((first.position, other.position), (0, 1))
        with self.assertRaises(RegisterError) as caught:
            services.register_group_get_or_create(register=register, user=self.bob, name=" ")
        self.assertEqual(caught.exception.code, "group_required")


class ItemTests(RegisterTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.register = self.make_register()

    def test_item_add_is_idempotent(self) -> None:
        group = services.register_group_get_or_create(register=self.register, user=self.alice, name="Arbetsmiljö")
        first = services.register_item_add(register=self.register, user=self.bob, legal_document=self.aml,
                                           group=group, reason="Vi har anställda", responsible=self.bob,
                                           origin=ItemOrigin.SUGGESTION)
        again = services.register_item_add(register=self.register, user=self.alice, legal_document=self.aml,
                                           reason="Annan motivering", origin=ItemOrigin.IMPORT)
        self.assertTrue(first.created)
        self.assertFalse(again.created)
        self.assertEqual(again.item.pk, first.item.pk)
        item = RegisterItem.objects.get()
        # The second add kept the first one as it was.
        self.assertEqual((item.reason, item.origin, item.group, item.responsible, item.workspace),
                         ("Vi har anställda", ItemOrigin.SUGGESTION, group, self.bob, self.workspace))

    def test_item_add_own_requirement_without_document(self) -> None:
        result = services.register_item_add(register=self.register, user=self.alice, legal_document=None,
                                            title="Egen rutin för brandskydd")
        self.assertTrue(result.created)
        self.assertEqual(result.item.display_title, "Egen rutin för brandskydd")

    def test_item_add_bad_input(self) -> None:
        other = services.register_create(workspace=self.workspace, user=self.alice, name="Annan")
        foreign_group = services.register_group_get_or_create(register=other, user=self.alice, name="G")
        cases = [
            (dict(legal_document=None, title=""), "document_required", "legal_document"),
            (dict(legal_document=self.aml, group=foreign_group), "group_not_in_register", "group"),
            (dict(legal_document=self.aml, responsible=self.charlie), "not_a_member", "responsible"),
            (dict(legal_document=self.aml, reason="x" * 20_001), "text_too_long", "reason"),
            (dict(legal_document=None, title="x" * 301), "text_too_long", "title"),
        ]
        before = counts()
        for kwargs, code, field in cases:
            with self.subTest(code=code), self.assertRaises(RegisterError) as caught:
                services.register_item_add(register=self.register, user=self.alice, **kwargs)
            self.assertEqual((caught.exception.code, caught.exception.details["field"]), (code, field))
        self.assertEqual(counts(), before)

    @time_machine.travel(datetime(2026, 3, 2, 12, 0, tzinfo=STOCKHOLM), tick=False)
    def test_item_update_status_is_an_assessment(self) -> None:
        item = self.make_item(self.register)
        RegisterItem.objects.filter(pk=item.pk).update(needs_reassessment=True)
        item = services.register_item_update(item=item, user=self.bob,
                                             data={"status": ComplianceStatus.PARTIAL, "how_we_comply": " Rutin "})
        item.refresh_from_db()
        self.assertEqual((item.status, item.how_we_comply, item.last_reviewed_by, item.needs_reassessment),
                         (ComplianceStatus.PARTIAL, "Rutin", self.bob, False))
        self.assertEqual(item.last_reviewed_at, date(2026, 3, 2))

    def test_item_update_without_status_change_is_no_assessment(self) -> None:
        item = self.make_item(self.register)
        services.register_item_update(item=item, user=self.bob, data={"reason": "Vi har 60 anställda"})
        item.refresh_from_db()
        self.assertEqual(item.reason, "Vi har 60 anställda")
        self.assertIsNone(item.last_reviewed_at)

    def test_item_update_bad_input(self) -> None:
        item = self.make_item(self.register)
        other = services.register_create(workspace=self.workspace, user=self.alice, name="Annan")
        foreign_group = services.register_group_get_or_create(register=other, user=self.alice, name="G")
        before = counts()
        for data, code in (({"status": "kanske"}, "invalid_status"), ({"responsible": self.charlie}, "not_a_member"),
                           ({"group": foreign_group}, "group_not_in_register"),
                           ({"how_we_comply": "x" * 20_001}, "text_too_long")):
            with self.subTest(code=code), self.assertRaises(RegisterError) as caught:
                services.register_item_update(item=item, user=self.alice, data=data)
            self.assertEqual(caught.exception.code, code)
        self.assertEqual(counts(), before)
        item.refresh_from_db()
        self.assertEqual(item.status, ComplianceStatus.NOT_ASSESSED)

    def test_item_remove(self) -> None:
        item = self.make_item(self.register)
        self.make_requirement(item)
        services.register_item_remove(item=item, user=self.bob)
        self.assertFalse(RegisterItem.objects.exists())
        self.assertFalse(Requirement.objects.exists())


class RequirementAndEvidenceTests(RegisterTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.register = self.make_register()
        self.item = self.make_item(self.register)

    def test_requirement_create_update_delete(self) -> None:
        first = self.make_requirement(self.item, "Undersöka risker", section_ref="3 kap. 2 a §", owner=self.bob,
                                      needs_evidence=True)
        second = self.make_requirement(self.item, "Skyddsombud")
        self.assertEqual((first.position, second.position), (0, 1))
        self.assertEqual((first.workspace, first.owner, first.needs_evidence), (self.workspace, self.bob, True))
        services.requirement_update(requirement=first, user=self.bob,
                                    data={"status": ComplianceStatus.COMPLIANT, "due_date": date(2026, 6, 1)})
        first.refresh_from_db()
        self.assertEqual((first.status, first.due_date), (ComplianceStatus.COMPLIANT, date(2026, 6, 1)))
        services.requirement_delete(requirement=second, user=self.bob)
        self.assertEqual(list(Requirement.objects.values_list("title", flat=True)), ["Undersöka risker"])

    def test_requirement_bad_input(self) -> None:
        requirement = self.make_requirement(self.item)
        before = counts()
        for data, code in (({"title": " "}, "title_required"), ({"title": "x" * 301}, "text_too_long"),
                           ({"title": "Krav", "owner": self.charlie}, "not_a_member"),
                           ({"title": "Krav", "section_ref": "§" * 81}, "text_too_long")):
            with self.subTest(code=code), self.assertRaises(RegisterError) as caught:
                services.requirement_create(item=self.item, user=self.alice, data=data)
            self.assertEqual(caught.exception.code, code)
        for data, code in (({"status": "bra"}, "invalid_status"), ({"owner": self.charlie}, "not_a_member")):
            with self.subTest(code=code), self.assertRaises(RegisterError) as caught:
                services.requirement_update(requirement=requirement, user=self.alice, data=data)
            self.assertEqual(caught.exception.code, code)
        self.assertEqual(counts(), before)

    def test_evidence_of_each_kind(self) -> None:
        requirement = self.make_requirement(self.item)
        file_evidence = services.evidence_add(requirement=requirement, user=self.bob, kind=Evidence.Kind.FILE,
                                              user_file=self.policy, note="Antagen 2025")
        assessment_evidence = services.evidence_add(requirement=requirement, user=self.bob,
                                                    kind=Evidence.Kind.ASSESSMENT, assessment=self.assessment)
        external = services.evidence_add(requirement=requirement, user=self.bob, kind=Evidence.Kind.EXTERNAL,
                                         reference=" Diarienr 2025/14 ", user_file=self.policy)
        self.assertEqual((file_evidence.user_file, file_evidence.note), (self.policy, "Antagen 2025"))
        self.assertEqual(assessment_evidence.assessment, self.assessment)
        # An external reference keeps only its reference, whatever else was passed.
        self.assertEqual((external.reference, external.user_file), ("Diarienr 2025/14", None))
        self.assertEqual(selectors.evidence_list(requirement).count(), 3)
        services.evidence_remove(evidence=external, user=self.bob)
        self.assertEqual(selectors.evidence_list(requirement).count(), 2)

    def test_evidence_of_another_workspace_is_refused(self) -> None:
        requirement = self.make_requirement(self.item)
        before = counts()
        cases = [(dict(kind=Evidence.Kind.FILE, user_file=self.charlie_file), "unknown_file"),
                 (dict(kind=Evidence.Kind.FILE, user_file=None), "unknown_file"),
                 (dict(kind=Evidence.Kind.ASSESSMENT, assessment=self.charlie_assessment), "unknown_assessment"),
                 (dict(kind=Evidence.Kind.EXTERNAL, reference="  "), "reference_required"),
                 (dict(kind="rykte"), "invalid_kind")]
        for kwargs, code in cases:
            with self.subTest(code=code), self.assertRaises(RegisterError) as caught:
                services.evidence_add(requirement=requirement, user=self.alice, **kwargs)
            self.assertEqual(caught.exception.code, code)
        self.assertEqual(counts(), before)

    def test_evidence_of_a_deleted_file_is_refused(self) -> None:
        requirement = self.make_requirement(self.item)
        self.policy.deleted_at = self.policy.created_at
        self.policy.save(update_fields=["deleted_at"])
        with self.assertRaises(RegisterError) as caught:
            services.evidence_add(requirement=requirement, user=self.alice, kind="file", user_file=self.policy)
        self.assertEqual(caught.exception.code, "unknown_file")
        self.assertFalse(Evidence.objects.exists())

    def test_private_file_label_hidden_from_revisor(self) -> None:
        requirement = self.make_requirement(self.item)
        evidence = services.evidence_add(requirement=requirement, user=self.alice, kind="file",
                                         user_file=self.private_file)
        erin = selectors.may_see_private_files(self.workspace.memberships.get(user=self.erin))
        bob = selectors.may_see_private_files(self.workspace.memberships.get(user=self.bob))
        self.assertEqual(selectors.evidence_label(evidence, may_see_private=erin), "Privat fil")
        self.assertEqual(selectors.evidence_label(evidence, may_see_private=bob), "Hemlig lönelista")


class PermissionTests(RegisterTestCase):
    """Readers and revisors are refused by every service, and nothing is written."""

    def setUp(self) -> None:
        super().setUp()
        self.register = self.make_register()
        self.group = services.register_group_get_or_create(register=self.register, user=self.alice, name="G")
        self.item = self.make_item(self.register, group=self.group)
        self.requirement = self.make_requirement(self.item)
        self.evidence = services.evidence_add(requirement=self.requirement, user=self.alice, kind="file",
                                              user_file=self.policy)
        self.review = services.review_start(register=self.register, user=self.alice, title="Kontroll")
        self.entry = self.review.entries.get()
        self.action = services.action_create(workspace=self.workspace, user=self.alice, title="Åtgärda")
        # A workspace without a register: register_default would create one there.
        self.empty = Workspace.objects.create(name="Tomma AB", slug="tomma-ab")
        Membership.objects.create(user=self.dave, workspace=self.empty, role=Membership.Role.VIEWER)
        Membership.objects.create(user=self.erin, workspace=self.empty, role=Membership.Role.AUDITOR)

    def calls(self, user: User) -> dict[str, Callable[[], object]]:
        return {
            "register_create": lambda: services.register_create(workspace=self.workspace, user=user, name="Ny"),
            "register_default": lambda: services.register_default(workspace=self.empty, user=user),
            "register_group_get_or_create": lambda: services.register_group_get_or_create(
                register=self.register, user=user, name="Ny grupp"),
            "register_item_add": lambda: services.register_item_add(register=self.register, user=user,
                                                                    legal_document=self.gdpr),
            "register_item_update": lambda: services.register_item_update(item=self.item, user=user,
                                                                          data={"status": "compliant"}),
            "register_item_remove": lambda: services.register_item_remove(item=self.item, user=user),
            "requirement_create": lambda: services.requirement_create(item=self.item, user=user,
                                                                      data={"title": "Nytt"}),
            "requirement_update": lambda: services.requirement_update(requirement=self.requirement, user=user,
                                                                      data={"status": "compliant"}),
            "requirement_delete": lambda: services.requirement_delete(requirement=self.requirement, user=user),
            "evidence_add": lambda: services.evidence_add(requirement=self.requirement, user=user,
                                                          kind="external", reference="Pärm 3"),
            "evidence_remove": lambda: services.evidence_remove(evidence=self.evidence, user=user),
            "review_start": lambda: services.review_start(register=self.register, user=user, title="Ny"),
            "review_entry_rate": lambda: services.review_entry_rate(entry=self.entry, user=user,
                                                                    rating="non_compliant"),
            "review_close": lambda: services.review_close(review=self.review, user=user),
            "action_create": lambda: services.action_create(workspace=self.workspace, user=user, title="Ny"),
            "action_update": lambda: services.action_update(action=self.action, user=user, data={"state": "done"}),
            "register_import_confirm": lambda: services.register_import_confirm(
                register=self.register, user=user,
                rows=[services.ImportRowChoice(line=2, legal_document=self.gdpr, group="Dataskydd")]),
            # The suggestions' services check the role before they read their arguments.
            "suggestion_accept": lambda: services.suggestion_accept(workspace=self.workspace, user=user,
                                                                    number="(EU) 2016/679"),
            "suggestion_reject": lambda: services.suggestion_reject(workspace=self.workspace, user=user,
                                                                    number="(EU) 2016/679"),
            "document_decline": lambda: services.document_decline(workspace=self.workspace, user=user,
                                                                  legal_document=self.gdpr),
            "suggestion_restore": lambda: services.suggestion_restore(workspace=self.workspace, user=user,
                                                                      decision=None),
            "template_apply": lambda: services.template_apply(workspace=self.workspace, user=user, template=None),
        }

    def test_every_service_refuses_readers_revisors_and_outsiders(self) -> None:
        # Every service of the module is here: a new one without a permission test fails this count.
        public = {name for name in dir(services) if callable(getattr(services, name))
                  and getattr(getattr(services, name), "__module__", "") == services.__name__
                  and not name.startswith("_") and name[0].islower()}
        self.assertEqual(public, set(self.calls(self.dave)))
        before = counts()
        for user in (self.dave, self.erin, self.charlie, None):
            for name, call in self.calls(user).items():
                with self.subTest(user=str(user), service=name):
                    with self.assertRaises(PermissionDeniedError) as caught:
                        call()
                    self.assertEqual((caught.exception.code, caught.exception.status), ("permission_denied", 403))
        self.assertEqual(counts(), before)
        self.entry.refresh_from_db()
        self.assertIsNone(self.entry.assessed_at)


class ReviewTests(RegisterTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.register = self.make_register()
        self.arbetsmiljo = services.register_group_get_or_create(register=self.register, user=self.alice,
                                                                 name="Arbetsmiljö")
        self.dataskydd = services.register_group_get_or_create(register=self.register, user=self.alice,
                                                               name="Dataskydd")
        self.aml_item = self.make_item(self.register, self.aml, group=self.arbetsmiljo, responsible=self.bob)
        self.afs_item = self.make_item(self.register, self.afs, group=self.arbetsmiljo)
        self.gdpr_item = self.make_item(self.register, self.gdpr, group=self.dataskydd)

    def test_start_over_groups_makes_one_entry_per_item(self) -> None:
        review = services.review_start(register=self.register, user=self.alice, title="Arbetsmiljö 2026",
                                       groups=[self.arbetsmiljo], lead=self.bob, due_date=date(2026, 12, 1))
        self.assertEqual(set(review.entries.values_list("item_id", flat=True)), {self.aml_item.pk, self.afs_item.pk})
        self.assertEqual((review.lead, review.state, list(review.groups.all())),
                         (self.bob, Review.State.OPEN, [self.arbetsmiljo]))
        whole = services.review_start(register=self.register, user=self.alice, title="Hela")
        self.assertEqual(whole.entries.count(), 3)

    def test_start_bad_input(self) -> None:
        other = services.register_create(workspace=self.workspace, user=self.alice, name="Tom")
        foreign = services.register_group_get_or_create(register=other, user=self.alice, name="Tom grupp")
        before = counts()
        for kwargs, code in ((dict(register=self.register, title=" "), "title_required"),
                             (dict(register=self.register, title="K", groups=[foreign]), "group_not_in_register"),
                             (dict(register=self.register, title="K", lead=self.charlie), "not_a_member"),
                             (dict(register=other, title="K"), "nothing_to_review")):
            with self.subTest(code=code), self.assertRaises(RegisterError) as caught:
                services.review_start(user=self.alice, **kwargs)
            self.assertEqual(caught.exception.code, code)
        self.assertEqual(counts(), before)

    @time_machine.travel(datetime(2026, 3, 2, 12, 0, tzinfo=STOCKHOLM), tick=False)
    def test_rating_signs_the_entry_and_updates_the_item(self) -> None:
        review = services.review_start(register=self.register, user=self.alice, title="K", groups=[self.dataskydd])
        entry = review.entries.get()
        result = services.review_entry_rate(entry=entry, user=self.bob, rating=ComplianceStatus.COMPLIANT,
                                            justification="Registerförteckning finns")
        self.assertIsNone(result.action)
        entry.refresh_from_db()
        self.assertEqual((entry.rating, entry.assessed_by, entry.is_signed), (ComplianceStatus.COMPLIANT, self.bob,
                                                                              True))
        self.gdpr_item.refresh_from_db()
        self.assertEqual((self.gdpr_item.status, self.gdpr_item.last_reviewed_at, self.gdpr_item.last_reviewed_by,
                          self.gdpr_item.next_review_date),
                         (ComplianceStatus.COMPLIANT, date(2026, 3, 2), self.bob, date(2026, 3, 2) + timedelta(days=365)))

    def test_rating_bad_input(self) -> None:
        review = services.review_start(register=self.register, user=self.alice, title="K")
        entry = review.entries.get(item=self.aml_item)
        requirement = self.make_requirement(self.gdpr_item)
        foreign_evidence = services.evidence_add(requirement=requirement, user=self.alice, kind="external",
                                                 reference="Pärm")
        before = counts()
        for kwargs, code in ((dict(rating="not_assessed"), "invalid_rating"), (dict(rating="bra"), "invalid_rating"),
                             (dict(rating="compliant", justification="x" * 20_001), "text_too_long"),
                             (dict(rating="compliant", evidence=[foreign_evidence]), "evidence_not_on_item"),
                             (dict(rating="non_compliant", action_owner=self.charlie), "not_a_member")):
            with self.subTest(code=code), self.assertRaises(RegisterError) as caught:
                services.review_entry_rate(entry=entry, user=self.alice, **kwargs)
            self.assertEqual(caught.exception.code, code)
        self.assertEqual(counts(), before)

    @time_machine.travel(datetime(2026, 3, 2, 12, 0, tzinfo=STOCKHOLM), tick=False)
    def test_non_compliant_creates_one_action_only(self) -> None:
        review = services.review_start(register=self.register, user=self.alice, title="K")
        entry = review.entries.get(item=self.aml_item)
        first = services.review_entry_rate(entry=entry, user=self.alice, rating=ComplianceStatus.NON_COMPLIANT,
                                           justification="Ingen riskbedömning")
        again = services.review_entry_rate(entry=entry, user=self.alice, rating=ComplianceStatus.NON_COMPLIANT,
                                           justification="Fortfarande ingen")
        self.assertIsNotNone(first.action)
        self.assertIsNone(again.action)
        action = Action.objects.get()
        # Owned by the item's responsible, due in 30 days, tied to the entry and the item.
        self.assertEqual((action.owner, action.due_date, action.review_entry, action.item, action.state),
                         (self.bob, date(2026, 4, 1), entry, self.aml_item, Action.State.OPEN))
        self.assertIn("Arbetsmiljölag", action.title)

    def test_non_compliant_action_owner_and_due_date_chosen(self) -> None:
        review = services.review_start(register=self.register, user=self.alice, title="K")
        entry = review.entries.get(item=self.gdpr_item)
        result = services.review_entry_rate(entry=entry, user=self.bob, rating="non_compliant",
                                            action_owner=self.alice, action_due_date=date(2027, 1, 15),
                                            action_title="Ta fram registerförteckning")
        self.assertEqual((result.action.owner, result.action.due_date, result.action.title),
                         (self.alice, date(2027, 1, 15), "Ta fram registerförteckning"))

    def test_closing_with_unsigned_entries_is_refused(self) -> None:
        review = services.review_start(register=self.register, user=self.alice, title="K")
        services.review_entry_rate(entry=review.entries.get(item=self.aml_item), user=self.bob, rating="compliant")
        with self.assertRaises(RegisterError) as caught:
            services.review_close(review=review, user=self.alice)
        self.assertEqual((caught.exception.code, caught.exception.details), ("review_incomplete", {"unsigned": 2}))
        review.refresh_from_db()
        self.assertEqual((review.state, review.closed_at, review.as_of), (Review.State.OPEN, None, None))
        self.assertFalse(review.entries.exclude(frozen_title="").exists())

    def test_closed_review_refuses_rating_and_second_close(self) -> None:
        review = self.make_closed_review(self.register)
        entry = review.entries.get(item=self.aml_item)
        with self.assertRaises(ReviewClosedError) as caught:
            services.review_entry_rate(entry=entry, user=self.alice, rating="non_compliant")
        self.assertEqual((caught.exception.code, caught.exception.status), ("review_closed", 409))
        with self.assertRaises(ReviewClosedError):
            services.review_close(review=review, user=self.alice)
        entry.refresh_from_db()
        self.assertEqual(entry.rating, "compliant")
        self.assertFalse(Action.objects.exists())

    def test_closing_freezes_the_longest_title_a_document_may_have(self) -> None:
        """An amending regulation's title names every regulation it amends (MSBFS 2025:9 has 717 characters);
        the frozen title holds the longest a document may have, with its number."""
        self.afs.title = ("Arbetsmiljöverkets föreskrifter om ändring i " * 25)[:1000]
        self.afs.full_clean()
        self.afs.save(update_fields=["title"])
        review = services.review_start(register=self.register, user=self.alice, title="K", groups=[self.arbetsmiljo])
        for entry in review.entries.all():
            services.review_entry_rate(entry=entry, user=self.bob, rating="compliant")
        services.review_close(review=review, user=self.alice)
        self.assertEqual(review.entries.get(item=self.afs_item).frozen_title, f"{self.afs.title} (AFS 2023:1)")

    @time_machine.travel(datetime(2026, 5, 20, 10, 0, tzinfo=STOCKHOLM), tick=False)
    def test_closing_rates_the_newest_version_when_its_first_day_is_unknown(self) -> None:
        """A record may name the act behind a version without its day (law.services._valid_from): the version is
        then in force with no known first day, and its predecessor has no known last day. The review rated the
        newer text, not the one whose day happens to be known."""
        dated = StatuteVersion.objects.create(document=self.aml, amended_through="SFS 2025:10", full_text="1 §",
                                              content_hash="a", origin="FILE", valid_from=date(2026, 1, 1))
        undated = StatuteVersion.objects.create(document=self.aml, amended_through="SFS 2025:20", full_text="1 § b",
                                                content_hash="b", origin="FILE", is_current=True)
        review = services.review_start(register=self.register, user=self.alice, title="K", groups=[self.arbetsmiljo])
        for entry in review.entries.all():
            services.review_entry_rate(entry=entry, user=self.bob, rating="compliant")
        services.review_close(review=review, user=self.alice)
        entry = review.entries.get(item=self.aml_item)
        self.assertEqual((entry.frozen_version, entry.frozen_version_id), ("t.o.m. SFS 2025:20", undated.pk))
        self.assertNotEqual(entry.frozen_version_id, dated.pk)

    @time_machine.travel(datetime(2026, 5, 20, 10, 0, tzinfo=STOCKHOLM), tick=False)
    def test_closing_freezes_what_the_review_saw(self) -> None:
        requirement = self.make_requirement(self.aml_item, "Undersöka risker", section_ref="3 kap. 2 a §",
                                            owner=self.bob, status="compliant")
        evidence = services.evidence_add(requirement=requirement, user=self.alice, kind="file", user_file=self.policy)
        private = services.evidence_add(requirement=requirement, user=self.alice, kind="file",
                                        user_file=self.private_file)
        review = services.review_start(register=self.register, user=self.alice, title="K", groups=[self.arbetsmiljo])
        entry = review.entries.get(item=self.aml_item)
        services.review_entry_rate(entry=entry, user=self.bob, rating="partial", evidence=[evidence, private])
        services.review_entry_rate(entry=review.entries.get(item=self.afs_item), user=self.bob, rating="compliant")
        review = services.review_close(review=review, user=self.alice)
        self.assertEqual((review.state, review.closed_by, review.as_of), (Review.State.CLOSED, self.alice,
                                                                          date(2026, 5, 20)))
        entry.refresh_from_db()
        frozen = {f.name: getattr(entry, f.name) for f in ReviewEntry._meta.concrete_fields
                  if f.name.startswith("frozen_")}
        self.assertEqual(frozen["frozen_title"], "Arbetsmiljölag (1977:1160)")
        self.assertEqual((frozen["frozen_document_number"], frozen["frozen_document_kind"], frozen["frozen_version"]),
                         ("1977:1160", "Lag", "t.o.m. SFS 2024:100"))
        self.assertEqual(frozen["frozen_requirements"], [
            {"id": requirement.pk, "section_ref": "3 kap. 2 a §", "title": "Undersöka risker", "status": "compliant",
             "status_label": "uppfylls", "owner": "bob"}])
        self.assertEqual([(e["label"], e["private"]) for e in frozen["frozen_evidence"]],
                         [("Arbetsmiljöpolicy", False), ("Hemlig lönelista", True)])
        self.assertEqual(frozen["frozen_assessor"], "bob")

        # Then everything the review looked at changes: the item, its kravpunkt, its evidence, the law.
        services.register_item_update(item=self.aml_item, user=self.alice, data={"status": "non_compliant",
                                                                                 "title": "Omdöpt"})
        services.requirement_update(requirement=requirement, user=self.alice,
                                    data={"title": "Nytt krav", "status": "non_compliant"})
        services.evidence_remove(evidence=evidence, user=self.alice)
        self.policy.title = "Ny titel"
        self.policy.save(update_fields=["title"])
        self.aml.amended_through = "SFS 2026:1"
        self.aml.save(update_fields=["amended_through"])
        entry.refresh_from_db()
        self.assertEqual({name: getattr(entry, name) for name in frozen}, frozen)
        self.assertEqual(entry.rating, "partial")

        # And the item goes: the entry stays, with what it saw.
        services.register_item_remove(item=self.aml_item, user=self.alice)
        entry.refresh_from_db()
        self.assertIsNone(entry.item_id)
        self.assertEqual({name: getattr(entry, name) for name in frozen}, frozen)
        self.assertEqual(str(entry), "Arbetsmiljölag (1977:1160)")


class ActionTests(RegisterTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.register = self.make_register()
        self.item = self.make_item(self.register)

    def test_action_create_and_close_and_reopen(self) -> None:
        requirement = self.make_requirement(self.item)
        action = services.action_create(workspace=self.workspace, user=self.bob, title="Skyddsrond",
                                        requirement=requirement, owner=self.alice, due_date=date(2026, 9, 1))
        # The requirement's item is the action's item.
        self.assertEqual((action.item, action.requirement, action.owner, action.created_by),
                         (self.item, requirement, self.alice, self.bob))
        action = services.action_update(action=action, user=self.bob, data={"state": "done"})
        self.assertEqual((action.state, action.closed_by), (Action.State.DONE, self.bob))
        self.assertIsNotNone(action.closed_at)
        action = services.action_update(action=action, user=self.alice, data={"state": "open"})
        self.assertEqual((action.state, action.closed_by, action.closed_at), (Action.State.OPEN, None, None))

    def test_action_bad_input(self) -> None:
        other_register = services.register_create(workspace=self.charlies_workspace, user=self.charlie, name="C")
        charlies_item = services.register_item_add(register=other_register, user=self.charlie,
                                                   legal_document=self.aml).item
        before = counts()
        for kwargs, code in ((dict(title=" "), "title_required"), (dict(title="x" * 301), "text_too_long"),
                             (dict(title="A", item=charlies_item), "unknown_item"),
                             (dict(title="A", owner=self.charlie), "not_a_member")):
            with self.subTest(code=code), self.assertRaises(RegisterError) as caught:
                services.action_create(workspace=self.workspace, user=self.alice, **kwargs)
            self.assertEqual(caught.exception.code, code)
        action = services.action_create(workspace=self.workspace, user=self.alice, title="A")
        with self.assertRaises(RegisterError) as caught:
            services.action_update(action=action, user=self.alice, data={"state": "kanske"})
        self.assertEqual(caught.exception.code, "invalid_state")
        self.assertEqual(Action.objects.count(), before["Action"] + 1)


class AuditTrailTests(RegisterTestCase):
    def test_changes_are_recorded_with_actor_and_before_after(self) -> None:
        register = self.make_register()
        item = self.make_item(register)
        requirement = self.make_requirement(item, "Undersöka risker")
        services.register_item_update(item=item, user=self.bob, data={"status": "partial",
                                                                      "how_we_comply": "Rutin R1"})
        services.requirement_update(requirement=requirement, user=self.bob, data={"title": "Undersöka alla risker"})
        evidence = services.evidence_add(requirement=requirement, user=self.bob, kind="external", reference="Pärm 2")
        services.evidence_remove(evidence=evidence, user=self.alice)

        trail = list(selectors.audit_trail(self.workspace, item=item))
        item_update = next(e for e in trail if e.content_type.model == "registeritem" and e.action == e.Action.UPDATE
                           and "how_we_comply" in e.changes_dict)
        self.assertEqual(item_update.actor, self.bob)
        self.assertEqual(item_update.changes_dict["status"], ["not_assessed", "partial"])
        self.assertEqual(item_update.changes_dict["how_we_comply"], ["", "Rutin R1"])
        requirement_update = next(e for e in trail if e.content_type.model == "requirement"
                                  and e.action == e.Action.UPDATE)
        self.assertEqual(requirement_update.changes_dict["title"], ["Undersöka risker", "Undersöka alla risker"])
        deleted = next(e for e in trail if e.content_type.model == "evidence" and e.action == e.Action.DELETE)
        self.assertEqual(deleted.actor, self.alice)
        created = next(e for e in trail if e.content_type.model == "registeritem" and e.action == e.Action.CREATE)
        self.assertEqual(created.actor, self.alice)
        # Newest first, and none of it is another workspace's.
        self.assertEqual(trail, sorted(trail, key=lambda e: (e.timestamp, e.pk), reverse=True))
        self.assertFalse(selectors.audit_trail(self.charlies_workspace).exists())

    def test_review_and_action_are_recorded(self) -> None:
        register = self.make_register()
        item = self.make_item(register)
        review = services.review_start(register=register, user=self.alice, title="K")
        services.review_entry_rate(entry=review.entries.get(), user=self.bob, rating="non_compliant")
        services.review_close(review=review, user=self.alice)
        review_trail = list(selectors.audit_trail(self.workspace, review=review))
        closed = next(e for e in review_trail if e.content_type.model == "review" and "state" in e.changes_dict)
        self.assertEqual((closed.actor, closed.changes_dict["state"]), (self.alice, ["open", "closed"]))
        rated = [e for e in review_trail if e.content_type.model == "reviewentry" and "rating" in e.changes_dict]
        self.assertEqual(rated[0].actor, self.bob)
        item_trail = selectors.audit_trail(self.workspace, item=item)
        self.assertTrue(item_trail.filter(content_type__model="action", action=LogEntry.Action.CREATE,
                                          actor=self.bob).exists())


# The Stockholm day decides a review's date: 00:30 in Stockholm is still yesterday in UTC.
class ReviewDayTests(RegisterTestCase):
    def test_as_of_is_the_stockholm_day(self) -> None:
        register = self.make_register()
        self.make_item(register)
        with time_machine.travel(datetime(2026, 11, 25, 0, 30, tzinfo=STOCKHOLM), tick=False):
            review = self.make_closed_review(register)
        self.assertEqual(review.as_of, date(2026, 11, 25))
