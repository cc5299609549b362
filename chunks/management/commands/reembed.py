from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Q

from chunks.embedding import active_model_name
from chunks.models import ContentChunk
from chunks.services import embeddings_drop_all
from chunks.tasks import enqueue_embedding


class Command(BaseCommand):
    help = "Re-embed chunks whose vectors were made by another model than the active one."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--all", action="store_true", help="re-embed every chunk, even current ones")

    def handle(self, *args: Any, **opts: Any) -> None:
        model = active_model_name()
        qs = ContentChunk.objects.all() if opts["all"] else ContentChunk.objects.filter(
            Q(embedding__isnull=True) | ~Q(embedding_model=model))
        # --all drops the vectors through the service: it takes the locks in the order a worker
        # writing vectors takes them.
        ids = embeddings_drop_all() if opts["all"] else list(qs.values_list("id", flat=True))
        # Old vectors stay searchable-by-keyword; vector search ignores other models' vectors anyway.
        batches = enqueue_embedding(ids, bulk=True)
        self.stdout.write(f"{len(ids)} textavsnitt köade för inbäddning med {model} ({batches} satser).")
