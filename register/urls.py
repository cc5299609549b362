"""The register's pages under /ws/<slug>/laglista/: each concern's routes in its own module."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("", include("register.pages.urls")),
    path("", include("register.suggestion_urls")),
    path("", include("register.transfer.urls")),
]
