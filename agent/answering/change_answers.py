"""Questions about the workspace's own law changes ("Vilka ändringar har vi inte bedömt?", "Vad har ändrats i
lagar som berör oss i år?") answered from its change notices (register.notices), with or without a model:
the notices are the facts, listed with their acts, dates, the §§ touching the kravpunkter and a link to each.

Wired in agent.answering.chat.stream_answer before retrieval: a question this module recognises is answered
here directly (answer mode "direct", no sources); every other question goes on as before.
"""

from __future__ import annotations

import re
from datetime import date

from django.urls import reverse

from agent.retrieval.query_analysis import DateRange, extract_dates
from compliance.clock import swedish_date
from compliance.models import Workspace
from register.models import ChangeNotice
from register.notices.selectors import notice_list
from register.notices.wording import notice_line

# A question about changes ("ändringar", "ändrats", "lagändringar", "nya lagar") ...
_CHANGE_RE = re.compile(r"\b(?:lag)?ändr(?:ing(?:ar(?:na)?|en)?|ats|ade|ad|at)\b|\bnya\s+(?:lagar|författningar)\b",
                        re.IGNORECASE)
# ... asked about the organisation itself ("vi", "oss", "vår", "berör", "har vi bedömt") ...
_OWN_RE = re.compile(r"\b(?:vi|oss|vår|vårt|våra|berör|bedömt|bedömda|laglista(?:n)?)\b", re.IGNORECASE)
# ... and not about one named statute or § (retrieval answers those from the text).
_NAMED_RE = re.compile(r"§|\b\d{4}:\d{1,4}\b|\bkap\b", re.IGNORECASE)
_UNASSESSED_RE = re.compile(r"\binte\s+(?:har\s+)?bedömt|\bobesvarade|\bej\s+bedömda|\binte\s+bedömda|\bkvar\s+att\s+bedöma",
                            re.IGNORECASE)
MAX_LISTED = 20
# "sedan i våras", "i höstas": the last such season before today (query_analysis reads months and years).
_SEASON_RE = re.compile(r"\b(sedan\s+)?i\s+(våras|somras|höstas|vintras)\b", re.IGNORECASE)
_SEASON_START = {"våras": (3, 1), "somras": (6, 1), "höstas": (9, 1), "vintras": (12, 1)}
_SEASON_END = {"våras": (5, 31), "somras": (8, 31), "höstas": (11, 30), "vintras": (2, 28)}


def is_change_question(question: str) -> bool:
    return bool(_CHANGE_RE.search(question) and _OWN_RE.search(question) and not _NAMED_RE.search(question))


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


def change_answer(question: str, workspace: Workspace, *, today: date) -> str | None:
    """The answer to a question about the workspace's law changes, or None when it is not one."""
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
    period = _season(question, today) or extract_dates(question, today)
    notices = list(notice_list(workspace, None))  # answered or not: the same for everyone
    if period is not None:
        # In force in the period, or learnt of in it (an amendment in force in January, imported in May).
        notices = [n for n in notices if any(period.start <= day <= period.end for day in _days(n))]
    since = f" {period.start.isoformat()}–{period.end.isoformat()}" if period is not None else ""
    if not notices:
        return (f"Inga ändringar i författningarna på er laglista har noterats{since}. "
                f"Se [Lagändringar]({list_url}).")
    lines = [_line(n, workspace) for n in notices[:MAX_LISTED]]
    more = f"\n\n… och {len(notices) - MAX_LISTED} till." if len(notices) > MAX_LISTED else ""
    return "\n".join([f"Ändringar som berör er laglista{since}:", *lines]) + more + \
        f"\n\nAlla under [Lagändringar]({list_url})."


def _days(notice: ChangeNotice) -> list[date]:
    """The days a change counts on: when it entered (or enters) into force, and when it was noticed."""
    days = [swedish_date(notice.created_at)]
    if notice.version_id and notice.version.valid_from:
        days.append(notice.version.valid_from)
    if notice.repeal_id and notice.repeal.repealed_on:
        days.append(notice.repeal.repealed_on)
    return days
