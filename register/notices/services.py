"""Writes of lagbevakning: change notices made from the law's applied versions and repeals, and the impact
assessment that answers one.

`notices_create_for_versions` is driven by the data, not by the clock: it looks for every applied change
(a `StatuteVersion` from an official record that changed units, a `StatuteRepeal`, a new statute's first
version) that a workspace should hear of and has no notice for yet, and makes that notice. Running it again,
from the import command, the daily task or the hourly scan, finds nothing left to do; two runs at once make
each notice once (the unique constraints decide, each notice in its own transaction).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from compliance.audit import audit_actor
from compliance.model_update import model_update
from compliance.models import LegalDocument, Membership, Workspace
from compliance.sql import dict_cursor
from law.legal_refs import StatuteDirectory
from law.models import StatuteChange, StatuteRepeal, StatuteVersion
from law.sfs_records import sfs_number_in
from law.statute_directory import statute_directory

from ..models import (
    Action,
    ChangeNotice,
    ImpactAssessment,
    ItemOrigin,
    NoticeRead,
    NoticeSubscription,
    RegisterItem,
    Requirement,
    SuggestionDecision,
)
from ..services import (
    RegisterError,
    _check_text,
    _member_or_error,
    _require_editor,
    action_create,
    document_decline,
    register_default,
    register_item_add,
)
from .citing import CitationReader, documents_leaning_on, requirements_citing
from .sections import touches, touches_old_number
from .subjects import subject_documents

# Versions made from an official record; the bundled 2024 text (CORPUS) is where history starts, not a change.
APPLIED_ORIGINS = (StatuteVersion.Origin.FILE, StatuteVersion.Origin.SERVICE)


@dataclass(frozen=True)
class NoticeRunResult:
    amended: int
    repealed: int
    new: int

    @property
    def total(self) -> int:
        return self.amended + self.repealed + self.new


def _rows(sql: str, params: list) -> list[dict]:
    with dict_cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _document_filter(alias: str, document_ids: list[int] | None) -> tuple[str, list]:
    if document_ids is None:
        return "", []
    return f" AND {alias}.document_id = ANY(%s)", [document_ids]


# A newer version of a document the register holds (one with an older version before it). A version whose
# units the diff found unchanged is noticed too: its change may sit where the diff does not look (2014:1039
# t.o.m. SFS 2025:1142 changed a dashed list line), and a missed amendment is the worse error.
# An item hears of a change applied after it was put on the register; the text it was assessed against
# already held changes applied before.
_AMENDED_SQL = """
SELECT DISTINCT ON (i.workspace_id, v.id) i.workspace_id, i.id AS item_id, v.document_id, v.id AS version_id
FROM law_statuteversion v
JOIN register_registeritem i ON i.legal_document_id = v.document_id AND i.created_at < v.created_at
WHERE v.origin = ANY(%s)
  AND EXISTS (SELECT 1 FROM law_statuteversion o WHERE o.document_id = v.document_id AND o.id < v.id)
  AND NOT EXISTS (SELECT 1 FROM register_changenotice n
                  WHERE n.workspace_id = i.workspace_id AND n.legal_document_id = v.document_id
                    AND n.version_id = v.id){documents}
ORDER BY i.workspace_id, v.id, i.id
"""

_REPEALED_SQL = """
SELECT DISTINCT ON (i.workspace_id, r.id) i.workspace_id, i.id AS item_id, r.document_id, r.id AS repeal_id
FROM law_statuterepeal r
JOIN register_registeritem i ON i.legal_document_id = r.document_id AND i.created_at < r.created_at
WHERE NOT EXISTS (SELECT 1 FROM register_changenotice n
                  WHERE n.workspace_id = i.workspace_id AND n.legal_document_id = r.document_id
                    AND n.repeal_id = r.id){documents}
