"""Load the bundled Swedish statutes. Idempotent: unchanged texts are skipped."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from compliance.models import SFS_NUMBER_RE
from compliance.services import LegalDocumentData, legal_document_upsert
from law.sfs_corpus import CORE_SFS, content_type_for, parse_date, read_corpus
from law.statute_names import names_for

from ._loading import ingest_loaded, vacuum_after_load


class Command(BaseCommand):
    help = "Load statutes from the bundled SFS corpus (default: the compliance core set)."

    def add_arguments(self, parser):
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--only", help="comma-separated SFS numbers, e.g. 1977:1160,1982:80")
        group.add_argument("--all", action="store_true", help="all statutes in the corpus")
        parser.add_argument("--corpus", default=str(settings.SFS_CORPUS_PATH))
        parser.add_argument("--sync", action="store_true",
                            help="chunk in this process instead of on the Celery worker (embedding still queued)")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        wanted = self._wanted(opts)
        records = [r for r in read_corpus(Path(opts["corpus"]))
                   if wanted is None or r["sfs"] in wanted]
        if wanted is not None:
            missing = wanted - {r["sfs"] for r in records}
            if missing:
                raise CommandError(f"not in the corpus: {', '.join(sorted(missing))}")
        changed = 0
        for record in tqdm(records, desc="Författningar", unit="st", disable=opts["no_progress"]):
            doc, was_changed = legal_document_upsert(self._data(record), process=not opts["sync"])
            changed += ingest_loaded(doc, was_changed, sync=opts["sync"])
        vacuum_after_load(changed, sync=opts["sync"])
        self.stdout.write(f"{len(records)} författningar lästa, {changed} nya eller ändrade.")

    @staticmethod
    def _wanted(opts) -> set[str] | None:
        if opts["all"]:
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
            full_text=record["text"],
            content_type=content_type_for(record["title"]),
            short_names=list(names.short_names),
            abbreviations=list(names.abbreviations),
            category=record.get("category") or "",
            issued=parse_date(record.get("issued")),
            amended_through=record.get("amended_through") or "",
            in_force=record.get("in_force") or "",
            source=record.get("source") or "",
        )
