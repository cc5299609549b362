"""Create an API token for a user from the command line; prints only the key (shown once)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from compliance.services import api_token_create


class Command(BaseCommand):
    help = "Create an API token for USERNAME and print its key. Only a hash is stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", default="kommandorad")

    def handle(self, *args: Any, **opts: Any) -> None:
        user = get_user_model().objects.filter(username=opts["username"]).first()
        if user is None:
            raise CommandError(f"no user named {opts['username']!r}")
        key = api_token_create(user=user, name=opts["name"]).key
        self.stdout.write(key)
