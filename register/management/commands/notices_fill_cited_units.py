"""Name, on the unanswered amendment notices, the changed units the workspaces' kravpunkter cite.

    manage.py notices_fill_cited_units [--workspace SLUG …]

Notices made before `ChangeNotice.cited_units` existed hold an empty list, so their pages, digests and API say
nothing of a kravpunkt whose § points into the change. Run once after upgrading; running it again changes nothing.
Answered notices are left as they were answered.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from compliance.models import Workspace
from register.notices.services import notices_fill_cited_units


class Command(BaseCommand):
    help = "Name the changed units the kravpunkter cite on the unanswered amendment notices."

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
        changed = notices_fill_cited_units(workspace_ids=ids)
        self.stdout.write(f"{changed} lagändringar fick hänvisade enheter.")
