"""Shared helpers for the evaluation and benchmark commands.

Percentiles, peak memory, JSON output and the throwaway "eval" user and
workspace the commands search as. Statutes are shared, so any workspace sees
them; the eval workspace never holds files of its own.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import resource
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import TextIOBase
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from compliance.models import Membership, Workspace

EVAL_USERNAME = "eval"
EVAL_WORKSPACE_SLUG = "eval"


def percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100), like numpy's default."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def latency_summary(values_ms: list[float], *, digits: int = 2) -> dict:
    """p50/p95/p99/mean/max of a list of milliseconds."""
    if not values_ms:
        return {"n": 0}
    return {
        "n": len(values_ms),
        "p50_ms": round(percentile(values_ms, 50), digits),
        "p95_ms": round(percentile(values_ms, 95), digits),
        "p99_ms": round(percentile(values_ms, 99), digits),
        "mean_ms": round(sum(values_ms) / len(values_ms), digits),
        "max_ms": round(max(values_ms), digits),
    }


def peak_rss_mb(*, children: bool = False) -> float:
    """Peak resident memory of this process (or its waited-for children), in MiB."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    kib = usage.ru_maxrss  # KiB on Linux
    return round(kib / 1024, 1)


def machine_info() -> dict:
    """What the numbers were measured on: they are noisy on a shared 2-core machine."""
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = []
    return {"cpus": os.cpu_count(), "loadavg": load}


@contextmanager
def stopwatch() -> Iterator[dict]:
    """`with stopwatch() as t: ...` then t["ms"]."""
    out: dict = {}
    t0 = time.perf_counter()
    try:
        yield out
    finally:
        out["ms"] = (time.perf_counter() - t0) * 1000


def ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def write_json(stream: TextIOBase, data: dict) -> None:
    stream.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def read_jsonl(path: str | Path) -> Iterator[dict]:
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


@dataclass(frozen=True)
class BenchAccount:
    """The user a command acts as and the workspace it acts in, which that user owns."""

    user: User
    workspace: Workspace


def eval_user_and_workspace() -> BenchAccount:
    """A dedicated user and workspace to search as (created on first use)."""


    user, _ = get_user_model().objects.get_or_create(
        username=EVAL_USERNAME, defaults={"email": "eval@example.invalid", "is_active": True})
    workspace, _ = Workspace.objects.get_or_create(slug=EVAL_WORKSPACE_SLUG, defaults={"name": "Utvärdering"})
    Membership.objects.get_or_create(user=user, workspace=workspace, defaults={"role": Membership.Role.OWNER})
    return BenchAccount(user=user, workspace=workspace)


def warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


def chunked(items: list, size: int) -> Iterable[list]:
    for i in range(0, len(items), size):
        yield items[i:i + size]
