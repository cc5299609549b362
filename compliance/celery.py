"""The Celery app. Tasks live in each app's tasks.py and stay thin."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")

app = Celery("lagrum")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
