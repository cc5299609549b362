"""Reads of the register. Each starts from a workspace that compliance's access selector resolved for the user
(`membership_get_by_slug` / `access_scope_for`), so nothing here can reach another workspace's rows; a row
of another workspace is a 404, exactly like a row that does not exist."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import django_filters
from auditlog.models import LogEntry
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.postgres.search import TrigramSimilarity
from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet
from django.http import Http404

from compliance.clock import swedish_date, swedish_today
from compliance.models import LegalDocument, Membership, UserFile, Workspace
from compliance.sql import dict_cursor

from .transfer.export_data import EntryRow, ItemRow, RegisterExport, RequirementRow, ReviewExport
from .models import (
    Action,
    ComplianceStatus,
    Evidence,
    LegalRegister,
    RegisterGroup,
    RegisterItem,
    Requirement,
    Review,
    ReviewEntry,
    document_display_title,
)

# Roles that may read the register; owners and editors also write (Membership.can_edit).
READ_ROLES = (Membership.Role.OWNER, Membership.Role.EDITOR, Membership.Role.VIEWER, Membership.Role.AUDITOR)


def _get(queryset: QuerySet, pk: int, what: str) -> Any:
    obj = queryset.filter(pk=pk).first()
    if obj is None:
        raise Http404(f"{what} finns inte.")
    return obj


def register_list(workspace: Workspace) -> QuerySet[LegalRegister]:
    # A query with an aggregate does not take Meta.ordering: pages and the API paginate, so order explicitly.
    return (LegalRegister.objects.filter(workspace=workspace).annotate(item_count=Count("items"))
            .order_by(*LegalRegister._meta.ordering))


def register_get(workspace: Workspace, register_id: int) -> LegalRegister:
    return _get(LegalRegister.objects.filter(workspace=workspace), register_id, "Laglistan")


def register_group_list(register: LegalRegister) -> QuerySet[RegisterGroup]:
    return RegisterGroup.objects.filter(register=register)


def register_group_get(register: LegalRegister, group_id: int) -> RegisterGroup:
    return _get(RegisterGroup.objects.filter(register=register), group_id, "Gruppen")


class RegisterItemFilter(django_filters.FilterSet):
    """The register page's and the API's filters, one definition for both."""

    group = django_filters.NumberFilter(field_name="group_id")
    status = django_filters.ChoiceFilter(choices=ComplianceStatus.choices)
    responsible = django_filters.NumberFilter(field_name="responsible_id")
    kind = django_filters.ChoiceFilter(field_name="legal_document__content_type",
                                       choices=LegalDocument.ContentType.choices)
    needs_reassessment = django_filters.BooleanFilter()
    overdue = django_filters.BooleanFilter(method="filter_overdue")
    q = django_filters.CharFilter(method="filter_q")

    class Meta:
        model = RegisterItem
        fields = ["group", "status", "responsible", "kind", "needs_reassessment"]

    def filter_q(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(Q(title__icontains=value) | Q(legal_document__title__icontains=value)
                               | Q(legal_document__sfs_number__icontains=value))

    def filter_overdue(self, queryset: QuerySet, name: str, value: bool | None) -> QuerySet:
        """Items whose next review date has passed (the Stockholm day), or the others."""
        if value is None:
            return queryset
        overdue = Q(next_review_date__lt=swedish_today())
        return queryset.filter(overdue) if value else queryset.exclude(overdue)


def without_text(*documents: str, versions: tuple[str, ...] = ()) -> tuple[str, ...]:
    """`defer()` arguments that leave unread the text of the legal documents joined through `documents` and of the
    statute versions joined through `versions`.

    A register row, a kravpunkt, an action or a notice names its document (title, number, kind) and never reads its
    text, which is megabytes for a large statute and again for each of its versions: joined whole, a laglista of 24
    statutes read that much per page, and the assistant's status lines took 10 ms for six documents instead of 2."""
    return (*(f"{relation}__{name}" for relation in documents for name in LegalDocument.TEXT_FIELDS),
            *(f"{relation}__full_text" for relation in versions))


_WITHOUT_DOCUMENT_TEXT = without_text("legal_document")
_WITHOUT_ITEM_DOCUMENT_TEXT = without_text("item__legal_document")


