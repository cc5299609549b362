"""Fill, on the unanswered notices, what notices made by an older version of Lagrum lack.

    manage.py notices_fill [--workspace SLUG …]

Notices made before `ChangeNotice.cited_units` existed hold an empty list, so their pages, digests and API say
nothing of a kravpunkt whose § points into the change; notices of a law the laglista leaves out made before
`ChangeNotice.leaning_documents` existed say "andra författningar" where they should name the listed documents that
bring the law. Run once after upgrading; running it again changes nothing. Answered notices are left as they were
answered.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from compliance.models import Workspace
from register.notices.services import notices_fill_cited_units, notices_fill_leaning_documents


class Command(BaseCommand):
    help = ("Name, on the unanswered notices, the changed units the kravpunkter cite and the listed documents that "
            "bring a law the laglista leaves out.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", action="append", default=[], metavar="SLUG",
                            help="only this workspace (may be given several times)")

    def handle(self, *args: Any, workspace: list[str], **opts: Any) -> None:
        ids = None
        if workspace:
            found = dict(Workspace.objects.filter(slug__in=workspace).values_list("slug", "pk"))
            missing = sorted(set(workspace) - set(found))
            if missing:
                raise CommandError(f"Arbetsytan finns inte: {', '.join(missing)}.")
            ids = list(found.values())
        cited = notices_fill_cited_units(workspace_ids=ids)
        leaning = notices_fill_leaning_documents(workspace_ids=ids)
        self.stdout.write(f"{cited} lagändringar fick hänvisade enheter; {leaning} notiser om författningar utanför "
                          "laglistan fick de dokument på listan som hänvisar till dem.")
