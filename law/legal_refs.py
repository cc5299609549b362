"""Detection of Swedish legal references in free text.

Two layers, both pure Python and linear-time:

1. A tokenizer (one `finditer` over the text with simple, bounded
   alternatives, so no catastrophic backtracking) that yields numbers with an
   optional letter ("2 a"), `§`, `kap.`, SFS numbers, colon citations
   ("3:2") and words.
2. A small hand-written parser over those tokens that understands chains such
   as "2 kap. 1 § första stycket, 2 och 3 §§ och 3 kap. 4 § andra stycket"
   (the chapter carries over), ranges ("4-6 b", "37–44"), subdivisions
   (stycke, punkt, mening, moment) and the statute the chain points to
   (name after or directly before it, "i <name>", colon form "BrB 3:1",
   anaphora "denna lag", "samma lag", "nämnda lag", "den lagen", and the
   statute named earlier for a bare chain).

Real citation forms are documented in data/sfs/REFERENCE_FORMATS.md.

Conventions (documented because callers depend on them):

* One `LegalReference` per section: lists and ranges are expanded. A range
  with a lettered end point ("4-6 b") expands to the numeric sections plus
  the end point (4, 5, 6, 6 b): intermediate lettered sections (6 a) cannot
  be known from the text and are not invented. Ranges longer than
  `MAX_RANGE` items keep only their end points.
* Punkt lists and ranges ("första stycket 4 eller 5", "1-13") give one
  reference per punkt (capped at `MAX_PUNKT_RANGE`).
* All references of one chain share the chain's `span` and `raw` (from the
  first number to the statute name, if any).
* `statute_name` is the name as written, without a parenthesised SFS number
  ("lagen om bank- och finansieringsrörelse"); the SFS number goes to `sfs`.
  For anaphora ("samma lag") `statute_name` is the antecedent's name and
  `anaphoric` is True; with no antecedent it stays "samma lag".
* Amendment tags ("… arbetsmiljö. Lag (1994:579).") and structural headings
  at the start of a paragraph ("20 kap. Om tjänstefel", "4 § En arbetstagare",
  "3 § /Träder i kraft I:2024-07-01/") are not references.
  `find_sfs_numbers` still reports the SFS numbers of amendment tags.
* "första stycket andra meningen" with no section (a reference inside the
  same §) gives a reference with only `stycke` set.
* Right after a §, a bare number is a punkt ("8 § 2 eller 9 § 1 …") and a
  lone letter a lettered punkt ("5 § c", not stored); stycken and punkter
  can be listed ("1 st. och 2 st.", "första och andra styckena",
  "punkt 1 och 2"). None of these ends the chain: it still binds to the
  statute named after it.
* An SFS number written with the name wins over the name ("lagen om
  anställningsskydd (1974:12)" is 1974:12, not today's act of that name).
* A chain with no statute of its own (a "bare" chain) takes, with
  `anaphoric` True: the statute whose text this is (`self_sfs`: bare
  references in a statute point to itself); else the statute named last
  earlier in the text; else the first one named later in the same sentence
  without a chain of its own ("Vad innebär 7 § för en arbetsgivare enligt
  LAS?", but not "… i 1 § … i 37 kap. rättegångsbalken"). An ambiguous
  abbreviation outside a citing context ("5 MB") is no antecedent.
* Statute words: lag, förordning, balk, grundlag, kungörelse, stadga, in
  names, compounds ("ordningsstadgan") and anaphora ("samma kungörelse").
* At most `MAX_REFERENCES` references are returned per call.
* Agency regulations and EU acts are documents like statutes: `sfs` holds
  their number ("AFS 2023:1", "(EU) 2016/679"). They are named by number
  ("AFS 2023:1 3 §", "3 § AFS 2023:1", "Förordning (EU) 2016/679 artikel 6.1
  f"), by a title the directory knows ("6 kap. 2 § i Arbetsmiljöverkets
  föreskrifter om systematiskt arbetsmiljöarbete"; names derived by
  `law.statute_names.regulation_names`), or by name or abbreviation
  ("dataskyddsförordningen", "GDPR").
* EU articles: "artikel 6.1 f", "art. 9.2 g", "artiklarna 12–22", "artikel 6(1)(f)"
  give one reference per article (ranges expanded, at most `MAX_RANGE`) with
  `article` "6", `punkt` 1 (the numbered paragraph) and `led` "f". An article
  binds to an act named right after it ("i EU:s dataskyddsförordning", "GDPR"),
  right before it, or earlier in the text if that is an EU act; in a question
  (no `self_sfs`) an article no EU act claims points to the only EU act the
  directory knows, if there is exactly one.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from compliance.numbers import EU_NUMBER_RE, is_sfs_number
from law.statute_names import (
    CURATED,
    is_ambiguous_abbreviation,
    name_key,
    names_for,
    regulation_names,
    strip_inflection,
)

__all__ = [
    "DocumentLink",
    "LegalReference",
    "StatuteDirectory",
    "analyse_references",
    "citation",
    "document_links",
    "find_sfs_numbers",
    "parse_references",
    "reference_links",
    "unit_citations",
]

MAX_RANGE = 200
MAX_PUNKT_RANGE = 50
# Hard cap per call so a pathological input ("1-200 §" repeated) stays cheap.
MAX_REFERENCES = 5000
# A statute name is never longer than this many words after "lagen om".
_MAX_TAIL_WORDS = 10


@dataclass(frozen=True)
class LegalReference:
    sfs: str | None
    statute_name: str | None
    chapter: str | None
    section: str | None
    stycke: int | None
    punkt: int | None
    span: tuple[int, int]
    raw: str
    anaphoric: bool = False
    # An EU act's article ("6" of "artikel 6.1 f"; `punkt` then holds the numbered paragraph) and its lettered led.
    article: str | None = None
    led: str | None = None
    # Where inside `span` the words naming this unit begin ("4" of "3 och 4 §§", "8" of "7 kap. 2 § och 8 kap.
    # 1 §"): None for a unit the chain names no words of its own (inside a range, "4" of "3-5 §§") or that
    # begins the chain.
    unit_start: int | None = None


# ---------------------------------------------------------------- directory


_INNER_HYPHEN_RE = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")
_SFS_ONLY_RE = re.compile(r"^\s*(?:SFS\s*)?(\d{4}:\d{1,4})\s*$")
_SFS_IN_PAREN_RE = re.compile(r"\(\s*(?:SFS\s*)?(\d{4}:\d{1,4})\s*\)")


class StatuteDirectory:
    """Maps statute names, abbreviations and SFS numbers to SFS numbers.

    Built from `(sfs, title, short_names, abbreviations)` rows; the title and
    every short name are indexed by `name_key`, so any inflection resolves.
    On a clash the first row wins (index order), which keeps results stable.
    """

    def __init__(self, entries: Iterable[tuple[str, str, Sequence[str], Sequence[str]]], *, version: str = "") -> None:
        # What the entries were read from, so that what is derived from the directory can be cached beside it.
        self.version = version
        self._titles: dict[str, str] = {}
        self._by_key: dict[str, str] = {}
        self._abbreviations: dict[str, str] = {}
        self._abbreviations_folded: dict[str, str] = {}
        # Names derived from regulations' titles (regulation_names): kept only when one document has them.
        derived: dict[str, set[str]] = {}
        derived_abbreviations: dict[str, set[str]] = {}
        for sfs, title, short_names, abbreviations in entries:
            self._titles.setdefault(sfs, title)
            for name in (title, *short_names):
                key = name_key(name)
                if key:
                    self._by_key.setdefault(key, sfs)
            for abbreviation in abbreviations:
                self._abbreviations.setdefault(abbreviation, sfs)
                self._abbreviations_folded.setdefault(abbreviation.casefold(), sfs)
            names = regulation_names(sfs, title)
            for name in names.short_names:
                derived.setdefault(name_key(name), set()).add(sfs)
            for abbreviation in names.abbreviations:
                derived_abbreviations.setdefault(abbreviation, set()).add(sfs)
        for key, numbers in derived.items():
            if key and len(numbers) == 1:
                self._by_key.setdefault(key, next(iter(numbers)))
        for abbreviation, numbers in derived_abbreviations.items():
            if len(numbers) == 1:
                self._abbreviations.setdefault(abbreviation, next(iter(numbers)))
                self._abbreviations_folded.setdefault(abbreviation.casefold(), next(iter(numbers)))
        self.max_name_words = max((k.count(" ") + 1 for k in self._by_key), default=1)
        eu_acts = [number for number in self._titles if EU_NUMBER_RE.match(number)]
        # Words without which a text cites no EU act by name ("dataskyddsförordningen", "GDPR"):
        # document_links' quick test, with _REGULATION_HINT_RE for numbers, articles and föreskrifter.
        self.eu_act_words: frozenset[str] = frozenset(
            key.split()[-1] for key, number in self._by_key.items() if number in eu_acts) | frozenset(
            a.casefold() for a, number in self._abbreviations.items() if number in eu_acts)
        # What a question's bare "artikel 6" points to: the EU act, when the directory knows exactly one.
        self.sole_eu_act: str | None = eu_acts[0] if len(eu_acts) == 1 else None

    @classmethod
    def from_titles(cls, rows: Iterable[tuple[str, str]]) -> StatuteDirectory:
        """Directory from (sfs, title) rows, names derived by `names_for`."""
        entries = []
        for sfs, title in rows:
            names = names_for(sfs, title)
            entries.append((sfs, title, names.short_names, names.abbreviations))
        return cls(entries)

    @classmethod
    def from_index_tsv(cls, path: str | Path) -> StatuteDirectory:
        """Offline directory from data/sfs/index.tsv (columns sfs, title, ...)."""
        with open(path, encoding="utf-8", newline="") as handle:
            rows = [(row["sfs"], row["title"]) for row in csv.DictReader(handle, delimiter="\t")]
        return cls.from_titles(rows)

    def __len__(self) -> int:
        return len(self._titles)

    def __contains__(self, sfs: object) -> bool:
        return sfs in self._titles

    @property
    def abbreviations(self) -> dict[str, str]:
        return dict(self._abbreviations)

    @cached_property
    def vowelless_abbreviations(self) -> dict[str, str]:
        """Typed in lower case at the head of a compound ("gdpr-incidenten", "pbl-ärendet"), an abbreviation still
        names its statute when it cannot be a word: it has no vowel. One with a vowel may be ("las" is a verb) and
        counts only as written. Alone, even a vowelless one may be a word's short form ("mfl": med flera). Read
        once per directory, not per parsed text."""
        folded: dict[str, set[str]] = {}
        for abbreviation, sfs in self._abbreviations.items():
            if not is_ambiguous_abbreviation(abbreviation) and not _VOWELS & set(abbreviation.casefold()):
                folded.setdefault(abbreviation.casefold(), set()).add(sfs)
        return {word: next(iter(found)) for word, found in folded.items() if len(found) == 1}

    def title(self, sfs: str) -> str | None:
        return self._titles.get(sfs)

    def resolve(self, name_or_abbrev: str) -> str | None:
        """SFS number for a name, abbreviation, title or SFS number, else None."""
        if not name_or_abbrev or not name_or_abbrev.strip():
            return None
        text = name_or_abbrev.strip()
        if text in self._titles:
            return text  # a document number: "AFS 2023:1", "(EU) 2016/679"
        only = _SFS_ONLY_RE.match(text)
        if only:
            return only.group(1) if only.group(1) in self._titles else None
        if text in self._abbreviations:
            return self._abbreviations[text]
        paren = _SFS_IN_PAREN_RE.search(text)
        if paren:
            # A written number wins: "lagen (1974:12) om anställningsskydd" is not today's act.
            return paren.group(1) if paren.group(1) in self._titles else None
        found = self._key_lookup(text)
        if found:
            return found
        # Lenient for explicit lookups ("las"); text detection stays case-sensitive.
        if len(text) >= 3:
            return self._abbreviations_folded.get(text.casefold())
        return None

    def lookup(self, name: str) -> str | None:
        """SFS number for a name (any inflection) or title; no abbreviations."""
        return self._key_lookup(name)

    def _key_lookup(self, name: str) -> str | None:
        found = self._by_key.get(name_key(name))
        if found is None and "-" in name:
            # A word hyphenated at a line break in the source: "EU:s data-skyddsförordning".
            found = self._by_key.get(name_key(_INNER_HYPHEN_RE.sub("", name)))
        return found


# ---------------------------------------------------------------- tokenizer

# One-to-one character map so that spans stay valid: unusual spaces and
# dashes become " " and "-", control characters become spaces.
_TRANSLATE = {c: " " for c in range(32) if chr(c) != "\n"}
_TRANSLATE.update({0x7F: " ", 0xA0: " ", 0x2007: " ", 0x202F: " ", 0x2009: " ", 0x200A: " ", 0x3000: " "})
_TRANSLATE.update({c: "-" for c in (0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2212)})

_TOKEN_RE = re.compile(
    r"""
    (?P<temporal>/(?:Träder\ i\ kraft|Upphör\ att\ gälla|Rubriken)[^/\n]{0,100}/)
  | (?P<sfs>\bSFS[ \n]?(?P<sfs_n>\d{4}:\d{1,4})(?![\d:/]))
  | (?P<paren>\([ ]?(?:SFS[ ]?)?(?P<paren_n>\d{4}:\d{1,4})[ ]?\))
  | (?P<reg>(?<![\w-])(?P<reg_open>\()?(?P<reg_s>[A-ZÅÄÖ]{1,8}-?FS)[ ]?(?P<reg_n>\d{4}:[ ]?\d{1,4})(?![\d:/])
        (?(reg_open)\)))
  | (?P<eu>\((?P<eu_f>EU|EG|EEG)\)[ ]?(?P<eu_nr>nr[ ]?)?(?P<eu_a>\d{1,4})/(?P<eu_b>\d{1,4})(?![\d/]))
  | (?P<bare>(?<![\w/:.-])(?P<bare_n>\d{4}:\d{1,4})(?![\w:/]))
  | (?P<colon>(?<![\w/:.])(?P<c_ch>\d{1,3})(?:[ ]?(?P<c_chl>[a-z]))?:(?P<c_sec>\d{1,3})
        (?:[ ]?(?P<c_secl>[a-z])(?![^\W\d_]))?(?![\d:/]))
  | (?P<num>(?<![\w])(?<!\d[.,:])(?P<n>\d{1,4})
        (?:\s?(?P<nl>[a-hj-oqrt-z]|[ps](?!\.)|i(?=\s?(?:§|[kK]ap)))(?![^\W\d_])(?!-[^\W\d_]))?(?!\d))
  | (?P<sect>§+)
  | (?P<word>[^\W\d_]+(?:-[^\W\d_]+)*-?)
  | (?P<punct>[,.;:!?()\-])
    """,
    re.VERBOSE,
)

_ORDINALS = {
    "första": 1, "andra": 2, "tredje": 3, "fjärde": 4, "femte": 5,
    "sjätte": 6, "sjunde": 7, "åttonde": 8, "nionde": 9, "tionde": 10,
}
_LIST_WORDS = frozenset({"och", "eller", "samt", "respektive", "resp"})
_ANAPHORA_DET = frozenset({
    "denna", "detta", "samma", "den", "nämnda", "sistnämnda", "förstnämnda", "sagda", "ovannämnda", "nyssnämnda",
})
_SELF_DET = frozenset({"denna", "detta"})
_LAW_HEADS = frozenset({
    "lag", "lagen", "lagens", "förordning", "förordningen", "förordningens",
    "balk", "balken", "balkens", "grundlag", "grundlagen",
    "kungörelse", "kungörelsen", "kungörelsens", "stadga", "stadgan", "stadgans",
})
# Head words that start a name ("lagen om …", "kungörelsen (1974:152) om …").
_NAME_HEADS = frozenset({"lag", "lagen", "förordning", "förordningen", "kungörelse", "kungörelsen", "stadga", "stadgan"})
_DEFINITE_HEADS = frozenset({"lagen", "förordningen", "kungörelsen", "stadgan"})
_STYCKE_WORDS = frozenset({"stycket", "stycke", "styckena", "st"})
_TAIL_INTRO = frozenset({"om", "med", "till"})
_TAIL_STOP = frozenset({
    "och", "eller", "samt", "som", "men", "att", "är", "var", "gäller", "säger", "enligt", "när", "då",
    "så", "har", "hade", "ska", "skall", "kan", "får", "måste", "om", "vad", "hur", "inte", "också",
    "även", "finns", "anger", "innebär", "kräver", "regleras", "står", "the", "and", "of", "sägs",
    "föreskrivs", "avses", "framgår", "där", "vilket", "vilken", "vilka",
})
_TAIL_TRIM = frozenset({"i", "för", "till", "av", "med", "mot", "på", "vid", "om", "och", "eller", "från", "inom"})
# "lagen om det" is not a statute: the tail must start with a content word.
_TAIL_BAD_START = frozenset({
    "det", "den", "detta", "dessa", "de", "vad", "hur", "man", "vi", "jag", "du", "ni", "han", "hon",
    "sig", "att", "en", "ett", "alla", "allt", "något", "någon", "varför", "när", "vilka", "vilken",
    "detta", "dem", "oss", "mig", "dig", "er", "här", "där", "så",
})
# Lettered punkter: "5 § c". Not "i" (a preposition) and no later letters, which are words.
_LETTER_PUNKTS = frozenset("abcdefgh")
_VOWELS = frozenset("aeiouyåäöéü")
# Words before an ambiguous abbreviation that mark it as a citation.
_CITING_WORDS = frozenset({"enligt", "jfr", "se", "säger", "i", "av", "till", "mot", "under", "strider", "om"})

# Compound words that end in a statute head but are not statutes.
_LAG_BLOCK = (
    "bolag", "förslag", "anslag", "inslag", "avslag", "påslag", "uppslag", "omslag", "utslag", "beslag",
    "tillslag", "handslag", "överslag", "genomslag", "motslag", "frislag", "nedslag", "underlag",
    "samlag", "arbetslag", "fotbollslag", "idrottslag", "landslag", "hockeylag", "skiftlag", "ramlag",
    "speciallag", "ändringslag", "modellag", "anlag", "kollag", "dagslag", "utlag",
    "pålag", "inlag", "avlag", "huvudlag", "tvärslag", "grundlag", "upplag", "vederlag", "svågerlag",
    # "-slag" meaning "kind of": statutes end in "s"+"lag" too, so list them.
    "varuslag", "aktieslag", "inkomstslag", "avfallsslag", "trädslag", "djurslag", "växtslag", "ämnesslag",
    "kostnadsslag", "intäktsslag", "bränsleslag", "fordonsslag", "tillgångsslag", "skatteslag",
    "avgiftsslag", "ersättningsslag", "fondslag", "transportslag", "trafikslag", "verksamhetsslag",
    "produktslag", "energislag", "jordartsslag", "bergartsslag", "virkesslag", "sädesslag",
)
# Compounds in "-stadga" that are bylaws, not acts ("föreningens stadgar").
_STADGA_BLOCK = ("förenings", "bolags", "klubb", "stiftelse", "förbunds", "partis", "kyrko")
_FORORDNING_BLOCK = (
    "ändringsförordning", "tillämpningsförordning", "genomförandeförordning", "eu-förordning",
    "dataskyddsförordning", "ramförordning", "bemyndigandeförordning",
)
_BALKAR = frozenset({
    "miljöbalk", "brottsbalk", "jordabalk", "rättegångsbalk", "socialförsäkringsbalk", "utsökningsbalk",
    "ärvdabalk", "föräldrabalk", "äktenskapsbalk", "handelsbalk", "sjöbalk", "byggningabalk",
})
_EXACT_STATUTES = frozenset({"regeringsform", "successionsordning", "riksdagsordning"})
# Prefixes of YYYY:N numbers that are not SFS numbers (case law, inquiries...).
_NON_SFS_PREFIXES = frozenset({
    "prop", "bet", "skr", "rskr", "dir", "ds", "sou", "rh", "nja", "ad", "hfd", "rå", "möd", "md", "pmöd",
    "nr", "dnr", "jo", "jk", "mig", "ft", "kamr", "rk", "ref", "celex", "eu", "eg", "eeg",
})


@dataclass
class _Tok:
    kind: str
    start: int
    end: int
    text: str = ""
    value: object = None
    para_start: bool = False


@dataclass
class _Statute:
    name: str | None
    sfs: str | None
    anaphoric: bool = False
    ambiguous: bool = False
    self_ref: bool = False


@dataclass(frozen=True)
class _Num:
    n: int
    letter: str | None

    def label(self) -> str:
        return f"{self.n} {self.letter}" if self.letter else str(self.n)


# Curated colloquial names win over the block list ("momslagen" ends in "omslag").
_KNOWN_STEMS = frozenset(strip_inflection(n) for names, _ in CURATED.values() for n in names if " " not in n)


def _is_statute_compound(word: str) -> bool:
    if len(word) > 60:
        return False
    stem = strip_inflection(word)
    if stem in _EXACT_STATUTES or stem in _KNOWN_STEMS:
        return True
    if stem.endswith("grundlag"):
        return len(stem) > len("grundlag")
    if stem.endswith("lag"):
        return len(stem) > 4 and not stem.endswith(_LAG_BLOCK)
    if stem.endswith("förordning"):
        return len(stem) > len("förordning") + 2 and not stem.endswith(_FORORDNING_BLOCK)
    if stem.endswith("balk"):
        return stem in _BALKAR
    if stem.endswith("kungörelse"):
        return len(stem) > len("kungörelse") + 2
    if stem.endswith("stadga"):
        return len(stem) > len("stadga") + 2 and not stem[: -len("stadga")].endswith(_STADGA_BLOCK)
    return False


def _raw_tokens(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for m in _TOKEN_RE.finditer(text):
        kind = m.lastgroup or ""
        start, end = m.span()
        if kind == "colon":
            # A colon citation whose chapter is an ordinary number ("kl. 10:30")
            # only becomes a reference next to a statute; the parser checks.
            chap = m.group("c_ch") + (f" {m.group('c_chl')}" if m.group("c_chl") else "")
            sec = m.group("c_sec") + (f" {m.group('c_secl')}" if m.group("c_secl") else "")
            toks.append(_Tok("colon", start, end, m.group(), (chap, sec)))
        elif kind == "num":
            toks.append(_Tok("num", start, end, m.group(), _Num(int(m.group("n")), m.group("nl"))))
        elif kind in ("sfs", "paren", "bare"):
            toks.append(_Tok(kind, start, end, m.group(), m.group(f"{kind}_n")))
        elif kind == "reg":
            toks.append(_Tok(kind, start, end, m.group(), f"{m.group('reg_s')} {m.group('reg_n').replace(' ', '')}"))
        elif kind == "eu":
            a, b = m.group("eu_a"), m.group("eu_b")
            # Acts before 2015 are written "(EG) nr 1907/2006" (number/year); the document number puts the year first.
            if m.group("eu_nr") and len(b) == 4 and _plausible_sfs(f"{b}:1"):
                a, b = b, a
            toks.append(_Tok(kind, start, end, m.group(), f"({m.group('eu_f')}) {a}/{b}"))
        else:
            toks.append(_Tok(kind, start, end, m.group()))
    return toks


def _para_start(text: str, prev_end: int | None, pos: int) -> bool:
    """True if only whitespace precedes `pos` on its line.

    Looks only at the gap since the previous token (`prev_end`), so the
    total work over a text stays linear.
    """
    gap = text[prev_end or 0 : pos]
    newline = gap.rfind("\n")
    if newline < 0 and prev_end is not None:
        return False
    return not gap[newline + 1 :].strip()


class _Lexer:
    """Turns raw tokens into parser tokens, merging statute names."""

    def __init__(self, text: str, raw: list[_Tok], directory: StatuteDirectory | None) -> None:
        self.text = text
        self.raw = raw
        self.directory = directory
        # Without a directory nothing is resolved; with one, curated
        # abbreviations count only for statutes the directory knows.
        self.abbreviations: dict[str, str | None] = {
            a: (s if directory is not None and s in directory else None)
            for s, (_, abbrs) in CURATED.items()
            for a in abbrs
        }
        if directory is not None:
            self.abbreviations.update(directory.abbreviations)

    def _compound_head(self, word: str) -> str | None:
        """The statute that `word`, the head of a hyphenated compound, abbreviates: as written ("LAS", "SemL"), or
        in lower case when it has no vowel (StatuteDirectory.vowelless_abbreviations)."""
        if word in self.abbreviations:
            return self.abbreviations[word]
        if word.islower() and self.directory is not None:
            return self.directory.vowelless_abbreviations.get(word)
        return None

    def _word(self, i: int) -> str | None:
        if 0 <= i < len(self.raw) and self.raw[i].kind == "word":
            return self.raw[i].text
        return None

    def _adjacent(self, a: _Tok, b: _Tok) -> bool:
        return not self.text[a.end : b.start].strip()

    def run(self) -> list[_Tok]:
        out: list[_Tok] = []
        raw = self.raw
        i = 0
        while i < len(raw):
            consumed = self._lex_one(i, out)
            i += max(consumed, 1)
        return out

    def _lex_one(self, i: int, out: list[_Tok]) -> int:
        raw = self.raw
        tok = raw[i]
        kind = tok.kind
        if kind == "num":
            return self._lex_num(i, out)
        if kind == "sect":
            out.append(_Tok("sect", tok.start, tok.end, tok.text))
            return 1
        if kind == "colon":
            out.append(tok)
            return 1
        if kind == "temporal":
            out.append(_Tok("temporal", tok.start, tok.end, tok.text))
            return 1
        if kind in ("sfs", "paren", "bare"):
            return self._lex_sfs(i, out)
        if kind in ("reg", "eu"):
            # An agency regulation or an EU act by its number: "AFS 2023:1", "(AFS 2020:1)", "(EU) 2016/679".
            if kind == "reg" and tok.value.startswith("SFS "):  # type: ignore[union-attr]
                out.append(_Tok("other", tok.start, tok.end, tok.text))
                return 1
            out.append(_Tok("statute", tok.start, tok.end, tok.text, _Statute(str(tok.value), str(tok.value))))
            return 1
        if kind == "punct":
            if tok.text == ",":
                out.append(_Tok("list", tok.start, tok.end, ","))
            elif tok.text == "-":
                out.append(_Tok("dash", tok.start, tok.end, "-"))
            else:
                out.append(_Tok("punct", tok.start, tok.end, tok.text))
            return 1
        return self._lex_word(i, out)

    def _lex_num(self, i: int, out: list[_Tok]) -> int:
        raw = self.raw
        tok = raw[i]
        num: _Num = tok.value  # type: ignore[assignment]
        nxt = self._word(i + 1)
        low = nxt.lower() if nxt else None
        if low in ("st", "p", "mom") and num.letter is None and self._adjacent(tok, raw[i + 1]):
            end = raw[i + 1].end
            used = 2
            if i + 2 < len(raw) and raw[i + 2].text == "." and raw[i + 2].start == end:
                end = raw[i + 2].end
                used = 3
            kind = {"st": "stycke", "p": "punkt", "mom": "moment"}[low]
            out.append(_Tok(kind, tok.start, end, self.text[tok.start : end], num.n))
            return used
        prev_end = raw[i - 1].end if i > 0 else None
        out.append(_Tok("num", tok.start, tok.end, tok.text, num, _para_start(self.text, prev_end, tok.start)))
        return 1

    def _lex_sfs(self, i: int, out: list[_Tok]) -> int:
        tok = self.raw[i]
        sfs = str(tok.value)
        if not _plausible_sfs(sfs):
            out.append(_Tok("other", tok.start, tok.end, tok.text))
            return 1
        if tok.kind == "bare" and not _bare_sfs_ok(self.raw, i):
            out.append(_Tok("other", tok.start, tok.end, tok.text))
            return 1
        out.append(_Tok("statute", tok.start, tok.end, tok.text, _Statute(None, sfs)))
        return 1

    def _lex_word(self, i: int, out: list[_Tok]) -> int:
        raw = self.raw
        tok = raw[i]
        word = tok.text
        low = word.lower()
        nxt = self._word(i + 1)
        nlow = nxt.lower() if nxt else ""
        if low in _ORDINALS and nlow in _STYCKE_WORDS:
            end = raw[i + 1].end
            used = 2
            if nlow == "st" and i + 2 < len(raw) and raw[i + 2].text == ".":
                end, used = raw[i + 2].end, 3
            out.append(_Tok("stycke", tok.start, end, self.text[tok.start : end], _ORDINALS[low]))
            return used
        if low in _ORDINALS and self._ordinal_list_ends_in_stycke(i):
            # "första och andra styckena": each ordinal is a stycke of its own.
            out.append(_Tok("stycke", tok.start, tok.end, word, _ORDINALS[low]))
            return 1
        if low in _ORDINALS and nlow == "meningen":
            out.append(_Tok("mening", tok.start, raw[i + 1].end, "", _ORDINALS[low]))
            return 2
        if low in ("punkt", "punkten", "punkterna") and i + 1 < len(raw) and raw[i + 1].kind == "num":
            num: _Num = raw[i + 1].value  # type: ignore[assignment]
            out.append(_Tok("punkt", tok.start, raw[i + 1].end, "", num.n))
            return 2
        if low in ("kap", "kapitel", "kapitlet"):
            end = tok.end
            used = 1
            if i + 1 < len(raw) and raw[i + 1].text == "." and raw[i + 1].start == end:
                end, used = raw[i + 1].end, 2
            out.append(_Tok("chap", tok.start, end, self.text[tok.start : end]))
            return used
        if low in _LIST_WORDS:
            used = 2 if low == "resp" and i + 1 < len(raw) and raw[i + 1].text == "." else 1
            out.append(_Tok("list", tok.start, raw[i + used - 1].end, low))
            return used
        if low == "till":
            out.append(_Tok("till", tok.start, tok.end, low))
            return 1
        if low == "i":
            out.append(_Tok("in", tok.start, tok.end, low))
            return 1
        if word == "EU" and self._eu_genitive(i):
            # "EU:s dataskyddsförordning": the genitive belongs to the name, so "artikel 6 i EU:s …" binds.
            used = self._lex_statute(i + 3, out)
            if used and out and out[-1].kind == "statute":
                last = out[-1]
                out[-1] = _Tok("statute", tok.start, last.end, self.text[tok.start:last.end], last.value)
                return 3 + used
        if low in _ARTICLE_WORDS:
            used = self._lex_articles(i, out)
            if used:
                return used
        head = strip_inflection(low) if low.startswith(("föreskrift", "förordning")) else ""
        if head in ("föreskrift", "förordning") and i + 1 < len(raw) and raw[i + 1].kind in ("reg", "eu") \
                and self._adjacent(tok, raw[i + 1]):
            # "Arbetsmiljöverkets föreskrifter (AFS 2020:1) om arbetsplatsens utformning",
            # "Europaparlamentets och rådets förordning (EU) 2016/679": the number names the document.
            number = str(raw[i + 1].value)
            tail = self._tail(i + 2)
            used = self._emit_name(self._agency_start(i), i, tail[-1] if tail else i + 1, _Statute(number, number), out)
            if used:
                return used
        if self.directory is not None and head == "föreskrift":
            used = self._lex_regulation_name(i, out)
            if used:
                return used
        statute = self._lex_statute(i, out)
        if statute:
            return statute
        out.append(_Tok("word", tok.start, tok.end, word))
        return 1

    def _eu_genitive(self, i: int) -> bool:
        raw = self.raw
        return (i + 3 < len(raw) and raw[i + 1].text == ":" and raw[i + 2].text == "s"
                and raw[i + 1].start == raw[i].end and raw[i + 2].start == raw[i + 1].end
                and raw[i + 3].kind == "word" and self._adjacent(raw[i + 2], raw[i + 3]))

    def _lex_articles(self, i: int, out: list[_Tok]) -> int:
        """ "artikel 6.1 f", "art. 9.2 g", "artiklarna 12–22", "artikel 6(1)(f)": one article token whose value
        is its (article, punkt, led) items; 0 if no article number follows."""
        raw = self.raw
        pos = raw[i].end
        if raw[i].text.lower() == "art":
            if not (i + 1 < len(raw) and raw[i + 1].text == "." and raw[i + 1].start == pos):
                return 0
            pos = raw[i + 1].end
        items, end = _read_articles(self.text, pos)
        if not items:
            return 0
        used = 1
        while i + used < len(raw) and raw[i + used].start < end:
            used += 1
        out.append(_Tok("article", raw[i].start, end, self.text[raw[i].start:end], items))
        return used

    def _lex_regulation_name(self, i: int, out: list[_Tok]) -> int:
        """An agency regulation named by a title the directory knows, around the head word at i:
        "Arbetsmiljöverkets föreskrifter om systematiskt arbetsmiljöarbete", "föreskrifterna om …". The
        agency's name before the head word (already lexed as words) joins the name."""
        assert self.directory is not None
        raw = self.raw
        for first in dict.fromkeys((self._agency_start(i), i)):
            found = self._directory_name(first, i + 1)
            if found is not None:
                k, sfs = found
                name = " ".join(self.text[raw[first].start:raw[k].end].split())
                return self._emit_name(first, i, k, _Statute(name, sfs), out)
        return 0

    def _agency_start(self, i: int) -> int:
        """Raw index where the agency's name before the head word at i starts: the word before the head
        is a genitive ("Arbetsmiljöverkets", "… och beredskaps") and the name opens with a capital
        ("Myndigheten för samhällsskydd och beredskaps"); i when there is none."""
        raw = self.raw
        before = self._word(i - 1)
        if before is None or not before.endswith("s") or not self._adjacent(raw[i - 1], raw[i]):
            return i
        for j in range(i - 1, max(-1, i - 7), -1):
            word = self._word(j)
            if word is None or word.lower() in ("i", "enligt", "av", "se") or not self._adjacent(raw[j], raw[j + 1]):
                return i
            if word[:1].isupper():
                return j
        return i

    def _emit_name(self, first: int, head: int, last: int, statute: _Statute, out: list[_Tok]) -> int:
        """Emit a statute token over raw[first..last], taking back the tokens already lexed before the head
        word; the raw tokens used from the head word on."""
        start = self.raw[first].start
        taken = [t for t in out if t.start >= start]
        if any(t.kind not in ("word", "list", "in", "till") for t in taken):
            return 0
        del out[len(out) - len(taken):]
        end = self.raw[last].end
        out.append(_Tok("statute", start, end, self.text[start:end], statute))
        return last - head + 1

    def _ordinal_list_ends_in_stycke(self, i: int) -> bool:
        """ "första och andra styckena", "första, andra eller tredje stycket" (bounded look-ahead)."""
        raw = self.raw
        k = i + 1
        for _ in range(len(_ORDINALS)):
            if k + 1 >= len(raw) or not (raw[k].text == "," or raw[k].text.lower() in ("och", "eller")):
                return False
            nxt = self._word(k + 1)
            if nxt is None or nxt.lower() not in _ORDINALS:
                return False
            after = self._word(k + 2)
            if after is not None and after.lower() in _STYCKE_WORDS:
                return True
            k += 2
        return False

    def _number_after(self, prev: int) -> tuple[str, int] | None:
        """SFS number written right after a name ending at raw index prev, and
        its raw index: "lagen om anställningsskydd (1974:12)", "… (SFS 1974:12)"."""
        raw = self.raw
        j = prev + 1
        if j < len(raw) and raw[j].text == "." and raw[j].start == raw[prev].end:
            prev, j = j, j + 1  # "… miljöbalken m.m. (1998:1252)"
        if j < len(raw) and raw[j].kind == "paren" and self._adjacent(raw[prev], raw[j]):
            sfs = self._paren_after(j)
            return (sfs, j) if sfs else None
        return None

    def _paren_after(self, j: int) -> str | None:
        """SFS number in a "(YYYY:N)" token at raw index j, if plausible."""
        if j < len(self.raw) and self.raw[j].kind == "paren" and _plausible_sfs(str(self.raw[j].value)):
            return str(self.raw[j].value)
        return None

    def _lex_statute(self, i: int, out: list[_Tok]) -> int:
        raw = self.raw
        tok = raw[i]
        word = tok.text
        low = word.lower()
        nxt = self._word(i + 1)
        # Anaphora: "denna lag", "samma lag", "den lagen", "nämnda förordning".
        if low in _ANAPHORA_DET and nxt and nxt.lower() in _LAW_HEADS:
            end = raw[i + 1].end
            name = self.text[tok.start : end]
            out.append(_Tok("statute", tok.start, end, name,
                            _Statute(name, None, anaphoric=True, self_ref=low in _SELF_DET)))
            return 2
        # "lagen (2004:297) om bank- och finansieringsrörelse", "lagen om anställningsskydd".
        # Indefinite "lag om …" is generic ("finns det en lag om distansarbete?")
        # unless it is a title: capitalised or followed by the SFS number.
        if low in _NAME_HEADS and (low in _DEFINITE_HEADS or word[0].isupper() or self._paren_after(i + 1)):
            return self._lex_head_name(i, out)
        # Abbreviations are case-sensitive: "LAS" is a statute, "las" is a verb.
        if word in self.abbreviations:
            sfs = self.abbreviations[word]
            paren = self._paren_after(i + 1)
            used = 2 if paren else 1
            end = raw[i + used - 1].end
            ambiguous = is_ambiguous_abbreviation(word) and not paren
            out.append(_Tok("statute", tok.start, end, self.text[tok.start : end],
                            _Statute(word, paren or sfs, ambiguous=ambiguous)))
            return used
        # "LAS-listan", "GDPR-incidenten": Swedish joins an abbreviation to a word with a hyphen, and the compound
        # is about the abbreviated statute. Not an ambiguous abbreviation ("AML-rutiner" is as often money laundering).
        head, hyphen, rest = word.partition("-")
        if hyphen and rest[:1].islower() and not is_ambiguous_abbreviation(head) and (sfs := self._compound_head(head)):
            out.append(_Tok("statute", tok.start, tok.end, word, _Statute(head, sfs)))
            return 1
        # "offentlighets- och sekretesslagen": hyphenated first part + och/eller.
        start_i = i
        if word.endswith("-") and nxt and nxt.lower() in ("och", "eller"):
            third = self._word(i + 2)
            if third and _is_statute_compound(third):
                i += 2
                word = third
        if _is_statute_compound(word) or (
            self.directory is not None and len(word) < 60
            and word.lower().rstrip("ns").endswith(("lag", "lage", "balk", "balke", "ning", "ninge", "form", "forme",
                                                    "kungörelse", "stadga"))
            and self.directory.lookup(word)
        ):
            start = raw[start_i].start
            paren = self._paren_after(i + 1)
            end = raw[i + 1].end if paren else raw[i].end
            name = self.text[start : raw[i].end]
            sfs = paren or self._resolve(name)
            out.append(_Tok("statute", start, end, self.text[start:end], _Statute(name, sfs)))
            return i - start_i + (2 if paren else 1)
        return 0

    def _lex_head_name(self, i: int, out: list[_Tok]) -> int:
        raw = self.raw
        tok = raw[i]
        paren = self._paren_after(i + 1)
        j = i + (2 if paren else 1)
        tail = self._tail(j)
        if paren and not tail:
            # "… arbetsmiljö. Lag (1994:579)." is an amendment tag, not a citation.
            if tok.text[:1].isupper() and j < len(raw) and raw[j].text == "." and raw[j].start == raw[j - 1].end:
                out.append(_Tok("other", tok.start, raw[j].end, tok.text))
                return 3
            end = raw[i + 1].end
            out.append(_Tok("statute", tok.start, end, self.text[tok.start : end], _Statute(tok.text, paren)))
            return 2
        if self.directory is not None:
            found = self._directory_name(i, j)
            if found is not None:
                k, sfs = found
                name = " ".join(_SFS_IN_PAREN_RE.sub(" ", self.text[tok.start : raw[k].end]).split())
                # The number the text writes wins over the name: an older act of a similar name.
                after = None if paren else self._number_after(k)
                if after:
                    k = after[1]
                end = raw[k].end
                written = paren or (after[0] if after else None)
                out.append(_Tok("statute", tok.start, end, self.text[tok.start : end], _Statute(name, written or sfs)))
                return k - i + 1
        if not tail:
            return 0
        last = tail[-1]
        name = " ".join([tok.text, *(raw[k].text for k in tail)])
        after = None if paren else self._number_after(last)
        if after:
            paren, last = after
        end = raw[last].end
        out.append(_Tok("statute", tok.start, end, self.text[tok.start : end], _Statute(name, paren)))
        return last - i + 1

    def _directory_name(self, i: int, j: int) -> tuple[int, str] | None:
        """Longest known name starting at head word i: (last raw index, sfs).

        Titles contain commas and "EU:s" ("lagen om måttenheter, mätningar och
        mätdon"), so this looks at raw words and punctuation, not the tail.
        """
        assert self.directory is not None
        raw = self.raw
        limit = min(len(raw), j + 3 * self.directory.max_name_words)
        last = j - 1
        for k in range(j, limit):
            if raw[k].kind not in ("word", "punct") or "\n" in self.text[raw[k - 1].end : raw[k].start]:
                break
            last = k
        start = raw[i].start
        for k in range(last, j, -1):
            if raw[k].kind != "word" and raw[k].text != ")":
                continue
            sfs = self.directory.lookup(self.text[start : raw[k].end])
            if sfs:
                return k, sfs
        return None

    def _tail(self, j: int) -> list[int]:
        """Raw indices of "om X …" after a head word, cut at function words."""
        raw = self.raw
        if j >= len(raw) or raw[j].kind != "word" or raw[j].text.lower() not in _TAIL_INTRO:
            return []
        words = [j]
        k = j + 1
        while k < len(raw) and len(words) <= _MAX_TAIL_WORDS:
            t = raw[k]
            if t.kind != "word" or self.text[raw[k - 1].end : t.start].strip():
                break
            low = t.text.lower()
            if low in ("och", "eller") and raw[words[-1]].text.endswith("-"):
                words.append(k)
                k += 1
                continue
            if low in _TAIL_STOP or low in _LAW_HEADS or (low in _ANAPHORA_DET and len(words) > 1):
                break
            words.append(k)
            k += 1
        while len(words) > 1 and raw[words[-1]].text.lower() in _TAIL_TRIM:
            words.pop()
        if len(words) < 2 or raw[words[1]].text.lower() in _TAIL_BAD_START:
            return []
        return words

    def _resolve(self, name: str) -> str | None:
        return self.directory.resolve(name) if self.directory is not None else None


