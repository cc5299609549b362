"""The register's pages, under /ws/<slug>/laglista/ (register/urls.py). Names start with "register_"."""

from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("", views.overview, name="register_overview"),
    path("skapa/", views.register_create, name="register_create"),
    path("poster/ny/", views.item_add, name="register_item_add"),
    path("poster/<int:item_id>/", views.item_detail, name="register_item"),
    path("poster/<int:item_id>/redigera/", views.item_edit, name="register_item_edit"),
    path("poster/<int:item_id>/status/", views.item_status, name="register_item_status"),
    path("poster/<int:item_id>/ta-bort/", views.item_remove, name="register_item_remove"),
    path("poster/<int:item_id>/historik/", views.item_history, name="register_item_history"),
    path("poster/<int:item_id>/kravpunkter/ny/", views.requirement_add, name="register_requirement_add"),
    path("poster/<int:item_id>/atgarder/ny/", views.action_create, name="register_action_create"),
    path("kravpunkter/<int:requirement_id>/", views.requirement_edit, name="register_requirement_edit"),
    path("kravpunkter/<int:requirement_id>/ta-bort/", views.requirement_delete, name="register_requirement_delete"),
    path("kravpunkter/<int:requirement_id>/bevis/ny/", views.evidence_add, name="register_evidence_add"),
    path("bevis/<int:evidence_id>/ta-bort/", views.evidence_remove, name="register_evidence_remove"),
    path("kontroller/", views.review_list, name="register_reviews"),
    path("kontroller/ny/", views.review_start, name="register_review_start"),
    path("kontroller/<int:review_id>/", views.review_detail, name="register_review"),
    path("kontroller/<int:review_id>/poster/<int:entry_id>/", views.review_entry_rate, name="register_review_rate"),
    path("kontroller/<int:review_id>/avsluta/", views.review_close, name="register_review_close"),
    path("atgarder/", views.action_list, name="register_actions"),
    path("atgarder/<int:action_id>/", views.action_update, name="register_action_update"),
]
