from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from chunks.services import chunk_ids_needing_embedding
from chunks.tasks import enqueue_embedding


class Command(BaseCommand):
    help = "Queue every chunk that still lacks a vector of the active model (recovery after a crash)."

    def handle(self, *args: Any, **opts: Any) -> None:
        ids = chunk_ids_needing_embedding()
        batches = enqueue_embedding(ids)
        self.stdout.write(f"{len(ids)} textavsnitt väntar på inbäddning ({batches} satser köade).")
