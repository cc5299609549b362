"""The chat model's settings and client (OpenAI or any OpenAI-compatible server), in the lowest layer so the
assistant (agent.answering.llm) and the change summaries (law.summaries) ask the same model the same way."""

from __future__ import annotations

from django.conf import settings
from openai import OpenAI


def model_configured() -> bool:
    return bool(settings.OPENAI_API_KEY or settings.OPENAI_BASE_URL)


def chat_client(*, timeout: float | None = None) -> OpenAI:
    return OpenAI(api_key=settings.OPENAI_API_KEY or "not-needed", base_url=settings.OPENAI_BASE_URL or None,
                  timeout=timeout or settings.CHAT_TIMEOUT_SECONDS, max_retries=1)
