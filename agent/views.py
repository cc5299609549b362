"""The chat pages. Thin: selectors read, agent.answering.chat answers."""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Set as AbstractSet

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from compliance.errors import ApplicationError
from compliance.models import Workspace
from compliance.selectors import membership_get_by_slug, workspace_get_for_user
from glossary.selectors import words_taught
from glossary.services import MAX_SUGGESTED_CITATIONS

from .answering import chat
from .answering.answer import cited_numbers
from .answering.chat import sse_event
from .answering.llm import model_configured
from .answering.rendering import answer_html, source_kind_css, source_kind_label, source_official, source_url
from .memory import profile as memory
from .models import Conversation, Message
from .retrieval.glossary_checks import glossary_citation
from .selectors import conversation_get, conversation_list, message_get, message_list, message_sources_current


def _teach_citations(sources: list[dict]) -> list[str]:
    cited = (glossary_citation(s.get("document_number") or "", s.get("citation") or "", s.get("document_title") or "")
             for s in sources if s.get("source_type") == "LEGAL_DOCUMENT")
    return list(dict.fromkeys(c for c in cited if c))[:MAX_SUGGESTED_CITATIONS]


def _message_view(message: Message, workspace_slug: str, user: AbstractBaseUser,
                  taught: AbstractSet[str] = frozenset()) -> dict:
    """What the message template shows. `taught`: those of the answers' words no source used that the
    workspace's glossary explains now (words_taught), so an old answer says the word has been taught since."""
    valid = {s["n"] for s in message.sources}
    cited = set(cited_numbers(message.content))
    sources = [{**s, "url": source_url(s, workspace_slug), "kind": source_kind_label(s),
                "kind_css": source_kind_css(s), "cited": s["n"] in cited,
                "official": source_official(s),
                "also": [{**a, "url": source_url(a, workspace_slug)} for a in s.get("also_sources") or []]}
               for s in message.sources]
    # Cited sources first: they are what the answer rests on.
    sources.sort(key=lambda s: (not s["cited"], s["n"]))
    feedback = next((f for f in message.feedback.all() if f.user_id == user.pk), None)
    return {"message": message, "html": answer_html(message.content, message.pk, valid), "sources": sources,
            "feedback": feedback, "uncited_count": sum(1 for s in sources if not s["cited"]),
            "unknown_words": [{"word": w, "taught": w in taught} for w in message.unknown_words],
            # An editor taught a word from here may say where the law says it: the answer's statute units, offered
            # on the Ordlista form as law words that cite them (the cited sources first).
            "teach_citations": _teach_citations(sources) if set(message.unknown_words) - taught else [],
            # Pairs, not the dict: a template's lookup would read a term named "items" as the dict's key.
            "glossary": list(message.glossary.items())}


def _message_views(messages: list[Message], workspace: Workspace, user: AbstractBaseUser) -> list[dict]:
    # One look-up in the glossary for every word of the page's answers.
    taught = words_taught(workspace, sorted({w for m in messages for w in m.unknown_words}))
    return [_message_view(m, workspace.slug, user, taught) for m in messages]


def _chat_page(request: HttpRequest, slug: str, conversation: Conversation | None = None) -> HttpResponse:
    membership = membership_get_by_slug(request.user, slug)
    ws = membership.workspace
    messages = []
    if conversation is not None:
        messages = _message_views(message_list(conversation), ws, request.user)
    return render(request, "agent/chat.html", {
        "workspace": ws, "membership": membership, "nav": "chat", "conversation": conversation,
        "conversations": conversation_list(ws, request.user)[:50], "chat_messages": messages,
        "model_configured": model_configured(), "message_max_chars": settings.CHAT_MESSAGE_MAX_CHARS,
    })


@login_required
@require_GET
def chat_home(request: HttpRequest, slug: str) -> HttpResponse:
    return _chat_page(request, slug)


