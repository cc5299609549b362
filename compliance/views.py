"""Workspace pages. Function-based, thin: selectors read, services write.

Access: `membership_get_by_slug` decides membership (another workspace's slug
or object id is a 404, never a 403). A member who may only read gets 403 on
anything that writes: they can see the workspace, so that leaks nothing.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

from cachetools import LRUCache
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from agent.retrieval.glossary_checks import terms_citing
from chunks.cited_elsewhere import document_cited_elsewhere
from chunks.selectors import knowledge_overview, legal_document_chunks, legal_document_units_held, user_file_chunks
from chunks.tasks import sync_workspace
from law.legal_refs import DocumentLink, StatuteDirectory, reference_links
from law.selectors import statute_history_get
from law.statute_directory import statute_directory

from . import selectors, services
from .anchors import linked_paragraphs, regulation_blocks, regulation_contents, statute_blocks, statute_url
from .errors import ApplicationError
from .forms import AssessmentForm, SharingForm, UploadForm
from .models import Assessment, LegalDocument, Membership, UserFile, Workspace
from .permissions import require_edit as _require_edit
from .selectors import membership_get_by_slug, workspace_list_for_user
from .statute_source import official_statute_url, statute_source


def membership_for_page(request: HttpRequest, slug: str) -> Membership:
    """The user's membership in the workspace `slug` (membership_get_by_slug decides, else 404), its
    workspace remembered as the user's current one so pages outside a workspace (the statutes) know it."""
    membership = membership_get_by_slug(request.user, slug)
    if request.session.get("current_workspace") != membership.workspace.slug:
        request.session["current_workspace"] = membership.workspace.slug
    return membership


def _current_workspace(request: HttpRequest) -> Workspace | None:
    """For pages outside a workspace (the statutes): the last visited one, else the first."""
    workspaces = list(workspace_list_for_user(request.user))
    remembered = request.session.get("current_workspace")
    return next((w for w in workspaces if w.slug == remembered), workspaces[0] if workspaces else None)


def _knowledge_context(ws: Workspace, membership: Membership) -> dict:
    return {
        "workspace": ws,
        "membership": membership,
        "can_edit": membership.can_edit,
        "files": selectors.user_file_list(ws),
        "assessments": selectors.assessment_list(ws),
        "overview": knowledge_overview(ws),
    }


@login_required
def home(request: HttpRequest) -> HttpResponse:
    workspaces = list(workspace_list_for_user(request.user))
    if len(workspaces) == 1:
        return redirect("workspace", slug=workspaces[0].slug)
    return render(request, "compliance/home.html", {"workspaces": workspaces})


