"""Writes to the register. Every write checks the person may edit the workspace, runs in one transaction and
inside `audit_actor`, so the trail names who did it; callers pass objects they read through the selectors."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from compliance.audit import audit_actor
from compliance.clock import swedish_today
from compliance.errors import ApplicationError
from compliance.model_update import model_update
from compliance.models import Assessment, LegalDocument, Membership, UserFile, Workspace
from law.models import StatuteVersion

from .models import (
    Action,
    ComplianceStatus,
    Evidence,
    ItemOrigin,
    LegalRegister,
    RegisterGroup,
    RegisterItem,
    Requirement,
    Review,
    ReviewEntry,
    SuggestionDecision,
)
from .suggestions import Template, suggestion_get

DEFAULT_REGISTER_NAME = "Laglista"
# When a signed rating leaves the next review open, it is due a year later: the yearly review.
REVIEW_INTERVAL = timedelta(days=365)
# A finding's action is due this long after the rating unless the person sets a date.
ACTION_DEFAULT_DAYS = 30


class RegisterError(ApplicationError):
    code = "register_invalid"
    message = "Ogiltig ändring av laglistan."


class PermissionDeniedError(ApplicationError):
    code = "permission_denied"
    message = "Du har bara läsbehörighet i den här arbetsytan."
    status = 403


class ReviewClosedError(ApplicationError):
    code = "review_closed"
    message = "Kontrollen är avslutad och kan inte ändras."
    status = 409


class ReviewOpenError(ApplicationError):
    code = "review_open"
    message = "Kontrollen är inte avslutad än. Bara en avslutad kontroll kan exporteras."
    status = 409


def _require_editor(workspace: Workspace, user: AbstractBaseUser | None) -> None:
    membership = Membership.objects.filter(workspace=workspace, user=user).first() if user is not None else None
    if membership is None or not membership.can_edit:
        raise PermissionDeniedError()


def _member_or_error(workspace: Workspace, user: AbstractBaseUser | None, *, field: str) -> AbstractBaseUser | None:
    """A person chosen as responsible must be a member of the workspace."""
    if user is None:
        return None
    if not Membership.objects.filter(workspace=workspace, user=user).exists():
        raise RegisterError("not_a_member", "Den valda personen är inte medlem i arbetsytan.",
                            details={"field": field})
    return user


def _check_text(value: str, *, field: str, label: str, max_length: int = 20_000) -> str:
    value = (value or "").strip()
    if len(value) > max_length:
        raise RegisterError("text_too_long", f"{label} är för lång (högst {max_length} tecken).",
                            details={"field": field, "max_length": max_length})
    return value


# --- Registers and groups --------------------------------------------------------------------------------


def register_create(*, workspace: Workspace, user: AbstractBaseUser, name: str, description: str = "") -> LegalRegister:
    _require_editor(workspace, user)
    name = _check_text(name, field="name", label="Namnet", max_length=200)
    if not name:
        raise RegisterError("name_required", "Ange ett namn på laglistan.", details={"field": "name"})
    if LegalRegister.objects.filter(workspace=workspace, name__iexact=name).exists():
        raise RegisterError("name_taken", f"Det finns redan en laglista som heter {name}.", details={"field": "name"})
    with transaction.atomic(), audit_actor(user):
        return LegalRegister.objects.create(workspace=workspace, name=name, created_by=user,
                                            description=_check_text(description, field="description",
                                                                    label="Beskrivningen"))


def register_default(*, workspace: Workspace, user: AbstractBaseUser) -> LegalRegister:
    """The workspace's first register, created as "Laglista" when it has none."""
    existing = LegalRegister.objects.filter(workspace=workspace).order_by("pk").first()
    if existing is not None:
        return existing
    _require_editor(workspace, user)
    with transaction.atomic(), audit_actor(user):
        register, _ = LegalRegister.objects.get_or_create(workspace=workspace, name=DEFAULT_REGISTER_NAME,
                                                          defaults={"created_by": user})
        return register


