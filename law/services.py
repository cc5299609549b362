"""Writes of the legal corpus's history: applying an official record as a new version of a statute; and
the statute book's loading progress.

One statute per transaction: a record is applied whole (the new version, its per-unit changes, the
statute's current text) or not at all. Chunking is asked for through compliance's processing port
(when `process`), or left to the caller (`sync_sfs --sync` chunks in its own process).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any

from django.core.cache import cache
from django.db import transaction

from compliance.clock import swedish_today
from compliance.models import LegalDocument, content_hash
from compliance.services import LegalDocumentData, legal_document_upsert
from law.addressees import AddresseeFinder, authority_names
from law.amendment_notes import NotedRepeal, RepealNotes, record_notes
from law.citations import CitationCounter, CorpusDocument, DetailedStatutes
from law.diff import UnitChange, diff_statute, unit_of
from law.models import StatuteChange, StatuteRepeal, StatuteVersion
from law.sfs_corpus import content_type_for
from law.sfs_records import OfficialRecord, RecordError, sfs_key, sfs_number_in
from law.statute_names import names_for


class Outcome:
    CREATED = "created"        # a statute new to the corpus
    UPDATED = "updated"        # a newer consolidated version applied
    REPEALED = "repealed"      # marked repealed
    UNCHANGED = "unchanged"    # this version (or repeal) is already applied
    OLDER = "older"            # older than the loaded version: refused
    SKIPPED = "skipped"        # not in the loaded corpus and not a new statute


@dataclass(frozen=True)
class ApplyResult:
    sfs: str
    outcome: str
    document_id: int | None = None
    changes: int = 0
    message: str = ""


def statute_first_version_ensure(doc: LegalDocument) -> StatuteVersion:
    """The version a statute has before its first import: the bundled 2024 text, created lazily so
    statutes loaded before versions existed need no data migration."""
    current = StatuteVersion.objects.filter(document=doc, is_current=True).first()
    if current is not None:
        return current
    return StatuteVersion.objects.create(
        document=doc, amended_through=doc.amended_through, full_text=doc.full_text,
        content_hash=content_hash(doc.full_text), is_current=True, origin=StatuteVersion.Origin.CORPUS,
        source_name=doc.source,
    )


def _is_newer(record: OfficialRecord, current: StatuteVersion) -> str | None:
    """None when the record should be applied over `current`; else the outcome that says why not."""
    if record.record_hash and record.record_hash == current.record_hash:
        return Outcome.UNCHANGED
    new, old = sfs_key(record.amended_through), sfs_key(current.amended_through)
    if new < old:
        return Outcome.OLDER
    if new == old:
        # The same andringInford: a corrected consolidation is newer than the 2024 snapshot, or than a
        # record the service last updated earlier; never the other way round.
        if content_hash(record.text) == current.content_hash:
            return Outcome.UNCHANGED
        if current.origin != StatuteVersion.Origin.CORPUS and record.updated <= current.record_updated:
            return Outcome.OLDER
    return None


def statute_record_version_kept(sfs_number: str, corpus_amended_through: str) -> StatuteVersion | None:
    """The version an official record brought (a file or the service) that a bundled corpus text must not replace:
    the statute's current version when a record brought it and the corpus text is not newer (the same
    andringInford is a corrected consolidation, newer than the 2024 copy). None: the corpus text may be loaded.
    Locks the statute's row for the caller's transaction, so no sync applies a version between this check and the
    load's write."""
    doc = LegalDocument.objects.select_for_update().filter(sfs_number=sfs_number).first()
    if doc is None:
        return None
    current = StatuteVersion.objects.filter(document=doc, is_current=True).first()
    if current is None or current.origin == StatuteVersion.Origin.CORPUS:
        return None
    return current if sfs_key(corpus_amended_through) <= sfs_key(current.amended_through) else None


def _document_data(record: OfficialRecord, doc: LegalDocument | None) -> LegalDocumentData:
    names = names_for(record.sfs, record.title)
    return LegalDocumentData(
        sfs_number=record.sfs,
        title=record.title,
        full_text=record.text,
        # A loaded statute keeps its kind (the book's own, e.g. a tillkännagivande); a new one gets it by title.
        content_type=doc.content_type if doc else content_type_for(record.title),
        short_names=doc.short_names if doc else list(names.short_names),
        abbreviations=doc.abbreviations if doc else list(names.abbreviations),
        category=doc.category if doc else "",
        issued=record.issued or (doc.issued if doc else None),
        amended_through=record.amended_through,
        in_force=doc.in_force if doc else (record.in_force.isoformat() if record.in_force else ""),
        # What the page's "Källa" says: the official record this text now comes from, not the 2024 copy.
        source=f"Regeringskansliets rättsdatabaser (SFS), uppdaterad {record.updated[:10]}" if record.updated
        else "Regeringskansliets rättsdatabaser (SFS)",
    )


