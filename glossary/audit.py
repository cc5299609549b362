"""The glossary's audit trail: django-auditlog records every save and delete of a term (who, when, before and
after), in the one table the register's trail uses (register/audit.py); each entry carries its workspace
(`Term.get_additional_data`). Services write inside `compliance.audit.audit_actor(user)`."""

from __future__ import annotations

from auditlog.registry import auditlog

from compliance.audit import tracked_fields

from .models import Term

auditlog.register(Term, include_fields=tracked_fields(Term))
