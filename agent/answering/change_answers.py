"""Questions about the workspace's own law changes ("Vilka ändringar har vi inte bedömt?", "Vad har ändrats i
lagar som berör oss i år?") answered from its change notices (register.notices), with or without a model:
the notices are the facts, listed with their acts, dates, the §§ touching the kravpunkter and a link to each.
Questions about what is still to come ("Vad träder i kraft framöver som berör oss?") are answered from Träder i
kraft framöver (`coming_into_force`), in the words of the Lagändringar page.

Wired in agent.answering.chat.stream_answer before retrieval: a question this module recognises is answered
here directly (answer mode "direct", no sources); every other question goes on as before.
"""

from __future__ import annotations

import re
from datetime import date

from django.template.loader import render_to_string
from django.urls import reverse

from agent.retrieval.query_analysis import DateRange, extract_dates
from compliance.clock import swedish_date
from compliance.models import Workspace
from register.models import ChangeNotice
from register.notices.selectors import coming_into_force, notice_list
from register.notices.wording import notice_line

# A question about changes ("ändringar", "ändrats", "lagändringar", "nya lagar") ...
_CHANGE_RE = re.compile(r"\b(?:lag)?ändr(?:ing(?:ar(?:na)?|en)?|ats|ade|ad|at)\b|\bnya\s+(?:lagar|författningar)\b",
                        re.IGNORECASE)
# ... asked about the organisation itself ("vi", "oss", "vår", "berör", "har vi bedömt") ...
_OWN_RE = re.compile(r"\b(?:vi|oss|vår|vårt|våra|berör|bedömt|bedömda|laglista(?:n)?)\b", re.IGNORECASE)
# ... or about the law at large ("Vilka lagar har ändrats i år?", "Har några nya författningar kommit?"), which a team
# follows through its laglista: the same notices answer it, and the answer says whose they are. An adjective
# ("Vad säger lagarna om ändrad arbetstid?") does not make such a question ...
_BOOK_RE = re.compile(r"\b(?:lagar(?:na)?|författningar(?:na)?)\b", re.IGNORECASE)
_BOOK_CHANGE_RE = re.compile(r"\b(?:lag)?ändr(?:ats|ades|ingar(?:na)?)\b|\bnya\s+(?:lagar|författningar)\b",
                             re.IGNORECASE)
# ... and not about one named statute or § (agent.answering.statute_change_answers answers those).
_NAMED_RE = re.compile(r"§|\b\d{4}:\d{1,4}\b|\bkap\b", re.IGNORECASE)
_UNASSESSED_RE = re.compile(r"\binte\s+(?:har\s+)?bedömt|\bobesvarade|\bej\s+bedömda|\binte\s+bedömda|\bkvar\s+att\s+bedöma",
                            re.IGNORECASE)
MAX_LISTED = 20
# "sedan i våras", "i höstas": the last such season before today (query_analysis reads months and years).
_SEASON_RE = re.compile(r"\b(sedan\s+)?i\s+(våras|somras|höstas|vintras)\b", re.IGNORECASE)
_SEASON_START = {"våras": (3, 1), "somras": (6, 1), "höstas": (9, 1), "vintras": (12, 1)}
_SEASON_END = {"våras": (5, 31), "somras": (8, 31), "höstas": (11, 30), "vintras": (2, 28)}


# ... or about what is still to come: a change or an entry into force ("träder i kraft", "börjar gälla", "upphör att
# gälla") asked of the time ahead ("framöver", "kommande", "snart", "nästa år"). A question about one subject's
# coming rules without those words ("När träder de nya reglerna om visselblåsning i kraft?") goes to retrieval.
_IN_FORCE_RE = re.compile(r"\bträder\s+i\s+kraft\b|\bbörjar\s+gälla\b|\bupphör\s+att\s+gälla\b", re.IGNORECASE)
_AHEAD_RE = re.compile(r"\b(?:kommande|framöver|framtida|snart|närmaste|nästa)\b", re.IGNORECASE)
_NEXT_YEAR_RE = re.compile(r"\bnästa\s+år\b", re.IGNORECASE)


def _ahead_period(question: str, today: date) -> DateRange | None:
    """The period a question about what is to come names: "nästa år", or a period query_analysis reads."""
    if _NEXT_YEAR_RE.search(question):
        return DateRange(start=date(today.year + 1, 1, 1), end=date(today.year + 1, 12, 31), label="nästa år")
    return extract_dates(question, today)


def is_coming_question(question: str, today: date) -> bool:
    """A question about what enters into force in the organisation's own law: asked of the time ahead (a word for
    it, or a period after `today`), of a change or an entry into force, naming no §."""
    if not _OWN_RE.search(question) or _NAMED_RE.search(question):
        return False
    period = _ahead_period(question, today)
    if not (_AHEAD_RE.search(question) or (period is not None and period.start > today)):
        return False
    return bool(_IN_FORCE_RE.search(question) or _CHANGE_RE.search(question))


def is_change_question(question: str) -> bool:
    return bool(not _NAMED_RE.search(question)
                and ((_CHANGE_RE.search(question) and _OWN_RE.search(question)) or _is_book_question(question)))


def _is_book_question(question: str) -> bool:
    return bool(_BOOK_CHANGE_RE.search(question) and _BOOK_RE.search(question) and not _OWN_RE.search(question))


