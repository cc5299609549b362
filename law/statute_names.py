"""Short names and abbreviations of Swedish statutes.

Statutes are cited in running text by their short name in definite form
("arbetsmiljölagen", "lagen om anställningsskydd") or by an abbreviation
("AML", "LAS"), never by the official title ("Arbetsmiljölag (1977:1160)").
`names_for` derives the short name from the title and adds a curated table of
abbreviations and colloquial names for the statutes in our corpus
(data/sfs/index.tsv). `name_key` folds a name to an inflection-free lookup key
so "arbetsmiljölagens", "Arbetsmiljölag" and "arbetsmiljölagen" compare equal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from compliance.numbers import AGENCY_NUMBER_RE, EU_NUMBER_RE

__all__ = [
    "AMBIGUOUS_ABBREVIATIONS",
    "CURATED",
    "StatuteNames",
    "is_ambiguous_abbreviation",
    "name_key",
    "names_for",
    "regulation_names",
    "strip_inflection",
]


@dataclass(frozen=True)
class StatuteNames:
    short_names: list[str] = field(default_factory=list)
    abbreviations: list[str] = field(default_factory=list)


# sfs -> (colloquial short names, abbreviations). Only statutes present in
# data/sfs/index.tsv (a test checks this). Abbreviations are matched
# case-sensitively in text, so list every spelling that is in real use.
CURATED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "1915:218": (("avtalslagen",), ("AvtL",)),
    "1942:740": ((), ("RB",)),
    "1949:105": ((), ("TF",)),
    "1960:729": (("upphovsrättslagen",), ("URL",)),
    "1962:700": ((), ("BrB", "BRB")),
    "1970:215": (("kvittningslagen",), ()),
    "1970:979": ((), ("FRL",)),
    "1970:994": ((), ("JB",)),
    "1971:69": ((), ("SBL",)),
    "1971:291": ((), ("FPL",)),
    "1972:207": ((), ("SkL",)),
    "1973:1173": ((), ("KuL",)),
    "1974:152": (("regeringsformen",), ("RF",)),
    "1974:358": (("förtroendemannalagen",), ("FML",)),
    "1974:371": (("arbetstvistlagen",), ("LRA",)),
    "1974:981": (("studieledighetslagen",), ()),
    "1976:580": (("medbestämmandelagen",), ("MBL",)),
    "1977:480": ((), ("SemL",)),
    "1977:1160": ((), ("AML",)),
    "1977:1166": ((), ("AMF",)),
    "1980:1102": (("handelsbolagslagen",), ("HBL",)),
    "1981:774": ((), ("UB",)),
    "1982:80": (("anställningsskyddslagen",), ("LAS",)),
    "1982:673": ((), ("ATL",)),
    "1985:716": ((), ("KtjL",)),
    "1986:796": (("godtrosförvärvslagen", "godtroslagen"), ()),
    "1987:672": ((), ("KonkL",)),
    "1987:1245": (("styrelserepresentationslagen",), ()),
    "1990:782": ((), ("ArkL",)),
    "1990:931": ((), ("KöpL",)),
    "1991:980": ((), ("LHF",)),
    "1991:1047": (("sjuklönelagen",), ("SjLL",)),
    "1991:1469": ((), ("YGL",)),
    "1994:260": ((), ("LOA",)),
    "1994:1512": (("avtalsvillkorslagen",), ()),
    "1995:584": ((), ("FLL",)),
    "1995:1554": ((), ("ÅRL",)),
    "1997:238": (("arbetslöshetsförsäkringslagen",), ("ALF",)),
    "1998:808": ((), ("MB",)),
    "1999:678": (("utstationeringslagen",), ()),
    "1999:1078": ((), ("BFL",)),
    "1999:1229": ((), ("IL",)),
    "2000:980": ((), ("SAL",)),
    "2002:562": (("e-handelslagen",), ()),
    "2002:599": (("grupprättegångslagen",), ("LGR",)),
    "2003:778": ((), ("LSO",)),
    "2004:297": ((), ("LBF",)),
    "2005:59": (("distansavtalslagen",), ()),
    "2005:551": ((), ("ABL",)),
    "2005:716": ((), ("UtlL",)),
    "2007:528": ((), ("LVM",)),
    "2008:355": ((), ("PDL",)),
    "2008:486": ((), ("MFL",)),
    "2008:567": ((), ("DL",)),
    "2009:400": (("sekretesslagen",), ("OSL",)),
    "2010:110": ((), ("SFB",)),
    "2010:659": ((), ("PSL",)),
    "2010:751": (("betaltjänstlagen",), ("LBT",)),
    "2010:900": ((), ("PBL",)),
    "2010:1011": ((), ("LBE",)),
    "2010:1846": ((), ("KkrL",)),
    "2010:1932": ((), ("DelgL",)),
    "2011:1244": ((), ("SFL",)),
    "2016:1145": ((), ("LOU",)),
    "2016:1146": ((), ("LUF",)),
    "2016:1147": ((), ("LUK",)),
    "2017:30": ((), ("HSL",)),
    "2017:630": (("penningtvättslagen",), ("PTL",)),
    "2017:900": ((), ("FL",)),
    "2018:218": (("dataskyddslagen",), ("DSL",)),
    "2018:672": (("föreningslagen",), ("EFL",)),
    "2018:1653": (("företagsnamnslagen",), ()),
    "2018:2088": (("tobakslagen",), ("LTLP",)),
    "2021:890": (("visselblåsarlagen",), ()),
    "2022:260": ((), ("KKL",)),
    "2022:482": ((), ("LEK",)),
    "2022:964": (("rekonstruktionslagen",), ()),
    "2023:200": (("momslagen",), ("ML",)),
}

# Abbreviations that are also ordinary tokens (MB = megabyte, AML = anti-money
# laundering, DSL, URL, ML = machine learning, two-letter codes). Text
# detection only accepts them next to a reference ("7 § MB", "MB 2:3") or
# after a citing word ("enligt MB"); see legal_refs.
AMBIGUOUS_ABBREVIATIONS: frozenset[str] = frozenset(
    {"AML", "DSL", "URL", "HSL", "LVM", "EFL", "SAL", "ALF", "LEK", "LOA", "PSL", "PDL"}
)


def is_ambiguous_abbreviation(abbreviation: str) -> bool:
    return len(abbreviation) <= 2 or abbreviation in AMBIGUOUS_ABBREVIATIONS


# Head words of statute names and the inflections they take in running text.
# Older acts are also "kungörelser" and "stadgor" ("ordningsstadgan").
_HEADS = ("grundlag", "lag", "balk", "förordning", "form", "ordning", "kungörelse", "stadga")
# "-ns"/"-n" for heads that end in a vowel: "kungörelsens", "stadgan".
_SUFFIXES = ("ens", "en", "s", "ns", "n")
_SFS_PAREN_RE = re.compile(r"\(\s*(?:SFS\s*)?\d{4}:\d{1,4}[^)]{0,10}\)")
_TITLE_RE = re.compile(
    r"^(?P<head>Lag|Förordning|Kungörelse|Stadga)\s*(?:\([^)]*\))?\s*(?P<rest>(?:om|med|till)\b.*)$",
    re.IGNORECASE,
)
_SPECIAL_TITLES: dict[str, list[str]] = {
    # The instrument of government is formally a promulgation notice.
    "1974:152": ["regeringsformen", "kungörelsen om beslutad ny regeringsform"],
}


# An agency's regulations are cited by the plural head word in any form: "föreskrifterna", "föreskrifters".
_FORESKRIFT_RE = re.compile(r"^föreskrift(?:en|ens|er|erna|ernas|ers|s)?$")


def strip_inflection(word: str) -> str:
    """Fold a statute head word to its indefinite form: "lagens" -> "lag", "föreskrifterna" -> "föreskrift"."""
    low = word.lower()
    if low.startswith("föreskrift") and _FORESKRIFT_RE.match(low):
        return "föreskrift"
    for suffix in (*_SUFFIXES, ""):
        if suffix and not low.endswith(suffix):
            continue
        base = low[: len(low) - len(suffix)] if suffix else low
        if base.endswith(_HEADS):
            return base
    return low


def name_key(name: str) -> str:
    """Inflection- and case-insensitive lookup key for a statute name."""
    cleaned = _SFS_PAREN_RE.sub(" ", name)
    words = [w.strip(",;:!?.()\"'") for w in cleaned.split()]
    return " ".join(strip_inflection(w) for w in words if w)


def _definite(word: str) -> str:
    # Head words take -en ("lag" -> "lagen"), or -n after a vowel ("kungörelse", "stadga").
    return word + ("n" if word.endswith(("e", "a")) else "en")


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def derive_short_name(sfs: str, title: str) -> list[str]:
    """Definite short name(s) derived from an official title."""
    if sfs in _SPECIAL_TITLES:
        return list(_SPECIAL_TITLES[sfs])
    clean = " ".join(title.split())
    match = _TITLE_RE.match(clean)
    if match:
        head = _definite(match.group("head").lower())
        return [f"{head} {match.group('rest').strip()}"]
    # "Arbetsmiljölag (1977:1160)", "Offentlighets- och sekretesslag (2009:400)"
    base = _SFS_PAREN_RE.sub("", clean).strip()
    if not base:
        return []
    return [_definite(_lower_first(base))]


def names_for(sfs: str, title: str) -> StatuteNames:
    """Short names (definite form) and abbreviations for one statute."""
    short = derive_short_name(sfs, title)
    colloquial, abbreviations = CURATED.get(sfs, ((), ()))
    for name in colloquial:
        if name not in short:
            short.append(name)
    return StatuteNames(short_names=short, abbreviations=list(abbreviations))


# --- agency regulations and EU acts: names derived from their titles --------------------------------

# Page furniture the extraction left in some titles: a footnote mark glued to a word ("föreskrifter1"),
# a trailing "; Boverkets författningssamling" or "; 1".
_FOOTNOTE_RE = re.compile(r"(?<=[a-zåäö])\d+\b")
_TRAILER_RE = re.compile(r";.*$")
# A number written inside the title: "Kemikalieinspektionens föreskrifter (KIFS 2017:7) om …", "(2013:8)".
_NUMBER_IN_TITLE_RE = re.compile(r"\s*\((?:[A-ZÅÄÖ-]+\s)?\d{4}:\s?\d+\)")
# "… föreskrifter och allmänna råd om X": the regulation is cited as "… föreskrifter om X" too.
_AND_ADVICE_RE = re.compile(r"\bföreskrifter och allmänna råd\b")
# "<agency>s föreskrifter om X" -> "föreskrifterna om X".
_AGENCY_HEAD_RE = re.compile(r"^.*?\bföreskrifter (?P<rest>(?:om|för) .+)$")
# "Allmän dataskyddsförordning (GDPR)": an acronym in parentheses at the end of an EU act's title.
_ACRONYM_RE = re.compile(r"\s*\((?P<acronym>[A-ZÅÄÖ]{2,10})\)\s*$")


def regulation_names(number: str, title: str) -> StatuteNames:
    """Names an agency regulation or an EU act is cited by, derived from its title; nothing for a statute.

    An agency regulation "Arbetsmiljöverkets föreskrifter och allmänna råd om systematiskt arbetsmiljöarbete –
    grundläggande skyldigheter …" is cited without the subtitle after the dash, without "och allmänna råd", and
    without the agency ("föreskrifterna om systematiskt arbetsmiljöarbete"). Several regulations can share such a
    short form ("Arbetsmiljöverkets föreskrifter om produkter"): the directory drops a derived name that more than
    one document has. An EU act "Allmän dataskyddsförordning (GDPR)" is cited by the acronym and by the head of its
    short title, definite or as "EU:s …" ("dataskyddsförordningen", "EU:s dataskyddsförordning").
    """
    clean = " ".join(_TRAILER_RE.sub("", _FOOTNOTE_RE.sub("", title or "")).split())
    if EU_NUMBER_RE.match(number or ""):
        return _eu_names(clean)
    if not AGENCY_NUMBER_RE.match(number or ""):
        return StatuteNames()
    base = " ".join(_NUMBER_IN_TITLE_RE.sub("", clean).split())
    variants = [base, base.split(" – ", 1)[0].strip()]
    variants += [_AND_ADVICE_RE.sub("föreskrifter", v) for v in variants]
    short = list(variants)
    for variant in variants:
        match = _AGENCY_HEAD_RE.match(variant)
        if match:
            short.append(f"föreskrifterna {match['rest']}")
    own = name_key(title)
    return StatuteNames(short_names=[n for n in dict.fromkeys(short) if n and name_key(n) != own])


def _eu_names(title: str) -> StatuteNames:
    acronym = _ACRONYM_RE.search(title)
    base = _ACRONYM_RE.sub("", title).strip()
    words = base.split()
    short: list[str] = []
    if words and words[-1].lower().endswith("förordning"):
        head = words[-1].lower()
        short += [_definite(head), f"EU:s {head}"]
    return StatuteNames(short_names=short, abbreviations=[acronym["acronym"]] if acronym else [])
