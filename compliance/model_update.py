"""One way to update a model instance from validated data: compare, set, save only what changed."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import models

M = TypeVar("M", bound=models.Model)


@dataclass(frozen=True)
class ModelUpdate(Generic[M]):
    instance: M
    updated_fields: tuple[str, ...]

    @property
    def has_updated(self) -> bool:
        return bool(self.updated_fields)


def model_update(instance: M, *, fields: Iterable[str], data: Mapping[str, Any]) -> ModelUpdate[M]:
    """Set each of `fields` present in `data` that differs, validate, and save just those fields.

    Only the named fields may change, whatever else `data` holds, so a caller passing a request's data
    cannot set a field it did not mean to. Nothing is written when nothing differs (no audit entry, no
    `updated_at` bump)."""
    changed: list[str] = []
    for field in fields:
        if field not in data:
            continue
        value = data[field]
        model_field = instance._meta.get_field(field)
        attname = model_field.attname
        current = getattr(instance, attname)
        # A foreign key may come as an instance or as its id; compare by id.
        new = value.pk if isinstance(value, models.Model) else value
        if current != new:
            setattr(instance, field if isinstance(value, models.Model) else attname, value)
            changed.append(field)
    if changed:
        instance.full_clean(exclude=[f.name for f in instance._meta.fields if f.name not in changed])
        auto_now = [f.name for f in instance._meta.fields if getattr(f, "auto_now", False)]
        instance.save(update_fields=[*changed, *auto_now])
    return ModelUpdate(instance=instance, updated_fields=tuple(changed))
