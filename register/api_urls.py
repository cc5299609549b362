"""The register's REST routes under /api/v1/workspaces/<slug>/register/ (included by name from compliance/api/urls.py)."""

from __future__ import annotations

from django.urls import path

from . import api
from .notices import api as notices_api

reg = "workspaces/<slug:slug>/register/"

urlpatterns = [
    path(reg + "history/", api.RegisterHistoryApi.as_view(), name="api-register-history"),
    path(reg + "registers/", api.RegisterListApi.as_view(), name="api-registers"),
    path(reg + "registers/<int:register_id>/", api.RegisterDetailApi.as_view(), name="api-register"),
    path(reg + "registers/<int:register_id>/groups/", api.GroupListApi.as_view(), name="api-register-groups"),
    path(reg + "registers/<int:register_id>/export/<str:fmt>", api.RegisterExportApi.as_view(),
         name="api-register-export"),
    path(reg + "registers/<int:register_id>/import", api.RegisterImportApi.as_view(), name="api-register-import"),
    path(reg + "registers/<int:register_id>/import/confirm", api.RegisterImportConfirmApi.as_view(),
         name="api-register-import-confirm"),
    path(reg + "items/", api.ItemListApi.as_view(), name="api-register-items"),
    path(reg + "items/<int:item_id>/", api.ItemDetailApi.as_view(), name="api-register-item"),
    path(reg + "items/<int:item_id>/history/", api.ItemHistoryApi.as_view(), name="api-register-item-history"),
    path(reg + "items/<int:item_id>/requirements/", api.RequirementListApi.as_view(),
         name="api-register-requirements"),
    path(reg + "requirements/<int:requirement_id>/", api.RequirementDetailApi.as_view(),
         name="api-register-requirement"),
    path(reg + "requirements/<int:requirement_id>/evidence/", api.EvidenceListApi.as_view(),
         name="api-register-evidence-list"),
    path(reg + "evidence/<int:evidence_id>/", api.EvidenceDetailApi.as_view(), name="api-register-evidence"),
    path(reg + "reviews/", api.ReviewListApi.as_view(), name="api-register-reviews"),
    path(reg + "reviews/<int:review_id>/", api.ReviewDetailApi.as_view(), name="api-register-review"),
    path(reg + "reviews/<int:review_id>/entries/", api.ReviewEntryListApi.as_view(),
         name="api-register-review-entries"),
    path(reg + "reviews/<int:review_id>/entries/<int:entry_id>/rate", api.ReviewEntryRateApi.as_view(),
         name="api-register-review-rate"),
    path(reg + "reviews/<int:review_id>/close", api.ReviewCloseApi.as_view(), name="api-register-review-close"),
    path(reg + "reviews/<int:review_id>/export/<str:fmt>", api.ReviewExportApi.as_view(),
         name="api-register-review-export"),
    path(reg + "actions/", api.ActionListApi.as_view(), name="api-register-actions"),
    path(reg + "actions/<int:action_id>/", api.ActionDetailApi.as_view(), name="api-register-action"),
    path(reg + "notices/", notices_api.NoticeListApi.as_view(), name="api-notices"),
    path(reg + "notices/count/", notices_api.NoticeCountApi.as_view(), name="api-notice-count"),
    path(reg + "notices/report/<str:fmt>", notices_api.NoticeReportApi.as_view(), name="api-notice-report"),
    path(reg + "notices/coming/", notices_api.NoticeComingApi.as_view(), name="api-notice-coming"),
    path(reg + "notices/<int:notice_id>/", notices_api.NoticeDetailApi.as_view(), name="api-notice"),
    path(reg + "notices/<int:notice_id>/answer/", notices_api.NoticeAnswerApi.as_view(), name="api-notice-answer"),
    path(reg + "notices/<int:notice_id>/read/", notices_api.NoticeReadApi.as_view(), name="api-notice-read"),
]
