"""Write the project's compact copy of rättsdatabaser's records: data/sfs/rkrattsbaser-2026.jsonl.gz.

    manage.py extract_sfs_updates [--source ../shared/data/sfs/rkrattsbaser-2026.jsonl.gz]

Keeps the records `sync_sfs` uses from a fresh clone (the statutes of the bundled statute book, the curated
corpus and the rest of the book in force, and new statutes issued after its snapshot,
settings.SFS_CORPUS_SNAPSHOT) and of each only the fields the importer reads (`law.sfs_records.compact_record`), so the copy and the full record hash the same.
Same input, byte-identical output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from law.extract import DEFAULT_SOURCE, write_jsonl_gz
from law.sfs_corpus import read_corpus
from law.sfs_records import compact_record, parse_record, read_records


class Command(BaseCommand):
    help = "Skriv projektets kompakta kopia av rättsdatabasernas SFS-poster."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--source", default=str(DEFAULT_SOURCE / "sfs" / "rkrattsbaser-2026.jsonl.gz"))
        parser.add_argument("--corpus", default=str(settings.SFS_CORPUS_PATH))
        parser.add_argument("--book-file", default=str(settings.SFS_BOOK_PATH),
                            help="the rest of the statute book, which `make run` loads too")
        parser.add_argument("--out", default=str(Path(settings.BASE_DIR) / "data" / "sfs" / "rkrattsbaser-2026.jsonl.gz"))

    def handle(self, *args: Any, **opts: Any) -> None:
        bundled = {record["sfs"] for path in (opts["corpus"], opts["book_file"]) for record in read_corpus(Path(path))}
        kept = []
        for line in read_records(Path(opts["source"])):
            record = parse_record(line.record)
            new = record.issued is not None and record.issued > settings.SFS_CORPUS_SNAPSHOT
            if record.sfs in bundled or new:
                kept.append(compact_record(line.record))
        kept.sort(key=lambda r: tuple(int(p) for p in r["beteckning"].split(":")))
        write_jsonl_gz(Path(opts["out"]), kept)
        self.stdout.write(f"{len(kept)} poster skrivna till {opts['out']}")
