"""A second search on a connection of its own, so a question's two searches overlap.

A question that names a statute runs two searches (retrieve_context): the named statute's and the
general one. Each is one statement on one Postgres backend, so one after the other they take the sum
of their times; on two connections, the two backends use two cores and the question waits for the
longer one only (docs/retrieval.md, "The statute path's two searches at once").

The second search runs in a thread of a small pool, on that thread's own connection: Django keeps a
connection per thread. It runs there only when the caller is outside a transaction. A second connection
cannot see the caller's uncommitted rows (a test's data, a view's own writes), so inside a transaction
both searches run in turn on the caller's connection, as they did before.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, close_old_connections, connections
from django.db.backends.base.base import BaseDatabaseWrapper

T = TypeVar("T")
log = logging.getLogger(__name__)

# Four threads as for the question embedder: a web process serves a few requests at once, and each thread holds
# one idle connection between questions (bounded by the pool, renewed after CONN_MAX_AGE like a request's).
_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="side-search")
_opened: set[BaseDatabaseWrapper] = set()  # the pool threads' connections, for close_side_connections
_state = threading.Condition()  # guards _opened and _running
_running = 0  # searches under way on the pool's connections


@dataclass
class SideSearch(Generic[T]):
    """A search started beside the caller's work (`future`), or left to the caller (`future` None)."""

    search: Callable[[], T]
    future: Future[T] | None

    def result(self) -> T:
        """The search's result, from its own connection or, when it ran on none or failed there, from the
        caller's: a connection that cannot be had (Postgres at max_connections, say) costs time, never sources."""
        if self.future is None:
            return self.search()
        try:
            return self.future.result()
        except DatabaseError as exc:
            log.warning("a side search failed on its own connection, run on the caller's instead: %s", exc)
            return self.search()


def search_beside(search: Callable[[], T]) -> SideSearch[T]:
    """Start `search` on a pool thread's own connection while the caller goes on; inside a transaction, or with
    RETRIEVAL_CONCURRENT_SEARCHES off, it is left to run on the caller's connection when its result is asked."""
    if not settings.RETRIEVAL_CONCURRENT_SEARCHES or connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return SideSearch(search, None)
    return SideSearch(search, _pool.submit(_on_own_connection, search))


def _on_own_connection(search: Callable[[], T]) -> T:
    global _running
    with _state:
        _running += 1
        _opened.add(connections[DEFAULT_DB_ALIAS])
    try:
        # A pool thread has no request cycle: here is where its connection is renewed when it is older than
        # CONN_MAX_AGE or broken (a restarted Postgres), as a request's is when the request starts.
        close_old_connections()
        return search()
    finally:
        with _state:
            _running -= 1
            _state.notify_all()


def close_side_connections(timeout: float = 60) -> None:
    """Close the pool threads' connections once no search runs on them (the threads reconnect on their next
    search). For the end of a test that searched outside a transaction: the test database cannot be dropped
    while a connection to it is open."""
    with _state:  # held while closing: no search starts on a connection being closed
        if not _state.wait_for(lambda: _running == 0, timeout):
            log.warning("closing the side searches' connections while %d search(es) still run on them", _running)
        for wrapper in _opened:
            # Opened in its pool thread, idle now: closing it from here is safe.
            wrapper.inc_thread_sharing()
            try:
                wrapper.close()
            finally:
                wrapper.dec_thread_sharing()
        _opened.clear()
