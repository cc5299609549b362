"""Ingestion's routes under /api/v1/ (included by compliance/api/urls.py)."""

from django.urls import path

from . import api

ws = "workspaces/<slug:slug>/"

urlpatterns = [
    path("statutes/<sfs:sfs>/", api.StatuteDetailApi.as_view(), name="api-statute"),
    path(ws + "stats/", api.WorkspaceStatsApi.as_view(), name="api-workspace-stats"),
]