# "har upphävts genom lag (…)", "har upphört att gälla", and the source's own slip "har uphävts".
_REPEALED_STUB_RE = re.compile(r"har\s+upp?h(?:ävts|ört)\b")
_ARTICLE_WORDS = frozenset({"artikel", "artikeln", "artiklarna", "artiklar", "art", "article", "articles"})
# One article number with its punkt: "6", "6.1", "6(1)"; not a § or chapter number ("artikel 6 och 7 § lagen").
_ART_NUMBER_RE = re.compile(r"\s?(\d{1,3})(?!\d)(?:\.(\d{1,2})(?!\d)|\((\d{1,2})\))?(?![.]\d|\s?(?:§|[kK]ap\b))")
# A lettered led after a punkt: "f", "(f)". A lone "i" is the preposition ("artikel 9.2 i förordningen")
# unless punctuation or a list word follows it.
_ART_LETTER_RE = re.compile(r"\s?(?:\(([a-z])\)|([a-hj-z]|i(?=\s?(?:[,.;:!?)]|och\b|eller\b|$)))(?![\w]))")
_ART_LETTER_SEP_RE = re.compile(r"\s?(?:,|och|eller)(?=\s?(?:\([a-z]\)|[a-z](?![\w])))")
_ART_SEP_RE = re.compile(r"\s?(,|och|eller|samt|-|till)(?=\s?\d)")
# An act the articles belong to that no directory entry names: a treaty, a charter, a directive, a convention or
# a protocol, written right after them ("artikel 263 i EUF-fördraget", "artikel 8.1 i Europeiska unionens stadga
# om …", "artiklarna 12–15 i det direktivet", "artikel 2.2 i rådets direktiv 2000/31/EG"). Such articles are not
# the act whose text this is, nor the one EU act the knowledge base holds. The words before the act's own word are
# a name's capitalised words or genitives ("Europeiska unionens", "Europaparlamentets och rådets"), so "artikel 6
# i enlighet med …" is not read as naming one.
_OTHER_ACT_AFTER_RE = re.compile(
    r"\s*(?:i|enligt|av|till|under)\s+(?:(?:det|detta|den|denna|samma)\s+)?"
    r"(?P<act>(?:(?:[A-ZÅÄÖ][\w:-]*|[^\W\d_]+s|och)\s+){0,4}?"
    r"[\w:-]*?(?:fördrag|stadga|direktiv|konvention|protokoll)[^\W\d_]*)")


