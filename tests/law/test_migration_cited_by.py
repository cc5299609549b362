"""law 0003: a database loaded before the citation counts existed gets them once, from the migration, run
with Django's own MigrationExecutor on the historical models, as `migrate` runs it."""

from __future__ import annotations

from tests.migrations import MigrationTestCase

AFTER = [("law", "0003_cited_by_counts")]


class CitedByCountsMigrationTests(MigrationTestCase):
    before = [("law", "0002_change_summary"), ("compliance", "0011_legaldocument_cited_by")]

    def setUp(self) -> None:
        super().setUp()
        LegalDocument = self.before_apps.get_model("compliance", "LegalDocument")
        LegalDocument.objects.create(sfs_number="2099:1", title="Lag (2099:1) om provföretag",
                                     short_names=["provföretagslagen"], full_text="1 § Denna lag gäller provföretag.")
        LegalDocument.objects.create(sfs_number="2099:2", title="Förordning (2099:2) om provföretag",
                                     full_text="1 § Denna förordning kompletterar lagen (2099:1) om provföretag.")
        LegalDocument.objects.create(sfs_number="2099:3", title="Lag (2099:3) om provregister",
                                     full_text="1 § Utöver provföretagslagen gäller denna lag.")

    def test_forward_counts_the_documents_already_loaded(self) -> None:
        apps = self.migrate(AFTER)
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        assert dict(LegalDocument.objects.values_list("sfs_number", "cited_by")) == {
            "2099:1": 2, "2099:2": 0, "2099:3": 0}
