"""Small records in rättsdatabaser's shape, written by the tests (fictional statutes, year 2099)."""

from __future__ import annotations

import json
from pathlib import Path

from compliance.models import LegalDocument
from compliance.services import LegalDocumentData, legal_document_upsert

OLD_TEXT = (
    "1 § Denna lag gäller för alla företag.\n\n"
    "2 § Ett företag ska föra register. Lag (2099:5).\n\n"
    "3 § Tillsyn utövas av myndigheten.\n\n"
    "4 § Avgift tas ut enligt taxa som kommunen beslutar."
)
# As the service sends it: hard-wrapped, CRLF. 2 § amended, 3 § repealed, 4 § renumbered 4 a §, 5 § added,
# 6 § a coming change.
NEW_TEXT = (
    "1 § Denna lag gäller för alla\r\nföretag.\r\n\r\n"
    "2 § Ett företag ska föra ett digitalt\r\nregister. Lag (2099:10).\r\n\r\n"
    "3 § Har upphävts genom lag (2099:10).\r\n\r\n"
    "4 a § Avgift tas ut enligt taxa som\r\nkommunen beslutar.\r\n\r\n"
    "5 § Företaget ska rapportera årligen. Lag (2099:10).\r\n\r\n"
    "6 § /Träder i kraft I:2100-07-01/ Rapporten ska lämnas digitalt. Lag (2099:11).\r\n\r\n"
    "Övergångsbestämmelser\r\n\r\n2099:10\r\n\r\n1. Denna lag träder i kraft den 1 juli 2099."
)


def provforetag_statute(sfs: str = "2099:1") -> LegalDocument:
    """The statute `record` amends, as the loader leaves it before any record: OLD_TEXT, t.o.m. SFS 2099:5, not
    chunked."""
    return legal_document_upsert(LegalDocumentData(sfs_number=sfs, title=f"Lag ({sfs}) om provföretag",
                                                   full_text=OLD_TEXT, amended_through="SFS 2099:5"),
                                 process=False).document


def record(sfs: str = "2099:1", *, text: str = NEW_TEXT, andring: str | None = "t.o.m. SFS 2099:11",
           title: str | None = None, repealed_on: str | None = None, repealed_by: str | None = None,
           issued: str = "2099-01-10T00:00:00", updated: str = "2100-01-01T10:00:00", **extra: object) -> dict:
    raw = {
        "beteckning": sfs,
        "rubrik": title or f"Lag ({sfs}) om provföretag",
        "forfattningstypNamn": "Lag",
        "upphavdDateTime": repealed_on,
        "ikraftDateTime": None,
        "organisation": {"namn": "Justitiedepartementet"},
        "andringsforfattningar": [
            {"beteckning": "2099:10", "rubrik": "Lag (2099:10) om ändring", "ikraftDateTime": None,
             "anteckningar": "ändr. 2 §"},
            {"beteckning": "2099:11", "rubrik": "Lag (2099:11) om ändring", "ikraftDateTime": "2100-07-01T00:00:00",
             "anteckningar": "ny 6 §"},
        ],
        "fulltext": {
            "fulltextInformationId": 4711, "andringInford": andring, "upphavdGenom": repealed_by,
            "omtryck": None, "utfardadDateTime": issued, "ovrigt": None, "uppdateradDateTime": updated,
            "forfattningstext": text,
        },
    }
    raw.update(extra)
    return raw


def write_records(path: Path, lines: list[object]) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(line if isinstance(line, str) else json.dumps(line, ensure_ascii=False))
            fh.write("\n")
    return path