@dataclass(frozen=True)
class _ArticleItem:
    article: str
    punkt: int | None
    led: str | None
    at: int | None  # where its number is written (LegalReference.unit_start); None inside a range


def _read_articles(text: str, pos: int) -> tuple[list[_ArticleItem], int]:
    """The (article, punkt, led) items of an article list starting at `pos` and where it ends.

    "6.1 f" -> [("6", 1, "f")]; "9.2 b, g och h" -> one item per led; "12-22" -> every article in
    between (at most MAX_RANGE, else the end points); "13 och 14" -> two articles.
    """
    items: list[_ArticleItem] = []
    end = pos
    range_from: _ArticleItem | None = None
    while len(items) < MAX_REFERENCES:
        m = _ART_NUMBER_RE.match(text, end)
        if not m:
            break
        article, punkt = m.group(1), m.group(2) or m.group(3)
        end = m.end()
        leds: list[str | None] = [None]
        if punkt:
            letter = _ART_LETTER_RE.match(text, end)
            if letter:
                leds = [letter.group(1) or letter.group(2)]
                end = letter.end()
                while (sep := _ART_LETTER_SEP_RE.match(text, end)) and (more := _ART_LETTER_RE.match(text, sep.end())):
                    leds.append(more.group(1) or more.group(2))
                    end = more.end()
        at = m.start(1)
        new = [_ArticleItem(article, int(punkt) if punkt else None, led, at) for led in leds]
        plain = (punkt, leds) == (None, [None])  # an article with no punkt or led: a range may end in it
        if range_from is not None and (range_from.punkt, range_from.led) == (None, None) and plain:
            a, b = int(range_from.article), int(article)
            if a < b and b - a <= MAX_RANGE:
                new = [_ArticleItem(str(n), None, None, at if n == b else None) for n in range(a + 1, b + 1)]
        items.extend(new)
        range_from = None
        sep = _ART_SEP_RE.match(text, end)
        if not sep:
            break
        if sep.group(1) in ("-", "till"):
            range_from = items[-1]
        end_before_sep = end
        end = sep.end()
        if not _ART_NUMBER_RE.match(text, end):
            end = end_before_sep
            break
    return items, end


