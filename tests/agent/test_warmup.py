"""A web process loads the token encoding, the statute names, the bridges, the statute words a slip is compared with
and the embedding model before its first request."""

from __future__ import annotations

import pytest
from pytest_django import Settings

from agent.retrieval import bridges
from agent.retrieval.warmup import warm_up
from chunks.embedding import get_provider
from chunks.tokens import get_encoding
from compliance.models import LegalDocument
from law import statute_directory as directory_module

pytestmark = pytest.mark.django_db


def test_warm_up_loads_what_the_first_question_needs(loaded: list[LegalDocument]) -> None:
    get_encoding.cache_clear()
    directory_module.statute_directory_invalidate()
    bridges.forget()
    assert warm_up() == ["tokens", "statutes", "bridges", "spelling", "embedding"]
    assert get_encoding.cache_info().currsize == 1
    assert directory_module._cached is not None
    assert get_provider()._model is not None
    assert bridges._local is not None and bridges._local._spelling is not None


def test_a_remote_embedder_is_not_called_at_start_up(settings: Settings) -> None:
    settings.EMBEDDING_BACKEND = "openai"
    settings.EMBEDDING_MODEL = "text-embedding-3-small"
    settings.EMBEDDING_BASE_URL = "http://127.0.0.1:9/v1"  # would fail if called
    assert "embedding" not in warm_up()

