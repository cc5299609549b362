"""The laglista's pages under /ws/<slug>/laglista/: overview, items, kravpunkter and evidence, the yearly
review, actions and the history. Function views, thin: register.selectors read, register.services write.

Access: compliance's `membership_for_page` resolves the membership (`membership_get_by_slug` decides; another
workspace's slug is a 404) and every object is read through a selector that starts from that workspace
(another workspace's id is a 404 too). Readers and revisors see every page without forms; a write they try
anyway is refused by the service (PermissionDeniedError, a 403 with its Swedish message, nothing written).
Domain errors go back to the form that caused them.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import RequestDataTooBig
from django.core.paginator import Paginator
from django.forms import Form
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from compliance.clock import swedish_today
from compliance.errors import ApplicationError
from compliance.models import Membership, Workspace
from compliance.selectors import legal_document_list, workspace_members
from compliance.views import membership_for_page

from .. import selectors, services
from ..models import Action, ComplianceStatus, LegalRegister, RegisterItem, Review
from ..selectors import RegisterSummary
from ..services import PermissionDeniedError
from .forms import (
    ActionFilterForm,
    ActionForm,
    ActionUpdateForm,
    DocumentSearchForm,
    EvidenceForm,
    ItemAddForm,
    ItemEditForm,
    ItemFilterForm,
    RatingForm,
    RequirementForm,
    ReviewStartForm,
)
from .history import history_rows

ITEMS_PER_PAGE = 50
# How many rows the overview's short lists (mine, overdue, changed, open actions) show before "visa alla".
SHORT_LIST = 8
DOCUMENT_CHOICES = 200
HISTORY_PREVIEW = 5
STATUS_ORDER = [ComplianceStatus.COMPLIANT, ComplianceStatus.PARTIAL, ComplianceStatus.NON_COMPLIANT,
                ComplianceStatus.NOT_ASSESSED, ComplianceStatus.NOT_APPLICABLE]


def _require_edit(membership: Membership) -> None:
    if not membership.can_edit:
        raise PermissionDeniedError()


def _post(request: HttpRequest) -> QueryDict:
    """request.POST, or a clear Swedish error when the body is larger than Django accepts."""
    try:
        return request.POST
    except RequestDataTooBig:
        raise services.RegisterError("too_large", "Det du skickade är för stort. Inget sparades – korta texten "
                                     "och försök igen.") from None


def _field_error(form: Form, exc: ApplicationError) -> None:
    """A domain error at the field it names (details["field"]), else above the form."""
    name = exc.details.get("field")
    form.add_error(name if name in form.fields else None, exc.message)


def _base(ws: Workspace, membership: Membership, **extra: Any) -> dict:
    return {"workspace": ws, "membership": membership, "can_edit": membership.can_edit, "nav": "register",
            "may_see_private": selectors.may_see_private_files(membership), **extra}


def _current_register(request: HttpRequest, ws: Workspace, registers: list[LegalRegister]) -> LegalRegister | None:
    """The register the page shows: ?lista=<id> among the workspace's own, else the first."""
    wanted = request.GET.get("lista", "")
    if wanted:
        if not wanted.isdigit():
            return None
        return selectors.register_get(ws, int(wanted))
    # The first one made, like the one "Lägg till författning" adds to.
    return min(registers, key=lambda r: r.pk) if registers else None


# --- Overview -------------------------------------------------------------------------------------------


def _status_figures(summary: RegisterSummary, register: LegalRegister | None, ws: Workspace) -> list[dict]:
    base = reverse("register_overview", args=[ws.slug])
    rows = []
    for status in STATUS_ORDER:
        query = {"status": status.value}
        if register is not None:
            query["lista"] = register.pk
        rows.append({"value": status.value, "label": status.label, "count": summary.by_status.get(status.value, 0),
                     "url": f"{base}?{urlencode(query)}#poster"})
    return rows


