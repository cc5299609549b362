"""The pre-model step: decide whether to retrieve, retrieve (or reuse), assemble.

prepare_context() never raises into the chat: if anything in retrieval fails,
the turn goes ahead without sources and is marked degraded. Every turn builds a
RetrievalLog; the caller saves it (the chat with the answer it produced, in one
INSERT after the answer, the context API at once).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from cachetools import LRUCache
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import DatabaseError
from django.http import Http404

from agent.memory.profile import Memory, memory_cached, profile_lines_cached
from agent.models import RetrievalLog
from agent.monitoring.metrics import observe_turn
from agent.retrieval.cache import get_retrieval_cache, retrieval_cache_key
from agent.retrieval.context_additions import block_sources
from agent.retrieval.dating import date_sources
from agent.retrieval.hybrid import RetrievalInputError, RetrievalOptions, retrieve_context
from agent.retrieval.query_analysis import QueryAnalysis
from agent.retrieval.question_scope import label_workspaces, question_scope
from agent.retrieval.sources import RetrievedChunk
from chunks.tokens import count_tokens
from compliance.clock import swedish_today
from compliance.models import Workspace
from compliance.selectors import AccessScope, access_scope_for, workspace_versions

from .context_assembly import (
    AssembledContext,
    AssemblyOptions,
    assemble_context,
    budget_for,
    context_message,
    profile_overhead,
    register_overhead,
    with_fresh_boundary,
)
from .intent import classify
from .prompts import SYSTEM_PROMPT
from .register_answers import register_has_documents
from .register_context import REGISTER_TOKEN_BUDGET, RegisterStatus, register_status

log = logging.getLogger(__name__)

# Answered without retrieval: small talk, questions about the assistant, and questions about the register
# (agent.answering.register_answers reads the register itself).
SKIP_INTENTS = ("greeting", "meta", "register")
MAX_HISTORY_MESSAGES = 10
MAX_LOGGED_WORDS = 20  # of a question's words no source uses, kept in its log (a pasted text may have hundreds)


@dataclass
class PrepareOptions:
    retrieval: RetrievalOptions = field(default_factory=RetrievalOptions)
    context_window: int | None = None  # the chat model's, when known
    use_cache: bool = True
    system_prompt: str = SYSTEM_PROMPT


@dataclass
class PreparedContext:
    messages: list[dict]  # ready for the chat model
    context_text: str
    citations: list[dict]  # the citation map: [n] -> source
    metrics: dict
    intent: str
    skipped: bool
    degraded: bool = False
    notice: str = ""  # Swedish, for the user when degraded
    assembled: AssembledContext | None = None
    # The turn's log, built but not saved: the caller saves it once, with the answer's message when there is one
    # (agent.monitoring.retrieval_logs.retrieval_log_save), so the write is not part of the pre-model step.
    log: RetrievalLog | None = None
    memory: Memory = field(default_factory=Memory)  # the profile and preferences the context carries
    proposals: list[dict] = field(default_factory=list)  # facts the message stated, offered for saving
    unknown_words: list[str] = field(default_factory=list)  # the question's words no source uses
    # those searched as a statute word instead (a slip, or typed without diacritics): RetrievalResult.corrections
    corrections: dict[str, str] = field(default_factory=dict)
    # the terms of the workspace's glossary the question used, word -> the law's words searched too
    glossary: dict[str, str] = field(default_factory=dict)

    @property
    def words_not_found(self) -> list[str]:
        return words_not_found(self.unknown_words, self.corrections)


def words_not_found(unknown_words: Sequence[str], corrections: Mapping[str, str]) -> list[str]:
    """The words the knowledge base lacks: the question's words no source uses, less those searched as a statute
    word instead (a slip, `corrections`). The dashboard's list and an answer's offer to teach a word are of these;
    at most MAX_LOGGED_WORDS, as a pasted text may have hundreds."""
    return [word for word in unknown_words if word not in corrections][:MAX_LOGGED_WORDS]


def prepare_context(messages: list[dict], workspace: Workspace, user: AbstractBaseUser,
                    options: PrepareOptions | None = None) -> PreparedContext:
    options = options or PrepareOptions()
    timings: dict[str, float] = {}
    question, history = _split(messages)

    started = t0 = time.perf_counter()
    intent = classify(question)
    timings["intent"] = _ms(t0)
    conversation = _conversation(messages)
    # What the log records about the turn beyond the metrics; filled as the steps run.
    facts: dict = {"intent_confidence": intent.confidence}
    if intent.intent in SKIP_INTENTS:
        prepared = _build(options, conversation, None, intent.intent, skipped=True, timings=timings)
        prepared.log = _turn_log(workspace, user, question, prepared, cache_hit=False, facts=facts)
        return prepared

    t0 = time.perf_counter()
    memory = _memory(workspace, user)
    profile = profile_lines_cached(memory, max(0, settings.PROFILE_TOKEN_BUDGET - profile_overhead()))
    timings["profile"] = _ms(t0)

    retrieved, error = Retrieved(), ""
    try:
        retrieved = _retrieve(question, history, workspace, user, options, timings, facts, memory.fingerprint)
    except RetrievalInputError as exc:
        retrieved.notice = exc.message
    except Exception as exc:  # retrieval must never block an answer
        log.exception("retrieval failed; answering without sources")
        error = f"{type(exc).__name__}: {exc}"
        retrieved = Retrieved(degraded=True,
                              notice="Sökningen i källorna misslyckades; svaret bygger inte på några källor.")

    facts["unknown_words"] = words_not_found(retrieved.unknown_words, retrieved.corrections)
    facts["glossary_words"] = list(retrieved.glossary)[:MAX_LOGGED_WORDS]
    t0 = time.perf_counter()
    register_ids = _register_workspaces(workspace, user, retrieved.scope)
    assembly = AssemblyOptions(context_window=options.context_window,
                               system_prompt_tokens=_prompt_tokens(options.system_prompt),
                               conversation_tokens=sum(count_tokens(m["content"]) for m in conversation),
                               profile_tokens=(settings.PROFILE_TOKEN_BUDGET if profile else 0)
                               + (REGISTER_TOKEN_BUDGET if register_ids else 0))
    assembled = _assemble(retrieved.chunks, assembly)
    timings["assemble"] = _ms(t0)
    t0 = time.perf_counter()
    status = _register_status(assembled, register_ids)
    timings["register"] = _ms(t0)
    prepared = _build(options, conversation, assembled, intent.intent, skipped=False, timings=timings,
                      profile=profile, register=status, unknown_words=retrieved.unknown_words,
                      corrections=retrieved.corrections, glossary=retrieved.glossary)
    prepared.degraded, prepared.notice, prepared.memory = retrieved.degraded, retrieved.notice, memory
    prepared.metrics.update(cache_hit=retrieved.cache_hit, degraded=retrieved.degraded, zero_match=not retrieved.chunks)
    _warn_if_slow(_ms(started), timings, question)
    prepared.log = _turn_log(workspace, user, question, prepared, cache_hit=retrieved.cache_hit, error=error,
                             facts=facts)
    return prepared


def _warn_if_slow(elapsed_ms: float, timings: dict, question: str) -> None:
    """The whole step against its budget: a slow analysis or assembly matters as much as slow SQL."""
    if elapsed_ms <= settings.PREPARE_SLOW_MS:
        return
    log.warning("pre-model step %.1f ms over its %d ms budget (%s) for %r", elapsed_ms, settings.PREPARE_SLOW_MS,
                timings, question[:80], extra={"prepare_ms": elapsed_ms, "prepare_budget_ms": settings.PREPARE_SLOW_MS})


# The last assembled blocks, by chunk ids and budget. A cache hit returns the very same chunks
# (a chunk id's text never changes: re-chunking makes new ids), so the block is the same too.
_assembly_memo: LRUCache = LRUCache(maxsize=64)
_assembly_lock = threading.Lock()


def _assemble(chunks: list[RetrievedChunk], assembly: AssemblyOptions) -> AssembledContext:
    if not chunks:
        return assemble_context(chunks, assembly)
    # The date label and the workspace label are part of a chunk's block (the same chunk is
    # labelled in another workspace's chat).
    key = (tuple((c.chunk_id, c.score, c.reference_match, c.workspace_name, c.date_label) for c in chunks),
           budget_for(assembly), assembly.encoding)
    with _assembly_lock:
        assembled = _assembly_memo.get(key)
    if assembled is None:
        assembled = assemble_context(chunks, assembly)
        with _assembly_lock:
            _assembly_memo[key] = assembled
    # A memoised block is reused, its boundary token never: each request gets its own.
    return with_fresh_boundary(assembled)


def _register_workspaces(workspace: Workspace, user: AbstractBaseUser, scope: AccessScope | None) -> tuple[int, ...]:
    """The workspaces whose laglista the context may quote: the user's access scope in this workspace (not
    the other workspaces a question names), and only when a register there holds a legal document.

    `scope`: the turn's scope as retrieval decided it, so the member's role is not read a second time;
    None when retrieval did not get that far, and the selector decides here."""
    try:
        if scope is None:
            scope = access_scope_for(user, workspace)
        ids = (scope.workspace_id,)
        return ids if register_has_documents(ids) else ()
    except Http404:
        return ()
    except DatabaseError:  # the register's status refines an answer; failing to read it must not block one
        log.exception("could not read the register; answering without its status")
        return ()


def _register_status(assembled: AssembledContext, workspace_ids: tuple[int, ...]) -> RegisterStatus:
    if not workspace_ids or not assembled.citations:
        return RegisterStatus()
    try:
        return register_status(assembled.citations, workspace_ids,
                               budget=max(0, REGISTER_TOKEN_BUDGET - register_overhead()))
    except DatabaseError:
        log.exception("could not read the register; answering without its status")
        return RegisterStatus()


def _memory(workspace: Workspace, user: AbstractBaseUser) -> Memory:
    try:
        return memory_cached(workspace, user)
    except Exception:  # the profile refines an answer; failing to read it must not block one
        log.exception("could not read the profile; answering without it")
        return Memory()


@dataclass
class Retrieved:
    """What the turn's retrieval step found, and the scope it searched (None before it was decided)."""
    chunks: list[RetrievedChunk] = field(default_factory=list)
    cache_hit: bool = False
    notice: str = ""
    degraded: bool = False
    scope: AccessScope | None = None
    unknown_words: list[str] = field(default_factory=list)  # RetrievalResult.unknown_words
    corrections: dict[str, str] = field(default_factory=dict)  # RetrievalResult.corrections
    glossary: dict[str, str] = field(default_factory=dict)  # RetrievalResult.glossary, word -> law words