ORDER BY i.workspace_id, r.id, i.id
"""

# A newer version of a document, with its changed units: a laglista that does not hold it hears of it when a
# document the laglista holds cites one of those units (`_notices_for_cited_laws`).
_CHANGED_SQL = """
SELECT v.id AS version_id, v.document_id, v.created_at,
       array_agg(c.citation ORDER BY c.ordinal) AS citations, array_agg(c.kind ORDER BY c.ordinal) AS kinds,
       array_agg(c.amending_sfs ORDER BY c.ordinal) AS acts
FROM law_statuteversion v
JOIN law_statutechange c ON c.to_version_id = v.id
WHERE v.origin = ANY(%s)
  AND EXISTS (SELECT 1 FROM law_statuteversion o WHERE o.document_id = v.document_id AND o.id < v.id){documents}
GROUP BY v.id
ORDER BY v.id
"""

# Every recorded repeal: a laglista that does not hold the repealed document hears of it when a document it holds
# rests on it or cites it (`_notices_for_cited_repeals`).
_REPEALS_SQL = """
SELECT r.id AS repeal_id, r.document_id, r.created_at
FROM law_statuterepeal r
WHERE TRUE{documents}
ORDER BY r.id
"""

# A statute new to the corpus: its only version came from an official record, and it is not repealed.
_NEW_SQL = """
SELECT v.id AS version_id, v.document_id, v.created_at, d.full_text
FROM law_statuteversion v
JOIN compliance_legaldocument d ON d.id = v.document_id
WHERE v.origin = ANY(%s)
  AND NOT EXISTS (SELECT 1 FROM law_statuteversion o WHERE o.document_id = v.document_id AND o.id <> v.id)
  AND NOT EXISTS (SELECT 1 FROM law_statuterepeal r WHERE r.document_id = v.document_id){documents}
ORDER BY v.id
"""


@dataclass(frozen=True)
class UnitTally:
    """How many units a version changed, of each of the diff's kinds, and through how many amending acts: what an
    amendment notice says of its size (`ChangeNotice.change_count`, `unit_counts`, `act_count`)."""

    changed: int
    # {"AMENDED": 3, "REPEALED": 1}, the kinds in `StatuteChange.Kind`'s order.
    counts: dict[str, int]
    acts: int

    def fields(self) -> dict[str, object]:
        return {"change_count": self.changed, "unit_counts": self.counts, "act_count": self.acts}


def unit_tally(units: Iterable[tuple[str, str]]) -> UnitTally:
    """The tally of changed units given as (kind, amending act) pairs; a unit naming no act counts no act."""
    units = list(units)
    counted = Counter(kind for kind, _ in units)
    return UnitTally(changed=len(units), acts=len({act for _, act in units if act}),
                     counts={kind: counted[kind] for kind in StatuteChange.Kind.values if counted[kind]})


@dataclass(frozen=True)
class _VersionUnits:
    """What a new version changed, seen from one workspace: the changed units touching its kravpunkter on the
    document, those its kravpunkter's §§ cite (`citing.requirements_citing`), and the tally of all its units."""

    relevant: list[str]
    cited: list[dict]
    tally: UnitTally


def _relevant_units(reader: CitationReader, workspace_id: int, document_id: int, version_id: int) -> _VersionUnits:
    """The changed units touching the workspace's kravpunkter on this document, those the §§ of any of its
    kravpunkter cite, and how many units changed."""
    refs = [ref for ref in Requirement.objects.filter(workspace_id=workspace_id, item__legal_document_id=document_id)
            .exclude(section_ref="").values_list("section_ref", flat=True)]
    units = list(StatuteChange.objects.filter(to_version_id=version_id).order_by("ordinal")
                 .values_list("citation", "chapter", "section", "old_citation", "kind", "amending_sfs"))
    relevant: list[str] = []
    for citation, chapter, section, old_citation, *_ in units:
        # A kravpunkt citing a § by the number it had before the version renumbered it is touched too.
        if refs and (touches(refs, chapter, section) or touches_old_number(refs, old_citation)) \
                and citation not in relevant:
            relevant.append(citation)
    number = reader.number(document_id)
    cited = requirements_citing(reader, workspace_id, number, [citation for citation, *_ in units],
                                direct=relevant)
    return _VersionUnits(relevant=relevant, cited=cited, tally=unit_tally((kind, act) for *_, kind, act in units))


