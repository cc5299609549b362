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
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from django.conf import settings

from compliance.clock import swedish_today
from compliance.text import STOP_WORDS, one_line
from law.legal_refs import LegalReference, StatuteDirectory, analyse_references, find_sfs_numbers, parse_references

from .spelling import MarkedWords, restore_marks

__all__ = ["DateRange", "QueryAnalysis", "STOP_WORDS", "analyse_query", "extract_dates", "in_force_on", "keywords",
           "opens_follow_up"]

FOLLOW_UP_MAX_WORDS = 6
HISTORY_CHARS = 1000


_TOKEN_RE = re.compile(r"\d{4}:\d{1,4}|[^\W_]+(?:-[^\W_]+)*")
_FOLLOW_UP_RE = re.compile(
    r"^(?:och|men|samt|även|också|vad gäller|hur är det med|gäller det|gäller samma|än|"
    r"and|but|also|what about|how about|and what|same for)(?![\w])",
    re.IGNORECASE,
)


def opens_follow_up(message: str) -> bool:
    """The message begins as a follow-up does ("och …", "men …", "hur är det med …", "what about …")."""
    return bool(_FOLLOW_UP_RE.match(message.strip()))


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
    # The message's words typed without diacritics that were given the statutes' (spelling.restore_marks): each as
    # written -> as searched. The text above is the restored one.
    restored: dict[str, str] = field(default_factory=dict)


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
#
# A date phrase is an operator ("sedan", "before", ...) applied to a point (a year, a month,
# a day, a quarter or half-year), or a relative phrase ("förra året", "last 6 months").
# Every point is an interval; the operator turns it into the range the question means.
# dateparser (measured on the table in tests/agent/test_query_analysis.py) returns single
# instants, not ranges, and misses most Swedish relative phrases, so the parser is our own.

_MONTHS = {
    "januari": 1, "februari": 2, "mars": 3, "april": 4, "maj": 5, "juni": 6, "juli": 7, "augusti": 8,
    "september": 9, "oktober": 10, "november": 11, "december": 12,
    "january": 1, "february": 2, "march": 3, "may": 5, "june": 6, "july": 7, "august": 8, "october": 10,
    "jan": 1, "feb": 2, "apr": 4, "aug": 8, "sep": 9, "sept": 9, "okt": 10, "oct": 10, "nov": 11, "dec": 12,
}
_ORDINALS = {"första": 1, "andra": 2, "tredje": 3, "fjärde": 4, "first": 1, "second": 2, "third": 3, "fourth": 4}
_YEAR = r"(?:19|20)\d{2}"
_Y = rf"(?<![\d:/.\-]){_YEAR}(?![\d:/]|\s?kap|\s?§)"
_MON = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = "|".join(_ORDINALS)
# A point without its month as a bare word ("mars" alone is a point only after an operator).
_POINT = (rf"(?:(?<!\d){_YEAR}-\d{{2}}-\d{{2}}(?!\d)"
          rf"|\d{{1,2}}(?::[ae])?\s+{_MON}\s+{_Y}"
          rf"|{_MON}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+{_Y}"
          rf"|{_MON}\s+{_Y}"
          rf"|[QK][1-4]\s+{_Y}"
          rf"|(?:{_ORD})\s+(?:kvartalet|quarter\s+of|quarter)\s+{_Y}"
          rf"|(?:{_ORD})\s+(?:halvåret|half\s+of|half)\s+{_Y}"
          rf"|{_Y})")
_ANY_POINT = rf"(?:{_POINT}|{_MON})"
_OPS = {
    "since": r"sedan|since|från och med|fr\.o\.m\.?|från|from|starting",
    "after": r"efter|after|senare än|later than",
    "before": r"före|innan|before|tidigare än|earlier than",
    "until": r"till och med|t\.o\.m\.?|until|up to|through",
    "in": r"i|in|under|during|per",
}
_OP_WORDS = "|".join(_OPS.values())
_OP_OF = [(re.compile(rf"(?:{words})", re.IGNORECASE), op) for op, words in _OPS.items()]
_UNITS = {"dag": "day", "dagar": "day", "dagarna": "day", "days": "day", "day": "day",
          "vecka": "week", "veckor": "week", "veckorna": "week", "weeks": "week", "week": "week",
          "månad": "month", "månader": "month", "månaderna": "month", "months": "month", "month": "month",
          "år": "year", "åren": "year", "years": "year", "year": "year"}
