"""Create the demo workspace and user `make run` prints a login for. Idempotent."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from compliance.models import Membership, Workspace
from compliance.services import membership_set, workspace_create

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "lagrum-demo"
DEMO_WORKSPACE = "Demoföretaget AB"


class Command(BaseCommand):
    help = "Create (or reset the password of) the demo user and its workspace."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--password", default=DEMO_PASSWORD)
        parser.add_argument("--superuser", action="store_true", default=True,
                            help="make the demo user a superuser so Django admin works (default)")

    def handle(self, *args: Any, **opts: Any) -> None:
        User = get_user_model()
        user, _ = User.objects.get_or_create(username=DEMO_USERNAME, defaults={"first_name": "Demo"})
        user.set_password(opts["password"])
        user.is_staff = user.is_superuser = bool(opts["superuser"])
        user.save()
        workspace = Workspace.objects.filter(slug="demo").first()
        if workspace is None:
            workspace = workspace_create(name=DEMO_WORKSPACE, owner=user, slug="demo")
        membership_set(workspace=workspace, user=user, role=Membership.Role.OWNER)
        self.stdout.write(self.style.SUCCESS(
            f"Demo login: användarnamn '{DEMO_USERNAME}', lösenord '{opts['password']}' (arbetsyta: {workspace.name})"
        ))
