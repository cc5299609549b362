"""Data migrations tested as `migrate` runs them: Django's own MigrationExecutor on the historical models."""

from __future__ import annotations

from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import TransactionTestCase


def leaf_nodes() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


class MigrationTestCase(TransactionTestCase):
    """Each test starts at `before` (the state `setUp` gets the historical models of) and the database is
    migrated back to the latest state afterwards, whatever the test did."""

    before: list[tuple[str, str]] = []

    def migrate(self, targets: list[tuple[str, str]]) -> Apps:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()  # the graph as it is now, after the previous run
        executor.migrate(targets)
        return executor.loader.project_state(targets).apps

    def setUp(self) -> None:
        self.before_apps = self.migrate(self.before)
        self.addCleanup(self.migrate, leaf_nodes())
