"""The register's REST routes under /api/v1/workspaces/<slug>/register/ (included by name from compliance/api/urls.py)."""

urlpatterns: list = []
