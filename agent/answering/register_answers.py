"""Answers about the organisation's own laglista, read from the register, never from retrieval or a model.

"Vilka lagar har vi inte bedömt?", "Vad saknar bevis?", "Vilka krav ansvarar jag för?", "Vilka åtgärder är
försenade?", "Vilka lagar gäller för oss?": the question's words choose which lists of the register to show (one or
several), and every line is a row of the current workspace's register with a link to its page. While the laglista
is empty, "Vilka lagar gäller för oss?" gets what its suggestions propose (the company profile's first). Only the workspace the chat is
in is read (its access scope, without any other workspace the question names), so another workspace's
items never appear. With a model configured the answer is the same: the register is the source of truth,
and nothing in it is left for a model to paraphrase or invent.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.urls import NoReverseMatch, reverse

from compliance.clock import swedish_today
from compliance.models import LegalDocument, Workspace
from compliance.selectors import access_scope_for
from compliance.sql import dict_cursor
from compliance.text import markdown_text
from register.models import Action, ComplianceStatus, RegisterItem, Requirement
from register.selectors import action_list, register_item_list, register_summary, requirement_list
from register.suggestions import documents_named, suggestion_list

# How many rows one list shows; the rest is counted and left to the register page.
MAX_ROWS = 25

# The question's words → the lists to show. General phrasing about the register's state, Swedish and English.
_MISSING_EVIDENCE = re.compile(r"\bbevis|\bunderlag|\bdokumentation\b|\bevidence\b", re.IGNORECASE)
_UNASSESSED = re.compile(r"(?:inte|ej|ännu inte|aldrig)\s+(?:\w+\s+)?bedöm|\bobedömd|\bnot\s+(?:yet\s+)?assessed",
                         re.IGNORECASE)
_MINE = re.compile(r"\b(?:jag|mig|mina|min|mitt|my|i am|am i)\b", re.IGNORECASE)
_ACTIONS = re.compile(r"\båtgärd|\bavvikelse|\bactions?\b", re.IGNORECASE)
_LATE = re.compile(r"försen|förfall|\bsena\b|passerat|inte klara|ej klara|overdue|\blate\b", re.IGNORECASE)
_NON_COMPLIANT = re.compile(r"uppfyller vi inte|vi inte uppfyller|uppfylls inte|inte uppfyll|\bbrist|"
                            r"not (?:compliant|met)", re.IGNORECASE)
_REVIEW_DUE = re.compile(r"nästa bedömning|dags att bedöma|bedömning\w* (?:som )?(?:är )?(?:försen|förfall)|"
                         r"förfallna bedömningar|review(?:s)? (?:is |are )?(?:due|overdue)", re.IGNORECASE)
_CHANGED = re.compile(r"ändrad|lagändring|behöver bedömas (?:om|igen)|changed", re.IGNORECASE)
# "Vilka lagar gäller för oss?", "Vilka författningar har vi på laglistan?", "Visa laglistan": its documents, or while
# it is empty what the company profile suggests.
_WHICH_DOCUMENTS = re.compile(r"\bvilka\s+(?:lagar|författningar|föreskrifter)\b|\bwhich\s+laws\b|"
                              r"\bvisa\s+(?:vår\s+|hela\s+)?laglista", re.IGNORECASE)

NOTE = "Svaret bygger på er laglista i arbetsytan {name}, inte på lagtexten."


@dataclass
class Section:
    heading: str
    lines: list[str]
    total: int
    empty_text: str


@dataclass
class RegisterAnswer:
    text: str
    sections: list[Section] = field(default_factory=list)
    item_ids: set[int] = field(default_factory=set)  # every item the answer names (tests check isolation on it)


def item_url(workspace: Workspace, item_id: int) -> str:
    # The item page is register.pages' ("register_item"); its plain path is the fallback while it is being built.
    try:
        return reverse("register_item", args=[workspace.slug, item_id])
    except NoReverseMatch:
        return f"/ws/{workspace.slug}/laglista/poster/{item_id}/"


def _person(user: User | None) -> str:
    return (user.get_full_name() or user.get_username()) if user is not None else ""


def _item_line(workspace: Workspace, item: RegisterItem, *, detail: str = "") -> str:
    parts = [item.get_status_display()]
    if item.responsible_id:
        parts.append(f"ansvarig {markdown_text(_person(item.responsible))}")
    if item.last_reviewed_at:
        parts.append(f"bedömd {item.last_reviewed_at.isoformat()}")
    if detail:
        parts.append(detail)
    return f"- [{markdown_text(item.display_title)}]({item_url(workspace, item.pk)}): {', '.join(parts)}"


def _requirement_line(workspace: Workspace, req: Requirement) -> str:
    label = markdown_text(f"{req.section_ref} {req.title}".strip())
    parts = [markdown_text(req.item.display_title)]
    if req.owner_id:
        parts.append(f"ansvarig {markdown_text(_person(req.owner))}")
    parts.append(req.get_status_display())
    return f"- [{label}]({item_url(workspace, req.item_id)}): {', '.join(parts)}"


def _action_line(workspace: Workspace, action: Action, today: date) -> str:
    parts = []
    if action.due_date:
        late = (today - action.due_date).days
        parts.append(f"skulle vara klar {action.due_date.isoformat()}" + (f" ({late} dagar sen)" if late > 0 else ""))
    if action.owner_id:
        parts.append(f"ansvarig {markdown_text(_person(action.owner))}")
    if action.item_id:
        parts.append(f"gäller [{markdown_text(action.item.display_title)}]({item_url(workspace, action.item_id)})")
    return f"- {markdown_text(action.title)}: {', '.join(parts) or action.get_state_display()}"


def _section(heading: str, rows: list, render: Callable[[Any], str], empty_text: str) -> Section:
    return Section(heading=heading, lines=[render(r) for r in rows[:MAX_ROWS]], total=len(rows),
                   empty_text=empty_text)


def register_answer(workspace: Workspace, user: AbstractBaseUser, question: str, *,
                    today: date | None = None) -> RegisterAnswer:
    """The register's answer to `question` for `user` in `workspace` (Http404 if not a member)."""
    scope = access_scope_for(user, workspace)
    if scope.workspace_id != workspace.pk:  # the scope is the one workspace read below, never another
        raise ValueError("scope mismatch")
    today = today or swedish_today()
    items = register_item_list(workspace)
    answer = RegisterAnswer(text="")
    if not items.exists():
        answer.text = (f"Er laglista i arbetsytan {markdown_text(workspace.name)} är tom. Lägg till författningar från "
                       f"[förslagen]({_suggestions_url(workspace)}) eller från en [mall]({_templates_url(workspace)}).")
        if _WHICH_DOCUMENTS.search(question):
            answer.text = "\n\n".join([answer.text, _suggested(workspace)])
        return answer

    mine = bool(_MINE.search(question))
    user_id = user.pk
    sections: list[Section] = []

    def mine_filter(qs: QuerySet, field_name: str) -> QuerySet:
        return qs.filter(**{field_name: user_id}) if mine else qs

    if _MISSING_EVIDENCE.search(question):
        reqs = list(mine_filter(requirement_list(workspace, missing_evidence=True), "owner_id")
                    .order_by("item__legal_document__sfs_number", "item_id", "position", "pk"))
        answer.item_ids |= {r.item_id for r in reqs}
        sections.append(_section(("Dina kravpunkter" if mine else "Kravpunkter") + " som kräver bevis men saknar bevis",
                                 reqs, lambda r: _requirement_line(workspace, r),
                                 "Alla kravpunkter som kräver bevis har minst ett bevis."))
    if _UNASSESSED.search(question):
        rows = list(mine_filter(items.filter(status=ComplianceStatus.NOT_ASSESSED), "responsible_id"))
        answer.item_ids |= {i.pk for i in rows}
        sections.append(_section("Poster som inte är bedömda", rows, lambda i: _item_line(workspace, i),
                                 "Alla poster på laglistan är bedömda."))
    if _CHANGED.search(question) or _UNASSESSED.search(question):
        rows = list(mine_filter(items.filter(needs_reassessment=True), "responsible_id"))
        if rows or _CHANGED.search(question):
            answer.item_ids |= {i.pk for i in rows}
            sections.append(_section("Ändrade författningar som behöver bedömas igen", rows,
                                     lambda i: _item_line(workspace, i),
                                     "Ingen post väntar på en ny bedömning efter en lagändring."))
    if _NON_COMPLIANT.search(question):
        rows = list(mine_filter(items.filter(status__in=[ComplianceStatus.NON_COMPLIANT, ComplianceStatus.PARTIAL]),
                                "responsible_id"))
        answer.item_ids |= {i.pk for i in rows}
        sections.append(_section("Poster som inte uppfylls eller bara uppfylls delvis", rows,
                                 lambda i: _item_line(workspace, i), "Inga poster har bedömts som bristfälliga."))
    if _REVIEW_DUE.search(question):
        rows = list(mine_filter(items.filter(next_review_date__lt=today), "responsible_id")
                    .order_by("next_review_date", "pk"))
        answer.item_ids |= {i.pk for i in rows}
        sections.append(_section("Poster vars nästa bedömning har passerat", rows,
                                 lambda i: _item_line(workspace, i,
                                                      detail=f"skulle bedömas {i.next_review_date.isoformat()}"),
                                 "Ingen bedömning är försenad."))
    if _ACTIONS.search(question):
        late = bool(_LATE.search(question))
        actions = action_list(workspace, state=Action.State.OPEN, owner_id=user_id if mine else None)
        if late:
            actions = actions.filter(due_date__lt=today)
        rows = list(actions.order_by("due_date", "pk"))
        answer.item_ids |= {a.item_id for a in rows if a.item_id}
        sections.append(_section("Försenade åtgärder" if late else "Öppna åtgärder", rows,
                                 lambda a: _action_line(workspace, a, today),
                                 "Inga åtgärder är försenade." if late else "Det finns inga öppna åtgärder."))
    named = documents_named(question)
    if named and not sections:
        # "Har vi bedömt arbetsmiljölagen?": the named documents' rows, or that they are not on the list.
        rows = list(items.filter(legal_document_id__in=named))
        answer.item_ids |= {i.pk for i in rows}
        listed = {i.legal_document_id for i in rows}
        missing = [d.title for d in LegalDocument.objects.filter(pk__in=[n for n in named if n not in listed])]
        section = _section("Det här säger er laglista om författningarna i frågan", rows,
                           lambda i: _item_line(workspace, i, detail=_next_review(i)),
                           "Ingen av dem finns på laglistan.")
        sections.append(section)
        if missing:
            sections.append(Section(heading="Finns inte på laglistan", total=len(missing),
                                    lines=[f"- {markdown_text(title)}" for title in missing[:MAX_ROWS]],
                                    empty_text=""))
    if mine and not sections:
        owned_items = list(items.filter(responsible_id=user_id))
        owned_reqs = list(requirement_list(workspace, owner_id=user_id).order_by("item_id", "position", "pk"))
        owned_actions = list(action_list(workspace, state=Action.State.OPEN, owner_id=user_id))
        answer.item_ids |= {i.pk for i in owned_items} | {r.item_id for r in owned_reqs} | {
            a.item_id for a in owned_actions if a.item_id}
        sections += [
            _section("Poster du är ansvarig för", owned_items, lambda i: _item_line(workspace, i),
                     "Du är inte ansvarig för någon post."),
            _section("Kravpunkter du är ansvarig för", owned_reqs, lambda r: _requirement_line(workspace, r),
                     "Du är inte ansvarig för någon kravpunkt."),
            _section("Dina öppna åtgärder", owned_actions, lambda a: _action_line(workspace, a, today),
                     "Du har inga öppna åtgärder."),
        ]
    if not sections and _WHICH_DOCUMENTS.search(question):
        rows = list(items.order_by("legal_document__sfs_number", "pk"))
        answer.item_ids |= {i.pk for i in rows}
        sections.append(_section("Författningarna på er laglista", rows, lambda i: _item_line(workspace, i),
                                 "Laglistan har inga poster."))
    if not sections:
        answer.text = _overview(workspace, user, today)
        return answer
    answer.sections = sections
    answer.text = "\n\n".join([*(_render(s) for s in sections), NOTE.format(name=markdown_text(workspace.name))])
    return answer


