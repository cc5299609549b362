"""The port through which the domain asks for a source to be (re)processed.

compliance/ sits below chunks/ and must not import it, yet saving a statute,
file or assessment has to start chunking and embedding. Ingestion registers
its entry point here when Django starts (chunks/apps.py); the services call
`request_processing`, which runs it once the surrounding transaction commits,
so a worker never picks up a row it cannot see yet, nor one rolled back.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

Processor = Callable[[str, int, bool], None]  # (source_type, source_id, force)

_processor: Processor | None = None


def processor_register(processor: Processor) -> None:
    global _processor
    _processor = processor


def request_processing(source_type: str, source_id: int, *, force: bool = False) -> None:
    processor = _processor
    if processor is None:
        raise ImproperlyConfigured("No document processor is registered: is 'chunks' in INSTALLED_APPS?")
    transaction.on_commit(lambda: processor(source_type, source_id, force))
