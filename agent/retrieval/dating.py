"""Dates on sources: which temporal version of a § is in force on a day, the question's period
favouring the company's own sources, recency among equals, and the date each source card shows.

A statute § with two versions is chunked once per version; chunking puts the version marker in
the header's last part ("7 § (träder i kraft 2024-07-01)", "7 § (upphör att gälla 2024-07-01)").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from compliance.selectors import source_dates
from law.selectors import RecentChange, statute_recent_changes

from .query_analysis import DateRange
from .sources import RetrievedChunk

# An own source dated inside the question's period counts this much more than its fused score.
PERIOD_BOOST = 0.5
# A statute amended this recently says so on its card and in the context block ("ändrad genom SFS …").
RECENT_CHANGE_DAYS = 365

_MARKER_RE = re.compile(r"\((träder i kraft|upphör att gälla) (\d{4}-\d{2}-\d{2}|[^)]*)\)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class TemporalMarker:
    """What a § version's header says about its time: it enters into force ("in_force") or expires
    ("expires") on `day`, or on a day the government decides (None)."""

    kind: str
    day: date | None


def temporal_marker(chunk: RetrievedChunk) -> TemporalMarker | None:
    """The § version's marker, or None for a plain §."""
    if chunk.source_type != "LEGAL_DOCUMENT":
        return None
    m = _MARKER_RE.search(chunk.header or "")
    if not m:
        return None
    kind = "in_force" if m[1].lower().startswith("träder") else "expires"
    try:
        day = date.fromisoformat(m[2])
    except ValueError:
        day = None
    return TemporalMarker(kind, day)


def in_force_on(chunk: RetrievedChunk, day: date) -> bool:
    marker = temporal_marker(chunk)
    if marker is None:
        return True
    since = marker.day
    if marker.kind == "in_force":
        return since is not None and since <= day
    return since is None or day < since


def has_expired(chunk: RetrievedChunk, day: date) -> bool:
    """A § version whose marker says it stopped applying on or before `day` (not one still to come)."""
    marker = temporal_marker(chunk)
    return marker is not None and marker.kind == "expires" and marker.day is not None and marker.day <= day


def statute_status(chunk: RetrievedChunk, today: date) -> str:
    """What the card says about a § version: "i kraft", "träder i kraft 2026-01-01", ..."""
    marker = temporal_marker(chunk)
    if marker is None:
        return "i kraft"
    day = marker.day
    if marker.kind == "in_force":
        if day is not None and day <= today:
            return f"i kraft sedan {day.isoformat()}"
        return f"träder i kraft {day.isoformat()}" if day else "träder i kraft den dag regeringen bestämmer"
    if day is not None and day <= today:
        return f"upphörde att gälla {day.isoformat()}"
    return f"i kraft, upphör att gälla {day.isoformat()}" if day else "i kraft, upphör den dag regeringen bestämmer"


def prefer_version_in_force(chunks: list[RetrievedChunk], day: date) -> list[RetrievedChunk]:
    """Of a § with two temporal versions among the candidates, the one in force on `day` goes first
    (taking the better rank of the two), so keeping one version per § keeps that one."""
    units: dict[tuple, dict[str, list[int]]] = {}
    for i, chunk in enumerate(chunks):
        if chunk.source_type == "LEGAL_DOCUMENT" and chunk.citation:
            units.setdefault((chunk.source_id, chunk.citation), {}).setdefault(chunk.unit, []).append(i)
    order = list(range(len(chunks)))
    for versions in units.values():
        if len(versions) < 2:
            continue
        in_force = [u for u, idx in versions.items() if in_force_on(chunks[idx[0]], day)]
        if not in_force:
            continue
        best = min(i for idx in versions.values() for i in idx)
        wanted = versions[in_force[0]][0]
        if wanted != best:
            order[best], order[wanted] = order[wanted], order[best]
    return [chunks[i] for i in order]


