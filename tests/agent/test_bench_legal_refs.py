"""bench_legal_refs runs end to end and prints its figures as JSON (the figures are not asserted)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from agent.management.commands.bench_legal_refs import ADVERSARIAL, QUESTIONS


@pytest.fixture(autouse=True)
def _media_root() -> None:
    """Shadow the Django-only autouse fixture of tests/conftest.py: no database is used."""


def test_bench_legal_refs_prints_json() -> None:
    out = io.StringIO()
    call_command("bench_legal_refs", "--scale", "0.002", "--statutes", "2", "--rounds", "1", stdout=out)
    report = json.loads(out.getvalue())
    assert set(report) == {"machine", "scale", "adversarial", "adversarial_max_ms", "adversarial_max_ratio",
                           "corpus", "questions"}
    assert [row["name"] for row in report["adversarial"]] == [name for name, _, _ in ADVERSARIAL]
    for row in report["adversarial"]:
        assert set(row) == {"name", "chars", "ms", "references", "ms_doubled", "ratio"}
        assert row["chars"] > 0 and row["ms"] >= 0 and 0 <= row["references"] <= 5000
    assert report["corpus"]["statutes"] == 2
    assert report["corpus"]["chars"] > 0 and report["corpus"]["references"] > 0
    assert report["questions"]["n"] == len(QUESTIONS)
    assert {"p50_ms", "p95_ms", "max_ms"} <= set(report["questions"])


def test_bench_legal_refs_rejects_bad_options() -> None:
    with pytest.raises(CommandError):
        call_command("bench_legal_refs", "--scale", "0", stdout=io.StringIO())
