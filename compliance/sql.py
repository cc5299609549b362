"""Raw SQL whose rows are read by column name.

The retrieval pipeline and a few hot selectors run hand-written SQL (the ORM cannot express BM25 postings or
pgvector fusion). Their rows come back as dicts keyed by the SELECT's column names, so adding or reordering a
column cannot silently shift every value after it, as unpacking a tuple by position would.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.db.backends.utils import CursorWrapper
from psycopg.rows import dict_row


@contextmanager
def dict_cursor() -> Iterator[CursorWrapper]:
    """Django's cursor on the default connection (its transaction, its query log in tests) with psycopg's
    `dict_row` factory: `fetchone()` and `fetchall()` give `{column name: value}`."""
    with connection.cursor() as cursor:
        # The wrapper delegates reads, not writes: the factory is set on psycopg's own cursor, for this
        # cursor only (the connection's other cursors keep tuples).
        cursor.cursor.row_factory = dict_row
        yield cursor
