"""Answering a message: the pre-model step, then the model (or the sources alone).

stream_answer() yields events for the browser and the API:
  {"event": "sources", "data": [citation rows]}   before any text
  {"event": "token",   "data": "text"}            as the answer is written
  {"event": "done",    "data": {message fields}}  after the answer is saved
The user's message is saved before anything can fail, and the assistant's
message is always saved, so nothing of the conversation is lost.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from agent.memory.profile import mention_sentence, proposals_for
from agent.memory.register_proposals import register_proposals_for
from agent.models import Conversation, Feedback, Message
from agent.monitoring.metrics import observe_model_error
from agent.monitoring.retrieval_logs import retrieval_log_save
from agent.retrieval.hybrid import RetrievalInputError, RetrievalOptions, retrieve_context
from compliance.clock import swedish_today
from compliance.errors import ApplicationError
from compliance.models import LegalDocument, Workspace
from compliance.text import strip_control

from . import llm
from .answer import CheckedCitations, check_citations, cited_numbers, extractive_answer
from .change_answers import change_answer
from .file_answers import file_answer
from .context_assembly import render_tool_sources
from .prepare import PreparedContext, PrepareOptions, prepare_context
from .register_answers import register_answer
from .statute_change_answers import statute_change_answer
from .prompts import GREETING_ANSWER, META_ANSWER, MODEL_FAILED_NOTICE, SEARCH_UNKNOWN_WORDS_LINE, quoted_words

log = logging.getLogger(__name__)

MAX_TOOL_ROUNDS = 2


class ChatInputError(ApplicationError):
    """A message or rating that cannot be accepted."""


def conversation_create(*, workspace: Workspace, user: AbstractBaseUser, title: str = "") -> Conversation:
    return Conversation.objects.create(workspace=workspace, user=user, title=title[:200])


def feedback_save(*, message: Message, user: AbstractBaseUser, rating: int, comment: str = "") -> Feedback:
    if rating not in (1, -1):
        raise ChatInputError("invalid", "Betyget måste vara tummen upp eller tummen ner.")
    feedback, _ = Feedback.objects.update_or_create(message=message, user=user,
                                                     defaults={"rating": rating, "comment": comment[:4000]})
    return feedback


def answer(conversation: Conversation, user: AbstractBaseUser, content: str) -> Message:
    final = None
    for event in stream_answer(conversation, user, content):
        if event["event"] == "done":
            final = event["data"]["message_id"]
    return Message.objects.get(pk=final)


def stream_answer(conversation: Conversation, user: AbstractBaseUser, content: str) -> Iterator[dict]:
    content = clean_message(content)
    history = [{"role": m.role, "content": m.content} for m in conversation.messages.order_by("created_at", "id")]
    _save_user_message(conversation, content)
    proposals = _proposals(content, conversation.workspace, user)
    previous = next((m["content"] for m in reversed(history) if m["role"] == "user"), "")
    direct = _direct_answer(content, conversation.workspace, previous=previous)
    if direct is not None:
        prepared = PreparedContext(messages=[], context_text="", citations=[], metrics={}, intent=direct.intent,
                                   skipped=True, proposals=proposals)
        yield {"event": "sources", "data": []}
        yield {"event": "token", "data": direct.text}
        yield _finish(conversation, prepared, direct.text, [], mode=Message.AnswerMode.DIRECT)
        return
    prepared = prepare_context([*history, {"role": "user", "content": content}], conversation.workspace, user,
                               PrepareOptions(context_window=_context_window()))
    prepared.proposals = proposals
    try:
        yield from _respond(conversation, user, content, prepared)
    finally:
        # The turn's log is saved with its answer in _finish; a stream abandoned before the answer (the browser
        # went away) or broken by an error still leaves its log, without a message.
        retrieval_log_save(prepared.log)


@dataclass(frozen=True)
class DirectAnswer:
    intent: str  # "changes", "files"
    text: str


def _direct_answer(content: str, workspace: Workspace, *, previous: str) -> DirectAnswer | None:
    """A question the product's own records answer before any retrieval, with or without a model: what changed in
    a named statute ("Vad har ändrats i arbetsmiljölagen?", its stored changes; `previous` makes "Och i LAS?" one),
    in the laglista's documents ("Vilka ändringar har vi inte bedömt?", its change notices), and which files the
    workspace has ("Vilka dokument har vi laddat upp?")."""
    today = swedish_today()
    changes = (statute_change_answer(content, today=today, previous=previous)
               or change_answer(content, workspace, today=today))
    if changes is not None:
        return DirectAnswer("changes", changes)
    files = file_answer(content, workspace)
    return DirectAnswer("files", files) if files is not None else None


def _respond(conversation: Conversation, user: AbstractBaseUser, content: str,
             prepared: PreparedContext) -> Iterator[dict]:
    citations = list(prepared.citations)
    yield {"event": "sources", "data": citations}

    if prepared.intent == "register":
        # From the register itself, with or without a model: every line is a row of the workspace's laglista.
        text = register_answer(conversation.workspace, user, content).text
        yield {"event": "token", "data": text}
        yield _finish(conversation, prepared, text, citations, mode=Message.AnswerMode.DIRECT)
        return
    if prepared.skipped:
        text = GREETING_ANSWER if prepared.intent == "greeting" else META_ANSWER
        yield {"event": "token", "data": text}
        yield _finish(conversation, prepared, text, citations, mode=Message.AnswerMode.DIRECT)
        return
    if prepared.notice:
        yield {"event": "notice", "data": prepared.notice}
    if not llm.model_configured():
        text = extractive_answer(citations, profile_note=mention_sentence(prepared.memory),
                                 unknown_words=prepared.unknown_words, corrections=prepared.corrections,
                                 glossary=prepared.glossary)
        yield {"event": "token", "data": text}
        yield _finish(conversation, prepared, text, citations, mode=Message.AnswerMode.EXTRACTIVE)
        return

    parts: list[str] = []
    try:
        for piece in _model_stream(prepared.messages, citations, conversation.workspace, user):
            parts.append(piece)
            yield {"event": "token", "data": piece}
    except llm.ModelError as exc:
        log.warning("chat model failed: %s", exc)
        observe_model_error()
        fallback = "\n\n" + extractive_answer(citations, lead=MODEL_FAILED_NOTICE,
                                                profile_note=mention_sentence(prepared.memory),
                                                unknown_words=prepared.unknown_words,
                                                corrections=prepared.corrections, glossary=prepared.glossary)
        yield {"event": "error", "data": MODEL_FAILED_NOTICE}
        yield {"event": "token", "data": fallback}
        yield _finish(conversation, prepared, "".join(parts) + fallback, citations, mode=Message.AnswerMode.ERROR,
                      error=str(exc))
        return
    yield _finish(conversation, prepared, "".join(parts), citations, mode=Message.AnswerMode.MODEL)


def _model_stream(messages: list[dict], citations: list[dict], workspace: Workspace,
                  user: AbstractBaseUser) -> Iterator[str]:
    """Stream the model's answer, running its search tool calls in between (additive sources)."""
    messages = list(messages)
    for _round in range(MAX_TOOL_ROUNDS + 1):
        calls: list[llm.ToolCall] = []
        tools = [llm.SEARCH_TOOL] if _round < MAX_TOOL_ROUNDS else None
        for item in llm.stream_chat(messages, tools=tools):
            if isinstance(item, llm.ToolCall):
                calls.append(item)
            else:
                yield item
        if not calls:
            return
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": _json(c.arguments)}}
            for c in calls]})
        for call in calls:
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": _run_search_tool(call, citations, workspace, user)})


