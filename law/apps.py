from django.apps import AppConfig


class LawConfig(AppConfig):
    name = "law"
    verbose_name = "Författningar"