def _valid_from(record: OfficialRecord, *, first: bool) -> date | None:
    """The day the version took effect: its last amending act's in-force date. When the record names that act but
    not its day (the register's list of acts often lags behind the text), a statute's first version here starts on
    the statute's own day; a later version has no known day, since the statute's would say a 2025 amendment took
    effect in 2012. A statute never amended took effect on its own day, else today."""
    act = record.amending_acts.get(sfs_number_in(record.amended_through))
    if act is not None and act.in_force is not None:
        return act.in_force
    if record.amended_through and not first:
        return None
    return record.in_force or swedish_today()


def _version(doc: LegalDocument, record: OfficialRecord, origin: str, source_name: str, *,
             valid_from: date | None) -> StatuteVersion:
    return StatuteVersion.objects.create(
        document=doc, amended_through=record.amended_through, full_text=record.text,
        content_hash=content_hash(record.text), valid_from=valid_from, is_current=True,
        origin=origin, source_name=source_name, record_id=record.record_id, record_hash=record.record_hash,
        record_updated=record.updated,
    )


def statute_record_apply(record: OfficialRecord, *, origin: str, source_name: str,
                         new_since: date | None, process: bool = True) -> ApplyResult:
    """Apply one official record. `new_since`: a statute not loaded is created when issued after
    this day (new since the corpus snapshot); None creates none. Raises RecordError (nothing applied)
    when the record's text cannot be compared."""
    with transaction.atomic():
        doc = LegalDocument.objects.select_for_update().filter(sfs_number=record.sfs).first()
        if doc is None:
            return _create(record, origin=origin, source_name=source_name, new_since=new_since, process=process)
        current = statute_first_version_ensure(doc)
        if record.repealed:
            return _repeal(doc, record, source_name)
        refusal = _is_newer(record, current)
        if refusal is not None:
            message = (f"äldre än den inlästa versionen ({record.amended_through or 'ingen ändring'} "
                       f"< {current.amended_through})" if refusal == Outcome.OLDER else "")
            return ApplyResult(record.sfs, refusal, doc.pk, message=message)
        try:
            notes = record_notes(record, after=current.amended_through)
            diff = diff_statute(current.full_text, record.text, record.sfs, in_force_by_act=notes.in_force,
                                repeals=notes.repeals, renumbered=notes.renumbered)
        except Exception as exc:  # a text the parser cannot read: reported by name, nothing applied
            raise RecordError(f"texten går inte att tolka ({type(exc).__name__}: {exc})") from exc
        valid_from = _valid_from(record, first=False)
        StatuteVersion.objects.filter(pk=current.pk).update(is_current=False, valid_to=valid_from)
        new = _version(doc, record, origin, source_name, valid_from=valid_from)
        StatuteChange.objects.bulk_create(_change_rows(doc, current, new, diff.changes))
        legal_document_upsert(_document_data(record, doc), process=process)
        return ApplyResult(record.sfs, Outcome.UPDATED, doc.pk, changes=len(diff.changes))


def _change_rows(doc: LegalDocument, before: StatuteVersion, after: StatuteVersion,
                 changes: Iterable[UnitChange]) -> list[StatuteChange]:
    return [StatuteChange(document=doc, from_version=before, to_version=after, kind=c.kind,
                          citation=c.citation[:200], old_citation=c.old_citation[:200], chapter=c.chapter,
                          section=c.section, temporal=c.temporal[:100], amending_sfs=c.amending_sfs,
                          in_force=c.in_force, old_text=c.old_text, new_text=c.new_text, ordinal=c.ordinal)
            for c in changes]


_CHANGE_FIELDS = ("kind", "citation", "old_citation", "chapter", "section", "temporal", "amending_sfs", "in_force",
                  "old_text", "new_text", "ordinal")


@dataclass(frozen=True)
class ChangesRebuildResult:
    versions: int  # applied versions compared again with the version before them
    rewritten: list[int]  # the ids of those whose changed units differ from what was stored, now replaced
    before: int  # changed units stored for the rewritten versions before, and after
    after: int


def _dated_by_marker(change: StatuteChange) -> bool:
    """A unit whose day is its marker's (a § given a coming wording, a § ending), not its amending act's."""
    return change.temporal.startswith("Träder i kraft") or (change.kind == StatuteChange.Kind.REPEALED
                                                           and bool(change.temporal))