def _flag_items(workspace_id: int, document_id: int) -> None:
    """"ändrad – behöver bedömas" on every item of the workspace holding the document (saved one by one, so
    the audit trail records the flag in each item's history)."""
    for item in (RegisterItem.objects.select_for_update().filter(workspace_id=workspace_id,
                                                                  legal_document_id=document_id,
                                                                  needs_reassessment=False).order_by("pk")):
        item.needs_reassessment = True
        item.save(update_fields=["needs_reassessment", "updated_at"])


def _notice_create(lookup: dict, defaults: dict, *, flag: bool) -> bool:
    """Make one notice unless it exists; True when this call made it. The unique constraint decides between
    two workers: the second's insert waits for the first's commit, then finds the row."""
    with transaction.atomic(), audit_actor(None):
        notice, created = ChangeNotice.objects.get_or_create(**lookup, defaults=defaults)
        if created and flag:
            _flag_items(notice.workspace_id, notice.legal_document_id)
    return created


def _notices_for_cited_laws(reader: CitationReader, versions: list[dict]) -> int:
    """A notice for each workspace whose laglista does not hold a changed document but holds one whose units cite a
    changed unit of it (a föreskrift filling in a § of a law the list leaves out), put on the list before the change
    was applied. The notice has no item; its page names the citing units (`selectors.notice_detail`), and answering
    it can put the law on the laglista; the kravpunkter whose §§ cite a changed unit are stored as for a listed
    law (`cited_units`). The citing units are read by `chunks.cited_elsewhere` from the shared cache, so a scan that
    finds nothing new costs one full-text query per version."""
    made = 0
    for row in versions:
        document = LegalDocument.objects.only("sfs_number", "title", "short_names").get(pk=row["document_id"])
        leaning = documents_leaning_on(document, reader.directory, citations=set(row["citations"]))
        workspaces = _workspaces_listing(leaning, document, row["created_at"], version_id=row["version_id"])
        listed = _listed_documents(workspaces, leaning)
        for workspace_id in workspaces:
            cited = requirements_citing(reader, workspace_id, document.sfs_number, row["citations"])
            made += _notice_create(
                {"workspace_id": workspace_id, "legal_document_id": document.pk, "version_id": row["version_id"]},
                {"kind": ChangeNotice.Kind.AMENDED, "cited_units": cited, "leaning_documents": listed[workspace_id],
                 **unit_tally(zip(row["kinds"], row["acts"], strict=True)).fields()},
                flag=False)
    return made


def _notices_for_cited_repeals(directory: StatuteDirectory, repeals: list[dict]) -> int:
    """A notice for each workspace whose laglista does not hold a repealed document but holds one issued under it (a
    föreskrift whose legal basis it is) or whose units cite it, put on the list before the repeal was recorded."""
    made = 0
    for row in repeals:
        document = LegalDocument.objects.only("sfs_number", "title", "short_names").get(pk=row["document_id"])
        leaning = documents_leaning_on(document, directory, resting=True)
        workspaces = _workspaces_listing(leaning, document, row["created_at"], repeal_id=row["repeal_id"])
        if not workspaces:
            continue
        repeal = StatuteRepeal.objects.get(pk=row["repeal_id"])
        listed = _listed_documents(workspaces, leaning)
        for workspace_id in workspaces:
            made += _notice_create(
                {"workspace_id": workspace_id, "legal_document_id": document.pk, "repeal_id": repeal.pk},
                {"kind": ChangeNotice.Kind.REPEALED, "replaced_by": repeal.repealed_by,
                 "replacement": _replacement(repeal.repealed_by), "leaning_documents": listed[workspace_id]},
                flag=False)
    return made


