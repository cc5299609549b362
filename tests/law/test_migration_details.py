"""law 0005: a database loaded before LegalDocument.details_sfs existed gets the statutes each regulation
details once, from the migration, run with Django's own MigrationExecutor on the historical models, as
`migrate` runs it."""

from __future__ import annotations

from tests.migrations import MigrationTestCase

AFTER = [("law", "0005_details")]


class DetailsMigrationTests(MigrationTestCase):
    before = [("law", "0004_addressees"), ("compliance", "0013_legaldocument_details_sfs")]

    def setUp(self) -> None:
        super().setUp()
        LegalDocument = self.before_apps.get_model("compliance", "LegalDocument")
        LegalDocument.objects.create(sfs_number="2099:1", title="Lag (2099:1) om provföretag",
                                     full_text="1 § Denna lag gäller provföretag.")
        LegalDocument.objects.create(sfs_number="2099:2", title="Förordning (2099:2) om provföretag",
                                     content_type="SFS_ORDINANCE", full_text="1 § Se lagen (2099:1).")
        LegalDocument.objects.create(
            sfs_number="AFS 2099:3", title="Arbetsmiljöverkets föreskrifter om provföretag", series="AFS",
            content_type="AGENCY_REGULATION", legal_basis_sfs=["2099:2"],
            full_text="1 § Kraven i lagen (2099:1) gäller. 2 § Provföretaget ska följa 2 § lagen (2099:1).")

    def test_forward_finds_the_statutes_the_regulations_already_loaded_detail(self) -> None:
        apps = self.migrate(AFTER)
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        assert dict(LegalDocument.objects.values_list("sfs_number", "details_sfs")) == {
            "2099:1": [], "2099:2": [], "AFS 2099:3": ["2099:1", "2099:2"]}
