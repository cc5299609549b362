from django.apps import AppConfig

from compliance.processing import processor_register


class ChunksConfig(AppConfig):
    name = "chunks"
    verbose_name = "Textavsnitt"

    def ready(self) -> None:
        # Not at the top: tasks import models, which exist only once the app registry is ready.
        from .tasks import enqueue_processing

        processor_register(enqueue_processing)
