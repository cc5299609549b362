"""The chat model, through the `openai` client (OpenAI or any compatible server).

The assistant's only module that talks to a chat model (the client and its settings are
compliance.chat_model's, shared with law.summaries). Streaming yields events so the
caller can forward text as it arrives and run tool calls in between.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

import openai
from django.conf import settings
from openai import OpenAI

from compliance import chat_model

log = logging.getLogger(__name__)


class ModelError(Exception):
    """The model call failed or timed out."""


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict = field(default_factory=dict)


SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_knowledge_base",
        "description": (
            "Sök i svenska författningar och arbetsytans egna dokument efter mer specifika källor. "
            "Använd när källmaterialet inte räcker, t.ex. för en viss paragraf eller lag. Sök med lagtextens "
            "egna ord: lagens term för saken, inte vardagsordet, smeknamnet eller förkortningen i frågan."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string",
                          "description": "Vad du söker med lagens egna ord, gärna med lag och paragraf."},
                "source_types": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["LEGAL_DOCUMENT", "USER_FILE", "ASSESSMENT"]},
                },
                "sfs": {"type": "array", "items": {"type": "string"}, "description": "SFS-nummer, t.ex. 1977:1160"},
                "content_types": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["SFS_LAW", "SFS_ORDINANCE", "AGENCY_REGULATION"]},
                    "description": "Bara författningar av dessa slag (lag, förordning, myndighetsföreskrift).",
                },
            },
            "required": ["query"],
        },
    },
}


def model_configured() -> bool:
    return chat_model.model_configured()


def _client() -> OpenAI:
    return chat_model.chat_client()


def stream_chat(messages: list[dict], *, tools: list[dict] | None = None) -> Iterator[str | ToolCall]:
    """Yield text deltas (str) and, at the end, any complete tool calls (ToolCall)."""

    kwargs = {"model": settings.CHAT_MODEL, "messages": messages, "stream": True, "temperature": 0.2}
    if tools:
        kwargs["tools"] = tools
    calls: dict[int, dict] = {}
    try:
        for event in _client().chat.completions.create(**kwargs):
            if not event.choices:
                continue
            delta = event.choices[0].delta
            if delta.content:
                yield delta.content
            for tc in delta.tool_calls or []:
                slot = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                slot["id"] = tc.id or slot["id"]
                if tc.function:
                    slot["name"] = tc.function.name or slot["name"]
                    slot["arguments"] += tc.function.arguments or ""
    except openai.OpenAIError as exc:
        raise ModelError(str(exc)) from exc
    for slot in calls.values():
        try:
            arguments = json.loads(slot["arguments"] or "{}")
        except json.JSONDecodeError:
            arguments = {}
        yield ToolCall(id=slot["id"] or "call", name=slot["name"], arguments=arguments if isinstance(arguments, dict) else {})