def _workspaces_listing(numbers: set[str], document: LegalDocument, changed_at: datetime, *,
                        version_id: int | None = None, repeal_id: int | None = None) -> list[int]:
    """The workspaces whose laglista put one of the documents `numbers` on it before `changed_at`, does not hold
    `document` itself and has no notice of this change of it yet."""
    if not numbers:
        return []
    holding = set(RegisterItem.objects.filter(legal_document_id=document.pk).values_list("workspace_id", flat=True))
    noticed = set(ChangeNotice.objects.filter(legal_document_id=document.pk, version_id=version_id,
                                              repeal_id=repeal_id).values_list("workspace_id", flat=True))
    listing = set(RegisterItem.objects.filter(legal_document__sfs_number__in=numbers, created_at__lt=changed_at)
                  .values_list("workspace_id", flat=True))
    return sorted(listing - holding - noticed)


def _listed_documents(workspace_ids: list[int], numbers: set[str]) -> dict[int, list[dict]]:
    """Per workspace, the documents among `numbers` its laglista holds, {"number", "title"} in title order: why it
    hears of a document it leaves out."""
    found: dict[int, list[dict]] = defaultdict(list)
    rows = (RegisterItem.objects.filter(workspace_id__in=workspace_ids, legal_document__sfs_number__in=numbers)
            .values_list("workspace_id", "legal_document__sfs_number", "legal_document__title").distinct()
            .order_by("workspace_id", "legal_document__title"))
    for workspace_id, number, title in rows:
        found[workspace_id].append({"number": number, "title": title})
    return found


def _replacement(repealed_by: str) -> LegalDocument | None:
    number = sfs_number_in(repealed_by) if repealed_by else ""
    return LegalDocument.objects.filter(sfs_number=number).first() if number else None


def _workspace_documents() -> dict[int, dict[str, str]]:
    """Each workspace's laglista: the numbers of its documents, each with its category (its subject; "" for none)."""
    found: dict[int, dict[str, str]] = defaultdict(dict)
    for workspace_id, number, category in (RegisterItem.objects.filter(legal_document__isnull=False)
                                           .values_list("workspace_id", "legal_document__sfs_number",
                                                        "legal_document__category").distinct()):
        found[workspace_id][number] = category
    return found


