"""Text lines of an agency PDF, with the page furniture taken out.

pypdf gives each page as lines in reading order. Agency PDFs repeat a running header or
footer on every page (the series and number, "Kapitel 2" tabs, page numbers "3 (25)"),
print the ISSN, the publisher and the agency's address on the first and last pages, and
rule footnotes off with a line of underscores. None of that is the regulation's text.

The rules here are general, not per file: a line is furniture when
* it recurs near the top or bottom of many pages (digits ignored, so "Kapitel 2" and
  "Kapitel 3" or "AFS 2023:1" on every page count as one line), or
* it is a page number, an ISSN/ISBN line, a publisher line, contact details (Box,
  telephone, e-mail, web address) near a page edge, or a rule line.
Every dropped line is kept with its page and reason, so the quality check can show what
was dropped and measure coverage against the rest.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import PyPdfError

# How many lines from either end of a page count as its edge (where headers and
# footers sit). Six covers the stacked headers of the AFS
# (designation, chapter tab, page number, avdelning, chapter, tab again) and ELSÄK-FS layouts.
EDGE_LINES = 6
# A line recurring at the edges of at least this share of the pages is a running
# header or footer (and of at least 2 pages, so a one-page file keeps its text).
REPEAT_SHARE = 0.3

_PAGE_NUMBER_RE = re.compile(
    r"^(?:\d{1,4}|\d{1,4} ?\(\d{1,4}\)|(?:[Ss]ida|[Ss]id\.) ?\d{1,4}(?: ?(?:av|\() ?\d{1,4}\)?)?|\d{1,4} av \d{1,4})$"
)
_ISSN_RE = re.compile(r"\b(?:ISSN|ISBN)\b")
_PUBLISHER_RE = re.compile(r"^Utgivare\b")
_CONTACT_RE = re.compile(
    r"\bBox \d+|\bTel(?:efon|\.)?:? ?\+?\d|\bT el\b|\bFax\b|\bE-post\b|\bwww\s?\.\s?[\w-]+\s?\.\s?se\b"
    r"|\b[Bb]esöksadress\b|\b[Pp]ostadress\b|BESTÄLLNINGSADRESS|\b\d{3} ?\d{2} [A-ZÅÄÖ][a-zåäö]+$"
)
_RULE_RE = re.compile(r"^[_\-–—=.·•\s]{5,}$")
# Lines that are structure, never furniture, however often they recur at a page edge
# ("Allmänna råd" often opens a page; a § may too).
_STRUCTURAL_RE = re.compile(
    r"^(?:\d+ ?[a-z]? ?§|\d+ ?[a-z]? kap\.|Allmänna råd|Allmänt råd|Avdelning|AVDELNING|Bilaga\b"
    r"|Övergångsbestämmelser|Ikraftträdande)"
)
_SPACES_RE = re.compile(r"[ \t\u00a0\u2002\u2003\u2009]+")


class RegulationPdfError(Exception):
    """An agency PDF that cannot be read: not a PDF, truncated, encrypted or without text.

    The message is Swedish and names the file, for the person running the import.
    """

    def __init__(self, path: Path | str, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path.name}: {reason}")


@dataclass(frozen=True)
class Line:
    """One text line of the PDF; page is 1-based, index is the line's place on its page."""

    page: int
    index: int
    text: str


@dataclass(frozen=True)
class DroppedLine:
    """A line left out of the regulation's text, and why ("sidhuvud", "sidnummer", …)."""

    page: int
    text: str
    reason: str


def normalise(text: str) -> str:
    """Collapse runs of spaces (pypdf keeps column gaps: "1 §    Denna") and trim."""
    return _SPACES_RE.sub(" ", text.replace("\u00ad", "")).strip()


