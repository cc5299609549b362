"""Text helpers shared by every layer: stop words, sentence ends, control characters, and the
neutralising of text that goes into the model's context (sources, the company profile).

A leaf module: it imports nothing of the project, so ingestion (chunks/) and
answering (agent/) can both use it without reaching across layers, and there
is exactly one list of stop words and one rule for where a sentence ends.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

# Words that do not change what a question is about (Swedish, plus English, and the
# relative-time words whose meaning the date parser extracts separately).
STOP_WORDS: frozenset[str] = frozenset(
    """
    och i att det som en på är av för med till den har de inte om ett han hon men var jag så
    sig från vi du ni man kan ska skall får måste bör vill blir bli blev varit vara ha hade
    eller när då där här hur vad vilka vilken vilket vem varför var vart nu också även bara
    mycket mer mest några något någon inga ingen inget alla allt andra annan annat samma
    dessa detta denna dem deras dess min mitt mina din ditt dina vår vårt våra er ert era
    sin sitt sina hans hennes oss mig dig honom henne dom än ju väl nog ja nej jo
    efter före under över utan mellan genom mot vid hos inom enligt sedan åt ur kring
    skulle kunde borde måste gör göra gjorde finns fanns gäller säger sa står
    hej hejsan tack snälla okej ok bra
    a an the and or but if then else of to in on at by for with about as into from
    is are was were be been being am do does did have has had can could should would may might
    must shall will it its this that these those there here what which who whom whose when where
    why how i me my we our you your he him his she her they them their not no yes so than too
    very just also any some all each every both few more most other such only own same
    hi hello thanks thank please
    fjol ifjol förra förrförra veckan veckans månaden månadens året årets idag igår dag går år
    today yesterday last week month year ago
    """.split()
)

# Words whose final full stop is not a sentence end (lower case, without that full stop).
# Dotted forms ("t.ex.", "bl.a.") and single letters ("m. m.", "N.") are matched by pattern.
ABBREVIATIONS: frozenset[str] = frozenset(
    """kap jfr jämf resp st nr prop bet dnr ca mom art avd bil ang enl inkl exkl dvs osv etc kr mkr milj
    ff fig tab ex obs vol uppl dir ds sek min tim forts ibid adr tel tfn el kl p pkt § §§ skr rskr red
    sid ev jan feb mar apr jun jul aug sep sept okt nov dec""".split()
)
_DOTTED_ABBREVIATION = re.compile(r"^(?:[a-zåäö]{1,4}\.){2,}$", re.I)
_SINGLE_LETTER = re.compile(r"^[a-zåäöA-ZÅÄÖ]\.$")
_SMALL_NUMBER = re.compile(r"^\d{1,3}\.$")  # list numbers "1." do not end sentences, years "2024." do
# Punctuation (with closing quotes/brackets) followed by what can begin a sentence.
_SENTENCE_END = re.compile(r"[.!?][\"'”»)]*(?=\s+[\"'”»(–-]?[A-ZÅÄÖÉ0-9])")


def is_abbreviation(word: str) -> bool:
    """Is `word` (ending in its full stop) an abbreviation or a list number rather than a sentence end?"""
    word = word.lstrip("(\"'”«»“")
    if word.rstrip(".").lower() in ABBREVIATIONS:
        return True
    return bool(_DOTTED_ABBREVIATION.match(word) or _SINGLE_LETTER.match(word) or _SMALL_NUMBER.match(word))


def sentence_ends(text: str, start: int = 0, end: int | None = None) -> list[int]:
    """Offsets just after each sentence-ending punctuation mark in text[start:end], ascending.

    A full stop ends a sentence only when the next word can begin one (capital
    letter or digit) and the word it closes is not an abbreviation: statutes are
    full of "3 kap.", "t.ex." and "1." that must not split a sentence.
    """
    end = len(text) if end is None else end
    out = []
    for match in _SENTENCE_END.finditer(text, start, end):
        if match.group()[0] == ".":
            dot = match.start()
            word_start = max(text.rfind(" ", start, dot), text.rfind("\n", start, dot)) + 1
            if is_abbreviation(text[word_start:dot + 1]):
                continue
        out.append(match.end())
    return out


# C0 controls and DEL, except tab, line feed and carriage return.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Invisible characters that split words without showing: soft hyphen, zero-width space, BOM.
_INVISIBLE = re.compile(r"[\u00ad\u200b\ufeff]")


def strip_control(text: str, replacement: str = " ") -> str:
    """`text` without control characters (tab and line breaks are kept)."""
    return _CONTROL.sub(replacement, text)


def strip_invisible(text: str) -> str:
    """`text` without control characters and invisible word-splitting characters."""
    return _INVISIBLE.sub("", _CONTROL.sub("", text))


def swedish_list(items: Sequence[str]) -> str:
    """The items as a Swedish list: "a", "a och b", "a, b och c"; "" for none."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} och {items[-1]}"