def statute_changes_rebuild(*, sfs_numbers: Iterable[str] | None = None,
                            records: Mapping[str, OfficialRecord] | None = None) -> ChangesRebuildResult:
    """Compare every applied version again with the version before it, by today's `diff_statute`, and replace its
    stored changed units where they differ: the diff has learnt since they were stored (a § marked to end or to get
    a coming wording is no longer a § repealed today). The amending acts' in-force days come from the units stored
    before (the record that gave them is not kept), and so do the acts that repealed §§ leaving the text without a
    stub (read from the record's notes when it was applied). One transaction per version; running it again changes
    nothing.

    `records`: the official records the versions were applied from, by `record_hash` (`--file`). A version whose
    record is given reads its acts' days and notes (the §§ they repeal and renumber) from it again, as when it was
    applied, rather than from what was stored; so a version applied before the diff read renumbering is read with
    it."""
    versions = StatuteVersion.objects.exclude(origin=StatuteVersion.Origin.CORPUS).order_by("document_id", "pk")
    if sfs_numbers is not None:
        versions = versions.filter(document__sfs_number__in=list(sfs_numbers))
    compared = before_count = after_count = 0
    rewritten: list[int] = []
    for version_id, document_id in versions.values_list("pk", "document_id"):
        with transaction.atomic():
            after = StatuteVersion.objects.select_related("document").get(pk=version_id)
            before = (StatuteVersion.objects.filter(document_id=document_id, pk__lt=version_id).order_by("-pk")
                      .first())
            if before is None:
                continue
            compared += 1
            stored = list(StatuteChange.objects.select_for_update().filter(to_version=after).order_by("ordinal", "pk"))
            in_force = {c.amending_sfs: c.in_force for c in stored if c.amending_sfs and c.in_force
                        and not _dated_by_marker(c)}
            # A § that left the text keeps the act the record's notes gave it when the version was applied.
            # Keyed as the notes cite: a § by its citation, a chapter's own text by the chapter (all of it went).
            repeals = RepealNotes({unit: NotedRepeal(c.amending_sfs, c.in_force) for c in stored
                                   if c.kind == StatuteChange.Kind.REPEALED and c.amending_sfs and not c.new_text
                                   and (unit := unit_of(c.citation) or ((c.chapter, "") if c.chapter else None))})
            # And each § the notes renumbered keeps the number they gave it.
            moves = {unit_of(c.old_citation): unit_of(c.citation) for c in stored if c.old_citation}
            renumbered = {old: new for old, new in moves.items() if old and new}
            record = records.get(after.record_hash) if records and after.record_hash else None
            if record is not None:  # the record it was applied from: its notes and days, read again
                notes = record_notes(record, after=before.amended_through)
                in_force |= notes.in_force
                repeals = RepealNotes({**repeals.units, **notes.repeals.units})
                renumbered = notes.renumbered
            fresh = diff_statute(before.full_text, after.full_text, after.document.sfs_number,
                                 in_force_by_act=in_force, repeals=repeals, renumbered=renumbered).changes
            rows = _change_rows(after.document, before, after, fresh)
            # A unit read the same way keeps the day stored with it (from the record, which is not kept).
            stored_days = {(c.kind, c.citation, c.amending_sfs): c.in_force for c in stored if c.in_force}
            for row in rows:
                row.in_force = stored_days.get((row.kind, row.citation, row.amending_sfs), row.in_force)
            if [[getattr(c, f) for f in _CHANGE_FIELDS] for c in stored] == \
                    [[getattr(c, f) for f in _CHANGE_FIELDS] for c in rows]:
                continue
            StatuteChange.objects.filter(pk__in=[c.pk for c in stored]).delete()
            StatuteChange.objects.bulk_create(rows)
            rewritten.append(version_id)
            before_count += len(stored)
            after_count += len(rows)
    return ChangesRebuildResult(versions=compared, rewritten=rewritten, before=before_count, after=after_count)


def _create(record: OfficialRecord, *, origin: str, source_name: str, new_since: date | None,
            process: bool) -> ApplyResult:
    if record.repealed:
        return ApplyResult(record.sfs, Outcome.SKIPPED, message="upphävd och inte inläst")
    if new_since is None or record.issued is None or record.issued <= new_since:
        return ApplyResult(record.sfs, Outcome.SKIPPED, message="finns inte i den inlästa korpusen")
    doc = legal_document_upsert(_document_data(record, None), process=process).document
    _version(doc, record, origin, source_name, valid_from=_valid_from(record, first=True))
    return ApplyResult(record.sfs, Outcome.CREATED, doc.pk)


def _repeal(doc: LegalDocument, record: OfficialRecord, source_name: str) -> ApplyResult:
    if StatuteRepeal.objects.filter(document=doc).exists():
        return ApplyResult(record.sfs, Outcome.UNCHANGED, doc.pk)
    StatuteRepeal.objects.create(document=doc, repealed_by=record.repealed_by, repealed_on=record.repealed_on,
                                 source_name=source_name, record_hash=record.record_hash)
    StatuteVersion.objects.filter(document=doc, is_current=True, valid_to__isnull=True).update(
        valid_to=record.repealed_on)
    return ApplyResult(record.sfs, Outcome.REPEALED, doc.pk)


