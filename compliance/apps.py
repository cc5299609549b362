from __future__ import annotations

from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class ComplianceConfig(AppConfig):
    name = "compliance"
    verbose_name = "Regelefterlevnad"

    def ready(self) -> None:
        # Not at the top: models exist only once the app registry is ready.
        from .models import PersonalPreference, ProfileFact, WorkspaceProfile
        from .services import memory_changed

        for model in (WorkspaceProfile, ProfileFact, PersonalPreference):
            name = model._meta.model_name
            post_save.connect(memory_changed, sender=model, dispatch_uid=f"memory-save-{name}")
            post_delete.connect(memory_changed, sender=model, dispatch_uid=f"memory-delete-{name}")
