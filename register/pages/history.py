"""The audit trail as people read it: who, when, which field (its Swedish verbose name), before → after.

django-auditlog stores each change as strings (a foreign key as its id, a choice as its value); this turns
them into what the pages show: a member's name, a group's name, a document's number, a choice's label,
"ja"/"nej". A private file's title is shown only to those who may see private files (an auditor sees
"Privat fil"), wherever the trail would name it: the file field, an entry's label, a review's evidence.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from datetime import timezone as dt_timezone
from typing import Any

from auditlog.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.exceptions import FieldDoesNotExist
from django.db.models import Model
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from compliance.models import Assessment, LegalDocument, UserFile, Workspace

from ..models import RegisterGroup, ReviewEntry

PRIVATE_LABEL = "Privat fil"
ACTION_LABELS = {LogEntry.Action.CREATE: "skapade", LogEntry.Action.UPDATE: "ändrade",
                 LogEntry.Action.DELETE: "tog bort", LogEntry.Action.ACCESS: "läste"}
# Structural columns every new row sets, and who made it (the entry's actor says so): saying "arbetsyta: – → 7" tells a reader nothing.
HIDDEN_FIELDS = {"id", "workspace", "register", "item", "requirement", "review", "position", "origin",
                 "frozen_version_id", "created_by", "added_by", "started_by"}
EMPTY = "–"
MAX_VALUE_LENGTH = 300


@dataclass(frozen=True)
class FieldChange:
    label: str
    before: str
    after: str


@dataclass(frozen=True)
class HistoryRow:
    timestamp: datetime
    actor: str
    action: str
    what: str
    label: str
    changes: list[FieldChange] = field(default_factory=list)


def _user_name(user: User) -> str:
    return user.get_full_name() or user.get_username()


class _Lookup:
    """Names for the ids a page of entries mentions, read in one query per kind."""

    def __init__(self, entries: list[LogEntry], workspace: Workspace, may_see_private: bool) -> None:
        ids: dict[type, set[int]] = {}
        for entry in entries:
            model = entry.content_type.model_class()
            for name, values in (entry.changes_dict or {}).items():
                related = _related_model(model, name)
                if related is None or not isinstance(values, list):
                    continue
                for value in values:
                    if value not in (None, "None", "") and str(value).isdigit():
                        ids.setdefault(related, set()).add(int(value))
        user_model = get_user_model()
        self.names: dict[type, dict[int, str]] = {}
        for related, pks in ids.items():
            if related is user_model:
                self.names[related] = {u.pk: _user_name(u) for u in user_model.objects.filter(pk__in=pks)}
            elif related is RegisterGroup:
                self.names[related] = dict(RegisterGroup.objects.filter(
                    pk__in=pks, register__workspace=workspace).values_list("pk", "name"))
            elif related is LegalDocument:
                self.names[related] = dict(LegalDocument.objects.filter(pk__in=pks).values_list("pk", "sfs_number"))
            elif related is ReviewEntry:
                self.names[related] = {e.pk: e.review.title for e in ReviewEntry.objects.filter(
                    pk__in=pks, review__workspace=workspace).select_related("review")}
            elif related is Assessment:
                self.names[related] = dict(Assessment.objects.filter(pk__in=pks, workspace=workspace)
                                           .values_list("pk", "title"))
            elif related is UserFile:
                self.names[related] = {
                    f.pk: PRIVATE_LABEL if f.is_private and not may_see_private else str(f)
                    for f in UserFile.objects.filter(pk__in=pks, workspace=workspace)}
        # Titles of the workspace's private files: an entry's label or a review's evidence list may carry one.
        self.private_titles = set() if may_see_private else {
            str(f) for f in UserFile.objects.filter(workspace=workspace, is_private=True)}

    def name(self, related: type, value: Any) -> str:
        if value in (None, "None", ""):
            return EMPTY
        return self.names.get(related, {}).get(int(value), f"#{value}") if str(value).isdigit() else str(value)

    def redact(self, text: str) -> str:
        return PRIVATE_LABEL if text in self.private_titles else text


def _related_model(model: type[Model], name: str) -> type[Model] | None:
    try:
        model_field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return None
    return model_field.related_model if model_field.many_to_one or model_field.one_to_one else None


def _value(model: type[Model], name: str, value: Any, lookup: _Lookup) -> str:
    if value is None or value == "None" or value == "":
        return EMPTY
    try:
        model_field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return str(value)[:MAX_VALUE_LENGTH]
    if model_field.many_to_one or model_field.one_to_one:
        return lookup.name(model_field.related_model, value)
    if model_field.choices:
        return str(dict(model_field.flatchoices).get(value, value))
    if model_field.get_internal_type() == "BooleanField":
        return {"True": "ja", "False": "nej"}.get(str(value), str(value))
    if model_field.get_internal_type() == "DateTimeField":
        # Stored as UTC text: shown on the Stockholm clock, like the entry's own time.
        moment = parse_datetime(str(value))
        if moment is None:
            return str(value)[:16]
        if timezone.is_naive(moment):
            moment = timezone.make_aware(moment, dt_timezone.utc)
        return timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")
    text = str(value)
    return text if len(text) <= MAX_VALUE_LENGTH else text[:MAX_VALUE_LENGTH] + " …"


def _label(model: type[Model], name: str) -> str:
    try:
        return str(model._meta.get_field(name).verbose_name)
    except FieldDoesNotExist:
        return name


def history_rows(entries: Iterable[LogEntry], *, workspace: Workspace, may_see_private: bool) -> list[HistoryRow]:
    entries = list(entries)
    lookup = _Lookup(entries, workspace, may_see_private)
    rows = []
    for entry in entries:
        model = entry.content_type.model_class()
        changes = []
        for name, values in (entry.changes_dict or {}).items():
            if name in HIDDEN_FIELDS or name.startswith("frozen_"):
                continue
            if isinstance(values, dict) and values.get("type") == "m2m":
                objects = ", ".join(lookup.redact(str(o)) for o in values.get("objects", [])) or EMPTY
                added = values.get("operation") == "add"
                changes.append(FieldChange(label=_label(model, name), before=EMPTY if added else objects,
                                           after=objects if added else EMPTY))
                continue
            if not isinstance(values, list) or len(values) != 2:
                continue
            before, after = (_value(model, name, v, lookup) for v in values)
            if before != after:
                changes.append(FieldChange(label=_label(model, name), before=before, after=after))
        if entry.action == LogEntry.Action.UPDATE and not changes:
            continue  # only hidden columns changed (e.g. the frozen copy written on closing)
        rows.append(HistoryRow(
            timestamp=entry.timestamp,
            actor=_user_name(entry.actor) if entry.actor_id else "systemet",
            action=ACTION_LABELS.get(entry.action, ""),
            what=str(model._meta.verbose_name) if model is not None else "",
            label=lookup.redact(entry.object_repr),
            changes=changes,
        ))
    return rows