def _run_search_tool(call: llm.ToolCall, citations: list[dict], workspace: Workspace, user: AbstractBaseUser) -> str:
    if call.name != "search_knowledge_base":
        return "Okänt verktyg."
    args = call.arguments
    options = RetrievalOptions(
        source_types=[s for s in args.get("source_types") or [] if s in ("LEGAL_DOCUMENT", "USER_FILE", "ASSESSMENT")],
        sfs_numbers=[str(s) for s in args.get("sfs") or []][:10],
        content_types=[t for t in args.get("content_types") or [] if t in LegalDocument.ContentType.values], top_k=5)
    try:
        result = retrieve_context(str(args.get("query") or ""), workspace, user=user, options=options)
    except RetrievalInputError as exc:
        return exc.message
    except Exception:
        log.exception("search tool failed")
        return "Sökningen misslyckades."
    known = {c["chunk_id"]: c["n"] for c in citations}
    numbered = []
    for chunk in result.chunks:
        n = known.get(chunk.chunk_id)
        if n is None:
            n = len(citations) + 1
            citations.append({"n": n, "chunk_id": chunk.chunk_id, "header": chunk.header, "citation": chunk.citation,
                              "document_number": chunk.document_number, "document_title": chunk.document_title,
                              "source_type": chunk.source_type, "source_id": chunk.source_id, "page": chunk.page,
                              "content_type": chunk.content_type, "kind": chunk.kind,
                              "text": chunk.text[:1200], "truncated": False})
            known[chunk.chunk_id] = n
        numbered.append((n, chunk))
    # Raw chunk text would let a source forge a boundary: the same assembly as the context.
    found = render_tool_sources(numbered) if numbered else "Inga träffar."
    if not result.unknown_words:
        return found
    words = quoted_words(result.unknown_words, result.corrections)
    return f"{SEARCH_UNKNOWN_WORDS_LINE.format(words=words)}\n\n{found}"


