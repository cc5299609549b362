"""Structural parser for Swedish agency regulations (myndighetsföreskrifter) in PDF.

Input: one of the agencies' own PDFs (AFS, BFS, MSBFS/MCFFS, NFS, ELSÄK-FS, KIFS; see
../shared/data/foreskrifter/README.md). Output: a `ParsedRegulation` with the metadata
of the title block and preamble (agency, series and number, title, dates, legal basis)
and the text as *units* in document order:

* "inledning": the preamble ("beslutade den …", "… föreskriver följande med stöd av …").
* "kapitel": prose between a chapter heading and its first § (lists of chapters, scope).
* "paragraf": one §, its text in stycken.
* "allmänt råd": an "Allmänna råd" block, attached to the § it follows (same chapter and
  § number) but never merged into it: advice is not binding and must not read as a rule.
* "övergångsbestämmelser": ikraftträdande- och övergångsbestämmelser (and the signature).
* "bilaga": one Bilaga with its title.

What is not the regulation's text is left out and recorded: page furniture (see
`pdf_lines`), the front matter before the title block (cover, table of contents, the
series' information page) and the metadata lines of the title block (captured as fields).
Structural lines (chapter and avdelning headings, rubriker, "Allmänna råd") are kept in
each unit's `prelude`, so prelude + lines over all units, the title, the footnotes and the
dropped lines account for every line pypdf extracted; `law.quality` measures that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from law.parsers.pdf_lines import DroppedLine, Line, read_pages, strip_furniture

TitleSource = Literal["title block", "first page", "designation"]
UnitKind = Literal["inledning", "kapitel", "paragraf", "allmänt råd", "övergångsbestämmelser", "bilaga"]

# Issuing agency per series (the series prefix of the file name). The genitive is how
# the title block begins ("Arbetsmiljöverkets föreskrifter …").
AGENCIES: dict[str, tuple[str, str]] = {
    "AFS": ("Arbetsmiljöverket", "Arbetsmiljöverkets"),
    "BFS": ("Boverket", "Boverkets"),
    "MSBFS": ("Myndigheten för samhällsskydd och beredskap", "Myndigheten för samhällsskydd och beredskaps"),
    # MSB became Myndigheten för civilt försvar in 2026; its new series is MCFFS.
    "MCFFS": ("Myndigheten för civilt försvar", "Myndigheten för civilt försvars"),
    "NFS": ("Naturvårdsverket", "Naturvårdsverkets"),
    "ELSÄK-FS": ("Elsäkerhetsverket", "Elsäkerhetsverkets"),
    "KIFS": ("Kemikalieinspektionen", "Kemikalieinspektionens"),
}

MONTHS = {
    name: number
    for number, name in enumerate(
        "januari februari mars april maj juni juli augusti september oktober november december".split(), 1
    )
}

_FILE_RE = re.compile(r"^(?P<series>[A-ZÅÄÖ-]+?)-(?P<year>\d{4})-(?P<number>\d+)$")
_DATE = r"(\d{1,2}) (januari|februari|mars|april|maj|juni|juli|augusti|september|oktober|november|december) (\d{4})"
_ISSUED_RE = re.compile(rf"beslutade den {_DATE}", re.I)
_IN_FORCE_RE = re.compile(rf"träd(?:er|a) i kraft den {_DATE}")
_PUBLISHED_RE = re.compile(rf"^Utkom från trycket(?: den)?(?: {_DATE})?$")
_DATE_LINE_RE = re.compile(rf"^(?:den )?{_DATE}$")
_NUM = r"\d+(?: ?[a-z])?"
PARAGRAPH_RE = re.compile(rf"^(?P<num>{_NUM}) ?§(?!§) ?(?P<rest>.*)$")
CHAPTER_RE = re.compile(rf"^(?P<num>{_NUM}) kap\.(?: (?P<title>.*))?$")
AVDELNING_RE = re.compile(r"^(?:Avdelning|AVDELNING) (?P<num>[IVXLC]+|\d+)\b[:.]?(?: (?P<title>.*))?$")
ADVICE_RE = re.compile(r"^(?:Allmänna råd|Allmänt råd)(?: till [^.]*)?:?$")
TRANSITIONAL_RE = re.compile(
    r"^(?:Ikraftträdande- och övergångsbestämmelser|Ikraftträdande och övergångsbestämmelser"
    r"|Övergångsbestämmelser|Övergångs- och ikraftträdandebestämmelser|Ikraftträdande(?:bestämmelser?)?)$"
)
# "Denna författning träder i kraft …" after the last § opens the transitional
# provisions even where no heading says so (BFS prints it straight after the last §).
ENTRY_RE = re.compile(
    r"^(?:\d\. )?(?:Denna författning|Dessa föreskrifter|Föreskrifterna|Denna föreskrift|Dessa allmänna råd"
    r"|Författningen)(?: och [^.]{0,80})? träder i kraft"
)
BILAGA_RE = re.compile(r"^Bilaga (?P<num>\d+[a-z]?)(?: (?P<rest>.*))?$")
_LIST_ITEM_RE = re.compile(r"^(?:\d{1,2}\.|\d{1,2}\)|[a-zåäö]\)|[–\-•] )")
_FOOTNOTE_LINE_RE = re.compile(r"^(?P<num>\d{1,2}) ?(?=[A-ZÅÄÖa-zåäö(])")
_SFS_RE = re.compile(r"\((\d{4}:\d+)\)")
_ABBREVIATION_END_RE = re.compile(r"\b(?:m\. ?m|m\. ?fl|o\. ?d|etc|osv)\.$")


@dataclass
class LegalBasis:
    """The authority the agency cites in its preamble.

    text: "18 § arbetsmiljöförordningen (1977:1166)" (footnote markers removed).
    sfs: the SFS numbers cited in it, in order, without repeats: ["1977:1166"].
    """

    text: str
    sfs: list[str]


@dataclass
class Footnote:
    """A footnote printed at the bottom of a page ("1 Jämför rådets direktiv …")."""

    number: str
    text: str
    page: int


@dataclass
class RegulationUnit:
    """A unit of the regulation's text.

    kind: see the module docstring; binding is False only for "allmänt råd".
    citation: "2 kap. 3 §", "3 §", "3 § allmänna råd", "Bilaga 2", "Övergångsbestämmelser",
        "4 kap." (chapter prose) or "" (the preamble).
    avdelning: "Avdelning II: Buller och vibrationer" for the units under it.
    chapter / chapter_title: "2", "Buller"; None in regulations without chapters.
    section: the § number ("3", "3 a"); for "allmänt råd" the § the advice follows.
    heading: the rubrik governing the unit (inherited until the next one).
    title: a bilaga's title.
    stycken: the text as paragraphs (lines rejoined, hyphenated line breaks undone).
    lines: the unit's own text lines as extracted (before rejoining).
    prelude: structural lines directly before the unit (headings, "Allmänna råd").
    page: the 1-based page the unit starts on.
    """

    kind: UnitKind
    ordinal: int
    citation: str
    page: int
    avdelning: str | None = None
    chapter: str | None = None
    chapter_title: str | None = None
    section: str | None = None
    heading: str | None = None
    title: str | None = None
    stycken: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    prelude: list[str] = field(default_factory=list)

    @property
    def binding(self) -> bool:
        return self.kind != "allmänt råd"

    @property
    def text(self) -> str:
        return "\n\n".join(self.stycken)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "ordinal": self.ordinal,
            "citation": self.citation,
            "binding": self.binding,
            "avdelning": self.avdelning,
            "chapter": self.chapter,
            "chapter_title": self.chapter_title,
            "section": self.section,
            "heading": self.heading,
            "title": self.title,
            "page": self.page,
            "stycken": self.stycken,
        }


@dataclass
class ParsedRegulation:
    """Result of `parse_regulation`.

    designation: "AFS 2023:1"; series "AFS", number "2023:1".
    issued / in_force / published: ISO dates (beslutade, träder i kraft, utkom från trycket).
    front_matter: lines before the title block (cover, contents, the series' info page).
    dropped: page furniture and title-block metadata lines, with reasons.
    title_from: where the title was found: the title block above "beslutade den" (or a consolidated
        version's first block), elsewhere on the first page, or nowhere in the text, so the designation
        names the document.
    """

    source: str
    agency: str
    series: str
    number: str
    title: str
    issued: str | None
    in_force: str | None
    published: str | None
    legal_basis: LegalBasis | None
    units: list[RegulationUnit]
    footnotes: list[Footnote]
    pages: int
    front_matter: list[DroppedLine] = field(default_factory=list)
    dropped: list[DroppedLine] = field(default_factory=list)
    title_from: TitleSource = "title block"

    @property
    def designation(self) -> str:
        return f"{self.series} {self.number}"

    @property
    def chapters(self) -> list[tuple[str, str | None]]:
        seen: dict[str, str | None] = {}
        for unit in self.units:
            if unit.chapter is not None and unit.chapter not in seen:
                seen[unit.chapter] = unit.chapter_title
        return list(seen.items())

    @property
    def avdelningar(self) -> list[str]:
        return list(dict.fromkeys(unit.avdelning for unit in self.units if unit.avdelning))

    def units_of(self, kind: UnitKind) -> list[RegulationUnit]:
        return [unit for unit in self.units if unit.kind == kind]

    def unit(self, citation: str) -> RegulationUnit:
        """The first unit with this citation ("2 kap. 3 §"); KeyError if none."""
        for unit in self.units:
            if unit.citation == citation:
                return unit
        raise KeyError(citation)

    def to_dict(self) -> dict:
        return {
            "designation": self.designation,
            "agency": self.agency,
            "series": self.series,
            "number": self.number,
            "title": self.title,
            "issued": self.issued,
            "in_force": self.in_force,
            "published": self.published,
            "legal_basis": None if self.legal_basis is None
            else {"text": self.legal_basis.text, "sfs": self.legal_basis.sfs},
            "source": self.source,
            "pages": self.pages,
            "units": [unit.to_dict() for unit in self.units],
            "footnotes": [{"number": f.number, "text": f.text, "page": f.page} for f in self.footnotes],
        }


def number_key(number: str) -> tuple[int, str]:
    """Sort key for "2" / "2 a" / "2a" style numbers."""
    match = re.match(r"(\d+) ?([a-z]?)", number)
    return (int(match[1]), match[2]) if match else (0, "")


def iso_date(day: str, month: str, year: str) -> str:
    return f"{int(year):04d}-{MONTHS[month.lower()]:02d}-{int(day):02d}"


@dataclass(frozen=True)
class RegulationId:
    """A regulation's series and its number in it: "AFS" and "2023:10" for AFS 2023:10."""

    series: str
    number: str


def identify(path: Path) -> RegulationId:
    """Series and number from the file name: "AFS-2023-10.pdf" → "AFS", "2023:10"."""
    match = _FILE_RE.match(path.stem)
    if not match:
        raise ValueError(f"{path.name}: filnamnet följer inte mönstret <SERIE>-<år>-<nummer>.pdf")
    return RegulationId(series=match["series"], number=f"{match['year']}:{match['number']}")


def parse_regulation(path: Path | str) -> ParsedRegulation:
    """Parse one agency PDF; raises RegulationPdfError when the file cannot be read."""
    path = Path(path)
    regulation_id = identify(path)
    series, number = regulation_id.series, regulation_id.number
    agency, genitive = AGENCIES.get(series, (series, series))
    designation = f"{series} {number}"
    pages = read_pages(path)
    stripped = strip_furniture(pages, designation)
    lines, dropped = stripped.kept, stripped.dropped
    without_footnotes = _take_footnotes(lines)
    lines, footnotes = without_footnotes.lines, without_footnotes.footnotes
    without_metadata = _take_metadata(lines, designation)
    lines, published = without_metadata.lines, without_metadata.published
    dropped += without_metadata.dropped
    found = _find_title(lines, genitive)
    if not found.lines:
        found = _title_on_first_page(lines, genitive, designation)
    start, title_lines = found.start, found.lines
    title = _title_text(title_lines, genitive, lines)
    if title.prefix:
        dropped.append(DroppedLine(title_lines[0].page, title.prefix, "beteckning/datum före rubriken"))
    front = [DroppedLine(line.page, line.text, "försättsblad/innehåll") for line in lines[:start]]
    body = lines[start + len(title_lines):]
    units = _BodyParser(_typical_width(body)).parse(body)
    preamble_text = " ".join(" ".join(u.lines) for u in units if u.kind == "inledning")
    issued = _ISSUED_RE.search(preamble_text) or _ISSUED_RE.search(" ".join(line.text for line in lines))
    return ParsedRegulation(
        source=path.name,
        agency=agency,
        series=series,
        number=number,
        title=title.text or f"{genitive} författning {designation}",
        issued=iso_date(*issued.groups()) if issued else None,
        in_force=_in_force(units),
        published=published,
        legal_basis=legal_basis(preamble_text),
        units=units,
        footnotes=footnotes,
        pages=len(pages),
        front_matter=front,
        dropped=dropped,
        title_from=found.source,
    )


def legal_basis(preamble: str) -> LegalBasis | None:
    """The "med stöd av …" clause of the preamble, with the SFS numbers it cites."""
    text = re.sub(r"(?<=[a-zåäö)])\d{1,2}(?=[\s,.;]|$)", "", preamble)  # footnote markers
    text = re.sub(r"\s+", " ", text)
    match = re.search(r"med stöd av (?P<basis>.+?)(?:,? och (?:beslutar|meddelar)\b|\.(?= [A-ZÅÄÖ]|$)|:(?= |$))", text)
    if not match:
        return None
    basis = match["basis"].strip().rstrip(",")
    return LegalBasis(text=basis, sfs=list(dict.fromkeys(_SFS_RE.findall(basis))))


def _in_force(units: list[RegulationUnit]) -> str | None:
    ordered = [u for u in units if u.kind == "övergångsbestämmelser"] + units
    for unit in ordered:
        match = _IN_FORCE_RE.search(" ".join(unit.lines))
        if match:
            return iso_date(*match.groups())
    return None


@dataclass(frozen=True)
class _WithoutFootnotes:
    lines: list[Line]  # the lines left
    footnotes: list[Footnote]  # the footnotes taken out, in order


def _take_footnotes(lines: list[Line]) -> _WithoutFootnotes:
    """Footnotes sit at the bottom of a page and are numbered like a marker glued to a word
    above them on the same page ("föreskriver1", "(2010:1075)2"). Everything from the first
    such line to the end of the page is footnote text."""
    by_page: dict[int, list[Line]] = {}
    for line in lines:
        by_page.setdefault(line.page, []).append(line)
    kept: list[Line] = []
    notes: list[Footnote] = []
    for page, page_lines in by_page.items():
        cut = len(page_lines)
        for i, line in enumerate(page_lines):
            match = _FOOTNOTE_LINE_RE.match(line.text)
            if not match or i == 0 or PARAGRAPH_RE.match(line.text) or CHAPTER_RE.match(line.text):
                continue
            marker = re.compile(rf"(?<=[A-Za-zåäöÅÄÖ)]){match['num']}(?=[\s,.;:)]|$)")
            if any(marker.search(above.text) for above in page_lines[:i]):
                cut = i
                break
        kept.extend(page_lines[:cut])
        for line in page_lines[cut:]:
            match = _FOOTNOTE_LINE_RE.match(line.text)
            if match and (not notes or notes[-1].page != page or int(match["num"]) == int(notes[-1].number) + 1):
                notes.append(Footnote(match["num"], line.text[match.end():].strip(), page))
            else:
                notes[-1].text = _join(notes[-1].text, line.text)
    return _WithoutFootnotes(lines=kept, footnotes=notes)


@dataclass(frozen=True)
class _WithoutMetadata:
    lines: list[Line]  # the lines left
    dropped: list[DroppedLine]  # the metadata lines taken out, each with why
    published: str | None  # the publication date (ISO), when a line gave it


def _take_metadata(lines: list[Line], designation: str) -> _WithoutMetadata:
    """Remove the title block's metadata lines: the designation on its own line, and
    "Utkom från trycket den <date>" (the publication date, which may sit anywhere on the
    first page, even below the text in NFS)."""
    series, number = designation.split(" ")
    kept: list[Line] = []
    dropped: list[DroppedLine] = []
    published: str | None = None
    expect_date = False
    for line in lines:
        text = line.text
        date_line = _DATE_LINE_RE.match(text)
        if expect_date and date_line:
            published = published or iso_date(*date_line.groups())
            dropped.append(DroppedLine(line.page, text, "utgivningsdatum"))
            expect_date = False
            continue
        expect_date = False
        match = _PUBLISHED_RE.match(text)
        if match:
            dropped.append(DroppedLine(line.page, text, "utgivningsdatum"))
            if match.group(1):
                published = published or iso_date(*match.groups())
            else:
                expect_date = True
            continue
        if text in (designation, series, number, f"{series}{number}"):
            dropped.append(DroppedLine(line.page, text, "beteckning"))
            continue
        kept.append(line)
    return _WithoutMetadata(lines=kept, dropped=dropped, published=published)


_AGENCY_TITLE_WINDOW = 20  # lines above "beslutade den" searched for the agency's name
_MAX_TITLE_LINES = 6  # a title block found without "beslutade den" below it ends within this many lines


@dataclass(frozen=True)
class _FoundTitle:
    start: int  # index of the title's first line; the lines above it are front matter
    lines: list[Line]  # the lines the title takes (none when the text holds no title)
    source: TitleSource


def _find_title(lines: list[Line], genitive: str) -> _FoundTitle:
    """Where the title block starts and its lines (none when there is no title block).

    The title block ends just before "beslutade den …" and starts at the closest line
    above it that opens with the agency's name ("Arbetsmiljöverkets föreskrifter …"), or
    failing that with "föreskrifter". Without "beslutade den" there is no title block and
    the whole text is body.
    """
    decided = next((i for i, line in enumerate(lines) if _ISSUED_RE.search(line.text)), None)
    if decided is None:
        return _find_title_without_decision(lines, genitive)
    # The agency's name may wrap ("Myndigheten för samhällsskydd och" / "beredskaps föreskrifter om …"), and an
    # amending regulation's title may run over a dozen lines: the name is looked for across two lines, further up.
    agency = re.compile(rf"^{re.escape(genitive)}\b")
    for i in range(decided - 1, max(-1, decided - _AGENCY_TITLE_WINDOW), -1):
        start = " ".join(line.text for line in lines[i:min(i + 2, decided)])
        if agency.search(start) and "författningssamling" not in start:
            return _FoundTitle(start=i, lines=lines[i:decided], source="title block")
    # Failing the name, a title opening with "Föreskrifter" ("Föreskrifter om ändring i …"), then any line with
    # the word, nearest first.
    for pattern in (r"^Föreskrifter\b", r"(?i)\bföreskrifter\b"):
        for i in range(decided - 1, max(-1, decided - 12), -1):
            if re.search(pattern, lines[i].text) and "författningssamling" not in lines[i].text:
                return _FoundTitle(start=i, lines=lines[i:decided], source="title block")
    return _FoundTitle(start=decided, lines=[], source="title block")


def _find_title_without_decision(lines: list[Line], genitive: str) -> _FoundTitle:
    """Consolidated versions (AFS 2023:10 "Ändrad: t.o.m. …") print no "beslutade den":
    the title is then the first block that opens with the agency's name and ends with
    ";" within a few lines, as on the first page of every regulation."""
    for i, line in enumerate(lines):
        if not re.match(rf"^{re.escape(genitive)}\b", line.text) or "författningssamling" in line.text:
            continue
        for j in range(i, min(i + _MAX_TITLE_LINES, len(lines))):
            if lines[j].text.endswith(";"):
                return _FoundTitle(start=i, lines=lines[i:j + 1], source="title block")
    return _FoundTitle(start=0, lines=[], source="title block")


# Where a title may start when the title block is not where _find_title looks, besides the agency's name
# (_agency_start): a document of another kind printed in the series (a government "Förordning", a decision
# "Upphävande av …").
_OTHER_TITLE_START_RE = re.compile(r"^(?:Förordning|Upphävande av|Ändring i)\b")
# Lines that end a title block without belonging to it.
_AFTER_TITLE_RE = re.compile(r"^(?:Konsoliderad|Ändringar genom|Ändrad|Detta är|Observera|Lydelse|Utfärdad"
                             r"|Med stöd av|Omtryck|[Mm]ed ändringar)\b")


def _title_on_first_page(lines: list[Line], genitive: str, designation: str) -> _FoundTitle:
    """The title where the usual title block is not: before "beslutade den" in the reading order
    the PDF gives, glued to a designation or a date, ended by a consolidated version's notes rather
    than by ";", or opening another kind of document. A PDF whose text holds no title (the title
    printed as an image) finds none: the designation then names it (parse_regulation)."""
    first_page = lines[0].page if lines else 0
    first_pages = [line for line in lines if line.page <= first_page + 1]  # a prefix of `lines`
    agency_start = _agency_start(genitive)
    for i, line in enumerate(first_pages):
        if "författningssamling" in line.text:
            continue
        if not agency_start.match(line.text) and not _OTHER_TITLE_START_RE.match(line.text):
            continue
        end = _title_end(first_pages, i, designation)
        if end is not None:
            return _FoundTitle(start=i, lines=first_pages[i:end], source="first page")
    return _FoundTitle(start=0, lines=[], source="designation")


def _agency_start(genitive: str) -> re.Pattern:
    """The agency's name before a lower-case word, alone or after a designation or a date glued in front."""
    return re.compile(rf"^(?P<prefix>|.*\d ?){re.escape(genitive)} (?=[a-zåäö])")


@dataclass(frozen=True)
class _TitleText:
    text: str | None
    prefix: str  # a designation or date glued before the title on its first line, kept out of it


def _title_text(title_lines: list[Line], genitive: str, lines: list[Line]) -> _TitleText:
    """The title's lines as one title: a designation or date glued in front cut off, a space the text layer put
    inside a word or a number undone."""
    if not title_lines:
        return _TitleText(text=None, prefix="")
    first = title_lines[0]
    opened = _agency_start(genitive).match(first.text)
    prefix = opened["prefix"] if opened else ""
    text = _join_title([Line(first.page, first.index, first.text[len(prefix):]), *title_lines[1:]])
    vocabulary = {word.lower() for line in lines for word in re.findall(r"\w+", line.text)}
    text = _rejoin_split_words(text, vocabulary)
    text = re.sub(r"\((\d{4}): (\d+)\)", r"(\1:\2)", text)  # "(2012: 7)"
    return _TitleText(text=text, prefix=prefix.strip())


def _title_end(lines: list[Line], start: int, designation: str) -> int | None:
    """Index just past the title that starts at `start`: its line ending in ";", or the line before a
    line that follows a title (the designation, "beslutade den", a consolidated version's notes,
    a § or a chapter). None when nothing ends it within a few lines: then it is not a title."""
    series = designation.split(" ")[0]
    for j in range(start, min(start + _MAX_TITLE_LINES, len(lines))):
        text = lines[j].text
        if j > start and (text.startswith(series + " ") or _ISSUED_RE.search(text) or _AFTER_TITLE_RE.match(text)
                          or PARAGRAPH_RE.match(text) or CHAPTER_RE.match(text)):
            return j
        if text.endswith(";"):
            return j + 1
    return None


def _rejoin_split_words(text: str, vocabulary: set[str]) -> str:
    """Undo a space the PDF's text layer put inside a word ("allmänna rå d" → "allmänna råd"): two
    neighbouring pieces are joined when the joined word is written elsewhere in the document and one
    piece is a lone letter or not a word of it."""
    words = text.split(" ")
    out: list[str] = []
    for word in words:
        if out:
            joined = (out[-1] + word).lower()
            pieces = (out[-1].lower(), word.lower())
            if joined in vocabulary and any(len(piece) == 1 or piece not in vocabulary for piece in pieces):
                out[-1] += word
                continue
        out.append(word)
    return " ".join(out)


def _join_title(title_lines: list[Line]) -> str | None:
    if not title_lines:
        return None
    title = ""
    for line in title_lines:
        title = _join(title, line.text)
    return title.rstrip(";").strip()


def _typical_width(lines: list[Line]) -> int:
    """The length of a full line (90th percentile): a shorter line ending a sentence ends
    its stycke; a full one merely wraps."""
    lengths = sorted(len(line.text) for line in lines) or [80]
    return lengths[int(0.9 * (len(lengths) - 1))]


def _join(text: str, line: str) -> str:
    """Append a line, undoing a hyphenated line break ("felhand-" + "lingar"); a hyphen
    before a conjunction is a real one ("hälso- och sjukvård")."""
    if not text:
        return line
    if (re.search(r"[a-zåäö]-$", text) and line[:1].islower()
            and not re.match(r"(?:och|eller|samt|respektive|som|till)\b", line)):
        return text[:-1] + line
    return f"{text} {line}"


def _ends_sentence(text: str) -> bool:
    return bool(re.search(r"[.:;!?][”\")]?$", text)) and not _ABBREVIATION_END_RE.search(text)


def is_heading_like(text: str) -> bool:
    """Could this line be a rubrik? (Confirmed only when a §, chapter or avdelning follows.)"""
    if not text or len(text) > 100 or not (text[0].isupper() or text[0].isdigit()):
        return False
    if text[-1] in ".,;:" and not _ABBREVIATION_END_RE.search(text):
        return False
    return not (_LIST_ITEM_RE.match(text) or PARAGRAPH_RE.match(text) or ADVICE_RE.match(text))


class _BodyParser:
    """Labels the body lines and groups them into units in document order."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.units: list[RegulationUnit] = []
        self.current: RegulationUnit | None = None
        self.pending: list[str] = []
        self.avdelning: str | None = None
        self.chapter: str | None = None
        self.chapter_title: str | None = None
        self.heading: str | None = None
        self.last_section: str | None = None
        self.bilaga: str | None = None
        self.tail = False  # past the last §: transitional provisions and bilagor
        self.continues: str | None = None  # "chapter" / "avdelning" title wrapping onto the next line
        self.page_top: dict[int, int] = {}
        self.in_headings = False  # the previous line was a rubrik

    def parse(self, lines: list[Line]) -> list[RegulationUnit]:
        for line in lines:
            self.page_top.setdefault(line.page, line.index)
        headings = self._heading_lines(lines)
        for i, line in enumerate(lines):
            self._feed(line, i in headings, lines[i + 1].text if i + 1 < len(lines) else "")
        self._close()
        return self._drop_empty()

    def _drop_empty(self) -> list[RegulationUnit]:
        """A heading with nothing under it (a repeated "Övergångsbestämmelser" side label)
        makes an empty unit: its structural lines move on to the next unit."""
        kept: list[RegulationUnit] = []
        carry: list[str] = []
        for unit in self.units:
            unit.prelude = carry + unit.prelude
            if unit.lines:
                kept.append(unit)
                carry = []
            else:
                carry = unit.prelude
        carry += self.pending
        if carry and kept:
            # Structural lines after the last unit: keep them as its text.
            kept[-1].lines.extend(carry)
            kept[-1].stycken = self._stycken(kept[-1].lines)
        for ordinal, unit in enumerate(kept):
            unit.ordinal = ordinal
        return kept

    # --- labelling -------------------------------------------------------------------

    def _starts_structure(self, text: str) -> bool:
        return bool(PARAGRAPH_RE.match(text) and self._paragraph_text_ok(text)
                    or CHAPTER_RE.match(text) or AVDELNING_RE.match(text))

    @staticmethod
    def _paragraph_text_ok(text: str) -> bool:
        match = PARAGRAPH_RE.match(text)
        rest = match["rest"] if match else ""
        # Lowercase text means a line that merely starts with a reference ("4 § gäller …"
        # wrapped onto a new line); an empty rest is a § number printed alone on its line.
        return bool(match) and (not rest or rest[0].isupper() or rest[0] in "\"”(–-" or rest[0].isdigit())

    def _heading_lines(self, lines: list[Line]) -> set[int]:
        """Indexes of rubrik lines: up to three heading-like lines directly above a §,
        chapter or avdelning, themselves after a line that ends a sentence (or at the start)."""
        result: set[int] = set()
        for i, line in enumerate(lines):
            if not self._starts_structure(line.text):
                continue
            j = i
            while j > 0 and i - j < 3 and is_heading_like(lines[j - 1].text):
                j -= 1
            if j == i:
                continue
            before = lines[j - 1].text if j > 0 else "."
            if (_ends_sentence(before) or self._starts_structure(before) or ADVICE_RE.match(before)
                    or TRANSITIONAL_RE.match(before) or is_heading_like(before)):
                result.update(range(j, i))
        return result

    def _feed(self, line: Line, heading: bool, following: str) -> None:
        text = line.text
        if self.continues and text[:1].islower():
            self._continue_title(text)
            return
        self.continues = None
        if self.tail or self.bilaga:
            if self._bilaga(line, following):
                return
        match = AVDELNING_RE.match(text)
        if match and not self.tail:
            self._close()
            self.avdelning = text
            self.chapter = self.chapter_title = self.heading = self.last_section = None
            self.pending.append(text)
            self.continues = "avdelning"
            return
        match = CHAPTER_RE.match(text)
        if match and not self.tail and self._new_chapter(match["num"], match["title"]):
            self._close()
            self.chapter, self.chapter_title = match["num"], match["title"] or None
            self.heading = self.last_section = None
            self.pending.append(text)
            self.continues = "chapter" if match["title"] else "chapter-title"
            return
        if self.continues is None and self.pending and self.chapter and self.chapter_title is None \
                and self.pending[-1].startswith(f"{self.chapter} kap") and is_heading_like(text) and not heading:
            self.chapter_title = text
            self.pending.append(text)
            return
        if heading and not self.tail:
            self._close()
            self.pending.append(text)
            # Stacked rubriker (a group heading over a § heading) read as one path.
            self.heading = f"{self.heading} > {text}" if self.in_headings and self.heading else text
            self.in_headings = True
            return
        self.in_headings = False
        if TRANSITIONAL_RE.match(text) and self.current is not None and self.current.kind == "övergångsbestämmelser":
            # The heading repeated as a running label on the provisions' later pages.
            self.current.prelude.append(text)
            return
        if TRANSITIONAL_RE.match(text):
            self._close()
            self.tail = True
            self.pending.append(text)
            self._open("övergångsbestämmelser", line, citation="Övergångsbestämmelser")
            return
        if self._is_paragraph(text):
            match = PARAGRAPH_RE.match(text)
            assert match
            num = re.sub(r"(\d)([a-z])$", r"\1 \2", match["num"])
            self._close()
            self.last_section = num
            citation = f"{self.chapter} kap. {num} §" if self.chapter else f"{num} §"
            self._open("paragraf", line, citation=citation, section=num)
            self.current.lines.append(text)
            return
        if ADVICE_RE.match(text) and not self.tail:
            self._close()
            self.pending.append(text)
            base = (f"{self.chapter} kap. {self.last_section} §" if self.chapter else f"{self.last_section} §") \
                if self.last_section else (f"{self.chapter} kap." if self.chapter else "")
            self._open("allmänt råd", line, citation=f"{base} allmänna råd".strip(), section=self.last_section)
            return
        if ENTRY_RE.match(text) and self.last_section and (
                self.current is None or self.current.kind in ("paragraf", "allmänt råd")):
            self._close()
            self.tail = True
            self._open("övergångsbestämmelser", line, citation="Övergångsbestämmelser")
            self.current.lines.append(text)
            return
        if self.current is None:
            if not self.units and self.chapter is None and self.avdelning is None:
                self._open("inledning", line, citation="")
            elif self.chapter is not None or self.avdelning is not None:
                citation = f"{self.chapter} kap." if self.chapter else (self.avdelning or "")
                self._open("kapitel", line, citation=citation)
            else:
                self._open("inledning", line, citation="")
        self.current.lines.append(text)

    def _is_paragraph(self, text: str) -> bool:
        match = PARAGRAPH_RE.match(text)
        if not match or not self._paragraph_text_ok(text) or self.bilaga:
            return False
        if self.tail:
            return False
        num = number_key(match["num"])
        previous = number_key(self.last_section) if self.last_section else (0, "")
        if num > previous:
            return True
        # Out of order: only a fresh line after a finished sentence counts (reported by the
        # quality check); otherwise it is a wrapped line that starts with a reference.
        last = self.current.lines[-1] if self.current and self.current.lines else "."
        return _ends_sentence(last) and num[0] == 1

    def _new_chapter(self, num: str, title: str | None) -> bool:
        if title and not (title[0].isupper() or title[0].isdigit()):
            return False
        if title and "§" in title:
            return False  # "10 kap. 25 a § plan- och bygglagen" wrapped onto a new line
        return self.chapter is None or number_key(num) > number_key(self.chapter)

    def _continue_title(self, text: str) -> None:
        if self.continues == "bilaga" and self.current is not None:
            self.current.prelude[-1] = f"{self.current.prelude[-1]} {text}"
            self.current.title = f"{self.current.title} {text}"
            return
        self.pending[-1] = f"{self.pending[-1]} {text}"
        if self.continues == "avdelning":
            self.avdelning = self.pending[-1]
        elif self.continues == "chapter" and self.chapter_title:
            self.chapter_title = f"{self.chapter_title} {text}"

    def _bilaga(self, line: Line, following: str) -> bool:
        """Handle a "Bilaga N" line in the tail; True when consumed."""
        match = BILAGA_RE.match(line.text)
        if not match:
            return False
        num, rest = match["num"], (match["rest"] or "").strip()
        at_top = line.index - self.page_top.get(line.page, 0) < 6
        if not rest and (num == self.bilaga or following.startswith(f"Bilaga {num} ")):
            # The bilaga's running header, repeated on its pages.
            self.pending.append(line.text)
            return True
        if rest and not (rest[0].isupper() or rest[0].isdigit()):
            return False
        if self.bilaga and number_key(num) <= number_key(self.bilaga):
            return False
        if not at_top and self.bilaga is None and not self.tail:
            return False
        self._close()
        self.bilaga = num
        self.tail = True
        self.pending.append(line.text)
        self._open("bilaga", line, citation=f"Bilaga {num}")
        self.current.title = rest or None
        # A long title wraps: "Bilaga 1 Beräkning av daglig" / "bullerexponeringsnivå".
        self.continues = "bilaga" if rest else None
        return True

    # --- units -------------------------------------------------------------------------

    def _open(self, kind: UnitKind, line: Line, citation: str, section: str | None = None) -> None:
        in_body = kind not in ("bilaga", "övergångsbestämmelser")
        self.current = RegulationUnit(
            kind=kind,
            ordinal=len(self.units),
            citation=citation,
            page=line.page,
            avdelning=self.avdelning if in_body else None,
            chapter=self.chapter if in_body else None,
            chapter_title=self.chapter_title if in_body else None,
            section=section,
            heading=self.heading if kind in ("paragraf", "allmänt råd") else None,
            prelude=self.pending,
        )
        self.pending = []
        self.units.append(self.current)

    def _close(self) -> None:
        unit = self.current
        if unit is not None:
            if unit.kind == "bilaga" and unit.title is None and unit.lines:
                # "Bilaga 3" alone; its title is the next line.
                unit.title = unit.lines[0]
            unit.stycken = self._stycken(unit.lines)
        self.current = None

    def _stycken(self, lines: list[str]) -> list[str]:
        stycken: list[str] = []
        previous = ""
        for text in lines:
            opens = text[0].isupper() or text[0].isdigit() or text[0] in "\"”("
            # A list's last item ends with a full stop; what follows it in upper case is
            # a new stycke however long the item's last line was.
            after_list = bool(stycken and _LIST_ITEM_RE.match(stycken[-1]) and previous.endswith("."))
            new = not stycken or _LIST_ITEM_RE.match(text) or (
                _ends_sentence(previous) and (len(previous) < 0.85 * self.width or after_list) and opens
            )
            if new:
                stycken.append(text)
            else:
                stycken[-1] = _join(stycken[-1], text)
            previous = text
        return stycken