def register_item_list(workspace: Workspace, *, register: LegalRegister | None = None,
                       filters: dict | None = None) -> QuerySet[RegisterItem]:
    items = (RegisterItem.objects.filter(workspace=workspace)
             .select_related("legal_document", "group", "responsible", "last_reviewed_by", "register")
             .defer(*_WITHOUT_DOCUMENT_TEXT)
             .annotate(requirement_count=Count("requirements", distinct=True))
             .order_by(*RegisterItem._meta.ordering))
    if register is not None:
        items = items.filter(register=register)
    if filters:
        items = RegisterItemFilter(filters, queryset=items).qs
    return items


def register_item_get(workspace: Workspace, item_id: int) -> RegisterItem:
    items = RegisterItem.objects.filter(workspace=workspace).select_related(
        "legal_document", "group", "responsible", "last_reviewed_by", "register").defer(*_WITHOUT_DOCUMENT_TEXT)
    return _get(items, item_id, "Posten")


@dataclass(frozen=True)
class ItemStatus:
    """What the assistant's context says of one laglista item beside a cited document (agent.answering.register_context)."""

    item_id: int
    register_id: int
    register_name: str
    legal_document_id: int
    display_title: str
    status: str
    responsible: str  # the responsible person as person_label names a user (full name, else username); "" for none
    last_reviewed_at: date | None
    next_review_date: date | None
    needs_reassessment: bool

    @property
    def status_label(self) -> str:
        # As the model's get_status_display: a value outside the choices (written around the services) as it is.
        return ComplianceStatus(self.status).label if self.status in ComplianceStatus.values else self.status


def register_item_statuses(workspace_ids: Iterable[int], document_ids: Iterable[int]) -> list[ItemStatus]:
    """The register items of these workspaces for these legal documents, in document, register and item order:
    what the assistant's context says about "er laglista" beside a cited document."""
    doc_ids = list(document_ids)
    if not doc_ids:
        return []
    # Read on every turn, a cache hit included: in plain SQL (building the ORM's query and its models took as long as
    # the indexed read itself), and only the columns a status line says, never a document's text.
    with dict_cursor() as cursor:
        cursor.execute("""
            SELECT i.id AS item_id, i.register_id, r.name AS register_name, i.legal_document_id, i.title,
                   d.title AS document_title, d.sfs_number, i.status, i.last_reviewed_at, i.next_review_date,
                   i.needs_reassessment,
                   coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.username, '') AS responsible
            FROM register_registeritem i
            JOIN register_legalregister r ON r.id = i.register_id
            JOIN compliance_legaldocument d ON d.id = i.legal_document_id
            LEFT JOIN auth_user u ON u.id = i.responsible_id
            WHERE i.workspace_id = ANY(%(workspaces)s) AND i.legal_document_id = ANY(%(documents)s)
            ORDER BY i.legal_document_id, r.name, i.id""", {"workspaces": list(workspace_ids), "documents": doc_ids})
        rows = cursor.fetchall()
    return [ItemStatus(item_id=row["item_id"], register_id=row["register_id"], register_name=row["register_name"],
                       legal_document_id=row["legal_document_id"],
                       display_title=row["title"] or document_display_title(row["document_title"], row["sfs_number"]),
                       status=row["status"], responsible=row["responsible"], last_reviewed_at=row["last_reviewed_at"],
                       next_review_date=row["next_review_date"], needs_reassessment=row["needs_reassessment"])
            for row in rows]


def register_document_ids(workspace: Workspace) -> set[int]:
    """The legal documents on any of the workspace's registers (change monitoring's audience)."""
    return set(RegisterItem.objects.filter(workspace=workspace, legal_document__isnull=False)
               .values_list("legal_document_id", flat=True))


