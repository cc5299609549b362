"""Rule-based intent classification of a chat message (Swedish and English).

Intents:
* greeting -- small talk only ("Hej!", "Tack!", "Hej, hur mår du?")
* meta     -- about the assistant or the conversation ("Vad kan du?",
              "Sammanfatta vårt samtal")
* task     -- asks for work product ("Skriv en checklista för …",
              "Kan du jämföra LAS och MBL?")
* register -- about the organisation's own laglista ("Vilka lagar har vi inte
              bedömt?", "Vad saknar bevis?", "Vilka krav ansvarar jag för?"):
              answered from the register, not by retrieval.
* factual  -- everything else with content: a question to answer from sources.

Decisions worth knowing:
* A greeting followed by content is classified by the content:
  "Hej! Vad säger LAS om turordning?" is factual.
* A meta phrase followed by a topic ("vad kan du om arbetsmiljö?") is factual.
* A register phrase wins over a task verb: "Lista det som saknar bevis" asks
  the register, not for a document to be written.
* A message with no letters or digits (empty, whitespace, emoji, punctuation)
  is `meta` with confidence 0.1 and `matched=None`: there is nothing to
  search for, so the caller should ask the user what they need.
Deterministic; the phrase lists live in agent.answering.intent_patterns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from . import intent_patterns as P

__all__ = ["Intent", "IntentResult", "classify"]

Intent = Literal["greeting", "meta", "factual", "task", "register"]


@dataclass(frozen=True)
class IntentResult:
    intent: Intent
    confidence: float
    matched: str | None


def _alternation(phrases: list[str]) -> str:
    # Longest first so "god morgon" wins over "god", "tack så mycket" over "tack".
    ordered = sorted({p.strip().lower() for p in phrases if p.strip()}, key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, p.split())) for p in ordered)


_SEP = r"[\s,.;:!?¡¿\-–—…)(\"'´`*~]*"
_GREETING_RE = re.compile(rf"(?P<m>{_alternation(P.GREETING)})(?![\w]){_SEP}")
_COURTESY_RE = re.compile(rf"(?P<m>{_alternation(P.COURTESY)})(?![\w]){_SEP}")
_META_RE = re.compile(rf"(?<![\w])(?P<m>{_alternation(P.META)})(?![\w])")
_POLITE_RE = re.compile(rf"(?P<m>{_alternation(P.POLITE_PREFIX)})(?![\w]){_SEP}")
_TASK_RE = re.compile(rf"(?P<m>{_alternation(P.TASK)})(?![\w])")
_QUESTION_RE = re.compile(rf"(?<![\w])(?P<m>{_alternation(P.QUESTION_WORDS)})(?![\w])")
_REGISTER_RE = re.compile(rf"(?<![\w])(?P<m>{_alternation(P.REGISTER)})(?![\w])")
# An action word and a word saying it is late, in either order, a few words apart.
_ACTION = _alternation(P.REGISTER_ACTION_WORDS)
_LATE = _alternation(P.REGISTER_LATE_WORDS)
_REGISTER_ACTION_RE = re.compile(
    rf"(?<![\w])(?P<m>(?:{_ACTION})(?:\W+\w+){{0,4}}?\W+(?:{_LATE})|(?:{_LATE})(?:\W+\w+){{0,2}}?\W+(?:{_ACTION}))(?![\w])")
# The whole message, give or take a question mark and words of courtesy (stripped before).
_REGISTER_WHOLE_RE = re.compile(rf"(?P<m>{_alternation(P.REGISTER_WHOLE_QUESTIONS)}){_SEP}$")
_META_FILLER = frozenset(P.META_FILLER)
_WORD_RE = re.compile(r"[^\W_]+")
# Cheap legal signal: §, "kap", SFS numbers, statute-like words, all-caps codes.
_LEGAL_RE = re.compile(
    r"§|\bkap\b|\b\d{4}:\d{1,4}\b|\b\w+(?:lagen|lagens|balken|förordningen)\b|\b[A-ZÅÄÖ][A-Za-zÅÄÖåäö]{1,4}L\b|\bLAS\b|\bGDPR\b"
)
# Long messages are classified on their beginning; keeps classify O(1)-ish.
_MAX_CHARS = 2000


def _strip_greetings(text: str) -> tuple[str, str | None]:
    """Remove leading greetings/courtesies ("hej, god morgon! …")."""
    first: str | None = None
    for _ in range(4):
        m = _GREETING_RE.match(text) or _COURTESY_RE.match(text)
        if not m:
            break
        first = first or m.group("m")
        text = text[m.end() :]
    return text, first


def _content_words(text: str) -> list[str]:
    return _WORD_RE.findall(text)


def classify(message: str) -> IntentResult:
    """Classify one user message; never raises."""
    raw = message if isinstance(message, str) else ""
    raw = raw[:_MAX_CHARS]
    text = " ".join(raw.lower().split())
    if not _content_words(text):
        return IntentResult("meta", 0.1, None)

    rest, greeting = _strip_greetings(text)
    if not _content_words(rest):
        return IntentResult("greeting", 0.95, greeting)

    legal = bool(_LEGAL_RE.search(raw))
    # Late actions named beside a statute are a question about what the statute says of them.
    register = (_REGISTER_RE.search(rest) or _REGISTER_WHOLE_RE.match(rest)
                or (None if legal else _REGISTER_ACTION_RE.search(rest)))
    if register:
        return IntentResult("register", 0.85, register.group("m"))

    meta = _META_RE.search(rest)
    if meta and not legal:
        after = rest[meta.end() :]
        leftovers = [w for w in _content_words(after) if w not in _META_FILLER]
        if not leftovers:
            return IntentResult("meta", 0.9, meta.group("m"))

    body = rest
    polite = _POLITE_RE.match(body)
    if polite:
        body = body[polite.end() :]
    task = _TASK_RE.match(body)
    if task:
        return IntentResult("task", 0.85 if not polite else 0.8, task.group("m"))

    question = _QUESTION_RE.search(rest)
    if legal or "?" in rest:
        return IntentResult("factual", 0.9, question.group("m") if question else None)
    if question:
        return IntentResult("factual", 0.75, question.group("m"))
    return IntentResult("factual", 0.6, None)