def register_group_get_or_create(*, register: LegalRegister, user: AbstractBaseUser, name: str) -> RegisterGroup:
    _require_editor(register.workspace, user)
    name = _check_text(name, field="group", label="Gruppens namn", max_length=120)
    if not name:
        raise RegisterError("group_required", "Ange gruppens namn.", details={"field": "group"})
    found = RegisterGroup.objects.filter(register=register, name__iexact=name).first()
    if found is not None:
        return found
    with transaction.atomic(), audit_actor(user):
        position = RegisterGroup.objects.filter(register=register).count()
        group, _ = RegisterGroup.objects.get_or_create(register=register, name=name, defaults={"position": position})
        return group


# --- Items ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemAddResult:
    item: RegisterItem
    created: bool


def register_item_add(*, register: LegalRegister, user: AbstractBaseUser, legal_document: LegalDocument | None,
                      title: str = "", group: RegisterGroup | None = None, reason: str = "",
                      responsible: AbstractBaseUser | None = None, origin: str = ItemOrigin.MANUAL) -> ItemAddResult:
    """Put a document on the register; a document already on it is kept as it is (adding is idempotent,
    so accepting a suggestion twice or re-running an import never makes a duplicate)."""
    workspace = register.workspace
    _require_editor(workspace, user)
    if group is not None and group.register_id != register.pk:
        raise RegisterError("group_not_in_register", "Gruppen hör inte till den här laglistan.",
                            details={"field": "group"})
    title = _check_text(title, field="title", label="Rubriken", max_length=300)
    if legal_document is None and not title:
        raise RegisterError("document_required", "Välj en författning eller ange en rubrik.",
                            details={"field": "legal_document"})
    _member_or_error(workspace, responsible, field="responsible")
    reason = _check_text(reason, field="reason", label="Motiveringen")
    if legal_document is not None:
        existing = RegisterItem.objects.filter(register=register, legal_document=legal_document).order_by("pk").first()
        if existing is not None:
            return ItemAddResult(item=existing, created=False)
    try:
        with transaction.atomic(), audit_actor(user):
            item = RegisterItem.objects.create(
                register=register, workspace=workspace, group=group, legal_document=legal_document, title=title,
                reason=reason, responsible=responsible, origin=origin, created_by=user)
    except IntegrityError:
        # Added by someone else between the check and the insert (the unique constraint decided): theirs stands.
        existing = RegisterItem.objects.filter(register=register, legal_document=legal_document).order_by("pk").first()
        if existing is None:
            raise
        return ItemAddResult(item=existing, created=False)
    return ItemAddResult(item=item, created=True)


ITEM_FIELDS = ("group", "reason", "responsible", "status", "how_we_comply", "next_review_date", "title")


def register_item_update(*, item: RegisterItem, user: AbstractBaseUser, data: dict[str, Any]) -> RegisterItem:
    _require_editor(item.workspace, user)
    if "responsible" in data:
        _member_or_error(item.workspace, data["responsible"], field="responsible")
    if data.get("group") is not None and data["group"].register_id != item.register_id:
        raise RegisterError("group_not_in_register", "Gruppen hör inte till den här laglistan.",
                            details={"field": "group"})
    if "status" in data and data["status"] not in ComplianceStatus.values:
        raise RegisterError("invalid_status", "Okänd status.", details={"field": "status"})
    for field, label in (("reason", "Motiveringen"), ("how_we_comply", "Texten")):
        if field in data:
            data[field] = _check_text(data[field], field=field, label=label)
    with transaction.atomic(), audit_actor(user):
        item = RegisterItem.objects.select_for_update().order_by("pk").get(pk=item.pk)
        result = model_update(item, fields=ITEM_FIELDS, data=data)
        if "status" in result.updated_fields:
            # A status set by a person is an assessment: it answers a pending change notice too.
            model_update(item, fields=("last_reviewed_at", "last_reviewed_by", "needs_reassessment"),
                         data={"last_reviewed_at": swedish_today(), "last_reviewed_by": user,
                               "needs_reassessment": False})
    return item


def register_item_remove(*, item: RegisterItem, user: AbstractBaseUser) -> None:
    _require_editor(item.workspace, user)
    with transaction.atomic(), audit_actor(user):
        item.delete()


# --- Kravpunkter and evidence ----------------------------------------------------------------------------


REQUIREMENT_FIELDS = ("title", "section_ref", "description", "status", "owner", "needs_evidence", "due_date")


