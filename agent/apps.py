from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class AgentConfig(AppConfig):
    name = "agent"
    verbose_name = "Assistent"

    def ready(self) -> None:
        # Not at the top: models exist only once the app registry is ready.
        from compliance.models import Membership, Workspace

        from .monitoring.dashboard import rollup_after_workspace_delete
        from .retrieval.workspace_names import workspace_names_invalidate

        post_delete.connect(rollup_after_workspace_delete, sender=Workspace, dispatch_uid="rollup-workspace-delete")
        for model in (Workspace, Membership):
            name = model._meta.model_name
            post_save.connect(workspace_names_invalidate, sender=model, dispatch_uid=f"workspace-names-save-{name}")
            post_delete.connect(workspace_names_invalidate, sender=model,
                                dispatch_uid=f"workspace-names-delete-{name}")
