"""Questions about what changed in a statute the question names ("Vad har ändrats i arbetsmiljölagen?", "Har LAS
ändrats i år?", "När ändrades 7 § LAS?", "Vilka ändringar i skatteförfarandelagen gäller från 2026?"), answered
from the changes the knowledge base has read: the amending acts, their days and the units each changed, as the
statute's page lists them under "Ändringar" (law.selectors.statute_amendments_get). With or without a model.

Retrieval answers from a statute's text, which says what a rule is, not what changed in it: asked what changed, it
quoted the sections closest to the question's words, old transitional provisions among them, even for a statute
whose amendments the knowledge base holds. The stored changes say which acts changed which units, and when.

Wired in agent.answering.chat.stream_answer before retrieval and before the laglista's change questions
(agent.answering.change_answers), which name no statute.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from agent.retrieval.query_analysis import DateRange, opens_follow_up
from compliance.anchors import statute_url
from compliance.models import LegalDocument
from compliance.statute_source import statute_source
from compliance.text import markdown_text, swedish_list
from law.legal_refs import LegalReference, analyse_references, unit_citations
from law.models import StatuteChange, StatuteVersion
from law.selectors import AmendingAct, StatuteAmendments, statute_amendments_get, statute_records_through
from law.statute_directory import statute_directory

from .change_answers import asked_period

# A change word ("ändrats", "ändringarna", "nytt") is about the named statute when only such words stand between
# them: "Vad har ändrats i LAS?", "Har LAS ändrats?", "ändringarna i skatteförfarandelagen", "När ändrades 7 § LAS?".
# A word of content between them makes it a question about the statute's subject instead: "Vad säger LAS om ändrad
# arbetstid?", "Vad gäller enligt arbetstidslagen om schemat ändrats?".
_CHANGE_WORD_RE = re.compile(r"^(?:lag)?ändr(?:ats|ades|ad|at|ing|ingar|ingarna|ingen)$|^nytt$|^nyheter(?:na)?$",
                             re.IGNORECASE)
_BETWEEN = frozenset({"i", "av", "till", "har", "hade", "det", "den", "något", "några", "någon", "nyligen", "senast",
                      "skett", "gjorts", "gjort", "blivit", "varit", "är", "var", "sig"})
# "träder i kraft", "börjar gälla": the verb is a change word in a question that has the whole phrase
# ("Vad i skatteförfarandelagen träder i kraft nästa år?").
_IN_FORCE_RE = re.compile(r"\b(?:träder|trädde)\s+i\s+kraft\b|\b(?:börjar|började)\s+gälla\b", re.IGNORECASE)
_IN_FORCE_VERBS = frozenset({"träder", "trädde", "börjar", "började"})
_WORD_RE = re.compile(r"[^\W\d_]+")
MAX_STATUTES = 3
MAX_ACTS = 8
MAX_UNITS = 12
# What the documents whose amendments no loader reads (law.selectors.AMENDMENTS_NOT_READ) are called.
_NOT_READ_KINDS = {LegalDocument.ContentType.AGENCY_REGULATION: "myndigheters föreskrifter",
                   LegalDocument.ContentType.EU_REGULATION: "EU-förordningar"}


@dataclass(frozen=True)
class AskedStatute:
    """A statute a change question names, and the units of it the question cites (none: the whole statute)."""

    sfs_number: str
    citations: tuple[str, ...] = ()


def statutes_asked_about(question: str) -> list[AskedStatute]:
    """The statutes the knowledge base holds whose changes `question` asks about, in the order it names them;
    [] when it is no such question."""
    refs = _held_references(question)
    about = {ref.sfs for ref in refs if _next_to_change_word(question, ref)}
    # A chain cites the statute once and its units one by one ("7 § och 8 § LAS"): every unit the question cites of
    # an asked statute belongs to the question, next to the change word or not.
    return _asked([ref for ref in refs if ref.sfs in about])


def statutes_followed_up(question: str, previous: str) -> list[AskedStatute]:
    """The statutes a follow-up ("Och i LAS?", "Men 7 § LAS?") names after a question about what changed in another:
    its changes are what it asks about too."""
    if not previous or not opens_follow_up(question) or not statutes_asked_about(previous):
        return []
    return _asked(_held_references(question))


def _held_references(question: str) -> list[LegalReference]:
    directory = statute_directory()
    return [ref for ref in analyse_references(question, directory) if ref.sfs and ref.sfs in directory]


def _asked(refs: list[LegalReference]) -> list[AskedStatute]:
    asked: dict[str, list[str]] = {}
    for ref in refs:
        citations = asked.setdefault(ref.sfs, [])
        citations.extend(c for c in unit_citations(ref)[:1] if c not in citations)
    return [AskedStatute(sfs, tuple(citations)) for sfs, citations in list(asked.items())[:MAX_STATUTES]]


def _next_to_change_word(question: str, ref: LegalReference) -> bool:
    before = _WORD_RE.findall(question[:ref.span[0]])
    after = _WORD_RE.findall(question[ref.span[1]:])
    verbs = _IN_FORCE_VERBS if _IN_FORCE_RE.search(question) else frozenset()
    return _reaches_change_word(reversed(before), verbs) or _reaches_change_word(after, verbs)


def _reaches_change_word(words: Iterable[str], verbs: frozenset[str]) -> bool:
    for word in words:
        if _CHANGE_WORD_RE.match(word) or word.lower() in verbs:
            return True
        if word.lower() not in _BETWEEN:
            return False
    return False


def statute_change_answer(question: str, *, today: date, previous: str = "") -> str | None:
    """The answer to a question about what changed in the statutes it names (or, a follow-up of such a question,
    `previous`, names), or None when it is not one."""
    asked = statutes_asked_about(question)
    followed = [] if asked else statutes_followed_up(question, previous)
    if not asked and not followed:
        return None
    period = asked_period(question, today) or (asked_period(previous, today) if followed else None)
    asked = asked or followed
    docs = {doc.sfs_number: doc for doc in LegalDocument.objects.defer(*LegalDocument.TEXT_FIELDS)
            .filter(sfs_number__in=[statute.sfs_number for statute in asked])}
    read = [(statute_amendments_get(docs[statute.sfs_number]), statute.citations)
            for statute in asked if statute.sfs_number in docs]
    if not read:
        return None
    parts = [_statute_part(amendments, citations, period, today) for amendments, citations in read]
    # How far the official records are read says something only of the documents whose changes they bring.
    return "\n\n".join([*parts, _provenance()] if any(amendments.read for amendments, _ in read) else parts)


def _provenance() -> str:
    through = statute_records_through()
    read = (f"Regeringskansliets rättsdatabaser är inlästa t.o.m. {through.isoformat()}" if through is not None
            else "Kunskapsbasen har författningarna som de löd våren 2024; inga senare uppgifter från "
                 "rättsdatabaserna är inlästa")
    return f"_{read}. Det är författningstexten som gäller._"


def _statute_part(history: StatuteAmendments, citations: tuple[str, ...], period: DateRange | None,
                  today: date) -> str:
    doc = history.document
    page = statute_url(doc.sfs_number) + "#andringar"
    current = history.current
    through = history.amended_through
    version = f"lydelsen med ändringar t.o.m. {through}" if through else "den lydelse som har lästs in"
    # Markdown: the title, the repeal and the lead are paragraphs of their own, and the link follows the list.
    lines = [f"**{markdown_text(doc.title)}**", ""]
    if history.repeal is not None:
        on = f", den {history.repeal.repealed_on.isoformat()}" if history.repeal.repealed_on else ""
        lines.extend([f"Upphävd genom {history.repeal.repealed_by or 'en författning'}{on}.", ""])
    acts = [_act_units(act, citations) for act in history.acts]
    acts = [act for act in acts if act.changes]
    within = [act for act in acts if period is None or _in_period(act, current, period)]
    what = swedish_list(list(citations)) if citations else ""
    if not acts:
        if not history.read:
            # "No change" would claim what nobody checked.
            source = statute_source(doc)
            origin = (f" från [källan]({source.url})" if source and source.url
                      else f" från {source.label}" if source else "")
            kind = _NOT_READ_KINDS.get(doc.content_type, "den")
            lines.append(f"Kunskapsbasen läser inte in ändringar av {kind}: den har "
                         f"texten{origin} som den var när den lästes in. "
                         f"Kontrollera den gällande lydelsen hos utfärdaren. "
                         f"[Öppna författningen]({statute_url(doc.sfs_number)})")
            return "\n".join(lines)
        lines.append(f"Kunskapsbasen har ingen ändring av {what or 'författningen'} efter {version}. "
                     f"[Öppna författningen]({statute_url(doc.sfs_number)})")
        return "\n".join(lines)
    if not within and period is not None:
        latest = acts[0]
        lines.append(f"Ingen ändring{' av ' + what if what else ''} har trätt i kraft {period.label} "
                     f"({_span(period)}). Senast: {_act_text(latest, today)}")
        lines.extend(["", f"[Alla ändringar]({page})"])
        return "\n".join(lines)
    head = (f"Ändringar{' av ' + what if what else ''}"
            f"{f' i kraft {period.label} ({_span(period)})' if period else ''}"
            f" som den gällande lydelsen har{f' (ändringar t.o.m. {through})' if through else ''}:")
    lines.append(head)
    lines.extend(f"- {_act_text(act, today)}" for act in within[:MAX_ACTS])
    if len(within) > MAX_ACTS:
        lines.append(f"- … och {len(within) - MAX_ACTS} författningar till.")
    lines.extend(["", f"[Alla ändringar, ord för ord]({page})"])
    return "\n".join(lines)


def _act_units(act: AmendingAct, citations: tuple[str, ...]) -> AmendingAct:
    """The act with only the changes of the cited units (all of them when the question cites none)."""
    if not citations:
        return act
    wanted = set(citations)
    return AmendingAct(act.amending_sfs, act.in_force,
                       [change for change in act.changes if change.citation in wanted or change.old_citation in wanted])


def _in_period(act: AmendingAct, current: StatuteVersion | None, period: DateRange) -> bool:
    # An act whose day the text does not give came with the version: the version's first day is its day.
    day = act.in_force or (current.valid_from if current is not None else None)
    return day is not None and period.start <= day <= period.end


def _span(period: DateRange) -> str:
    return f"{period.start.isoformat()}–{period.end.isoformat()}"


def _act_text(act: AmendingAct, today: date) -> str:
    """One act as a line says it: "SFS 2025:1077, i kraft 2026-01-01: 7 ändringar (1 kap. 5 § ändrad, …)."."""
    name = f"SFS {act.amending_sfs}" if act.amending_sfs else "En ändring utan angiven ändringsförfattning"
    when = ""
    if act.in_force is not None:
        when = f", träder i kraft {act.in_force.isoformat()}" if act.in_force > today else \
            f", i kraft {act.in_force.isoformat()}"
    units = [_unit(change) for change in act.changes[:MAX_UNITS]]
    more = f" och {len(act.changes) - MAX_UNITS} till" if len(act.changes) > MAX_UNITS else ""
    count = f"{len(act.changes)} ändring{'ar' if len(act.changes) != 1 else ''}"
    return f"{name}{when}: {count} ({', '.join(units)}{more})."


def _unit(change: StatuteChange) -> str:
    if change.kind == StatuteChange.Kind.RENUMBERED and change.old_citation:
        return f"{change.old_citation} → {change.citation}"
    return f"{change.citation} {change.get_kind_display()}"
