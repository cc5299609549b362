"""Real statutes in the test database, chunked and embedded with the real model.

Loaded once per test session (committed, outside any test transaction) and
re-created if a TransactionTestCase flushed them. Vectors are kept in memory by
content hash so a reload does not embed again.
"""

from __future__ import annotations

import numpy as np
import pytest
from django.conf import settings
from django.db import connection
from django.db.models import QuerySet

from agent.retrieval import bridges
from chunks.embedding import active_model_name, get_provider, passage_text
from chunks.models import ContentChunk
from chunks.services import chunk_document, chunk_source_key, source_progress_refresh
from compliance.models import LegalDocument, ProcessingStatus
from compliance.services import LegalDocumentData, legal_document_upsert
from law.sfs_corpus import content_type_for, parse_date, read_corpus
from law.statute_names import names_for

_vectors: dict[str, np.ndarray] = {}
_records: dict[str, dict] = {}


def corpus_record(sfs: str) -> dict:
    if not _records:
        for record in read_corpus(settings.SFS_CORPUS_PATH):
            _records[record["sfs"]] = record
    return _records[sfs]


def require_test_database() -> None:
    """Stop before a fixture that commits outside a test's transaction touches a developer's database.

    pytest-django creates the test database only when a collected test is marked django_db. A run of unmarked
    tests that still reaches a loading fixture (a fixture failing on blocked access, a probe) leaves the
    connection on the configured database, where the agent package's corpus fixture would load arbetsmiljölagen
    and LAS and, at teardown, delete them."""
    test_name = connection.settings_dict.get("TEST", {}).get("NAME")
    if connection.settings_dict["NAME"] != test_name:
        pytest.fail(f"not the test database ({connection.settings_dict['NAME']!r}): mark the test django_db",
                    pytrace=False)


def load_statutes(*numbers: str, embed: bool = True) -> list[LegalDocument]:
    require_test_database()
    docs = []
    loaded_here = False
    for sfs in numbers:
        doc = LegalDocument.objects.filter(sfs_number=sfs).first()
        if doc is None or doc.status != ProcessingStatus.DONE:
            record = corpus_record(sfs)
            names = names_for(sfs, record["title"])
            doc = legal_document_upsert(LegalDocumentData(
                sfs_number=sfs, title=record["title"], full_text=record["text"],
                content_type=content_type_for(record["title"]), short_names=list(names.short_names),
                abbreviations=list(names.abbreviations), issued=parse_date(record.get("issued")),
                category=record.get("category") or "",
            ), process=False).document
            chunk_document("LEGAL_DOCUMENT", doc.pk)
            if embed:
                embed_all(ContentChunk.objects.filter(legal_document=doc))
            doc.refresh_from_db()
            loaded_here = True
        docs.append(doc)
    if loaded_here:
        # A process that has bridges keeps them while a changed corpus is read beside it (bridges.vocabulary);
        # a test asks about the statutes it has just loaded.
        bridges.forget()
    return docs


def embed_all(queryset: QuerySet[ContentChunk]) -> None:
    """Embed synchronously (the worker path is tested separately), reusing vectors across reloads."""
    chunks = list(queryset.filter(embedding__isnull=True))
    missing = [c for c in chunks if c.content_hash not in _vectors]
    if missing:
        vectors = get_provider().embed_passages([passage_text(c.header, c.text) for c in missing])
        for chunk, vector in zip(missing, vectors):
            _vectors[chunk.content_hash] = vector
    for chunk in chunks:
        chunk.embedding = _vectors[chunk.content_hash]
        chunk.embedding_model = active_model_name()
    ContentChunk.objects.bulk_update(chunks, ["embedding", "embedding_model"], batch_size=200)

    source_progress_refresh({chunk_source_key(c) for c in chunks})
