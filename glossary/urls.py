"""The glossary's pages under /ws/<slug>/ordlista/ (included from compliance/urls.py)."""

from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("", views.term_list, name="glossary_list"),
    path("ny/", views.term_add, name="glossary_add"),
    path("<int:term_id>/", views.term_edit, name="glossary_edit"),
    path("<int:term_id>/ta-bort/", views.term_delete, name="glossary_delete"),
    path("exportera.<str:fmt>", views.term_export, name="glossary_export"),
    path("importera/", views.term_import, name="glossary_import"),
]