def requirement_create(*, item: RegisterItem, user: AbstractBaseUser, data: dict[str, Any]) -> Requirement:
    _require_editor(item.workspace, user)
    title = _check_text(data.get("title", ""), field="title", label="Kravet", max_length=300)
    if not title:
        raise RegisterError("title_required", "Beskriv kravet.", details={"field": "title"})
    _member_or_error(item.workspace, data.get("owner"), field="owner")
    with transaction.atomic(), audit_actor(user):
        position = Requirement.objects.filter(item=item).count()
        return Requirement.objects.create(
            item=item, workspace_id=item.workspace_id, title=title, position=position,
            section_ref=_check_text(data.get("section_ref", ""), field="section_ref", label="Hänvisningen",
                                    max_length=80),
            description=_check_text(data.get("description", ""), field="description", label="Beskrivningen"),
            status=data.get("status") or ComplianceStatus.NOT_ASSESSED, owner=data.get("owner"),
            needs_evidence=bool(data.get("needs_evidence", False)), due_date=data.get("due_date"))


def requirement_update(*, requirement: Requirement, user: AbstractBaseUser, data: dict[str, Any]) -> Requirement:
    _require_editor(requirement.workspace, user)
    if "owner" in data:
        _member_or_error(requirement.workspace, data["owner"], field="owner")
    if "status" in data and data["status"] not in ComplianceStatus.values:
        raise RegisterError("invalid_status", "Okänd status.", details={"field": "status"})
    if "description" in data:
        data["description"] = _check_text(data["description"], field="description", label="Beskrivningen")
    with transaction.atomic(), audit_actor(user):
        requirement = Requirement.objects.select_for_update().order_by("pk").get(pk=requirement.pk)
        model_update(requirement, fields=REQUIREMENT_FIELDS, data=data)
    return requirement


def requirement_delete(*, requirement: Requirement, user: AbstractBaseUser) -> None:
    _require_editor(requirement.workspace, user)
    with transaction.atomic(), audit_actor(user):
        requirement.delete()


def evidence_add(*, requirement: Requirement, user: AbstractBaseUser, kind: str, user_file: UserFile | None = None,
                 assessment: Assessment | None = None, reference: str = "", note: str = "") -> Evidence:
    """Link evidence to a kravpunkt. A file or an assessment must be the workspace's own: an id of another
    workspace's file is refused exactly like one that does not exist."""
    workspace = requirement.workspace
    _require_editor(workspace, user)
    if kind == Evidence.Kind.FILE:
        if user_file is None or user_file.workspace_id != workspace.pk or user_file.is_deleted:
            raise RegisterError("unknown_file", "Filen finns inte i arbetsytans kunskapsbas.",
                                details={"field": "user_file"})
    elif kind == Evidence.Kind.ASSESSMENT:
        if assessment is None or assessment.workspace_id != workspace.pk or assessment.deleted_at is not None:
            raise RegisterError("unknown_assessment", "Bedömningen finns inte i arbetsytan.",
                                details={"field": "assessment"})
    elif kind == Evidence.Kind.EXTERNAL:
        reference = _check_text(reference, field="reference", label="Referensen", max_length=500)
        if not reference:
            raise RegisterError("reference_required", "Ange en referens, t.ex. ett dokumentnamn eller en länk.",
                                details={"field": "reference"})
    else:
        raise RegisterError("invalid_kind", "Okänd typ av bevis.", details={"field": "kind"})
    with transaction.atomic(), audit_actor(user):
        return Evidence.objects.create(
            requirement=requirement, workspace=workspace, kind=kind,
            user_file=user_file if kind == Evidence.Kind.FILE else None,
            assessment=assessment if kind == Evidence.Kind.ASSESSMENT else None,
            reference=reference if kind == Evidence.Kind.EXTERNAL else "",
            note=_check_text(note, field="note", label="Kommentaren"), added_by=user)


def evidence_remove(*, evidence: Evidence, user: AbstractBaseUser) -> None:
    _require_editor(evidence.workspace, user)
    with transaction.atomic(), audit_actor(user):
        evidence.delete()


# --- The yearly review ------------------------------------------------------------------------------------