def _plausible_sfs(sfs: str) -> bool:
    year = int(sfs[:4])
    return 1600 <= year <= 2100


def _bare_sfs_ok(raw: list[_Tok], i: int) -> bool:
    """A bare YYYY:N is an SFS number unless a case-law/inquiry prefix precedes it."""
    j = i - 1
    if j >= 0 and raw[j].kind == "punct" and raw[j].text == ".":
        j -= 1
    if j < 0 or raw[j].kind != "word":
        return True
    prev = raw[j].text
    if prev.lower() in _NON_SFS_PREFIXES:
        return False
    # Any other all-caps code ("AFS 2001:1", "MSBFS 2020:1") is not SFS either,
    # unless it is a statute abbreviation ("LAS 1982:80").
    if prev.isupper() and len(prev) >= 2 and prev not in _ALL_ABBREVIATIONS:
        return False
    return True


_ALL_ABBREVIATIONS = frozenset(a for _, abbrs in CURATED.values() for a in abbrs)


# ------------------------------------------------------------------- parser


@dataclass
class _Item:
    chapter: str | None
    section: str | None
    stycke: int | None = None
    punkt: int | None = None
    at: int | None = None  # LegalReference.unit_start


def _section_number(label: str | None) -> int | None:
    """2 for "2 a", None for no section."""
    if not label:
        return None
    head = label.split(" ", 1)[0]
    return int(head) if head.isdigit() else None