def requirement_list(workspace: Workspace, *, item: RegisterItem | None = None, owner_id: int | None = None,
                     missing_evidence: bool = False, with_counts: bool = True) -> QuerySet[Requirement]:
    """`with_counts=False` leaves out `evidence_count` (it groups every row: a short list does not need it)."""
    reqs = (Requirement.objects.filter(workspace=workspace).select_related("item", "item__legal_document", "owner")
            .defer(*_WITHOUT_ITEM_DOCUMENT_TEXT).order_by(*Requirement._meta.ordering))
    if with_counts:
        reqs = reqs.annotate(evidence_count=Count("evidence", distinct=True))
    if item is not None:
        reqs = reqs.filter(item=item)
    if owner_id is not None:
        reqs = reqs.filter(owner_id=owner_id)
    if missing_evidence:
        reqs = reqs.filter(needs_evidence=True).exclude(Exists(Evidence.objects.filter(requirement=OuterRef("pk"))))
    return reqs


def requirement_get(workspace: Workspace, requirement_id: int) -> Requirement:
    reqs = (Requirement.objects.filter(workspace=workspace).select_related("item", "item__legal_document", "owner")
            .defer(*_WITHOUT_ITEM_DOCUMENT_TEXT))
    return _get(reqs, requirement_id, "Kravpunkten")


def evidence_list(requirement: Requirement) -> QuerySet[Evidence]:
    return Evidence.objects.filter(requirement=requirement).select_related("user_file", "assessment", "added_by")


def evidence_list_for_items(workspace: Workspace, item_ids: Iterable[int]) -> QuerySet[Evidence]:
    """The evidence of these items' kravpunkter (one query for a page of items, e.g. a review)."""
    return (Evidence.objects.filter(workspace=workspace, requirement__item_id__in=list(item_ids))
            .select_related("user_file", "assessment", "requirement", "added_by")
            .order_by("requirement__position", "requirement_id", "created_at", "pk"))


def evidence_get(workspace: Workspace, evidence_id: int) -> Evidence:
    return _get(Evidence.objects.filter(workspace=workspace).select_related("requirement"), evidence_id, "Beviset")


def evidence_file_choices(workspace: Workspace) -> QuerySet[UserFile]:
    """The files evidence may link to: the workspace's own current, undeleted files."""
    return UserFile.objects.alive().filter(workspace=workspace, version_state="current").order_by("title")


def evidence_label(evidence: Evidence, *, may_see_private: bool) -> str:
    """What an evidence link shows. A private file's title is shown only to those who may see private files."""
    if evidence.kind == Evidence.Kind.FILE and evidence.user_file_id:
        if evidence.user_file.is_private and not may_see_private:
            return "Privat fil"
        if evidence.user_file.is_deleted:
            return f"{evidence.user_file} (borttagen)"
    return str(evidence)


def frozen_evidence_label(frozen: dict, *, may_see_private: bool) -> str:
    """What a closed review's frozen evidence link shows: the same rule as `evidence_label`."""
    if frozen.get("private") and not may_see_private:
        return "Privat fil"
    return str(frozen.get("label", ""))


def private_file_titles(workspace: Workspace) -> set[str]:
    """The titles (and file names) of the workspace's private files, every version, deleted ones too: what a
    member who may not see private files must never read, in the audit trail's recorded texts included."""
    titles = set()
    for title, name in UserFile.objects.filter(workspace=workspace, is_private=True).values_list(
            "title", "original_name"):
        titles.update(t for t in (title, name) if t and t.strip())
    return titles


def redact_private_titles(value: Any, titles: set[str]) -> Any:
    """`value` (a string, or lists and dicts of them, as an audit entry's changes are) with every private
    file title replaced by "Privat fil". Longest first, so a title containing another is replaced whole."""
    if not titles:
        return value
    if isinstance(value, str):
        for title in sorted(titles, key=len, reverse=True):
            value = value.replace(title, "Privat fil")
        return value
    if isinstance(value, list):
        return [redact_private_titles(v, titles) for v in value]
    if isinstance(value, dict):
        return {k: redact_private_titles(v, titles) for k, v in value.items()}
    return value


def may_see_private_files(membership: Membership | None) -> bool:
    """Private files are the members' own working papers: an auditor sees that evidence exists, not its title."""
    return membership is not None and membership.role != Membership.Role.AUDITOR


@dataclass(frozen=True)
class RegisterSummary:
    total: int
    by_status: dict[str, int]
    overdue_reviews: int
    needs_reassessment: int
    missing_evidence: int
    my_requirements: int
    open_actions: int
    overdue_actions: int


