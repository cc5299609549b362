"""Fill a workspace made for the purpose with synthetic chat history, to see or measure the dashboard.

    manage.py seed_dashboard --rows 100000 [--workspace bench-dashboard] [--days 90]

The workspace (and an owner, user "bench") are created when missing; its conversations and
logs are replaced, so never point it at a real workspace.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from agent.evaluation.benchmarking import write_json
from agent.monitoring.dashboard_seed import seed_dashboard_logs

from ._dashboard import bench_owner_and_workspace


class Command(BaseCommand):
    help = "Replace a benchmark workspace's chat history with synthetic retrieval logs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rows", type=int, default=100_000)
        parser.add_argument("--days", type=int, default=90)
        parser.add_argument("--workspace", default="bench-dashboard")

    def handle(self, *args: Any, rows: int, days: int, workspace: str, **opts: Any) -> None:
        account = bench_owner_and_workspace(workspace)
        user, ws = account.user, account.workspace
        write_json(self.stdout, {"workspace": ws.slug, **seed_dashboard_logs(ws, user, rows=rows, days=days)})
