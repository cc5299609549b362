from django.contrib import admin

from .models import ContentChunk


@admin.register(ContentChunk)
class ContentChunkAdmin(admin.ModelAdmin):
    list_display = ("header", "source_type", "workspace", "citation", "token_count", "embedding_model")
    list_filter = ("source_type", "embedding_model", "workspace", "kind")
    search_fields = ("header", "document_number", "citation")
    readonly_fields = [f.name for f in ContentChunk._meta.fields if f.name != "id"]
    list_select_related = ("workspace",)
    show_full_result_count = False

    def has_add_permission(self, request):
        return False  # chunks are made by processing, never by hand
