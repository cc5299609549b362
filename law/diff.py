"""What changed between two consolidated versions of a statute, unit by unit, and a readable word diff.

A unit is a § (or chapter-level text) of the body, keyed by its citation ("3 kap. 2 a §") and, for
the doubled §§ of a coming change, by its temporal kind; or a Bilaga ("Bilaga 1"), which amendments change
too (a list of authorities, a table of rates) and which carries its own amendment tag; or a block of
transitional provisions ("Övergångsbestämmelser 2016:350"), compared only when both versions have it: a later
act that moves a date in an earlier act's transitional provisions changes the law, while the block each
amending act brings is that act's own (its in-force date is read from it) and not a change of a unit. Lists inside a unit
("– energi,", "1. …", "• …") are stycken of it, compared with the rest of its text. Texts are compared without whitespace, so
a different line wrapping or a hyphen at a line end is not a change. The amendment tag ("Lag
(2025:974).") names the amending act; it is left out of the comparison of the wording, which lets
the tags check the method (`tag_agreement`). A § the amending acts' notes renumber is compared under its new
number with its own old text (`_renumber`), not with the § that had that number before.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date

from law.amendment_notes import RepealNotes
from law.sfs_parser import AMENDMENT_RE, APPENDIX_RE, REPEALED_RE, ParsedTemporal, parse_statute, parse_temporal

ADDED, AMENDED, REPEALED, RENUMBERED = "ADDED", "AMENDED", "REPEALED", "RENUMBERED"

_LEADING_NUMBER_RE = re.compile(r"^\s*\d+(?: [a-z])? ?§\s*")
_MARKER_RE = re.compile(r"/(?:Träder|Upphör|Ny beteckning|Rubriken|Kapitlet)[^/\n]*/\s*")
_HEADING_MARKER_RE = re.compile(r"/(?P<marker>(?:Träder|Upphör)[^/\n]*)/")
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
    transitional: bool = False


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


def _wording(text: str) -> str:
    text = _MARKER_RE.sub("", text)
    text = _LEADING_NUMBER_RE.sub("", text)
    text = AMENDMENT_RE.sub("", text.rstrip())
    return re.sub(r"\s+", "", text)


def _unique(key: str, units: dict[str, UnitText]) -> str:
    """A duplicate citation (a source artefact) is kept apart by its occurrence ("#2"), which, unlike its
    position in the statute, does not move when a unit is added before it."""
    if key not in units:
        return key
    occurrence = 2
    while f"{key} #{occurrence}" in units:
        occurrence += 1
    return f"{key} #{occurrence}"


_ACT_IN_TEXT_RE = re.compile(r"(?:Lag|Förordning|Kungörelse|lag|förordning) ?\((\d{4}):(\d+)\)")


def _newest_act(text: str) -> str:
    """The newest act a Bilaga or a transitional block names in its tags ("Förordning (2025:1142).") or repeal
    notes ("Har upphävts genom lag (2025:974)."): such a unit holds many items, each with its own, and the
    one that changed it last is the newest."""
    found = [(int(year), int(number)) for year, number in _ACT_IN_TEXT_RE.findall(text)]
    return "%d:%d" % max(found) if found else ""


def _temporal_key(key: str, temporal_kind: str | None) -> str:
    return key + (f" @{temporal_kind}" if temporal_kind in ("in_force", "expires") else "")


def statute_units(text: str, sfs: str) -> dict[str, UnitText]:
    """The §§ and chapter-level units of a statute's body, its Bilagor and its transitional blocks, by key."""
    units: dict[str, UnitText] = {}
    parsed = parse_statute(text, sfs)
    for unit in parsed.sections:
        if unit.kind == "preamble":
            continue
        key = _unique(_temporal_key(unit.citation, unit.temporal_kind), units)
        units[key] = UnitText(
            key=key, citation=unit.citation, chapter=unit.chapter or "", section=unit.section or "",
            text=unit.text, wording=_wording(unit.text), amended_by=unit.amended_by or "",
            repealed=unit.repealed, temporal=unit.temporal or "", temporal_kind=unit.temporal_kind or "",
            temporal_date=unit.temporal_date or "", ordinal=unit.ordinal,
        )
    for appendix in parsed.appendices:
        body, temporal = appendix.text, ""
        # A heading that carries text ("Bilaga 2 Har upphävts genom …", "Bilaga 1 /Träder i kraft …/ …") is
        # the unit's label, not its wording; its marker makes the Bilaga a coming or outgoing version.
        heading = APPENDIX_RE.match(appendix.stycken[0])
        if heading and re.match(r"(?:/|Har upphävts)", heading["rest"].strip()):
            body = "\n\n".join([heading["rest"].strip(), *appendix.stycken[1:]])
            marker = _HEADING_MARKER_RE.match(body)
            temporal = marker["marker"] if marker else ""
        parsed_temporal = parse_temporal(temporal) if temporal else ParsedTemporal()
        key = _unique(_temporal_key(appendix.label, parsed_temporal.kind), units)
        units[key] = UnitText(
            key=key, citation=appendix.label, chapter="", section="", text=appendix.text,
            wording=_wording(body), amended_by=_newest_act(appendix.text),
            repealed=bool(REPEALED_RE.match(_MARKER_RE.sub("", body))), temporal=temporal,
            temporal_kind=parsed_temporal.kind or "", temporal_date=parsed_temporal.date or "",
            ordinal=appendix.ordinal,
        )
    for block in parsed.transitional:
        key = _unique(block.citation, units)
        units[key] = UnitText(
            key=key, citation=block.citation, chapter="", section="", text=block.text,
            wording=_wording(block.text), amended_by=_newest_act(block.text), repealed=False, temporal="",
            temporal_kind="", temporal_date="", ordinal=block.ordinal, transitional=True,
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
        return _iso_day(unit.temporal_date)
    return known.get(amending)


# "Upphör att gälla U:2026-06-06 genom lag (2026:232)." names the act that ends the unit.
_ENDED_BY_RE = re.compile(r"genom (?:lag|förordning) \(?(\d{4}:\d+)\)?", re.IGNORECASE)


def _in_force_unit(units: dict[str, UnitText], citation: str) -> UnitText | None:
    """The § in force under `citation`: its plain unit, else (a text still giving a wording that has come as
    coming) the coming wording that begins last."""
    plain = units.get(citation)
    if plain is not None and not plain.temporal_kind:
        return plain
    comings = [unit for unit in units.values() if unit.citation == citation and unit.temporal_kind == "in_force"]
    return max(comings, key=lambda unit: _iso_day(unit.temporal_date) or date.min, default=None)


def _marked_units(old: dict[str, UnitText], new: dict[str, UnitText], gone: dict[str, UnitText],
                  arrived: dict[str, UnitText], change: Callable[[str, UnitText | None, UnitText | None], UnitChange],
                  ) -> list[UnitChange]:
    """The units an amending act marks rather than rewrites at once: a § in force today that gets a coming wording
    ("/Träder i kraft I:…/") or an end ("/Upphör att gälla U:…/"). Each marked unit arriving is paired with the §
    in force under its citation, which it does not remove: a coming wording is that § amended (its words
    compared with today's), a § that ends with no coming wording is a repeal dated by its marker, and a marker
    that leaves the words as they are (a chapter's new rubrik marks every § under it) is no change of the §. A
    coming wording under the citation of a § whose words moved to another citation is left unpaired: that § was
    renumbered, and the coming one is new. A § given plainly once its coming wording has come, in other words
    again, is that § amended. Paired units leave `gone` and `arrived` (in place), so neither reads as a § repealed today or one new."""
    changes = []
    # Today's words arriving under another citation: the § was renumbered, and a coming wording under its old
    # citation is a new § (the renumbering is found after this, by wording).
    moved = {unit.wording for unit in arrived.values() if not unit.temporal_kind}
    for key, after in sorted(arrived.items(), key=lambda item: item[1].ordinal):
        current = _in_force_unit(old, after.citation) if after.temporal_kind in ("in_force", "expires") else None
        if current is None or current.repealed or current.transitional:
            continue
        if after.citation in gone and current.wording in moved and after.temporal_kind == "in_force" \
                and key.replace(" @in_force", " @expires") not in new:
            continue
        del arrived[key]
        gone.pop(current.key, None)
        if after.wording != current.wording:
            changes.append(change(AMENDED, current, after))
        elif after.temporal_kind == "expires" and key.replace(" @expires", " @in_force") not in new \
                and after.citation not in new:  # a chapter coming in its place gives its §§ plainly
            ended_by = _ENDED_BY_RE.search(after.temporal)
            ending = change(REPEALED, current, after)
            changes.append(replace(ending, new_text="", amending_sfs=ended_by.group(1) if ended_by
                                   else ending.amending_sfs, in_force=_iso_day(after.temporal_date)))
    # A § whose coming wording has come and that the text now gives plainly, worded again since: amended from the
    # coming wording (the outgoing one is not compared; it ended when the coming one began). A § marked to end
    # and now given plainly in other words is amended from the words it had.
    gone_wordings = {unit.wording for unit in gone.values()}
    for key, after in sorted(arrived.items(), key=lambda item: item[1].ordinal):
        if after.temporal_kind or after.citation in old or after.wording in gone_wordings:
            continue
        marked = [k for k, unit in gone.items() if unit.citation == after.citation]
        # The coming wordings, else an end that did not come as announced (a later act worded the § again).
        comings = [k for k in marked if gone[k].temporal_kind == "in_force"] or \
            [k for k in marked if gone[k].temporal_kind == "expires"]
        if not comings:
            continue
        del arrived[key]
        # Of several coming wordings (one per day), the last to begin is the one the new words follow.
        latest = max(comings, key=lambda k: _iso_day(gone[k].temporal_date) or date.min)
        before = gone[latest]
        for k in comings:
            del gone[k]
        changes.append(change(AMENDED, before, after))
    return changes


def _iso_day(value: str) -> date | None:
    try:
        return date.fromisoformat(value)
    except ValueError:  # "den dag som regeringen bestämmer"
        return None


_CITATION_RE = re.compile(r"^(?:(?P<chapter>\d+(?: [a-z])?) kap\. )?(?P<section>\d+(?: [a-z])?) §$")


def _citation(chapter: str, section: str) -> str:
    return f"{chapter} kap. {section} §" if chapter else f"{section} §"


def unit_of(citation: str) -> tuple[str, str] | None:
    """("7", "9 a") for "7 kap. 9 a §", ("", "2") for "2 §"; None for another unit (a Bilaga, a chapter)."""
    found = _CITATION_RE.match(citation)
    return (found["chapter"] or "", found["section"]) if found else None


@dataclass(frozen=True)
class _Renumbered:
    """The old version's units with the §§ the notes renumbered keyed by their new citations (`units`), the old
    citation of each such key (`moved_from`), and the units whose citation a moved § took (`displaced`)."""

    units: dict[str, UnitText]
    moved_from: dict[str, str]
    displaced: list[UnitText]


def _renumber(old: dict[str, UnitText], new: dict[str, UnitText],
              moves: dict[tuple[str, str], tuple[str, str]]) -> _Renumbered:
    """Put each § the notes renumbered ("nuvarande 3 kap. 7 § betecknas 3 kap. 2 §") under its new citation, when
    the new text gives that citation, so it is compared with its own new text rather than with the § that had the
    number before. All of an act's §§ move at once, so a § taking the place of another that moves on is no clash;
    one taking the place of a § that stays (one the act repealed) displaces it."""
    moving: dict[str, UnitText] = {}
    for key, unit in old.items():
        # By citation, as the notes cite: "36 §" of a statute numbered on across chapters has no chapter in it.
        cited = unit_of(unit.citation) if unit.section and not unit.temporal_kind else None
        target = moves.get(cited) if cited is not None else None
        citation = _citation(*target) if target is not None else ""
        # A move still to come (the text gives the § under its new number as a coming wording, or marks it to end
        # under its old one) is the marked units' business: today the § keeps its number.
        if not citation or citation not in new or _temporal_key(citation, "in_force") in new \
                or _temporal_key(unit.citation, "expires") in new:
            continue
        # The chapter it stands in now: the new text's (a § numbered on across chapters may move into the next).
        moving[key] = replace(unit, key=citation, citation=citation, chapter=new[citation].chapter, section=target[1])
    if not moving:
        return _Renumbered(old, {}, [])
    units = {key: unit for key, unit in old.items() if key not in moving}
    displaced = []
    for unit in moving.values():
        if unit.key in units:
            displaced.append(units.pop(unit.key))
        units[unit.key] = unit
    return _Renumbered(units, {unit.key: old[key].citation for key, unit in moving.items()}, displaced)


def diff_statute(old_text: str, new_text: str, sfs: str, *, in_force_by_act: dict[str, date] | None = None,
                 repeals: RepealNotes | None = None,
                 renumbered: dict[tuple[str, str], tuple[str, str]] | None = None) -> VersionDiff:
    """The changed units between two versions (in the new version's order) and the tag counts. `repeals`: the §§
    the amending acts' notes repeal (`law.amendment_notes`), for those that leave the text without a stub;
    `renumbered`: where the notes moved §§ of the old version (`renumber_notes`)."""
    repeals = repeals or RepealNotes()
    old, new = statute_units(old_text, sfs), statute_units(new_text, sfs)
    moved = _renumber(old, new, renumbered or {})
    old = moved.units
    known = {**transitional_in_force(new_text, sfs), **(in_force_by_act or {})}
    result = VersionDiff()

    def change(kind: str, before: UnitText | None, after: UnitText | None) -> UnitChange:
        unit = after or before
        amending = _amending_sfs(after) if after is not None else ""
        in_force = _in_force(after, amending, known)
        # A § that left the text without a stub, or is marked to end without naming the act: the act whose notes
        # repealed it, if any did.
        noted = repeals.act_for(unit_of(unit.citation), unit.chapter) \
            if kind == REPEALED and (after is None or after.temporal_kind == "expires") else None
        if noted is not None:
            amending, in_force = noted.act, noted.in_force or known.get(noted.act)
        # A § the notes moved carries its old citation; the § whose number it took (displaced) does not.
        renumbered_from = moved.moved_from.get(before.key, "") if before is not None and \
            moved.units.get(before.key) is before else ""
        old_citation = renumbered_from or (before.citation if before is not None and kind == RENUMBERED else "")
        return UnitChange(
            kind=kind, citation=unit.citation, old_citation=old_citation,
            chapter=unit.chapter, section=unit.section, temporal=after.temporal if after else "",
            amending_sfs=amending, in_force=in_force,
            old_text=before.text if before else "", new_text=after.text if after else "",
            ordinal=unit.ordinal if after is not None else 100000 + unit.ordinal,
        )

    for key in old.keys() & new.keys():
        before, after = old[key], new[key]
        wording_changed = before.wording != after.wording
        # The tags check the diff on §§ that kept their number (a renumbering act tags the § it moves).
        if before.section and not before.temporal_kind and key not in moved.moved_from:
            tag_changed = before.amended_by != after.amended_by
            result.agreement.tag_changed += tag_changed
            result.agreement.tag_changed_and_text_changed += tag_changed and wording_changed
            result.agreement.text_changed += wording_changed
            result.agreement.text_changed_and_new_tag += wording_changed and tag_changed
        if key in moved.moved_from and not wording_changed:
            result.changes.append(change(RENUMBERED, before, after))
            continue
        if not wording_changed and before.amended_by == after.amended_by:
            continue
        if after.repealed and not before.repealed:
            result.changes.append(change(REPEALED, before, after))
        elif before.repealed and not after.repealed:
            result.changes.append(change(ADDED, before, after))
        elif wording_changed or before.amended_by != after.amended_by:
            result.changes.append(change(AMENDED, before, after))

    # An amending act's transitional provisions arrive and leave with it: not a change of the statute's units.
    gone = {key: old[key] for key in old.keys() - new.keys() if not old[key].transitional}
    arrived = {key: new[key] for key in new.keys() - old.keys() if not new[key].transitional}
    result.changes.extend(_marked_units(old, new, gone, arrived, change))
    # A unit whose wording moved unchanged to a citation that did not exist before was renumbered. The same
    # wording under the same citation (a coming version now in force, "2 § @in_force" -> "2 §") is no change;
    # it is looked for first, as several §§ can read alike ("Utbildningen ska vara avgiftsfri.").
    by_wording: dict[str, list[str]] = {}
    for key, unit in sorted(gone.items(), key=lambda item: item[1].ordinal):
        if unit.wording and not unit.repealed:
            by_wording.setdefault(unit.wording, []).append(key)
    for key, after in sorted(arrived.items(), key=lambda item: item[1].ordinal):
        candidates = by_wording.get(after.wording, []) if after.wording and not after.temporal_kind else []
        source = next((k for k in candidates if gone[k].citation == after.citation), None) or next(
            iter(candidates), None)
        if source is not None:
            candidates.remove(source)
            before = gone.pop(source)
            if before.citation != after.citation:
                result.changes.append(change(RENUMBERED, before, after))
        elif after.temporal_kind != "expires":
            result.changes.append(change(REPEALED if after.repealed else ADDED, None, after))
    # A § whose number a renumbered § took is gone from the text under it: repealed (the notes' "upph." names the
    # act), or moved by a note too irregular to pair, which still leaves its number to another §.
    result.changes.extend(change(REPEALED, before, None) for before in moved.displaced
                          if not before.repealed and not before.transitional)
    # A unit whose citation the new text still gives (plainly, marked, or twice) is no § repealed: a coming wording
    # that has come, one withdrawn, a § the source once numbered twice.
    cited_now = {unit.citation for unit in new.values()}
    for before in gone.values():
        if before.citation in cited_now:
            continue
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
            out.extend(_words(old_paragraphs[a0:a1], new_paragraphs[b0:b1]))
    return out


def _words(old: list[str], new: list[str]) -> list[list[DiffSegment]]:
    """The words of a run of changed stycken, compared as one text and laid out as the new stycken.

    The same list can be one stycke in one version and an item per stycke in the other ("… bedrivs av - a,
    - b." against "- a," "- b."): compared stycke by stycke, every item would show as removed and added
    again; compared as one text, only the item that changed does. Removed words go with the stycke where
    they stood (the one the next kept word is in), or as a stycke of their own when all of it went."""
    # A stycke's last word is followed by the next stycke's first: keep a space between them.
    a = [token if token[-1:].isspace() else token + " "
         for paragraph in old for token in _TOKEN_RE.findall(paragraph)]
    b: list[tuple[int, str]] = [(i, token) for i, paragraph in enumerate(new)
                                for token in _TOKEN_RE.findall(paragraph)]
    stycken: list[list[DiffSegment]] = [[] for _ in new] or [[]]
    matcher = difflib.SequenceMatcher(a=[t.strip() for t in a], b=[t.strip() for _, t in b], autojunk=False)

    def put(index: int, op: str, text: str) -> None:
        segments = stycken[index]
        if segments and segments[-1].op == op:
            segments[-1] = DiffSegment(op, segments[-1].text + text)
        else:
            segments.append(DiffSegment(op, text))

    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if a1 > a0 and op != "equal":
            at = b[b0][0] if b0 < len(b) else len(new) - 1 if new else 0
            put(max(at, 0), "removed", "".join(a[a0:a1]))
        for index, token in b[b0:b1]:
            put(index, "same" if op == "equal" else "added", token)
    return stycken
