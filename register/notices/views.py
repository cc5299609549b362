"""The Lagändringar pages: a workspace's change notices with unread/answered filters, one notice with its
changed §§ as word diffs and the impact-assessment form, and the member's e-mail setting (a form on the
settings page, posted here). Readers and revisors read; owners and editors answer. Read or unread is each
member's own: opening a notice marks it read for the one who opened it.

Another workspace, or its notice, is a 404 (membership_get_by_slug, then selectors scoped to it).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from compliance.chat_model import model_configured
from compliance.models import Membership, Workspace
from compliance.permissions import require_edit as _require_edit
from compliance.views import membership_for_page
from law.summaries import SUMMARY_LABEL, change_summary_create

from ..models import ChangeNotice
from ..services import RegisterError
from ..transfer import exports
from . import selectors, services
from .forms import ImpactForm, NoticeReportForm, SubscriptionForm

PAGE_SIZE = 100


@login_required
@require_GET
def notice_list(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    state = request.GET.get("status", "")
    state = state if state in selectors.STATES else ""
    kind = request.GET.get("typ", "")
    kind = kind if kind in ChangeNotice.Kind.values else ""
    notices = selectors.notice_list(ws, request.user, state=state, kind=kind)
    return render(request, "register/notices/list.html", {
        "workspace": ws, "membership": membership, "can_edit": membership.can_edit, "nav": "notices",
        "notices": notices[:PAGE_SIZE], "total": notices.count(), "state": state, "kind": kind,
        "states": selectors.STATE_LABELS.items(), "kinds": ChangeNotice.Kind.choices,
        "coming": selectors.coming_into_force(ws),
        "report_form": NoticeReportForm(), "report_formats": [("xlsx", "Excel"), ("pdf", "PDF"), ("csv", "CSV")],
    })


@login_required
@require_GET
def notice_report(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    """Lagbevakning's report for a period (`fran`, `till`) as a file; any member may download it, as the list. A bad
    date or a period ending before it starts goes back to the list with the reason."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    if fmt not in exports.NOTICE_REPORT_FORMATS:
        raise Http404("Okänt format.")
    form = NoticeReportForm(request.GET)
    try:
        if not form.is_valid():
            raise RegisterError("invalid_date", next(iter(form.errors.values()))[0])
        report = selectors.notice_report_get(ws, request.user, since=form.cleaned_data["fran"],
                                             until=form.cleaned_data["till"])
    except RegisterError as exc:
        messages.error(request, exc.message)
        return redirect(reverse("notice_list", args=[ws.slug]) + "#rapport")
    return exports.notice_report_file(report, fmt).as_download()


def _detail_page(request: HttpRequest, ws: Workspace, membership: Membership, notice: ChangeNotice, *,
                 form: ImpactForm | None = None, status: int = 200) -> HttpResponse:
    detail = selectors.notice_detail(notice)
    summarise = (detail.summary is None and bool(detail.changes) and model_configured())
    impact = getattr(notice, "impact", None) if notice.is_answered else None
    initial = ({"affects_us": impact.affects_us, "what_to_do": impact.what_to_do, "comment": impact.comment}
               if impact is not None else {})
    return render(request, "register/notices/detail.html", {
        "workspace": ws, "membership": membership, "can_edit": membership.can_edit, "nav": "notices",
        "notice": notice, "detail": detail, "impact": impact,
        "form": form or ImpactForm(workspace=ws, initial=initial), "summarise": summarise,
        "summary_label": SUMMARY_LABEL,
    }, status=status)


@login_required
@require_GET
def notice_detail(request: HttpRequest, slug: str, notice_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    notice = selectors.notice_get(ws, request.user, notice_id)
    # Opened: read for this member (the page still shows it as they found it, "oläst" until the next visit).
    services.notice_mark_read(notice=notice, user=request.user)
    return _detail_page(request, ws, membership, notice)


@login_required
@require_POST
def notice_answer(request: HttpRequest, slug: str, notice_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    notice = selectors.notice_get(ws, request.user, notice_id)
    _require_edit(membership)
    form = ImpactForm(request.POST, workspace=ws)
    if not form.is_valid():
        return _detail_page(request, ws, membership, notice, form=form, status=400)
    data = form.cleaned_data
    try:
        result = services.notice_answer(
            notice=notice, user=request.user, affects_us=data["affects_us"], what_to_do=data["what_to_do"],
            comment=data["comment"], action_title=data["action_title"], action_owner=data["action_owner"],
            action_due_date=data["action_due_date"], add_to_register=data["add_to_register"])
    except RegisterError as exc:
        field = exc.details.get("field")
        form.add_error(field if field in form.fields else None, exc.message)
        return _detail_page(request, ws, membership, notice, form=form, status=400)
    done = "Bedömningen har sparats."
    if result.action is not None:
        done += f" Åtgärden ”{result.action.title}” har skapats."
    if result.added_item is not None:
        done += f" {result.added_item.display_title} finns nu i laglistan."
    messages.success(request, done)
    return redirect(reverse("notice_list", args=[ws.slug]) + "?status=obesvarade")


@login_required
@require_POST
def notice_unread(request: HttpRequest, slug: str, notice_id: int) -> HttpResponse:
    """Unread again, for this member only (any role: it is their own state)."""
    ws = membership_for_page(request, slug).workspace
    notice = selectors.notice_get(ws, request.user, notice_id)
    services.notice_mark_unread(notice=notice, user=request.user)
    messages.success(request, "Lagändringen är markerad som oläst för dig.")
    return redirect(reverse("notice_list", args=[ws.slug]) + "?status=olasta")


@login_required
@require_POST
def notice_summary(request: HttpRequest, slug: str, notice_id: int) -> HttpResponse:
    """The model's summary of the change, made once for every workspace (any member may ask: it is reading)."""
    ws = membership_for_page(request, slug).workspace
    notice = selectors.notice_get(ws, request.user, notice_id)
    if notice.kind == ChangeNotice.Kind.AMENDED and notice.version is not None:
        result = change_summary_create(notice.version)
        if result.error:
            messages.error(request, result.error)
    return redirect(reverse("notice_detail", args=[ws.slug, notice.pk]) + "#andringar")


@login_required
@require_POST
def subscription_save(request: HttpRequest, slug: str) -> HttpResponse:
    """The member's own e-mail digest (any role may choose what lands in their own inbox)."""
    ws = membership_for_page(request, slug).workspace
    form = SubscriptionForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Välj av, dagligen eller veckovis.")
        return redirect(reverse("workspace_settings", args=[ws.slug]) + "#lagbevakning")
    services.notice_subscription_save(workspace=ws, user=request.user, **form.cleaned_data)
    messages.success(request, "Din inställning för lagbevakning per e-post har sparats.")
    return redirect(reverse("workspace_settings", args=[ws.slug]) + "#lagbevakning")