@dataclass(frozen=True)
class CachedSources:
    """A retrieval cache entry: the block's sources, and the question's words no source uses (the answer names
    them, so a question asked again is answered alike), with the misspelt ones' statute words and the glossary
    terms it used."""
    chunks: list[RetrievedChunk]
    unknown_words: tuple[str, ...] = ()
    corrections: tuple[tuple[str, str], ...] = ()
    glossary: tuple[tuple[str, str], ...] = ()


def _retrieve(question: str, history: list[str], workspace: Workspace, user: AbstractBaseUser, options: PrepareOptions,
              timings: dict, facts: dict, profile_key: str = "") -> Retrieved:
    t0 = time.perf_counter()
    asked = question_scope(question, history, user, workspace)
    analysis, scope, named = asked.analysis, asked.scope, asked.named
    timings["analysis"] = _ms(t0)
    facts.update(_analysis_facts(analysis))
    cache = get_retrieval_cache() if options.use_cache else None
    key = retrieval_cache_key(scope, workspace.knowledge_version, analysis, options.retrieval,
                              profile_key=profile_key, extra_versions=workspace_versions(scope.extra_workspace_ids))
    t0 = time.perf_counter()
    cached = cache.get(key) if cache is not None else None
    timings["cache"] = _ms(t0)
    if cached is not None:
        facts["chunks_matched"] = len(cached.chunks)
        return Retrieved(chunks=cached.chunks, cache_hit=True, scope=scope, unknown_words=list(cached.unknown_words),
                         corrections=dict(cached.corrections), glossary=dict(cached.glossary))
    t0 = time.perf_counter()
    try:
        result = retrieve_context(analysis.text or question, workspace, user=user, options=options.retrieval,
                                  scope=scope, analysis=analysis)
    finally:
        timings["retrieve"] = _ms(t0)
    facts.update(chunks_matched=len(result.chunks), chunks_excluded_by_threshold=result.excluded_by_threshold,
                 retrieval_ms=timings["retrieve"])
    for stage, value in result.timings_ms.items():
        if not isinstance(value, bool):
            timings[f"retrieval_{stage}"] = value
    chunks = block_sources(result, scope, options.retrieval, timings)
    if chunks:
        facts["chunks_matched"] = len(chunks)  # as on a cache hit: the sources found, neighbours included
    # Cached labelled and dated: the key holds everything they depend on (the scope with its named
    # workspaces, the period, knowledge_version, which every file version switch and statute reload bumps).
    chunks = date_sources(label_workspaces(chunks, named), analysis.dates, swedish_today())
    glossary = result.glossary_words
    if cache is not None and not result.degraded:
        cache.set(key, CachedSources(chunks=chunks, unknown_words=tuple(result.unknown_words),
                                     corrections=tuple(result.corrections.items()), glossary=tuple(glossary.items())))
    return Retrieved(chunks=chunks, notice=result.notice, degraded=result.degraded, scope=scope,
                     unknown_words=result.unknown_words, corrections=result.corrections, glossary=glossary)