def _expand(a: _Num, b: _Num, cap: int) -> list[_Num]:
    if a.n == b.n:
        la = a.letter or ""
        lb = b.letter or ""
        if la and lb and la <= lb and ord(lb) - ord(la) < 26:
            return [_Num(a.n, chr(c)) for c in range(ord(la), ord(lb) + 1)]
        return [a, b] if a != b else [a]
    if a.n > b.n or b.n - a.n > cap:
        return [a, b]
    out = [a] + [_Num(n, None) for n in range(a.n + 1, b.n + 1)]
    if b.letter:
        out.append(b)
    return out


class _Parser:
    def __init__(self, text: str, toks: list[_Tok], directory: StatuteDirectory | None, self_sfs: str | None) -> None:
        self.text = text
        self.toks = toks
        self.directory = directory
        self.self_sfs = self_sfs
        self.refs: list[LegalReference] = []
        self.last_named: _Statute | None = None
        # Indexes in refs of bare chains in the current sentence that no
        # statute named earlier could claim: one named alone later in the
        # sentence does ("Gäller 7 § även enligt LAS?").
        self.orphans: list[int] = []

    def is_eu_act(self, st: _Statute | None) -> bool:
        return bool(st and st.sfs and EU_NUMBER_RE.match(st.sfs))

    def kind(self, i: int) -> str:
        return self.toks[i].kind if 0 <= i < len(self.toks) else ""

    def adjacent(self, a: int, b: int) -> bool:
        return not self.text[self.toks[a].end : self.toks[b].start].strip()

    # -- number groups ---------------------------------------------------------

    def read_group(self, j: int, seps: list[str] | None = None, starts: list[tuple[int, int | None]] | None = None,
                   ) -> tuple[list[tuple[_Num, _Num | None]], int]:
        """NUM ((, | och | eller | - | till) NUM)*: returns items and the index after.

        With `seps`, appends the last separator word before each item after the first; with `starts`, where
        each item's numbers begin in the text (a range's two ends).
        """
        items: list[tuple[_Num, _Num | None]] = []
        if self.kind(j) != "num":
            return items, j
        items.append((self.toks[j].value, None))  # type: ignore[arg-type]
        if starts is not None:
            starts.append((self.toks[j].start, None))
        k = j + 1
        while True:
            m = k
            range_sep = False
            while self.kind(m) in ("list", "dash", "till"):
                range_sep = range_sep or self.kind(m) in ("dash", "till")
                m += 1
            if m == k or self.kind(m) != "num":
                return items, k
            num: _Num = self.toks[m].value  # type: ignore[assignment]
            if range_sep and items[-1][1] is None:
                items[-1] = (items[-1][0], num)
                if starts is not None:
                    starts[-1] = (starts[-1][0], self.toks[m].start)
            else:
                items.append((num, None))
                if seps is not None:
                    seps.append(self.toks[m - 1].text)
                if starts is not None:
                    starts.append((self.toks[m].start, None))
            k = m + 1

    @staticmethod
    def flatten_at(items: list[tuple[_Num, _Num | None]], starts: list[tuple[int | None, int | None]] | None,
                   cap: int) -> list[tuple[_Num, int | None]]:
        """The numbers a group names, its ranges expanded, each with where its words begin: a range's ends their
        own, the numbers between none (they have no words); none at all without `starts`."""
        out: list[tuple[_Num, int | None]] = []
        for (a, b), (at_a, at_b) in zip(items, starts or [(None, None)] * len(items)):
            if b is None:
                out.append((a, at_a))
                continue
            numbers = _expand(a, b, cap)
            out.extend((n, at_a if k == 0 else at_b if k == len(numbers) - 1 else None)
                       for k, n in enumerate(numbers))
        return out

    # -- chains ----------------------------------------------------------------

    def is_heading(self, i: int) -> bool:
        """ "20 kap. Om tjänstefel", "4 § En arbetstagare", "3 § /Träder i kraft/"."""
        tok = self.toks[i]
        if not tok.para_start:
            return False
        if self.kind(i + 1) not in ("chap", "sect"):
            return False
        nxt = self.toks[i + 2] if i + 2 < len(self.toks) else None
        if nxt is None:
            return False
        if nxt.kind in ("temporal", "dash"):
            return True
        # A capital opens the §'s text, as written: a preposition's token is lower-cased ("16 § I 49 kap. finns …",
        # "2 § Till ledamot …"). A repealed § says so in lower case ("7 § har upphävts genom …", "14 § har upphört att
        # gälla …").
        if nxt.kind not in ("statute", "num") and self.text[nxt.start:nxt.start + 1].isupper():
            return True
        if _REPEALED_STUB_RE.match(self.text, nxt.start):
            return True
        # "7 § EU:s dataskyddsförordning och denna lag …": a capitalised name opens the §'s text; an abbreviation
        # or a number ("7 § LAS", "3 § AFS 2023:1") is cited.
        if nxt.kind == "statute" and nxt.text[:1].isupper() and len(nxt.text) > 3 and not nxt.text.isupper():
            return True
        return False

    def parse_subdiv(self, k: int, item: _Item, *, after_sect: bool = False) -> tuple[list[_Item], int]:
        """Stycke, punkt, mening and moment after a § (or alone).

        Right after a § a bare number is a punkt ("8 § 2", "24 kap. 2 a § 3") and
        a lone letter a lettered punkt ("5 § c"); stycken and punkter can be
        listed ("1 st. och 2 st.", "första och andra styckena", "punkt 1 och 2").
        Each stycke/punkt gives an item of its own so the chain goes on to the
        statute named after it.
        """
        items = [item]
        if after_sect and self.kind(k) == "num" and self.adjacent(k - 1, k):
            k = self.add_punkts(k, items)
        if after_sect:
            k = self.skip_letter_punkt(k)
        while True:
            kind = self.kind(k)
            if kind == "stycke":
                items[-1].stycke = int(self.toks[k].value)  # type: ignore[arg-type]
                k += 1
                if self.kind(k) == "num":
                    k = self.add_punkts(k, items)
                k = self.skip_letter_punkt(k)
            elif kind == "punkt":
                items[-1].punkt = int(self.toks[k].value)  # type: ignore[arg-type]
                k += 1
                # "punkt 1 och 2", "punkterna 3-5"
                m = k
                while self.kind(m) in ("list", "dash", "till"):
                    m += 1
                if m > k and self.kind(m) == "num":
                    more, after = self.read_punkts(m, items[-1].section)
                    if more:
                        base = items[-1]
                        first = base.punkt
                        items.extend(replace(base, punkt=n) for n in more if n != first)
                        k = after
            elif kind in ("mening", "moment"):
                k += 1
            elif kind == "list" and self.kind(k + 1) in ("stycke", "punkt"):
                # "1 st. och 2 st.": the next subdivision of the same section.
                if len(items) < MAX_PUNKT_RANGE:
                    nxt = self.toks[k + 1]
                    items.append(replace(items[-1], stycke=items[-1].stycke if nxt.kind == "punkt" else None,
                                         punkt=None))
                k += 1
            else:
                return items, k

    def add_punkts(self, k: int, items: list[_Item]) -> int:
        """Replace the last item by one per punkt read at k; the index after them."""
        punkts, after = self.read_punkts(k, items[-1].section)
        if punkts:
            base = items.pop()
            items.extend(replace(base, punkt=n) for n in punkts)
        return after

    def read_punkts(self, k: int, section: str | None) -> tuple[list[int], int]:
        """Punkt numbers at k ("2", "1-13", "4 eller 5") and the index after them.

        When the numbers end in § or kap., a list of sections starts inside
        them and is left to the chain. Sections are listed in rising order
        after the one the punkter belong to, so the list starts at a number
        from which the rest rise and that is above that section; of those,
        the last one that leaves the punkter a well-formed list (not ending in
        a comma: "14 § 1, 15 eller 16 §" is punkt 1, then 15 and 16 §), else
        the last number ("8 § 2 eller 9 § 1", "6 § 2 och 3 och 8 §",
        "1 § 1, 2, 4 och 5 samt 2 §").
        """
        seps: list[str] = []
        group, after = self.read_group(k, seps)
        if not group:
            return [], k
        if self.kind(after) in ("sect", "chap"):
            cut = len(group) - 1
            anchor = _section_number(section)
            if anchor is not None and self.kind(after) == "sect":
                # One pass from the end: rising[n] is True if group[n:] rises.
                rising = [False] * len(group)
                rising[-1] = True
                for n in range(len(group) - 2, -1, -1):
                    rising[n] = rising[n + 1] and group[n][0].n < group[n + 1][0].n
                valid = [n for n in range(1, len(group)) if rising[n] and group[n][0].n > anchor]
                # seps[n - 2] separates group[n - 2] and group[n - 1], the last two punkter.
                well_formed = [n for n in valid if n == 1 or seps[n - 2] != ","]
                cut = well_formed[-1] if well_formed else (valid[0] if valid else cut)
            if cut < 1 or any(b is not None for _, b in group[cut:]):
                return [], k
            # Step back to the token where group[cut] starts (each later item is one number).
            after -= 1
            for _ in range(len(group) - 1 - cut):
                while self.kind(after - 1) in ("list", "dash", "till"):
                    after -= 1
                after -= 1
            while self.kind(after - 1) in ("list", "dash", "till"):
                after -= 1
            group = group[:cut]
        numbers = [n for n, _ in self.flatten_at(group, None, MAX_PUNKT_RANGE)]
        if any(n.letter or n.n > MAX_PUNKT_RANGE for n in numbers):
            return [], k
        return [n.n for n in numbers], after

    def skip_letter_punkt(self, k: int) -> int:
        """Index after a lettered punkt ("5 § c och 9 §"), else k."""
        tok = self.toks[k] if k < len(self.toks) else None
        if (tok is not None and tok.kind == "word" and len(tok.text) == 1 and tok.text in _LETTER_PUNKTS
                and self.adjacent(k - 1, k) and self.kind(k + 1) != "punct"):
            return k + 1
        return k

    def parse_chain(self, i: int) -> tuple[list[_Item], int]:
        """Items of the chain starting at i and the index after it.

        On failure (no kap./§ after the first group) returns no items and the
        index after that group.
        """
        items: list[_Item] = []
        chapter: str | None = None
        j = i
        while True:
            starts: list[tuple[int, int | None]] = []
            group, k = self.read_group(j, starts=starts)
            if not group:
                break
            term = self.kind(k)
            if not items and term not in ("chap", "sect"):
                return [], k
            if term == "chap":
                chapters = [(n.label(), at) for n, at in self.flatten_at(group, starts, MAX_RANGE)]
                k += 1
                section_starts: list[tuple[int, int | None]] = []
                secs, k2 = self.read_group(k, starts=section_starts)
                if secs and self.kind(k2) == "sect":
                    items.extend(_Item(c, None, at=at) for c, at in chapters[:-1])
                    chapter, at = chapters[-1]
                    # The chapter's first § is named from the chapter on ("8 kap. 1 §").
                    section_starts[0] = (at if at is not None else section_starts[0][0], section_starts[0][1])
                    k = self.add_sections(items, chapter, secs, section_starts, k2 + 1)
                else:
                    items.extend(_Item(c, None, at=at) for c, at in chapters)
                    chapter = chapters[-1][0]
            elif term == "sect":
                k = self.add_sections(items, chapter, group, starts, k + 1)
            else:
                break
            j = k
            if len(items) >= MAX_REFERENCES:
                break
            # Continue over ", " / "och" / "eller" when another group follows
            # that ends in kap. or §.
            m = j
            while self.kind(m) == "list":
                m += 1
            if m == j or self.kind(m) != "num":
                break
            _, after = self.read_group(m)
            if self.kind(after) not in ("chap", "sect"):
                break
            j = m
        return items, j

    def add_sections(self, items: list[_Item], chapter: str | None, group: list[tuple[_Num, _Num | None]],
                     starts: list[tuple[int, int | None]], k: int) -> int:
        sections = self.flatten_at(group, starts, MAX_RANGE)
        items.extend(_Item(chapter, n.label(), at=at) for n, at in sections[:-1])
        number, at = sections[-1]
        last, k = self.parse_subdiv(k, _Item(chapter, number.label(), at=at), after_sect=True)
        items.extend(last)
        return k

    # -- statutes --------------------------------------------------------------

    def resolve_statute(self, st: _Statute) -> _Statute:
        """Anaphora -> antecedent (or the statute itself for "denna lag")."""
        if not st.anaphoric:
            if st.sfs is None and st.name and self.directory is not None:
                st.sfs = self.directory.resolve(st.name)
            return st
        if st.self_ref and self.self_sfs:
            return _Statute(st.name, self.self_sfs, anaphoric=True)
        if self.last_named is not None:
            return _Statute(self.last_named.name, self.last_named.sfs, anaphoric=True)
        return _Statute(st.name, None, anaphoric=True)

    def note_named(self, st: _Statute, *, alone: bool = False) -> None:
        """Remember a named statute. Named `alone` (not with a chain of its own),
        it also claims the bare chains before it in the sentence; one that
        comes with its own chain ("… i 37 kap. rättegångsbalken") does not."""
        if st.anaphoric or not (st.name or st.sfs):
            return
        self.last_named = st
        if alone:
            for index in self.orphans:
                self.refs[index] = replace(self.refs[index], sfs=st.sfs, statute_name=st.name, anaphoric=True)
        self.orphans.clear()

    def carried(self) -> _Statute | None:
        """The statute a bare chain points to: the statute whose text this is
        (`self_sfs`), else the statute named last in the text."""
        if self.self_sfs:
            return _Statute(None, self.self_sfs, anaphoric=True)
        if self.last_named is not None:
            return _Statute(self.last_named.name, self.last_named.sfs, anaphoric=True)
        return None

    def emit(self, items: list[_Item], start: int, end: int, st: _Statute | None) -> None:
        raw = self.text[start:end]
        for it in items[: max(0, MAX_REFERENCES - len(self.refs))]:
            self.refs.append(LegalReference(
                sfs=st.sfs if st else None,
                statute_name=st.name if st else None,
                chapter=it.chapter, section=it.section, stycke=it.stycke, punkt=it.punkt,
                span=(start, end), raw=raw, anaphoric=bool(st and st.anaphoric),
                unit_start=it.at if it.at is not None and it.at > start else None,
            ))

    def statute_after(self, j: int) -> int | None:
        k = j
        if self.kind(k) == "in" and self.kind(k + 1) == "statute" and self.adjacent(k, k + 1):
            k += 1
        if self.kind(k) == "statute" and k > 0 and self.adjacent(k - 1, k):
            return k
        return None

    def citing_context(self, i: int) -> bool:
        """An ambiguous abbreviation counts alone only after a citing word."""
        prev = self.toks[i - 1] if i > 0 else None
        return prev is not None and prev.kind in ("word", "in") and prev.text.lower() in _CITING_WORDS

    # -- main loop ------------------------------------------------------------

    def run(self) -> list[LegalReference]:
        toks = self.toks
        pending: tuple[int, int] | None = None  # (token index, refs index) of an unbound statute mention
        i = 0
        while i < len(toks) and len(self.refs) < MAX_REFERENCES:
            tok = toks[i]
            if tok.kind == "num":
                if self.is_heading(i):
                    i += 2
                    continue
                items, j = self.parse_chain(i)
                if items:
                    i = self.bind_chain(i, j, items, pending)
                    pending = None
                    continue
                # Every later number of a failed group fails the same way:
                # skipping it keeps long "1-1-1-…" runs linear.
                i = max(i + 1, j)
                pending = None
                continue
            if tok.kind == "article":
                i = self.bind_articles(i, pending)
                pending = None
                continue
            if tok.kind == "colon":
                k = self.colon_chain(i)
                after = self.statute_after(k)
                if after is not None:
                    st = self.resolve_statute(toks[after].value)  # type: ignore[arg-type]
                    self.emit(self.colon_items(i, k), tok.start, toks[after].end, st)
                    self.note_named(st)
                    i = after + 1
                    continue
                i += 1
                continue
            if tok.kind == "statute":
                st: _Statute = tok.value  # type: ignore[assignment]
                if self.kind(i + 1) == "colon" and self.adjacent(i, i + 1):
                    k = self.colon_chain(i + 1)
                    resolved = self.resolve_statute(st)
                    self.emit(self.colon_items(i + 1, k), tok.start, toks[k - 1].end, resolved)
                    self.note_named(resolved)
                    pending = None
                    i = k
                    continue
                resolved = self.resolve_statute(st)
                if not st.anaphoric and (not st.ambiguous or self.citing_context(i)):
                    self.emit([_Item(None, None)], tok.start, tok.end, resolved)
                    pending = (i, len(self.refs) - 1)
                    self.note_named(resolved, alone=True)
                elif st.ambiguous and self.kind(i + 1) == "num" and self.adjacent(i, i + 1):
                    pending = (i, -1)  # may still be claimed by "MB 2 kap. 3 §"
                else:
                    pending = None
                i += 1
                continue
            if tok.kind == "punct" and tok.text in ".?!;":
                self.orphans.clear()
            if tok.kind == "stycke" and self.kind(i - 1) not in ("sect",):
                items, j = self.parse_subdiv(i, _Item(None, None))
                self.emit(items, tok.start, toks[j - 1].end, None)
                i = j
                continue
            pending = None
            i += 1
        self.default_articles()
        self.refs.sort(key=lambda r: r.span[0])
        return self.refs

    # -- EU articles -----------------------------------------------------------

    def bind_articles(self, i: int, pending: tuple[int, int] | None) -> int:
        """An article token binds like a chain: to the act named right after it ("artikel 6.1 f i
        EU:s dataskyddsförordning", "art. 9.2 g GDPR") or right before it ("Förordning (EU) 2016/679
        artikel 6.1 f"), else to the EU act named earlier; else a later one in the sentence may claim it."""
        toks = self.toks
        tok = toks[i]
        after = self.statute_after(i + 1)
        if after is not None:
            st = self.resolve_statute(toks[after].value)  # type: ignore[arg-type]
            self.emit_articles(tok.value, tok.start, toks[after].end, st)  # type: ignore[arg-type]
            self.note_named(st)
            return after + 1
        other = _OTHER_ACT_AFTER_RE.match(self.text, tok.end)
        if other is not None:
            # Bound to that act by name, with no number: neither linked nor searched as one the sources hold.
            self.emit_articles(tok.value, tok.start, other.end("act"),  # type: ignore[arg-type]
                               _Statute(other.group("act"), None))
            return i + 1
        if pending is not None and pending[0] == i - 1 and self.adjacent(i - 1, i):
            if pending[1] >= 0:
                del self.refs[pending[1]]
            prev = toks[i - 1]
            st = self.resolve_statute(prev.value)  # type: ignore[arg-type]
            self.emit_articles(tok.value, prev.start, tok.end, st)  # type: ignore[arg-type]
            self.note_named(st)
            return i + 1
        carried = None
        if self.self_sfs and EU_NUMBER_RE.match(self.self_sfs):
            carried = _Statute(None, self.self_sfs, anaphoric=True)
        elif self.is_eu_act(self.last_named):
            assert self.last_named is not None
            carried = _Statute(self.last_named.name, self.last_named.sfs, anaphoric=True)
        first = len(self.refs)
        self.emit_articles(tok.value, tok.start, tok.end, carried)  # type: ignore[arg-type]
        if carried is None:
            self.orphans.extend(range(first, len(self.refs)))
        return i + 1

    def emit_articles(self, items: list[_ArticleItem], start: int, end: int, st: _Statute | None) -> None:
        raw = self.text[start:end]
        for item in items[: max(0, MAX_REFERENCES - len(self.refs))]:
            self.refs.append(LegalReference(
                sfs=st.sfs if st else None, statute_name=st.name if st else None, chapter=None, section=None,
                stycke=None, punkt=item.punkt, span=(start, end), raw=raw, anaphoric=bool(st and st.anaphoric),
                article=item.article, led=item.led,
                unit_start=item.at if item.at is not None and item.at > start else None))

    def default_articles(self) -> None:
        """In a question, an article no act claimed points to the only EU act the directory knows."""
        if self.self_sfs or self.directory is None or not self.directory.sole_eu_act:
            return
        number = self.directory.sole_eu_act
        for index, ref in enumerate(self.refs):
            if ref.article and not ref.sfs and not ref.statute_name:
                self.refs[index] = replace(ref, sfs=number, anaphoric=True)

    def bind_chain(self, i: int, j: int, items: list[_Item], pending: tuple[int, int] | None) -> int:
        toks = self.toks
        start = toks[i].start
        after = self.statute_after(j)
        if after is not None:
            st = self.resolve_statute(toks[after].value)  # type: ignore[arg-type]
            self.emit(items, start, toks[after].end, st)
            self.note_named(st)
            return after + 1
        if pending is not None and pending[0] == i - 1 and self.adjacent(i - 1, i):
            # Abbreviation-first: "LAS 7 §", "AML 3 kap. 2 §".
            if pending[1] >= 0:
                del self.refs[pending[1]]
            prev = toks[i - 1]
            st = self.resolve_statute(prev.value)  # type: ignore[arg-type]
            self.emit(items, prev.start, toks[j - 1].end, st)
            self.note_named(st)
            return j
        carried = self.carried()
        first = len(self.refs)
        self.emit(items, start, toks[j - 1].end, carried)
        if carried is None:
            self.orphans.extend(k for k in range(first, len(self.refs)) if self.refs[k].section or self.refs[k].chapter)
        return j

    def colon_chain(self, i: int) -> int:
        """COLON ((, | och) COLON)* [subdivision]; returns the index after."""
        k = i + 1
        while self.kind(k) == "list" and self.kind(k + 1) == "colon":
            k += 2
        while self.kind(k) in ("stycke", "punkt", "mening", "moment"):
            k += 1
        return k

    def colon_items(self, i: int, k: int) -> list[_Item]:
        items: list[_Item] = []
        for t in self.toks[i:k]:
            if t.kind == "colon":
                chap, sec = t.value  # type: ignore[misc]
                items.append(_Item(chap, sec, at=t.start))
            elif t.kind == "stycke" and items:
                items[-1].stycke = int(t.value)  # type: ignore[arg-type]
            elif t.kind == "punkt" and items:
                items[-1].punkt = int(t.value)  # type: ignore[arg-type]
        return items