_N = r"\d{1,3}|en|ett|två|tre|fyra|fem|sex|one|a|two|three|four|five|six"
_UNIT = "|".join(sorted(_UNITS, key=len, reverse=True))
_DATE_RE = re.compile(
    "|".join([
        rf"(?<![\w])(?P<between>(?:mellan|between|från|from)\s+(?P<b1>{_ANY_POINT})\s+(?:och|and|till|to|-|–)\s+"
        rf"(?P<b2>{_ANY_POINT}))(?![\w])",
        rf"(?P<yrange>(?P<y1>{_Y})\s?[-–]\s?(?P<y2>{_Y}))",
        rf"(?<![\w])(?P<op>(?P<op_word>{_OP_WORDS})\s+(?:den\s+|the\s+)?(?P<op_p>{_ANY_POINT}))(?![\w])",
        rf"(?<![\w])(?P<last_n>(?:de\s+|the\s+)?(?:senaste|sista|last|past)\s+(?P<n>{_N})\s+(?P<unit>{_UNIT}))(?![\w])",
        rf"(?<![\w])(?P<ago>(?:för\s+)?(?P<ago_n>{_N})\s+(?P<ago_unit>{_UNIT})\s+(?:sedan|ago))(?![\w])",
        r"(?<![\w])(?P<lastweek>förra veckan|förra veckans|last week)(?![\w])",
        r"(?<![\w])(?P<thisweek>denna vecka|den här veckan|i veckan|this week)(?![\w])",
        r"(?<![\w])(?P<lastmonth>förra månaden|förra månadens|last month)(?![\w])",
        r"(?<![\w])(?P<thismonth>denna månad|den här månaden|i månaden|this month)(?![\w])",
        r"(?<![\w])(?P<lastyear>i fjol|ifjol|förra året|förra årets|last year)(?![\w])",
        r"(?<![\w])(?P<thisyear>i år|detta år|det här året|årets|this year)(?![\w])",
        r"(?<![\w])(?P<yesterday>i går|igår|yesterday)(?![\w])",
        r"(?<![\w])(?P<today>i dag|idag|today)(?![\w])",
        rf"(?<![\w])(?P<point>{_POINT})(?![\w])",
    ]),
    re.IGNORECASE,
)
# The first word of every date phrase: the long pattern is tried only where one starts, which keeps
# a long message's analysis fast.
_WORD_RE = re.compile(r"[^\W_]+")
_TRIGGERS = frozenset({
    "mellan", "between", "från", "from", "sedan", "since", "fr", "starting", "efter", "after", "senare", "later",
    "före", "innan", "before", "tidigare", "earlier", "till", "t", "until", "up", "through", "i", "in", "under",
    "during", "per", "de", "the", "senaste", "sista", "last", "past", "för", "förra", "denna", "den", "detta",
    "det", "this", "ifjol", "igår", "idag", "årets", "yesterday", "today", "q1", "q2", "q3", "q4", "k1", "k2",
    "k3", "k4",
})
_CASE_LAW_PREFIX_RE = re.compile(r"(?<![\w])[A-ZÅÄÖ]{2,5}\s$")
_NUMBER_WORDS = {"en": 1, "ett": 1, "one": 1, "a": 1, "två": 2, "tre": 3, "fyra": 4, "fem": 5, "sex": 6,
                 "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_DAY = timedelta(days=1)
MAX_DATE_PHRASES = 20  # a question names a few periods; a pasted list of dates needs no more


def _year(y: str) -> DateRange:
    return DateRange(date(int(y), 1, 1), date(int(y), 12, 31))


def _month_range(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _month_of(word: str) -> int:
    return _MONTHS[word.lower().rstrip(".")]


_P_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_P_DMY = re.compile(rf"(\d{{1,2}})(?::[ae])?\s({_MON})\s(\d{{4}})")
_P_MDY = re.compile(rf"({_MON})\s(\d{{1,2}})(?:st|nd|rd|th)?,?\s(\d{{4}})")
_P_MY = re.compile(rf"({_MON})\s(\d{{4}})")
_P_Q = re.compile(r"[qk]([1-4])\s(\d{4})")
_P_QW = re.compile(rf"({_ORD})\s(?:kvartalet|quarter of|quarter)\s(\d{{4}})")
_P_HALF = re.compile(rf"({_ORD})\s(?:halvåret|half of|half)\s(\d{{4}})")
_P_YEAR = re.compile(r"\d{4}")
_P_MONTH = re.compile(_MON)


def _quarter(year: int, q: int) -> tuple[date, date]:
    return date(year, 3 * q - 2, 1), _month_range(year, 3 * q)[1]


def _point(text: str, today: date) -> tuple[date, date] | None:
    """The interval one point names; a bare month is its latest occurrence up to this month."""
    t = " ".join(text.split()).lower()
    if m := _P_ISO.fullmatch(t):
        day = date(int(m[1]), int(m[2]), int(m[3]))
        return day, day
    if m := _P_DMY.fullmatch(t):
        day = date(int(m[3]), _month_of(m[2]), int(m[1]))
        return day, day
    if m := _P_MDY.fullmatch(t):
        day = date(int(m[3]), _month_of(m[1]), int(m[2]))
        return day, day
    if m := _P_MY.fullmatch(t):
        return _month_range(int(m[2]), _month_of(m[1]))
    if m := _P_Q.fullmatch(t):
        return _quarter(int(m[2]), int(m[1]))
    if m := _P_QW.fullmatch(t):
        return _quarter(int(m[2]), _ORDINALS[m[1]])
    if m := _P_HALF.fullmatch(t):
        h = min(_ORDINALS[m[1]], 2)
        return date(int(m[2]), 6 * h - 5, 1), _month_range(int(m[2]), 6 * h)[1]
    if _P_YEAR.fullmatch(t):
        return date(int(t), 1, 1), date(int(t), 12, 31)
    if _P_MONTH.fullmatch(t):
        month = _month_of(t)
        return _month_range(today.year if month <= today.month else today.year - 1, month)
    return None


def _shift(today: date, n: int, unit: str) -> date:
    """`today` moved back n units (calendar months and years, clamped to the month's end)."""
    if unit == "day":
        return today - timedelta(days=n)
    if unit == "week":
        return today - timedelta(weeks=n)
    months = n * (12 if unit == "year" else 1)
    total = today.year * 12 + today.month - 1 - months
    year, month = divmod(total, 12)
    return date(year, month + 1, min(today.day, calendar.monthrange(year, month + 1)[1]))


def _unit_around(day: date, unit: str) -> tuple[date, date]:
    if unit == "year":
        return date(day.year, 1, 1), date(day.year, 12, 31)
    if unit == "month":
        return _month_range(day.year, day.month)
    if unit == "week":
        monday = day - timedelta(days=day.weekday())
        return monday, monday + timedelta(days=6)
    return day, day


def _number(raw: str) -> int:
    return _NUMBER_WORDS.get(raw.lower()) or int(raw)


def _match_range(m: re.Match[str], today: date) -> DateRange | None:
    kind = m.lastgroup
    kind = next((k for k in ("between", "yrange", "op", "last_n", "ago") if m.group(k)), kind)
    monday = today - timedelta(days=today.weekday())
    if kind == "between":
        a, b = _point(m["b1"], today), _point(m["b2"], today)
        if a and b:
            return DateRange(min(a[0], b[0]), max(a[1], b[1]))
        return None
    if kind == "yrange":
        a, b = sorted((int(m["y1"]), int(m["y2"])))
        return DateRange(date(a, 1, 1), date(b, 12, 31))
    if kind == "op":
        point = _point(m["op_p"], today)
        if point is None:
            return None
        start, end = point
        kind = next(op for regex, op in _OP_OF if regex.fullmatch(m["op_word"]))
        if kind == "since":
            return DateRange(start, max(today, start))
        if kind == "after":
            return DateRange(end + _DAY, max(today, end + _DAY))
        if kind == "before":
            return DateRange(date.min, start - _DAY)
        if kind == "until":
            return DateRange(date.min, end)
        return DateRange(start, end)
    if kind == "last_n":
        return DateRange(_shift(today, _number(m["n"]), _UNITS[m["unit"].lower()]), today)
    if kind == "ago":
        unit = _UNITS[m["ago_unit"].lower()]
        return DateRange(*_unit_around(_shift(today, _number(m["ago_n"]), unit), unit))
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
    if kind == "point":
        point = _point(m["point"], today)
        return DateRange(*point) if point else None
    return None


def extract_dates(text: str, today: date) -> DateRange | None:
    """Union of all date expressions in `text`, relative to `today`.

    "i år"/"this year" and a bare year mean the whole calendar year; "sedan 2020" runs
    to `today`; "efter 1 juli 2024" from the day after (to today, or that day if later);
    "före 2020" starts at `date.min`; "i mars" is the latest March up to this month.
    """
    found: list[DateRange] = []
    labels: list[str] = []
    for m in _date_matches(text):
        if m.lastgroup == "point" and _P_YEAR.fullmatch(m["point"]) and _CASE_LAW_PREFIX_RE.search(
                text, max(0, m.start() - 8), m.start()):
            continue  # "NJA 2005 s. 1", "AD 2005 nr 1" cite cases, not a period
        try:
            rng = _match_range(m, today)
        except (ValueError, OverflowError, KeyError):
            rng = None
        if rng is not None and rng.start <= rng.end:
            found.append(rng)
            labels.append(" ".join(m.group().split()))
            if len(found) >= MAX_DATE_PHRASES:
                break
    if not found:
        return None
    return DateRange(min(r.start for r in found), max(r.end for r in found), ", ".join(labels))


def _date_matches(text: str) -> Iterator[re.Match[str]]:
    """What _DATE_RE.finditer would find, trying the pattern only where a date phrase can start."""
    done = 0
    for word in _WORD_RE.finditer(text):
        if word.start() < done:
            continue
        w = word.group().lower()
        if not (w[0].isdigit() or w in _TRIGGERS or w in _MONTHS or w in _ORDINALS or w in _NUMBER_WORDS):
            continue
        m = _DATE_RE.match(text, word.start())
        if m:
            done = m.end()
            yield m


def in_force_on(dates: DateRange | None, today: date) -> date | None:
    """The day a question's period points at for choosing a statute's version: today when the
    period includes today, else the period's nearest end (a past period's end, a future one's start)."""
    if dates is None:
        return None
    return min(max(today, dates.start), dates.end)


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
        elif last is not None and ref.span[0] >= own_start and (ref.section or ref.chapter or ref.article):
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
    marked: MarkedWords | None = None,
) -> QueryAnalysis:
    """Analyse one user message; never raises on odd input. With `marked` (bridges.question_marks), words typed
    without diacritics are first given the statutes' marks, in the message and in the history."""
    today = today or swedish_today()
    own = _clean(message)
    past = [h for h in (_clean(x, HISTORY_CHARS) for x in (history or ())) if h][-2:]
    restored: dict[str, str] = {}
    if marked is not None:
        found = restore_marks(own, marked)
        own, restored = found.text, found.words
        past = [restore_marks(h, marked).text for h in past]
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
        opener = opens_follow_up(own)
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
        restored=restored,
    )