def _in_force_words(day: date | None, today: date) -> str:
    if day is None:
        return ""
    return f", i kraft {day.isoformat()}" if day <= today else f", träder i kraft {day.isoformat()}"


def change_note(chunk: RetrievedChunk, change: RecentChange | None, today: date) -> str:
    """"ändrad genom SFS 2025:974, i kraft 2026-01-01" (the act that changed this §), "författningen ändrad
    genom …" (the act that last changed the statute, for a § it left alone), "upphävd genom SFS 2025:1506, den
    2026-01-01", or "" for a statute not changed lately."""
    if change is None:
        return ""
    if change.repealed_by or change.repealed_on:
        by = change.repealed_by or "SFS …"
        return f"upphävd genom {by}" + (f", den {change.repealed_on.isoformat()}" if change.repealed_on else "")
    if chunk.citation in change.by_citation:
        note = change.by_citation[chunk.citation]
        if note.ending:  # the § is still in the text until its day
            by = f" genom SFS {note.act}" if note.act else ""
            if note.in_force is None:
                return f"upphör att gälla den dag regeringen bestämmer{by}"
            if note.in_force <= today:
                return f"upphävd{by}, den {note.in_force.isoformat()}"
            return f"upphör att gälla {note.in_force.isoformat()}{by}"
        return f"ändrad genom SFS {note.act}{_in_force_words(note.in_force, today)}"
    if not change.amending_sfs:
        return ""
    # This § kept its wording; the statute around it did not.
    return f"författningen ändrad genom SFS {change.amending_sfs}{_in_force_words(change.in_force, today)}"


def date_sources(chunks: list[RetrievedChunk], period: DateRange | None, today: date) -> list[RetrievedChunk]:
    """Give each source its date for the card; with a period, favour own sources dated inside it;
    and among own sources of equal relevance put the more recent first."""
    if not chunks:
        return chunks
    ids: dict[str, set[int]] = {"USER_FILE": set(), "ASSESSMENT": set(), "LEGAL_DOCUMENT": set()}
    for chunk in chunks:
        if chunk.source_type in ids:
            ids[chunk.source_type].add(chunk.source_id)
    found = source_dates(file_ids=ids["USER_FILE"], assessment_ids=ids["ASSESSMENT"],
                         legal_document_ids=ids["LEGAL_DOCUMENT"])
    recent = statute_recent_changes(sorted(ids["LEGAL_DOCUMENT"]), since=today - timedelta(days=RECENT_CHANGE_DAYS))
    for chunk in chunks:
        info = found.get((chunk.source_type, chunk.source_id))
        if info is None:
            continue
        if chunk.source_type == "LEGAL_DOCUMENT":
            amended = info.get("amended_through") or ""
            if amended and not amended.upper().startswith("SFS"):
                amended = f"SFS {amended}"
            note = change_note(chunk, recent.get(chunk.source_id), today)
            if note:
                # The context block's label says it too (context_assembly), so the model knows the text is new.
                chunk.extra = {**chunk.extra, "change_note": note}
            parts = [note, f"ändring införd t.o.m. {amended}" if amended else "", statute_status(chunk, today)]
            chunk.date_label = ", ".join(p for p in parts if p)
            continue
        day: date = info["date"]
        chunk.source_date = day.isoformat()
        label = "uppladdad" if chunk.source_type == "USER_FILE" else "skapad"
        version = f", version {info['version']}" if info.get("version") else ""
        chunk.date_label = f"{label} {day.isoformat()}{version}"
        if period is not None and period.start <= day <= period.end:
            chunk.score *= 1 + PERIOD_BOOST
            chunk.extra = {**chunk.extra, "in_period": True}

    def recency(chunk: RetrievedChunk) -> int:
        return -date.fromisoformat(chunk.source_date).toordinal() if chunk.source_date else 0

    # Stable: equal scores keep retrieval's order except that a newer own source goes first.
    return sorted(chunks, key=lambda c: (-c.score, recency(c)))
