"""What the ingestion benchmarks (bench_priority, bench_fairness) share: polling until a condition holds,
and asking retrieval whether an uploaded file is found yet."""

from __future__ import annotations

import time
from collections.abc import Callable

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.management.base import CommandError

from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from chunks.models import SourceType
from compliance.models import UserFile, Workspace


def wait_until(predicate: Callable[[], bool], timeout: float, what: str) -> float:
    """Poll `predicate` every 0.1 s; the monotonic time it first held (CommandError after `timeout` s)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise CommandError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)
    return time.monotonic()


def file_found(query: str, workspace: Workspace, user: AbstractBaseUser, mode: str, user_file: UserFile) -> bool:
    """Whether a search in `mode` finds `user_file` among its top 10 now."""
    workspace = Workspace.objects.get(pk=workspace.pk)  # a fresh knowledge_version: no stale cached answer
    result = retrieve_context(query, workspace, user=user,
                              options=RetrievalOptions(mode=mode, top_k=10, rerank=False, use_references=False))
    return any(c.source_type == SourceType.USER_FILE and c.source_id == user_file.pk for c in result.chunks)