# --------------------------------------------------------------- public API


def _prepare(text: object) -> str:
    if not isinstance(text, str) or not text:
        return ""
    return text.translate(_TRANSLATE)


def _parse(text: str, directory: StatuteDirectory | None, self_sfs: str | None) -> list[LegalReference]:
    prepared = _prepare(text)
    if not prepared.strip():
        return []
    toks = _Lexer(prepared, _raw_tokens(prepared), directory).run()
    refs = _Parser(prepared, toks, directory, self_sfs).run()
    # Spans are identical (one-to-one translation); raw must show the input.
    return [replace(r, raw=text[r.span[0] : r.span[1]]) for r in refs]


def parse_references(text: str, *, self_sfs: str | None = None) -> list[LegalReference]:
    """All legal references in `text`, in order, without name resolution.

    `sfs` is set only where the text itself gives it ("lagen (1982:80) om …",
    "SFS 1977:1160"), via an anaphor's antecedent or from the statute a bare
    chain points to (see the module docstring). Pass `self_sfs` when
    parsing a statute's own text so that "denna lag" resolves to it.
    """
    return _parse(text, None, self_sfs)


def analyse_references(
    text: str, directory: StatuteDirectory, *, self_sfs: str | None = None
) -> list[LegalReference]:
    """Like `parse_references`, and fills `sfs` from names via `directory`."""
    return _parse(text, directory, self_sfs)


