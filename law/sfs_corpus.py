"""The bundled SFS corpus (data/sfs/sfs.jsonl.gz): reading it and choosing statutes."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
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


# A fundamental law (grundlag) that keeps the old word "förordning" in its name.
_LAWS_NAMED_ORDINANCE = ("tryckfrihetsförordning",)


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
