from __future__ import annotations

from django.apps import AppConfig


class RegisterConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "register"
    verbose_name = "Laglista"

    def ready(self) -> None:
        # The audit trail: every model of the register is registered with django-auditlog here.
        from . import audit  # noqa: F401
        # Lagbevakning's Celery tasks live in register.notices; autodiscovery looks only at register.tasks.
        from .notices import tasks  # noqa: F401
