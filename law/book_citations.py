"""How many statutes of the statute book cite each statute by its number ("förvaltningslagen (2017:900)"), read
from the bundled book (`SFS_CORPUS_PATH` and `SFS_BOOK_PATH`: the 4,610 statutes in force).

A statute cited by a large share of the book is cited for procedure, whatever the citing statute is about:
förvaltningslagen by 8 % of it (appeals), offentlighets- och sekretesslagen by 5.5 % (secrecy), räntelagen by
3.3 % (interest on a repayment), skatteförfarandelagen by 3.1 %. Lagbevakning reads a new statute's subject from
the statutes it cites (`register.notices.subjects`) and leaves such hubs out.

Read once per process (0.4 s); the shipped snapshot is the measure, since the database may hold only part of the
book (the 177 statutes loaded first, or a test's handful).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.conf import settings

from law.sfs_corpus import read_corpus

# "lagen (2017:900)", "förordningen (1992:191)": a statute cited by its number, as the texts write it.
CITED_SFS_RE = re.compile(r"\((\d{4}:\d{1,4})\)")


@dataclass(frozen=True)
class BookCitations:
    """How many of the book's statutes cite each SFS number (each citing statute counted once)."""

    statutes: int
    citing: Mapping[str, int]

    def share(self, number: str) -> float:
        """The share of the book's statutes citing `number`; 0 for a number none cites, or no book."""
        return self.citing.get(number, 0) / self.statutes if self.statutes else 0.0


@cache
def _book_citations(paths: tuple[Path, ...]) -> BookCitations:
    citing: Counter[str] = Counter()
    statutes = 0
    for path in paths:
        if not path.exists():  # a deployment without the bundled book: no statute counts as a hub
            continue
        for record in read_corpus(path):
            statutes += 1
            citing.update(set(CITED_SFS_RE.findall(record.get("text") or "")) - {record.get("sfs")})
    return BookCitations(statutes=statutes, citing=dict(citing))


def book_citations() -> BookCitations:
    return _book_citations((Path(settings.SFS_CORPUS_PATH), Path(settings.SFS_BOOK_PATH)))