def find_sfs_numbers(text: str) -> list[str]:
    """Distinct SFS numbers ("1977:1160") in order of first appearance.

    Accepts "SFS 1977:1160", "(1977:1160)" and a bare "1977:1160"; rejects
    look-alikes with a slash ("prop. 1976/77:149", "2001/23/EG", "(EU) 2016/679")
    or a case-law/inquiry prefix ("SOU 2019:1", "RH 1999:1", "Ds 2019:1").
    """
    prepared = _prepare(text)
    raw = _raw_tokens(prepared) if prepared.strip() else []
    seen: dict[str, None] = {}
    for i, tok in enumerate(raw):
        if tok.kind not in ("sfs", "paren", "bare"):
            continue
        sfs = str(tok.value)
        if not _plausible_sfs(sfs) or (tok.kind == "bare" and not _bare_sfs_ok(raw, i)):
            continue
        seen.setdefault(sfs, None)
    return list(seen)


_ORDINAL_WORDS = {v: k for k, v in _ORDINALS.items()}


def citation(ref: LegalReference, *, detailed: bool = False) -> str:
    """Canonical citation used by chunks: "3 kap. 2 a §", "7 §", "3 kap.", "artikel 6.1".

    With `detailed`, stycke and punkt are appended ("7 § första stycket 2"), and an article's led
    ("artikel 6.1 f"). Returns "" for statute-only mentions.
    """
    if ref.article:
        label = f"artikel {ref.article}" + (f".{ref.punkt}" if ref.punkt else "")
        return f"{label} {ref.led}" if detailed and ref.led else label
    parts: list[str] = []
    if ref.chapter:
        parts.append(f"{ref.chapter} kap.")
    if ref.section:
        parts.append(f"{ref.section} §")
    if detailed and ref.stycke:
        parts.append(f"{_ORDINAL_WORDS.get(ref.stycke, str(ref.stycke))} stycket")
        if ref.punkt:
            parts.append(str(ref.punkt))
    elif detailed and ref.punkt:
        parts.append(f"punkt {ref.punkt}")
    return " ".join(parts)