@login_required
def workspace(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    return render(request, "compliance/workspace.html", {
        "workspace": ws,
        "membership": membership,
        "overview": knowledge_overview(ws),
        "sharing_form": SharingForm(initial={"allow_cross_workspace": ws.allow_cross_workspace}),
        "nav": "home",
    })


@login_required
@require_POST
def workspace_sharing(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    if not membership.can_manage:
        raise PermissionDenied("Bara arbetsytans ägare kan ändra delningen.")
    form = SharingForm(request.POST)
    allow = form.is_valid() and form.cleaned_data["allow_cross_workspace"]
    services.workspace_set_cross_workspace(workspace=ws, allow=allow)
    messages.success(request, "Arbetsytans källor får nu användas i andra arbetsytors svar." if allow
                     else "Arbetsytans källor används nu bara i den här arbetsytan.")
    return redirect("workspace", slug=ws.slug)


# --- Kunskapsbas ---------------------------------------------------------------------------

@login_required
@require_GET
def knowledge(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    context = _knowledge_context(ws, membership)
    context.update(upload_form=UploadForm(), nav="knowledge")
    return render(request, "compliance/knowledge.html", context)


@login_required
@require_GET
def knowledge_status(request: HttpRequest, slug: str) -> HttpResponse:
    """The figures and the status tables: the partial htmx polls while anything is processing."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    return render(request, "compliance/_knowledge_status.html", _knowledge_context(ws, membership))


@login_required
@require_POST
def knowledge_sync(request: HttpRequest, slug: str) -> HttpResponse:
    """"Synka nu": re-process what changed; the status partial shows the progress."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    _require_edit(membership)
    queued = sync_workspace(ws)
    if queued:
        messages.success(request, f"{queued} dokument synkas nu. Förloppet visas nedan.")
    else:
        messages.info(request, "Allt är redan uppdaterat: inget behövde synkas.")
    return redirect("knowledge", slug=ws.slug)


def _files_and_assessments(files: int, assessments: int) -> str:
    return (f"{files} fil{'er' if files != 1 else ''} och "
            f"{assessments} bedömning{'ar' if assessments != 1 else ''}")


@login_required
@require_http_methods(["GET", "POST"])
def knowledge_clear(request: HttpRequest, slug: str) -> HttpResponse:
    """"Rensa kunskapsbasen" (owners): GET asks, naming how much goes; POST soft-deletes every file and
    assessment of the workspace. Statutes are shared and stay."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    if not membership.can_manage:
        raise PermissionDenied("Bara arbetsytans ägare kan rensa kunskapsbasen.")
    if request.method == "POST":
        result = services.knowledge_clear(workspace=ws)
        if result.files or result.assessments:
            messages.success(request, "Kunskapsbasen är rensad: "
                             f"{_files_and_assessments(result.files, result.assessments)} togs bort.")
        else:
            messages.info(request, "Kunskapsbasen var redan tom: inget togs bort.")
        return redirect("knowledge", slug=ws.slug)
    counts = selectors.knowledge_clear_counts(ws)
    return render(request, "compliance/knowledge_clear.html", {
        "workspace": ws, "membership": membership, "nav": "knowledge",
        "empty": not (counts["files"] or counts["assessments"]),
        "what": _files_and_assessments(counts["files"], counts["assessments"]),
    })


@login_required
@require_POST
def file_upload(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    _require_edit(membership)
    form = UploadForm(request.POST)
    is_private = form.is_valid() and form.cleaned_data["is_private"]
    uploads = request.FILES.getlist("files")
    if not uploads:
        messages.error(request, "Välj minst en fil att ladda upp.")
    for uploaded in uploads:
        name = (uploaded.name or "fil").rsplit("/", 1)[-1]
        try:
            saved = services.user_file_upload(workspace=ws, user=request.user, uploaded=uploaded,
                                              is_private=is_private)
        except ApplicationError as exc:  # one bad file never costs the others
            messages.error(request, f"{name}: {exc.message}")
        else:
            messages.success(request, _uploaded_message(name, saved))
    return redirect("knowledge", slug=ws.slug)


def _uploaded_message(name: str, saved: UserFile) -> str:
    if saved.version > 1:
        return (f"{name}: uppladdad som version {saved.version}, bearbetas nu. "
                "Den ersätter nuvarande version när den är klar.")
    return f"{name}: uppladdad, bearbetas nu."


@login_required
@require_GET
def file_detail(request: HttpRequest, slug: str, file_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    user_file = selectors.user_file_get(ws, file_id)
    return render(request, "compliance/file_detail.html", {
        "workspace": ws,
        "membership": membership,
        "can_edit": membership.can_edit,
        "file": user_file,
        "chunks": user_file_chunks(user_file),
        "versions": selectors.user_file_versions(user_file),
        "nav": "knowledge",
    })


@login_required
@require_POST
def file_replace(request: HttpRequest, slug: str, file_id: int) -> HttpResponse:
    """The "Ersätt" action: upload a new version of this file's document, whatever its name."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    user_file = selectors.user_file_get(ws, file_id)
    _require_edit(membership)
    uploaded = request.FILES.get("file")
    if uploaded is None:
        messages.error(request, "Välj en fil att ersätta med.")
        return redirect("file_detail", slug=ws.slug, file_id=user_file.pk)
    name = (uploaded.name or "fil").rsplit("/", 1)[-1]
    try:
        saved = services.user_file_upload(workspace=ws, user=request.user, uploaded=uploaded, replaces=user_file)
    except ApplicationError as exc:
        messages.error(request, f"{name}: {exc.message}")
    else:
        messages.success(request, _uploaded_message(name, saved))
    return redirect("file_detail", slug=ws.slug, file_id=user_file.pk)


@login_required
@require_POST
def file_version_restore(request: HttpRequest, slug: str, file_id: int) -> HttpResponse:
    """Make this (earlier) version the current one again."""
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    version = selectors.user_file_get(ws, file_id)
    _require_edit(membership)
    try:
        restored = services.user_file_version_restore(version)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Version {restored.version} är nu nuvarande version.")
    return redirect("file_detail", slug=ws.slug, file_id=version.pk)


@login_required
@require_GET
def file_download(request: HttpRequest, slug: str, file_id: int) -> FileResponse:
    ws = membership_for_page(request, slug).workspace
    user_file = selectors.user_file_get(ws, file_id)
    try:
        handle = user_file.file.open("rb")
    except (OSError, ValueError):
        raise Http404("Filen finns inte.") from None
    return FileResponse(handle, as_attachment=True, filename=user_file.original_name,
                        content_type=user_file.mime_type or "application/octet-stream")


@login_required
@require_http_methods(["GET", "POST"])
def file_delete(request: HttpRequest, slug: str, file_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    user_file = selectors.user_file_get(ws, file_id)
    _require_edit(membership)
    return _confirm_delete(request, ws, membership, delete=lambda: services.user_file_delete(user_file),
                           done=f"{user_file.original_name} har tagits bort.",
                           label=user_file.title or user_file.original_name, kind="filen",
                           note="Filen används inte längre som underlag för AI-svar.")


def _confirm_delete(request: HttpRequest, ws: Workspace, membership: Membership, *, delete: Callable[[], None],
                    done: str, label: str, kind: str, note: str) -> HttpResponse:
    """GET asks (a page naming what goes), POST deletes and returns to the knowledge base."""
    if request.method == "POST":
        delete()
        messages.success(request, done)
        return redirect("knowledge", slug=ws.slug)
    return render(request, "compliance/confirm_delete.html", {
        "workspace": ws, "membership": membership, "object_label": label, "kind": kind, "note": note,
        "nav": "knowledge",
    })


# --- Bedömningar ---------------------------------------------------------------------------

def _assessment_form_page(request: HttpRequest, ws: Workspace, membership: Membership,
                          assessment: Assessment | None = None) -> HttpResponse:
    _require_edit(membership)
    form = AssessmentForm(request.POST or None, instance=assessment, workspace=ws)
    if request.method == "POST" and form.is_valid():
        fields = {name: form.cleaned_data.get(name) for name in services.ASSESSMENT_FIELDS}
        try:
            saved = services.assessment_save(workspace=ws, user=request.user, assessment=assessment, **fields)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, f"Bedömningen ”{saved.title}” har sparats.")
            return redirect("knowledge", slug=ws.slug)
    return render(request, "compliance/assessment_form.html", {
        "workspace": ws,
        "membership": membership,
        "form": form,
        "assessment": assessment,
        "nav": "knowledge",
    })


@login_required
@require_http_methods(["GET", "POST"])
def assessment_create(request: HttpRequest, slug: str) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    return _assessment_form_page(request, ws, membership)


@login_required
@require_http_methods(["GET", "POST"])
def assessment_edit(request: HttpRequest, slug: str, assessment_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    assessment = selectors.assessment_get(ws, assessment_id)
    return _assessment_form_page(request, ws, membership, assessment)


@login_required
@require_http_methods(["GET", "POST"])
def assessment_delete(request: HttpRequest, slug: str, assessment_id: int) -> HttpResponse:
    membership = membership_for_page(request, slug)
    ws = membership.workspace
    assessment = selectors.assessment_get(ws, assessment_id)
    _require_edit(membership)
    return _confirm_delete(request, ws, membership, delete=lambda: services.assessment_delete(assessment),
                           done=f"Bedömningen ”{assessment.title}” har tagits bort.", label=assessment.title,
                           kind="bedömningen", note="Bedömningen och dess anteckningar raderas permanent.")


# --- Författningar (shared: any logged-in user) ----------------------------------------------

@login_required
@require_GET
def statute_list(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()
    content_type = request.GET.get("typ", "")
    agency = request.GET.get("myndighet", "").strip()[:200]
    statutes = selectors.legal_document_list(filters={"q": query[:200], "content_type": content_type,
                                                      "agency": agency})
    page = Paginator(statutes, 50).get_page(request.GET.get("sida"))
    return render(request, "compliance/statute_list.html", {
        "page": page,
        "query": query,
        "content_type": content_type,
        "content_types": LegalDocument.ContentType.choices,
        "agency": agency,
        "agencies": selectors.legal_document_agencies(),
        "workspace": _current_workspace(request),
        "nav": "statutes",
    })


# A page's linked texts, by what they are derived from: the texts themselves and the directory of documents they may
# cite. Kept in the process and shared by the processes: parsing inkomstskattelagen's references takes two seconds.
_linked_pages: LRUCache = LRUCache(maxsize=32)
_linked_lock = threading.Lock()
LINKED_PAGE_SECONDS = 7 * 24 * 3600  # a change of a text or of the directory is a new key
# How texts are linked: a new value when that changes (one link per unit of a chain is "2", the units citing each
# unit "3"), so that no process serves a page the shared cache still holds linked the old way.
LINKED_PAGE_FORMAT = "3"


@dataclass(frozen=True)
class CitingUnit:
    """A unit of the page that cites another of its units: what it is called, and where on the page it is."""

    citation: str
    anchor: str


@dataclass(frozen=True)
class LinkedTexts:
    """A page's texts with their references linked (`htmls`, "" for a text that links nothing) and, for each text,
    the page's units that cite it (`cited_by`, in page order, each citation once)."""

    htmls: list[str]
    cited_by: list[tuple[CitingUnit, ...]]


def _link_references(doc: LegalDocument, blocks: list[dict], regulation: list[dict]) -> None:
    """Each text's HTML (`html`) with every reference a reader may follow linked to the unit it cites: on the page
    of another statute, regulation or EU act the knowledge base holds ("3 kap. 6 § arbetsmiljölagen (1977:1160)",
    "artikel 9.2 g i EU:s dataskyddsförordning"), or on this page ("enligt 4 §", its own chapter's); the units
    of the page that cite it (`cited_by`), so a reader of a § sees where else the statute leans on it; and the
    units of other shared documents that cite it (`cited_elsewhere`: the förordning or föreskrift filling it in).

    `blocks` are a statute's §§, `regulation` a regulation's units (whose articles' parts are texts too).
    """
    parts = [part for block in regulation for part in block["parts"]]  # an article's punkter cite articles
    texts = [*blocks, *regulation, *parts]
    chapters = [*_own_chapters(blocks), *_own_chapters(regulation), *(None for _ in parts)]
    directory = statute_directory()
    digest = hashlib.sha256("\x1e".join([doc.sfs_number, directory.version, *(
        f"{chapter or ''}\x1f{text.get('citation') or ''}\x1f{text.get('text') or ''}"
        for text, chapter in zip(texts, chapters))]).encode()).hexdigest()
    with _linked_lock:
        linked = _linked_pages.get(digest)
    if linked is None:
        shared_key = f"statute-links:{LINKED_PAGE_FORMAT}:{digest}"
        linked = cache.get(shared_key)
        if linked is None:
            linked = _linked_texts(doc.sfs_number, texts, chapters, directory)
            cache.set(shared_key, linked, timeout=LINKED_PAGE_SECONDS)
        with _linked_lock:
            _linked_pages[digest] = linked
    # The units of other documents that cite this page's: a förordning's or a föreskrift's § filling in a law's.
    elsewhere = document_cited_elsewhere(doc, directory, {text["citation"] for text in texts if text.get("citation")})
    for text, html, cited_by in zip(texts, linked.htmls, linked.cited_by):
        text["html"] = html
        text["cited_by"] = cited_by
        text["cited_elsewhere"] = elsewhere.get(text.get("citation") or "", ())


def _linked_texts(number: str, texts: list[dict], chapters: list[str | None],
                  directory: StatuteDirectory) -> LinkedTexts:
    """Each text's HTML and the page's units citing it; `chapters` as `_own_chapters` gives them."""
    found = [reference_links(text.get("text") or "", directory, self_sfs=number, chapter=chapter)
             for text, chapter in zip(texts, chapters)]
    targets = _LinkTargets(number, texts, found)
    at_anchor = {text["anchor"]: index for index, text in enumerate(texts) if text.get("anchor")}
    citing: list[dict[str, CitingUnit]] = [{} for _ in texts]  # by citation: a § shown in two versions is one unit
    htmls = []
    for index, (text, links) in enumerate(zip(texts, found)):
        spans = [(link.start, link.end, url) for link in links if (url := targets.url(link))]
        htmls.append(linked_paragraphs(text.get("text") or "", spans) if spans else "")
        if not (text.get("citation") and text.get("anchor")) or text.get("parts"):
            continue  # an article with punkter is read, and cites, through them
        for link in links:
            cited = at_anchor.get(targets.own_anchor(link)) if link.number == number else None
            if cited is not None and texts[cited].get("citation") != text["citation"]:
                citing[cited].setdefault(text["citation"], CitingUnit(text["citation"], text["anchor"]))
    return LinkedTexts(htmls, [tuple(units.values()) for units in citing])


def _own_chapters(blocks: list[dict]) -> list[str | None]:
    """The chapter a bare § in each block's text belongs to (see reference_links): the block's own in a document
    with chapters, where a block outside them (transitional provisions, a bilaga) has none; "" in one without."""
    chaptered = any(block["chapter"] for block in blocks)
    return [(block["chapter"] or None) if chaptered else "" for block in blocks]


class _LinkTargets:
    """Where a page's references lead: a unit of this page to its anchor, a unit another document holds (its
    chunks say so) to it, else to that document's page; a unit of this page it does not show nowhere."""

    def __init__(self, number: str, texts: list[dict], found: list[list[DocumentLink]]) -> None:
        self.number = number
        self.page = statute_url(number)
        # The page's own anchors by citation, the first place a citation is shown (a § in two versions is shown
        # twice), and each chapter's heading.
        self.own: dict[str, str] = {}
        for text in texts:
            if text.get("citation") and text.get("anchor"):
                self.own.setdefault(text["citation"], text["anchor"])
            if text.get("chapter") and text.get("chapter_anchor"):
                self.own.setdefault(f"{text['chapter']} kap.", text["chapter_anchor"])
        cited = {(link.number, citation) for links in found for link in links if link.number != number
                 for unit in link.units[:1] for citation in unit}
        self.held = legal_document_units_held({n for n, _ in cited}, {c for _, c in cited})

    def own_anchor(self, link: DocumentLink) -> str:
        """The anchor on this page of the unit a link to this page cites, "" for one the page does not show."""
        return next((self.own[c] for c in (link.units[0] if link.units else ()) if c in self.own), "")

    def url(self, link: DocumentLink) -> str:
        if link.number == self.number:
            anchor = self.own_anchor(link)
            return f"{self.page}#{anchor}" if anchor else ""
        for citation in link.units[0] if link.units else ():
            if (link.number, citation) in self.held:
                return statute_url(link.number, citation)
        return statute_url(link.number)


# The units a team's word may point at: a statute's §, a regulation's binding § and an EU act's article (not an
# allmänt råd, which advises, nor transitional provisions, appendices or recitals).
TEACHABLE_KINDS = frozenset({"section", "paragraf", "artikel"})


@login_required
@require_GET
def statute_detail(request: HttpRequest, sfs: str) -> HttpResponse:
    doc = selectors.legal_document_get(sfs)
    version = request.GET.get("version", "")
    history = statute_history_get(doc, version_id=int(version) if version.isdigit() else None)
    if doc.structure:
        # A regulation's page is built from its parsed units: its contents, allmänna råd set apart.
        regulation = regulation_blocks(doc.structure)
        blocks = []
    else:
        regulation = []
        blocks = statute_blocks(legal_document_chunks(doc))
    _link_references(doc, blocks, regulation)
    workspace = _current_workspace(request)
    # An editor reading a rule may teach the workspace's glossary its own word for it: each § (an article)
    # links to the Ordlista form with the provision as the law words (glossary.views._pointed_provision).
    teach = workspace is not None and membership_get_by_slug(request.user, workspace.slug).can_edit
    # And every member sees the words the workspace's glossary already leads to a § (or a chapter) with.
    taught = terms_citing(workspace, doc.sfs_number) if workspace is not None else None
    for block in [*blocks, *regulation]:
        block["teachable"] = teach and bool(block["citation"]) and block["kind"] in TEACHABLE_KINDS
        block["taught_words"] = taught.units.get(block["citation"], []) if taught else []
        block["chapter_taught_words"] = (taught.chapters.get(block.get("chapter") or "", [])
                                         if taught and block.get("opens_chapter") else [])
    glossary_url = reverse("glossary_list", args=[workspace.slug]) if workspace is not None else ""
    # The unit's citation completes it (the form comes back to the unit's § by itself): one link per § of a
    # statute of two thousand, so it carries no more than it must.
    teach_url = f"{glossary_url}?forfattning={quote(doc.sfs_number, safe='')}&enhet=" if teach else ""
    return render(request, "compliance/statute_detail.html", {
        "doc": doc,
        "official_url": official_statute_url(doc),
        "source": statute_source(doc),
        "blocks": blocks,
        "regulation_blocks": regulation,
        "contents": regulation_contents(regulation),
        "legal_basis": selectors.legal_document_basis(doc),
        "history": history,
        "workspace": workspace,
        "teach_url": teach_url,
        "glossary_url": glossary_url,
        "nav": "statutes",
    })