def notices_create_for_versions(*, document_ids: Iterable[int] | None = None) -> NoticeRunResult:
    """Make every change notice that is due and missing: amendments and repeals of documents on a workspace's
    laglista, and of documents the laglista's documents cite or rest on (`_notices_for_cited_laws`,
    `_notices_for_cited_repeals`), and new statutes whose subject is one of the laglista's. `document_ids` narrows
    the scan to the documents an import just applied; None scans everything (the hourly catch-up)."""
    ids = None if document_ids is None else sorted(set(document_ids))
    if ids is not None and not ids:
        return NoticeRunResult(0, 0, 0)
    origins = list(APPLIED_ORIGINS)
    amended = repealed = new = 0

    where, params = _document_filter("v", ids)
    reader = CitationReader(statute_directory())
    for row in _rows(_AMENDED_SQL.format(documents=where), [origins, *params]):
        units = _relevant_units(reader, row["workspace_id"], row["document_id"], row["version_id"])
        amended += _notice_create(
            {"workspace_id": row["workspace_id"], "legal_document_id": row["document_id"],
             "version_id": row["version_id"]},
            {"item_id": row["item_id"], "kind": ChangeNotice.Kind.AMENDED, "relevant_units": units.relevant,
             "cited_units": units.cited, **units.tally.fields()}, flag=True)

    where, params = _document_filter("v", ids)
    amended += _notices_for_cited_laws(reader, _rows(_CHANGED_SQL.format(documents=where), [origins, *params]))

    where, params = _document_filter("r", ids)
    for row in _rows(_REPEALED_SQL.format(documents=where), params):
        repeal = StatuteRepeal.objects.get(pk=row["repeal_id"])
        repealed += _notice_create(
            {"workspace_id": row["workspace_id"], "legal_document_id": row["document_id"],
             "repeal_id": row["repeal_id"]},
            {"item_id": row["item_id"], "kind": ChangeNotice.Kind.REPEALED, "replaced_by": repeal.repealed_by,
             "replacement": _replacement(repeal.repealed_by)}, flag=True)

    where, params = _document_filter("r", ids)
    repealed += _notices_for_cited_repeals(reader.directory, _rows(_REPEALS_SQL.format(documents=where), params))

    where, params = _document_filter("v", ids)
    new_rows = _rows(_NEW_SQL.format(documents=where), [origins, *params])
    if new_rows:
        listed = _workspace_documents()
        created_at = dict(Workspace.objects.filter(pk__in=list(listed)).values_list("pk", "created_at"))
        on_register = defaultdict(set)
        for workspace_id, document_id in RegisterItem.objects.filter(
                legal_document_id__in=[r["document_id"] for r in new_rows]).values_list("workspace_id",
                                                                                       "legal_document_id"):
            on_register[document_id].add(workspace_id)
        for row in new_rows:
            cited = subject_documents(row["full_text"], exclude=row["document_id"])
            if not cited:
                continue
            # A workspace that has already accepted or declined the document (register.suggestions) is not
            # asked again.
            noticed = set(ChangeNotice.objects.filter(version_id=row["version_id"])
                          .values_list("workspace_id", flat=True)) | set(
                SuggestionDecision.objects.filter(legal_document_id=row["document_id"])
                .values_list("workspace_id", flat=True))
            for workspace_id, documents in listed.items():
                subjects = set(documents.values()) - {""}
                why = [{"number": document.number, "title": document.title, "category": document.category,
                        "listed": document.number in documents} for document in cited if document.category in subjects]
                if (not why or workspace_id in noticed or workspace_id in on_register[row["document_id"]]
                        or created_at[workspace_id] >= row["created_at"]):
                    continue
                new += _notice_create(
                    {"workspace_id": workspace_id, "legal_document_id": row["document_id"],
                     "version_id": row["version_id"]},
                    {"kind": ChangeNotice.Kind.NEW, "subject_documents": why}, flag=False)
    return NoticeRunResult(amended=amended, repealed=repealed, new=new)


def notices_fill_cited_units(*, workspace_ids: Iterable[int] | None = None) -> int:
    """Name, on each unanswered amendment notice, the changed units its workspace's kravpunkter cite
    (`ChangeNotice.cited_units`); the number of notices that changed. The units the notice already lists as touching
    a kravpunkt (`relevant_units`, kept from when it was made) are not named again as cited, as on a new notice.

    Notices made before the field existed hold an empty list. An answered notice is left as it was answered; an
    unanswered one is read again from the workspace's kravpunkter as they are now, so running it twice changes
    nothing the second time. Each notice is written in its own transaction, locked, and only if still unanswered."""
    notices = (ChangeNotice.objects.filter(kind=ChangeNotice.Kind.AMENDED, answered_at__isnull=True,
                                           version__isnull=False).order_by("pk"))
    if workspace_ids is not None:
        notices = notices.filter(workspace_id__in=list(workspace_ids))
    reader = CitationReader(statute_directory())
    changed = 0
    for row in notices.values("pk", "workspace_id", "legal_document_id", "version_id", "relevant_units"):
        citations = list(StatuteChange.objects.filter(to_version_id=row["version_id"]).order_by("ordinal")
                         .values_list("citation", flat=True))
        cited = requirements_citing(reader, row["workspace_id"], reader.number(row["legal_document_id"]), citations,
                                    direct=row["relevant_units"])
        changed += _unanswered_notice_update(row["pk"], {"cited_units": cited})
    return changed


