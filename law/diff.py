"""What changed between two consolidated versions of a statute, unit by unit, and a readable word diff.

A unit is a § (or chapter-level text) of the body, keyed by its citation ("3 kap. 2 a §") and, for
the doubled §§ of a coming change, by its temporal kind. Texts are compared without whitespace, so
a different line wrapping or a hyphen at a line end is not a change. The amendment tag ("Lag
(2025:974).") names the amending act; it is left out of the comparison of the wording, which lets
the tags check the method (`tag_agreement`).
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from law.sfs_parser import AMENDMENT_RE, ParsedSection, parse_statute

ADDED, AMENDED, REPEALED, RENUMBERED = "ADDED", "AMENDED", "REPEALED", "RENUMBERED"

_LEADING_NUMBER_RE = re.compile(r"^\s*\d+(?: [a-z])? ?§\s*")
_MARKER_RE = re.compile(r"/(?:Träder|Upphör|Ny beteckning|Rubriken|Kapitlet)[^/\n]*/\s*")
_REPEALED_BY_RE = re.compile(r"[Hh]ar (?:upp?hävts|upphört att gälla) genom (?:lag|förordning) \((\d{4}:\d+)\)")
_MONTHS = {m: i for i, m in enumerate(
    ("januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober",
     "november", "december"), start=1)}
_IN_FORCE_RE = re.compile(
    r"träder i kraft den (\d{1,2}) (" + "|".join(_MONTHS) + r") (\d{4})", re.IGNORECASE)


@dataclass(frozen=True)
class UnitText:
    key: str
    citation: str
    chapter: str
    section: str
    text: str
    wording: str        # the text without its amendment tag, leading number and whitespace
    amended_by: str
    repealed: bool
    temporal: str
    temporal_kind: str
    temporal_date: str
    ordinal: int


@dataclass(frozen=True)
class UnitChange:
    kind: str
    citation: str
    old_citation: str
    chapter: str
    section: str
    temporal: str
    amending_sfs: str
    in_force: date | None
    old_text: str
    new_text: str
    ordinal: int


@dataclass
class TagAgreement:
    """Counts behind the two agreement figures, over §§ present in both versions."""

    tag_changed: int = 0
    tag_changed_and_text_changed: int = 0
    text_changed: int = 0
    text_changed_and_new_tag: int = 0

    def add(self, other: TagAgreement) -> None:
        for name in ("tag_changed", "tag_changed_and_text_changed", "text_changed", "text_changed_and_new_tag"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def tag_changed_share(self) -> float | None:
        return round(self.tag_changed_and_text_changed / self.tag_changed, 4) if self.tag_changed else None

    @property
    def text_changed_share(self) -> float | None:
        return round(self.text_changed_and_new_tag / self.text_changed, 4) if self.text_changed else None


@dataclass
class VersionDiff:
    changes: list[UnitChange] = field(default_factory=list)
    agreement: TagAgreement = field(default_factory=TagAgreement)

    def counts(self) -> Counter:
        return Counter(change.kind for change in self.changes)


def _wording(unit: ParsedSection) -> str:
    text = _MARKER_RE.sub("", unit.text)
    text = _LEADING_NUMBER_RE.sub("", text)
    text = AMENDMENT_RE.sub("", text.rstrip())
    return re.sub(r"\s+", "", text)


def statute_units(text: str, sfs: str) -> dict[str, UnitText]:
    """The §§ and chapter-level units of a statute's body, by key."""
    units: dict[str, UnitText] = {}
    for unit in parse_statute(text, sfs).sections:
        if unit.kind == "preamble":
            continue
        key = unit.citation + (f" @{unit.temporal_kind}" if unit.temporal_kind in ("in_force", "expires") else "")
        if key in units:  # a duplicate citation (a source artefact): keep both apart by order
            key = f"{key} #{unit.ordinal}"
        units[key] = UnitText(
            key=key, citation=unit.citation, chapter=unit.chapter or "", section=unit.section or "",
            text=unit.text, wording=_wording(unit), amended_by=unit.amended_by or "",
            repealed=unit.repealed, temporal=unit.temporal or "", temporal_kind=unit.temporal_kind or "",
            temporal_date=unit.temporal_date or "", ordinal=unit.ordinal,
        )
    return units


def transitional_in_force(text: str, sfs: str) -> dict[str, date]:
    """The in-force date each amending act's transitional block gives ("träder i kraft den 1 juli 2026")."""
    dates: dict[str, date] = {}
    for block in parse_statute(text, sfs).transitional:
        match = _IN_FORCE_RE.search(block.text)
        if block.label and match:
            day, month, year = int(match.group(1)), _MONTHS[match.group(2).lower()], int(match.group(3))
            try:
                dates[block.label] = date(year, month, day)
            except ValueError:
                continue
    return dates


def _amending_sfs(unit: UnitText) -> str:
    if unit.amended_by:
        return unit.amended_by
    match = _REPEALED_BY_RE.search(unit.text)
    return match.group(1) if match else ""


