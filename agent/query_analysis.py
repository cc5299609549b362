"""Turn a chat message (plus a little history) into search inputs.

`analyse_query` returns the text to search with, keywords, a cache key, the
legal references and SFS numbers, a date range, workspace mentions and two
flags:

* `is_follow_up`: the message leans on the conversation ("och för
  minderåriga?", "what about fines?"). Rule: there is history and the message
  starts with a follow-up opener, or it has at most `FOLLOW_UP_MAX_WORDS`
  words and names no statute or SFS number of its own. The search text is then
  the last (at most) two history messages followed by the message, and
  section references without a statute inherit the last statute named there.
* `fallback`: the message has no keywords (empty, only stop words, only
  emoji/punctuation). The search text is then the last history message if
  there is one, else the cleaned message itself (which may be "" when there is
  truly nothing); keywords come from that text.

`history` is the previous user messages, oldest first; each is capped at
`HISTORY_CHARS` characters so a long paste does not swamp the search text.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from django.conf import settings

from compliance.text import STOP_WORDS, one_line

from .legal_refs import LegalReference, StatuteDirectory, analyse_references, find_sfs_numbers, parse_references

__all__ = ["DateRange", "QueryAnalysis", "STOP_WORDS", "analyse_query", "extract_dates", "keywords"]

FOLLOW_UP_MAX_WORDS = 6
HISTORY_CHARS = 1000


_TOKEN_RE = re.compile(r"\d{4}:\d{1,4}|[^\W_]+(?:-[^\W_]+)*")
_FOLLOW_UP_RE = re.compile(
    r"^(?:och|men|samt|även|också|vad gäller|hur är det med|gäller det|gäller samma|än|"
    r"and|but|also|what about|how about|and what|same for)(?![\w])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DateRange:
    start: date
    end: date
    label: str = ""


@dataclass(frozen=True)
class QueryAnalysis:
    text: str
    keywords: list[str] = field(default_factory=list)
    topic_key: str = ""
    references: list[LegalReference] = field(default_factory=list)
    sfs_numbers: list[str] = field(default_factory=list)
    dates: DateRange | None = None
    workspace_mentions: list[str] = field(default_factory=list)
    is_follow_up: bool = False
    fallback: bool = False


def _clean(text: object, limit: int | None = None) -> str:
    if not isinstance(text, str):
        return ""
    return one_line(text[:limit or settings.CHAT_MESSAGE_MAX_CHARS])


def keywords(text: str) -> list[str]:
    """Lowercase content tokens in order, stop words removed, duplicates dropped.

    Numbers and SFS numbers ("1982:80") are kept: in this domain "7" next to
    a § is meaningful. Single letters (section suffixes) are dropped.
    """
    seen: dict[str, None] = {}
    for token in _TOKEN_RE.findall(text.lower()):
        if token in STOP_WORDS or (len(token) == 1 and not token.isdigit()):
            continue
        seen.setdefault(token, None)
    return list(seen)


# ------------------------------------------------------------------- dates

_MONTHS = {
    "januari": 1, "februari": 2, "mars": 3, "april": 4, "maj": 5, "juni": 6, "juli": 7, "augusti": 8,
    "september": 9, "oktober": 10, "november": 11, "december": 12,
    "january": 1, "february": 2, "march": 3, "may": 5, "june": 6, "july": 7, "august": 8, "october": 10,
}
_YEAR = r"(?:19|20)\d{2}"
_Y = rf"(?<![\d:/.\-])({_YEAR})(?![\d:/]|\s?kap|\s?§)"
_UNITS = {"dag": "day", "dagar": "day", "dagarna": "day", "days": "day", "day": "day",
          "vecka": "week", "veckor": "week", "veckorna": "week", "weeks": "week", "week": "week",
          "månad": "month", "månader": "month", "månaderna": "month", "months": "month", "month": "month",
          "år": "year", "åren": "year", "years": "year", "year": "year"}
_DATE_RE = re.compile(
    "|".join([
        rf"(?P<between>(?:mellan|between|från|from)\s+{_Y}\s+(?:och|and|till|to|-)\s+{_Y})",
        rf"(?P<yrange>{_Y}\s?[-–]\s?{_Y})",
        rf"(?P<since>(?:sedan|since|från och med|fr\.o\.m\.|efter|after|from)\s+{_Y})",
        rf"(?P<before>(?:före|innan|before|till och med|t\.o\.m\.|until)\s+{_Y})",
        rf"(?P<month>(?<![\w])(?P<mname>{'|'.join(_MONTHS)})\s+{_Y})",
        r"(?P<last_n>(?:senaste|de senaste|sista|last|past|the last|the past)\s+(?P<n>\d{1,3}|två|tre|fyra|fem|sex|two|three|four|five|six)\s+(?P<unit>"
        + "|".join(_UNITS) + r"))(?![\w])",
        r"(?<![\w])(?P<lastweek>förra veckan|förra veckans|last week)(?![\w])",
        r"(?<![\w])(?P<thisweek>denna vecka|den här veckan|i veckan|this week)(?![\w])",
        r"(?<![\w])(?P<lastmonth>förra månaden|förra månadens|last month)(?![\w])",
        r"(?<![\w])(?P<thismonth>denna månad|den här månaden|i månaden|this month)(?![\w])",
        r"(?<![\w])(?P<lastyear>i fjol|ifjol|förra året|förra årets|last year)(?![\w])",
        r"(?<![\w])(?P<thisyear>i år|detta år|det här året|årets|this year)(?![\w])",
        r"(?<![\w])(?P<yesterday>i går|igår|yesterday)(?![\w])",
        r"(?<![\w])(?P<today>i dag|idag|today)(?![\w])",
        rf"(?P<year>(?<![\w]){_Y})",
    ]),
    re.IGNORECASE,
)
_CASE_LAW_PREFIX_RE = re.compile(r"(?<![\w])[A-ZÅÄÖ]{2,5}\s$")
_NUMBER_WORDS = {"två": 2, "tre": 3, "fyra": 4, "fem": 5, "sex": 6, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def _year(y: str) -> DateRange:
    return DateRange(date(int(y), 1, 1), date(int(y), 12, 31))


def _month_range(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _last_n(n: int, unit: str, today: date) -> date:
    if unit == "day":
        return today - timedelta(days=n)
    if unit == "week":
        return today - timedelta(weeks=n)
    if unit == "month":
        total = today.year * 12 + today.month - 1 - n
        year, month = divmod(total, 12)
        return date(year, month + 1, min(today.day, calendar.monthrange(year, month + 1)[1]))
    try:
        return today.replace(year=today.year - n)
    except ValueError:  # 29 February
        return today.replace(year=today.year - n, day=28)


def _match_range(m: re.Match[str], today: date) -> DateRange | None:
    kind = m.lastgroup
    groups = [g for g in m.groups() if g and re.fullmatch(_YEAR, g)]
    monday = today - timedelta(days=today.weekday())
    if kind in ("between", "yrange") and len(groups) >= 2:
        a, b = sorted(int(g) for g in groups[:2])
        return DateRange(date(a, 1, 1), date(b, 12, 31))
    if kind == "since" and groups:
        return DateRange(date(int(groups[0]), 1, 1), today)
    if kind == "before" and groups:
        return DateRange(date.min, date(int(groups[0]) - 1, 12, 31))
    if kind == "month" and groups:
        return DateRange(*_month_range(int(groups[0]), _MONTHS[m.group("mname").lower()]))
    if kind == "last_n":
        raw_n = m.group("n").lower()
        n = _NUMBER_WORDS.get(raw_n) or int(raw_n)
        return DateRange(_last_n(n, _UNITS[m.group("unit").lower()], today), today)
    if kind == "lastweek":
        return DateRange(monday - timedelta(days=7), monday - timedelta(days=1))
    if kind == "thisweek":
        return DateRange(monday, monday + timedelta(days=6))
    if kind == "lastmonth":
        prev = today.replace(day=1) - timedelta(days=1)
        return DateRange(*_month_range(prev.year, prev.month))
    if kind == "thismonth":
        return DateRange(*_month_range(today.year, today.month))
    if kind == "lastyear":
        return _year(str(today.year - 1))
    if kind == "thisyear":
        return _year(str(today.year))
    if kind == "yesterday":
        return DateRange(today - timedelta(days=1), today - timedelta(days=1))
    if kind == "today":
        return DateRange(today, today)
    if kind == "year" and groups:
        return _year(groups[0])
    return None


def extract_dates(text: str, today: date) -> DateRange | None:
    """Union of all date expressions in `text`, relative to `today`.

    "i år"/"this year" and a bare year mean the whole calendar year; "sedan
    2020" runs to `today`; "före 2020" starts at `date.min`.
    """
    found: list[DateRange] = []
    labels: list[str] = []
    for m in _DATE_RE.finditer(text):
        if m.lastgroup == "year" and _CASE_LAW_PREFIX_RE.search(text, max(0, m.start() - 8), m.start()):
            continue  # "NJA 2005 s. 1", "AD 2005 nr 1" cite cases, not a period
        try:
            rng = _match_range(m, today)
        except (ValueError, OverflowError):
            rng = None
        if rng is not None:
            found.append(rng)
            labels.append(m.group().strip())
    if not found:
        return None
    return DateRange(min(r.start for r in found), max(r.end for r in found), ", ".join(labels))


# ------------------------------------------------------------ workspaces

# Genitive and definite endings on the name's last word: "Dotterbolagets", "Kund X:s", "Filialen".
_INFLECTION = r"(?:s|:s|'s|’s|en|et|n|ens|ets|ns)?"
# Company-form words a user often leaves out: "Dotterbolaget AB" is also "Dotterbolaget".
_LEGAL_FORMS = frozenset({"ab", "(publ)", "publ", "hb", "kb", "aktiebolag", "aktiebolaget", "handelsbolag",
                          "kommanditbolag", "ek.", "för.", "ltd", "ltd.", "inc", "inc.", "llc", "gmbh", "oy", "asa"})
_SENTENCE_START_RE = re.compile(r"(?:^|[.!?:;]\s*|\n\s*)$")
MIN_SINGLE_WORD = 3


def _name_variants(name: str) -> list[list[str]]:
    """The full name's words, and the same without trailing company-form words."""
    words = name.split()
    variants = [words]
    core = list(words)
    while len(core) > 1 and core[-1].lower() in _LEGAL_FORMS:
        core.pop()
    if core != words:
        variants.append(core)
    return variants


