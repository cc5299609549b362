"""Routes of the suggestions and templates pages, under /ws/<slug>/laglista/."""

from __future__ import annotations

from django.urls import path

from . import suggestion_views as views

urlpatterns = [
    path("forslag/", views.suggestions, name="register_suggestions"),
    path("forslag/acceptera/", views.suggestion_accept, name="register_suggestion_accept"),
    path("forslag/avvisa/", views.suggestion_reject, name="register_suggestion_reject"),
    path("forslag/avvisade/<int:decision_id>/aterstall/", views.suggestion_restore,
         name="register_suggestion_restore"),
    path("mallar/", views.templates, name="register_templates"),
    path("mallar/<slug:template_slug>/", views.template_apply, name="register_template_apply"),
]