def review_start(*, register: LegalRegister, user: AbstractBaseUser, title: str,
                 groups: list[RegisterGroup] | None = None, lead: AbstractBaseUser | None = None,
                 due_date: date | None = None) -> Review:
    """Start a review over the register, or over some of its groups: one entry per item in scope."""
    workspace = register.workspace
    _require_editor(workspace, user)
    title = _check_text(title, field="title", label="Rubriken", max_length=200)
    if not title:
        raise RegisterError("title_required", "Ge kontrollen en rubrik.", details={"field": "title"})
    groups = list(groups or [])
    if any(group.register_id != register.pk for group in groups):
        raise RegisterError("group_not_in_register", "En vald grupp hör inte till laglistan.",
                            details={"field": "groups"})
    _member_or_error(workspace, lead, field="lead")
    items = RegisterItem.objects.filter(register=register)
    if groups:
        items = items.filter(group__in=groups)
    if not items.exists():
        raise RegisterError("nothing_to_review", "Det finns inga poster att bedöma i det valda urvalet.",
                            details={"field": "groups"})
    with transaction.atomic(), audit_actor(user):
        review = Review.objects.create(register=register, workspace=workspace, title=title, lead=lead,
                                       due_date=due_date, started_by=user)
        if groups:
            review.groups.set(groups)
        ReviewEntry.objects.bulk_create([ReviewEntry(review=review, item=item) for item in items])
    return review


@dataclass(frozen=True)
class RatingResult:
    entry: ReviewEntry
    action: Action | None


def review_entry_rate(*, entry: ReviewEntry, user: AbstractBaseUser, rating: str, justification: str = "",
                      evidence: list[Evidence] | None = None, action_owner: AbstractBaseUser | None = None,
                      action_due_date: date | None = None, action_title: str = "") -> RatingResult:
    """Rate one item and sign it off as `user`. The item takes the rating as its status and the day as its
    last review. A rating of "uppfylls inte" opens an action (once per entry), owned by `action_owner`
    (default: the item's responsible, else the assessor)."""
    if rating not in ComplianceStatus.values or rating == ComplianceStatus.NOT_ASSESSED:
        raise RegisterError("invalid_rating", "Välj en bedömning.", details={"field": "rating"})
    justification = _check_text(justification, field="justification", label="Motiveringen")
    workspace = entry.review.workspace
    _require_editor(workspace, user)
    evidence = list(evidence or [])
    if entry.item_id is not None and any(e.requirement.item_id != entry.item_id for e in evidence):
        raise RegisterError("evidence_not_on_item", "Bevis kan bara väljas bland postens egna bevis.",
                            details={"field": "evidence"})
    _member_or_error(workspace, action_owner, field="action_owner")
    today = swedish_today()
    action = None
    with transaction.atomic(), audit_actor(user):
        # The review row is the lock closing takes too: a rating and a close never interleave.
        review = Review.objects.select_for_update().order_by("pk").get(pk=entry.review_id)
        if review.is_closed:
            raise ReviewClosedError()
        entry = ReviewEntry.objects.select_for_update().order_by("pk").get(pk=entry.pk)
        model_update(entry, fields=("rating", "justification", "assessed_by", "assessed_at"),
                     data={"rating": rating, "justification": justification, "assessed_by": user,
                           "assessed_at": timezone.now()})
        entry.evidence.set(evidence)
        item = RegisterItem.objects.select_for_update().filter(pk=entry.item_id).order_by("pk").first()
        if item is not None:
            next_review = item.next_review_date
            if next_review is None or next_review <= today:
                next_review = today + REVIEW_INTERVAL
            model_update(item, fields=("status", "last_reviewed_at", "last_reviewed_by", "next_review_date",
                                       "needs_reassessment"),
                         data={"status": rating, "last_reviewed_at": today, "last_reviewed_by": user,
                               "next_review_date": next_review, "needs_reassessment": False})
        if rating == ComplianceStatus.NON_COMPLIANT and not entry.actions.exists():
            owner = action_owner or (item.responsible if item is not None else None) or user
            action = Action.objects.create(
                workspace=workspace, item=item, review_entry=entry, owner=owner, created_by=user,
                title=_check_text(action_title, field="action_title", label="Åtgärden", max_length=300)
                or f"Åtgärda brist: {item.display_title if item is not None else entry}"[:300],
                description=justification, due_date=action_due_date or today + timedelta(days=ACTION_DEFAULT_DAYS))
    return RatingResult(entry=entry, action=action)


@dataclass(frozen=True)
class _RatedVersion:
    label: str  # "t.o.m. SFS 2021:1010", "ursprunglig lydelse", "i kraft 2024-01-01" or "" when unknown
    version_id: int | None  # the StatuteVersion's pk, when the statute has recorded versions


