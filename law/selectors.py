"""Reads of a statute's history: its versions, its changes per amending act, its repeal."""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import date

from django.core.cache import cache
from django.db.models import Exists, Max, OuterRef, QuerySet

from compliance.clock import swedish_today
from compliance.models import LegalDocument
from compliance.sql import dict_cursor
from law.diff import DiffSegment, word_diff
from law.models import StatuteChange, StatuteRepeal, StatuteVersion
from law.services import STATUTE_BOOK_PROGRESS_KEY, BookLoadProgress


@dataclass(frozen=True)
class ChangeView:
    change: StatuteChange
    stycken: list[list[DiffSegment]]
    coming: bool          # not in force yet ("/Träder i kraft I:2026-07-01/" or a later in-force date)


@dataclass
class ActChanges:
    amending_sfs: str     # "" when the text names no act (a § removed without a stub)
    in_force: date | None
    changes: list[ChangeView] = field(default_factory=list)


@dataclass
class StatuteHistory:
    versions: list[StatuteVersion]
    acts: list[ActChanges]
    repeal: StatuteRepeal | None
    shown_version: StatuteVersion | None   # an older version asked for: "så här löd lagen …"

    @property
    def coming(self) -> list[ChangeView]:
        return [view for act in self.acts for view in act.changes if view.coming]


@dataclass(frozen=True)
class StatuteBookCurrency:
    """How current the loaded statute text is: what the official records (`sync_sfs`) brought over the bundled
    copy of spring 2024."""

    updated: int  # statutes in force whose current version a record brought
    new: int  # statutes in force the records brought that the copy did not have
    repealed: int
    records_through: date | None  # the newest applied record's update day at the source

    @property
    def from_records(self) -> bool:
        return self.records_through is not None


def statute_book_currency() -> StatuteBookCurrency:
    """Counts for the Kunskapsbas page: which law the knowledge base holds, the 2024 copy or newer records."""
    from_records = StatuteVersion.objects.exclude(origin=StatuteVersion.Origin.CORPUS)
    copied = StatuteVersion.objects.filter(document=OuterRef("document"), origin=StatuteVersion.Origin.CORPUS)
    current = (from_records.filter(is_current=True, document__repeal__isnull=True)
               .annotate(copied=Exists(copied)).values_list("copied", flat=True))
    flags = list(current)
    return StatuteBookCurrency(updated=sum(flags), new=len(flags) - sum(flags),
                               repealed=StatuteRepeal.objects.count(), records_through=statute_records_through())


def statute_records_through() -> date | None:
    """The newest applied official record's update day at the source: how far the knowledge base has read the
    statutes' changes (None when it holds only the bundled copy of spring 2024)."""
    newest = (StatuteVersion.objects.exclude(origin=StatuteVersion.Origin.CORPUS)
              .aggregate(newest=Max("record_updated"))["newest"])
    try:
        return date.fromisoformat(newest[:10]) if newest else None
    except ValueError:  # a record without a readable update day
        return None


def statute_numbers_from_records(numbers: Collection[str]) -> set[str]:
    """Of these SFS numbers, the statutes whose current version an official record brought (`sync_sfs`), whose text
    a corpus load leaves as it is (`law.services.statute_record_version_kept` decides, statute by statute)."""
    return set(StatuteVersion.objects.filter(is_current=True, document__sfs_number__in=list(numbers))
               .exclude(origin=StatuteVersion.Origin.CORPUS).values_list("document__sfs_number", flat=True))


def change_view(change: StatuteChange, *, today: date) -> ChangeView:
    """One changed unit as the pages show it: its word diff per stycke, and whether it is still to come."""
    coming = bool(change.temporal.startswith("Träder i kraft")
                  or (change.in_force is not None and change.in_force > today))
    return ChangeView(change, word_diff(change.old_text, change.new_text), coming)


