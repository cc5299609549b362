"""Noticing, in a chat message, a fact worth remembering: offline patterns, Swedish and English.

`detect(text)` returns proposals, never stores anything: the chat shows each with
"Spara" / "Nej tack" and only a click (or the API's equivalent) saves it.

Rules that keep it from guessing:
* A message is read clause by clause (split at sentence ends, semicolons, commas and
  line breaks). A clause that asks ("har vi kollektivavtal?", "Do we need …") or
  supposes ("om vi är 60 anställda …", "if we had …") proposes nothing; a statement in
  the same message still does ("Vi är 45 anställda, vad gäller för oss?").
* Only the first match per field counts; a value is validated later by the service
  that stores it (compliance.services), so an absurd number is refused, not saved.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

PROFILE = "profile"
PREFERENCE = "preference"
FACT = "fact"


@dataclass(frozen=True)
class Proposal:
    kind: str  # PROFILE (a WorkspaceProfile field), PREFERENCE (PersonalPreference) or FACT (free text)
    field: str  # the model field; "text" for a free-text fact
    value: object
    label: str  # Swedish, for the chat: "Antal anställda: 45"

    def as_dict(self) -> dict:
        return asdict(self)


_WORD = r"[\wÅÄÖåäöéÉ-]"
_NAME = rf"[A-ZÅÄÖ0-9]{_WORD}*(?:\s+(?:[A-ZÅÄÖ0-9]{_WORD}*|och|&)){{0,4}}"
_ABOUT = r"(?:ca\.?\s+|cirka\s+|ungefär\s+|runt\s+|omkring\s+|drygt\s+|knappt\s+|about\s+|around\s+|roughly\s+|approximately\s+|some\s+)?"
_NUMBER = r"(\d{1,3}(?:[ \u00a0,]\d{3})+|\d{1,7})"

# Clauses that ask or suppose: nothing in them is a fact.
_QUESTION_START = re.compile(
    r"^(?:och\s+|men\s+|så\s+|and\s+|but\s+|so\s+)?(?:"
    r"har|är|måste|behöver|ska|skall|bör|får|kan|gäller|finns|vad|hur|vilka|vilken|vilket|när|varför|vem|"
    r"om|ifall|anta|antag|tänk|säg\s+att|"
    r"do|does|did|are|is|am|was|were|have|has|must|should|shall|can|could|would|will|what|how|which|when|why|"
    r"who|if|suppose|assuming|whether"
    r")\b",
    re.IGNORECASE,
)
_CLAUSE_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+|,\s+|\s+(?:men|but)\s+")

_SV_EMPLOYEES = re.compile(
    rf"\b(?:vi|företaget|bolaget|organisationen|verksamheten|vi\s+på\s+\w+)\s+(?:är|har|sysselsätter|anställer)\s+"
    rf"{_ABOUT}{_NUMBER}\s+(?:st\s+)?(?:anställda|medarbetare|personer|anställd)\b",
    re.IGNORECASE,
)
_EN_EMPLOYEES = re.compile(
    rf"\b(?:we|the\s+company|our\s+company)\s+(?:have|has|employ|employs|are)\s+{_ABOUT}{_NUMBER}\s+"
    r"(?:employees|staff|people|members\s+of\s+staff)\b",
    re.IGNORECASE,
)
_SV_AGREEMENT_NO = re.compile(
    r"\bvi\s+(?:har\s+(?:inget|inte\s+något|inte|inga)|saknar|är\s+inte\s+bundna\s+av)\s+(?:\w+\s+)?kollektivavtal",
    re.IGNORECASE,
)
_SV_AGREEMENT = re.compile(
    rf"\bvi\s+(?:har|har\s+tecknat|har\s+ett|är\s+bundna\s+av|omfattas\s+av|följer)\s+(?:ett\s+)?"
    rf"(?:\w+\s+)?kollektivavtal(?:et)?(?:\s+(?:med|via|genom)\s+(?P<name>{_NAME}))?",
    re.IGNORECASE,
)
_EN_AGREEMENT_NO = re.compile(
    r"\bwe\s+(?:have\s+no|don't\s+have\s+a|do\s+not\s+have\s+a|are\s+not\s+covered\s+by\s+a|aren't\s+covered\s+by\s+a)"
    r"\s+collective\s+(?:bargaining\s+)?agreement",
    re.IGNORECASE,
)
_EN_AGREEMENT = re.compile(
    rf"\bwe\s+(?:have|have\s+signed|are\s+covered\s+by|are\s+bound\s+by)\s+an?\s+collective\s+(?:bargaining\s+)?"
    rf"agreement(?:\s+with\s+(?P<name>{_NAME}))?",
    re.IGNORECASE,
)
_SECTOR = [
    (re.compile(r"\bvi\s+är\s+(?:en|ett)\s+(?:kommun|region|myndighet|statlig\s+myndighet|kommunalt\s+bolag|"
                r"offentlig\s+verksamhet|offentlig\s+arbetsgivare|landsting)\b", re.I), "public"),
    (re.compile(r"\bvi\s+(?:är|tillhör)\s+(?:den\s+)?offentliga?\s+sektorn\b", re.I), "public"),
    (re.compile(r"\bvi\s+är\s+(?:ett|en)\s+(?:privat\s+(?:företag|bolag|arbetsgivare|verksamhet)|aktiebolag)\b",
                re.I), "private"),
    (re.compile(r"\bwe\s+are\s+an?\s+(?:public\s+(?:authority|body|sector\s+organi[sz]ation)|municipality|"
                r"government\s+agency)\b", re.I), "public"),
    (re.compile(r"\bwe\s+are\s+an?\s+private(?:ly\s+owned)?\s+(?:company|business|employer)\b", re.I), "private"),
]
_SV_INDUSTRY_COMPANY = re.compile(r"\bvi\s+är\s+(?:ett|en)\s+(?P<kind>[\wåäö-]{2,30}?)s?-?(?:företag|bolag|firma)\b",
                                  re.IGNORECASE)
_SV_INDUSTRY_WITHIN = re.compile(
    r"\bvi\s+(?:är\s+verksamma|verkar|jobbar|arbetar|finns)\s+inom\s+(?P<kind>[\wåäö-]{2,40})", re.IGNORECASE)
_EN_INDUSTRY = re.compile(
    r"\bwe\s+(?:are\s+an?\s+(?P<kind>[\w-]{2,30})\s+(?:company|firm|business)|work\s+in\s+(?:the\s+)?"
    r"(?P<kind2>[\w-]{2,30})\s+(?:industry|sector))\b", re.IGNORECASE)
_NOT_INDUSTRY = {"privat", "stort", "litet", "mindre", "större", "svenskt", "familjeägt", "nytt", "aktie",
                 "private", "small", "large", "big", "swedish", "new", "family", "public", "offentlig"}
_SNI = re.compile(r"\b(?:vår\s+|our\s+)?sni(?:-kod|\s+code|-code)?\s*(?:är|is|:)?\s*(?P<code>\d{2}(?:\.?\d{1,3})?)\b",
                  re.IGNORECASE)
_SENSITIVE_NO = re.compile(
    r"\b(?:vi\s+behandlar\s+(?:inga|inte)\s+(?:känsliga\s+personuppgifter|hälsouppgifter|hälsodata)|"
    r"we\s+(?:do\s+not|don't)\s+(?:process|handle)\s+(?:any\s+)?(?:sensitive|special\s+category|health))", re.I)
_SENSITIVE = re.compile(
    r"\b(?:vi\s+(?:behandlar|hanterar)\s+(?:känsliga\s+personuppgifter|hälsouppgifter|hälsodata|uppgifter\s+om\s+"
    r"hälsa|personuppgifter\s+om\s+hälsa)|we\s+(?:process|handle)\s+(?:sensitive\s+personal\s+data|"
    r"special\s+category\s+data|health\s+data))", re.I)
_LOCATION = re.compile(
    r"\b(?i:vi\s+(?:finns|sitter|ligger|har\s+(?:vårt\s+)?(?:kontor|huvudkontor|säte))\s+i|vår\s+verksamhetsort\s+är|"
    r"we\s+are\s+(?:based|located)\s+in|our\s+(?:office|headquarters)\s+is\s+in)\s+"
    r"(?P<place>[A-ZÅÄÖ][\wåäöÅÄÖé-]+(?:\s+[A-ZÅÄÖ][\wåäöÅÄÖé-]+)?)")

_ROLE = re.compile(
    r"\b(?:jag\s+(?:jobbar|arbetar)\s+som|min\s+roll\s+är|jag\s+är\s+(?=[\wåäö-]*(?:chef|ansvarig|ombud|samordnare|"
    r"handläggare|konsult|specialist|strateg|partner|direktör|vd|controller|rådgivare|administratör)\b)|"
    r"i\s+work\s+as|my\s+role\s+is|i'?m\s+(?:the|an?)\s+(?=[\w -]*(?:manager|officer|director|consultant|"
    r"specialist|advisor|adviser|ceo|administrator|controller|lead)\b)|i\s+am\s+(?:the|an?)\s+(?=[\w -]*"
    r"(?:manager|officer|director|consultant|specialist|advisor|adviser|ceo|administrator|controller|lead)\b))"
    r"\s*(?:en\s+|ett\s+|an?\s+|the\s+)?(?P<role>[\wåäöÅÄÖ-]+(?:\s+[\wåäöÅÄÖ-]+){0,3}?)"
    r"(?=$|[,.;!?]|\s+(?:och|men|på|hos|inom|and|but|at|in|for|,)\b)", re.IGNORECASE)
_EXPERTISE = [
    (re.compile(r"\b(?:jag\s+är\s+inte\s+(?:jurist|advokat)|jag\s+är\s+(?:ingen\s+jurist|nybörjare|ny\s+på\s+det\s+här)|"
                r"förklara\s+(?:det\s+)?(?:som\s+för\s+en\s+nybörjare|enkelt)|"
                r"i'?m\s+not\s+a\s+lawyer|i\s+am\s+not\s+a\s+lawyer|i'?m\s+(?:a\s+)?(?:beginner|new\s+to\s+this)|"
                r"explain\s+(?:it\s+)?(?:like\s+i'?m\s+a\s+beginner|as\s+(?:if\s+)?to\s+a\s+beginner|simply))\b",
                re.I), "novice"),
    (re.compile(r"\b(?:jag\s+är\s+(?:jurist|advokat|bolagsjurist|arbetsrättsjurist)|i'?m\s+a\s+lawyer|"
                r"i\s+am\s+a\s+lawyer|i'?m\s+a\s+legal\s+expert)\b", re.I), "expert"),
]
_LENGTH = [
    (re.compile(r"\b(?:svara\s+(?:kort|kortfattat|kortare)|håll\s+(?:det|svaren)\s+korta?|korta\s+svar|"
                r"keep\s+(?:it|answers|your\s+answers)\s+short|answer\s+(?:briefly|shortly)|short\s+answers|"
                r"be\s+brief)\b", re.I), "short"),
    (re.compile(r"\b(?:svara\s+(?:utförligt|detaljerat)|utförliga\s+svar|ge\s+utförliga\s+svar|"
                r"answer\s+in\s+detail|detailed\s+answers|be\s+thorough)\b", re.I), "detailed"),
]
_TONE = [
    (re.compile(r"\b(?:(?:på|med)\s+enkel\s+svenska|(?:på|med)\s+enkelt\s+språk|vardagligt|utan\s+juridisk\s+jargong|"
                r"in\s+plain\s+(?:english|language)|without\s+(?:legal\s+)?jargon)\b", re.I), "plain"),
    (re.compile(r"\b(?:svara\s+formellt|formell\s+ton|formal\s+tone|answer\s+formally)\b", re.I), "formal"),
]
_LANGUAGE = [
    (re.compile(r"\b(?:svara\s+på\s+engelska|på\s+engelska\s+tack|(?:answer|reply|respond|write)\s+in\s+english|"
                r"in\s+english,?\s+please)\b", re.I), "en"),
    (re.compile(r"\b(?:svara\s+på\s+svenska|(?:answer|reply|respond|write)\s+in\s+swedish)\b", re.I), "sv"),
]
_REMEMBER = re.compile(r"^(?:kom\s+ihåg\s+att|notera\s+att|remember\s+that|note\s+that)\s+(?P<fact>.{5,300})$",
                       re.IGNORECASE)

_EXPERTISE_LABELS = {"novice": "nybörjare", "expert": "expert/jurist"}
_LENGTH_LABELS = {"short": "korta svar", "detailed": "utförliga svar"}
_TONE_LABELS = {"plain": "enkel och vardaglig", "formal": "formell"}
_LANGUAGE_LABELS = {"en": "engelska", "sv": "svenska"}


def clauses(text: str) -> list[str]:
    """The statement clauses of a message: questions and suppositions left out."""
    out = []
    for sentence in re.split(r"(?<=[.!?;])\s+|\n+", text.strip()):
        parts = [p.strip(" \t.!;:\"'()") for p in re.split(r",\s+|\s+(?:men|but)\s+", sentence)]
        parts = [p for p in parts if p]
        asks = sentence.rstrip().endswith("?")
        for i, part in enumerate(parts):
            if _QUESTION_START.match(part):
                continue
            # "Vi har kollektivavtal?" asks too: a lone clause of a question sentence is a question.
            if asks and (len(parts) == 1 or i == len(parts) - 1):
                continue
            out.append(part.rstrip("?"))
    return out


def _number(raw: str) -> int:
    return int(re.sub(r"[ \u00a0,]", "", raw))


def _name(raw: str | None) -> str:
    if not raw:
        return ""
    return re.split(r"\s+(?:och|and|men|but|sedan|since)\s+", raw.strip())[0].strip(" -")[:100]


def detect(text: str) -> list[Proposal]:
    """Proposals for what `text` states about the organisation or the writer; [] for questions."""
    found: dict[tuple[str, str], Proposal] = {}

    def add(kind: str, field: str, value: object, label: str) -> None:
        found.setdefault((kind, field), Proposal(kind, field, value, label))

    for clause in clauses(text or ""):
        if m := (_SV_EMPLOYEES.search(clause) or _EN_EMPLOYEES.search(clause)):
            n = _number(m.group(1))
            add(PROFILE, "employee_count", n, f"Antal anställda: {n}")
        if _SV_AGREEMENT_NO.search(clause) or _EN_AGREEMENT_NO.search(clause):
            add(PROFILE, "has_collective_agreement", False, "Kollektivavtal: nej")
        elif m := (_SV_AGREEMENT.search(clause) or _EN_AGREEMENT.search(clause)):
            add(PROFILE, "has_collective_agreement", True, "Kollektivavtal: ja")
            if name := _name(m.group("name")):
                add(PROFILE, "collective_agreement", name, f"Kollektivavtal med: {name}")
        for pattern, sector in _SECTOR:
            if pattern.search(clause):
                add(PROFILE, "sector", sector, f"Sektor: {'offentlig' if sector == 'public' else 'privat'}")
                break
        if m := (_SV_INDUSTRY_COMPANY.search(clause) or _SV_INDUSTRY_WITHIN.search(clause)):
            kind = m.group("kind")
            if kind.lower() not in _NOT_INDUSTRY:
                kind = kind[:1].upper() + kind[1:]
                add(PROFILE, "industry", kind, f"Bransch: {kind}")
        elif m := _EN_INDUSTRY.search(clause):
            kind = m.group("kind") or m.group("kind2")
            if kind.lower() not in _NOT_INDUSTRY:
                add(PROFILE, "industry", kind, f"Bransch: {kind}")
        if m := _SNI.search(clause):
            add(PROFILE, "sni_code", m.group("code"), f"SNI-kod: {m.group('code')}")
        if _SENSITIVE_NO.search(clause):
            add(PROFILE, "processes_sensitive_data", False, "Behandlar känsliga personuppgifter: nej")
        elif _SENSITIVE.search(clause):
            add(PROFILE, "processes_sensitive_data", True, "Behandlar känsliga personuppgifter: ja")
        if m := _LOCATION.search(clause):
            add(PROFILE, "location", m.group("place"), f"Verksamhetsort: {m.group('place')}")
        if m := _ROLE.search(clause):
            role = m.group("role").strip()
            role = role[:1].upper() + role[1:]
            add(PREFERENCE, "role", role, f"Din roll: {role}")
        for patterns, field, labels, title in ((_EXPERTISE, "expertise", _EXPERTISE_LABELS, "Kunskapsnivå"),
                                               (_LENGTH, "answer_length", _LENGTH_LABELS, "Svarslängd"),
                                               (_TONE, "tone", _TONE_LABELS, "Ton"),
                                               (_LANGUAGE, "language", _LANGUAGE_LABELS, "Svarsspråk")):
            for pattern, value in patterns:
                if pattern.search(clause):
                    add(PREFERENCE, field, value, f"{title}: {labels[value]}")
                    break
        if m := _REMEMBER.match(clause):
            fact = m.group("fact").strip()
            add(FACT, "text", fact, f"Uppgift: {fact}")
    return list(found.values())
