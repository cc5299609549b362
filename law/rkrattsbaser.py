"""Fetching records from Regeringskansliets rättsdatabaser's SFS service.

Off by default (settings.SFS_SERVICE_ENABLED): the importer reads a file unless the service is switched
on. The transport is a parameter so tests replay recorded responses and never touch the network.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterable, Iterator

from django.conf import settings

from law.sfs_records import RawLine

Fetch = Callable[[str], bytes]


class ServiceDisabled(RuntimeError):
    """The service is not switched on (SFS_SERVICE_ENABLED) or has no URL (SFS_SERVICE_URL)."""


def _urlopen(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": "application/json", "User-Agent": "Lagrum"})
    with urllib.request.urlopen(request, timeout=settings.SFS_SERVICE_TIMEOUT) as response:
        return response.read()


class RkrattsbaserClient:
    """One GET per statute: SFS_SERVICE_URL with "{sfs}" replaced by its number ("2010:900")."""

    def __init__(self, url_template: str | None = None, fetch: Fetch | None = None) -> None:
        if not settings.SFS_SERVICE_ENABLED:
            raise ServiceDisabled("rättsdatabasernas tjänst är avstängd (SFS_SERVICE_ENABLED)")
        self.url_template = url_template or settings.SFS_SERVICE_URL
        if "{sfs}" not in self.url_template:
            raise ServiceDisabled("SFS_SERVICE_URL saknar {sfs}")
        self.fetch = fetch or _urlopen

    def url(self, sfs: str) -> str:
        return self.url_template.replace("{sfs}", sfs)

    def records(self, numbers: Iterable[str]) -> Iterator[RawLine]:
        """Each statute's record, or why it could not be had: one failure does not stop the rest."""
        for index, sfs in enumerate(numbers, start=1):
            try:
                body = self.fetch(self.url(sfs))
                yield RawLine(index, json.loads(body))
            except (OSError, ValueError) as exc:  # network errors, HTTP errors, a body that is not JSON
                yield RawLine(index, {"beteckning": sfs}, error=f"kunde inte hämtas ({type(exc).__name__}: {exc})")