_MARKDOWN_SIGNS_RE = re.compile(r"([\\`*_\[\]<>#|])")


def markdown_text(text: object) -> str:
    """Text of ours or a user's inside an answer written in Markdown, on one line, its signs escaped: the answer's
    own links and emphasis stay the only markup (a title "[Klicka här](https://…)" is shown as written)."""
    return _MARKDOWN_SIGNS_RE.sub(r"\\\1", " ".join(str(text).split()))


def one_line(text: str) -> str:
    """Control characters and runs of white space folded to single spaces."""
    return " ".join(_CONTROL.sub(" ", text).split())


# Characters that render as nothing: every format character (Unicode category Cf), variation
# selectors, the combining grapheme joiner and the Hangul fillers. Written out as ranges because
# scanning all of Unicode for the category at import costs a third of a second per process;
# tests/compliance/test_text_folding.py checks the list still covers every Cf character.
_ZERO_WIDTH = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u180b-\u180f"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef]"
)
# Dash look-alikes after NFKC: all dash punctuation (category Pd), minus signs, and the
# horizontal line and bar characters (box drawing and others) a run of which reads as "---".
_DASH_LIKE = (
    "\u058a\u05be\u1400\u1806\u2010-\u2015\u2043\u2212\u23af\u23e4\u2500\u2501\u2504-\u2509"
    "\u254c\u254d\u2550\u2574\u2576\u2578\u257a\u257c\u257e\u2796\u2e17\u2e1a\u2e3a\u2e3b\u2e40\u2e5d"
    "\u301c\u3030\u30a0\u30fc\u3161\ufe31\ufe32\ufe58\ufe63\uff0d\uff70\U00010ead"
)
_DASH_LIKE_RE = re.compile(f"[{_DASH_LIKE}]")


def fold_lookalikes(text: str) -> str:
    """`text` as a reader sees it: invisible characters removed, NFKC (full-width and
    compatibility forms to their plain letters, brackets and digits), and every dash
    look-alike as an ASCII "-". Used where text must not pass for a marker of ours."""
    text = unicodedata.normalize("NFKC", _ZERO_WIDTH.sub("", text))
    # NFKC can itself produce format characters and dashes (e.g. from compatibility forms).
    return _DASH_LIKE_RE.sub("-", _ZERO_WIDTH.sub("", text))


# Runs of three or more dash-like characters (ASCII, Unicode dashes, minus signs,
# full-width) could imitate the context block's "---" delimiter lines (agent/answering/context_assembly.py), with or without spaces.
_DASH_RUN = re.compile(r"[-\u2010-\u2015\u2212\uFE58\uFE63\uFF0D](?:\s*[-\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]){2,}")
# "Källa [9]" / "källa [9" / "KÄLLA[" (also decomposed ä) would let text claim a citation number.
_SOURCE_LABEL = re.compile(r"(k(?:ä|a\u0308)lla)\s*\[\s*", re.IGNORECASE)


def neutralise(text: str) -> str:
    """Make source text unable to imitate our delimiters, keeping it readable.

    - look-alikes are folded first (`fold_lookalikes`: invisible characters,
      full-width forms, box-drawing and other dashes), so what is checked is
      what the model reads;
    - a run of 3+ dashes becomes one em dash "—", so no line in a source can
      start with "---";
    - "Källa [" becomes "Källa (" so a source cannot claim a citation number.
    Everything else (including "Ignorera tidigare instruktioner") is left as-is:
    it stays inside its block, and the preamble tells the model it is material.
    The boundary token, not this, is what makes a forged delimiter impossible.
    """
    text = _DASH_RUN.sub("—", fold_lookalikes(text))
    return _SOURCE_LABEL.sub(lambda m: f"{m.group(1)} (", text)
