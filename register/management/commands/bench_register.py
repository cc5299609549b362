"""How fast the laglista's overview renders with a large register, printed as JSON.

    manage.py bench_register --json [--items 500] [--requirements 3] [--repeat 30]

Seeds a throwaway workspace (its own owner, one register in five groups, `items` items with `requirements`
kravpunkter each, some overdue, some with actions), renders the overview through Django's full request cycle
(the test client, logged in as the owner) `repeat` times after one warm-up request, unfiltered and filtered,
and deletes the workspace again. Target: p95 < 300 ms with 500 items.
"""

from __future__ import annotations

import time
import uuid
from datetime import timedelta
from typing import Any

from auditlog.context import disable_auditlog
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction
from django.test import Client

from agent.evaluation.benchmarking import latency_summary, machine_info, ms_since, write_json
from compliance.clock import swedish_today
from compliance.models import LegalDocument, Membership, Workspace
from register.models import (
    Action,
    ComplianceStatus,
    Evidence,
    LegalRegister,
    RegisterGroup,
    RegisterItem,
    Requirement,
)

TARGET_MS = 300
GROUPS = ["Arbetsmiljö", "Miljö", "Dataskydd", "Informationssäkerhet", "Bolagsrätt"]


def seed(workspace: Workspace, user: AbstractBaseUser, *, items: int, requirements: int) -> dict:
    """Bulk rows (no audit entries: the trail is not what is measured). Items take the corpus's documents
    while they last, then the workspace's own titled requirements."""
    today = swedish_today()
    statuses = ComplianceStatus.values
    with transaction.atomic(), disable_auditlog():
        register = LegalRegister.objects.create(workspace=workspace, name="Laglista", created_by=user)
        groups = RegisterGroup.objects.bulk_create(
            [RegisterGroup(register=register, name=name, position=i) for i, name in enumerate(GROUPS)])
        documents = list(LegalDocument.objects.order_by("pk").values_list("pk", flat=True)[:items])
        rows = []
        for i in range(items):
            rows.append(RegisterItem(
                register=register, workspace=workspace, group=groups[i % len(groups)],
                legal_document_id=documents[i] if i < len(documents) else None,
                title="" if i < len(documents) else f"Eget krav {i + 1}",
                reason="Gäller vår verksamhet.", responsible=user if i % 3 == 0 else None,
                status=statuses[i % len(statuses)], last_reviewed_at=today - timedelta(days=i % 400),
                next_review_date=today + timedelta(days=(i % 60) - 20), needs_reassessment=i % 17 == 0))
        made = RegisterItem.objects.bulk_create(rows, batch_size=500)
        Requirement.objects.bulk_create([
            Requirement(item=item, workspace=workspace, title=f"Krav {j + 1}", section_ref=f"{j + 1} §",
                        status=statuses[(item.pk + j) % len(statuses)], owner=user if j == 0 else None,
                        needs_evidence=j == 0, position=j)
            for item in made for j in range(requirements)], batch_size=1000)
        Action.objects.bulk_create([
            Action(workspace=workspace, item=item, title=f"Åtgärda {item.pk}", owner=user,
                   due_date=today + timedelta(days=(k % 20) - 10), created_by=user)
            for k, item in enumerate(made[::10])])
    # A register grows over months and autovacuum keeps its statistics; rows inserted a second ago have none,
    # and the planner's guesses over them measured the seeding, not the page.
    with connection.cursor() as cursor:
        for model in (RegisterItem, Requirement, Evidence, Action):
            cursor.execute(f'ANALYZE "{model._meta.db_table}"')
    return {"items": len(made), "requirements": len(made) * requirements, "documents": min(len(documents), items)}


class Command(BaseCommand):
    help = "Measure the laglista overview's render time with many items."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--items", type=int, default=500)
        parser.add_argument("--requirements", type=int, default=3, help="kravpunkter per item")
        parser.add_argument("--repeat", type=int, default=30)
        parser.add_argument("--keep", action="store_true", help="keep the throwaway workspace afterwards")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, items: int, requirements: int, repeat: int, keep: bool, **opts: Any) -> None:
        if items < 1 or repeat < 1:
            raise CommandError("--items och --repeat måste vara minst 1.")
        suffix = uuid.uuid4().hex[:8]
        user = get_user_model().objects.create_user(username=f"bench-register-{suffix}",
                                                    email="bench@example.invalid")
        workspace = Workspace.objects.create(name="Mätning av laglistan", slug=f"bench-register-{suffix}")
        Membership.objects.create(user=user, workspace=workspace, role=Membership.Role.OWNER)
        try:
            t0 = time.perf_counter()
            seeded = {**seed(workspace, user, items=items, requirements=requirements), "ms": round(ms_since(t0))}
            client = Client()
            client.force_login(user)
            base = f"/ws/{workspace.slug}/laglista/"

            def timed(url: str) -> list[float]:
                client.get(url)  # templates, the connection
                times = []
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    response = client.get(url)
                    times.append(ms_since(t0))
                    if response.status_code != 200:
                        raise CommandError(f"{url} answered {response.status_code}")
                return times

            pages = {"overview": latency_summary(timed(base)),
                     "overview_filtered": latency_summary(timed(f"{base}?status=partial&grupp=&q=krav")),
                     "overview_last_page": latency_summary(timed(f"{base}?sida=999"))}
        finally:
            if not keep:
                with disable_auditlog():
                    workspace.delete()
                    user.delete()
        result = {
            "seeded": seeded,
            **pages,
            "p50_ms": pages["overview"]["p50_ms"],
            "p95_ms": pages["overview"]["p95_ms"],
            "max_ms": pages["overview"]["max_ms"],
            "target_ms": TARGET_MS,
            "meets_target": max(p["p95_ms"] for p in pages.values()) < TARGET_MS,
            "machine": machine_info(),
        }
        write_json(self.stdout, result)
