"""Import rättsdatabaser's SFS records: newer versions, new statutes and repeals.

    manage.py sync_sfs --file data/sfs/rkrattsbaser-2026.jsonl.gz [--sync]
    manage.py sync_sfs --service            (SFS_SERVICE_ENABLED: the loaded statutes, from the service)
    manage.py sync_sfs --report --file RECORDS --baseline CORPUS   (the diff checked against the tags, JSON)

Each record is its own transaction; a bad record is reported by name and the rest imported. Running it
twice changes nothing the second time.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from tqdm import tqdm

from chunks.keyword_index import vacuum_keyword_index
from chunks.services import chunk_document, chunks_document_repealed_mark
from chunks.tasks import enqueue_embedding
from compliance.models import LegalDocument
from law.models import StatuteVersion
from law.report import diff_report
from law.rkrattsbaser import RkrattsbaserClient, ServiceDisabled
from law.services import Outcome, legal_document_priors_refresh, statute_record_apply
from law.sfs_records import RecordError, parse_record, read_records
from register.notices.services import notices_create_for_versions


class Command(BaseCommand):
    help = "Import rättsdatabasernas SFS-poster: nya versioner, nya författningar och upphävanden."

    def add_arguments(self, parser: CommandParser) -> None:
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--file", help="a .jsonl or .jsonl.gz file of the service's records")
        source.add_argument("--service", action="store_true", help="fetch the loaded statutes from the service")
        parser.add_argument("--sync", action="store_true",
                            help="chunk in this process instead of on the Celery worker (embedding still queued)")
        parser.add_argument("--report", action="store_true",
                            help="print the diff's agreement with the amendment tags as JSON; imports nothing")
        parser.add_argument("--baseline", default=str(settings.SFS_CORPUS_PATH),
                            help="the older corpus file --report compares with")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["report"]:
            if not opts["file"]:
                raise CommandError("--report needs --file")
            report = diff_report(Path(opts["baseline"]), Path(opts["file"]))
            self.stdout.write(json.dumps(report.as_dict(), ensure_ascii=False, indent=2))
            return
        started = time.monotonic()
        if opts["file"]:
            path = Path(opts["file"])
            if not path.exists():
                raise CommandError(f"filen finns inte: {path}")
            lines, origin, source_name = read_records(path), StatuteVersion.Origin.FILE, path.name
        else:
            try:
                client = RkrattsbaserClient()
            except ServiceDisabled as exc:
                raise CommandError(str(exc)) from exc
            numbers = list(LegalDocument.objects.filter(repeal__isnull=True).order_by("sfs_number")
                           .values_list("sfs_number", flat=True))
            lines, origin, source_name = client.records(numbers), StatuteVersion.Origin.SERVICE, client.url_template
        counts: Counter = Counter()
        changes = 0
        chunk_ids: list[int] = []
        applied: list[int] = []
        for line in tqdm(lines, desc="Poster", unit="st", disable=opts["no_progress"]):
            if line.error:
                counts["error"] += 1
                self.stderr.write(f"{line.name}: {line.error}")
                continue
            try:
                record = parse_record(line.record)
                result = statute_record_apply(record, origin=origin, source_name=source_name,
                                              new_since=settings.SFS_CORPUS_SNAPSHOT, process=not opts["sync"])
            except RecordError as exc:
                counts["error"] += 1
                self.stderr.write(f"{line.name}: {exc}")
                continue
            counts[result.outcome] += 1
            changes += result.changes
            if result.document_id is not None:
                # Unchanged ones too: a run that died before notifying left their notices undone.
                applied.append(result.document_id)
            if result.outcome == Outcome.OLDER:
                self.stderr.write(f"{line.name}: {result.message}")
            if result.outcome == Outcome.REPEALED:
                # A repealed statute leaves ordinary retrieval; its text stays readable on its page, and a
                # question that names it still finds it, with the repeal on the source.
                chunks_document_repealed_mark(result.document_id)
            if result.outcome in (Outcome.CREATED, Outcome.UPDATED) and opts["sync"]:
                # Only chunks whose text changed lose their vectors: chunk_document reuses them by hash.
                chunk_ids += chunk_document("LEGAL_DOCUMENT", result.document_id).to_embed or []
        if chunk_ids:
            enqueue_embedding(chunk_ids, bulk=True)
        if opts["sync"] and (counts[Outcome.CREATED] or counts[Outcome.UPDATED] or counts[Outcome.REPEALED]) \
                and not connection.in_atomic_block:
            with connection.cursor() as cursor:
                vacuum_keyword_index(cursor)
        if counts[Outcome.CREATED] or counts[Outcome.UPDATED] or counts[Outcome.REPEALED]:
            # A new or amended statute cites others (and is cited) anew, and may name an authority: the priors follow.
            legal_document_priors_refresh()
        # Who must know: a change notice per workspace concerned, made after each statute's transaction
        # committed (nobody hears of a change that was not applied). Only this run's documents; the hourly
        # scan (register.notices.tasks.notices_scan) catches a run that died before this line.
        noticed = notices_create_for_versions(document_ids=applied)
        summary = ", ".join(f"{counts[k]} {label}" for k, label in (
            (Outcome.UPDATED, "nya versioner"), (Outcome.CREATED, "nya författningar"),
            (Outcome.REPEALED, "upphävda"), (Outcome.UNCHANGED, "oförändrade"), (Outcome.OLDER, "äldre (ej tillämpade)"),
            (Outcome.SKIPPED, "inte i korpusen"), ("error", "fel")))
        self.stdout.write(f"{sum(counts.values())} poster: {summary}; {changes} ändrade enheter; "
                          f"{len(chunk_ids)} avsnitt att bädda in; {noticed.total} lagändringsnotiser "
                          f"({noticed.amended} ändrade, {noticed.repealed} upphävda, {noticed.new} nya); "
                          f"{time.monotonic() - started:.1f} s.")
