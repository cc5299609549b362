"""The benchmark workspace shared by seed_dashboard and bench_dashboard."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from agent.evaluation.benchmarking import BenchAccount
from compliance.models import Membership, Workspace

BENCH_USERNAME = "bench"


def bench_owner_and_workspace(slug: str) -> BenchAccount:
    user, _ = get_user_model().objects.get_or_create(
        username=BENCH_USERNAME, defaults={"email": "bench@example.invalid", "is_active": True})
    workspace, created = Workspace.objects.get_or_create(slug=slug, defaults={"name": "Mätning av översikten"})
    if not created and not Membership.objects.filter(workspace=workspace, user=user).exists():
        # Never replace the history of a workspace someone else made.
        raise CommandError(f"Arbetsytan {slug!r} finns redan och är inte en mätarbetsyta.")
    Membership.objects.get_or_create(user=user, workspace=workspace, defaults={"role": Membership.Role.OWNER})
    return BenchAccount(user=user, workspace=workspace)