def _analysis_facts(analysis: QueryAnalysis) -> dict:
    dates = analysis.dates
    return {
        "keywords": list(analysis.keywords)[:50],
        "references": [{"sfs": r.sfs, "chapter": r.chapter, "section": r.section, "raw": r.raw[:200]}
                       for r in analysis.references[:20]],
        "dates": {"start": dates.start.isoformat(), "end": dates.end.isoformat(), "label": dates.label}
        if dates else None,
        "workspace_mentions": list(analysis.workspace_mentions)[:20],
        "fallback": analysis.fallback,
    }


def _build(options: PrepareOptions, conversation: list[dict], assembled: AssembledContext | None, intent: str, *,
           skipped: bool, timings: dict[str, float], profile: Sequence[str] = (),
           register: RegisterStatus | None = None, unknown_words: Sequence[str] = (),
           corrections: Mapping[str, str] | None = None, glossary: Mapping[str, str] | None = None) -> PreparedContext:
    register = register or RegisterStatus()
    out = [{"role": "system", "content": options.system_prompt}]
    out.extend(conversation[:-1])
    if assembled is not None:
        out.append(context_message(assembled, profile, register.lines, unknown_words=unknown_words,
                                   corrections=corrections, glossary=glossary))
    out.extend(conversation[-1:])
    metrics = {
        "intent": intent,
        "skipped": skipped,
        "cache_hit": False,
        "chunks_considered": assembled.considered if assembled else 0,
        "chunks_included": assembled.included if assembled else 0,
        "chunks_excluded_by_budget": assembled.excluded_by_budget if assembled else 0,
        "tokens_used": assembled.tokens_used if assembled else 0,
        "token_budget": assembled.budget if assembled else 0,
        "profile_lines": len(profile),
        "register_lines": len(register.lines),
        "latency_ms": timings,
        "zero_match": False,
        "degraded": False,
    }
    timings["total"] = round(sum(v for k, v in timings.items() if k != "total" and not k.startswith("retrieval_")), 2)
    return PreparedContext(
        messages=out, context_text=assembled.text if assembled else "",
        citations=_citation_rows(assembled, register) if assembled else [], metrics=metrics, intent=intent,
        skipped=skipped, assembled=assembled, unknown_words=list(unknown_words), corrections=dict(corrections or {}),
        glossary=dict(glossary or {}),
    )


