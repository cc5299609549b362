"""The bundled SFS corpus: reading it and choosing statutes.

`data/sfs/sfs.jsonl.gz` holds the 177 statutes picked for a company's compliance questions (the curated
corpus, loaded first and shipped with vectors); `data/sfs/sfs_book.jsonl.gz` the other 4,433 statutes in
force in the same snapshot, each with its `kind`. Together they are the whole statute book, each statute
stored once.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from compliance.models import LegalDocument

# The compliance core: every statute the development question set asks about.
CORE_SFS = (
    "1976:580", "1977:480", "1977:1160", "1977:1166", "1982:80", "1982:673", "1995:584", "1998:808",
    "1999:1078", "2003:778", "2008:567", "2009:400", "2010:900", "2010:1011", "2017:630", "2018:218",
    "2018:1200", "2021:890",
)


def read_corpus(path: Path) -> Iterator[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


@dataclass
class BookLine:
    """One line of a corpus file: its record, or why it is not one (`record` None)."""

    number: str  # the SFS number, or "rad N" when the line has none
    record: dict | None
    error: str = ""


def read_book_lines(*paths: Path) -> Iterator[BookLine]:
    """Every line of the corpus files, in order; a line that is not a usable record comes with the reason,
    so a loader reports it and goes on with the rest."""
    for path in paths:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                where = f"{path.name} rad {n}"
                try:
                    record = json.loads(line)
                except ValueError as exc:
                    yield BookLine(where, None, f"ogiltig JSON ({exc.msg})")
                    continue
                if not isinstance(record, dict):
                    yield BookLine(where, None, "raden är inget JSON-objekt")
                    continue
                number = record.get("sfs") if isinstance(record.get("sfs"), str) else ""
                missing = [f for f in ("sfs", "title") if not isinstance(record.get(f), str) or not record[f].strip()]
                if missing or not isinstance(record.get("text", ""), (str, type(None))):
                    reason = f"saknar {', '.join(missing)}" if missing else "text är inte en sträng"
                    yield BookLine(number or where, None, reason)
                    continue
                yield BookLine(number, record)


def book_size(*paths: Path) -> int:
    """How many statutes the corpus files hold (lines), without parsing them."""
    total = 0
    for path in paths:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rb") as fh:
            total += sum(1 for line in fh if line.strip())
    return total


# A fundamental law (grundlag) that keeps the old word "förordning" in its name.
_LAWS_NAMED_ORDINANCE = ("tryckfrihetsförordning",)


# The four fundamental laws (regeringsformen, tryckfrihetsförordningen, yttrandefrihetsgrundlagen,
# successionsordningen): RF's title is "Kungörelse (1974:152) om beslutad ny regeringsform".
FUNDAMENTAL_LAWS = frozenset({"1974:152", "1949:105", "1991:1469", "1810:0926"})
# The book's `kind` (the head noun of the title) as stored on LegalDocument.content_type.
KIND_CONTENT_TYPES = {
    "lag": LegalDocument.ContentType.SFS_LAW,
    "förordning": LegalDocument.ContentType.SFS_ORDINANCE,
    "grundlag": LegalDocument.ContentType.SFS_FUNDAMENTAL_LAW,
    "föreskrifter": LegalDocument.ContentType.SFS_AGENCY_RULES,
    "kungörelse": LegalDocument.ContentType.SFS_PROCLAMATION,
    "tillkännagivande": LegalDocument.ContentType.SFS_NOTICE,
    "annan": LegalDocument.ContentType.SFS_OTHER,
}


def record_content_type(record: dict) -> str:
    """A record's kind: the book's `kind` field when it has one, else (the curated corpus, only laws,
    ordinances and three fundamental laws) by its number and title."""
    kind = record.get("kind")
    if kind:
        if kind not in KIND_CONTENT_TYPES:
            raise ValueError(f"okänd typ {kind!r}")
        return KIND_CONTENT_TYPES[kind]
    if record.get("sfs") in FUNDAMENTAL_LAWS:
        return LegalDocument.ContentType.SFS_FUNDAMENTAL_LAW
    return content_type_for(record.get("title") or "")


def content_type_for(title: str) -> str:
    """A förordning by its title's name: "Förordning (1998:901) om …" or "Arbetsmiljöförordning (1977:1166)"."""
    name = title.split("(", 1)[0].strip().lower()
    if name.startswith(_LAWS_NAMED_ORDINANCE):
        return LegalDocument.ContentType.SFS_LAW
    if name.startswith("förordning") or name.endswith("förordning"):
        return LegalDocument.ContentType.SFS_ORDINANCE
    return LegalDocument.ContentType.SFS_LAW


def parse_date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None
