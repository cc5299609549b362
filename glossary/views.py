"""The Ordlista pages: a workspace's terms with a form to add one (prefilled from `?ord=`, the link from the
dashboard's words no source uses and from an answer, or with a § from a statute page's link), a term's edit page
and its delete confirmation, and the glossary as an Excel or CSV file, out (every member) and in
(glossary.transfer reads it, services.term_import writes). Every member reads; owners and editors write. The
services validate: a refused term is the page again with the Swedish error at its field, a refused file the page
with the error and the rows at fault.

Another workspace, or its term, is a 404 (membership_for_page, then selectors scoped to it).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from agent.retrieval.glossary_checks import glossary_citation, law_words_checks
from compliance.anchors import statute_url
from compliance.clock import swedish_today
from compliance.models import Membership, Workspace
from compliance.permissions import require_edit
from compliance.selectors import access_scope_for, legal_document_get
from compliance.views import membership_for_page

from . import selectors, services, transfer
from .forms import TermForm
from .models import WORD_MAX_LENGTH, Term
from .services import GlossaryError, GlossaryImportError


def _refused(request: HttpRequest, exc: GlossaryError) -> TermForm:
    """The posted form with the service's error at its field (the whole form's when it names none)."""
    form = TermForm(data=request.POST)
    form.add_error(exc.field if exc.field in form.fields else None, exc.message)
    return form


def _check_law_words(request: HttpRequest, workspace: Workspace, terms: list[Term]) -> None:
    """Sets, per term, what its law words would find (glossary_checks): `provisions`, those they cite with a link
    to each the knowledge base holds, and `unused_law_words`, the words no source uses. The team should see what
    would find nothing where it wrote it."""
    checks = law_words_checks([term.law_words for term in terms], access_scope_for(request.user, workspace))
    for term in terms:
        check = checks[term.law_words]
        term.provisions = [{"provision": p, "url": statute_url(p.number, p.citation) if p.held else ""}
                           for p in check.provisions]
        term.unused_law_words = check.unused_words


def _list_page(request: HttpRequest, membership: Membership, *, form: TermForm | None = None,
               import_error: GlossaryImportError | None = None, status: int = 200) -> HttpResponse:
    ws = membership.workspace
    query = request.GET.get("q", "").strip()[:QUERY_MAX_LENGTH]
    terms = list(selectors.term_list(ws, filters={"q": query}))
    _check_law_words(request, ws, terms)
    pointed = _pointed_provision(request)
    form = form or TermForm(initial={"word": request.GET.get("ord", "").strip()[:WORD_MAX_LENGTH],
                                     "law_words": pointed.citation})
    citations = [pointed.citation] if pointed.citation else _suggested_citations(request)
    if citations:
        form.fields["law_words"].widget.attrs["list"] = "lagrum-forslag"
    return render(request, "glossary/list.html", {
        "workspace": ws, "membership": membership, "can_edit": membership.can_edit, "nav": "glossary",
        "terms": terms, "query": query,
        # "Nothing matches" or "the glossary is empty": only a filtered, empty list needs the second look-up.
        "has_terms": bool(terms) or (bool(query) and selectors.term_list(ws).exists()),
        "form": form, "suggested_citations": citations, "pointed_citation": pointed.citation,
        "pointed_document": pointed.document, "pointed_unit": pointed.unit,
        "import_error": import_error, "import_rows": import_error.details.get("rows", []) if import_error else [],
        "max_terms": services.MAX_TERMS, "back_to": _back_to(request, ws, pointed),
    }, status=status)


QUERY_MAX_LENGTH = 100


def _back_to(request: HttpRequest, workspace: Workspace, pointed: PointedProvision | None = None) -> str:
    """Where to go once a word is added, from `tillbaka` (the answer's link sends its conversation): a path in the
    same workspace on this site or a statute page (the shared law every member reads), else "" (the list). Nothing
    else, so the parameter cannot send anyone away. A statute page's link sends none: the way back is its §."""
    back = (request.POST.get("tillbaka") or request.GET.get("tillbaka") or "").strip()
    if not back and pointed is not None and pointed.citation:
        back = statute_url(pointed.document, pointed.unit)
    local = url_has_allowed_host_and_scheme(back, allowed_hosts=None) and back.startswith("/") \
        and not back.startswith("//")
    if not local:
        return ""
    if back.startswith(f"/ws/{workspace.slug}/"):
        return back
    try:
        return back if resolve(back.split("#", 1)[0].split("?", 1)[0]).url_name == "statute" else ""
    except Resolver404:
        return ""


@dataclass(frozen=True)
class PointedProvision:
    """The provision a statute page's link points at: its document and unit as the link gave them, and the law
    words that cite it ("" when the document is not held or no citation reaches the unit)."""

    document: str = ""
    unit: str = ""
    citation: str = ""


def _pointed_provision(request: HttpRequest) -> PointedProvision:
    """From `forfattning` and `enhet` ("1999:1229", "11 kap. 11 §"): the citation is glossary_citation's, which
    retrieval reads back as that very unit. Kept through a refused post, as `tillbaka` is."""
    number = (request.POST.get("forfattning") or request.GET.get("forfattning") or "").strip()[:60]
    unit = " ".join((request.POST.get("enhet") or request.GET.get("enhet") or "").split())[:60]
    if not number or not unit:
        return PointedProvision()
    try:
        document = legal_document_get(number)
    except Http404:
        return PointedProvision()
    return PointedProvision(document.sfs_number, unit, glossary_citation(document.sfs_number, unit, document.title))


def _suggested_citations(request: HttpRequest) -> list[str]:
    """The provisions the answer a word is taught from cited (`lagrum`, from its link), offered as the term's law
    words: only text law words may hold, so a link cannot put anything else on the page (it is escaped there too)."""
    # Kept through a refused post (the form sends them back, as it does `tillbaka`).
    given = (" ".join(c.split()) for c in
             (request.POST.getlist("lagrum") or request.GET.getlist("lagrum"))[:services.MAX_SUGGESTED_CITATIONS])
    return list(dict.fromkeys(c for c in given if services.allowed_law_words(c)))


def _posted(request: HttpRequest) -> dict[str, str]:
    return {"word": request.POST.get("word", ""), "law_words": request.POST.get("law_words", "")}


@login_required
@require_GET
def term_list(request: HttpRequest, slug: str) -> HttpResponse:
    return _list_page(request, membership_for_page(request, slug))


@login_required
@require_POST
def term_add(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    require_edit(membership)
    try:
        term = services.term_create(workspace=membership.workspace, user=request.user, **_posted(request))
    except GlossaryError as exc:
        return _list_page(request, membership, form=_refused(request, exc), status=exc.status)
    messages.success(request, f"”{term.word}” finns nu i ordlistan: assistenten söker även efter ”{term.law_words}”.")
    back = _back_to(request, membership.workspace, _pointed_provision(request))
    return redirect(back or reverse("glossary_list", args=[membership.workspace.slug]))


def _edit_page(request: HttpRequest, membership: Membership, term: Term, *, form: TermForm | None = None,
               status: int = 200) -> HttpResponse:
    return render(request, "glossary/edit.html", {
        "workspace": membership.workspace, "membership": membership, "nav": "glossary", "term": term,
        "form": form or TermForm(initial={"word": term.word, "law_words": term.law_words}),
    }, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def term_edit(request: HttpRequest, slug: str, term_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    term = selectors.term_get(membership.workspace, term_id)
    require_edit(membership)
    if request.method == "GET":
        return _edit_page(request, membership, term)
    try:
        term = services.term_update(term=term, user=request.user, **_posted(request))
    except GlossaryError as exc:
        return _edit_page(request, membership, term, form=_refused(request, exc), status=exc.status)
    messages.success(request, f"”{term.word}” har sparats.")
    return redirect("glossary_list", slug=membership.workspace.slug)


@login_required
@require_http_methods(["GET", "POST"])
def term_delete(request: HttpRequest, slug: str, term_id: int) -> HttpResponse:
    """GET asks (a page naming the term), POST deletes."""
    membership = membership_for_page(request, slug)
    term = selectors.term_get(membership.workspace, term_id)
    require_edit(membership)
    if request.method == "GET":
        return render(request, "glossary/confirm_delete.html", {
            "workspace": membership.workspace, "membership": membership, "nav": "glossary", "term": term,
        })
    services.term_delete(term=term, user=request.user)
    messages.success(request, f"”{term.word}” har tagits bort ur ordlistan.")
    return redirect("glossary_list", slug=membership.workspace.slug)


@login_required
@require_GET
def term_export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    """The workspace's glossary as an Excel or CSV file; every member may take it."""
    membership = membership_for_page(request, slug)
    if fmt not in transfer.FORMATS:
        raise Http404("Okänt format.")
    terms = list(selectors.term_list(membership.workspace))
    return transfer.glossary_file(terms, fmt, workspace_slug=membership.workspace.slug,
                                  day=swedish_today()).as_download()


@login_required
@require_POST
def term_import(request: HttpRequest, slug: str) -> HttpResponse:
    """Add and change terms from an uploaded file, all or none; a refused file is the page with the reason and
    the rows at fault."""
    membership = membership_for_page(request, slug)
    require_edit(membership)
    uploaded = request.FILES.get("file")
    if uploaded is None:
        return _list_page(request, membership, status=400, import_error=GlossaryImportError(
            "no_file", "Välj en fil att importera.", details={"field": "file"}))
    try:
        result = services.term_import(workspace=membership.workspace, user=request.user,
                                      rows=transfer.read_upload(uploaded))
    except GlossaryImportError as exc:
        return _list_page(request, membership, import_error=exc, status=exc.status)
    messages.success(request, f"Importen är klar. Nya begrepp: {result.added}, ändrade: {result.changed}, "
                              f"oförändrade: {result.unchanged}.")
    return redirect("glossary_list", slug=membership.workspace.slug)