def _variant_match(text: str, words: list[str], ordinary: Collection[str]) -> re.Match[str] | None:
    """Where the words occur as a name. Several words are a name wherever they occur; a single
    word only if it is distinctive (not a stop word nor a word the statutes use), or, if it is
    an ordinary word, written with a capital letter away from the start of a sentence."""
    pattern = r"\s+".join(map(re.escape, words))
    regex = re.compile(rf"(?<![\w]){pattern}{_INFLECTION}(?![\w])", re.IGNORECASE)
    if len(words) > 1:
        return regex.search(text)
    word = words[0].lower()
    if len(word) < MIN_SINGLE_WORD or word in STOP_WORDS:
        return None
    distinctive = word not in ordinary
    for m in regex.finditer(text):
        if distinctive or (m.group()[0].isupper() and not _SENTENCE_START_RE.search(text[:m.start()])):
            return m
    return None


def _workspace_mentions(text: str, names: Sequence[str], ordinary: Collection[str] = ()) -> list[str]:
    """The names (from `names`, the user's other workspaces) the text mentions, in order of mention.

    `ordinary` holds lower-cased single words that are ordinary vocabulary (the caller looks
    up the statutes' words), so a workspace called "Lager" does not fire on "lager".
    """
    hits: list[tuple[int, str]] = []
    for name in names:
        if not isinstance(name, str) or not name.strip():
            continue
        for words in _name_variants(name.strip()):
            m = _variant_match(text, words, ordinary)
            if m:
                hits.append((m.start(), name))
                break
    hits.sort()
    return list(dict.fromkeys(name for _, name in hits))