def _version_label(document: LegalDocument | None, as_of: date) -> _RatedVersion:
    """Which text of the document a review on `as_of` rated: the statute version in force that day."""
    if document is None:
        return _RatedVersion(label="", version_id=None)
    # A version whose first day is unknown (the bundled text; a record not giving its act's day) is in force until
    # its successor's day; when that is unknown too, the newer of the two is.
    version = (StatuteVersion.objects.filter(Q(valid_from__lte=as_of) | Q(valid_from__isnull=True), document=document)
               .exclude(valid_to__lte=as_of).order_by(F("valid_from").desc(nulls_first=True), "-pk").first()
               or StatuteVersion.objects.filter(document=document, is_current=True).first())
    if version is not None:
        label = f"t.o.m. {version.amended_through}" if version.amended_through else "ursprunglig lydelse"
        return _RatedVersion(label=label, version_id=version.pk)
    if document.amended_through:
        return _RatedVersion(label=f"t.o.m. {document.amended_through}", version_id=None)
    if document.in_force_date:
        return _RatedVersion(label=f"i kraft {document.in_force_date.isoformat()}", version_id=None)
    return _RatedVersion(label="", version_id=None)


def review_close(*, review: Review, user: AbstractBaseUser) -> Review:
    """Close a review: every entry must be signed. Freezes each entry's title, document, version in force that
    day, kravpunkter and evidence, in one transaction under the review's lock: a crash leaves it open and
    unchanged, a concurrent close or rating waits and then finds it closed."""
    _require_editor(review.workspace, user)
    with transaction.atomic(), audit_actor(user):
        review = Review.objects.select_for_update().order_by("pk").get(pk=review.pk)
        if review.is_closed:
            raise ReviewClosedError()
        unsigned = review.entries.filter(assessed_at__isnull=True).count()
        if unsigned:
            raise RegisterError("review_incomplete",
                                f"{unsigned} poster är inte bedömda än. Bedöm alla poster innan kontrollen avslutas.",
                                details={"unsigned": unsigned})
        as_of = swedish_today()
        entries = (ReviewEntry.objects.filter(review=review)
                   .select_related("item", "item__legal_document", "assessed_by")
                   .prefetch_related("evidence__user_file", "evidence__assessment", "evidence__requirement"))
        for entry in entries:
            item = entry.item
            doc = item.legal_document if item is not None else None
            version = _version_label(doc, as_of)
            requirements = list(Requirement.objects.filter(item=item).select_related("owner")) if item else []
            entry.frozen_title = item.display_title if item is not None else entry.frozen_title
            entry.frozen_document_number = doc.sfs_number if doc is not None else ""
            entry.frozen_document_kind = doc.kind_label if doc is not None else ""
            entry.frozen_version = version.label
            entry.frozen_version_id = version.version_id
            entry.frozen_requirements = [
                {"id": r.pk, "section_ref": r.section_ref, "title": r.title, "status": r.status,
                 "status_label": r.get_status_display(), "owner": r.owner.get_username() if r.owner else ""}
                for r in requirements]
            entry.frozen_evidence = [
                {"id": e.pk, "kind": e.kind, "label": str(e), "requirement_id": e.requirement_id,
                 "user_file_id": e.user_file_id, "private": bool(e.user_file_id and e.user_file.is_private)}
                for e in entry.evidence.all()]
            entry.frozen_assessor = (entry.assessed_by.get_full_name() or entry.assessed_by.get_username()
                                     if entry.assessed_by else "")
            entry.save(update_fields=["frozen_title", "frozen_document_number", "frozen_document_kind",
                                      "frozen_version", "frozen_version_id", "frozen_requirements",
                                      "frozen_evidence", "frozen_assessor"])
        model_update(review, fields=("state", "closed_at", "closed_by", "as_of"),
                     data={"state": Review.State.CLOSED, "closed_at": timezone.now(), "closed_by": user,
                           "as_of": as_of})
    return review


# --- Import ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportRowChoice:
    """One row of an import as the person confirmed it: its document (None: skipped) and its group."""

    line: int
    legal_document: LegalDocument | None
    group: str = ""


@dataclass(frozen=True)
class ImportResult:
    created: int
    existing: int
    skipped: int