def _suggested(workspace: Workspace) -> str:
    """What the laglista's suggestions (the company profile's first, then the knowledge base's) propose, as the
    suggestions page lists them; or how to get suggestions at all."""
    suggestions = suggestion_list(workspace)
    if not suggestions:
        return (f"Fyll i [företagsprofilen]({reverse('workspace_settings', args=[workspace.slug])}) så föreslår "
                "Lagrum vilka författningar som gäller för er.")
    lines = [f"- {markdown_text(s.document.title)}" + (f": {markdown_text(s.reasons[0])}" if s.reasons else "")
             for s in suggestions[:MAX_ROWS]]
    more = [f"- … och {len(suggestions) - MAX_ROWS} till"] if len(suggestions) > MAX_ROWS else []
    return "\n".join([f"**Lagrum föreslår ({len(suggestions)}):** utifrån er företagsprofil och era dokument, tills "
                      f"någon har tagit ställning [bland förslagen]({_suggestions_url(workspace)}).", "",
                      *lines, *more])


def _next_review(item: RegisterItem) -> str:
    return f"nästa bedömning {item.next_review_date.isoformat()}" if item.next_review_date else ""


def _render(section: Section) -> str:
    if not section.total:
        return f"**{section.heading}:** {section.empty_text}"
    more = section.total - len(section.lines)
    tail = [f"- … och {more} till (se laglistan)"] if more > 0 else []
    return "\n".join([f"**{section.heading} ({section.total}):**", "", *section.lines, *tail])


