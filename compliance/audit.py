"""What every audited app shares: who the actor of a change is, and which fields an entry tracks.

django-auditlog keeps one trail for the register (register/audit.py) and the glossary (glossary/audit.py); each app
registers its own models, and its services write inside `audit_actor(user)`, so an entry names its person whether the
change came from a page, the API (whose token authentication runs after any middleware), a task or the shell.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from auditlog.context import set_actor
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Model


def tracked_fields(model: type[Model]) -> list[str]:
    """The model's own columns: not its timestamps (they change on every save and say nothing the entry's
    own time does not), not reverse relations (a new item's empty list of kravpunkter is not a change)."""
    return [f.name for f in model._meta.concrete_fields if f.name not in ("created_at", "updated_at")]


@contextmanager
def audit_actor(user: AbstractBaseUser | AnonymousUser | None) -> Iterator[None]:
    """Record `user` as the actor of every audited change inside the block (None: the system)."""
    if user is not None and getattr(user, "is_authenticated", False):
        with set_actor(user):
            yield
    else:
        yield
