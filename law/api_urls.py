"""The statute book's routes under /api/v1/ (included by name from compliance/api/urls.py)."""

from __future__ import annotations

from django.urls import path

from . import api

urlpatterns = [
    path("statutes/<sfs:sfs>/changes/", api.StatuteChangesApi.as_view(), name="api-statute-changes"),
]
