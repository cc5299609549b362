"""The register's REST routes under /api/v1/workspaces/<slug>/register/ (included by name from compliance/api/urls.py)."""

from django.urls import path

from . import notices_api

ws = "workspaces/<slug:slug>/register/"

urlpatterns: list = [
    path(ws + "notices/", notices_api.NoticeListApi.as_view(), name="api-notices"),
    path(ws + "notices/count/", notices_api.NoticeCountApi.as_view(), name="api-notice-count"),
    path(ws + "notices/<int:notice_id>/", notices_api.NoticeDetailApi.as_view(), name="api-notice"),
    path(ws + "notices/<int:notice_id>/answer/", notices_api.NoticeAnswerApi.as_view(), name="api-notice-answer"),
]
