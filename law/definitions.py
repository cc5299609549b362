"""What the statutes say their own words mean: defined terms, abbreviations and acronyms, read from the text.

A statute defines its terms in a fixed few ways, and these are the bridges between the words people use
and the words of the law that the corpus itself provides (docs/retrieval.md, "Bridges"):

- "Med personalvårdsförmåner avses förmåner av mindre värde som …" (the commonest form, also "Med X avses
  i detta kapitel …");
- "I denna lag avses med arbetsgivare den som …", "Vid tillämpning av 11 § avses med företag …";
- "I denna lag betyder …" followed by a list of "term: explanation" paragraphs ("konsument: en fysisk
  person …");
- "Europeiska ekonomiska samarbetsområdet (EES)": a phrase and the abbreviation the text then uses.

Pure functions of the text, so they are tested on a § of our own and run on any statute the loaders read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Words that end a defined term after "avses med": the article or pronoun that starts the explanation.
_TERM_END = {"det", "den", "de", "dem", "en", "ett", "sådan", "sådana", "sådant", "att", "som", "följande",
             "detsamma", "vad", "i", "vid", "också", "även", "inte", "här", "bl.a.", "dels", "ett", "varje",
             "all", "alla", "varor", "endast", "enbart", "samma"}
MAX_TERM_WORDS = 5
# "Med X avses": X is a noun phrase of at most a few words, never a clause.
_MED_AVSES = re.compile(r"(?:^|[.;:]\s+|\d+ [a-z]? ?§ )Med ((?:[\wåäöéü-]+ ){0,%d}[\wåäöéü-]+) avses\b(.*)" % (MAX_TERM_WORDS - 1),
                        re.IGNORECASE | re.DOTALL)
# "I denna lag avses med X …", "Vid tillämpningen av detta kapitel avses med X …" (not "Vad som avses med X framgår …").
_AVSES_MED = re.compile(r"\b(?:denna|detta|dessa|tillämpning(?:en)?\b[^.]{0,80}?) (?:[^.]{0,60}? )?avses (?:i [^.]{0,60}? )?"
                        r"med ((?:[\wåäöéü-]+ ?){1,%d})(.*)" % MAX_TERM_WORDS, re.IGNORECASE | re.DOTALL)
_LIST_ITEM = re.compile(r"^(?:\d+\.\s+)?([a-zåäö][\wåäö -]{1,60}?):\s+(\S.{3,})$", re.DOTALL)
_LIST_INTRO = re.compile(r"\bbetyder\b|\bföljande betydelse|\bmed följande innebörd|\bföljande (?:ord|beteckningar|"
                         r"uttryck|begrepp)\b|\bavses med\s*$|\bavses med följande\b", re.IGNORECASE)
# In parentheses, "samarbetsområdet (EES)", or in capitals between commas, "ventilationskontroll, OVK, enligt".
_ABBREVIATION = re.compile(r" \(([A-ZÅÄÖ][A-ZÅÄÖa-zåäö-]{1,7})\)|, ([A-ZÅÄÖ]{2,8}),")
_WORDS_BEFORE = re.compile(r"[\wåäöÅÄÖ-]+")
_ACRONYM = re.compile(r"\b[A-ZÅÄÖ]{2,8}\b")
_ITEMS_FOLLOW = re.compile(r"(?:följande|:)\s*[.:]?\s*(?:\d+\. .*)?$", re.DOTALL)
_ITEM = re.compile(r"^(?:\d+ ?[a-z]?\.|[a-z]\)|-|–)\s")
_DANGLING = {"och", "eller", "av", "för", "till", "på", "med", "om", "samt"}
_NOT_A_TERM_WORD = re.compile(r"^\d|§|kap\.?$")


@dataclass(frozen=True)
class Definition:
    term: str  # as written, lower case: "personalvårdsförmåner"
    body: str  # the explanation that follows, as written


@dataclass(frozen=True)
class Abbreviation:
    short: str  # "EES"
    phrase: str  # "Europeiska ekonomiska samarbetsområdet"


def _term(words: list[str]) -> str:
    out = []
    for word in words:
        if word.lower() in _TERM_END or _NOT_A_TERM_WORD.search(word):
            break
        out.append(word.lower())
    return " ".join(out)


def definitions_in(text: str) -> list[Definition]:
    """The terms `text` (one §, its paragraphs separated by blank lines) defines, with their explanations."""
    found: list[Definition] = []
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    listing = False
    for paragraph in paragraphs:
        for sentence in re.split(r"(?<=[.;])\s+(?=[A-ZÅÄÖ0-9])", paragraph):
            match = _MED_AVSES.search(sentence)
            if match:
                term = _term(match.group(1).split())
                if term and term == match.group(1).lower():
                    found.append(Definition(term, match.group(2).strip()))
                continue
            match = _AVSES_MED.search(sentence)
            if match:
                term = _term(match.group(1).split())
                if term:
                    found.append(Definition(term, (match.group(1)[len(term):] + match.group(2)).strip()))
        if found and _ITEMS_FOLLOW.search(found[-1].body) and _ITEM.match(paragraph):
            # "Med lyftanordning avses … följande." and then the numbered items: they are the explanation.
            found[-1] = Definition(found[-1].term, f"{found[-1].body} {paragraph}")
            continue
        item = _LIST_ITEM.match(paragraph)
        if listing and item:
            found.append(Definition(item.group(1).strip().lower(), item.group(2).strip()))
            continue
        listing = bool(_LIST_INTRO.search(paragraph))
    return [d for d in found if len(d.term) >= 3 and len(d.body) >= 10 and d.term.split()[-1] not in _DANGLING]


def abbreviations_in(text: str) -> list[Abbreviation]:
    """"… Europeiska ekonomiska samarbetsområdet (EES) …", "… obligatorisk ventilationskontroll, OVK, …": the
    abbreviation and the shortest run of words before it whose first word starts with the abbreviation's first
    letter and that holds as many words or word starts as it has capitals (a compound counts once:
    "ventilationskontroll" stands for V and K). Between commas capitals are as often a list or a table's heading
    ("MINERAL, OLJA, TORV"), so there the run must be at least two words in lower case."""
    found: list[Abbreviation] = []
    for match in _ABBREVIATION.finditer(text):
        short = match.group(1) or match.group(2)
        capitals = sum(ch.isupper() for ch in short)
        if capitals < 2:
            continue
        before = text[max(0, match.start() - 200):match.start()]
        if not before or not (before[-1].isalnum() or before[-1] == "-"):
            continue
        words = _WORDS_BEFORE.findall(before.rsplit(".", 1)[-1])[-capitals:]
        for start in range(len(words)):
            run = words[start:]
            if run[0][0].lower() == short[0].lower() and not _NOT_A_TERM_WORD.search(run[0]):
                if match.group(2) and (len(run) < 2 or any(sum(ch.isupper() for ch in word) > 1 for word in run)):
                    break
                found.append(Abbreviation(short, " ".join(run)))
                break
    return found


def acronyms_in(text: str) -> set[str]:
    """Words written in capitals ("EES", "EU", "GDPR"): a question's "LAS" is an acronym only the statutes that
    write it so can answer, not the everyday word of the same letters ("las", the past tense of "läsa")."""
    return set(_ACRONYM.findall(text))