def statute_history_get(doc: LegalDocument, *, version_id: int | None = None,
                        today: date | None = None) -> StatuteHistory:
    """The changes that made the current version, grouped per amending act (newest act first)."""
    today = today or swedish_today()
    versions = list(StatuteVersion.objects.filter(document=doc).order_by("-is_current", "-created_at", "-pk")
                    .defer("full_text"))
    current = next((v for v in versions if v.is_current), None)
    changes = StatuteChange.objects.filter(to_version=current) if current is not None else StatuteChange.objects.none()
    acts = [ActChanges(act.amending_sfs, act.in_force, [change_view(change, today=today) for change in act.changes])
            for act in _by_amending_act(changes)]
    shown = None
    if version_id is not None:
        shown = StatuteVersion.objects.filter(document=doc, pk=version_id, is_current=False).first()
    return StatuteHistory(versions=versions, acts=acts, repeal=StatuteRepeal.objects.filter(document=doc).first(),
                          shown_version=shown)


@dataclass
class AmendingAct:
    """One act's changes to a statute's current version, without their texts."""

    amending_sfs: str     # "" when the text names no act (a § removed without a stub)
    in_force: date | None
    changes: list[StatuteChange] = field(default_factory=list)


# Only the statute book's amendments are read (`sync_sfs`, from the official records): an agency regulation or an EU
# act is held as its file had it, so that it has no change read says nothing of whether it changed.
AMENDMENTS_NOT_READ = frozenset({LegalDocument.ContentType.AGENCY_REGULATION, LegalDocument.ContentType.EU_REGULATION})


@dataclass(frozen=True)
class StatuteAmendments:
    """What changed in a statute, as its page's "Ändringar" lists it, for the assistant and the API: no texts, no
    diffs."""

    document: LegalDocument
    read: bool  # its amendments are read from the official records (False: AMENDMENTS_NOT_READ)
    current: StatuteVersion | None
    acts: list[AmendingAct]  # newest act first
    repeal: StatuteRepeal | None

    @property
    def amended_through(self) -> str:
        """The last amendment the held text has ("SFS 2025:1077"), "" when none is known."""
        return (self.current.amended_through if self.current is not None else "") or self.document.amended_through


def statute_amendments_get(doc: LegalDocument) -> StatuteAmendments:
    """The acts that changed the statute's current version, with the units each changed (their texts left unread)."""
    current = (StatuteVersion.objects.filter(document=doc, is_current=True).defer("full_text").first())
    changes = (StatuteChange.objects.filter(to_version=current).defer("old_text", "new_text")
               if current is not None else StatuteChange.objects.none())
    return StatuteAmendments(document=doc, read=doc.content_type not in AMENDMENTS_NOT_READ, current=current,
                             acts=_by_amending_act(changes), repeal=StatuteRepeal.objects.filter(document=doc).first())


def _by_amending_act(changes: QuerySet[StatuteChange]) -> list[AmendingAct]:
    """The changes grouped per amending act, in the text's order within each, newest act first."""
    acts: dict[str, AmendingAct] = {}
    for change in changes.order_by("ordinal"):
        act = acts.setdefault(change.amending_sfs, AmendingAct(change.amending_sfs, change.in_force))
        if act.in_force is None:
            act.in_force = change.in_force
        act.changes.append(change)
    return sorted(acts.values(), key=lambda a: tuple(int(p) for p in a.amending_sfs.split(":"))
                  if a.amending_sfs else (0, 0), reverse=True)


@dataclass(frozen=True)
class UnitChangeNote:
    """The act that changed one §, from which day, and whether it ends the § rather than words it."""

    act: str
    in_force: date | None
    ending: bool = False


@dataclass(frozen=True)
class RecentChange:
    """What a source card and the context block say about a statute changed lately: the act that last
    changed the document, and per § the act that changed that §, each with its in-force date."""

    amending_sfs: str
    in_force: date | None
    by_citation: dict[str, UnitChangeNote]
    repealed_by: str = ""
    repealed_on: date | None = None


# The documents' repeals, their current versions from the official records, and those versions' changed units:
# the three reads of a source card's change note in one round trip (every cache miss of a turn pays for it).
_RECENT_CHANGES_SQL = """
SELECT d.id AS document_id, r.id IS NOT NULL AS repealed, r.repealed_by, r.repealed_on,
       v.id AS version_id, v.valid_from, v.amended_through,
       ch.citation, ch.kind, ch.amending_sfs, ch.in_force
FROM unnest(%(ids)s::bigint[]) AS d(id)
LEFT JOIN law_statuterepeal r ON r.document_id = d.id
LEFT JOIN law_statuteversion v
  ON r.id IS NULL AND v.document_id = d.id AND v.is_current AND v.origin <> %(corpus)s
LEFT JOIN law_statutechange ch ON ch.to_version_id = v.id AND ch.amending_sfs <> ''
WHERE r.id IS NOT NULL OR v.id IS NOT NULL
ORDER BY d.id, v.id, ch.ordinal, ch.id
"""