@login_required
@require_GET
def conversation_detail(request: HttpRequest, slug: str, conversation_id: int) -> HttpResponse:
    ws = workspace_get_for_user(request.user, slug)
    return _chat_page(request, slug, conversation_get(ws, request.user, conversation_id))


@login_required
@require_POST
def conversation_new(request: HttpRequest, slug: str) -> HttpResponse:
    ws = workspace_get_for_user(request.user, slug)
    conversation = chat.conversation_create(workspace=ws, user=request.user)
    if "application/json" in request.headers.get("Accept", ""):
        # The chat page starts a conversation and streams its first answer without a reload.
        return JsonResponse({
            "id": conversation.pk,
            "url": reverse("conversation", args=[ws.slug, conversation.pk]),
            "stream_url": reverse("message_stream", args=[ws.slug, conversation.pk]),
            "message_base": reverse("message_stream", args=[ws.slug, conversation.pk]),
        })
    return redirect("conversation", slug=ws.slug, conversation_id=conversation.pk)


@login_required
@require_POST
def message_stream(request: HttpRequest, slug: str, conversation_id: int) -> StreamingHttpResponse:
    ws = workspace_get_for_user(request.user, slug)
    conversation = conversation_get(ws, request.user, conversation_id)
    content = request.POST.get("content", "")
    try:
        chat.clean_message(content)
    except ApplicationError as exc:
        return StreamingHttpResponse(iter([sse_event("error", exc.message),
                                           sse_event("done", {"message_id": None})]),
                                     content_type="text/event-stream", status=400)
    user = request.user

    def events() -> Iterator[str]:
        for event in chat.stream_answer(conversation, user, content):
            yield sse_event(event["event"], event["data"])

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # let proxies pass tokens through as they come
    return response


@login_required
@require_GET
def message_detail(request: HttpRequest, slug: str, conversation_id: int, message_id: int) -> HttpResponse:
    membership = membership_get_by_slug(request.user, slug)
    ws = membership.workspace
    message = message_get(conversation_get(ws, request.user, conversation_id), message_id)
    message_sources_current([message])
    return render(request, "agent/_message.html", {"m": _message_views([message], ws, request.user)[0],
                                                    "workspace": ws, "membership": membership,
                                                    "conversation": message.conversation})


@login_required
@require_POST
def message_feedback(request: HttpRequest, slug: str, conversation_id: int, message_id: int) -> HttpResponse:
    ws = workspace_get_for_user(request.user, slug)
    conversation = conversation_get(ws, request.user, conversation_id)
    message = message_get(conversation, message_id)
    rating = request.POST.get("rating", "0")
    try:
        chat.feedback_save(message=message, user=request.user, rating=int(rating) if rating.lstrip("-").isdigit() else 0,
                           comment=request.POST.get("comment", ""))
        error = ""
    except ApplicationError as exc:
        error = exc.message
    message = message_get(conversation, message_id)
    message_sources_current([message])
    return render(request, "agent/_feedback.html", {"m": _message_view(message, ws.slug, request.user),
                                                     "workspace": ws, "conversation": conversation, "error": error},
                  status=400 if error else 200)


@login_required
@require_POST
def message_proposal(request: HttpRequest, slug: str, conversation_id: int, message_id: int,
                     index: int) -> HttpResponse:
    """"Spara" or "Nej tack" on a fact the assistant offered to remember."""
    ws = workspace_get_for_user(request.user, slug)
    conversation = conversation_get(ws, request.user, conversation_id)
    message = message_get(conversation, message_id)
    error, status = "", 200
    try:
        memory.proposal_decide(message=message, index=index, user=request.user,
                               save=request.POST.get("decision") == "spara")
    except ApplicationError as exc:
        error, status = exc.message, exc.status
    message = message_get(conversation, message_id)
    if not request.htmx:
        return redirect("conversation", slug=ws.slug, conversation_id=conversation.pk)
    return render(request, "agent/_proposals.html", {"m": {"message": message}, "workspace": ws,
                                                      "conversation": conversation, "error": error},
                  status=status)
