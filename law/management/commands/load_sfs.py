"""Load the bundled Swedish statutes. Idempotent: unchanged texts are skipped, and so is a statute whose current
version an official record brought (`sync_sfs`): the bundled 2024 text never replaces a newer one.

One statute per transaction (its row and, with --sync, its chunks): a record that cannot be loaded
is reported by number with the reason, nothing of it is kept, and the rest loads.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DatabaseError, transaction
from tqdm import tqdm

from compliance.models import SFS_NUMBER_RE, LegalDocument
from compliance.services import LegalDocumentData, legal_document_upsert
from law.selectors import statute_numbers_from_records
from law.services import (
    BookLoadProgress,
    legal_document_priors_refresh,
    statute_book_progress_record,
    statute_record_version_kept,
)
from law.sfs_corpus import CORE_SFS, book_size, parse_date, read_book_lines, record_content_type
from law.statute_names import names_for

from ._loading import (
    KEEP_VECTOR_INDEX_HELP,
    ingest_loaded,
    vacuum_after_load,
    validation_message,
    vector_graph_for_load,
)

SHORT_NAME_MAX_CHARS = LegalDocument._meta.get_field("short_names").base_field.max_length
# How often the book's progress is written for the Kunskapsbas page and admin (seconds).
PROGRESS_EVERY_SECONDS = 2.0

# What `_load` did with a record, besides failing (a reason, in Swedish).
LOADED, UNCHANGED, KEPT_NEWER = "loaded", "unchanged", "kept_newer"


@dataclass(frozen=True)
class _Loaded:
    outcome: str = ""  # LOADED, UNCHANGED or KEPT_NEWER; "" when it failed
    error: str = ""


class Command(BaseCommand):
    help = ("Load statutes from the bundled SFS corpus (default: the compliance core set; --all: the 177 curated "
            "statutes; --book: the whole statute book in force, 4,610).")

    def add_arguments(self, parser: CommandParser) -> None:
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--only", help="comma-separated SFS numbers, e.g. 1977:1160,1982:80")
        group.add_argument("--all", action="store_true", help="all statutes in the corpus file")
        group.add_argument("--book", action="store_true",
                           help="the whole statute book: the corpus file, then SFS_BOOK_PATH (progress shown in the UI)")
        parser.add_argument("--corpus", default=str(settings.SFS_CORPUS_PATH))
        parser.add_argument("--book-file", default=str(settings.SFS_BOOK_PATH),
                            help="with --book: the statutes beyond the corpus file")
        parser.add_argument("--sync", action="store_true",
                            help="chunk in this process instead of on the Celery worker (embedding still queued)")
        parser.add_argument("--keep-vector-index", action="store_true", help=KEEP_VECTOR_INDEX_HELP)
        parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        started = time.perf_counter()
        wanted = self._wanted(opts)
        paths = [Path(opts["corpus"])] + ([Path(opts["book_file"])] if opts["book"] else [])
        missing_files = [str(path) for path in paths if not path.exists()]
        if missing_files:
            raise CommandError(f"filen finns inte: {', '.join(missing_files)}")
        lines = [line for line in read_book_lines(*paths)
                 if wanted is None or (line.record is not None and line.record["sfs"] in wanted)]
        if wanted is not None:
            missing = wanted - {line.record["sfs"] for line in lines if line.record is not None}
            if missing:
                raise CommandError(f"not in the corpus: {', '.join(sorted(missing))}")
        progress = None
        if opts["book"]:
            progress = BookLoadProgress(total=book_size(*paths), started_at=time.time())
            statute_book_progress_record(progress)
        outcomes: Counter[str] = Counter()
        failed: list[tuple[str, str]] = []
        last_write = time.monotonic()
        texts = {line.record["sfs"]: line.record.get("text") or "" for line in lines if line.record is not None}
        # A statute a record updated keeps its text, so it is no work for the vector graph's plan.
        for number in statute_numbers_from_records(texts):
            del texts[number]
        with vector_graph_for_load(texts, self.stderr, sync=opts["sync"],
                                   keep=opts["keep_vector_index"]) as graph:
            for line in tqdm(lines, desc="Författningar", unit="st", disable=opts["no_progress"]):
                loaded = _Loaded(error=line.error) if line.record is None else self._load(line.record,
                                                                                           sync=opts["sync"])
                outcomes[loaded.outcome] += 1
                if loaded.error:
                    failed.append((line.number, loaded.error))
                    self.stderr.write(f"Hoppar över {line.number}: {loaded.error}")
                if progress is not None:
                    progress.done += 1
                    progress.changed, progress.failed = outcomes[LOADED], len(failed)
                    if time.monotonic() - last_write >= PROGRESS_EVERY_SECONDS:
                        statute_book_progress_record(progress)
                        last_write = time.monotonic()
        changed, kept = outcomes[LOADED], outcomes[KEPT_NEWER]
        vacuum_after_load(changed, sync=opts["sync"])
        if changed:  # the document priors follow the corpus (law 0003 and 0004 filled a database loaded before them)
            legal_document_priors_refresh()
        seconds = round(time.perf_counter() - started, 1)
        if progress is not None:
            progress.finished_at = time.time()
            statute_book_progress_record(progress)
        if opts["json"]:
            self.stdout.write(json.dumps({"statutes": len(lines), "changed": changed, "kept_newer": kept,
                                          "failed": len(failed),
                                          "seconds": seconds, "sync": opts["sync"],
                                          "vector_index": {"rebuilt": graph.plan.rebuild, "reason": graph.plan.reason,
                                                           "build_seconds": graph.build_seconds}}))
        else:
            self.stdout.write(f"{len(lines)} författningar lästa, {changed} nya eller ändrade"
                              + (f", {kept} behåller en nyare version från rättsdatabaserna" if kept else "")
                              + (f", {len(failed)} felaktiga." if failed else "."))
        if failed and len(failed) == len(lines):
            raise CommandError("ingen författning kunde läsas in")

    def _load(self, record: dict, *, sync: bool) -> _Loaded:
        """Load one record, or say why not (nothing of it kept)."""
        try:
            data = self._data(record)
            with transaction.atomic():
                if statute_record_version_kept(data.sfs_number, data.amended_through) is not None:
                    return _Loaded(KEPT_NEWER)
                upserted = legal_document_upsert(data, process=not sync)
                return _Loaded(LOADED if ingest_loaded(upserted.document, upserted.changed, sync=sync) else UNCHANGED)
        except ValidationError as exc:
            return _Loaded(error=validation_message(exc))
        except (ValueError, TypeError, KeyError, DatabaseError) as exc:
            return _Loaded(error=str(exc) or type(exc).__name__)

    @staticmethod
    def _wanted(opts: dict) -> set[str] | None:
        if opts["all"] or opts.get("book"):
            return None
        if opts["only"]:
            numbers = {s.strip().removeprefix("SFS ").strip() for s in opts["only"].split(",") if s.strip()}
            bad = [n for n in numbers if not SFS_NUMBER_RE.match(n)]
            if bad:
                raise CommandError(f"invalid SFS number(s): {', '.join(bad)} (expected e.g. 1977:1160)")
            return numbers
        return set(CORE_SFS)

    @staticmethod
    def _data(record: dict) -> LegalDocumentData:
        names = names_for(record["sfs"], record["title"])
        return LegalDocumentData(
            sfs_number=record["sfs"],
            title=record["title"],
            full_text=record.get("text") or "",
            content_type=record_content_type(record),
            # A name derived from a very long old title ("lagen om tillämpning av avtal den …") is no
            # name anyone cites by; it would not fit the field either.
            short_names=[name for name in names.short_names if len(name) <= SHORT_NAME_MAX_CHARS],
            abbreviations=list(names.abbreviations),
            category=record.get("category") or "",
            issued=parse_date(record.get("issued")),
            amended_through=record.get("amended_through") or "",
            in_force=record.get("in_force") or "",
            source=record.get("source") or "",
        )