def _unit_note(row: dict, valid_from: date | None) -> UnitChangeNote:
    if row["kind"] == StatuteChange.Kind.REPEALED:
        # An end with no day ("den dag regeringen bestämmer") has not come: the version's day is not its day.
        return UnitChangeNote(row["amending_sfs"], row["in_force"], ending=True)
    return UnitChangeNote(row["amending_sfs"], row["in_force"] or valid_from)


def statute_recent_changes(document_ids: list[int], *, since: date) -> dict[int, RecentChange]:
    """The documents among `document_ids` amended (in force from `since` on, or still to come) or repealed by
    an applied official record."""
    found: dict[int, RecentChange] = {}
    if not document_ids:
        return found
    with dict_cursor() as cursor:
        cursor.execute(_RECENT_CHANGES_SQL, {"ids": list(document_ids), "corpus": StatuteVersion.Origin.CORPUS})
        rows = cursor.fetchall()
    versions: dict[int, dict] = {}  # a current version's first row, by version id
    changes: dict[int, list[dict]] = {}  # its changed units, in order
    for row in rows:
        if row["repealed"]:
            found[row["document_id"]] = RecentChange("", None, {}, repealed_by=row["repealed_by"],
                                                     repealed_on=row["repealed_on"])
            continue
        versions.setdefault(row["version_id"], row)
        if row["amending_sfs"] is not None:
            changes.setdefault(row["version_id"], []).append(row)
    for version_id, version in versions.items():
        valid_from = version["valid_from"]
        # A unit whose own in-force date the text does not give took effect with the version.
        recent = [c for c in changes.get(version_id, [])
                  if (c["in_force"] or valid_from) is None or (c["in_force"] or valid_from) >= since]
        if not recent and not (valid_from and valid_from >= since):
            continue
        latest = max(recent, key=lambda c: tuple(int(p) for p in c["amending_sfs"].split(":")), default=None)
        found[version["document_id"]] = RecentChange(
            amending_sfs=latest["amending_sfs"] if latest else version["amended_through"].replace("SFS ", ""),
            in_force=latest["in_force"] if latest and latest["in_force"] else valid_from,
            by_citation={c["citation"]: _unit_note(c, valid_from) for c in recent})
    return found


# A loader that wrote no progress for this long is gone (stopped with Ctrl-C, killed): its figures are
# shown as interrupted, not as a load still under way.
STATUTE_BOOK_STALL_SECONDS = 60


@dataclass(frozen=True)
class StatuteBookStatus:
    total: int
    done: int
    changed: int
    failed: int
    percent: float
    state: str  # "loading", "done" or "interrupted"
    eta_seconds: int | None  # at the rate so far; None until there is one, or when not loading

    @property
    def loading(self) -> bool:
        return self.state == "loading"


def statute_book_progress(now: float | None = None) -> StatuteBookStatus | None:
    """How far the last `load_sfs --book` came, or None when none ran."""
    raw = cache.get(STATUTE_BOOK_PROGRESS_KEY)
    if not isinstance(raw, dict):
        return None
    try:
        progress = BookLoadProgress(**raw)
    except TypeError:  # written by another version of the loader
        return None
    now = time.time() if now is None else now
    if progress.finished_at is not None:
        state = "done"
    elif now - (progress.updated_at or progress.started_at) > STATUTE_BOOK_STALL_SECONDS:
        state = "interrupted"
    else:
        state = "loading"
    eta = None
    elapsed = (progress.updated_at or now) - progress.started_at
    if state == "loading" and progress.done and elapsed > 0:
        eta = round((progress.total - progress.done) * elapsed / progress.done)
    percent = round(100 * progress.done / progress.total, 1) if progress.total else 100.0
    return StatuteBookStatus(total=progress.total, done=progress.done, changed=progress.changed,
                             failed=progress.failed, percent=percent, state=state, eta_seconds=eta)
