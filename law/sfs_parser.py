"""Structural parser for consolidated Swedish statutes (SFS texts from rkrattsbaser).

The input is the `text` field of `data/sfs/sfs.jsonl`: paragraphs separated by one
blank line (see data/sfs/README.md). The parser classifies every paragraph and groups
them into *units* in document order:

* `ParsedSection` (kind "section"): one § (one per temporal version), including
  repealed stubs ("3 § Har upphävts genom lag (1987:791).").
* `ParsedSection` (kind "preamble"): prose before the first § and chapter.
* `ParsedSection` (kind "chapter"): a repealed-chapter stub ("33 kap. Kapitlet har
  upphävts …") or prose between a chapter heading and its first §.
* `TransitionalBlock`: one block of Övergångsbestämmelser, labelled with the SFS number
  of the amending act (`"2009:1439"`) or unlabelled (the original act's own block).
* `Appendix`: a Bilaga at the end of the statute.

Structural paragraphs (chapter headings, rubriker, avdelning headings, the
"Övergångsbestämmelser" heading, SFS labels, bare "Bilaga N" lines) are not unit text;
each is kept in the `prelude` of the unit that follows it, so that
`prelude + stycken` over all units (plus `ParsedStatute.trailing`) reproduces the
original paragraphs exactly. Tests rely on this to prove that no text is lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, Union

SectionKind = Literal["section", "preamble", "chapter"]

# "/Träder i kraft I:2024-07-01/", "/Upphör att gälla U:2029-01-01 genom lag (2018:1408)./",
# "/Ny beteckning 11 kap. 14 § U:2024-05-01/", "/Rubriken …/", "/Kapitlet …/"
_MARKER = r"/(?:Träder|Upphör|Ny beteckning|Rubriken|Kapitlet)[^/\n]*/"
_NUM = r"\d+(?: [a-z])?"

# The title must start with an uppercase letter: that excludes the table-of-contents
# lines "1 kap. - Inledande bestämmelser" (2021:890) and references such as
# "17 kap. handelsbalken," or "1 kap. 3 § om …" that happen to open a list item. A marker stands before the number
# ("/Kapitlet träder i kraft I:…/ 5 a kap. …") or after it ("12 kap. /Rubriken upphör att gälla U:…/ Tillsyn m.m.",
# "5 a kap. /Kapitlet träder i kraft I:…/ …").
CHAPTER_RE = re.compile(
    rf"^(?P<marker>{_MARKER} )?(?P<num>{_NUM}) [kK]ap\.(?: +(?P<after_marker>{_MARKER}))?"
    rf"(?: +(?P<title>[A-ZÅÄÖÉ].*))?$", re.S
)
# A marker of the chapter's rubrik alone: the chapter and its §§ stay as they are.
_RUBRIK_MARKER_RE = re.compile(r"/Rubriken\b")
# A § starts a paragraph and is followed by an uppercase letter, a temporal marker or a
# lowercase repeal note. Lowercase text ("17 § om jäv,", "7 § första stycket …") or a
# tab (tables in 2011:1244) means a list item or table row that merely cites a §.
SECTION_RE = re.compile(
    rf"^(?P<num>{_NUM}) ?§ *\*? *(?:(?P<marker>{_MARKER}) *)?(?=[A-ZÅÄÖÉ/]|har up)"
)
# Some source pages run the first § into its chapter heading: "10 kap. Överklagande 1 § …".
_MERGED_SECTION_RE = re.compile(rf" (?={_NUM} § [A-ZÅÄÖÉ])")
TRANSITIONAL_HEADING_RE = re.compile(r"^(?:Ikraftträdande- och )?[Öö]vergångsbestämmelser$")
SFS_LABEL_RE = re.compile(r"^\d{4}:\d+$")
APPENDIX_RE = re.compile(r"^Bilaga(?: (?P<num>\d+(?: ?[a-z])?(?:\. ?\d+)?))?(?=$| )(?P<rest>.*)$", re.S)
AMENDMENT_RE = re.compile(
    r"(?P<tag>(?:Lag|Förordning|Kungörelse|Balk|lag|förordning) ?\((?P<sfs>\d{4}:\d+)\))\.?\s*$"
)
REPEALED_RE = re.compile(r"^(?:Kapitlet )?[Hh]ar (?:upp?hävts|upphört att gälla)")
_TEMPORAL_RE = re.compile(
    r"^(?:(?P<in>(?:Rubriken |Kapitlet )?[Tt]räder i kraft)|(?P<out>(?:Rubriken |Kapitlet )?[Uu]pphör att gälla)"
    r"|(?P<renum>Ny beteckning (?P<newref>.+?)))"
    r" [IU]:(?P<date>\d{4}-\d{2}-\d{2}|den dag (?:som )?regeringen bestämmer)"
)
_TABLE_RE = re.compile(r"\t| {3,}")
_ABBREVIATION_END_RE = re.compile(r"\b(?:m\. ?m|m\. ?fl|o\. ?d|etc|osv|d\. ?v\. ?s)\.$")


@dataclass
class ParsedSection:
    """A § (or preamble / chapter-level text) of the statute body.

    kind: "section" for a §, "preamble" for prose before the first § and chapter,
        "chapter" for a repealed-chapter stub or prose between a chapter heading and
        its first §.
    chapter: chapter number as written ("3", "3 a"), None in statutes without chapters.
    chapter_title: heading of the chapter ("Allmänna skyldigheter"), None if it has none.
    section: § number as written ("2", "2 a"), None unless kind == "section".
    heading: the rubrik (section heading) in force for this §; several stacked headings
        are joined with " > ". Inherited by later §§ until a new heading or chapter.
    part: avdelning heading(s) above the chapter ("AVDELNING IV. SEKRETESS …").
    citation: how the unit is cited: "3 kap. 2 a §", "36 §" (continuously numbered
        statutes and statutes without chapters), "33 kap." or "" (preamble).
    stycken: the original paragraphs of the unit, in order; the first one of a § starts
        with its number ("2 a § …"). Numbered points ("1. …") are separate stycken.
    amendment: the closing amendment tag, "Lag (1994:579)", if any.
    amended_by: the SFS number in that tag, "1994:579".
    repealed: True for stubs such as "3 § Har upphävts genom lag (1987:791)."
    temporal: the version marker without slashes, "Träder i kraft I:2024-07-01";
        both versions of a changing § are separate units with the same citation.
    temporal_kind: "in_force" (future version), "expires" (outgoing version) or
        "renumbered" ("Ny beteckning 11 kap. 14 § U:2024-05-01").
    temporal_date: "2024-07-01" or "den dag som regeringen bestämmer".
    ordinal: position of the unit among all units of the statute (document order).
    prelude: structural paragraphs (headings) that directly precede the unit.
    """

    kind: SectionKind
    chapter: str | None
    chapter_title: str | None
    section: str | None
    heading: str | None
    citation: str
    stycken: list[str]
    ordinal: int
    part: str | None = None
    amendment: str | None = None
    amended_by: str | None = None
    repealed: bool = False
    temporal: str | None = None
    temporal_kind: str | None = None
    temporal_date: str | None = None
    prelude: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n\n".join(self.stycken)


@dataclass
class TransitionalBlock:
    """One block of Övergångsbestämmelser.

    label: SFS number of the act the block belongs to ("2009:1439"); None for a block
        printed directly under the heading without a number (the original act's own).
    citation: "Övergångsbestämmelser 2009:1439" (or "Övergångsbestämmelser").
    """

    label: str | None
    stycken: list[str]
    ordinal: int
    prelude: list[str] = field(default_factory=list)
    kind: str = "transitional"

    @property
    def citation(self) -> str:
        return f"Övergångsbestämmelser {self.label}" if self.label else "Övergångsbestämmelser"

    @property
    def text(self) -> str:
        return "\n\n".join(self.stycken)


@dataclass
class Appendix:
    """A Bilaga after the statute body; label is "Bilaga 1", "Bilaga 6 a.1" or "Bilaga"."""

    label: str
    stycken: list[str]
    ordinal: int
    prelude: list[str] = field(default_factory=list)
    kind: str = "appendix"

    @property
    def citation(self) -> str:
        return self.label

    @property
    def text(self) -> str:
        return "\n\n".join(self.stycken)


Unit = Union[ParsedSection, TransitionalBlock, Appendix]


@dataclass
class ParsedStatute:
    """Result of `parse_statute`.

    sections: body units (kinds "section", "preamble", "chapter") in document order.
    transitional: transitional-provision blocks in document order.
    appendices: Bilagor in document order.
    chapters: (number, title) of every chapter heading, in order.
    chapters_numbered_continuously: True when § numbers run on across chapters
        (avtalslagen 1915:218, upphovsrättslagen 1960:729); such §§ are cited without
        the chapter.
    trailing: structural paragraphs after the last unit (normally empty).
    """

    sfs: str
    sections: list[ParsedSection]
    transitional: list[TransitionalBlock]
    appendices: list[Appendix]
    chapters: list[tuple[str, str | None]]
    chapters_numbered_continuously: bool
    trailing: list[str] = field(default_factory=list)

    @property
    def units(self) -> list[Unit]:
        """All units in document order (transitional blocks and appendices can interleave)."""
        merged: list[Unit] = [*self.sections, *self.transitional, *self.appendices]
        return sorted(merged, key=lambda unit: unit.ordinal)


def number_key(number: str) -> tuple[int, str]:
    """Sort key for "2" / "2 a" style numbers."""
    digits, _, letter = number.partition(" ")
    return int(digits), letter


@dataclass(frozen=True)
class ParsedTemporal:
    """What a version marker says; both None for no marker or one that is not a version marker.

    kind: "in_force" | "expires" | "renumbered" (see ParsedSection.temporal_kind).
    date: "2024-07-01" or "den dag som regeringen bestämmer".
    """

    kind: str | None = None
    date: str | None = None


def parse_temporal(marker: str) -> ParsedTemporal:
    """The kind and date of a marker without slashes."""
    match = _TEMPORAL_RE.match(marker)
    if not match:
        return ParsedTemporal()
    kind = "in_force" if match["in"] else "expires" if match["out"] else "renumbered"
    return ParsedTemporal(kind=kind, date=match["date"])


def is_heading_like(paragraph: str) -> bool:
    """Could this paragraph be a rubrik? (Confirmed only if a § or chapter follows.)"""
    text = paragraph.strip()
    if text.startswith("/Rubriken"):
        return True
    if not text or len(text) > 200 or not (text[0].isupper() or text[0] == "/"):
        return False
    if text[-1] in ":;," or _TABLE_RE.search(paragraph) or "\n" in text:
        return False
    # Headings end without a full stop, except for abbreviations ("Tillsyn m.m.");
    # a sentence break inside means prose.
    if text.endswith(".") and not _ABBREVIATION_END_RE.search(text):
        return False
    if re.search(r"[a-zåäö]\. [A-ZÅÄÖ]", text):
        return False
    # A stycke that only lost its final full stop still carries its amendment tag.
    return not re.search(r"\((?:\d{4}:\d+)\)", text) and not SECTION_RE.match(text)


def _strip_marker(paragraph: str) -> tuple[str, str | None]:
    match = re.match(rf"^({_MARKER}) *", paragraph)
    if not match:
        return paragraph.strip(), None
    return paragraph[match.end():].strip(), match.group(1).strip("/")


def _classify(paragraphs: list[str], body_end: int) -> list[str]:
    """Label body paragraphs "chapter", "section", "heading" or "text"."""
    labels = ["text"] * body_end
    for i in range(body_end):
        if CHAPTER_RE.match(paragraphs[i]):
            labels[i] = "chapter"
        elif SECTION_RE.match(paragraphs[i]):
            labels[i] = "section"
    _unlabel_contents_lists(paragraphs, labels)
    i = 0
    while i < body_end:
        if labels[i] != "text" or not is_heading_like(paragraphs[i]):
            i += 1
            continue
        j = i
        while j < body_end and labels[j] == "text" and is_heading_like(paragraphs[j]):
            j += 1
        # Headings always introduce something; a short line followed by more prose is
        # a list intro or an unpunctuated stycke.
        if j == body_end or labels[j] in ("chapter", "section"):
            labels[i:j] = ["heading"] * (j - i)
        i = j
    return labels


def _plain_chapter_line(paragraph: str) -> bool:
    match = CHAPTER_RE.match(paragraph)
    return bool(match and not match["marker"] and not match["after_marker"]
                and not REPEALED_RE.match(match["title"] or ""))


def _unlabel_contents_lists(paragraphs: list[str], labels: list[str]) -> None:
    """Chapter lines in a row are a table of contents inside a § (2023:200 1 kap. 2 §).

    A real chapter heading is followed by a rubrik or a §; only repealed-chapter stubs
    (and temporal versions) legitimately follow each other.
    """
    plain = [labels[i] == "chapter" and _plain_chapter_line(paragraphs[i]) for i in range(len(labels))]
    for i, is_plain in enumerate(plain):
        neighbours = plain[i - 1] if i > 0 else False, plain[i + 1] if i + 1 < len(plain) else False
        if is_plain and any(neighbours):
            labels[i] = "text"


def _tail_start(paragraphs: list[str]) -> int:
    """Index where transitional provisions / appendices begin (len if none)."""
    last_structural = -1
    for i, paragraph in enumerate(paragraphs):
        if SECTION_RE.match(paragraph) or CHAPTER_RE.match(paragraph):
            last_structural = i
    for i in range(last_structural + 1, len(paragraphs)):
        text = paragraphs[i].strip()
        if TRANSITIONAL_HEADING_RE.match(text) or SFS_LABEL_RE.match(text) or _appendix_heading(text):
            return i
    return len(paragraphs)


def _split_paragraphs(text: str) -> list[str]:
    paragraphs = [p for p in text.split("\n\n") if p.strip()]
    result: list[str] = []
    for paragraph in paragraphs:
        match = CHAPTER_RE.match(paragraph)
        merged = match and match["title"] and _MERGED_SECTION_RE.search(match["title"])
        if merged:
            cut = match.start("title") + merged.start()
            result.extend([paragraph[:cut], paragraph[cut + 1:]])
        else:
            result.append(paragraph)
    return result


class _BodyParser:
    """State machine over the classified body paragraphs."""

    def __init__(self) -> None:
        self.units: list[ParsedSection] = []
        self.chapters: list[tuple[str, str | None]] = []
        self.pending: list[str] = []
        self.group: list[str] = []  # headings seen since the last unit
        self.active_group: list[str] = []  # headings governing the current §§
        self.chapter: str | None = None
        self.chapter_title: str | None = None
        self.chapter_temporal: str | None = None
        self.part: str | None = None
        self.expect_chapter_title = False
        self.current: ParsedSection | None = None

    def feed(self, paragraph: str, label: str, ordinal: int) -> None:
        getattr(self, f"_on_{label}")(paragraph, ordinal)

    def _on_chapter(self, paragraph: str, ordinal: int) -> None:
        self.current = None
        match = CHAPTER_RE.match(paragraph)
        assert match
        if self.group:  # headings directly above a chapter are avdelning headings
            self.part = " > ".join(_strip_marker(h)[0] for h in self.group)
        self.group, self.active_group = [], []
        self.chapter, self.chapter_title = match["num"], match["title"]
        marker = match["marker"] or (match["after_marker"] if match["after_marker"]
                                     and not _RUBRIK_MARKER_RE.match(match["after_marker"]) else None)
        self.chapter_temporal = marker.strip().strip("/") if marker else None
        self.chapters.append((self.chapter, self.chapter_title))
        self.expect_chapter_title = self.chapter_title is None
        if self.chapter_title and REPEALED_RE.match(self.chapter_title):
            self._open("chapter", paragraph, ordinal)
            self.current = None
        else:
            self.pending.append(paragraph)

    def _on_heading(self, paragraph: str, ordinal: int) -> None:
        self.current = None
        self.pending.append(paragraph)
        if self.expect_chapter_title:  # "19 kap." alone, its title in the next paragraph
            self.chapter_title = _strip_marker(paragraph)[0]
            self.chapters[-1] = (self.chapter or "", self.chapter_title)
            self.expect_chapter_title = False
        else:
            self.group.append(paragraph)

    def _on_section(self, paragraph: str, ordinal: int) -> None:
        if self.group:
            self.active_group, self.group = self.group, []
        self._open("section", paragraph, ordinal)

    def _on_text(self, paragraph: str, ordinal: int) -> None:
        if self.current is not None:
            self.current.stycken.append(paragraph)
            return
        self._open("preamble" if self.chapter is None else "chapter", paragraph, ordinal)

    def _open(self, kind: SectionKind, paragraph: str, ordinal: int) -> None:
        section = temporal = None
        if kind == "section":
            match = SECTION_RE.match(paragraph)
            assert match
            section = match["num"]
            temporal = match["marker"].strip("/") if match["marker"] else self.chapter_temporal
        parsed_temporal = parse_temporal(temporal) if temporal else ParsedTemporal()
        unit = ParsedSection(
            kind=kind,
            chapter=self.chapter,
            chapter_title=self.chapter_title,
            section=section,
            heading=_select_heading(self.active_group, parsed_temporal.kind) if kind == "section" else None,
            citation="",
            stycken=[paragraph],
            ordinal=ordinal,
            part=self.part,
            temporal=temporal,
            temporal_kind=parsed_temporal.kind,
            temporal_date=parsed_temporal.date,
            prelude=self.pending,
        )
        self.pending = []
        self.units.append(unit)
        self.current = unit


def _select_heading(group: list[str], temporal_kind: str | None) -> str | None:
    """Pick the headings valid for a § version; unmarked §§ get the version in force now."""
    wanted = "in_force" if temporal_kind == "in_force" else "expires"
    chosen = []
    for raw in group:
        text, marker = _strip_marker(raw)
        kind = parse_temporal(marker).kind if marker else None
        if kind in (None, wanted, "renumbered"):
            chosen.append(text)
    return " > ".join(chosen) or None


def _finish_sections(units: list[ParsedSection], continuous: bool) -> None:
    for unit in units:
        match = AMENDMENT_RE.search(unit.stycken[-1])
        if match:
            unit.amendment, unit.amended_by = match["tag"], match["sfs"]
        first = unit.stycken[0]
        body = SECTION_RE.sub("", first, count=1) if unit.kind == "section" else first
        body = CHAPTER_RE.sub(lambda m: m["title"] or "", body, count=1)
        unit.repealed = bool(REPEALED_RE.match(_strip_marker(body)[0]))
        unit.citation = _citation(unit, continuous)


def _citation(unit: ParsedSection, continuous: bool) -> str:
    if unit.kind == "preamble":
        return ""
    if unit.kind == "chapter":
        return f"{unit.chapter} kap."
    if unit.chapter is None or continuous:
        return f"{unit.section} §"
    return f"{unit.chapter} kap. {unit.section} §"


def numbered_continuously(sections: list[ParsedSection]) -> bool:
    """True when § numbering runs on across chapters instead of restarting at 1.

    Decided from the text: for each chapter boundary, does the new chapter's first §
    restart at 1 or continue from the previous chapter's highest number?
    """
    per_chapter: dict[str, list[int]] = {}
    for unit in sections:
        if unit.kind == "section" and unit.chapter is not None and unit.section:
            per_chapter.setdefault(unit.chapter, []).append(number_key(unit.section)[0])
    numbers = list(per_chapter.values())
    restarts = continues = 0
    for previous, current in zip(numbers, numbers[1:]):
        if current[0] == 1:
            restarts += 1
        elif current[0] >= max(previous):
            continues += 1
    return continues > restarts


@dataclass
class _Tail:
    """What follows a statute's last §: its transitional blocks and appendices, and the structural lines left
    after the last of them."""

    transitional: list[TransitionalBlock]
    appendices: list[Appendix]
    trailing: list[str]


def _parse_tail(paragraphs: list[str], first_ordinal: int, pending: list[str]) -> _Tail:
    transitional: list[TransitionalBlock] = []
    appendices: list[Appendix] = []
    current: TransitionalBlock | Appendix | None = None
    for offset, paragraph in enumerate(paragraphs):
        ordinal = first_ordinal + offset
        text = paragraph.strip()
        appendix = _appendix_heading(text)
        if TRANSITIONAL_HEADING_RE.match(text):
            pending.append(paragraph)
            current = None
        elif SFS_LABEL_RE.match(text) and not isinstance(current, Appendix):
            pending.append(paragraph)
            current = TransitionalBlock(label=text, stycken=[], ordinal=ordinal, prelude=pending)
            transitional.append(current)
            pending = []
        elif appendix is not None:
            label, has_body = appendix
            if not has_body:
                pending.append(paragraph)
            current = Appendix(label=label, stycken=[paragraph] if has_body else [],
                               ordinal=ordinal, prelude=pending)
            appendices.append(current)
            pending = []
        else:
            if current is None:
                current = TransitionalBlock(label=None, stycken=[], ordinal=ordinal, prelude=pending)
                transitional.append(current)
                pending = []
            current.stycken.append(paragraph)
    # Drop units that never got text (e.g. an SFS label directly followed by another);
    # their structural lines move on to the next unit so nothing is lost.
    return _merge_empty(transitional, appendices, pending)


def _appendix_heading(text: str) -> tuple[str, bool] | None:
    """(label, heading carries text) for "Bilaga 2", "Bilaga 1 Har upphävts …"."""
    match = APPENDIX_RE.match(text)
    if not match:
        return None
    rest = match["rest"].strip()
    # "Bilaga 3 till lagen …" in running text is not a heading.
    if rest and not re.match(r"^(?:/|Har upphävts)", rest):
        return None
    return (f"Bilaga {match['num']}" if match["num"] else "Bilaga"), bool(rest)


def _merge_empty(transitional: list[TransitionalBlock], appendices: list[Appendix], pending: list[str]) -> _Tail:
    units: list[TransitionalBlock | Appendix] = sorted([*transitional, *appendices], key=lambda u: u.ordinal)
    carry: list[str] = []
    kept: list[TransitionalBlock | Appendix] = []
    for unit in units:
        unit.prelude = carry + unit.prelude
        if unit.stycken:
            kept.append(unit)
            carry = []
        else:
            carry = unit.prelude
    return _Tail(
        transitional=[u for u in kept if isinstance(u, TransitionalBlock)],
        appendices=[u for u in kept if isinstance(u, Appendix)],
        trailing=carry + pending,
    )


def parse_statute(text: str, sfs: str) -> ParsedStatute:
    """Parse the consolidated text of one statute into §§, transitional blocks and appendices."""
    paragraphs = _split_paragraphs(text)
    body_end = _tail_start(paragraphs)
    labels = _classify(paragraphs, body_end)
    body = _BodyParser()
    for index in range(body_end):
        body.feed(paragraphs[index], labels[index], len(body.units))
    continuous = numbered_continuously(body.units)
    _finish_sections(body.units, continuous)
    tail = _parse_tail(paragraphs[body_end:], len(body.units), body.pending)
    transitional, appendices, trailing = tail.transitional, tail.appendices, tail.trailing
    _renumber([*body.units, *transitional, *appendices])
    return ParsedStatute(
        sfs=sfs,
        sections=body.units,
        transitional=transitional,
        appendices=appendices,
        chapters=body.chapters,
        chapters_numbered_continuously=continuous,
        trailing=trailing,
    )


def _renumber(units: list[Unit]) -> None:
    """Make ordinals dense (0, 1, 2 …) after empty tail units were dropped."""
    for ordinal, unit in enumerate(sorted(units, key=lambda u: u.ordinal)):
        unit.ordinal = ordinal
