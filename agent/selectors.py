"""Reads for the chat. A conversation is visible only to its own user, in its own workspace."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from compliance.models import Workspace

from .models import Conversation, Message


def conversation_list(workspace: Workspace, user) -> QuerySet[Conversation]:
    return Conversation.objects.filter(workspace=workspace, user=user)


def conversation_get(workspace: Workspace, user, conversation_id) -> Conversation:
    try:
        return conversation_list(workspace, user).get(pk=int(conversation_id))
    except (Conversation.DoesNotExist, ValueError, TypeError):
        raise Http404("Konversationen finns inte.") from None


def message_get(conversation: Conversation, message_id) -> Message:
    try:
        return conversation.messages.get(pk=int(message_id))
    except (Message.DoesNotExist, ValueError, TypeError):
        raise Http404("Meddelandet finns inte.") from None


def conversation_get_in_workspace(workspace: Workspace, conversation_id) -> Conversation:
    """Any member's conversation in `workspace`: for its owners' review from the dashboard, never for chatting."""
    try:
        return Conversation.objects.select_related("user").get(workspace=workspace, pk=int(conversation_id))
    except (Conversation.DoesNotExist, ValueError, TypeError):
        raise Http404("Konversationen finns inte.") from None
