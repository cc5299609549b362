"""Celery entry points of the answering layer. Thin: each calls a function and returns a summary."""

from __future__ import annotations

from celery import shared_task

from .monitoring.dashboard import rollup_through
from .monitoring.retrieval_logs import retrieval_log_prune


@shared_task
def prune_retrieval_logs() -> dict:
    return {"deleted": retrieval_log_prune()}


@shared_task
def rollup_retrieval_logs() -> dict:
    through = rollup_through()
    return {"through": through.isoformat() if through else None}
