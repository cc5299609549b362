"""What a statute page says about where its text comes from.

Users expect the official source, not our provenance: "Regeringskansliets rättsdatabaser
(SFST), hämtad april 2024", with the SFS number linked to the statute's page there. The
technical provenance (`LegalDocument.source`, e.g. `mttias/swedish-laws@56a0d3f7a7d5:cache/4012.xml`,
the cached copy of that page the bundled corpus was built from) stays in admin and in
data/sfs/README.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from .models import SFS_CONTENT_TYPES, LegalDocument

OFFICIAL_DATABASE = "Regeringskansliets rättsdatabaser (SFST)"
OFFICIAL_STATUTE_URL = "https://rkrattsbaser.gov.se/sfst?bet={sfs}"
# The bundled corpus (data/sfs/README.md) is the SFST pages as cached by mttias/swedish-laws,
# fetched January–April 2024: every statute of it carries this prefix in `source`.
BUNDLED_CORPUS_PREFIX = "mttias/swedish-laws@"
BUNDLED_CORPUS_RETRIEVED = "april 2024"
SFS_TYPES = SFS_CONTENT_TYPES


@dataclass(frozen=True)
class StatuteSource:
    label: str  # what the "Källa" row says
    url: str  # a link for the label, "" for none


def official_statute_url(doc: LegalDocument) -> str:
    """The statute's page in SFST; "" for what SFST does not hold (an agency's regulations)."""
    if doc.content_type not in SFS_TYPES:
        return ""
    return OFFICIAL_STATUTE_URL.format(sfs=quote(doc.sfs_number, safe=":"))


def statute_source(doc: LegalDocument) -> StatuteSource | None:
    source = (doc.source or "").strip()
    if not source:
        return None
    if source.startswith(BUNDLED_CORPUS_PREFIX):
        return StatuteSource(label=f"{OFFICIAL_DATABASE}, hämtad {BUNDLED_CORPUS_RETRIEVED}", url="")
    if source.startswith(("https://", "http://")):
        return StatuteSource(label=source, url=source)
    return StatuteSource(label=source, url="")