def register_import_confirm(*, register: LegalRegister, user: AbstractBaseUser,
                            rows: list[ImportRowChoice]) -> ImportResult:
    """Add every chosen row to the register in one transaction: all of them or, on any error, none. A
    document already on the register stays as it is (a second run of the same import adds nothing)."""
    _require_editor(register.workspace, user)
    created = existing = skipped = 0
    with transaction.atomic(), audit_actor(user):
        groups: dict[str, RegisterGroup] = {}
        for row in rows:
            if row.legal_document is None:
                skipped += 1
                continue
            group = None
            name = (row.group or "").strip()
            if name:
                if name.lower() not in groups:
                    groups[name.lower()] = register_group_get_or_create(register=register, user=user, name=name)
                group = groups[name.lower()]
            result = register_item_add(register=register, user=user, legal_document=row.legal_document,
                                       group=group, origin=ItemOrigin.IMPORT)
            if result.created:
                created += 1
            else:
                existing += 1
    return ImportResult(created=created, existing=existing, skipped=skipped)


# --- Actions ----------------------------------------------------------------------------------------------


def action_create(*, workspace: Workspace, user: AbstractBaseUser, title: str, item: RegisterItem | None = None,
                  requirement: Requirement | None = None, description: str = "", owner: AbstractBaseUser | None = None,
                  due_date: date | None = None) -> Action:
    _require_editor(workspace, user)
    title = _check_text(title, field="title", label="Åtgärden", max_length=300)
    if not title:
        raise RegisterError("title_required", "Beskriv åtgärden.", details={"field": "title"})
    if item is not None and item.workspace_id != workspace.pk:
        raise RegisterError("unknown_item", "Posten finns inte.", details={"field": "item"})
    if requirement is not None and requirement.workspace_id != workspace.pk:
        raise RegisterError("unknown_requirement", "Kravpunkten finns inte.", details={"field": "requirement"})
    _member_or_error(workspace, owner, field="owner")
    with transaction.atomic(), audit_actor(user):
        return Action.objects.create(workspace=workspace, item=item or (requirement.item if requirement else None),
                                     requirement=requirement, title=title, owner=owner, due_date=due_date,
                                     description=_check_text(description, field="description",
                                                             label="Beskrivningen"), created_by=user)


def action_update(*, action: Action, user: AbstractBaseUser, data: dict[str, Any]) -> Action:
    _require_editor(action.workspace, user)
    if "owner" in data:
        _member_or_error(action.workspace, data["owner"], field="owner")
    if "state" in data and data["state"] not in Action.State.values:
        raise RegisterError("invalid_state", "Okänt läge.", details={"field": "state"})
    with transaction.atomic(), audit_actor(user):
        action = Action.objects.select_for_update().order_by("pk").get(pk=action.pk)
        if data.get("state") == Action.State.DONE and action.state != Action.State.DONE:
            data = {**data, "closed_at": timezone.now(), "closed_by": user}
        elif data.get("state") == Action.State.OPEN:
            data = {**data, "closed_at": None, "closed_by": None}
        model_update(action, fields=("title", "description", "owner", "due_date", "state", "closed_at",
                                     "closed_by"), data=data)
    return action


# --- Suggestions and templates --------------------------------------------------------------------------


def suggestion_accept(*, workspace: Workspace, user: AbstractBaseUser, number: str,
                      register: LegalRegister | None = None) -> ItemAddResult:
    """Put a suggested document on the register (the workspace's first one unless given), in the suggestion's
    group, with its reasons. The suggestion is read again now: one that no longer stands (already on the
    list, decided, or the profile changed) is refused rather than written from what a stale page showed."""
    _require_editor(workspace, user)
    if register is not None and register.workspace_id != workspace.pk:
        raise RegisterError("unknown_register", "Laglistan finns inte.", details={"field": "register"})
    suggestion = suggestion_get(workspace, number)
    if suggestion is None:
        raise RegisterError("suggestion_gone", "Förslaget gäller inte längre: dokumentet finns redan på "
                            "laglistan eller har redan besvarats.", status=409, details={"field": "document"})
    with transaction.atomic():
        register = register or register_default(workspace=workspace, user=user)
        group = register_group_get_or_create(register=register, user=user, name=suggestion.group)
        result = register_item_add(register=register, user=user, legal_document=suggestion.document, group=group,
                                   reason=suggestion.reason_text, origin=ItemOrigin.SUGGESTION)
        _decide(workspace, user, suggestion.document, SuggestionDecision.Decision.ACCEPTED, suggestion.reason_text)
    return result