def notices_fill_leaning_documents(*, workspace_ids: Iterable[int] | None = None) -> int:
    """Name, on each unanswered notice of a law its workspace's laglista leaves out, the documents on the list that
    bring it (`ChangeNotice.leaning_documents`: for an amendment, those citing a changed unit; for a repeal, those
    citing the law or resting on it), as a notice made now would; the number of notices that changed.

    Notices made before the field existed hold an empty list, so their digests, API and the assistant say "andra
    författningar". The list is read as it is now, so a document taken off it since is not named; an answered notice
    is left as it was answered, and running it twice changes nothing the second time."""
    notices = (ChangeNotice.objects.filter(item__isnull=True, answered_at__isnull=True)
               .exclude(kind=ChangeNotice.Kind.NEW).select_related("legal_document").order_by("pk"))
    if workspace_ids is not None:
        notices = notices.filter(workspace_id__in=list(workspace_ids))
    directory = statute_directory()
    # One change of a law reaches many workspaces: what leans on it is read once per change, not per notice.
    leaning: dict[tuple[int, str, int | None], set[str]] = {}
    changed = 0
    for notice in notices.only("pk", "workspace_id", "kind", "version_id", "legal_document__sfs_number",
                               "legal_document__title", "legal_document__short_names"):
        key = (notice.legal_document_id, notice.kind, notice.version_id)
        if key not in leaning:
            leaning[key] = _leaning_on(notice, directory)
        listed = _listed_documents([notice.workspace_id], leaning[key])[notice.workspace_id]
        changed += _unanswered_notice_update(notice.pk, {"leaning_documents": listed})
    return changed


def _leaning_on(notice: ChangeNotice, directory: StatuteDirectory, *, citations: set[str] | None = None) -> set[str]:
    """The numbers of the documents that bring the notice's law to a laglista leaving it out, as
    `_notices_for_cited_laws` and `_notices_for_cited_repeals` read them: for a repeal, those citing the law or resting
    on it; for an amendment, those citing its changed units (`citations`, read from the version when not given)."""
    if notice.kind == ChangeNotice.Kind.REPEALED:
        return documents_leaning_on(notice.legal_document, directory, resting=True)
    if citations is None:
        citations = set(StatuteChange.objects.filter(to_version_id=notice.version_id)
                        .values_list("citation", flat=True))
    return documents_leaning_on(notice.legal_document, directory, citations=citations)


def notices_refresh_units(*, version_ids: Iterable[int]) -> int:
    """Count and name again, on each unanswered amendment notice of these versions, the changed units
    (`change_count`, `unit_counts`, `act_count`, `relevant_units`, `cited_units`, and for a law the laglista leaves
    out `leaning_documents`), as a notice made now would: for after the versions' changed units were rebuilt
    (`law.services.statute_changes_rebuild`). The number of notices that changed. An answered notice is left as it
    was answered; each is written in its own transaction, locked, and only if still unanswered, so running it twice
    changes nothing the second time."""
    notices = (ChangeNotice.objects.filter(kind=ChangeNotice.Kind.AMENDED, answered_at__isnull=True,
                                           version_id__in=list(version_ids))
               .select_related("legal_document").order_by("pk"))
    reader = CitationReader(statute_directory())
    changed = 0
    for notice in notices.only("pk", "workspace_id", "kind", "version_id", "item_id", "legal_document__sfs_number",
                               "legal_document__title", "legal_document__short_names"):
        if notice.item_id is not None:
            units = _relevant_units(reader, notice.workspace_id, notice.legal_document_id, notice.version_id)
            leaning = {}
        else:  # a law the laglista leaves out: only what its kravpunkter cite (`_notices_for_cited_laws`)
            changes = list(StatuteChange.objects.filter(to_version_id=notice.version_id).order_by("ordinal")
                           .values_list("citation", "kind", "amending_sfs"))
            citations = [citation for citation, *_ in changes]
            units = _VersionUnits(relevant=[], tally=unit_tally((kind, act) for _, kind, act in changes),
                                  cited=requirements_citing(reader, notice.workspace_id,
                                                            notice.legal_document.sfs_number, citations))
            listed = _listed_documents([notice.workspace_id], _leaning_on(notice, reader.directory,
                                                                          citations=set(citations)))
            leaning = {"leaning_documents": listed[notice.workspace_id]}
        changed += _unanswered_notice_update(notice.pk, {**units.tally.fields(), "relevant_units": units.relevant,
                                                         "cited_units": units.cited, **leaning})
    return changed