def _overview(workspace: Workspace, user: AbstractBaseUser, today: date) -> str:
    summary = register_summary(workspace, user=user, today=today)
    labels = dict(ComplianceStatus.choices)
    counts = ", ".join(f"{labels[value]}: {count}" for value, count in summary.by_status.items() if count)
    lines = [
        f"**Er laglista ({summary.total} poster):** {counts}.",
        f"- Kravpunkter som saknar bevis: {summary.missing_evidence}",
        f"- Poster vars nästa bedömning har passerat: {summary.overdue_reviews}",
        f"- Ändrade författningar som behöver bedömas igen: {summary.needs_reassessment}",
        f"- Öppna åtgärder: {summary.open_actions}, varav försenade: {summary.overdue_actions}",
        f"- Kravpunkter du är ansvarig för: {summary.my_requirements}",
        "",
        "Fråga t.ex. vilka poster som inte är bedömda, vad som saknar bevis eller vilka krav du ansvarar för.",
        "",
        NOTE.format(name=markdown_text(workspace.name)),
    ]
    return "\n".join(lines)


def _suggestions_url(workspace: Workspace) -> str:
    return reverse("register_suggestions", args=[workspace.slug])


def _templates_url(workspace: Workspace) -> str:
    return reverse("register_templates", args=[workspace.slug])


def register_has_documents(workspace_ids: tuple[int, ...]) -> bool:
    """Whether any of these workspaces' registers holds a legal document (the context reserves room for it)."""
    # Asked on every turn, a cache hit included: in plain SQL, since building the ORM's EXISTS query took as
    # long as the indexed look-up itself (0.5 against 0.26 ms), as for compliance.selectors._member_role.
    with dict_cursor() as cursor:
        cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {RegisterItem._meta.db_table} "
                       "WHERE workspace_id = ANY(%s) AND legal_document_id IS NOT NULL) AS held", [list(workspace_ids)])
        return cursor.fetchone()["held"]
