"""The glossary's REST routes under /api/v1/workspaces/<slug>/glossary/ (included by name from compliance/api/urls.py)."""

from __future__ import annotations

from django.urls import path

from . import api

glossary = "workspaces/<slug:slug>/glossary/"

urlpatterns = [
    path(glossary, api.TermListApi.as_view(), name="api-glossary"),
    path(glossary + "<int:term_id>/", api.TermDetailApi.as_view(), name="api-glossary-term"),
    path(glossary + "export/<str:fmt>", api.TermExportApi.as_view(), name="api-glossary-export"),
    path(glossary + "import/", api.TermImportApi.as_view(), name="api-glossary-import"),
]
