"""What the legal-document loaders (load_sfs, load_regulations) do with each document they upserted."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.exceptions import ValidationError
from django.core.management.base import OutputWrapper
from django.db import connection, transaction

from chunks.keyword_index import vacuum_keyword_index
from chunks.services import chunk_document
from chunks.tasks import enqueue_embedding
from chunks.vector_index import VectorIndexPlan, VectorIndexRebuild, vector_index_plan, vector_index_rebuilt_after
from compliance.models import LegalDocument, ProcessingStatus, content_hash

KEEP_VECTOR_INDEX_HELP = ("keep the vector index (HNSW graph) and insert into it chunk by chunk, even for a large "
                          "load: vector searches stay fast meanwhile (use it on a database serving users)")


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


def pending_text_chars(texts: dict[str, str]) -> int:
    """Characters of text, among {document number: full text}, that is not chunked as it stands: new, changed or
    never chunked. An estimate of a load's work for the vector graph's plan, not a decision about any document
    (legal_document_upsert and ingest_loaded make those)."""
    chunked = dict(LegalDocument.objects.filter(sfs_number__in=list(texts)).values_list("sfs_number", "chunked_hash"))
    return sum(len(text) for number, text in texts.items() if chunked.get(number) != content_hash(text))


@contextmanager
def vector_graph_for_load(texts: dict[str, str], out: OutputWrapper, *, sync: bool,
                          keep: bool) -> Iterator[VectorIndexRebuild]:
    """Run a load with the vector graph dropped and built once at its end when the load is large against it
    (chunks/vector_index.py). Only a --sync load writes chunks itself; otherwise the worker does, later.
    What it does to the graph is said on `out` (the loaders' stderr, beside their progress bar)."""
    def plan_now() -> VectorIndexPlan:
        return vector_index_plan(pending_chars=pending_text_chars(texts) if sync else 0, keep=keep)

    plan = plan_now()
    if message := plan.describe():
        out.write(message)
    with vector_index_rebuilt_after(plan, plan_again=plan_now) as outcome:
        yield outcome
    if outcome.build_seconds is not None:
        out.write(f"Vektorindexet byggt ({outcome.build_seconds:.1f} s).")
    elif plan.rebuild:
        out.write("Vektorindexet byggdes medan den här inläsningen väntade på sin tur: det behålls.")
