"""law 0003: a database loaded before the citation counts existed gets them once, from the migration, run
with Django's own MigrationExecutor on the historical models, as `migrate` runs it."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import TransactionTestCase

BEFORE = [("law", "0002_change_summary"), ("compliance", "0011_legaldocument_cited_by")]
AFTER = [("law", "0003_cited_by_counts")]


def leaf_nodes():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


class CitedByCountsMigrationTests(TransactionTestCase):
    def migrate(self, targets):
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(targets)
        return executor.loader.project_state(targets).apps

    def setUp(self):
        apps = self.migrate(BEFORE)
        self.addCleanup(self.migrate, leaf_nodes())
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        LegalDocument.objects.create(sfs_number="2099:1", title="Lag (2099:1) om provföretag",
                                     short_names=["provföretagslagen"], full_text="1 § Denna lag gäller provföretag.")
        LegalDocument.objects.create(sfs_number="2099:2", title="Förordning (2099:2) om provföretag",
                                     full_text="1 § Denna förordning kompletterar lagen (2099:1) om provföretag.")
        LegalDocument.objects.create(sfs_number="2099:3", title="Lag (2099:3) om provregister",
                                     full_text="1 § Utöver provföretagslagen gäller denna lag.")

    def test_forward_counts_the_documents_already_loaded(self):
        apps = self.migrate(AFTER)
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        assert dict(LegalDocument.objects.values_list("sfs_number", "cited_by")) == {
            "2099:1": 2, "2099:2": 0, "2099:3": 0}
