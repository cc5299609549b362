from django.apps import AppConfig


class ChunksConfig(AppConfig):
    name = "chunks"
    verbose_name = "Textavsnitt"
