"""Prometheus metrics at /metrics: request counts and latencies (middleware), figures read at
scrape time (documents by status, chunks awaiting a vector, the broker's queue), plus whatever the
layers above registered (agent.monitoring.metrics: retrieval and pre-model latency, cache hits, zero matches,
model errors). The text format is prometheus_client's.

Access: clients whose address is in METRICS_ALLOWED_NETWORKS (loopback by default under DEBUG,
nothing by default in production), or that send `Authorization: Bearer <METRICS_TOKEN>`.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import os
import time
from collections.abc import Callable, Iterator

import redis
from django.conf import settings
from django.db.models import Count, F, Sum
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.views.decorators.http import require_GET
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from .models import Assessment, LegalDocument, UserFile

log = logging.getLogger(__name__)

REQUESTS = Counter("lagrum_http_requests", "HTTP requests by view, method and status.", ["view", "method", "status"])
REQUEST_SECONDS = Histogram("lagrum_http_request_duration_seconds", "HTTP request latency by view.", ["view", "method"],
                            buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0))


class PrometheusMiddleware:
    """Counts and times every request, labelled by the URL pattern's name (bounded), never by path."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        start = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = (match.view_name or match.route) if match else "unmatched"
        REQUESTS.labels(view=view, method=request.method, status=str(response.status_code)).inc()
        REQUEST_SECONDS.labels(view=view, method=request.method).observe(time.perf_counter() - start)
        return response


class KnowledgeCollector:
    """Figures that live in Postgres and Redis, read when Prometheus scrapes (a few small aggregates)."""

    KINDS = (("statute", LegalDocument), ("file", UserFile), ("assessment", Assessment))

    def collect(self) -> Iterator[GaugeMetricFamily]:
        documents = GaugeMetricFamily("lagrum_documents", "Sources by kind and processing status.",
                                      labels=["kind", "status"])
        chunks = GaugeMetricFamily("lagrum_chunks", "Chunks of the sources by state (total, embedded); the "
                                   "embedding throughput is deriv() of the embedded ones.", labels=["kind", "state"])
        awaiting = 0
        for kind, model in self.KINDS:
            manager = model.objects
            for row in manager.order_by().values("status").annotate(n=Count("id")):
                documents.add_metric([kind, row["status"]], row["n"])
            sums = manager.aggregate(total=Sum("chunks_total", default=0), embedded=Sum("chunks_embedded", default=0),
                                     awaiting=Sum(F("chunks_total") - F("chunks_embedded"), default=0))
            chunks.add_metric([kind, "total"], sums["total"])
            chunks.add_metric([kind, "embedded"], sums["embedded"])
            awaiting += sums["awaiting"]
        yield documents
        yield chunks
        yield GaugeMetricFamily("lagrum_chunks_awaiting_embedding", "Chunks without a vector yet (the embedding "
                                "backlog).", value=awaiting)
        queue = GaugeMetricFamily("lagrum_celery_queue_length", "Tasks waiting in the broker's queue.",
                                  labels=["queue"])
        up = 1
        try:
            client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=1, socket_connect_timeout=1)
            queue.add_metric([settings.CELERY_TASK_DEFAULT_QUEUE], client.llen(settings.CELERY_TASK_DEFAULT_QUEUE))
        except Exception:  # a broker that is down is itself a figure, not a failed scrape
            log.warning("could not read the broker's queue length", exc_info=True)
            up = 0
        yield queue
        yield GaugeMetricFamily("lagrum_broker_up", "1 when the broker answered the scrape.", value=up)


_knowledge = KnowledgeCollector()


def _registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Several gunicorn workers: prometheus_client merges their files.
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Forward(REGISTRY))
    registry.register(_knowledge)
    return registry


class _Forward:
    """The process's default registry as one collector, so the scrape-time figures join it per request."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterator[Metric]:
        return self.registry.collect()


def _allowed(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(header.encode(), f"Bearer {token}".encode()):
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in settings.METRICS_ALLOWED_NETWORKS)


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        return HttpResponse("Forbidden\n", status=403, content_type="text/plain; charset=utf-8")
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)
