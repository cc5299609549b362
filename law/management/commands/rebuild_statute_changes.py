"""Compare every applied statute version again with the one before it, and replace the changed units where
today's diff reads them otherwise; then count and name the units again on the unanswered notices of those versions.

    manage.py rebuild_statute_changes [--sfs NUMBER …] [--file RECORDS.jsonl.gz]

The diff now reads a § an amending act marks to end ("/Upphör att gälla U:…/") as a repeal on that day, a § given a
coming wording as that § amended, and a chapter's new rubrik as no change of its §§. Versions applied before that
stored such a § as repealed at once, undated, and its coming wording as a new §. Run once after upgrading; running
it again changes nothing. Answered notices are left as they were answered.

The records are not kept, so the acts' notes a version was applied with are read again only from `--file`, the
file it was synced from (matched by record hash): a version applied before the diff read the notes' renumbering
("nuvarande 3 kap. 7 § betecknas 3 kap. 2 §") is read with it only then.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from compliance.models import LegalDocument
from law.services import statute_changes_rebuild
from law.sfs_records import records_by_hash
from register.notices.services import notices_refresh_units


class Command(BaseCommand):
    help = "Read the applied statute versions' changed units again, and the unanswered notices of those that differ."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--sfs", action="append", default=None, metavar="NUMBER",
                            help="only this statute (may be given several times)")
        parser.add_argument("--file", type=Path, default=None,
                            help="the records file the versions were synced from: their acts' notes are read again")

    def handle(self, *args: Any, sfs: list[str] | None, file: Path | None, **opts: Any) -> None:
        if sfs:
            missing = sorted(set(sfs) - set(LegalDocument.objects.filter(sfs_number__in=sfs)
                                             .values_list("sfs_number", flat=True)))
            if missing:
                raise CommandError(f"Författningen finns inte: {', '.join(missing)}.")
        if file is not None and not file.exists():
            raise CommandError(f"Filen finns inte: {file}.")
        result = statute_changes_rebuild(sfs_numbers=sfs, records=records_by_hash(file) if file else None)
        notices = notices_refresh_units(version_ids=result.rewritten)
        self.stdout.write(f"{result.versions} versioner jämförda, {len(result.rewritten)} lästa om "
                          f"({result.before} → {result.after} ändrade enheter); {notices} obesvarade lagändringar "
                          "räknade om.")