def read_pages(path: Path) -> list[list[str]]:
    """The non-empty, normalised lines of every page; RegulationPdfError when unreadable."""
    data = path.read_bytes()
    if not data.lstrip()[:5] == b"%PDF-":
        raise RegulationPdfError(path, "filen är inte en PDF-fil (saknar %PDF-huvud)")
    # A PDF ends with %%EOF (after optional whitespace); a cut-off download does not, and
    # pypdf would otherwise try to rebuild it and return whatever pages it finds.
    if b"%%EOF" not in data[-2048:]:
        raise RegulationPdfError(path, "PDF-filen är trunkerad (slutmarkeringen %%EOF saknas)")
    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise RegulationPdfError(path, "PDF-filen är krypterad med lösenord och kan inte läsas")
        pages = [page.extract_text() or "" for page in reader.pages]
    except RegulationPdfError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as error:
        raise RegulationPdfError(path, f"PDF-filen kan inte läsas ({type(error).__name__}: {error})") from error
    lines = [[normalise(line) for line in text.splitlines()] for text in pages]
    lines = [[line for line in page if line] for page in lines]
    if not any(lines):
        raise RegulationPdfError(path, "PDF-filen innehåller ingen text (skannad bild?)")
    return lines


def _repeat_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.lower().replace(" ", ""))


def _is_edge(index: int, count: int) -> bool:
    return index < EDGE_LINES or index >= count - EDGE_LINES


@dataclass(frozen=True)
class StrippedLines:
    """The pages' lines split in two: the regulation's text and the furniture left out of it."""

    kept: list[Line]
    dropped: list[DroppedLine]


def strip_furniture(pages: list[list[str]], designation: str | None = None) -> StrippedLines:
    """Split every page's lines into text lines and dropped furniture (general rules only).

    designation ("KIFS 2022:3"): some layouts print the running header in the same text
    line as the first line of the page ("KIFS 2022:3 2. Europaparlamentets …"); at a page
    edge that prefix is cut off as furniture and the rest kept.
    """
    pages_with_text = sum(1 for page in pages if page)
    threshold = max(2, math.ceil(REPEAT_SHARE * pages_with_text))
    edge_pages: dict[str, set[int]] = {}
    for number, page in enumerate(pages):
        for index, text in enumerate(page):
            if _is_edge(index, len(page)):
                edge_pages.setdefault(_repeat_key(text), set()).add(number)
    repeated = {key for key, found in edge_pages.items() if len(found) >= threshold}

    kept: list[Line] = []
    dropped: list[DroppedLine] = []
    for number, page in enumerate(pages):
        for index, text in enumerate(page):
            edge = _is_edge(index, len(page))
            if edge and designation and text.startswith(designation + " ") and not _STRUCTURAL_RE.match(text):
                dropped.append(DroppedLine(number + 1, designation, "sidhuvud/sidfot"))
                text = text[len(designation) + 1:].strip()
            reason = _furniture_reason(text, edge, repeated)
            if reason:
                dropped.append(DroppedLine(number + 1, text, reason))
            else:
                kept.append(Line(number + 1, index, text))
    return StrippedLines(kept=kept, dropped=dropped)


def _furniture_reason(text: str, edge: bool, repeated: set[str]) -> str | None:
    if _RULE_RE.match(text):
        return "linje"
    if _ISSN_RE.search(text):
        return "ISSN/ISBN"
    if _PUBLISHER_RE.match(text):
        return "utgivare"
    if edge and _PAGE_NUMBER_RE.match(text):
        return "sidnummer"
    structural = bool(_STRUCTURAL_RE.match(text))
    key = _repeat_key(text)
    # A running label may also land mid-page in reading order (side tabs, rotated table
    # pages): a line whose text recurs at the edges of many pages is furniture anywhere,
    # unless it is only a number (table cells and list numbers look like page numbers).
    if not structural and key in repeated and (edge or re.search(r"[^\W\d_]{3}", key)):
        return "sidhuvud/sidfot"
    if edge and len(text) < 150 and _CONTACT_RE.search(text):
        return "adress"
    return None