def _citation_rows(assembled: AssembledContext, register: RegisterStatus) -> list[dict]:
    """The citation map, plus how relevant each source was (numbers follow document order), and for a
    document on the organisation's laglista what the list says of it (shown on its source card)."""
    rows = assembled.citation_map()
    for row in rows:
        chunk = assembled.citations[row["n"]]
        if chunk.source_type == "LEGAL_DOCUMENT" and chunk.source_id in register.by_document:
            row["register_status"] = register.by_document[chunk.source_id]
        row["score"] = round(chunk.score, 6)
        row["reference_match"] = chunk.reference_match
        row["reserve"] = bool(chunk.extra.get("reserve"))  # ranked past the top k: there for the model's reading
        row["passage"] = assembled.shown_texts.get(row["n"], chunk.text)
    return rows


@lru_cache(maxsize=8)
def _prompt_tokens(prompt: str) -> int:
    return count_tokens(prompt)


def _split(messages: list[dict]) -> tuple[str, list[str]]:
    users = [m.get("content") or "" for m in messages if m.get("role") == "user"]
    if not users:
        return "", []
    return users[-1], users[:-1]


def _conversation(messages: list[dict]) -> list[dict]:
    kept = [{"role": m["role"], "content": m.get("content") or ""} for m in messages
            if m.get("role") in ("user", "assistant")]
    return kept[-MAX_HISTORY_MESSAGES:]


def _turn_log(workspace: Workspace, user: AbstractBaseUser, question: str, prepared: PreparedContext, *,
              cache_hit: bool, error: str = "", facts: dict) -> RetrievalLog:
    m = prepared.metrics
    observe_turn(intent=prepared.intent, skipped=prepared.skipped, cache_hit=cache_hit, zero_match=m["zero_match"],
                 degraded=prepared.degraded, retrieval_ms=facts.get("retrieval_ms"),
                 total_ms=m["latency_ms"].get("total"))
    return RetrievalLog(
        **facts, total_ms=m["latency_ms"].get("total"),
        workspace=workspace, user=user if getattr(user, "is_authenticated", False) else None,
        query=question[:4000], intent=prepared.intent, skipped=prepared.skipped, cache_hit=cache_hit,
        chunks_considered=m["chunks_considered"], chunks_included=m["chunks_included"],
        chunks_excluded_by_budget=m["chunks_excluded_by_budget"], tokens_used=m["tokens_used"],
        token_budget=m["token_budget"], latency_ms=m["latency_ms"], zero_match=m["zero_match"],
        degraded=prepared.degraded, error=error[:2000],
    )


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)
