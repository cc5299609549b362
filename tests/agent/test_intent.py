"""Intent classification in Swedish and English."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from agent.answering.intent import IntentResult, classify


@pytest.fixture(autouse=True)
def _media_root() -> None:
    """Shadow the Django-only autouse fixture of tests/conftest.py: pure Python tests."""


@pytest.mark.parametrize(
    "message",
    ["Hej!", "hej", "Hejsan", "God morgon!", "Tjena", "Tack!", "Tack så mycket!", "Hej, hur mår du?",
     "Hello", "Hi!", "Good morning", "Thanks!", "hej hej 👋"],
)
def test_greetings(message: str) -> None:
    result = classify(message)
    assert result.intent == "greeting"
    assert result.confidence >= 0.9
    assert result.matched


@pytest.mark.parametrize(
    "message, matched",
    [
        ("Vad kan du?", "vad kan du"),
        ("Vad kan du hjälpa mig med?", "vad kan du hjälpa mig med"),
        ("Vem är du?", "vem är du"),
        ("Hur fungerar du?", "hur fungerar du"),
        ("Sammanfatta vårt samtal", "sammanfatta vårt samtal"),
        ("Hej! Vem är du?", "vem är du"),
        ("What can you do?", "what can you do"),
        ("Who are you?", "who are you"),
        ("Summarize our conversation please", "summarize our conversation"),
    ],
)
def test_meta(message: str, matched: str) -> None:
    assert classify(message) == IntentResult("meta", 0.9, matched)


@pytest.mark.parametrize(
    "message, verb",
    [
        ("Skriv en policy för hemarbete", "skriv"),
        ("Sammanfatta dokumentet", "sammanfatta"),
        ("Gör en checklista för brandskydd", "gör en"),
        ("Jämför LAS och MBL", "jämför"),
        ("Kan du skriva ett mejl till facket?", "skriva"),
        ("Hej! Kan du göra en checklista för GDPR?", "göra en"),
        ("Draft a whistleblowing policy", "draft"),
        ("Write a summary of the Working Environment Act", "write"),
        ("List the requirements for fire safety", "list"),
        ("Could you compare LAS and MBL?", "compare"),
    ],
)
def test_tasks(message: str, verb: str) -> None:
    result = classify(message)
    assert (result.intent, result.matched) == ("task", verb)


@pytest.mark.parametrize(
    "message",
    [
        "Vad säger LAS om turordning?",
        "Hur många semesterdagar har en anställd rätt till?",
        "Måste vi ha skyddsombud?",
        "Gäller 3 kap. 2 a § arbetsmiljölagen även inhyrd personal?",
        "How many vacation days does an employee get?",
        "What does the GDPR say about consent?",
        "semesterlagen",
        "Vad kan du om arbetsmiljö?",
        "Vad kan du berätta om LAS?",
    ],
)
def test_factual(message: str) -> None:
    assert classify(message).intent == "factual"


def test_greeting_followed_by_question_is_factual() -> None:
    result = classify("Hej! Vad säger LAS om turordning?")
    assert result.intent == "factual"
    assert result.confidence >= 0.9
    result = classify("Hi there, what does the Swedish Working Environment Act require?")
    assert result.intent == "factual"


def test_thanks_followed_by_question_is_factual() -> None:
    assert classify("Tack! Men vad gäller vid deltid?").intent == "factual"


@pytest.mark.parametrize("message", ["", "   ", "👍", "😀😀", "???", "\x00\n"])
def test_empty_or_emoji_only_is_low_confidence_meta(message: str) -> None:
    assert classify(message) == IntentResult("meta", 0.1, None)


def test_deterministic() -> None:
    assert classify("Hej! Vad säger LAS?") == classify("Hej! Vad säger LAS?")


@hsettings(max_examples=200, deadline=None)
@given(st.text(max_size=500))
def test_fuzz_never_crashes(message: str) -> None:
    result = classify(message)
    assert result.intent in ("greeting", "meta", "factual", "task", "register")
    assert 0.0 <= result.confidence <= 1.0
