"""What the legal-document loaders (load_sfs, load_regulations) do with each document they upserted."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import connection, transaction

from chunks.keyword_index import vacuum_keyword_index
from chunks.services import chunk_document
from chunks.tasks import enqueue_embedding
from compliance.models import LegalDocument, ProcessingStatus


def validation_message(exc: ValidationError) -> str:
    """A model validation error as one line for the loader's report ("title: Säkerställ att …")."""
    if hasattr(exc, "error_dict"):
        return "; ".join(f"{field}: {' '.join(messages)}" for field, messages in exc.message_dict.items())
    return " ".join(exc.messages)


def ingest_loaded(doc: LegalDocument, was_changed: bool, *, sync: bool) -> bool:
    """Whether the document needs chunking (new or changed text, or chunks of an older text); with `sync`
    it is chunked here, keyword-searchable at once, and its vectors are queued on the bulk queue once the
    caller's transaction commits (a worker never sees chunk ids that are not there yet)."""
    if not (was_changed or doc.chunked_hash != doc.content_hash):
        return False
    if not was_changed and doc.status == ProcessingStatus.FAILED:
        # Chunking this very text failed before (no text at the source, nothing the parser finds a unit
        # in): a reload would only fail again. Admin's "Bearbeta igen" retries it after a parser fix.
        return False
    if sync:
        result = chunk_document("LEGAL_DOCUMENT", doc.pk)
        to_embed = result.to_embed or []
        if to_embed:
            transaction.on_commit(lambda: enqueue_embedding(to_embed, bulk=True))
    return True


def vacuum_after_load(changed: int, *, sync: bool) -> None:
    if changed and sync and not connection.in_atomic_block:
        # Searches read postings index-only: set the visibility map now rather than when autovacuum comes by.
        with connection.cursor() as cursor:
            vacuum_keyword_index(cursor)