def _in_force(unit: UnitText | None, amending: str, known: dict[str, date]) -> date | None:
    if unit is not None and unit.temporal_kind == "in_force":
        try:
            return date.fromisoformat(unit.temporal_date)
        except ValueError:
            return None
    return known.get(amending)


def diff_statute(old_text: str, new_text: str, sfs: str, *,
                 in_force_by_act: dict[str, date] | None = None) -> VersionDiff:
    """The changed units between two versions (in the new version's order) and the tag counts."""
    old, new = statute_units(old_text, sfs), statute_units(new_text, sfs)
    known = {**transitional_in_force(new_text, sfs), **(in_force_by_act or {})}
    result = VersionDiff()

    def change(kind: str, before: UnitText | None, after: UnitText | None) -> UnitChange:
        unit = after or before
        amending = _amending_sfs(after) if after is not None else ""
        return UnitChange(
            kind=kind, citation=unit.citation,
            old_citation=before.citation if before is not None and kind == RENUMBERED else "",
            chapter=unit.chapter, section=unit.section, temporal=after.temporal if after else "",
            amending_sfs=amending, in_force=_in_force(after, amending, known),
            old_text=before.text if before else "", new_text=after.text if after else "",
            ordinal=unit.ordinal if after is not None else 100000 + unit.ordinal,
        )

    for key in old.keys() & new.keys():
        before, after = old[key], new[key]
        wording_changed = before.wording != after.wording
        if before.section and not before.temporal_kind:
            tag_changed = before.amended_by != after.amended_by
            result.agreement.tag_changed += tag_changed
            result.agreement.tag_changed_and_text_changed += tag_changed and wording_changed
            result.agreement.text_changed += wording_changed
            result.agreement.text_changed_and_new_tag += wording_changed and tag_changed
        if not wording_changed and before.amended_by == after.amended_by:
            continue
        if after.repealed and not before.repealed:
            result.changes.append(change(REPEALED, before, after))
        elif before.repealed and not after.repealed:
            result.changes.append(change(ADDED, before, after))
        elif wording_changed or before.amended_by != after.amended_by:
            result.changes.append(change(AMENDED, before, after))

    gone = {key: old[key] for key in old.keys() - new.keys()}
    arrived = {key: new[key] for key in new.keys() - old.keys()}
    # A unit whose wording moved unchanged to a citation that did not exist before was renumbered.
    by_wording = {unit.wording: key for key, unit in gone.items() if unit.wording and not unit.repealed}
    for key, after in sorted(arrived.items(), key=lambda item: item[1].ordinal):
        source = by_wording.pop(after.wording, None) if after.wording and not after.temporal_kind else None
        if source is not None:
            result.changes.append(change(RENUMBERED, gone.pop(source), after))
        elif after.temporal_kind != "expires":
            result.changes.append(change(REPEALED if after.repealed else ADDED, None, after))
    for before in gone.values():
        if not before.repealed and before.temporal_kind != "expires":
            result.changes.append(change(REPEALED, before, None))
    result.changes.sort(key=lambda c: c.ordinal)
    return result


# --- readable diff -------------------------------------------------------------------------------

@dataclass(frozen=True)
class DiffSegment:
    op: str    # "same", "added", "removed"
    text: str


_TOKEN_RE = re.compile(r"\S+\s*")


def word_diff(old: str, new: str) -> list[list[DiffSegment]]:
    """The new text as stycken of segments, words added and removed marked (stycke by stycke, so a
    change in one stycke does not smear across the §)."""
    old_paragraphs = [p for p in old.split("\n\n") if p.strip()]
    new_paragraphs = [p for p in new.split("\n\n") if p.strip()]
    matcher = difflib.SequenceMatcher(a=old_paragraphs, b=new_paragraphs, autojunk=False)
    out: list[list[DiffSegment]] = []
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            out.extend([DiffSegment("same", p)] for p in new_paragraphs[b0:b1])
        elif op == "delete":
            out.extend([DiffSegment("removed", p)] for p in old_paragraphs[a0:a1])
        elif op == "insert":
            out.extend([DiffSegment("added", p)] for p in new_paragraphs[b0:b1])
        else:
            pairs = max(a1 - a0, b1 - b0)
            for offset in range(pairs):
                before = old_paragraphs[a0 + offset] if a0 + offset < a1 else ""
                after = new_paragraphs[b0 + offset] if b0 + offset < b1 else ""
                out.append(_words(before, after))
    return out


def _words(old: str, new: str) -> list[DiffSegment]:
    a, b = _TOKEN_RE.findall(old), _TOKEN_RE.findall(new)
    matcher = difflib.SequenceMatcher(a=[t.strip() for t in a], b=[t.strip() for t in b], autojunk=False)
    segments: list[DiffSegment] = []
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            segments.append(DiffSegment("same", "".join(b[b0:b1])))
            continue
        if a1 > a0:
            segments.append(DiffSegment("removed", "".join(a[a0:a1])))
        if b1 > b0:
            segments.append(DiffSegment("added", "".join(b[b0:b1])))
    return segments
