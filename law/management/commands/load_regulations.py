"""Load the shipped agency regulations and the GDPR. Idempotent: unchanged documents are skipped.

Each document is written in its own transaction (legal_document_upsert); a malformed record is
reported by name with the reason and the others still load.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from tqdm import tqdm

from compliance.services import LegalDocumentData, legal_document_upsert
from law.regulations import FORESKRIFTER_PATH, GDPR_PATH, RecordError, SourceRecord, read_records, regulation_from_record
from law.services import legal_document_priors_refresh

from ._loading import (
    KEEP_VECTOR_INDEX_HELP,
    ingest_loaded,
    vacuum_after_load,
    validation_message,
    vector_graph_for_load,
)


class Command(BaseCommand):
    help = "Load the agency regulations (data/foreskrifter) and the GDPR (data/eu) as legal documents."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--file", action="append", dest="files",
                            help="a .jsonl.gz file of records (repeatable; default: both shipped files)")
        parser.add_argument("--sync", action="store_true",
                            help="chunk in this process instead of on the Celery worker (embedding still queued)")
        parser.add_argument("--keep-vector-index", action="store_true", help=KEEP_VECTOR_INDEX_HELP)
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        started = time.monotonic()
        paths = [Path(p) for p in opts["files"] or [FORESKRIFTER_PATH, GDPR_PATH]]
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise CommandError(f"filen finns inte: {', '.join(missing)}")
        records = [self._converted(record) for path in paths for record in read_records(path)]
        texts = {data.sfs_number: data.full_text for _, data in records if isinstance(data, LegalDocumentData)}
        loaded = changed = 0
        failures: list[str] = []
        with vector_graph_for_load(texts, self.stderr, sync=opts["sync"], keep=opts["keep_vector_index"]):
            for record, data in tqdm(records, desc="Föreskrifter", unit="st", disable=opts["no_progress"]):
                try:
                    if isinstance(data, RecordError):
                        raise data
                    # One transaction per document: a record the database refuses (a title longer than the
                    # field) leaves nothing of itself behind, and the others still load.
                    with transaction.atomic():
                        upserted = legal_document_upsert(data, process=not opts["sync"])
                        changed += ingest_loaded(upserted.document, upserted.changed, sync=opts["sync"])
                except (RecordError, ValidationError) as error:
                    reason = validation_message(error) if isinstance(error, ValidationError) else str(error)
                    failures.append(f"{record.name}: {reason}")
                    self.stderr.write(f"Hoppar över {record.name}: {reason}")
                    continue
                loaded += 1
        vacuum_after_load(changed, sync=opts["sync"])
        if changed:  # the document priors follow the corpus (law 0003 and 0004 filled a database loaded before them)
            legal_document_priors_refresh()
        self.stdout.write(f"{loaded} föreskrifter och förordningar lästa, {changed} nya eller ändrade, "
                          f"{len(failures)} felaktiga ({time.monotonic() - started:.1f} s).")
        if failures and not loaded:
            raise CommandError("ingen post kunde läsas in")

    @staticmethod
    def _converted(record: SourceRecord) -> tuple[SourceRecord, LegalDocumentData | RecordError]:
        """The record as a legal document, or why it cannot be one (reported when the loop reaches it)."""
        if record.data is None:
            return record, RecordError(record.error)
        try:
            return record, regulation_from_record(record.data)
        except RecordError as error:
            return record, error
