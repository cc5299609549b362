"""The register's audit trail: who changed what, when, before and after.

django-auditlog records every save and delete of the register's models as a `LogEntry` with the changed
fields' old and new values. Chosen over django-simple-history because one table holds the whole trail:
each entry carries the workspace and item it belongs to (the models' `get_additional_data`), so an item's
history, with its kravpunkter, evidence, review ratings and actions, and an auditor's view of a workspace's
trail are one indexed query each, instead of a union over a history table per model.

Services write inside `audit_actor(user)`, so an entry names its person whether the change came from a
page, the API (whose token authentication runs after any middleware), a task or the shell.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from auditlog.context import set_actor
from auditlog.registry import auditlog
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Model

from .models import (
    Action,
    ChangeNotice,
    Evidence,
    ImpactAssessment,
    LegalRegister,
    RegisterGroup,
    RegisterItem,
    Requirement,
    Review,
    ReviewEntry,
    SuggestionDecision,
)


def _tracked(model: type[Model]) -> list[str]:
    """The model's own columns: not its timestamps (they change on every save and say nothing the entry's
    own time does not), not reverse relations (a new item's empty list of kravpunkter is not a change)."""
    return [f.name for f in model._meta.concrete_fields if f.name not in ("created_at", "updated_at")]


for _model in (LegalRegister, RegisterGroup, RegisterItem, Requirement, Evidence, Action, SuggestionDecision):
    auditlog.register(_model, include_fields=_tracked(_model))
auditlog.register(Review, include_fields=[*_tracked(Review), "groups"], m2m_fields={"groups"})
auditlog.register(ReviewEntry, include_fields=[*_tracked(ReviewEntry), "evidence"], m2m_fields={"evidence"})
# Lagbevakning: a notice's arrival and answer, and the impact assessment itself, in the item's trail (reading
# is each member's own, `NoticeRead`, not the item's history).
auditlog.register(ChangeNotice, include_fields=["kind", "legal_document", "version", "repeal", "item",
                                                "answered_at"])
auditlog.register(ImpactAssessment, include_fields=_tracked(ImpactAssessment))


@contextmanager
def audit_actor(user: AbstractBaseUser | AnonymousUser | None) -> Iterator[None]:
    """Record `user` as the actor of every audited change inside the block (None: the system)."""
    if user is not None and getattr(user, "is_authenticated", False):
        with set_actor(user):
            yield
    else:
        yield
