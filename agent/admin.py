from django.contrib import admin

from compliance.admin import WorkspaceScopedAdmin

from .models import Conversation, Feedback, Message, RetrievalLog


class MessageInline(admin.TabularInline):
    model = Message
    extra = 0
    fields = ("role", "content", "answer_mode", "degraded", "created_at")
    readonly_fields = fields


@admin.register(Conversation)
class ConversationAdmin(WorkspaceScopedAdmin):
    list_display = ("title", "workspace", "user", "updated_at")
    list_filter = ("workspace",)
    search_fields = ("title", "user__username")
    inlines = [MessageInline]


@admin.register(Feedback)
class FeedbackAdmin(WorkspaceScopedAdmin):
    workspace_lookup = "message__conversation__workspace"
    list_display = ("message", "user", "rating", "comment", "created_at")
    list_filter = ("rating",)


@admin.register(RetrievalLog)
class RetrievalLogAdmin(WorkspaceScopedAdmin):
    list_display = ("created_at", "workspace", "intent", "skipped", "cache_hit", "chunks_included",
                    "tokens_used", "zero_match", "degraded")
    list_filter = ("intent", "skipped", "cache_hit", "degraded", "zero_match", "workspace")
    readonly_fields = [f.name for f in RetrievalLog._meta.fields]
