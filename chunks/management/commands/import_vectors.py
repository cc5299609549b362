"""Copy finished statute vectors from another Lagrum database instead of embedding again.

A chunk takes a vector only when the other database holds the same statute
(sfs number), the same chunk path and the same passage text (content_hash covers
header and text), embedded with the active model; chunks that already have a
vector are left alone. Only shared statutes are copied: workspace text never
crosses databases.
"""

from __future__ import annotations

from typing import Any

import psycopg
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from chunks.embedding import active_model_name
from chunks.models import SourceType
from chunks.services import source_progress_refresh


class Command(BaseCommand):
    help = "Copy statute vectors from another database (matched on sfs number, path and text)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--from-database", required=True, help="postgres:// URL of the database to read")

    def handle(self, *args: Any, **opts: Any) -> None:
        model = active_model_name()
        try:
            source = psycopg.connect(opts["from_database"])
        except psycopg.Error as exc:
            raise CommandError(f"cannot connect to the source database: {exc}") from exc
        with source, source.cursor() as src, transaction.atomic(), connection.cursor() as dst:
            dst.execute("CREATE TEMP TABLE incoming_vectors (document_number text, path text, content_hash text,"
                        " embedding text) ON COMMIT DROP")
            src.execute("SELECT document_number, path, content_hash, embedding::text FROM chunks_contentchunk "
                        "WHERE workspace_id IS NULL AND embedding IS NOT NULL AND embedding_model = %s", [model])
            rows = 0
            while batch := src.fetchmany(2000):
                dst.executemany("INSERT INTO incoming_vectors VALUES (%s, %s, %s, %s)", batch)
                rows += len(batch)
            dst.execute("""
                UPDATE chunks_contentchunk c SET embedding = i.embedding::vector, embedding_model = %s
                FROM incoming_vectors i
                WHERE c.workspace_id IS NULL AND c.embedding IS NULL AND c.document_number = i.document_number
                  AND c.path = i.path AND c.content_hash = i.content_hash
                RETURNING c.legal_document_id""", [model])
            sources = {(SourceType.LEGAL_DOCUMENT, doc_id) for (doc_id,) in dst.fetchall()}
            source_progress_refresh(sources)
        self.stdout.write(f"{rows} vectors read, copied to chunks of {len(sources)} statutes.")
