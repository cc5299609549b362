"""Downloads and uploads of the register: the register and a closed review as Excel, PDF and CSV, and the
two-step import of a list from another service (upload → preview → confirm). Function views, thin: the
access selector resolves the workspace (another workspace's register or review is a 404), register.selectors
read, register.exports builds the bytes, register.imports reads the file and register.services writes.
Domain errors escape to compliance's middleware, which shows their Swedish message."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from compliance.errors import ApplicationError
from compliance.permissions import require_edit as _require_edit
from compliance.selectors import membership_get_by_slug

from .. import selectors, services
from . import exports, imports


@login_required
@require_GET
def register_export(request: HttpRequest, slug: str, register_id: int, fmt: str) -> HttpResponse:
    membership = membership_get_by_slug(request.user, slug)
    workspace = membership.workspace
    register = selectors.register_get(workspace, register_id)
    if fmt not in exports.REGISTER_FORMATS:
        raise Http404("Okänt format.")
    data = selectors.register_export_get(workspace, register,
                                         may_see_private=selectors.may_see_private_files(membership))
    return exports.register_file(data, fmt).as_download()


@login_required
@require_GET
def review_export(request: HttpRequest, slug: str, review_id: int, fmt: str) -> HttpResponse:
    membership = membership_get_by_slug(request.user, slug)
    workspace = membership.workspace
    review = selectors.review_get(workspace, review_id)
    if fmt not in exports.REVIEW_FORMATS:
        raise Http404("Okänt format.")
    if not review.is_closed:
        raise services.ReviewOpenError()
    data = selectors.review_export_get(workspace, review, may_see_private=selectors.may_see_private_files(membership))
    return exports.review_file(data, fmt).as_download()


@login_required
@require_http_methods(["GET", "POST"])
def register_import(request: HttpRequest, slug: str, register_id: int) -> HttpResponse:
    """GET: the upload form. POST: the file read and matched, shown for the person to resolve and confirm."""
    membership = membership_get_by_slug(request.user, slug)
    workspace = membership.workspace
    register = selectors.register_get(workspace, register_id)
    _require_edit(membership)
    context = {"workspace": workspace, "membership": membership, "register": register, "nav": "register",
               "max_mb": imports.MAX_FILE_BYTES // (1024 * 1024), "max_rows": imports.MAX_ROWS}
    if request.method == "GET":
        return render(request, "register/import_upload.html", context)
    uploaded = request.FILES.get("file")
    if uploaded is None:
        return render(request, "register/import_upload.html", {**context, "error": "Välj en fil att importera."},
                      status=400)
    if uploaded.size > imports.MAX_FILE_BYTES:
        return render(request, "register/import_upload.html",
                      {**context, "error": f"Filen är för stor (högst {context['max_mb']} MB)."}, status=400)
    try:
        preview = imports.import_preview(workspace_id=workspace.pk, register_id=register.pk, user_id=request.user.pk,
                                         file_name=uploaded.name or "", content=uploaded.read())
    except imports.RegisterImportError as exc:
        return render(request, "register/import_upload.html",
                      {**context, "error": exc.message, "row_errors": exc.details.get("rows", [])}, status=400)
    return render(request, "register/import_preview.html", {**context, "preview": preview,
                                                            "confidence": imports.Confidence})


@login_required
@require_POST
def register_import_confirm(request: HttpRequest, slug: str, register_id: int) -> HttpResponse:
    """Commit the preview's rows as the person chose them: each row's choice is `row-<line>` (a document
    number, or "skip"); a number typed in `number-<line>` wins over the list (typing one is choosing it)."""
    membership = membership_get_by_slug(request.user, slug)
    workspace = membership.workspace
    register = selectors.register_get(workspace, register_id)
    _require_edit(membership)
    preview = imports.preview_from_token(request.POST.get("token", ""), workspace_id=workspace.pk,
                                         register_id=register.pk, user_id=request.user.pk)
    choices: dict[int, str] = {}
    for row in preview.rows:
        typed = request.POST.get(f"number-{row.line}", "").strip()
        chosen = request.POST.get(f"row-{row.line}", "").strip()
        if typed:
            choices[row.line] = typed
        elif chosen:
            choices[row.line] = chosen
    try:
        rows = imports.import_choices(preview, choices)
        result = services.register_import_confirm(register=register, user=request.user, rows=rows)
    except ApplicationError as exc:
        if isinstance(exc, services.PermissionDeniedError):
            raise
        context = {"workspace": workspace, "membership": membership, "register": register, "nav": "register",
                   "preview": preview, "confidence": imports.Confidence, "error": exc.message}
        return render(request, "register/import_preview.html", context, status=400)
    messages.success(request, f"Importen är klar: {result.created} nya poster, {result.existing} fanns redan, "
                              f"{result.skipped} rader hoppades över.")
    # Back to the register, where the imported rows now are.
    return redirect("register_overview", slug=workspace.slug)
