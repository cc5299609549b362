from django.urls import path

from . import views
from .monitoring import views as dashboard_views

urlpatterns = [
    path("ws/<slug:slug>/chatt/", views.chat_home, name="chat"),
    path("ws/<slug:slug>/chatt/ny/", views.conversation_new, name="conversation_new"),
    path("ws/<slug:slug>/chatt/<int:conversation_id>/", views.conversation_detail, name="conversation"),
    path("ws/<slug:slug>/chatt/<int:conversation_id>/meddelanden/", views.message_stream, name="message_stream"),
    path("ws/<slug:slug>/chatt/<int:conversation_id>/meddelanden/<int:message_id>/", views.message_detail,
         name="message_detail"),
    path("ws/<slug:slug>/chatt/<int:conversation_id>/meddelanden/<int:message_id>/omdome/",
         views.message_feedback, name="message_feedback"),
    path("ws/<slug:slug>/chatt/<int:conversation_id>/meddelanden/<int:message_id>/forslag/<int:index>/",
         views.message_proposal, name="message_proposal"),
    path("ws/<slug:slug>/oversikt/", dashboard_views.workspace_dashboard, name="dashboard"),
    path("ws/<slug:slug>/oversikt/samtal/<int:conversation_id>/", dashboard_views.dashboard_conversation,
         name="dashboard_conversation"),
    path("oversikt/", dashboard_views.staff_dashboard, name="staff_dashboard"),
]
