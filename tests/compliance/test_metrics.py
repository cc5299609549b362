"""/metrics, read by Prometheus's own text parser: what it exposes and who may scrape it."""

from __future__ import annotations

import ipaddress
import os
import tempfile
from unittest import mock

from django.test import Client, override_settings
from prometheus_client import Counter, values
from prometheus_client.parser import text_string_to_metric_families

from agent.answering.prepare import prepare_context
from compliance.models import LegalDocument
from tests.helpers import BaseTestCase


def scrape(client: Client, **extra: str) -> dict:
    response = client.get("/metrics", **extra)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/plain; version=")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: dict, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


class MetricsTests(BaseTestCase):
    def test_exposes_requests_turns_latencies_and_knowledge_figures(self) -> None:
        LegalDocument.objects.create(sfs_number="1977:1160", title="Arbetsmiljölag", full_text="x", status="done",
                                     chunks_total=10, chunks_embedded=4)
        LegalDocument.objects.create(sfs_number="1982:80", title="LAS", full_text="x", status="pending")
        before = scrape(self.client)
        prepare_context([{"role": "user", "content": "Hej!"}], self.workspace, self.alice)  # a real skipped turn
        self.login(self.alice)
        self.assertEqual(self.client.get("/ws/alices-ab/").status_code, 200)
        after = scrape(self.client)

        self.assertEqual(value(after, "lagrum_turns_total", intent="greeting")
                         - value(before, "lagrum_turns_total", intent="greeting"), 1)
        self.assertEqual(value(after, "lagrum_pre_model_seconds_count") - value(before, "lagrum_pre_model_seconds_count"), 1)
        self.assertEqual(value(after, "lagrum_retrieval_seconds_count"), value(before, "lagrum_retrieval_seconds_count"))
        self.assertGreaterEqual(value(after, "lagrum_http_requests_total", view="workspace", method="GET", status="200"), 1)
        self.assertGreaterEqual(value(after, "lagrum_http_request_duration_seconds_count", view="workspace",
                                      method="GET"), 1)
        self.assertEqual(value(after, "lagrum_documents", kind="statute", status="done"), 1)
        self.assertEqual(value(after, "lagrum_documents", kind="statute", status="pending"), 1)
        self.assertEqual(value(after, "lagrum_chunks", kind="statute", state="embedded"), 4)
        self.assertEqual(value(after, "lagrum_chunks_awaiting_embedding"), 6)
        self.assertEqual(value(after, "lagrum_broker_up"), 1)
        self.assertIn(("lagrum_celery_queue_length", (("queue", "lagrum"),)), after)
        for name in ("lagrum_retrieval_cache_hits_total", "lagrum_zero_matches_total", "lagrum_model_errors_total",
                     "lagrum_degraded_turns_total"):
            self.assertIn((name, ()), after)

    @override_settings(METRICS_ALLOWED_NETWORKS=[ipaddress.ip_network("127.0.0.1/32")], METRICS_TOKEN="hemligt")
    def test_outside_the_allowed_networks_a_token_is_needed(self) -> None:
        self.assertEqual(self.client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code, 403)
        self.assertEqual(self.client.get("/metrics", REMOTE_ADDR="10.1.2.3",
                                         HTTP_AUTHORIZATION="Bearer fel").status_code, 403)
        scrape(self.client, REMOTE_ADDR="10.1.2.3", HTTP_AUTHORIZATION="Bearer hemligt")
        scrape(self.client)  # loopback

    @override_settings(METRICS_ALLOWED_NETWORKS=[ipaddress.ip_network("10.0.0.0/8")], METRICS_TOKEN="")
    def test_without_a_token_only_the_networks_get_in(self) -> None:
        scrape(self.client, REMOTE_ADDR="10.1.2.3")
        self.assertEqual(self.client.get("/metrics").status_code, 403)
        self.assertEqual(self.client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code, 403)

    def test_multiprocess_mode_merges_the_workers_files(self) -> None:
        # Under gunicorn each worker writes its figures to PROMETHEUS_MULTIPROC_DIR; the scrape reads them all.
        with tempfile.TemporaryDirectory() as folder, mock.patch.dict(os.environ, {"PROMETHEUS_MULTIPROC_DIR": folder}):
            in_process = values.ValueClass
            values.ValueClass = values.MultiProcessValue(process_identifier=lambda: 4242)  # "another worker"
            try:
                Counter("lagrum_worker_probe", "A figure another worker wrote.", registry=None).inc(3)
            finally:
                values.ValueClass = in_process
            samples = scrape(self.client)
        self.assertEqual(value(samples, "lagrum_worker_probe_total"), 3)
        self.assertIn(("lagrum_chunks_awaiting_embedding", ()), samples)
