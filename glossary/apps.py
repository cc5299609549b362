from __future__ import annotations

from django.apps import AppConfig


class GlossaryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "glossary"
    verbose_name = "Ordlista"

    def ready(self) -> None:
        # The audit trail (django-auditlog, as the register's): who taught the assistant which word, and when.
        from . import audit  # noqa: F401
