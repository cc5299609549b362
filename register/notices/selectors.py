"""Reads of lagbevakning. Each starts from a workspace the access selector resolved (or, for the header's
count, from the user and the workspace's slug in one query that checks the membership), so a notice of
another workspace is a 404 like one that does not exist."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Case, IntegerField, OuterRef, Q, QuerySet, Subquery, Value, When
from django.http import Http404
from django.urls import reverse

from chunks.cited_elsewhere import CitingElsewhere, document_cited_elsewhere
from compliance.clock import swedish_date, swedish_midnight, swedish_today
from compliance.models import LegalDocument, Workspace
from compliance.sql import dict_cursor
from law.models import ChangeSummary, StatuteChange, StatuteRepeal
from law.selectors import change_view
from law.diff import DiffSegment
from law.statute_directory import statute_directory

from ..models import ChangeNotice, ImpactAssessment, NoticeRead, NoticeSubscription, RegisterItem, Requirement
from ..selectors import action_summary, person_label, without_text
from ..services import RegisterError
from ..transfer.export_data import NoticeReport, NoticeRow
from .citing import documents_leaning_on
from .sections import touches, touches_old_number
from .wording import notice_change_text, notice_units_text

# The page's and the API's filters. Unread is the asking member's own (`read_at`, annotated per member); an
# answered notice is not unread for anyone.
STATES = {
    "olasta": Q(read_at__isnull=True, answered_at__isnull=True),
    "obesvarade": Q(answered_at__isnull=True),
    "besvarade": Q(answered_at__isnull=False),
}
STATE_LABELS = {"": "Alla", "olasta": "Olästa", "obesvarade": "Obesvarade", "besvarade": "Besvarade"}


def notice_tier() -> Case:
    """The order of a workspace's notices, before their age: the laglista's own documents' changes (0), then those of
    laws it leaves out that its documents cite or rest on (1; no item: "finns inte på er laglista"), then suggested
    new statutes (2). With the whole statute book's amendments, a list holding a law that cites hundreds of others
    (offentlighets- och sekretesslagen) hears of many laws it does not hold, which would otherwise push its own down."""
    return Case(When(kind=ChangeNotice.Kind.NEW, then=Value(2)), When(item__isnull=True, then=Value(1)),
                default=Value(0), output_field=IntegerField())


def notice_list(workspace: Workspace, user: AbstractBaseUser | None, *, state: str = "", kind: str = "") -> QuerySet[ChangeNotice]:
    """The workspace's notices, each with `read_at`: when `user` opened it (None: unread for them; no user, as
    for the assistant's answers about the workspace's changes: unread for all); by `notice_tier`, newest first
    within each."""
    read_at = NoticeRead.objects.filter(notice=OuterRef("pk"), user_id=getattr(user, "pk", None)).values("read_at")
    notices = (ChangeNotice.objects.filter(workspace=workspace)
               .select_related("legal_document", "item", "version", "repeal", "replacement", "impact",
                               "impact__answered_by", "impact__action", "impact__action__owner")
               .defer(*without_text("legal_document", "replacement", versions=("version",)))
               .annotate(read_at=Subquery(read_at[:1]))
               .order_by(notice_tier(), "-created_at", "-pk"))
    if state in STATES:
        notices = notices.filter(STATES[state])
    if kind in ChangeNotice.Kind.values:
        notices = notices.filter(kind=kind)
    return notices


def notice_get(workspace: Workspace, user: AbstractBaseUser | None, notice_id: int) -> ChangeNotice:
    notice = notice_list(workspace, user).filter(pk=notice_id).first()
    if notice is None:
        raise Http404("Lagändringen finns inte.")
    return notice


@dataclass(frozen=True)
class CitingRequirement:
    """A kravpunkt whose § cites a changed unit without naming it: the kravpunkt, and that § (`label`: "3 kap.
    2 a §" in the changed document itself, with the document's title in another)."""

    requirement: Requirement
    label: str


@dataclass(frozen=True)
class NoticeChangeView:
    change: StatuteChange
    stycken: list[list[DiffSegment]]
    coming: bool
    relevant: bool       # touches a kravpunkt of the item (its section_ref)
    # The kravpunkter whose §§ cite the unit (ChangeNotice.cited_units) as they are now: a deleted one is left out.
    cited_by: tuple[CitingRequirement, ...] = ()
    # The units of the other documents on the laglista that cite it, kravpunkt or not (a föreskrift filling in a
    # changed § of its law), as their texts are now.
    from_register: tuple[CitingElsewhere, ...] = ()
    # The kravpunkter whose section_ref names the unit by the number it had before the version renumbered it (and
    # not by its new one): their reference now points elsewhere.
    renumbered_for: tuple[Requirement, ...] = ()


@dataclass(frozen=True)
class NoticeDetail:
    notice: ChangeNotice
    # The units touching the kravpunkter first, then those they cite, those the laglista's other documents cite, the
    # rest.
    changes: list[NoticeChangeView]
    requirements: list[Requirement]      # the item's kravpunkter, with their references
    summary: ChangeSummary | None = None  # the model's summary of the version's changes, when one was made
    # A notice of a document the laglista does not hold: the documents on it that cite the changed units (or, for a
    # repeal, cite it or rest on it), which are why the workspace hears of it.
    leaning: tuple[LegalDocument, ...] = ()


def _citing_requirements(notice: ChangeNotice) -> dict[str, tuple[CitingRequirement, ...]]:
    """Each changed unit the notice's kravpunkter cite, with those kravpunkter (the notice's workspace's only)."""
    entries = [(cited["unit"], citing) for cited in notice.cited_units for citing in cited["citing"]]
    if not entries:
        return {}
    requirements = Requirement.objects.filter(workspace_id=notice.workspace_id,
                                              pk__in={citing["requirement"] for _, citing in entries}).in_bulk()
    titles = dict(LegalDocument.objects.filter(sfs_number__in={citing["document"] for _, citing in entries})
                  .values_list("sfs_number", "title"))
    number = notice.legal_document.sfs_number
    found: dict[str, list[CitingRequirement]] = {}
    for unit, citing in entries:
        requirement = requirements.get(citing["requirement"])
        if requirement is None:
            continue
        label = (citing["citation"] if citing["document"] == number
                 else f"{citing['citation']} {titles.get(citing['document'], citing['document'])}")
        found.setdefault(unit, []).append(CitingRequirement(requirement, label))
    return {unit: tuple(citing) for unit, citing in found.items()}


def _other_listed(notice: ChangeNotice) -> set[str]:
    """The numbers of the documents on the workspace's laglista besides the notice's own."""
    return set(RegisterItem.objects.filter(workspace_id=notice.workspace_id, legal_document__isnull=False)
               .exclude(legal_document_id=notice.legal_document_id)
               .values_list("legal_document__sfs_number", flat=True))


def _item_requirements(notice: ChangeNotice) -> list[Requirement]:
    """The kravpunkter of the workspace on the notice's document, in their order; none for a suggested statute."""
    if notice.kind == ChangeNotice.Kind.NEW:
        return []
    return list(Requirement.objects.filter(workspace_id=notice.workspace_id,
                                           item__legal_document_id=notice.legal_document_id).order_by("position", "pk"))


def _citing_old_number(change: StatuteChange, requirements: list[Requirement]) -> tuple[Requirement, ...]:
    """The kravpunkter citing a renumbered unit by its old number and not by its new one."""
    return tuple(requirement for requirement in requirements if requirement.section_ref
                 and touches_old_number([requirement.section_ref], change.old_citation)
                 and not touches([requirement.section_ref], change.chapter, change.section))


def notice_detail(notice: ChangeNotice, *, today: date | None = None) -> NoticeDetail:
    today = today or swedish_today()
    changes: list[NoticeChangeView] = []
    listed = _other_listed(notice) if notice.kind != ChangeNotice.Kind.NEW else set()
    # The units of other documents citing each changed unit, read once for the units' lines and for `leaning`.
    elsewhere: dict[str, tuple[CitingElsewhere, ...]] = {}
    requirements = _item_requirements(notice)
    if notice.version_id is not None and notice.kind == ChangeNotice.Kind.AMENDED:
        relevant = set(notice.relevant_units)
        cited = _citing_requirements(notice)
        units = list(StatuteChange.objects.filter(to_version_id=notice.version_id).order_by("ordinal"))
        if listed and units:
            elsewhere = document_cited_elsewhere(notice.legal_document, statute_directory(),
                                                 {change.citation for change in units})
        for change in units:
            view = change_view(change, today=today)
            on_register = tuple(unit for unit in elsewhere.get(change.citation, ()) if unit.number in listed)
            changes.append(NoticeChangeView(change, view.stycken, view.coming, change.citation in relevant,
                                            cited.get(change.citation, ()), on_register,
                                            _citing_old_number(change, requirements)))
        # Stable: document order within each group.
        changes.sort(key=lambda view: (not view.relevant, not view.cited_by, not view.from_register))
    summary = (ChangeSummary.objects.filter(version_id=notice.version_id).first()
               if changes and notice.version_id is not None else None)
    return NoticeDetail(notice=notice, changes=changes, requirements=requirements, summary=summary,
                        leaning=_listed_leaning(notice, listed, {view.change.citation for view in changes}, elsewhere))


def _listed_leaning(notice: ChangeNotice, listed: set[str], changed: set[str],
                    elsewhere: dict[str, tuple[CitingElsewhere, ...]]) -> tuple[LegalDocument, ...]:
    """For a notice without an item, the documents on the workspace's laglista (`listed`) that cite the changed
    units (a repeal: that cite the document or rest on it), in title order; () for a notice of a document the list
    holds."""
    if notice.item_id is not None or notice.kind == ChangeNotice.Kind.NEW or not listed:
        return ()
    if notice.kind == ChangeNotice.Kind.REPEALED:
        leaning = documents_leaning_on(notice.legal_document, statute_directory(), resting=True)
    else:
        leaning = documents_leaning_on(notice.legal_document, statute_directory(), citations=changed,
                                       elsewhere=elsewhere)
    return tuple(LegalDocument.objects.filter(sfs_number__in=leaning & listed).only("sfs_number", "title")
                 .order_by("title"))


def notice_report_get(workspace: Workspace, user: AbstractBaseUser | None, *, since: date | None = None,
                      until: date | None = None, today: date | None = None) -> NoticeReport:
    """Lagbevakning's report: the workspace's notices made from `since` through `until` (Stockholm days, either
    open), oldest first, each with the change and the workspace's answer to it, as its exports show it."""
    if since is not None and until is not None and until < since:
        raise RegisterError("period_reversed", "Slutdatumet ligger före startdatumet.", details={"field": "until"})
    notices = notice_list(workspace, user).order_by("created_at", "pk")
    if since is not None:
        notices = notices.filter(created_at__gte=swedish_midnight(since))
    if until is not None:
        notices = notices.filter(created_at__lt=swedish_midnight(until + timedelta(days=1)))
    rows = []
    for notice in notices:
        impact = getattr(notice, "impact", None) if notice.is_answered else None
        rows.append(NoticeRow(
            noticed_on=swedish_date(notice.created_at), title=notice.legal_document.title,
            number=notice.legal_document.sfs_number, kind=notice.kind, kind_label=notice.get_kind_display(),
            change=notice_change_text(notice), on_register=notice.item_id is not None,
            changed_units=notice.change_count, units_text=notice_units_text(notice), relevant_units=list(notice.relevant_units),
            cited_units=notice.cited_unit_citations,
            affects_us=impact.get_affects_us_display() if impact is not None else "",
            what_to_do=impact.what_to_do if impact is not None else "",
            comment=impact.comment if impact is not None else "",
            answered_by=person_label(impact.answered_by) if impact is not None else "",
            answered_on=swedish_date(impact.answered_at) if impact is not None else None,
            action=action_summary(impact.action) if impact is not None and impact.action is not None else ""))
    answered = [row for row in rows if row.answered]
    summary = {"Lagändringar": len(rows), "Besvarade": len(answered), "Obesvarade": len(rows) - len(answered)}
    summary.update({f"Påverkar oss: {label}": sum(row.affects_us == label for row in answered)
                    for label in ImpactAssessment.Affects.labels})
    return NoticeReport(workspace=workspace.name, since=since, until=until, printed=today or swedish_today(),
                        rows=rows, summary=summary)


@dataclass(frozen=True)
class ComingChange:
    """What enters into force on a day still to come in one document of the laglista: the units one amending act
    changes from that day (in the version's order), or the document's repeal."""

    in_force: date
    document: LegalDocument
    amending_sfs: str
    # The units given a wording that day (new ones and amended ones), and those that stop applying that day.
    units: tuple[str, ...]
    ending: tuple[str, ...]
    # Of both, those touching the workspace's kravpunkter on the document.
    relevant: tuple[str, ...]
    repeal: bool
    # The workspace's notice of the version that brought the change (or of the repeal), when it has one.
    notice_id: int | None

    @property
    def act(self) -> str:
        """The amending or repealing act as the pages name it: "SFS 2025:1142"."""
        if not self.amending_sfs or self.amending_sfs.startswith("SFS"):
            return self.amending_sfs
        return f"SFS {self.amending_sfs}"

    def path(self, slug: str) -> str:
        """Where the change is read: the workspace's notice of it, else the statute's Ändringar."""
        if self.notice_id is not None:
            return reverse("notice_detail", args=[slug, self.notice_id])
        return reverse("statute", args=[self.document.sfs_number]) + "#andringar"


def coming_into_force(workspace: Workspace, *, today: date | None = None) -> list[ComingChange]:
    """The changes and repeals of the documents on the workspace's laglista that enter into force after `today`,
    soonest first. A unit is read from the newest applied version that changed it, so a later version's rewording
    of a coming § replaces the earlier one, and one that drops the coming text takes it off."""
    today = today or swedish_today()
    listed = set(RegisterItem.objects.filter(workspace=workspace, legal_document__isnull=False)
                 .values_list("legal_document_id", flat=True))
    if not listed:
        return []
    # The units with a change still to come, then every change of those units: a newer version that changed one
    # again (reworded it, or dropped its coming text) decides whether and when it comes.
    pending = set(StatuteChange.objects.filter(document_id__in=listed, in_force__gt=today)
                  .values_list("document_id", "citation"))
    latest: dict[tuple[int, str], StatuteChange] = {}
    for change in (StatuteChange.objects.filter(document_id__in={d for d, _ in pending},
                                                citation__in={c for _, c in pending})
                   .only("document_id", "to_version_id", "kind", "citation", "chapter", "section", "amending_sfs",
                         "in_force", "ordinal").order_by("-to_version_id", "ordinal")):
        if (change.document_id, change.citation) in pending:
            latest.setdefault((change.document_id, change.citation), change)
    latest = {key: change for key, change in latest.items() if change.in_force is not None and change.in_force > today}
    refs: dict[int, list[str]] = {}
    for document_id, ref in (Requirement.objects.filter(workspace=workspace, item__legal_document_id__in=listed)
                             .exclude(section_ref="").values_list("item__legal_document_id", "section_ref")):
        refs.setdefault(document_id, []).append(ref)
    groups: dict[tuple[date, int, str], list[StatuteChange]] = {}
    for change in sorted(latest.values(), key=lambda c: (c.to_version_id, c.ordinal)):
        groups.setdefault((change.in_force, change.document_id, change.amending_sfs), []).append(change)
    repeals = list(StatuteRepeal.objects.filter(document_id__in=listed, repealed_on__gt=today))
    notices = {(n["version_id"], n["repeal_id"]): n["pk"] for n in ChangeNotice.objects.filter(
        workspace=workspace, legal_document_id__in=listed).values("pk", "version_id", "repeal_id")}
    documents = LegalDocument.objects.in_bulk({key[1] for key in groups} | {r.document_id for r in repeals})
    coming = []
    for (in_force, document_id, amending), changes in groups.items():
        document_refs = refs.get(document_id, [])
        coming.append(ComingChange(
            in_force=in_force, document=documents[document_id], amending_sfs=amending,
            units=tuple(c.citation for c in changes if c.kind != StatuteChange.Kind.REPEALED),
            ending=tuple(c.citation for c in changes if c.kind == StatuteChange.Kind.REPEALED),
            relevant=tuple(c.citation for c in changes if document_refs and touches(document_refs, c.chapter,
                                                                                    c.section)),
            repeal=False, notice_id=notices.get((max(c.to_version_id for c in changes), None))))
    for repeal in repeals:
        coming.append(ComingChange(in_force=repeal.repealed_on, document=documents[repeal.document_id],
                                   amending_sfs=repeal.repealed_by, units=(), ending=(), relevant=(), repeal=True,
                                   notice_id=notices.get((None, repeal.pk))))
    return sorted(coming, key=lambda c: (c.in_force, c.document.title, c.amending_sfs))


@dataclass(frozen=True)
class NoticeCounts:
    unanswered: int  # the workspace's, the same for every member
    unread: int      # unanswered and not opened by this member


def notice_counts(user: AbstractBaseUser | AnonymousUser | None, slug: str) -> NoticeCounts:
    """The header's badge (unread, the member's own) and the unanswered count, zero unless the user is a member
    of the workspace `slug`. One query."""
    if not getattr(user, "is_authenticated", False) or not slug:
        return NoticeCounts(0, 0)
    with dict_cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*) AS unanswered,"
            " COUNT(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM register_noticeread r"
            "                                    WHERE r.notice_id = n.id AND r.user_id = m.user_id)) AS unread"
            " FROM register_changenotice n"
            " JOIN compliance_workspace w ON w.id = n.workspace_id"
            " JOIN compliance_membership m ON m.workspace_id = w.id AND m.user_id = %s"
            " WHERE w.slug = %s AND n.answered_at IS NULL", [user.pk, slug])
        row = cursor.fetchone()
    return NoticeCounts(unanswered=row["unanswered"], unread=row["unread"])


def notice_subscription_get(workspace: Workspace, user: AbstractBaseUser) -> NoticeSubscription:
    """The member's digest setting; the default, unsaved, when they never chose one."""
    found = NoticeSubscription.objects.filter(workspace=workspace, user=user).first()
    return found or NoticeSubscription(workspace=workspace, user=user)