@dataclass(frozen=True)
class DocumentLink:
    """Where a text cites an agency regulation or an EU act: the span, the document, and the chunk citations
    of each unit the reference chain cites (`unit_citations`: the most specific first; none for the whole
    document)."""

    start: int
    end: int
    number: str
    units: tuple[tuple[str, ...], ...] = ()

    @property
    def citation(self) -> str:
        """The first cited unit's most specific citation ("artikel 9.2", "3 kap. 2 §"), "" for the document."""
        return self.units[0][0] if self.units else ""


# A text citing a regulation or an EU act by number or article says one of these. ("föreskrifter" is no sign:
# statutes use the word for any rule an authority issues.)
_REGULATION_HINT_RE = re.compile(r"[Aa]rt(?:ikel|iklar|\.)|[Aa]rticle|FS ?\d|\((?:EU|EG|EEG)\)")


def document_links(text: str, directory: StatuteDirectory, *, self_sfs: str | None = None) -> list[DocumentLink]:
    """The references in `text` (a statute's or a regulation's own text) to an agency regulation or an EU act
    the directory knows, one per reference chain: "artikel 9.2 g i EU:s dataskyddsförordning" links to
    article 9.2 of the GDPR. References to SFS statutes are left out. Texts that cannot cite one (no article,
    series number, EU number or name of such a document) are not parsed."""
    if not text or not (_REGULATION_HINT_RE.search(text)
                        or any(word in text.casefold() for word in directory.eu_act_words)):
        return []
    return _links(text, directory, self_sfs=self_sfs, statutes=False)


def statute_links(text: str, directory: StatuteDirectory, *, self_sfs: str | None = None) -> list[DocumentLink]:
    """The references in `text` (an agency regulation's own text) to SFS statutes the directory knows, one per
    reference chain: "Av 3 kap. 6 § arbetsmiljölagen (1977:1160) följer att …" links to that §, the binding
    rule the regulation restates or fills in. Texts without a § are not parsed."""
    if not text or "§" not in text:
        return []
    return _links(text, directory, self_sfs=self_sfs, statutes=True)


def reference_links(text: str, directory: StatuteDirectory, *, self_sfs: str,
                    chapter: str | None = None) -> list[DocumentLink]:
    """Every reference in a document's own text that a reader may follow, one link per unit a chain names
    ("3" and "4 §§" of "3 och 4 §§"; the units of a range between its ends go with its first): to a statute,
    regulation or EU act the directory knows (a unit of it, or the whole), and to the text's own units.

    A bare § of the text's own is its own chapter's, which the parser does not track: `chapter` (the block's) gives
    it, "" in a document without chapters; with `chapter` None (a chaptered text outside its chapters, such as its
    transitional provisions, or a text whose chapter is not known) such a § is not linked.
    """
    if not text:
        return []
    links: list[DocumentLink] = []
    for chain in _chains(analyse_references(text, directory, self_sfs=self_sfs)):
        words = _unit_words(text, chain)
        for ref, (start, end) in zip(chain, words):
            if not ref.sfs or ref.sfs not in directory:
                continue
            if ref.sfs == self_sfs and not ref.article and not ref.chapter:
                if not ref.section or chapter is None:
                    continue
                if chapter:
                    ref = replace(ref, chapter=chapter)
            _add_link(links, replace(ref, span=(start, end)))
    return links


def _chains(refs: list[LegalReference]) -> list[list[LegalReference]]:
    """`refs` (in text order) grouped by the reference chain they come from (one span)."""
    chains: list[list[LegalReference]] = []
    for ref in refs:
        if chains and chains[-1][0].span == ref.span:
            chains[-1].append(ref)
        else:
            chains.append([ref])
    return chains


# What separates two units of a chain ("3, 4 och 5 §§", "3-5 §§"): left out of either's link.
_UNIT_SEPARATOR_TAIL_RE = re.compile(r"(?:[\s,;\u2013\u2014-]|\b(?:och|eller|samt|till)\b)+\Z")


def _unit_words(text: str, chain: list[LegalReference]) -> list[tuple[int, int]]:
    """The words of each unit of a chain: from where they begin to where the next unit's begin, the separator
    between them left out; the first unit's from the chain's start and the last one's to its end (the statute
    named with them). A unit without words of its own (inside a range) shares the one before it."""
    start, end = chain[0].span
    first = chain[0].unit_start  # the chain's words before it ("artikel ", "LAS ") are the first unit's

    def own(ref: LegalReference) -> bool:
        # The parser sets unit_start only inside the chain's span, after its start (_Parser.emit).
        return ref.unit_start is not None and ref.unit_start != first

    cuts = sorted({start, *(ref.unit_start for ref in chain if own(ref))})
    bounds: dict[int, tuple[int, int]] = {}
    for index, cut in enumerate(cuts):
        stop = cuts[index + 1] if index + 1 < len(cuts) else end
        if stop < end:
            tail = _UNIT_SEPARATOR_TAIL_RE.search(text, cut, stop)
            stop = tail.start() if tail is not None and tail.start() > cut else stop
        bounds[cut] = (cut, stop)
    words: list[tuple[int, int]] = []
    for ref in chain:
        if ref.unit_start is not None and own(ref):
            words.append(bounds[ref.unit_start])
        else:
            words.append(words[-1] if words else bounds[start])
    return words


def _links(text: str, directory: StatuteDirectory, *, self_sfs: str | None, statutes: bool) -> list[DocumentLink]:
    """The references in `text` to the SFS statutes (`statutes`) or else to the other documents the directory
    knows, one link per reference chain with every unit it cites."""
    links: list[DocumentLink] = []
    for ref in analyse_references(text, directory, self_sfs=self_sfs):
        if not ref.sfs or is_sfs_number(ref.sfs) != statutes or ref.sfs not in directory:
            continue
        if ref.sfs == self_sfs and not ref.article:
            continue  # a bare "4 §" in a chaptered text is its own chapter's, which the parser does not track
        _add_link(links, ref)
    return links


def _add_link(links: list[DocumentLink], ref: LegalReference) -> None:
    """`ref` as a new link, or as one more unit of the link of the chain it belongs to."""
    unit = tuple(unit_citations(ref) or ([f"{ref.chapter} kap."] if ref.chapter else []))
    if links and links[-1].start == ref.span[0]:
        if unit and unit not in links[-1].units:
            links[-1] = replace(links[-1], units=(*links[-1].units, unit))
        return
    links.append(DocumentLink(ref.span[0], ref.span[1], ref.sfs or "", (unit,) if unit else ()))


def unit_citations(ref: LegalReference) -> list[str]:
    """The chunk citations that can hold the unit `ref` cites, the most specific first: a § is its own
    citation ("3 kap. 2 §"); an article's punkt is "artikel 6.1" in an article chunked by punkt, else
    inside "artikel 6". A led is never a chunk of its own. [] for a reference to a whole document."""
    if ref.article:
        whole = f"artikel {ref.article}"
        return [f"{whole}.{ref.punkt}", whole] if ref.punkt else [whole]
    if ref.section:
        return [citation(ref)]
    return []
