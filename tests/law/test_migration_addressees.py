"""law 0004: a database loaded before LegalDocument.addressee existed gets the addressees once, from the
migration, run with Django's own MigrationExecutor on the historical models, as `migrate` runs it."""

from __future__ import annotations

from tests.migrations import MigrationTestCase

AFTER = [("law", "0004_addressees")]


class AddresseesMigrationTests(MigrationTestCase):
    before = [("law", "0003_cited_by_counts"), ("compliance", "0012_legaldocument_addressee")]

    def setUp(self) -> None:
        super().setUp()
        LegalDocument = self.before_apps.get_model("compliance", "LegalDocument")
        LegalDocument.objects.create(sfs_number="2099:1", title="Förordning (2099:1) med instruktion för Provverket",
                                     full_text="1 § Provverket är förvaltningsmyndighet.")
        LegalDocument.objects.create(sfs_number="2099:2", title="Lag (2099:2) om Provverkets register",
                                     full_text="1 § Provverket för ett register.")
        LegalDocument.objects.create(sfs_number="2099:3", title="Lag (2099:3) om provföretag",
                                     full_text="1 § Denna lag gäller provföretag.")

    def test_forward_finds_the_addressees_of_the_documents_already_loaded(self) -> None:
        apps = self.migrate(AFTER)
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        assert dict(LegalDocument.objects.values_list("sfs_number", "addressee")) == {
            "2099:1": "Provverket", "2099:2": "Provverket", "2099:3": ""}