def register_summary(workspace: Workspace, *, register: LegalRegister | None = None,
                     user: AbstractBaseUser | AnonymousUser | None = None,
                     today: date | None = None) -> RegisterSummary:
    today = today or swedish_today()
    items = RegisterItem.objects.filter(workspace=workspace)
    if register is not None:
        items = items.filter(register=register)
    counts = items.aggregate(
        total=Count("pk"),
        overdue=Count("pk", filter=Q(next_review_date__lt=today)),
        changed=Count("pk", filter=Q(needs_reassessment=True)),
        **{f"s_{value}": Count("pk", filter=Q(status=value)) for value in ComplianceStatus.values},
    )
    # Plain rows, not requirement_list: its evidence count groups every kravpunkt, and a count over a grouped
    # subquery took most of the overview's time with 500 items.
    reqs = Requirement.objects.filter(workspace=workspace)
    if register is not None:
        reqs = reqs.filter(item__register=register)
    wanted = {"missing": Count("pk", filter=Q(needs_evidence=True)
                               & ~Exists(Evidence.objects.filter(requirement=OuterRef("pk"))))}
    if user is not None and user.is_authenticated:
        wanted["mine"] = Count("pk", filter=Q(owner=user))
    req_counts = {"mine": 0, **reqs.aggregate(**wanted)}
    action_counts = Action.objects.filter(workspace=workspace, state=Action.State.OPEN).aggregate(
        open=Count("pk"), overdue=Count("pk", filter=Q(due_date__lt=today)))
    return RegisterSummary(
        total=counts["total"],
        by_status={value: counts[f"s_{value}"] for value in ComplianceStatus.values},
        overdue_reviews=counts["overdue"],
        needs_reassessment=counts["changed"],
        missing_evidence=req_counts["missing"],
        my_requirements=req_counts["mine"],
        open_actions=action_counts["open"],
        overdue_actions=action_counts["overdue"],
    )


def review_list(workspace: Workspace, *, register: LegalRegister | None = None) -> QuerySet[Review]:
    reviews = (Review.objects.filter(workspace=workspace).select_related("register", "lead", "closed_by")
               .annotate(entry_count=Count("entries", distinct=True),
                         signed_count=Count("entries", filter=Q(entries__assessed_at__isnull=False), distinct=True))
               .order_by(*Review._meta.ordering))
    if register is not None:
        reviews = reviews.filter(register=register)
    return reviews


def review_get(workspace: Workspace, review_id: int) -> Review:
    reviews = Review.objects.filter(workspace=workspace).select_related("register", "lead", "closed_by")
    return _get(reviews, review_id, "Kontrollen")


def review_entry_list(review: Review) -> QuerySet[ReviewEntry]:
    return (ReviewEntry.objects.filter(review=review)
            .select_related("review", "item", "item__legal_document", "item__responsible", "assessed_by")
            .defer(*_WITHOUT_ITEM_DOCUMENT_TEXT)
            .prefetch_related(Prefetch("evidence", queryset=Evidence.objects.select_related("user_file",
                                                                                            "assessment")))
            .order_by("item__group__position", "item__legal_document__sfs_number", "pk"))


def review_entry_get(review: Review, entry_id: int) -> ReviewEntry:
    return _get(ReviewEntry.objects.filter(review=review).select_related("item", "review"), entry_id, "Posten")


def action_list(workspace: Workspace, *, state: str | None = None, owner_id: int | None = None,
                item: RegisterItem | None = None, review: Review | None = None) -> QuerySet[Action]:
    actions = (Action.objects.filter(workspace=workspace)
               .select_related("item", "item__legal_document", "owner", "requirement").defer(*_WITHOUT_ITEM_DOCUMENT_TEXT))
    if review is not None:
        actions = actions.filter(review_entry__review=review)
    if state:
        actions = actions.filter(state=state)
    if owner_id is not None:
        actions = actions.filter(owner_id=owner_id)
    if item is not None:
        actions = actions.filter(item=item)
    return actions


def action_get(workspace: Workspace, action_id: int) -> Action:
    return _get(Action.objects.filter(workspace=workspace).select_related("item", "owner"), action_id, "Åtgärden")


