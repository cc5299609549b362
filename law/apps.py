from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class LawConfig(AppConfig):
    name = "law"
    verbose_name = "Författningar"

    def ready(self) -> None:
        # Not at the top: models exist only once the app registry is ready.
        from compliance.models import LegalDocument

        from .statute_directory import statute_directory_invalidate

        post_save.connect(statute_directory_invalidate, sender=LegalDocument, dispatch_uid="statute-dir-save")
        post_delete.connect(statute_directory_invalidate, sender=LegalDocument, dispatch_uid="statute-dir-delete")
