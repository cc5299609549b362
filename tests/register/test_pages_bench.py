"""bench_register seeds a throwaway workspace, times the overview and prints JSON (its shape, not its timing)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from compliance.models import Workspace
from register.models import RegisterItem

pytestmark = [pytest.mark.django_db, pytest.mark.clock]


def test_bench_prints_the_overview_times_as_json_and_cleans_up() -> None:
    out = io.StringIO()
    call_command("bench_register", "--json", "--items", "40", "--requirements", "2", "--repeat", "2", stdout=out)
    result = json.loads(out.getvalue())
    assert result["seeded"]["items"] == 40 and result["seeded"]["requirements"] == 80
    for page in ("overview", "overview_filtered", "overview_last_page"):
        assert result[page]["n"] == 2 and result[page]["p95_ms"] > 0
    assert result["p95_ms"] == result["overview"]["p95_ms"] and result["max_ms"] >= result["p50_ms"] > 0
    assert result["target_ms"] == 300 and isinstance(result["meets_target"], bool)
    # The workspace was thrown away.
    assert not Workspace.objects.filter(slug__startswith="bench-register-").exists()
    assert not RegisterItem.objects.exists()