def suggestion_reject(*, workspace: Workspace, user: AbstractBaseUser, number: str) -> SuggestionDecision:
    """Turn a suggestion down: it is remembered and not suggested again (until restored)."""
    _require_editor(workspace, user)
    suggestion = suggestion_get(workspace, number)
    if suggestion is None:
        raise RegisterError("suggestion_gone", "Förslaget gäller inte längre: dokumentet finns redan på "
                            "laglistan eller har redan besvarats.", status=409, details={"field": "document"})
    with transaction.atomic():
        return _decide(workspace, user, suggestion.document, SuggestionDecision.Decision.REJECTED,
                       suggestion.reason_text)


def document_decline(*, workspace: Workspace, user: AbstractBaseUser, legal_document: LegalDocument,
                     reason: str = "") -> SuggestionDecision:
    """Remember that the workspace does not want this document suggested (the assistant's "Nej tack")."""
    _require_editor(workspace, user)
    with transaction.atomic():
        return _decide(workspace, user, legal_document, SuggestionDecision.Decision.REJECTED, reason)


def suggestion_restore(*, workspace: Workspace, user: AbstractBaseUser, decision: SuggestionDecision) -> None:
    """Undo a rejection: the document may be suggested again."""
    _require_editor(workspace, user)
    if decision.workspace_id != workspace.pk or decision.decision != SuggestionDecision.Decision.REJECTED:
        raise RegisterError("not_found", "Beslutet finns inte.", status=404)
    with transaction.atomic(), audit_actor(user):
        decision.delete()


def _decide(workspace: Workspace, user: AbstractBaseUser, document: LegalDocument, decision: str,
            reason: str) -> SuggestionDecision:
    with audit_actor(user):
        row, _ = SuggestionDecision.objects.update_or_create(
            workspace=workspace, legal_document=document,
            defaults={"decision": decision, "reason": reason[:20_000], "decided_by": user})
    return row


@dataclass(frozen=True)
class TemplateResult:
    register: LegalRegister
    group: RegisterGroup
    items_added: int
    items_kept: int
    requirements_added: int
    missing_documents: list[str]


def template_apply(*, workspace: Workspace, user: AbstractBaseUser, template: Template,
                   register: LegalRegister | None = None) -> TemplateResult:
    """Add the template's documents and kravpunkter to the register in a group named after the template.
    Idempotent: a document already on the list keeps its group and data and gets only the kravpunkter it lacks
    (matched by § reference and title); a document not loaded here is skipped and named in the result."""
    _require_editor(workspace, user)
    if register is not None and register.workspace_id != workspace.pk:
        raise RegisterError("unknown_register", "Laglistan finns inte.", details={"field": "register"})
    documents = {d.sfs_number: d for d in LegalDocument.objects.filter(
        sfs_number__in=[i.document for i in template.items])}
    added = kept = reqs_added = 0
    missing: list[str] = []
    with transaction.atomic():
        register = register or register_default(workspace=workspace, user=user)
        group = register_group_get_or_create(register=register, user=user, name=template.name)
        for entry in template.items:
            document = documents.get(entry.document)
            if document is None:
                missing.append(entry.document)
                continue
            result = register_item_add(register=register, user=user, legal_document=document, group=group,
                                       reason=entry.reason, origin=ItemOrigin.TEMPLATE)
            added, kept = (added + 1, kept) if result.created else (added, kept + 1)
            have = {(r.section_ref.casefold(), r.title.casefold())
                    for r in Requirement.objects.filter(item=result.item)}
            position = len(have)
            with audit_actor(user):
                for req in entry.requirements:
                    if (req.section_ref.casefold(), req.title.casefold()) in have:
                        continue
                    Requirement.objects.create(item=result.item, workspace=workspace, title=req.title,
                                               section_ref=req.section_ref, description=req.description,
                                               needs_evidence=req.needs_evidence, position=position)
                    position += 1
                    reqs_added += 1
    return TemplateResult(register=register, group=group, items_added=added, items_kept=kept,
                          requirements_added=reqs_added, missing_documents=missing)
