from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, register_converter

from . import memory_views, monitoring, views
from .login_throttling import LoginView
from .numbers import document_slug, is_document_number, number_from_slug


class DocumentNumberConverter:
    """A legal document's number in its URL form (compliance.numbers): "1977:1160" as it is (old links
    keep working), "AFS_2023:1", "EU_2016-679". A number typed with its space ("AFS%202023:1") works too."""

    regex = r"[^/]+"

    def to_python(self, value: str) -> str:
        number = number_from_slug(value)
        if not is_document_number(number):
            raise ValueError(value)  # no such page: a 404 from the resolver
        return number

    def to_url(self, value: str) -> str:
        return document_slug(value)


register_converter(DocumentNumberConverter, "sfs")

# A request refused before any view (a form body over DATA_UPLOAD_MAX_MEMORY_SIZE): a Swedish error page.
handler400 = "compliance.middleware.bad_request"

urlpatterns = [
    path("", views.home, name="home"),
    path("logga-in/", LoginView.as_view(), name="login"),
    path("logga-ut/", auth_views.LogoutView.as_view(), name="logout"),
    path("ws/<slug:slug>/", views.workspace, name="workspace"),
    path("ws/<slug:slug>/delning/", views.workspace_sharing, name="workspace_sharing"),
    path("ws/<slug:slug>/kunskapsbas/", views.knowledge, name="knowledge"),
    path("ws/<slug:slug>/kunskapsbas/status/", views.knowledge_status, name="knowledge_status"),
    path("ws/<slug:slug>/kunskapsbas/synka/", views.knowledge_sync, name="knowledge_sync"),
    path("ws/<slug:slug>/kunskapsbas/rensa/", views.knowledge_clear, name="knowledge_clear"),
    path("ws/<slug:slug>/filer/ladda-upp/", views.file_upload, name="file_upload"),
    path("ws/<slug:slug>/filer/<int:file_id>/", views.file_detail, name="file_detail"),
    path("ws/<slug:slug>/filer/<int:file_id>/ladda-ner/", views.file_download, name="file_download"),
    path("ws/<slug:slug>/filer/<int:file_id>/ta-bort/", views.file_delete, name="file_delete"),
    path("ws/<slug:slug>/filer/<int:file_id>/ersatt/", views.file_replace, name="file_replace"),
    path("ws/<slug:slug>/filer/<int:file_id>/aterstall/", views.file_version_restore, name="file_version_restore"),
    path("ws/<slug:slug>/bedomningar/ny/", views.assessment_create, name="assessment_create"),
    path("ws/<slug:slug>/bedomningar/<int:assessment_id>/", views.assessment_edit, name="assessment_edit"),
    path("ws/<slug:slug>/bedomningar/<int:assessment_id>/ta-bort/", views.assessment_delete,
         name="assessment_delete"),
    path("ws/<slug:slug>/installningar/", memory_views.workspace_settings, name="workspace_settings"),
    path("ws/<slug:slug>/installningar/profil/", memory_views.profile_save, name="profile_save"),
    path("ws/<slug:slug>/installningar/mina/", memory_views.preferences_save, name="preferences_save"),
    path("ws/<slug:slug>/installningar/uppgifter/", memory_views.fact_add, name="profile_fact_add"),
    path("ws/<slug:slug>/installningar/uppgifter/<int:fact_id>/ta-bort/", memory_views.fact_delete,
         name="profile_fact_delete"),
    path("ws/<slug:slug>/installningar/falt/<str:field>/ta-bort/", memory_views.profile_field_clear,
         name="profile_field_clear"),
    path("ws/<slug:slug>/installningar/rensa/<str:kind>/", memory_views.profile_clear, name="profile_clear"),
    # Statutes and regulations are shared. Both /lag/1977:1160 (what source links use) and /lag/1977:1160/ work;
    # a regulation's page is /lag/AFS_2023:1, the GDPR's /lag/EU_2016-679.
    path("lag/", views.statute_list, name="statute_list"),
    path("lag/<sfs:sfs>", views.statute_detail, name="statute"),
    path("lag/<sfs:sfs>/", views.statute_detail, name="statute_slash"),
    path("metrics", monitoring.metrics, name="metrics"),
    path("api/v1/", include("compliance.api.urls")),
    path("ws/<slug:slug>/laglista/", include("register.urls")),
    path("ws/<slug:slug>/lagandringar/", include("register.notices.urls")),
    path("ws/<slug:slug>/ordlista/", include("glossary.urls")),
    path("", include("agent.urls")),
    path("admin/", admin.site.urls),
]
