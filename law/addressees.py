"""Which authority a statute governs the own work of: its instruction, its registers, its processing of
personal data. Such a statute binds that authority, not the company asking.

Over the whole statute book a company's everyday question ("Hur länge får vi spara personuppgifter om
kunder?") is answered in the words of a dozen authorities' own data-protection laws (Tullverkets,
Kustbevakningens, Skatteverkets behandling av personuppgifter …) before the GDPR. Retrieval uses the
addressee as a mild prior (agent/retrieval/hybrid.py, docs/retrieval.md "The addressee prior"), lifted
when the question names the authority.

The authorities are read from the corpus itself: every "förordning med instruktion för X" names one, and
every agency regulation names its issuer. A statute governs authority X when its title is

- its instruction: "med instruktion för X";
- about X's own affairs, the genitive right after "om": "om Kustbevakningens behandling av personuppgifter",
  "om Polismyndighetens hantering av hittegods";
- about something at X: "vid X", "hos X" ("om behandling av personuppgifter vid Försvarsmakten").

A title that names X elsewhere ("om avgifter för finansiering av Finansinspektionens verksamhet", which the
supervised firms pay; "om upphävande av Post- och telestyrelsens föreskrifter") has no addressee, and an
agency's regulation never has one: it names its issuer, and it binds those it regulates. Pure functions of
titles, tested on titles of our own and run over whatever corpus is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# "Förordning (2007:1172) med instruktion för Kustbevakningen": a proper name (capital first) to the end.
_INSTRUCTION_RE = re.compile(r"\bmed instruktion för ([A-ZÅÄÖ][^()]*?)\s*$")
# A name shorter than this is an abbreviation or a fragment, not an authority's name.
MIN_NAME_LENGTH = 5


def authority_names(titles: Iterable[str], agencies: Iterable[str] = ()) -> set[str]:
    """The authorities the corpus names: those with an instruction among `titles`, and the issuers of the
    agency regulations (`agencies`)."""
    names = {match[1] for title in titles if (match := _INSTRUCTION_RE.search(title.strip()))}
    names.update(agency.strip() for agency in agencies)
    return {name for name in names if len(name) >= MIN_NAME_LENGTH}


def genitive(name: str) -> str:
    """"Tullverket" -> "Tullverkets"; a name ending in s, x or z takes no s ("Kommerskollegium" does)."""
    return name if name[-1].lower() in "sxz" else f"{name}s"


class AddresseeFinder:
    """Finds the authority a title governs, among `names` (authority_names)."""

    def __init__(self, names: Iterable[str]) -> None:
        # Longest first, so "Försvarets radioanstalt" wins over a shorter name it starts with.
        ordered = sorted(set(names), key=len, reverse=True)
        self._by_form: dict[str, str] = {}
        for name in ordered:
            self._by_form.setdefault(name.lower(), name)
            self._by_form.setdefault(genitive(name).lower(), name)
        if not ordered:
            self._pattern = None
            return
        plain = "|".join(re.escape(name.lower()) for name in ordered)
        owned = "|".join(re.escape(genitive(name).lower()) for name in ordered)
        self._pattern = re.compile(
            rf"\bmed instruktion för (?P<instruction>{plain})\s*$"
            rf"|\bom (?P<owned>{owned})(?!\w)"
            rf"|\b(?:vid|hos) (?P<at>{plain})(?!\w)")

    def addressee(self, title: str) -> str:
        """The authority `title` governs the own work of, or "" for a statute that binds anyone it
        concerns."""
        if self._pattern is None:
            return ""
        match = self._pattern.search(title.strip().lower())
        if match is None:
            return ""
        form = match["instruction"] or match["owned"] or match["at"]
        return self._by_form[form]