def audit_trail(workspace: Workspace, *, item: RegisterItem | None = None,
                review: Review | None = None) -> QuerySet[LogEntry]:
    """The audit trail of the workspace's register, of one item (with its kravpunkter, evidence, ratings
    and actions) or of one review, newest first."""
    entries = LogEntry.objects.filter(additional_data__workspace_id=workspace.pk).select_related(
        "actor", "content_type")
    if item is not None:
        entries = entries.filter(additional_data__item_id=item.pk)
    if review is not None:
        entries = entries.filter(additional_data__review_id=review.pk)
    return entries.order_by("-timestamp", "-pk")


AUDIT_ACTIONS = {LogEntry.Action.CREATE: ("create", "skapad"), LogEntry.Action.UPDATE: ("update", "ändrad"),
                 LogEntry.Action.DELETE: ("delete", "borttagen"), LogEntry.Action.ACCESS: ("access", "läst")}


@dataclass(frozen=True)
class AuditRow:
    """One audit entry as people read it: who, when, what, before and after."""

    id: int
    timestamp: datetime
    actor: str
    actor_name: str
    action: str
    action_label: str
    model: str
    model_label: str
    object_id: int | None
    object_repr: str
    changes: dict


def audit_rows(entries: Iterable[LogEntry], *, workspace: Workspace, may_see_private: bool) -> list[AuditRow]:
    """Audit entries of the workspace for display. For a member who may not see private files (a revisor), a
    private file's title is replaced wherever the trail recorded it: an evidence link's name, a review's
    linked evidence, the frozen evidence of a closed review."""
    titles = set() if may_see_private else private_file_titles(workspace)
    rows = []
    for entry in entries:
        action, action_label = AUDIT_ACTIONS.get(entry.action, (str(entry.action), str(entry.action)))
        model = entry.content_type.model_class() if entry.content_type_id else None
        rows.append(AuditRow(
            id=entry.pk, timestamp=entry.timestamp,
            actor=entry.actor.get_username() if entry.actor else "",
            actor_name=(entry.actor.get_full_name() or entry.actor.get_username()) if entry.actor else "systemet",
            action=action, action_label=action_label,
            model=entry.content_type.model if entry.content_type_id else "",
            model_label=str(model._meta.verbose_name) if model is not None else "",
            object_id=entry.object_id, object_repr=redact_private_titles(entry.object_repr, titles),
            changes=redact_private_titles(entry.changes_dict or {}, titles)))
    return rows


def person_label(user: User | None) -> str:
    if user is None:
        return ""
    return user.get_full_name() or user.get_username()


def action_summary(action: Action) -> str:
    """An action as the exports write it: "Ny rutin – ansvarig Anna, klar senast 2027-01-31, öppen"."""
    due = action.due_date.isoformat() if action.due_date else "–"
    owner = person_label(action.owner) or "–"
    return f"{action.title} – ansvarig {owner}, klar senast {due}, {action.get_state_display()}"


def _status_summary(statuses: Iterable[str]) -> dict[str, int]:
    counted = list(statuses)
    return {label: counted.count(value) for value, label in ComplianceStatus.choices}


def register_export_get(workspace: Workspace, register: LegalRegister, *, may_see_private: bool,
                        today: date | None = None) -> RegisterExport:
    """The register as its exports show it: every item with its kravpunkter and their evidence."""
    requirements = (Requirement.objects.filter(workspace=workspace, item__register=register)
                    .select_related("owner").order_by("item_id", "position", "pk")
                    .prefetch_related(Prefetch("evidence", queryset=Evidence.objects.select_related(
                        "user_file", "assessment").order_by("created_at", "pk"))))
    by_item: dict[int, list[RequirementRow]] = {}
    for requirement in requirements:
        by_item.setdefault(requirement.item_id, []).append(RequirementRow(
            section_ref=requirement.section_ref, title=requirement.title, status=requirement.get_status_display(),
            owner=person_label(requirement.owner), needs_evidence=requirement.needs_evidence,
            evidence=[evidence_label(e, may_see_private=may_see_private) for e in requirement.evidence.all()]))
    items = [ItemRow(
        id=item.pk, group=item.group.name if item.group_id else "", title=item.display_title,
        number=item.legal_document.sfs_number if item.legal_document_id else "",
        kind=item.legal_document.kind_label if item.legal_document_id else "Eget krav",
        status=item.status, status_label=item.get_status_display(), responsible=person_label(item.responsible),
        last_reviewed_at=item.last_reviewed_at, last_reviewed_by=person_label(item.last_reviewed_by),
        next_review_date=item.next_review_date, reason=item.reason, how_we_comply=item.how_we_comply,
        requirements=by_item.get(item.pk, [])) for item in register_item_list(workspace, register=register)]
    return RegisterExport(workspace=workspace.name, register=register.name, printed=today or swedish_today(),
                          items=items, summary=_status_summary(item.status for item in items))


