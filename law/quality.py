"""Parse-quality check of the agency regulations: order, bilagor and no text lost.

How "no text lost" is measured: the words of the PDF's own text (pypdf, the same
extraction the parser reads) minus the lines the parser deliberately dropped (page
furniture, title-block metadata, front matter: each recorded with its reason) are
compared, as a multiset, with the words of the parse (title, unit preludes and stycken,
footnotes). Coverage is the share of the PDF's words found. A word the parser rejoined
across a hyphenated line break ("felhand-" + "lingar") counts as found when the joined
word is in the parse. The dropped lines are reported by reason, so the denominator is
visible too.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from law.parsers.foreskrift import ParsedRegulation, number_key, parse_regulation
from law.parsers.pdf_lines import RegulationPdfError, read_pages

COVERAGE_TARGET = 0.99
_WORD_RE = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return [word.lower() for word in _WORD_RE.findall(text)]


@dataclass
class FileQuality:
    """The check's findings for one PDF."""

    file: str
    designation: str
    units: int
    paragraphs: int
    advice: int
    bilagor: int
    bilagor_referenced: list[str]
    coverage: float
    missing_words: list[str]
    order_exceptions: list[str]
    dropped_by_reason: dict[str, int]
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Coverage:
    share: float  # of the PDF's kept words, found in the parse
    missing: list[str]  # a sample (up to 20) of the words not found


def coverage(regulation: ParsedRegulation, pages: list[list[str]]) -> Coverage:
    """How much of the PDF's text (its furniture and front matter aside) the parse holds."""
    dropped = Counter((line.page, line.text) for line in [*regulation.dropped, *regulation.front_matter])
    source: list[str] = []
    for number, page in enumerate(pages, 1):
        for text in page:
            if dropped[(number, text)] > 0:
                dropped[(number, text)] -= 1
                continue
            source.extend(words(text))
    for (page, text), left in dropped.items():
        # A prefix cut off a line ("KIFS 2022:3 2. Europaparlamentets …") was dropped
        # from a line that is otherwise kept: take its words out of the source too.
        for _ in range(left):
            for word in words(text):
                if word in source:
                    source.remove(word)
    parsed = Counter(words(regulation.title))
    for unit in regulation.units:
        for text in [*unit.prelude, *unit.stycken]:
            parsed.update(words(text))
    for note in regulation.footnotes:
        parsed.update(words(note.number + " " + note.text))
    if not source:
        return Coverage(share=1.0, missing=[])
    found = 0
    missing: list[str] = []
    i = 0
    while i < len(source):
        word = source[i]
        if parsed[word] > 0:
            parsed[word] -= 1
            found += 1
        elif i + 1 < len(source) and parsed[word + source[i + 1]] > 0:
            parsed[word + source[i + 1]] -= 1
            found += 2
            i += 1
        else:
            missing.append(word)
        i += 1
    return Coverage(share=found / len(source), missing=missing[:20])


def order_exceptions(regulation: ParsedRegulation) -> list[str]:
    """§§ whose number does not go up within their chapter (and chapters that go down)."""
    found: list[str] = []
    previous: dict[str | None, tuple[int, str]] = {}
    for unit in regulation.units_of("paragraf"):
        key = number_key(unit.section or "")
        if key <= previous.get(unit.chapter, (0, "")):
            found.append(f"{unit.citation} efter {previous[unit.chapter][0]}{previous[unit.chapter][1]} §")
        previous[unit.chapter] = key
    chapters = [number_key(number) for number, _ in regulation.chapters]
    if chapters != sorted(set(chapters)):
        found.append("kapitlen är inte i ordning")
    return found