def _unanswered_notice_update(notice_id: int, data: dict[str, object]) -> bool:
    """Write `data` on the notice in a transaction of its own, locked, and only if it is still unanswered (an
    answered notice stays as it was answered); True when a value changed."""
    with transaction.atomic(), audit_actor(None):
        notice = ChangeNotice.objects.select_for_update().filter(pk=notice_id, answered_at__isnull=True).first()
        return notice is not None and model_update(notice, fields=list(data), data=data).has_updated


# --- Reading and answering -------------------------------------------------------------------------------


def _require_member(workspace_id: int, user: AbstractBaseUser | None) -> None:
    if user is None or not Membership.objects.filter(workspace_id=workspace_id, user=user).exists():
        raise RegisterError("not_a_member", "Du är inte medlem i arbetsytan.")


def notice_mark_read(*, notice: ChangeNotice, user: AbstractBaseUser) -> NoticeRead:
    """The member has opened the notice: read for them, still unread for the others (any role: it is their own
    state, like their e-mail setting). Opening it again keeps the first time."""
    _require_member(notice.workspace_id, user)
    read, _ = NoticeRead.objects.get_or_create(notice=notice, user=user, defaults={"read_at": timezone.now()})
    return read


def notice_mark_unread(*, notice: ChangeNotice, user: AbstractBaseUser) -> None:
    """Unread again for this member only."""
    _require_member(notice.workspace_id, user)
    NoticeRead.objects.filter(notice=notice, user=user).delete()


@dataclass(frozen=True)
class AnswerResult:
    assessment: ImpactAssessment
    action: Action | None
    added_item: RegisterItem | None