def _line(notice: ChangeNotice, workspace: Workspace) -> str:
    state = (f"bedömd: påverkar oss {notice.impact.get_affects_us_display()}" if notice.is_answered
             else "inte bedömd")
    url = reverse("notice_detail", args=[workspace.slug, notice.pk])
    return f"- {notice.legal_document.title}: {notice_line(notice)} ({state}). [Öppna]({url})"


def _season(question: str, today: date) -> DateRange | None:
    match = _SEASON_RE.search(question)
    if match is None:
        return None
    season = match.group(2).lower()
    month, day = _SEASON_START[season]
    start = date(today.year, month, day)
    if start > today:
        start = date(today.year - 1, month, day)
    if match.group(1):  # "sedan i våras": from then until today
        return DateRange(start=start, end=today, label=match.group(0))
    end_month, end_day = _SEASON_END[season]
    end = date(start.year + (1 if end_month < month else 0), end_month, end_day)
    return DateRange(start=start, end=min(end, today), label=match.group(0))


def asked_period(question: str, today: date) -> DateRange | None:
    """The period a question about changes asks of: a season ("sedan i våras") or what query_analysis reads."""
    return _season(question, today) or extract_dates(question, today)


def coming_answer(question: str, workspace: Workspace, *, today: date) -> str:
    """What enters into force after `today` in the documents of the workspace's laglista (within the period the
    question names, if it names one), soonest first, each line as the Lagändringar page writes it."""
    list_url = reverse("notice_list", args=[workspace.slug]) + "#framover"
    period = _ahead_period(question, today)
    coming = [c for c in coming_into_force(workspace, today=today)
              if period is None or period.start <= c.in_force <= period.end]
    within = f" {period.start.isoformat()}–{period.end.isoformat()}" if period is not None else ""
    if not coming:
        return (f"Inget i författningarna på er laglista träder i kraft{within or ' efter i dag'}, enligt de versioner "
                f"som har lästs in från rättsdatabaserna. Se [Lagändringar]({list_url}).")
    lines = []
    for change in coming[:MAX_LISTED]:
        what = render_to_string("register/notices/_coming_change.txt", {"change": change}).strip()
        lines.append(f"- {change.in_force.isoformat()} {change.document.title}: {what}. "
                     f"[Öppna]({change.path(workspace.slug)})")
    more = f"\n\n… och {len(coming) - MAX_LISTED} till." if len(coming) > MAX_LISTED else ""
    return "\n".join([f"Det här träder i kraft{within or ' framöver'} i författningarna på er laglista, enligt de "
                      "versioner som har lästs in från rättsdatabaserna:", *lines]) + more + \
        f"\n\nAlla under [Lagändringar]({list_url})."


def change_answer(question: str, workspace: Workspace, *, today: date) -> str | None:
    """The answer to a question about the workspace's law changes, or None when it is not one."""
    if is_coming_question(question, today):
        return coming_answer(question, workspace, today=today)
    if not is_change_question(question):
        return None
    list_url = reverse("notice_list", args=[workspace.slug])
    if _UNASSESSED_RE.search(question):
        notices = list(notice_list(workspace, None, state="obesvarade")[: MAX_LISTED + 1])
        if not notices:
            return f"Alla lagändringar som berör er är bedömda. Se [Lagändringar]({list_url})."
        head = f"Ni har {len(notices) if len(notices) <= MAX_LISTED else 'fler än ' + str(MAX_LISTED)} " \
               f"lagändring{'ar' if len(notices) != 1 else ''} som inte är bedömd{'a' if len(notices) != 1 else ''}:"
        return "\n".join([head, *(_line(n, workspace) for n in notices[:MAX_LISTED]),
                          "", f"Bedöm dem under [Lagändringar]({list_url}?status=obesvarade)."])
    # Asked of the law at large, the answer says that it is the laglista's documents that are followed.
    whose = "Lagrum bevakar ändringarna i författningarna på er laglista. " if _is_book_question(question) else ""
    period = asked_period(question, today)
    notices = list(notice_list(workspace, None))  # answered or not: the same for everyone
    if period is not None:
        # In force in the period, or learnt of in it (an amendment in force in January, imported in May).
        notices = [n for n in notices if any(period.start <= day <= period.end for day in _days(n))]
    since = f" {period.start.isoformat()}–{period.end.isoformat()}" if period is not None else ""
    if not notices:
        return (f"{whose}Inga ändringar i författningarna på er laglista har noterats{since}. "
                f"Se [Lagändringar]({list_url}).")
    lines = [_line(n, workspace) for n in notices[:MAX_LISTED]]
    more = f"\n\n… och {len(notices) - MAX_LISTED} till." if len(notices) > MAX_LISTED else ""
    return "\n".join([f"{whose}Ändringar som berör er laglista{since}:", *lines]) + more + \
        f"\n\nAlla under [Lagändringar]({list_url})."


def _days(notice: ChangeNotice) -> list[date]:
    """The days a change counts on: when it entered (or enters) into force, and when it was noticed."""
    days = [swedish_date(notice.created_at)]
    if notice.version_id and notice.version.valid_from:
        days.append(notice.version.valid_from)
    if notice.repeal_id and notice.repeal.repealed_on:
        days.append(notice.repeal.repealed_on)
    return days
