"""Lagbevakning's pages under /ws/<slug>/lagandringar/ (included from compliance/urls.py)."""

from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("", views.notice_list, name="notice_list"),
    path("<int:notice_id>/", views.notice_detail, name="notice_detail"),
    path("<int:notice_id>/bedom/", views.notice_answer, name="notice_answer"),
    path("<int:notice_id>/olast/", views.notice_unread, name="notice_unread"),
    path("<int:notice_id>/sammanfatta/", views.notice_summary, name="notice_summary"),
    path("e-post/", views.subscription_save, name="notice_subscription_save"),
    path("rapport/<str:fmt>/", views.notice_report, name="notice_report"),
]
