"""/api/v1/: the shared routes (schema, docs, tokens) and compliance's own, then each app's routes
(chunks/api_urls.py, register/api_urls.py, glossary/api_urls.py, agent/api_urls.py, included by name like any
Django app's urls), then a JSON 404 in the error shape for every unknown path under it."""

from __future__ import annotations

from csp.decorators import csp_update
from django.urls import include, path, re_path
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import views
from .errors import not_found_view

ws = "workspaces/<slug:slug>/"

# Swagger UI comes from its CDN; its start-up script is a separate request (the split view),
# so the docs need the CDN in the policy but nothing inline.
SWAGGER_ORIGIN = "/".join(spectacular_settings.SWAGGER_UI_DIST.split("/")[:3])
api_docs = csp_update({"script-src": [SWAGGER_ORIGIN], "style-src": [SWAGGER_ORIGIN], "img-src": [SWAGGER_ORIGIN]})(
    SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/swagger_ui.html")
)

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", api_docs, name="api-docs"),
    path("tokens/", views.TokenListApi.as_view(), name="api-tokens"),
    path("tokens/<int:token_id>/", views.TokenDetailApi.as_view(), name="api-token"),
    path("statutes/", views.StatuteListApi.as_view(), name="api-statutes"),
    path("workspaces/", views.WorkspaceListApi.as_view(), name="api-workspaces"),
    path(ws, views.WorkspaceDetailApi.as_view(), name="api-workspace"),
    path(ws + "knowledge/clear", views.KnowledgeClearApi.as_view(), name="api-knowledge-clear"),
    path(ws + "members/", views.MemberListApi.as_view(), name="api-members"),
    path(ws + "members/<int:member_id>/", views.MemberDetailApi.as_view(), name="api-member"),
    path(ws + "files/", views.FileListApi.as_view(), name="api-files"),
    path(ws + "files/<int:file_id>/", views.FileDetailApi.as_view(), name="api-file"),
    path(ws + "files/<int:file_id>/download/", views.FileDownloadApi.as_view(), name="api-file-download"),
    path(ws + "files/<int:file_id>/versions/", views.FileVersionListApi.as_view(), name="api-file-versions"),
    path(ws + "files/<int:file_id>/versions/<int:number>/download/", views.FileVersionDownloadApi.as_view(),
         name="api-file-version-download"),
    path(ws + "files/<int:file_id>/versions/<int:number>/restore", views.FileVersionRestoreApi.as_view(),
         name="api-file-version-restore"),
    path(ws + "assessments/", views.AssessmentListApi.as_view(), name="api-assessments"),
    path(ws + "assessments/<int:assessment_id>/", views.AssessmentDetailApi.as_view(), name="api-assessment"),
    path("", include("chunks.api_urls")),
    path("", include("law.api_urls")),
    path("", include("register.api_urls")),
    path("", include("glossary.api_urls")),
    path("", include("agent.api_urls")),
    re_path(r"^.*$", not_found_view),
]
