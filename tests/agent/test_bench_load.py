"""bench_load runs the app under gunicorn and Celery and drives it end to end (figures are not asserted)."""

from __future__ import annotations

import argparse
import io
import json
import socket

import pytest
from django.core.management import call_command

from agent.management.commands.bench_load import think_range
from compliance.models import LegalDocument, Workspace


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_bench_load_drives_every_kind_of_request_without_errors_or_leaks(loaded: list[LegalDocument]) -> None:
    out = io.StringIO()
    call_command("bench_load", "--users", "4", "--seconds", "4", "--warmup-seconds", "2", "--workers", "2",
                 "--max-requests", "200", "--think-seconds", "0.1:0.3", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["errors"]["total"] == 0, report["errors"]
    assert report["leaks"] == 0, report["leak_samples"]
    assert {"search", "chat_first_token", "chat_total", "upload"} <= set(report["endpoints"])
    assert 0 < report["requests"] <= 200
    assert {"search_p95_ms", "chat_first_token_p95_ms", "met"} <= set(report["targets"])
    assert report["think_seconds"] == {"min": 0.1, "max": 0.3, "mean": 0.2}
    assert report["offered_load"]["max_rps"] == 20.0  # 4 users, each at most one request per 0.2 s
    assert report["search_server_ms"]["total"]["n"] == report["endpoints"]["search"]["n"]
    assert 0 <= report["search_embed_cached_share"] <= 1
    assert report["machine_before"]["cpus"] == report["machine"]["cpus"]
    # What it created is gone, and so is the web server it started.
    assert not Workspace.objects.filter(slug__startswith="bench-").exists()
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", report["port"])) != 0


@pytest.mark.parametrize(("value", "expected"), [("1:3", (1.0, 3.0)), ("0", (0.0, 0.0)), ("2", (2.0, 2.0)),
                                                 ("0.5:0.5", (0.5, 0.5))])
def test_think_seconds_take_a_range_or_one_number(value: str, expected: tuple[float, float]) -> None:
    assert think_range(value) == expected


@pytest.mark.parametrize("value", ["3:1", "-1:2", "a:b", "1:", ":", "1:700"])
def test_a_bad_think_time_is_refused_in_swedish(value: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="ange MIN:MAX|krävs"):
        think_range(value)