def _finish(conversation: Conversation, prepared: PreparedContext, text: str, citations: list[dict], *, mode: str,
            error: str = "") -> dict:
    valid = {c["n"] for c in citations}
    checked = check_citations(text, valid) if mode != Message.AnswerMode.DIRECT else CheckedCitations(text, [])
    cleaned, removed = checked.text, checked.removed
    if mode != Message.AnswerMode.DIRECT:
        prepared.proposals = prepared.proposals + _register_offers(cleaned, citations, conversation)
    with transaction.atomic():
        message = Message.objects.create(
            conversation=conversation, role=Message.Role.ASSISTANT, content=cleaned, answer_mode=mode,
            sources=citations, removed_citations=removed, degraded=prepared.degraded or bool(error),
            error=error[:2000], model_name=settings.CHAT_MODEL if mode == Message.AnswerMode.MODEL else "",
            proposals=prepared.proposals, unknown_words=prepared.words_not_found, glossary=prepared.glossary,
        )
        Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now())
    retrieval_log_save(prepared.log, message=message, answer_mode=mode)
    return {"event": "done", "data": {
        "message_id": message.pk, "content": cleaned, "answer_mode": mode, "removed_citations": removed,
        "degraded": message.degraded, "notice": prepared.notice, "sources": citations,
        "proposals": message.proposals, "unknown_words": message.unknown_words, "glossary": message.glossary,
    }}


def _proposals(content: str, workspace: Workspace, user: AbstractBaseUser) -> list[dict]:
    try:
        return proposals_for(content, workspace, user)
    except Exception:  # a proposal is an offer; failing to make one must not cost the answer
        log.exception("detecting profile facts failed")
        return []


def _register_offers(text: str, citations: list[dict], conversation: Conversation) -> list[dict]:
    """Offers to put the legal documents the answer cites on the laglista (agent.memory.register_proposals)."""
    by_n = {c["n"]: c for c in citations}
    cited = [by_n[n] for n in cited_numbers(text) if n in by_n]
    documents = [(c["source_id"], c["document_number"]) for c in cited
                 if c.get("source_type") == "LEGAL_DOCUMENT" and c.get("document_number")]
    try:
        return register_proposals_for(documents, conversation.workspace, conversation.user)
    except Exception:  # an offer; failing to make one must not cost the answer
        log.exception("offering register items failed")
        return []


def _save_user_message(conversation: Conversation, content: str) -> Message:
    message = Message.objects.create(conversation=conversation, role=Message.Role.USER, content=content)
    if not conversation.title:
        conversation.title = content[:80]
        conversation.save(update_fields=["title", "updated_at"])
    return message


def clean_message(content: object) -> str:
    if not isinstance(content, str) or not content.strip():
        raise ChatInputError("invalid", "Meddelandet är tomt. Skriv en fråga.")
    content = strip_control(content, "").strip()
    limit = settings.CHAT_MESSAGE_MAX_CHARS
    if len(content) > limit:
        raise ChatInputError("invalid", f"Meddelandet är för långt (högst {limit} tecken).")
    return content


def sse_event(event: str, data: object) -> str:
    """One server-sent event, as the browser chat and the API's `?stream=true` send them."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def _context_window() -> int | None:
    return settings.CHAT_CONTEXT_WINDOW if llm.model_configured() else None


def _json(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)
