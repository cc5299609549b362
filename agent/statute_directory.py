"""The statutes a question can name, built from LegalDocument rows and cached per process.

Rebuilt only when the table changes (count or latest update), so a statute
loaded by admin becomes nameable without a restart.
"""

from __future__ import annotations

import threading

from django.db.models import Count, Max

from compliance.models import LegalDocument

from .legal_refs import StatuteDirectory

_lock = threading.Lock()
_cached: tuple[tuple, StatuteDirectory] | None = None


def statute_directory() -> StatuteDirectory:
    global _cached
    stamp = tuple(LegalDocument.objects.aggregate(n=Count("id"), latest=Max("updated_at")).values())
    with _lock:
        if _cached is None or _cached[0] != stamp:
            rows = LegalDocument.objects.values_list("sfs_number", "title", "short_names", "abbreviations")
            _cached = (stamp, StatuteDirectory(rows))
        return _cached[1]
