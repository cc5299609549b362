"""bench_load runs the app under gunicorn and Celery and drives it end to end (figures are not asserted)."""

from __future__ import annotations

import io
import json
import socket

import pytest
from django.core.management import call_command

from compliance.models import Workspace

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_bench_load_drives_every_kind_of_request_without_errors_or_leaks(loaded):
    out = io.StringIO()
    call_command("bench_load", "--users", "4", "--seconds", "4", "--warmup-seconds", "2", "--workers", "2",
                 "--max-requests", "200", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["errors"]["total"] == 0, report["errors"]
    assert report["leaks"] == 0, report["leak_samples"]
    assert {"search", "chat_first_token", "chat_total", "upload"} <= set(report["endpoints"])
    assert 0 < report["requests"] <= 200
    assert {"search_p95_ms", "chat_first_token_p95_ms", "met"} <= set(report["targets"])
    # What it created is gone, and so is the web server it started.
    assert not Workspace.objects.filter(slug__startswith="bench-").exists()
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", report["port"])) != 0