# The statute book's loading progress (load_sfs --book), for the Kunskapsbas page and admin. In the cache,
# not the database: it is a figure of one running process, and a stale one is recognised by its age
# (law.selectors.statute_book_progress).
STATUTE_BOOK_PROGRESS_KEY = "law:statute-book-progress"
STATUTE_BOOK_PROGRESS_TTL_SECONDS = 7 * 24 * 3600


@dataclass
class BookLoadProgress:
    total: int  # statutes in the book's files
    started_at: float  # epoch seconds
    done: int = 0  # records handled (loaded, unchanged or failed)
    changed: int = 0
    failed: int = 0
    finished_at: float | None = None
    updated_at: float | None = None


def statute_book_progress_record(progress: BookLoadProgress) -> None:
    progress.updated_at = time.time()
    cache.set(STATUTE_BOOK_PROGRESS_KEY, asdict(progress), timeout=STATUTE_BOOK_PROGRESS_TTL_SECONDS)


def legal_document_cited_by_refresh(model: type[LegalDocument] = LegalDocument) -> int:
    """Count again how many other loaded documents cite each document (law.citations), after a load or a
    sync changed the corpus; returns how many counts changed. A few seconds for the whole book: the texts
    are streamed, and only changed counts are written. `model`: the historical model when a migration
    counts a database loaded before the counts existed (law 0003)."""
    counter = CitationCounter(
        CorpusDocument(number=number, short_names=names)
        for number, names in model.objects.values_list("sfs_number", "short_names"))
    for number, text in model.objects.values_list("sfs_number", "full_text").iterator(chunk_size=200):
        counter.read(number, text)
    return _derived_field_write(model, "cited_by", (
        (pk, cited_by, counter.counts[number])
        for pk, number, cited_by in model.objects.values_list("id", "sfs_number", "cited_by")))


def legal_document_addressee_refresh(model: type[LegalDocument] = LegalDocument) -> int:
    """Find again the authority each statute governs the own work of (law.addressees), after a load or a
    sync changed the corpus's titles; returns how many changed. Titles only: well under a second for the
    whole book. `model`: the historical model when a migration fills a database loaded before (law 0004)."""
    regulation, eu = LegalDocument.ContentType.AGENCY_REGULATION, LegalDocument.ContentType.EU_REGULATION
    rows = list(model.objects.values("id", "title", "content_type", "agency", "addressee"))
    finder = AddresseeFinder(authority_names(
        (row["title"] for row in rows),
        (row["agency"] for row in rows if row["content_type"] == regulation and row["agency"])))
    # A regulation names its issuer and binds those it regulates; an EU act governs no Swedish authority.
    return _derived_field_write(model, "addressee", (
        (row["id"], row["addressee"],
         "" if row["content_type"] in (regulation, eu) else finder.addressee(row["title"]))
        for row in rows))


def legal_document_details_refresh(model: type[LegalDocument] = LegalDocument) -> int:
    """Find again the statutes each agency regulation details (law.citations.DetailedStatutes), after a load or
    a sync changed the corpus; returns how many changed. Only the regulations' texts are read. `model`: the
    historical model when a migration fills a database loaded before (law 0005)."""
    kinds = LegalDocument.ContentType
    statutes = model.objects.filter(content_type__in=[kinds.SFS_LAW, kinds.SFS_ORDINANCE])
    finder = DetailedStatutes(
        (CorpusDocument(number=number, short_names=names)
         for number, names in model.objects.values_list("sfs_number", "short_names")),
        set(statutes.values_list("sfs_number", flat=True)))
    regulations = model.objects.filter(content_type=kinds.AGENCY_REGULATION)
    return _derived_field_write(model, "details_sfs", (
        (row["id"], row["details_sfs"], finder.of(row["sfs_number"], row["full_text"], row["legal_basis_sfs"]))
        for row in regulations.values("id", "sfs_number", "full_text", "legal_basis_sfs", "details_sfs")))


def _derived_field_write(model: type[LegalDocument], field: str, values: Iterable[tuple[int, Any, Any]]) -> int:
    """Write a corpus-derived `field` where it changed: `values` holds (pk, stored, derived) per document.
    Returns how many documents changed; an unchanged corpus writes nothing."""
    changed = [model(id=pk, **{field: derived}) for pk, stored, derived in values if derived != stored]
    model.objects.bulk_update(changed, [field], batch_size=1000)
    return len(changed)


def legal_document_priors_refresh() -> None:
    """The corpus-derived inputs of retrieval's document priors, after a load or a sync changed the corpus:
    who cites whom (the citation prior), whose own work a statute governs (the addressee prior) and which
    statutes each regulation details (the acts searched beside it)."""
    legal_document_cited_by_refresh()
    legal_document_addressee_refresh()
    legal_document_details_refresh()
