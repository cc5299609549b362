"""The statutes a question can name, built from LegalDocument rows and cached per process.

Rebuilt only when the table changes (count or latest update), so a statute
loaded by admin becomes nameable without a restart.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from django.db.models import Count, Max

from compliance.models import LegalDocument

from .legal_refs import StatuteDirectory

_lock = threading.Lock()
_cached: tuple[tuple, StatuteDirectory] | None = None
_checked_at = 0.0
CHECK_SECONDS = 5.0  # how stale a newly loaded statute's name may be


def statute_directory() -> StatuteDirectory:
    global _cached, _checked_at
    if _cached is not None and time.monotonic() - _checked_at < CHECK_SECONDS:
        return _cached[1]
    stamp = tuple(LegalDocument.objects.aggregate(n=Count("id"), latest=Max("updated_at")).values())
    _checked_at = time.monotonic()
    with _lock:
        if _cached is None or _cached[0] != stamp:
            rows = LegalDocument.objects.values_list("sfs_number", "title", "short_names", "abbreviations")
            _cached = (stamp, StatuteDirectory(rows, version=":".join(str(value) for value in stamp)))
        return _cached[1]


def statute_directory_invalidate(**_kwargs: Any) -> None:
    """Forget the directory at once in this process (other processes notice within CHECK_SECONDS)."""
    global _cached
    with _lock:
        _cached = None
