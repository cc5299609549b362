"""seed_dashboard and bench_dashboard: the synthetic history adds up, the benchmark prints JSON."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from agent.models import Feedback, RetrievalLog
from agent.monitoring.dashboard import retrieval_stats
from compliance.models import Workspace

pytestmark = [pytest.mark.django_db, pytest.mark.clock]


def run(*args: str) -> dict:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return json.loads(out.getvalue())


def test_seed_makes_the_rows_and_the_dashboard_counts_them() -> None:
    made = run("seed_dashboard", "--rows", "400", "--days", "7", "--workspace", "matning")
    assert made == {"workspace": "matning", "conversations": 20, "retrieval_logs": 400, "feedback": made["feedback"]}
    ws = Workspace.objects.get(slug="matning")
    logs = RetrievalLog.objects.filter(workspace=ws)
    assert logs.count() == 400 and logs.exclude(answer_mode="").count() == 400
    assert Feedback.objects.filter(message__conversation__workspace=ws).count() == made["feedback"] > 0
    stats = retrieval_stats(workspace_ids=[ws.pk], days=7)
    assert stats["totals"]["questions"] == 400
    assert sum(stats["totals"]["by_answer_mode"].values()) == 400
    assert stats["totals"]["retrieval_ms"]["p50"] is not None and stats["found_nothing"] and stats["unknown_words"]
    # Seeding again replaces, never adds.
    run("seed_dashboard", "--rows", "100", "--days", "7", "--workspace", "matning")
    assert RetrievalLog.objects.filter(workspace=ws).count() == 100


def test_seed_refuses_a_workspace_it_did_not_make() -> None:
    Workspace.objects.create(name="Riktig", slug="riktig")
    with pytest.raises(CommandError):
        call_command("seed_dashboard", "--rows", "10", "--workspace", "riktig", stdout=io.StringIO())


def test_bench_prints_render_times_as_json() -> None:
    result = run("bench_dashboard", "--json", "--rows", "300", "--repeat", "2", "--workspace", "matning")
    assert result["rows"] == 300 and result["seeded"]["retrieval_logs"] == 300
    for temperature in ("cold", "warm"):
        page = result[f"owner_page_{temperature}"]
        assert set(page) == {"7d", "30d", "90d"}
        assert all(v["n"] == 2 and v["p95_ms"] > 0 for v in page.values())
        assert isinstance(result[f"meets_target_{temperature}"], bool)
    assert result["staff_page_90d_cold"]["n"] == 2 and result["target_ms"] == 300
