"""The "Förslag" and "Mallar" pages of the laglista: documents suggested from the company profile and the
knowledge base, accepted or rejected one by one (htmx swaps the row), and the curated templates.

Every member reads; owners and editors decide (a reader's or revisor's POST is refused). Another workspace
is a 404 (membership_get_by_slug, through compliance's membership_for_page).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from compliance.models import Workspace
from compliance.permissions import require_edit as _require_edit
from compliance.views import membership_for_page

from . import services
from .models import SuggestionDecision
from .services import RegisterError
from .suggestions import rejected_suggestions, suggestion_list, template_get, template_list


def _is_htmx(request: HttpRequest) -> bool:
    return request.headers.get("HX-Request") == "true"


@login_required
@require_GET
def suggestions(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    return render(request, "register/suggestions.html", {
        "workspace": ws, "membership": membership, "can_edit": membership.can_edit, "nav": "register",
        "suggestions": suggestion_list(ws), "rejected": list(rejected_suggestions(ws)),
    })


def _decided(request: HttpRequest, ws: Workspace, number: str, *, accept: bool) -> HttpResponse:
    try:
        if accept:
            result = services.suggestion_accept(workspace=ws, user=request.user, number=number)
            done = f"{result.item.display_title} har lagts till i laglistan."
        else:
            services.suggestion_reject(workspace=ws, user=request.user, number=number)
            done = "Förslaget har avvisats och visas inte igen."
    except RegisterError as exc:
        if _is_htmx(request):
            return render(request, "register/_suggestion_row_done.html",
                          {"number": number, "text": exc.message, "error": True}, status=exc.status)
        messages.error(request, exc.message)
        return redirect("register_suggestions", slug=ws.slug)
    if _is_htmx(request):
        return render(request, "register/_suggestion_row_done.html", {"number": number, "text": done})
    messages.success(request, done)
    return redirect("register_suggestions", slug=ws.slug)


@login_required
@require_POST
def suggestion_accept(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    _require_edit(membership)
    return _decided(request, ws, request.POST.get("document", "").strip(), accept=True)


@login_required
@require_POST
def suggestion_reject(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    _require_edit(membership)
    return _decided(request, ws, request.POST.get("document", "").strip(), accept=False)


@login_required
@require_POST
def suggestion_restore(request: HttpRequest, slug: str, decision_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    decision = SuggestionDecision.objects.filter(workspace=ws, pk=decision_id).first()
    if decision is None:
        raise Http404("Beslutet finns inte.")
    _require_edit(membership)
    services.suggestion_restore(workspace=ws, user=request.user, decision=decision)
    messages.success(request, f"{decision.legal_document} kan föreslås igen.")
    return redirect("register_suggestions", slug=ws.slug)


@login_required
@require_GET
def templates(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    return render(request, "register/suggestions_templates.html", {
        "workspace": ws, "membership": membership, "can_edit": membership.can_edit, "nav": "register",
        "templates": template_list(),
    })


@login_required
@require_POST
def template_apply(request: HttpRequest, slug: str, template_slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    template = template_get(template_slug)
    if template is None:
        raise Http404("Mallen finns inte.")
    _require_edit(membership)
    result = services.template_apply(workspace=ws, user=request.user, template=template)
    text = (f"Mallen {template.name} har lagts till i gruppen {result.group.name}: {result.items_added} nya poster, "
            f"{result.requirements_added} nya kravpunkter")
    if result.items_kept:
        text += f"; {result.items_kept} poster fanns redan och behölls"
    if result.missing_documents:
        text += f"; saknas i källorna och hoppades över: {', '.join(result.missing_documents)}"
    messages.success(request, text + ".")
    return redirect("register_templates", slug=ws.slug)
