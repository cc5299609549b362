"""How long lagbevakning's scan and a notice's page take on this database, printed as JSON.

    manage.py bench_notices --json [--rounds 3] [--notices 20]

`scan`: `notices_create_for_versions()` over everything, as the hourly task runs it, `rounds` times. Each round runs
in a transaction that is rolled back, so the benchmark makes no notice; the first round in a process pays for the
statute directory and for reading what the laglistor's documents cite (`chunks.cited_elsewhere`, then kept in the
shared cache), the later rounds are what the hourly scan costs. `detail`: `notice_detail` (every changed unit's word
diff, the kravpunkter and the laglista's documents citing it) for the first `notices` notices, in id order.
`coming` and `report`: per workspace holding notices (the first `notices` of them), `coming_into_force` (the top of
Lagändringar) and the Lagbevakningsrapport over all its notices, built (`notice_report_get`) and written as each
format. `digest`: per such workspace, every member's e-mail digest of today built and written (not sent), each
with the default subscription; the workspace's coming changes are read once for all its members, as a run does.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from agent.evaluation.benchmarking import latency_summary, machine_info, ms_since, write_json
from compliance.clock import swedish_today
from compliance.models import Membership, Workspace
from law.models import StatuteRepeal, StatuteVersion
from register.models import ChangeNotice, NoticeSubscription, RegisterItem
from register.notices.digests import digest_build, digest_message
from register.notices.selectors import ComingChange, coming_into_force, notice_detail, notice_report_get
from register.notices.services import APPLIED_ORIGINS, notices_create_for_versions
from register.transfer import exports


class Command(BaseCommand):
    help = "Measure lagbevakning's scan and a notice's page on this database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rounds", type=int, default=3)
        parser.add_argument("--notices", type=int, default=20, help="how many notices' pages to time")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, rounds: int, notices: int, **opts: Any) -> None:
        if rounds < 1 or notices < 0:
            raise CommandError("--rounds måste vara minst 1 och --notices minst 0.")
        scans = []
        for _ in range(rounds):
            with transaction.atomic():
                t0 = time.perf_counter()
                made = notices_create_for_versions()
                scans.append({"ms": round(ms_since(t0), 1), "amended": made.amended, "repealed": made.repealed,
                              "new": made.new})
                transaction.set_rollback(True)
        details = []
        for notice in ChangeNotice.objects.select_related("legal_document").order_by("pk")[:notices]:
            t0 = time.perf_counter()
            detail = notice_detail(notice)
            details.append({"ms": ms_since(t0), "changes": len(detail.changes),
                            "cited_from_register": sum(1 for view in detail.changes if view.from_register)})
        comings, reports, digests = [], [], []
        files: dict[str, list[float]] = {fmt: [] for fmt in exports.NOTICE_REPORT_FORMATS}
        holding = ChangeNotice.objects.values_list("workspace_id", flat=True).distinct().order_by("workspace_id")
        for workspace in Workspace.objects.filter(pk__in=list(holding[:notices])).order_by("pk"):
            t0 = time.perf_counter()
            coming = coming_into_force(workspace)
            comings.append({"ms": ms_since(t0), "lines": len(coming)})
            t0 = time.perf_counter()
            report = notice_report_get(workspace, None)
            reports.append({"ms": ms_since(t0), "rows": len(report.rows)})
            for fmt in files:
                t0 = time.perf_counter()
                exports.notice_report_file(report, fmt)
                files[fmt].append(ms_since(t0))
            digests.append(_digests_built(workspace))
        write_json(self.stdout, {
            "database": {
                "applied_versions": StatuteVersion.objects.filter(origin__in=APPLIED_ORIGINS).count(),
                "repeals": StatuteRepeal.objects.count(),
                "register_items": RegisterItem.objects.count(),
                "notices": ChangeNotice.objects.count(),
            },
            "scan": scans,
            "scan_after_first": latency_summary([scan["ms"] for scan in scans[1:]]),
            "detail": latency_summary([d["ms"] for d in details]),
            "detail_changes_max": max((d["changes"] for d in details), default=0),
            "detail_cited_from_register_max": max((d["cited_from_register"] for d in details), default=0),
            "coming": latency_summary([c["ms"] for c in comings]),
            "coming_lines_max": max((c["lines"] for c in comings), default=0),
            "report": latency_summary([r["ms"] for r in reports]),
            "report_rows_max": max((r["rows"] for r in reports), default=0),
            "report_files": {fmt: latency_summary(times) for fmt, times in files.items()},
            "digest": latency_summary([d["ms"] for d in digests]),
            "digest_members_max": max((d["members"] for d in digests), default=0),
            "digests_built": sum(d["built"] for d in digests),
            "machine": machine_info(),
        })


def _digests_built(workspace: Workspace) -> dict[str, float | int]:
    """Build and write every member's digest of today for one workspace, timed together."""
    t0 = time.perf_counter()
    coming_soon: dict[int, list[ComingChange]] = {}
    members = built = 0
    for membership in Membership.objects.filter(workspace=workspace).select_related("user", "workspace"):
        members += 1
        digest = digest_build(membership, NoticeSubscription(user=membership.user, workspace=workspace),
                              day=swedish_today(), coming_soon=coming_soon)
        if digest is not None:
            digest_message(digest).message()
            built += 1
    return {"ms": ms_since(t0), "members": members, "built": built}