def notice_answer(*, notice: ChangeNotice, user: AbstractBaseUser, affects_us: str, what_to_do: str = "",
                  comment: str = "", action_title: str = "", action_owner: AbstractBaseUser | None = None,
                  action_due_date: date | None = None, add_to_register: bool = False) -> AnswerResult:
    """Answer a notice with an impact assessment (answering again updates it; the audit trail keeps both).
    An action is made when `action_title` is given (once per notice). When no unanswered notice of the
    document is left, the workspace's items of it are no longer flagged. `add_to_register`: a suggested new
    statute, a repealed one's replacement, or a changed law the laglista leaves out and cites, goes on the
    workspace's laglista."""
    workspace = notice.workspace
    _require_editor(workspace, user)
    if affects_us not in ImpactAssessment.Affects.values:
        raise RegisterError("affects_us_required", "Ange om ändringen påverkar er: ja, nej eller vet inte.",
                            details={"field": "affects_us"})
    what_to_do = _check_text(what_to_do, field="what_to_do", label="Texten om vad som behöver göras")
    comment = _check_text(comment, field="comment", label="Kommentaren")
    action_title = _check_text(action_title, field="action_title", label="Åtgärden", max_length=300)
    _member_or_error(workspace, action_owner, field="action_owner")
    if (action_owner is not None or action_due_date is not None) and not action_title:
        raise RegisterError("action_title_required", "Beskriv åtgärden som ska ha ansvarig och datum.",
                            details={"field": "action_title"})
    if add_to_register and notice.kind == ChangeNotice.Kind.REPEALED and notice.replacement_id is None:
        raise RegisterError("no_replacement", "Den ersättande författningen finns inte i Lagrum.",
                            details={"field": "add_to_register"})
    if (add_to_register and notice.kind == ChangeNotice.Kind.AMENDED
            and RegisterItem.objects.filter(workspace=workspace, legal_document_id=notice.legal_document_id).exists()):
        raise RegisterError("already_on_register", "Författningen finns redan i laglistan.",
                            details={"field": "add_to_register"})
    now = timezone.now()
    action = added = None
    # The services called here record their own actor; audit_actor blocks do not nest (leaving the inner one
    # forgets the outer one's actor), so this function's own writes come after them in a block of their own.
    with transaction.atomic():
        notice = (ChangeNotice.objects.select_for_update(of=("self",))
                  .select_related("workspace", "item", "replacement", "legal_document").order_by("pk").get(pk=notice.pk))
        existing = ImpactAssessment.objects.filter(notice=notice).first()
        if action_title and (existing is None or existing.action_id is None):
            action = action_create(workspace=workspace, user=user, title=action_title, item=notice.item,
                                   description=what_to_do, owner=action_owner, due_date=action_due_date)
        if notice.kind == ChangeNotice.Kind.NEW and affects_us == ImpactAssessment.Affects.NO and not add_to_register:
            # A suggested statute that does not concern us is declined for the register's suggestions too.
            document_decline(workspace=workspace, user=user, legal_document=notice.legal_document,
                             reason="Lagbevakning: påverkar oss inte")
        if add_to_register:
            document = notice.replacement if notice.kind == ChangeNotice.Kind.REPEALED else notice.legal_document
            register = register_default(workspace=workspace, user=user)
            added = register_item_add(register=register, user=user, legal_document=document,
                                      reason=f"Lagbevakning: {notice.legal_document.title}",
                                      origin=ItemOrigin.CHANGE).item
        with audit_actor(user):
            values = {"affects_us": affects_us, "what_to_do": what_to_do, "comment": comment, "answered_by": user,
                      "answered_at": now}
            if action is not None:
                values["action"] = action
            if existing is None:
                assessment = ImpactAssessment.objects.create(notice=notice, workspace=workspace, **values)
            else:
                assessment = model_update(existing, fields=list(values), data=values).instance
            if added is not None and notice.item_id is None:
                notice.item = added
            notice.answered_at = now
            notice.save(update_fields=["answered_at", "item"])
            NoticeRead.objects.get_or_create(notice=notice, user=user, defaults={"read_at": now})
            pending = ChangeNotice.objects.filter(workspace=workspace, legal_document_id=notice.legal_document_id,
                                                  answered_at__isnull=True).exclude(pk=notice.pk)
            if notice.kind != ChangeNotice.Kind.NEW and not pending.exists():
                for item in (RegisterItem.objects.select_for_update()
                             .filter(workspace=workspace, legal_document_id=notice.legal_document_id,
                                     needs_reassessment=True).order_by("pk")):
                    item.needs_reassessment = False
                    item.save(update_fields=["needs_reassessment", "updated_at"])
    return AnswerResult(assessment=assessment, action=action, added_item=added)


# --- E-mail preferences ----------------------------------------------------------------------------------


def notice_subscription_save(*, workspace: Workspace, user: AbstractBaseUser, frequency: str, changes: bool = True,
                             new_statutes: bool = True) -> NoticeSubscription:
    """A member's own digest setting for the workspace (any role: it is about their own inbox)."""
    _require_member(workspace.pk, user)
    if frequency not in NoticeSubscription.Frequency.values:
        raise RegisterError("invalid_frequency", "Välj hur ofta du vill få sammanställningen.",
                            details={"field": "frequency"})
    subscription, _ = NoticeSubscription.objects.update_or_create(
        user=user, workspace=workspace,
        defaults={"frequency": frequency, "changes": bool(changes), "new_statutes": bool(new_statutes)})
    return subscription
