"""The data migration register 0002 (assessments into kravpunkter), run both ways with Django's own
MigrationExecutor on the historical models, as `migrate` runs it."""

from __future__ import annotations

from datetime import date

from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.migrations import MigrationTestCase

BEFORE = [("register", "0001_initial")]
AFTER = [("register", "0002_assessments_into_register")]


class AssessmentMigrationTests(MigrationTestCase):
    before = BEFORE

    def setUp(self) -> None:
        super().setUp()
        apps = self.before_apps
        User = apps.get_model("auth", "User")
        Workspace = apps.get_model("compliance", "Workspace")
        Membership = apps.get_model("compliance", "Membership")
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        Assessment = apps.get_model("compliance", "Assessment")
        self.apps = apps
        self.alice = User.objects.create(username="alice")
        self.ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
        self.other_ws = Workspace.objects.create(name="Charlies AB", slug="charlies-ab")
        Membership.objects.create(user=self.alice, workspace=self.ws, role="owner")
        aml = LegalDocument.objects.create(sfs_number="1977:1160", title="Arbetsmiljölag (1977:1160)",
                                           full_text="1 §")
        gdpr = LegalDocument.objects.create(sfs_number="(EU) 2016/679", title="Dataskyddsförordningen",
                                            full_text="Artikel 1", content_type="EU_REGULATION")
        self.aml_id, self.gdpr_id = aml.pk, gdpr.pk
        make = Assessment.objects.create
        self.risk = make(workspace=self.ws, title="Riskbedömning", legal_document=aml, section_ref="3 kap. 2 a §",
                         compliance_status="compliant", notes="Görs varje vår", owner=self.alice,
                         due_date=date(2026, 4, 1))
        self.ombud = make(workspace=self.ws, title="Skyddsombud", legal_document=aml, compliance_status="partial")
        self.own = make(workspace=self.ws, title="Egen brandrutin", compliance_status="not_assessed")
        self.gdpr = make(workspace=self.other_ws, title="Registerförteckning", legal_document=gdpr,
                         compliance_status="non_compliant")
        self.deleted = make(workspace=self.ws, title="Borttagen", legal_document=gdpr, deleted_at=timezone.now())
        self.assessment_rows = self.snapshot_assessments(apps)

    @staticmethod
    def snapshot_assessments(apps: Apps) -> list[dict]:
        return list(apps.get_model("compliance", "Assessment").objects.order_by("pk").values())

    def register_rows(self, apps: Apps) -> tuple[int, int, int]:
        Requirement = apps.get_model("register", "Requirement")
        RegisterItem = apps.get_model("register", "RegisterItem")
        LegalRegister = apps.get_model("register", "LegalRegister")
        return (LegalRegister.objects.count(), RegisterItem.objects.count(), Requirement.objects.count())

    def test_forward_makes_kravpunkter_with_nothing_lost(self) -> None:
        apps = self.migrate(AFTER)
        Requirement = apps.get_model("register", "Requirement")
        RegisterItem = apps.get_model("register", "RegisterItem")
        LegalRegister = apps.get_model("register", "LegalRegister")

        register = LegalRegister.objects.get(workspace_id=self.ws.pk)
        self.assertEqual(register.name, "Laglista")
        risk = Requirement.objects.get(assessment_id=self.risk.pk)
        self.assertEqual((risk.title, risk.section_ref, risk.description, risk.status, risk.owner_id, risk.due_date,
                          risk.workspace_id),
                         ("Riskbedömning", "3 kap. 2 a §", "Görs varje vår", "compliant", self.alice.pk,
                          date(2026, 4, 1), self.ws.pk))
        # Both AML assessments are kravpunkter of one item, whose status is its weakest kravpunkt's.
        aml_item = RegisterItem.objects.get(register=register, legal_document_id=self.aml_id)
        self.assertEqual(set(Requirement.objects.filter(item=aml_item).values_list("title", flat=True)),
                         {"Riskbedömning", "Skyddsombud"})
        self.assertEqual((aml_item.status, aml_item.origin, aml_item.workspace_id),
                         ("partial", "assessment", self.ws.pk))
        # An assessment without a document goes under the workspace's own requirements.
        own = Requirement.objects.get(assessment_id=self.own.pk)
        self.assertIsNone(own.item.legal_document_id)
        self.assertEqual(own.item.title, "Egna krav utan författning")
        # The other workspace gets its own register and item: nothing crosses over.
        other = Requirement.objects.get(assessment_id=self.gdpr.pk)
        self.assertEqual((other.workspace_id, other.item.workspace_id, other.item.register.workspace_id),
                         (self.other_ws.pk,) * 3)
        self.assertEqual(other.item.status, "non_compliant")
        # The soft-deleted assessment is skipped.
        self.assertFalse(Requirement.objects.filter(assessment_id=self.deleted.pk).exists())
        self.assertEqual(Requirement.objects.count(), 4)
        # The assessments themselves are untouched.
        self.assertEqual(self.snapshot_assessments(apps), self.assessment_rows)

    def test_rerun_makes_no_duplicates(self) -> None:
        apps = self.migrate(AFTER)
        first = self.register_rows(apps)
        # Run the migration's function again on the same data, as a second `migrate` after a partial one would.
        migration = MigrationExecutor(connection).loader.get_migration("register", "0002_assessments_into_register")
        with connection.schema_editor() as editor:
            migration.operations[0].code(apps, editor)
        self.assertEqual(self.register_rows(apps), first)
        self.assertEqual(first, (2, 3, 4))

    def test_forward_uses_an_existing_register_and_item(self) -> None:
        LegalRegister = self.apps.get_model("register", "LegalRegister")
        RegisterItem = self.apps.get_model("register", "RegisterItem")
        register = LegalRegister.objects.create(workspace_id=self.ws.pk, name="Vår lista", created_by_id=self.alice.pk)
        item = RegisterItem.objects.create(register=register, workspace_id=self.ws.pk, legal_document_id=self.aml_id,
                                           origin="manual", status="compliant", reason="Vi har anställda")
        apps = self.migrate(AFTER)
        Requirement = apps.get_model("register", "Requirement")
        self.assertEqual(apps.get_model("register", "LegalRegister").objects.filter(workspace_id=self.ws.pk).count(), 1)
        self.assertEqual(set(Requirement.objects.filter(item_id=item.pk).values_list("assessment_id", flat=True)),
                         {self.risk.pk, self.ombud.pk})
        # A person's item keeps the status the person set.
        self.assertEqual(apps.get_model("register", "RegisterItem").objects.get(pk=item.pk).status, "compliant")

        # Reversing removes the migrated kravpunkter but keeps the person's register and item.
        apps = self.migrate(BEFORE)
        self.assertTrue(apps.get_model("register", "RegisterItem").objects.filter(pk=item.pk).exists())
        self.assertTrue(apps.get_model("register", "LegalRegister").objects.filter(pk=register.pk).exists())
        self.assertFalse(apps.get_model("register", "Requirement").objects.exists())

    def test_reverse_removes_only_what_it_made(self) -> None:
        apps = self.migrate(AFTER)
        Requirement = apps.get_model("register", "Requirement")
        RegisterItem = apps.get_model("register", "RegisterItem")
        # After the migration a person adds a kravpunkt of their own to a migrated item, and an item.
        aml_item = RegisterItem.objects.get(workspace_id=self.ws.pk, legal_document_id=self.aml_id)
        Requirement.objects.create(item=aml_item, workspace_id=self.ws.pk, title="Eget krav")
        manual = RegisterItem.objects.create(register=aml_item.register, workspace_id=self.ws.pk,
                                             legal_document_id=self.gdpr_id, origin="manual")

        apps = self.migrate(BEFORE)
        Requirement = apps.get_model("register", "Requirement")
        RegisterItem = apps.get_model("register", "RegisterItem")
        LegalRegister = apps.get_model("register", "LegalRegister")
        self.assertEqual(list(Requirement.objects.values_list("title", flat=True)), ["Eget krav"])
        # The item holding the person's kravpunkt stays, as do the manual item and alice's register;
        # the items and register made only for the other workspace and the own requirements go.
        self.assertEqual(set(RegisterItem.objects.values_list("pk", flat=True)), {aml_item.pk, manual.pk})
        self.assertEqual(list(LegalRegister.objects.values_list("workspace_id", flat=True)), [self.ws.pk])
        self.assertEqual(self.snapshot_assessments(apps), self.assessment_rows)

        # And forward again: the kravpunkter come back, once.
        apps = self.migrate(AFTER)
        Requirement = apps.get_model("register", "Requirement")
        self.assertEqual(Requirement.objects.filter(assessment__isnull=False).count(), 4)
        self.assertEqual(Requirement.objects.filter(assessment_id=self.risk.pk, item_id=aml_item.pk).count(), 1)

    def test_reverse_of_a_clean_run_leaves_nothing(self) -> None:
        self.migrate(AFTER)
        apps = self.migrate(BEFORE)
        self.assertEqual(self.register_rows(apps), (0, 0, 0))
        self.assertEqual(self.snapshot_assessments(apps), self.assessment_rows)
