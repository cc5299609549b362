"""Prometheus metrics of the answering layer, recorded in the process that answers.

Observing a histogram is an in-memory update: the pre-model step stays one INSERT.
Under gunicorn set PROMETHEUS_MULTIPROC_DIR so that every worker's figures are scraped.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

# Milliseconds to minutes: retrieval is usually tens of ms, a cold embedder seconds.
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

TURNS = Counter("lagrum_turns", "Chat turns (and /context calls) by intent.", ["intent"])
RETRIEVAL_SECONDS = Histogram("lagrum_retrieval_seconds", "The search itself (cache hits and skipped turns excluded).",
                              buckets=_BUCKETS)
PRE_MODEL_SECONDS = Histogram("lagrum_pre_model_seconds", "The whole step before the chat model.", buckets=_BUCKETS)
CACHE_HITS = Counter("lagrum_retrieval_cache_hits", "Turns answered from the retrieval cache.")
ZERO_MATCHES = Counter("lagrum_zero_matches", "Turns that searched and found no source.")
DEGRADED = Counter("lagrum_degraded_turns", "Turns whose retrieval failed or fell back (embedder down).")
MODEL_ERRORS = Counter("lagrum_model_errors", "Answers the chat model failed to give.")


def observe_turn(*, intent: str, skipped: bool, cache_hit: bool, zero_match: bool, degraded: bool,
                 retrieval_ms: float | None, total_ms: float | None) -> None:
    TURNS.labels(intent=intent or "unknown").inc()
    if retrieval_ms is not None:
        RETRIEVAL_SECONDS.observe(retrieval_ms / 1000)
    if total_ms is not None:
        PRE_MODEL_SECONDS.observe(total_ms / 1000)
    if cache_hit:
        CACHE_HITS.inc()
    if zero_match and not skipped:
        ZERO_MATCHES.inc()
    if degraded:
        DEGRADED.inc()


def observe_model_error() -> None:
    MODEL_ERRORS.inc()