def referenced_bilagor(regulation: ParsedRegulation) -> list[str]:
    """Bilagor the regulation's own text mentions ("bilaga 1", "bilagorna 2 och 3")."""
    numbers: set[str] = set()
    for unit in regulation.units:
        if unit.kind == "bilaga":
            continue
        for match in re.finditer(r"\b[Bb]ilag(?:a|orna) (\d+)(?:(?:, | och | eller |–)(\d+))*(?P<after> till (?P<whose>\S+ \S+))?",
                                 unit.text):
            # "bilaga 3 till avfallsförordningen" is another act's bilaga; "till dessa
            # föreskrifter" / "till denna författning" is this one's.
            if match["after"] and not re.match(r"(?:dessa|denna|föreskrifterna|författningen)", match["whose"]):
                continue
            numbers.update(n for n in re.findall(r"\d+", match.group(0).split(" till ")[0]))
    return sorted(numbers, key=int)


def check_file(path: Path, regulation: ParsedRegulation | None = None) -> FileQuality:
    """Check one PDF; pass its parse when it is already at hand (the extraction does)."""
    regulation = regulation or parse_regulation(path)
    pages = read_pages(path)
    covered = coverage(regulation, pages)
    kept_bilagor = {u.citation.removeprefix("Bilaga ").split()[0] for u in regulation.units_of("bilaga")}
    referenced = referenced_bilagor(regulation)
    quality = FileQuality(
        file=path.name,
        designation=regulation.designation,
        units=len(regulation.units),
        paragraphs=len(regulation.units_of("paragraf")),
        advice=len(regulation.units_of("allmänt råd")),
        bilagor=len(kept_bilagor),
        bilagor_referenced=referenced,
        coverage=round(covered.share, 4),
        missing_words=covered.missing,
        order_exceptions=order_exceptions(regulation),
        dropped_by_reason=dict(Counter(line.reason for line in regulation.dropped + regulation.front_matter)),
    )
    if covered.share < COVERAGE_TARGET:
        quality.problems.append(f"täckning {covered.share:.2%} < {COVERAGE_TARGET:.0%}")
    if quality.order_exceptions:
        quality.problems.append("paragrafordning: " + "; ".join(quality.order_exceptions))
    # Every bilaga the text refers to must have been kept (references to another
    # regulation's bilagor would show here too, and are read by a person).
    absent = [n for n in referenced if n not in kept_bilagor]
    if absent:
        quality.problems.append("bilagor som nämns men saknas: " + ", ".join(absent))
    if not regulation.units_of("paragraf"):
        quality.problems.append("inga paragrafer hittade")
    if regulation.title_from == "designation":
        quality.problems.append("rubriken saknas i PDF:ens text: beteckningen namnger dokumentet")
    return quality


def check_collection(root: Path, parsed: dict[Path, ParsedRegulation] | None = None) -> dict:
    """Check every PDF under root; the summary the extraction prints and the test reads."""
    results: list[FileQuality] = []
    errors: dict[str, str] = {}
    for path in sorted(root.rglob("*.pdf")):
        try:
            results.append(check_file(path, (parsed or {}).get(path)))
        except RegulationPdfError as error:
            errors[path.name] = str(error)
    return summarise(results, errors)


def summarise(results: list[FileQuality], errors: dict[str, str]) -> dict:
    by_series: dict[str, list[FileQuality]] = {}
    for result in results:
        by_series.setdefault(result.designation.split()[0], []).append(result)
    shares = [r.coverage for r in results]
    return {
        "files": len(results) + len(errors),
        "parsed": len(results),
        "units": sum(r.units for r in results),
        "paragraphs": sum(r.paragraphs for r in results),
        "allmanna_rad": sum(r.advice for r in results),
        "bilagor": sum(r.bilagor for r in results),
        "coverage_min": min(shares, default=0.0),
        "coverage_median": statistics.median(shares) if shares else 0.0,
        "by_series": {
            series: {
                "files": len(items),
                "paragraphs": sum(r.paragraphs for r in items),
                "allmanna_rad": sum(r.advice for r in items),
                "bilagor": sum(r.bilagor for r in items),
                "coverage_min": min(r.coverage for r in items),
                "coverage_median": statistics.median(r.coverage for r in items),
            }
            for series, items in sorted(by_series.items())
        },
        "problems": {r.file: r.problems for r in results if r.problems},
        "errors": errors,
        "per_file": [asdict(r) for r in results],
    }