@login_required
@require_GET
def overview(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    registers = list(selectors.register_list(ws))
    if not registers:
        return render(request, "register/empty.html", _base(ws, membership))
    wanted = request.GET.get("lista", "")
    register = _current_register(request, ws, registers)
    errors = []
    if register is None:
        errors.append(f"Okänd laglista: {wanted[:40]}")
        register = min(registers, key=lambda r: r.pk)
    groups = list(selectors.register_group_list(register))
    members = list(workspace_members(ws))
    form = ItemFilterForm(request.GET, groups=groups, members=members)
    filters = {}
    if form.is_valid():
        filters = form.selector_filters()
    else:
        errors.append(form.error_text())
    # The count annotation groups the rows, and Django drops Meta.ordering from a grouped query: say it again.
    items = selectors.register_item_list(ws, register=register, filters=filters).order_by(*RegisterItem._meta.ordering)
    page = Paginator(items, ITEMS_PER_PAGE).get_page(request.GET.get("sida"))
    summary = selectors.register_summary(ws, register=register, user=request.user)
    figures = _status_figures(summary, register, ws)
    query = request.GET.copy()
    query.pop("sida", None)
    today = swedish_today()
    return render(request, "register/overview.html", _base(
        ws, membership, register=register, registers=registers, groups=groups, form=form, page=page,
        summary=summary, figures=figures, today=today, filter_error=" · ".join(errors),
        filtered=bool(filters), page_query=query.urlencode(), statuses=ComplianceStatus.choices,
        chart_json=json.dumps({"labels": [f["label"] for f in figures], "values": [f["count"] for f in figures],
                               "keys": [f["value"] for f in figures]}),
        my_requirements=selectors.requirement_list(ws, owner_id=request.user.pk, with_counts=False)
        .filter(item__register=register)[:SHORT_LIST],
        overdue_items=selectors.register_item_list(ws, register=register, filters={"overdue": True})
        .order_by("next_review_date", "pk")[:SHORT_LIST],
        changed_items=selectors.register_item_list(ws, register=register, filters={"needs_reassessment": True})
        [:SHORT_LIST],
        open_actions=selectors.action_list(ws, state=Action.State.OPEN)[:SHORT_LIST],
    ), status=400 if errors else 200)


@login_required
@require_POST
def register_create(request: HttpRequest, slug: str) -> HttpResponse:
    """The workspace's first register ("Laglista"), made on an editor's click, never by a page view."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    _require_edit(membership)
    register = services.register_default(workspace=ws, user=request.user)
    messages.success(request, f"Laglistan ”{register.name}” är skapad. Lägg till de författningar som gäller er.")
    return redirect("register_overview", slug=ws.slug)


def _row(request: HttpRequest, ws: Workspace, membership: Membership, item_id: int, *, error: str = "",
         status: int = 200) -> HttpResponse:
    item = selectors.register_item_list(ws).get(pk=item_id)
    return render(request, "register/_item_row.html", _base(
        ws, membership, item=item, statuses=ComplianceStatus.choices, today=swedish_today(), row_error=error),
        status=status)


@login_required
@require_POST
def item_status(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    """The overview's inline status change; htmx swaps the answered row in place."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    item = selectors.register_item_get(ws, item_id)
    _require_edit(membership)
    try:
        services.register_item_update(item=item, user=request.user, data={"status": _post(request).get("status", "")})
    except ApplicationError as exc:
        if request.htmx:
            return _row(request, ws, membership, item.pk, error=exc.message, status=exc.status)
        messages.error(request, exc.message)
    else:
        if request.htmx:
            return _row(request, ws, membership, item.pk)
        messages.success(request, f"Status för {item.display_title} är ändrad.")
    return redirect("register_overview", slug=ws.slug)


# --- Items ----------------------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def item_add(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    _require_edit(membership)
    register = selectors.register_list(ws).order_by("pk").first()
    search = DocumentSearchForm(request.GET)
    documents = None
    if search.is_valid():
        documents = legal_document_list(filters={"q": search.cleaned_data["q"],
                                                 "content_type": search.cleaned_data["typ"]})[:DOCUMENT_CHOICES]
    if request.method == "POST":
        form = ItemAddForm(_post(request), workspace=ws, register=register)
        if form.is_valid():
            data = form.cleaned_data
            try:
                # The first item of a workspace makes its register: an editor's deliberate POST.
                register = register or services.register_default(workspace=ws, user=request.user)
                group = data["group"]
                if (data["new_group"] or "").strip():
                    group = services.register_group_get_or_create(register=register, user=request.user,
                                                                  name=data["new_group"])
                result = services.register_item_add(
                    register=register, user=request.user, legal_document=data["legal_document"],
                    title=data["title"] or "", group=group, reason=data["reason"] or "",
                    responsible=data["responsible"])
            except ApplicationError as exc:
                _field_error(form, exc)
            else:
                if result.created:
                    messages.success(request, f"{result.item.display_title} är tillagd på laglistan.")
                else:
                    messages.info(request, f"{result.item.display_title} finns redan på laglistan.")
                return redirect("register_item", slug=ws.slug, item_id=result.item.pk)
    else:
        form = ItemAddForm(workspace=ws, register=register, documents=documents,
                           initial={"legal_document": request.GET.get("dokument") or None})
    return render(request, "register/item_add.html", _base(
        ws, membership, form=form, search=search, register=register,
        hits=None if documents is None else len(documents)), status=400 if form.errors else 200)


def _item_page(request: HttpRequest, ws: Workspace, membership: Membership, item: RegisterItem, *,
               edit_form: ItemEditForm | None = None, requirement_form: RequirementForm | None = None,
               evidence_form: EvidenceForm | None = None, evidence_for: int | None = None,
               action_form: ActionForm | None = None, status: int = 200) -> HttpResponse:
    requirements = list(selectors.requirement_list(ws, item=item))
    evidence = list(selectors.evidence_list_for_items(ws, [item.pk]))
    may_see = selectors.may_see_private_files(membership)
    by_requirement: dict[int, list] = {}
    for e in evidence:
        by_requirement.setdefault(e.requirement_id, []).append(
            {"evidence": e, "label": selectors.evidence_label(e, may_see_private=may_see)})
    can_edit = membership.can_edit
    rows = []
    for r in requirements:
        form = None
        if can_edit:
            form = evidence_form if evidence_for == r.pk else EvidenceForm(workspace=ws, prefix=f"bevis-{r.pk}")
        rows.append({"requirement": r, "evidence": by_requirement.get(r.pk, []), "evidence_form": form})
    entries = selectors.audit_trail(ws, item=item)[:HISTORY_PREVIEW]
    return render(request, "register/item_detail.html", _base(
        ws, membership, item=item, requirements=rows,
        actions=selectors.action_list(ws, item=item),
        history=history_rows(entries, workspace=ws, may_see_private=may_see),
        edit_form=(edit_form or ItemEditForm(item=item, initial=ItemEditForm.initial_for(item))) if can_edit else None,
        requirement_form=(requirement_form or RequirementForm(workspace=ws, prefix="krav")) if can_edit else None,
        action_form=(action_form or ActionForm(workspace=ws, prefix="atgard")) if can_edit else None,
        today=swedish_today(),
    ), status=status)


@login_required
@require_GET
def item_detail(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    item = selectors.register_item_get(ws, item_id)
    return _item_page(request, ws, membership, item)


@login_required
@require_POST
def item_edit(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    item = selectors.register_item_get(ws, item_id)
    _require_edit(membership)
    form = ItemEditForm(_post(request), item=item)
    if form.is_valid():
        try:
            services.register_item_update(item=item, user=request.user, data=dict(form.cleaned_data))
        except ApplicationError as exc:
            _field_error(form, exc)
        else:
            messages.success(request, "Posten är sparad.")
            return redirect("register_item", slug=ws.slug, item_id=item.pk)
    return _item_page(request, ws, membership, item, edit_form=form, status=400)


@login_required
@require_http_methods(["GET", "POST"])
def item_remove(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    item = selectors.register_item_get(ws, item_id)
    _require_edit(membership)
    if request.method == "POST":
        services.register_item_remove(item=item, user=request.user)
        messages.success(request, f"{item.display_title} är borttagen från laglistan.")
        return redirect("register_overview", slug=ws.slug)
    return render(request, "register/confirm_remove.html", _base(
        ws, membership, label=item.display_title, kind="posten", cancel=reverse("register_item", args=[ws.slug, item.pk]),
        note="Postens kravpunkter och bevis tas bort. Historiken och avslutade kontroller finns kvar."))


@login_required
@require_GET
def item_history(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    """The item's audit trail, with its kravpunkter, evidence, ratings and actions: every member reads it."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    item = selectors.register_item_get(ws, item_id)
    page = Paginator(selectors.audit_trail(ws, item=item), 100).get_page(request.GET.get("sida"))
    return render(request, "register/item_history.html", _base(
        ws, membership, item=item, page=page,
        rows=history_rows(page.object_list, workspace=ws,
                          may_see_private=selectors.may_see_private_files(membership))))


# --- Kravpunkter and evidence ---------------------------------------------------------------------------


def _requirement_data(form: RequirementForm) -> dict:
    data = dict(form.cleaned_data)
    for name in ("section_ref", "description"):
        data[name] = data.get(name) or ""
    return data


@login_required
@require_POST
def requirement_add(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    item = selectors.register_item_get(ws, item_id)
    _require_edit(membership)
    form = RequirementForm(_post(request), workspace=ws, prefix="krav")
    if form.is_valid():
        try:
            requirement = services.requirement_create(item=item, user=request.user, data=_requirement_data(form))
        except ApplicationError as exc:
            _field_error(form, exc)
        else:
            messages.success(request, f"Kravpunkten ”{requirement.title}” är tillagd.")
            return redirect(f"{reverse('register_item', args=[ws.slug, item.pk])}#krav-{requirement.pk}")
    return _item_page(request, ws, membership, item, requirement_form=form, status=400)


@login_required
@require_http_methods(["GET", "POST"])
def requirement_edit(request: HttpRequest, slug: str, requirement_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    requirement = selectors.requirement_get(ws, requirement_id)
    _require_edit(membership)
    if request.method == "POST":
        form = RequirementForm(_post(request), workspace=ws)
        if form.is_valid():
            try:
                services.requirement_update(requirement=requirement, user=request.user, data=_requirement_data(form))
            except ApplicationError as exc:
                _field_error(form, exc)
            else:
                messages.success(request, "Kravpunkten är sparad.")
                return redirect(f"{reverse('register_item', args=[ws.slug, requirement.item_id])}"
                                f"#krav-{requirement.pk}")
    else:
        form = RequirementForm(workspace=ws, initial=RequirementForm.initial_for(requirement))
    return render(request, "register/requirement_form.html", _base(
        ws, membership, form=form, requirement=requirement, item=requirement.item),
        status=400 if form.errors else 200)


@login_required
@require_POST
def requirement_delete(request: HttpRequest, slug: str, requirement_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    requirement = selectors.requirement_get(ws, requirement_id)
    _require_edit(membership)
    services.requirement_delete(requirement=requirement, user=request.user)
    messages.success(request, f"Kravpunkten ”{requirement.title}” är borttagen.")
    return redirect("register_item", slug=ws.slug, item_id=requirement.item_id)


@login_required
@require_POST
def evidence_add(request: HttpRequest, slug: str, requirement_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    requirement = selectors.requirement_get(ws, requirement_id)
    _require_edit(membership)
    form = EvidenceForm(_post(request), workspace=ws, prefix=f"bevis-{requirement.pk}")
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.evidence_add(requirement=requirement, user=request.user, kind=data["kind"],
                                  user_file=data["user_file"], assessment=data["assessment"],
                                  reference=data["reference"] or "", note=data["note"] or "")
        except ApplicationError as exc:
            _field_error(form, exc)
        else:
            messages.success(request, "Beviset är tillagt.")
            return redirect(f"{reverse('register_item', args=[ws.slug, requirement.item_id])}#krav-{requirement.pk}")
    return _item_page(request, ws, membership, requirement.item, evidence_form=form, evidence_for=requirement.pk,
                      status=400)


@login_required
@require_POST
def evidence_remove(request: HttpRequest, slug: str, evidence_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    evidence = selectors.evidence_get(ws, evidence_id)
    _require_edit(membership)
    services.evidence_remove(evidence=evidence, user=request.user)
    messages.success(request, "Beviset är borttaget.")
    return redirect(f"{reverse('register_item', args=[ws.slug, evidence.requirement.item_id])}"
                    f"#krav-{evidence.requirement_id}")


# --- Reviews --------------------------------------------------------------------------------------------


@login_required
@require_GET
def review_list(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    return render(request, "register/review_list.html", _base(ws, membership, reviews=selectors.review_list(ws)))


@login_required
@require_http_methods(["GET", "POST"])
def review_start(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    _require_edit(membership)
    registers = selectors.register_list(ws)
    if not registers.exists():
        messages.info(request, "Lägg först till de författningar som gäller er på laglistan.")
        return redirect("register_overview", slug=ws.slug)
    if request.method == "POST":
        form = ReviewStartForm(_post(request), workspace=ws, registers=registers)
        if form.is_valid():
            data = form.cleaned_data
            try:
                review = services.review_start(register=data["register"], user=request.user, title=data["title"],
                                               groups=list(data["groups"]), lead=data["lead"],
                                               due_date=data["due_date"])
            except ApplicationError as exc:
                _field_error(form, exc)
            else:
                messages.success(request, f"Kontrollen ”{review.title}” är startad.")
                return redirect("register_review", slug=ws.slug, review_id=review.pk)
    else:
        first = registers.order_by("pk").first()
        form = ReviewStartForm(workspace=ws, registers=registers, initial={
            "register": first, "lead": request.user,
            "title": f"Lagefterlevnadskontroll {swedish_today().year}"})
    return render(request, "register/review_start.html", _base(ws, membership, form=form),
                  status=400 if form.errors else 200)


def _review_page(request: HttpRequest, ws: Workspace, membership: Membership, review: Review, *,
                 rating_form: RatingForm | None = None, rated_entry: int | None = None,
                 close_error: str = "", status: int = 200) -> HttpResponse:
    entries = list(selectors.review_entry_list(review))
    may_see = selectors.may_see_private_files(membership)
    actions: dict[int, list] = {}
    for action in selectors.action_list(ws, review=review):
        actions.setdefault(action.review_entry_id, []).append(action)
    editable = membership.can_edit and not review.is_closed
    rows = []
    for entry in entries:
        form = None
        if editable:
            pool = selectors.evidence_list_for_items(ws, [entry.item_id] if entry.item_id else [])
            if rating_form is not None and rated_entry == entry.pk:
                form = rating_form
            else:
                form = RatingForm(evidence=pool, prefix=f"post-{entry.pk}", initial={
                    "rating": entry.rating if entry.is_signed else "", "justification": entry.justification,
                    "evidence": [e.pk for e in entry.evidence.all()]})
        frozen_evidence = [
            {**e, "label": "Privat fil" if e.get("private") and not may_see else e.get("label", "")}
            for e in entry.frozen_evidence]
        rows.append({"entry": entry, "form": form, "actions": actions.get(entry.pk, []),
                     "frozen_evidence": frozen_evidence,
                     "evidence": [selectors.evidence_label(e, may_see_private=may_see) for e in entry.evidence.all()]})
    signed = sum(1 for e in entries if e.is_signed)
    return render(request, "register/review_detail.html", _base(
        ws, membership, review=review, rows=rows, signed=signed, total=len(entries), editable=editable,
        close_error=close_error), status=status)


@login_required
@require_GET
def review_detail(request: HttpRequest, slug: str, review_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    review = selectors.review_get(ws, review_id)
    return _review_page(request, ws, membership, review)


@login_required
@require_POST
def review_entry_rate(request: HttpRequest, slug: str, review_id: int, entry_id: int) -> HttpResponse:
    """"Signera": the rating, justification and evidence of one item, signed off by the person."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    review = selectors.review_get(ws, review_id)
    entry = selectors.review_entry_get(review, entry_id)
    _require_edit(membership)
    pool = selectors.evidence_list_for_items(ws, [entry.item_id] if entry.item_id else [])
    form = RatingForm(_post(request), evidence=pool, prefix=f"post-{entry.pk}")
    status = 400
    if form.is_valid():
        data = form.cleaned_data
        try:
            result = services.review_entry_rate(entry=entry, user=request.user, rating=data["rating"],
                                                justification=data["justification"] or "",
                                                evidence=list(data["evidence"]))
        except ApplicationError as exc:
            _field_error(form, exc)
            status = exc.status
        else:
            done = f"{entry} är bedömd och signerad."
            if result.action is not None:
                done += f" En åtgärd är skapad: ”{result.action.title}”."
            messages.success(request, done)
            return redirect(f"{reverse('register_review', args=[ws.slug, review.pk])}#post-{entry.pk}")
    return _review_page(request, ws, membership, review, rating_form=form, rated_entry=entry.pk, status=status)


@login_required
@require_POST
def review_close(request: HttpRequest, slug: str, review_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    review = selectors.review_get(ws, review_id)
    _require_edit(membership)
    try:
        services.review_close(review=review, user=request.user)
    except ApplicationError as exc:
        return _review_page(request, ws, membership, selectors.review_get(ws, review_id), close_error=exc.message,
                            status=exc.status)
    messages.success(request, f"Kontrollen ”{review.title}” är avslutad och fryst.")
    return redirect("register_review", slug=ws.slug, review_id=review.pk)


# --- Actions --------------------------------------------------------------------------------------------


def _actions_page(request: HttpRequest, ws: Workspace, membership: Membership, *,
                  update_form: ActionUpdateForm | None = None, updated: int | None = None,
                  status: int = 200) -> HttpResponse:
    members = list(workspace_members(ws))
    form = ActionFilterForm(request.GET, members=members)
    error = ""
    state, owner_id = Action.State.OPEN, None
    if form.is_valid():
        state = {"oppna": Action.State.OPEN, "klara": Action.State.DONE, "alla": None, "": Action.State.OPEN}[
            form.cleaned_data["lage"]]
        owner_id = form.cleaned_data["ansvarig"]
    else:
        error = "Filtret kunde inte användas – välj bland alternativen."
        status = 400
    actions = list(selectors.action_list(ws, state=state, owner_id=owner_id))
    rows = []
    for action in actions:
        row_form = None
        if membership.can_edit:
            row_form = update_form if updated == action.pk else ActionUpdateForm(
                workspace=ws, prefix=f"atgard-{action.pk}",
                initial={"owner": action.owner_id, "due_date": action.due_date, "state": action.state})
        rows.append({"action": action, "form": row_form})
    return render(request, "register/action_list.html", _base(
        ws, membership, rows=rows, form=form, filter_error=error, today=swedish_today()), status=status)


@login_required
@require_GET
def action_list(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    return _actions_page(request, ws, membership)


@login_required
@require_POST
def action_create(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    item = selectors.register_item_get(ws, item_id)
    _require_edit(membership)
    form = ActionForm(_post(request), workspace=ws, prefix="atgard")
    if form.is_valid():
        data = form.cleaned_data
        try:
            services.action_create(workspace=ws, user=request.user, title=data["title"], item=item,
                                   description=data["description"] or "", owner=data["owner"],
                                   due_date=data["due_date"])
        except ApplicationError as exc:
            _field_error(form, exc)
        else:
            messages.success(request, "Åtgärden är skapad.")
            return redirect(f"{reverse('register_item', args=[ws.slug, item.pk])}#atgarder")
    return _item_page(request, ws, membership, item, action_form=form, status=400)


@login_required
@require_POST
def action_update(request: HttpRequest, slug: str, action_id: int) -> HttpResponse:
    """Owner, due date and state of an action; "Markera som åtgärdad" posts only the state."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    action = selectors.action_get(ws, action_id)
    _require_edit(membership)
    post = _post(request)
    if "markera" in post:
        data = {"state": post.get("markera", "")}
        form = None
    else:
        form = ActionUpdateForm(post, workspace=ws, prefix=f"atgard-{action.pk}")
        data = dict(form.cleaned_data) if form.is_valid() else None
    if data is not None:
        try:
            services.action_update(action=action, user=request.user, data=data)
        except ApplicationError as exc:
            if form is None:
                messages.error(request, exc.message)
                return redirect("register_actions", slug=ws.slug)
            _field_error(form, exc)
        else:
            messages.success(request, f"Åtgärden ”{action.title}” är sparad.")
            return redirect("register_actions", slug=ws.slug)
    return _actions_page(request, ws, membership, update_form=form, updated=action.pk, status=400)

