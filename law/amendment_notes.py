"""Which §§ and chapters an amending act repealed, and which §§ it gave new numbers, read from the official
record's notes on it ("anteckningar": "upph. 9 kap., 11 kap. 6 §, 16 kap. 7, 7 a §§; ändr. 1 kap. 3, 4 §§",
"nuvarande 3 kap. 7, 7 a §§ betecknas 3 kap. 2, 3 §§"), so that a § that leaves the consolidated text without a
"Har upphävts genom …" stub still names the act that repealed it and the day it did, and a § moved to a new number
is compared with its own old text, not with the § that had that number before.

Only the acts a version brings are read (those after the version before it): an older act may have repealed an
earlier § under the same number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from law.sfs_records import AmendingAct, OfficialRecord, sfs_key

_NUMBER = r"\d+(?:\s?[a-z]\b)?"
_NUMBERS = rf"{_NUMBER}(?:\s*(?:,|och)\s*{_NUMBER})*"
# "3, 4 kap." (whole chapters), "16 kap. 7, 7 a §§" (§§ of the last chapter named), "16, 27 §§" (no chapters).
_ITEM_RE = re.compile(rf"(?P<chapters>{_NUMBERS})\s*kap\.?(?:\s*(?P<in_chapter>{_NUMBERS})\s*§§?)?"
                      rf"|(?P<sections>{_NUMBERS})\s*§§?")
# What an "upph." list names besides §§ and chapters: a rubrik ("rubr. närmast före 10 kap. 25 a §"), points of the
# transitional provisions ("p 12, 13 i ikrafttr.- och övergångsbest."), a Bilaga.
_NOT_A_UNIT_RE = re.compile(r"rubr\.[^,;§]*(?:§§?|kap\.)|\bp\s+\d+[^;]*?(?:best\.|bestämmelser)|\bbil(?:\.|aga)\s*\d*",
                            re.IGNORECASE)

# An "upph." list, also where the register's notes misspell it "upp." ("upp. 2 kap. 7 §, …"), which abbreviates no
# other operation.
_REPEAL_RE = re.compile(r"upph?\.", re.IGNORECASE)

# Another operation written after a comma instead of a semicolon ("upph. 5 kap. 3 §, nuvarande 5 kap. 4 § betecknas
# 5 kap. 3 §"): the "upph." list ends there.
_NEXT_OPERATION_RE = re.compile(r"\b(?:nuvarande|ändr\.|nya?\s+\d|betecknas)", re.IGNORECASE)


def _numbers(text: str) -> list[str]:
    return [re.sub(r"\s+", " ", number.strip()) for number in re.split(r"\s*(?:,|och)\s*", text)]


def _listed_units(text: str) -> list[tuple[str, str]]:
    """The units a list names, in its order: "3, 4 kap., 16 kap. 7, 7 a §§, 27 §" -> (3, ""), (4, ""), (16, 7),
    (16, 7 a), ("", 27); a whole chapter has section "", a § of a statute without chapters chapter ""."""
    units: list[tuple[str, str]] = []
    for match in _ITEM_RE.finditer(text):
        if match["in_chapter"]:
            chapter = _numbers(match["chapters"])[-1]
            units += [(chapter, section) for section in _numbers(match["in_chapter"])]
        elif match["chapters"]:
            units += [(chapter, "") for chapter in _numbers(match["chapters"])]
        else:
            units += [("", section) for section in _numbers(match["sections"])]
    return units


def _sections_in_order(text: str) -> list[tuple[str, str]]:
    """The §§ a list names, in its order; [] when it names a whole chapter, whose §§ are not listed one by one."""
    units = _listed_units(text)
    return [] if any(not section for _, section in units) else units


def renumbered_in_notes(notes: str) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """The §§ the notes give new numbers ("nuvarande 9 kap. 3 § betecknas 9 kap. 2 §"), old -> new, in order. A
    list whose two sides do not pair one to one, or that renumbers whole chapters, is left out."""
    pairs: list[tuple[tuple[str, str], tuple[str, str]]] = []
    # Two renumberings may share a part, after a comma ("nuvarande 2 a § betecknas 2 b §, nuvarande 3 § betecknas …").
    for part in (piece for part in notes.split(";") for piece in re.split(r",\s*(?=nuvarande\b)", part)):
        before, found, after = part.partition("betecknas")
        if not found:
            continue
        if "nuvarande" in before:
            before = before.rsplit("nuvarande", 1)[1]
        elif re.match(r"\s*(?:upph?\.|ändr\.|nya?\s)", before, re.IGNORECASE):
            continue  # another operation's list runs into it: which §§ are moved is not certain
        after = _NEXT_OPERATION_RE.split(after, maxsplit=1)[0]
        old = _sections_in_order(_NOT_A_UNIT_RE.sub(" ", before))
        new = _sections_in_order(_NOT_A_UNIT_RE.sub(" ", after))
        if old and len(old) == len(new):
            pairs += list(zip(old, new, strict=True))
    return pairs


def repealed_in_notes(notes: str) -> set[tuple[str, str]]:
    """The units the notes' "upph." lists name: (chapter, section), with section "" for a whole chapter and chapter
    "" for a statute without chapters."""
    units: set[tuple[str, str]] = set()
    for part in notes.split(";"):
        operation = _REPEAL_RE.match(part.strip())
        if operation is None:
            continue
        listed = _NEXT_OPERATION_RE.split(part.strip()[operation.end():], maxsplit=1)[0]
        # The rubriker an "upph." list names come last, each with the units it stood before ("rubr. närmast före
        # 4 kap. 10, 12 §§, 12 kap. 7 §"): none of those units is repealed by being named there.
        listed = listed.split("rubr.", 1)[0]
        units.update(_listed_units(_NOT_A_UNIT_RE.sub(" ", listed)))
    return units


@dataclass(frozen=True)
class NotedRepeal:
    act: str  # "2025:974"
    in_force: date | None


@dataclass
class RepealNotes:
    """Per unit the act that repealed it, by the notes (or, read again, by what was stored)."""

    units: dict[tuple[str, str], NotedRepeal] = field(default_factory=dict)

    def act_for(self, unit: tuple[str, str] | None, chapter: str) -> NotedRepeal | None:
        """The act repealing the § cited as `unit` (`law.diff.unit_of`: ("3", "2") for "3 kap. 2 §", ("", "36") for
        "36 §" of a statute whose § numbers run on across its chapters, as the notes cite it too), or the whole
        chapter `chapter` it stands in."""
        noted = self.units.get(unit) if unit is not None else None
        return noted or (self.units.get((chapter, "")) if chapter else None)


def _acts_after(acts: Iterable[AmendingAct], after: str) -> list[AmendingAct]:
    """The acts newer than `after` ("t.o.m. SFS 2024:1200"), oldest first: those the version brings."""
    floor = sfs_key(after)
    return sorted((act for act in acts if sfs_key(act.sfs) > floor), key=lambda act: sfs_key(act.sfs))


def repeal_notes(acts: Iterable[AmendingAct], *, after: str) -> RepealNotes:
    """The repeals the acts newer than `after` ("t.o.m. SFS 2024:1200") note; of two naming one unit, the newer."""
    notes = RepealNotes()
    for act in _acts_after(acts, after):
        for unit in repealed_in_notes(act.notes):
            notes.units[unit] = NotedRepeal(act.sfs, act.in_force)
    return notes


def renumber_notes(acts: Iterable[AmendingAct], *, after: str) -> dict[tuple[str, str], tuple[str, str]]:
    """Where each § of the version before (`after`: "t.o.m. SFS 2024:1200") stands now, by the notes of the acts
    newer than it, for the §§ they renumbered: (chapter, section) -> (chapter, section). An act renumbers its §§ at
    once ("3, 4 §§ betecknas 4, 5 §§"); a § two acts renumbered in turn ends where the newer put it."""
    moved: dict[tuple[str, str], tuple[str, str]] = {}
    for act in _acts_after(acts, after):
        pairs = dict(renumbered_in_notes(act.notes))
        if not pairs:
            continue
        now = {old: pairs.get(current, current) for old, current in moved.items()}
        for old, new in pairs.items():
            if old not in moved.values() and old not in now:
                now[old] = new
        moved = now
    return moved


@dataclass(frozen=True)
class RecordNotes:
    """What a record says of its amending acts that the diff reads (`law.diff.diff_statute`): each act's in-force
    day, the units the acts after the version before repeal, and where they moved §§."""

    in_force: dict[str, date]
    repeals: RepealNotes
    renumbered: dict[tuple[str, str], tuple[str, str]]


def record_notes(record: OfficialRecord, *, after: str) -> RecordNotes:
    """The record's notes on the acts newer than the version before it (`after`: "t.o.m. SFS 2024:1200")."""
    acts = record.amending_acts
    return RecordNotes(in_force={sfs: act.in_force for sfs, act in acts.items() if act.in_force},
                       repeals=repeal_notes(acts.values(), after=after),
                       renumbered=renumber_notes(acts.values(), after=after))
