"""Which changed units touch a kravpunkt: its section_ref ("3 kap. 2 a §", "4–6 §§", "2 kap. 1 och 3 §§",
"3 kap.") read as the §§ it covers, compared with a `StatuteChange`'s chapter and § as written."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from law.diff import unit_of

_CHAPTER_RE = re.compile(r"(\d+)\s*([a-z])?\s*kap\b\.?", re.IGNORECASE)
# A § number ("2", "2 a") followed, after any list or range of numbers, by "§" or "§§".
# A letter after a number is part of it ("2 a §") only when no other letter follows ("1 och 3 §§").
_LETTER = r"(?:\s?[a-z](?![a-zåäö]))"
_SECTIONS_RE = re.compile(r"((?:\d+" + _LETTER + r"?\s*(?:,|och|–|-|—|till)?\s*)+)§", re.IGNORECASE)
_NUMBER_RE = re.compile(r"(\d+)(?:\s?([a-z])(?![a-zåäö]))?(?![\d])", re.IGNORECASE)
_RANGE_RE = re.compile(r"(\d+" + _LETTER + r"?)\s*(?:–|-|—|till)\s*(\d+" + _LETTER + r"?)", re.IGNORECASE)


def _key(number: str) -> tuple[int, str]:
    match = _NUMBER_RE.match(number.strip())
    if match is None:
        return (-1, "")
    return int(match.group(1)), (match.group(2) or "").lower()


@dataclass(frozen=True)
class SectionSpan:
    """A chapter (None: the statute has none, or the reference does not say) and the §§ inside it
    (None: the whole chapter). Ranges are (first, last) inclusive by number and letter."""

    chapter: tuple[int, str] | None
    ranges: tuple[tuple[tuple[int, str], tuple[int, str]], ...] | None

    def covers(self, chapter: str, section: str) -> bool:
        if self.chapter is not None and (not chapter or _key(chapter) != self.chapter):
            return False
        if self.ranges is None:
            return True
        if not section:
            return False
        key = _key(section)
        return any(first <= key <= last for first, last in self.ranges)


def _ranges(text: str) -> tuple[tuple[tuple[int, str], tuple[int, str]], ...]:
    found = []
    for match in _RANGE_RE.finditer(text):
        first, last = _key(match.group(1)), _key(match.group(2))
        # "4–6 §§" covers 6 a § too only if written so; 6 a sorts after (6, "").
        found.append((first, last))
    rest = _RANGE_RE.sub(" ", text)
    for match in _NUMBER_RE.finditer(rest):
        key = (int(match.group(1)), (match.group(2) or "").lower())
        found.append((key, key))
    return tuple(found)


def section_spans(ref: str) -> list[SectionSpan]:
    """The spans a kravpunkt's reference names; [] when it names no § or chapter (an article, free text)."""
    ref = (ref or "").replace("\u00a0", " ")
    spans: list[SectionSpan] = []
    chapters = list(_CHAPTER_RE.finditer(ref))
    if not chapters:
        for match in _SECTIONS_RE.finditer(ref):
            spans.append(SectionSpan(None, _ranges(match.group(1))))
        return spans
    for index, chapter in enumerate(chapters):
        end = chapters[index + 1].start() if index + 1 < len(chapters) else len(ref)
        tail = ref[chapter.end():end]
        key = (int(chapter.group(1)), (chapter.group(2) or "").lower())
        sections = _SECTIONS_RE.search(tail)
        spans.append(SectionSpan(key, _ranges(sections.group(1)) if sections else None))
    return spans


def touches(refs: Iterable[str], chapter: str, section: str) -> bool:
    """Whether a unit (chapter and § as a `StatuteChange` writes them) falls inside any of the references."""
    return any(span.covers(chapter, section) for ref in refs for span in section_spans(ref))


def touches_old_number(refs: Iterable[str], old_citation: str) -> bool:
    """Whether the references cover the number a renumbered unit had before (`StatuteChange.old_citation`; "" for
    a unit that kept its number): a kravpunkt citing it so now points elsewhere."""
    old = unit_of(old_citation) if old_citation else None
    return old is not None and touches(refs, *old)
