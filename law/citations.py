"""How many other documents of the corpus cite each document: a measure of how much a statute matters.

Over the whole statute book 4,610 statutes compete, most of them narrow förordningar and old special laws
that few companies ever meet. The ones a company lives by are the ones the rest of the law keeps pointing
to: arbetsmiljölagen, förvaltningslagen, the GDPR, brottsbalken. Retrieval uses the count as a mild prior
(agent/retrieval/hybrid.py, docs/retrieval.md "The citation prior"), derived from the corpus alone.

A document cites another when its text names it:

- by number: "lagen (2005:551)", "SFS 1977:1160", "AFS 2023:1", "förordning (EU) 2016/679";
- by a one-word short name the statute is known by: "brottsbalken", "dataskyddsförordningens".

Each citing document counts once, however often it cites, and a document never counts itself. A short
name that two documents share names neither. Pure functions of the texts, so they are tested on texts of
our own and run over whatever corpus is loaded.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from compliance.numbers import AGENCY_NUMBER_RE, EU_NUMBER_RE

# "(EU) 2016/679", "(EG) nr 1907/2006", "förordning (EU) nr 2016/679".
_EU_RE = re.compile(r"\((EU|EG|EEG)\)\s*(?:nr\.?\s*)?((?:19|20)\d\d)/(\d{1,4})(?!\d)")
# "AFS 2023:1", "ELSÄK-FS 2022:1": a series in capitals before the number (SFS itself is no series).
_AGENCY_RE = re.compile(r"\b([A-ZÅÄÖ]{2,8}(?:-[A-ZÅÄÖ]{2,4})?) ((?:19|20)\d\d):(\d{1,4})(?!\d)")
_SFS_RE = re.compile(r"(?<![\d/])(1[6-9]\d\d|20\d\d):(\d{1,4})(?![\d/])")
_WORD_RE = re.compile(r"[a-zåäöéü]+(?:-[a-zåäöéü]+)*")
# A one-word short name shorter than this is a head word ("lagen"), not a name.
MIN_NAME_LENGTH = 6
# The statutes a regulation details: the most it keeps, and in how many of its sentences each must be cited
# (a statute cited once is mentioned in passing: a definition borrowed, a neighbouring duty).
DETAILED_MOST = 2
DETAILED_MIN_SENTENCES = 2
_SENTENCE_BREAK_RE = re.compile(r"(?<=[.;:])\s+|\n")


@dataclass(frozen=True)
class CorpusDocument:
    number: str  # "1977:1160", "AFS 2023:1", "(EU) 2016/679"
    short_names: list[str] = field(default_factory=list)


def citation_key(number: str) -> str:
    """The form `numbers_cited` finds a document's number in: "(EU) 2016/679" -> "EU 2016/679"."""
    match = EU_NUMBER_RE.match(number)
    if match:
        return f"{match['family']} {match['year']}/{int(match['n'])}"
    return number


def numbers_cited(text: str, known: Collection[str] | None = None) -> set[str]:
    """The document numbers a text writes, in `citation_key` form. An agency number is taken whole, so
    "AFS 2023:1" is not also read as SFS 2023:1; with `known`, a series and number that is no known
    document ("MBL 1976:580": an abbreviation before a statute's number) is read as the SFS number."""
    found = {f"{m[1].upper()} {m[2]}/{int(m[3])}" for m in _EU_RE.finditer(text)}
    rest = _EU_RE.sub(" ", text)

    def agency(match: re.Match) -> str:
        series = match[1]
        key = f"{series} {match[2]}:{int(match[3])}"
        if series != "SFS" and AGENCY_NUMBER_RE.match(key) and (known is None or key in known):
            found.add(key)
            return " "
        return f" {match[2]}:{match[3]}"

    rest = _AGENCY_RE.sub(agency, rest)
    found.update(f"{m[1]}:{int(m[2])}" for m in _SFS_RE.finditer(rest))
    return found


def _name_index(documents: list[CorpusDocument]) -> dict[str, str]:
    """One-word short name (lower case) -> its document's number; names two documents share are left out."""
    owners: dict[str, set[str]] = {}
    for doc in documents:
        for name in doc.short_names:
            name = name.strip().lower()
            if " " not in name and len(name) >= MIN_NAME_LENGTH:
                owners.setdefault(name, set()).add(doc.number)
    return {name: next(iter(numbers)) for name, numbers in owners.items() if len(numbers) == 1}


def _documents_cited(text: str, by_key: dict[str, str], names: dict[str, str]) -> set[str]:
    """The documents a text cites, by number (`by_key`: `citation_key` -> number) or by short name."""
    cited = {by_key[key] for key in numbers_cited(text, by_key) if key in by_key}
    return cited | _names_cited(text, names)


def _names_cited(text: str, names: dict[str, str]) -> set[str]:
    cited = set()
    for word in set(_WORD_RE.findall(text.lower())):
        # The genitive: "brottsbalkens", "dataskyddsförordningens".
        number = names.get(word) or (names.get(word[:-1]) if word.endswith("s") else None)
        if number:
            cited.add(number)
    return cited


class CitationCounter:
    """Counts, for each document of the corpus, the other documents that cite it. The corpus's numbers
    and names are given first; the texts are then read one at a time, so a whole book is never in memory."""

    def __init__(self, documents: Iterable[CorpusDocument]) -> None:
        documents = list(documents)
        self._by_key = {citation_key(doc.number): doc.number for doc in documents}
        self._names = _name_index(documents)
        self.counts: dict[str, int] = {doc.number: 0 for doc in documents}

    def read(self, number: str, text: str) -> None:
        """Count the documents that `number`'s text cites."""
        cited = _documents_cited(text, self._by_key, self._names)
        cited.discard(number)
        for other in cited:
            self.counts[other] += 1


class DetailedStatutes:
    """The statutes each agency regulation details: its legal basis and the statutes its text cites in the most
    sentences (Arbetsmiljöverket's föreskrifter cite arbetsmiljölagen throughout; Boverket's, plan- och
    bygglagen). A regulation fills in an act's duties, so a question answered from the regulation is also one
    about the act, which is the binding rule (agent/retrieval/context_additions.py, docs/retrieval.md "The acts
    behind the regulations"). `documents` is every loaded document, so that a regulation's number ("AFS 2023:12") is not
    read as a statute's; only those whose number is in `statutes` (the SFS statutes) can be detailed."""

    def __init__(self, documents: Iterable[CorpusDocument], statutes: Collection[str]) -> None:
        documents = list(documents)
        self._known = {citation_key(doc.number): doc.number for doc in documents}
        self._numbers = set(statutes)
        self._names = _name_index([doc for doc in documents if doc.number in self._numbers])

    def of(self, number: str, text: str, legal_basis: Iterable[str] = ()) -> list[str]:
        sentences: Counter[str] = Counter()
        for sentence in _SENTENCE_BREAK_RE.split(text):
            cited = _documents_cited(sentence, self._known, self._names)
            # Sorted: most_common keeps first-counted order among equal counts, so a tie goes to the statute cited
            # first in the text, the same in every process (a set's order is not), and a reload rewrites nothing.
            sentences.update(sorted(other for other in cited if other in self._numbers and other != number))
        most = [other for other, n in sentences.most_common(DETAILED_MOST) if n >= DETAILED_MIN_SENTENCES]
        basis = [other for other in legal_basis if other in self._numbers]
        return list(dict.fromkeys([*most, *basis]))
