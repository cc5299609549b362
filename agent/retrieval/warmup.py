"""What a web process loads once, before its first request instead of during it.

A fresh gunicorn worker's first question otherwise waits on 2 cores for the token
encoding (~0.5 s), the statute names (~0.14 s), the bridges mined from the statutes
(~2.5 s for the 177, unless another process left them in the shared cache) and the
local embedding model. Called by compliance/wsgi.py in every worker; best effort, as
each of them is loaded again on first use if this failed.
"""

from __future__ import annotations

import logging

from django.conf import settings

from chunks.embedding import get_provider
from chunks.tokens import get_encoding
from law.statute_directory import statute_directory

from . import bridges, vocabulary_neighbours

log = logging.getLogger(__name__)


def warm_up() -> list[str]:
    """Load what can be loaded; returns the names of what was."""
    steps = [("tokens", get_encoding), ("statutes", statute_directory), ("bridges", bridges.vocabulary)]
    if settings.RETRIEVAL_BRIDGE_SPELLING:
        steps.append(("spelling", _spelling))
    if settings.RETRIEVAL_NEIGHBOURS:
        steps.append(("term vectors", vocabulary_neighbours.term_vectors))  # the int8 file read into float32 rows
    if settings.EMBEDDING_BACKEND == "local":
        # Only the local model: a remote embedder would be a network call at start-up.
        steps.append(("embedding", lambda: get_provider().embed_query("uppvärmning")))
    loaded = []
    for name, step in steps:
        try:
            step()
            loaded.append(name)
        except Exception as exc:  # noqa: BLE001 - start-up must not fail on what the first request retries
            log.warning("warm-up of %s failed (loaded on first use instead): %s", name, exc)
    return loaded


def _spelling() -> None:
    """The statute words a slip is compared with (the marks come with the vocabulary)."""
    bridges.vocabulary().spelling
