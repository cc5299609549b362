"""The register's audit trail: who changed what, when, before and after.

django-auditlog records every save and delete of the register's models as a `LogEntry` with the changed
fields' old and new values. Chosen over django-simple-history because one table holds the whole trail:
each entry carries the workspace and item it belongs to (the models' `get_additional_data`), so an item's
history, with its kravpunkter, evidence, review ratings and actions, and an auditor's view of a workspace's
trail are one indexed query each, instead of a union over a history table per model.

Services write inside `compliance.audit.audit_actor(user)`, so an entry names its person whether the change came
from a page, the API (whose token authentication runs after any middleware), a task or the shell.
"""

from __future__ import annotations

from auditlog.registry import auditlog

from compliance.audit import tracked_fields

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


for _model in (LegalRegister, RegisterGroup, RegisterItem, Requirement, Evidence, Action, SuggestionDecision):
    auditlog.register(_model, include_fields=tracked_fields(_model))
auditlog.register(Review, include_fields=[*tracked_fields(Review), "groups"], m2m_fields={"groups"})
auditlog.register(ReviewEntry, include_fields=[*tracked_fields(ReviewEntry), "evidence"], m2m_fields={"evidence"})
# Lagbevakning: a notice's arrival and answer, and the impact assessment itself, in the item's trail (reading
# is each member's own, `NoticeRead`, not the item's history).
auditlog.register(ChangeNotice, include_fields=["kind", "legal_document", "version", "repeal", "item",
                                                "answered_at"])
auditlog.register(ImpactAssessment, include_fields=tracked_fields(ImpactAssessment))
