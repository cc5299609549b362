"""The agent's routes under /api/v1/ (included by compliance/api/urls.py): search, context,
conversations and feedback (answering), profile, preferences and proposals (memory), metrics (monitoring)."""

from django.urls import path

from .answering import api as answering_api
from .memory import api as memory_api
from .monitoring import api as monitoring_api

ws = "workspaces/<slug:slug>/"

urlpatterns = [
    path(ws + "metrics", monitoring_api.WorkspaceMetricsApi.as_view(), name="api-workspace-metrics"),
    path(ws + "search", answering_api.SearchApi.as_view(), name="api-search"),
    path(ws + "context", answering_api.ContextApi.as_view(), name="api-context"),
    path(ws + "conversations/", answering_api.ConversationListApi.as_view(), name="api-conversations"),
    path(ws + "conversations/<int:conversation_id>/", answering_api.ConversationDetailApi.as_view(),
         name="api-conversation"),
    path(ws + "conversations/<int:conversation_id>/messages", answering_api.MessageCreateApi.as_view(),
         name="api-messages"),
    path(ws + "conversations/<int:conversation_id>/messages/<int:message_id>/feedback",
         answering_api.FeedbackApi.as_view(), name="api-feedback"),
    path(ws + "profile", memory_api.ProfileApi.as_view(), name="api-profile"),
    path(ws + "profile/facts", memory_api.ProfileFactListApi.as_view(), name="api-profile-facts"),
    path(ws + "profile/facts/<int:fact_id>", memory_api.ProfileFactDetailApi.as_view(), name="api-profile-fact"),
    path(ws + "preferences", memory_api.PreferenceApi.as_view(), name="api-preferences"),
    path(ws + "conversations/<int:conversation_id>/messages/<int:message_id>/proposals/<int:index>",
         memory_api.ProposalApi.as_view(), name="api-proposal"),
]
