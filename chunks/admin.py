from __future__ import annotations

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from compliance.selectors import workspace_list_for_user

from .models import ContentChunk


@admin.register(ContentChunk)
class ContentChunkAdmin(admin.ModelAdmin):
    list_display = ("header", "source_type", "workspace", "citation", "token_count", "embedding_model")
    list_filter = ("source_type", "embedding_model", "workspace", "kind")
    search_fields = ("header", "document_number", "citation")
    readonly_fields = [f.name for f in ContentChunk._meta.fields if f.name != "id"]
    list_select_related = ("workspace",)
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # chunks are made by processing, never by hand

    def get_queryset(self, request: HttpRequest) -> QuerySet[ContentChunk]:
        # Shared statutes' chunks, plus the chunks of the workspaces the staff member belongs to
        # (superusers, who operate the service, see all): the rule of compliance.admin.WorkspaceScopedAdmin.
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        return qs.filter(Q(workspace__isnull=True) | Q(workspace__in=workspace_list_for_user(request.user).values("pk")))
