"""Reads for the chat. A conversation is visible only to its own user, in its own workspace."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import QuerySet
from django.http import Http404

from compliance.models import Assessment, UserFile, Workspace

from .models import Conversation, Message

REMOVED_SOURCE = "Källan har tagits bort."


def conversation_list(workspace: Workspace, user: AbstractBaseUser) -> QuerySet[Conversation]:
    return Conversation.objects.filter(workspace=workspace, user=user)


def conversation_get(workspace: Workspace, user: AbstractBaseUser, conversation_id: int) -> Conversation:
    try:
        return conversation_list(workspace, user).get(pk=int(conversation_id))
    except (Conversation.DoesNotExist, ValueError, TypeError):
        raise Http404("Konversationen finns inte.") from None


def message_get(conversation: Conversation, message_id: int) -> Message:
    try:
        return conversation.messages.get(pk=int(message_id))
    except (Message.DoesNotExist, ValueError, TypeError):
        raise Http404("Meddelandet finns inte.") from None


def message_list(conversation: Conversation) -> list[Message]:
    """The conversation's messages in order, their sources as they may be shown today."""
    messages = list(conversation.messages.prefetch_related("feedback").order_by("created_at", "id"))
    message_sources_current(messages)
    return messages


def message_sources_current(messages: list[Message]) -> None:
    """Blank the sources of old answers whose file was deleted or made private, or whose
    assessment is gone: a saved answer must not keep showing what nobody may read any more.

    Two queries for any number of messages; statutes are shared and never removed.
    """
    wanted: dict[str, set[int]] = {"USER_FILE": set(), "ASSESSMENT": set()}
    for message in messages:
        for source in message.sources or []:
            for one in (source, *(source.get("also_sources") or [])):
                if one.get("source_type") in wanted and isinstance(one.get("source_id"), int):
                    wanted[one["source_type"]].add(one["source_id"])
    live = {
        "USER_FILE": set(UserFile.objects.alive().filter(pk__in=wanted["USER_FILE"], is_private=False)
                         .values_list("pk", flat=True)) if wanted["USER_FILE"] else set(),
        "ASSESSMENT": set(Assessment.objects.alive().filter(pk__in=wanted["ASSESSMENT"]).values_list("pk", flat=True))
        if wanted["ASSESSMENT"] else set(),
    }
    def gone(source: dict) -> bool:
        return source.get("source_type") in live and source.get("source_id") not in live[source["source_type"]]

    for message in messages:
        message.sources = [
            _removed(source) if gone(source) else _without_gone_duplicates(source, gone)
            for source in message.sources or []
        ]


def _without_gone_duplicates(source: dict, gone: Callable[[dict], bool]) -> dict:
    also = source.get("also_sources")
    if not also:
        return source
    return {**source, "also_sources": [a for a in also if not gone(a)]}


def _removed(source: dict) -> dict:
    kept = {k: source[k] for k in ("n", "chunk_id", "source_type", "source_id", "kind") if k in source}
    return {**kept, "removed": True, "header": REMOVED_SOURCE, "document_title": REMOVED_SOURCE, "text": "",
            "citation": "", "document_number": "", "page": None}


def conversation_get_in_workspace(workspace: Workspace, conversation_id: int) -> Conversation:
    """Any member's conversation in `workspace`: for its owners' review from the dashboard, never for chatting."""
    try:
        return Conversation.objects.select_related("user").get(workspace=workspace, pk=int(conversation_id))
    except (Conversation.DoesNotExist, ValueError, TypeError):
        raise Http404("Konversationen finns inte.") from None