def review_export_get(workspace: Workspace, review: Review, *, may_see_private: bool,
                      today: date | None = None) -> ReviewExport:
    """A closed review as its exports show it: what it froze when it closed, not the register of today."""
    entries = []
    for entry in review_entry_list(review):
        entries.append(EntryRow(
            title=entry.frozen_title or (entry.item.display_title if entry.item_id else ""),
            number=entry.frozen_document_number, kind=entry.frozen_document_kind, version=entry.frozen_version,
            rating_label=entry.get_rating_display(), justification=entry.justification,
            assessor=entry.frozen_assessor or person_label(entry.assessed_by),
            assessed_at=swedish_date(entry.assessed_at) if entry.assessed_at else None,
            requirements=[RequirementRow(section_ref=r.get("section_ref", ""), title=r.get("title", ""),
                                         status=r.get("status_label", ""), owner=r.get("owner", ""),
                                         needs_evidence=False) for r in entry.frozen_requirements],
            evidence=[frozen_evidence_label(e, may_see_private=may_see_private) for e in entry.frozen_evidence]))
    actions = [action_summary(a) for a in action_list(workspace).filter(review_entry__review=review)
               .select_related("owner")]
    return ReviewExport(
        workspace=workspace.name, register=review.register.name, title=review.title, lead=person_label(review.lead),
        groups=[g.name for g in review.groups.all()], as_of=review.as_of, closed_by=person_label(review.closed_by),
        printed=today or swedish_today(), entries=entries,
        summary=_status_summary(e.rating for e in review.entries.all()), actions=actions)


# pg_trgm similarity at which a title counts as "liknande": below it, lists of Swedish statute titles share
# too many words ("lag om", "förordning om") for the match to mean anything.
TITLE_SIMILARITY_MIN = 0.35


def legal_documents_by_number(numbers: Iterable[str]) -> dict[str, LegalDocument]:
    """The corpus's documents with these numbers, by number (an import matches its rows on them)."""
    wanted = {n for n in numbers if n}
    if not wanted:
        return {}
    return {doc.sfs_number: doc for doc in LegalDocument.objects.filter(sfs_number__in=wanted)}


def legal_documents_by_id(ids: Iterable[int]) -> dict[int, LegalDocument]:
    wanted = set(ids)
    return {doc.pk: doc for doc in LegalDocument.objects.filter(pk__in=wanted)} if wanted else {}


@dataclass(frozen=True)
class TitleMatch:
    exact: LegalDocument | None
    similar: list[LegalDocument]


def legal_document_title_match(title: str, *, limit: int = 3) -> TitleMatch:
    """A document whose title (with or without its number after it) or short name is `title`, else the most
    similar titles by trigram similarity."""
    title = " ".join((title or "").split())
    if not title:
        return TitleMatch(exact=None, similar=[])
    exact = (LegalDocument.objects.filter(
        Q(title__iexact=title) | Q(title__iregex=r"^" + re.escape(title) + r"\s*\([^)]*\)$")
        | Q(short_names__contains=[title.lower()])).order_by("sfs_number").first())
    if exact is not None:
        return TitleMatch(exact=exact, similar=[])
    similar = list(LegalDocument.objects.annotate(similarity=TrigramSimilarity("title", title))
                   .filter(similarity__gte=TITLE_SIMILARITY_MIN).order_by("-similarity", "sfs_number")[:limit])
    return TitleMatch(exact=None, similar=similar)
