"""The user's other workspaces a question may name, cached per process like the statute directory.

Every turn needs them (agent.retrieval.query_analysis finds "hos Kund AB" with them), and reading them
each time was two queries of a cache-hit turn. A stale entry cannot widen anything: naming a
workspace only asks `access_scope_for(named=…)`, which decides afresh from memberships. So a
few seconds of staleness across processes is harmless, and this process forgets at once when
a workspace or a membership changes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from cachetools import TTLCache
from django.contrib.auth.base_user import AbstractBaseUser

from chunks.selectors import statute_vocabulary
from compliance.models import Workspace
from compliance.selectors import workspace_mention_candidates

from .query_analysis import single_word_names

CHECK_SECONDS = 5.0  # how stale another process's rename or new membership may be here


@dataclass(frozen=True)
class WorkspaceNames:
    others: tuple[tuple[int, str, str], ...]  # (id, name, slug) of the user's other workspaces
    ordinary: frozenset[str]  # one-word names that are ordinary statute words (not taken as a mention)

    @property
    def names(self) -> list[str]:
        return [name for _, name, _ in self.others]


_cache: TTLCache = TTLCache(maxsize=1024, ttl=CHECK_SECONDS)
_lock = threading.Lock()


def workspace_names_for(user: AbstractBaseUser, workspace: Workspace) -> WorkspaceNames:
    key = (user.pk, workspace.pk)
    with _lock:
        found = _cache.get(key)
    if found is not None:
        return found
    others = tuple(workspace_mention_candidates(user, workspace))
    names = [name for _, name, _ in others]
    found = WorkspaceNames(others=others,
                           ordinary=frozenset(statute_vocabulary(single_word_names(names))) if names else frozenset())
    with _lock:
        _cache[key] = found
    return found


def workspace_names_invalidate(**_kwargs: Any) -> None:
    """Receiver for saves and deletes of workspaces and memberships."""
    with _lock:
        _cache.clear()