def single_word_names(names: Sequence[str]) -> list[str]:
    """The lower-cased single words among the names' variants: what `ordinary` must decide."""
    return sorted({variant[0].lower() for name in names if isinstance(name, str)
                   for variant in _name_variants(name.strip()) if len(variant) == 1})


# --------------------------------------------------------------- analysis


def _has_own_statute(refs: list[LegalReference]) -> bool:
    return any(r.statute_name or r.sfs for r in refs if not r.anaphoric)


def _inherit_statute(refs: list[LegalReference], own_start: int) -> list[LegalReference]:
    """In a follow-up, "och 7 §?" points to the statute named earlier."""
    out: list[LegalReference] = []
    last: LegalReference | None = None
    for ref in refs:
        if ref.statute_name or ref.sfs:
            last = ref
        elif last is not None and ref.span[0] >= own_start and (ref.section or ref.chapter):
            ref = replace(ref, sfs=last.sfs, statute_name=last.statute_name, anaphoric=True)
        out.append(ref)
    return out


def analyse_query(
    message: str,
    history: Sequence[str] = (),
    *,
    directory: StatuteDirectory | None = None,
    workspace_names: Sequence[str] = (),
    ordinary_words: Collection[str] = (),
    today: date | None = None,
) -> QueryAnalysis:
    """Analyse one user message; never raises on odd input."""
    today = today or date.today()
    own = _clean(message)
    past = [h for h in (_clean(x, HISTORY_CHARS) for x in (history or ())) if h][-2:]
    own_keywords = keywords(own)

    def refs_of(text: str) -> list[LegalReference]:
        return analyse_references(text, directory) if directory is not None else parse_references(text)

    own_refs = refs_of(own)
    fallback = not own_keywords
    if fallback:
        text = past[-1] if past else own
        is_follow_up = bool(past)
        refs = refs_of(text)
    else:
        opener = bool(_FOLLOW_UP_RE.match(own))
        short = len(own.split()) <= FOLLOW_UP_MAX_WORDS and not _has_own_statute(own_refs) and not find_sfs_numbers(own)
        is_follow_up = bool(past) and (opener or short)
        if is_follow_up:
            prefix = " ".join(past)
            text = f"{prefix} {own}"
            refs = _inherit_statute(refs_of(text), len(prefix) + 1)
        else:
            text = own
            refs = own_refs

    kw = keywords(text)
    if is_follow_up and not fallback:
        # The new message's words first: they carry the new focus.
        kw = list(dict.fromkeys([*own_keywords, *kw]))
    sfs_numbers = list(dict.fromkeys([*find_sfs_numbers(text), *(r.sfs for r in refs if r.sfs)]))
    dates = extract_dates(own, today) or (extract_dates(" ".join(past), today) if is_follow_up else None)
    return QueryAnalysis(
        text=text,
        keywords=kw,
        topic_key=" ".join(sorted(set(kw))),
        references=refs,
        sfs_numbers=sfs_numbers,
        dates=dates,
        workspace_mentions=_workspace_mentions(own, workspace_names, ordinary_words),
        is_follow_up=is_follow_up,
        fallback=fallback,
    )
