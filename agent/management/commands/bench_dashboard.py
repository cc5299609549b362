"""How fast the dashboard renders with many retrieval logs, printed as JSON.

    manage.py bench_dashboard --json [--rows 100000] [--repeat 10]

Seeds the benchmark workspace (seed_dashboard) unless it already holds exactly `rows` logs, then
renders the owner's page (7, 30, 90 days) and the staff page through Django's full request cycle,
`repeat` times each: cold (the figures' cache emptied before every request, so Postgres aggregates
the period's logs) and warm (figures unchanged since the last visit). Target: < 300 ms at 100k rows.
Empties the Django cache it runs against, and rebuilds the daily rollup (timed as rollup_build_all_days_ms).
"""

from __future__ import annotations

import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test import Client

from agent.evaluation.benchmarking import latency_summary, machine_info, ms_since, write_json
from agent.models import RetrievalLog
from agent.monitoring.dashboard import PERIODS, retrieval_stats, rollup_reset, rollup_through
from agent.monitoring.dashboard_seed import seed_dashboard_logs

from ._dashboard import bench_owner_and_workspace

STAFF_USERNAME = "bench-staff"


class Command(BaseCommand):
    help = "Measure the dashboard's render time over many retrieval logs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rows", type=int, default=100_000)
        parser.add_argument("--repeat", type=int, default=10)
        parser.add_argument("--workspace", default="bench-dashboard")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, rows: int, repeat: int, workspace: str, **opts: Any) -> None:
        account = bench_owner_and_workspace(workspace)
        user, ws = account.user, account.workspace
        seeded = None
        if RetrievalLog.objects.filter(workspace=ws).count() != rows:
            t0 = time.perf_counter()
            seeded = {**seed_dashboard_logs(ws, user, rows=rows), "ms": round(ms_since(t0))}
        # The daily rollup of all history at once (beat's usual work is one new day): not part of a page view.
        rollup_reset()
        t0 = time.perf_counter()
        rollup_through()
        rollup_ms = round(ms_since(t0))
        staff, _ = get_user_model().objects.get_or_create(username=STAFF_USERNAME,
                                                          defaults={"is_staff": True, "is_active": True})
        owner_client, staff_client = Client(), Client()
        owner_client.force_login(user)
        staff_client.force_login(staff)

        def timed(client: Client, url: str, *, cold: bool) -> list[float]:
            client.get(url)  # templates, the connection, and (for warm) the figures
            times = []
            for _ in range(repeat):
                if cold:
                    cache.clear()
                t0 = time.perf_counter()
                response = client.get(url)
                times.append(ms_since(t0))
                if response.status_code != 200:
                    raise CommandError(f"{url} answered {response.status_code}")
            return times

        pages = {
            temperature: {f"{days}d": latency_summary(timed(owner_client, f"/ws/{ws.slug}/oversikt/?dagar={days}",
                                                            cold=temperature == "cold"))
                          for days in PERIODS}
            for temperature in ("cold", "warm")
        }
        aggregates, raw = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            retrieval_stats(workspace_ids=[ws.pk], days=90)
            aggregates.append(ms_since(t0))
            t0 = time.perf_counter()
            retrieval_stats(workspace_ids=[ws.pk], days=90, rollup=False)
            raw.append(ms_since(t0))
        result = {
            "rows": RetrievalLog.objects.filter(workspace=ws).count(),
            "all_rows": RetrievalLog.objects.count(),
            "seeded": seeded,
            "owner_page_cold": pages["cold"],
            "owner_page_warm": pages["warm"],
            "rollup_build_all_days_ms": rollup_ms,
            "aggregates_90d": latency_summary(aggregates),
            "aggregates_90d_without_rollup": latency_summary(raw),
            "staff_page_90d_cold": latency_summary(timed(staff_client, "/oversikt/?dagar=90", cold=True)),
            "target_ms": 300,
            "machine": machine_info(),
        }
        for temperature, page in pages.items():
            result[f"meets_target_{temperature}"] = max(v["p95_ms"] for v in page.values()) < result["target_ms"]
        write_json(self.stdout, result)
