"""Document numbers (beteckningar) of the legal corpus and their URL form.

    "1977:1160"          SFS (also historical: "1736:0123 2", "1909:bih. 29 s.1")
    "AFS 2023:10"        an agency regulation: series, year, running number
    "(EU) 2016/679"      an EU regulation

A number may hold spaces, parentheses and a slash, none of which belong in a URL path
segment, so a page's URL uses a slug that maps back to exactly one number:

    "1977:1160"        <-> "1977:1160"      (unchanged: old /lag/1977:1160 links keep working)
    "AFS 2023:10"      <-> "AFS_2023:10"
    "1736:0123 2"      <-> "1736:0123_2"
    "(EU) 2016/679"    <-> "EU_2016-679"

No number holds "_", so the mapping is reversible.
"""

from __future__ import annotations

import re

SFS_NUMBER_RE = re.compile(r"^(1[6-9]\d\d|20\d\d):[1-9]\d{0,3}$")
# Old statutes still in force keep numbers from before the running numbering:
# "1736:0123 2" (Handelsbalken), "1909:bih. 29 s.1" (a bihang), "1907:36 s. 22" (a page of a year's
# volume), "1899:bih. 25".
HISTORICAL_SFS_RE = re.compile(r"^1[6-9]\d\d:(?:\d{1,4}(?: \d{1,3})?|(?:bih\. ?)?\d{1,3} s\. ?\d{1,4}|bih\. ?\d{1,3})$")
# "AFS 2023:1", "ELSÄK-FS 2022:1", "MSBFS 2020:1", "MCFFS 2021:2".
AGENCY_NUMBER_RE = re.compile(r"^(?P<series>[A-ZÅÄÖ]{2,8}(?:-[A-ZÅÄÖ]{2,4})?) (?P<year>(?:19|20)\d\d):(?P<n>\d{1,4})$")
EU_NUMBER_RE = re.compile(r"^\((?P<family>EU|EG|EEG)\) (?P<year>(?:19|20)\d\d)/(?P<n>\d{1,4})$")

DOCUMENT_NUMBER_MAX_LENGTH = 40

_EU_SLUG_RE = re.compile(r"^(EU|EG|EEG)_((?:19|20)\d\d)-(\d{1,4})$")


def is_document_number(value: str) -> bool:
    value = value or ""
    return bool(SFS_NUMBER_RE.match(value) or HISTORICAL_SFS_RE.match(value)
                or AGENCY_NUMBER_RE.match(value) or EU_NUMBER_RE.match(value))


def is_sfs_number(value: str) -> bool:
    """A statute's number, modern or historical (not an agency or EU regulation)."""
    return bool(SFS_NUMBER_RE.match(value or "") or HISTORICAL_SFS_RE.match(value or ""))


def agency_series(value: str) -> str:
    """"AFS" for "AFS 2023:1"; "" for any other number."""
    match = AGENCY_NUMBER_RE.match(value or "")
    return match["series"] if match else ""


def document_slug(number: str) -> str:
    """The URL form of a number (see the module docstring)."""
    match = EU_NUMBER_RE.match(number or "")
    if match:
        return f"{match['family']}_{match['year']}-{match['n']}"
    return (number or "").replace(" ", "_")


def number_from_slug(slug: str) -> str:
    """The number a slug stands for; a number given as such (spaces, "(EU) …") is returned as it is."""
    match = _EU_SLUG_RE.match(slug or "")
    if match:
        return f"({match[1]}) {match[2]}/{match[3]}"
    return (slug or "").replace("_", " ")


_LOOSE_EU_RE = re.compile(r"\(?\b(EU|EG|EEG)\)?\s*(?:nr\.?\s*)?((?:19|20)\d\d)\s*/\s*(\d{1,4})\b", re.IGNORECASE)
_LOOSE_AGENCY_RE = re.compile(r"\b([A-ZÅÄÖ]{2,8}(?:-[A-ZÅÄÖ]{2,4})?)\s*((?:19|20)\d\d)\s*:\s*(\d{1,4})\b",
                              re.IGNORECASE)
_LOOSE_SFS_RE = re.compile(r"(?<![\d/])(1[6-9]\d\d|20\d\d)\s*:\s*(\d{1,4})(?![\d/])")


def document_number_in(text: str) -> str:
    """The document number a person wrote, in the corpus's form, or "" when there is none: how a list from
    another service writes it ("SFS 1977:1160", "1977: 1160", "AFS2023:1", "afs 2023:01",
    "(EU) 2016/679", "EU 2016/679", "förordning (EU) nr 2016/679")."""
    # "SFS 1977:1160" has the shape of an agency number ("AFS 2023:1"): the SFS prefix is no series.
    text = re.sub(r"^\s*SFS\s*(?:nr\.?\s*)?", "", text or "", flags=re.IGNORECASE).strip()
    if not text:
        return ""
    if is_document_number(text):
        return text
    match = _LOOSE_EU_RE.search(text)
    if match:
        return f"({match[1].upper()}) {match[2]}/{int(match[3])}"
    match = _LOOSE_AGENCY_RE.search(text)
    if match and match[1].upper() != "SFS":
        candidate = f"{match[1].upper()} {match[2]}:{int(match[3])}"
        if AGENCY_NUMBER_RE.match(candidate):
            return candidate
    match = _LOOSE_SFS_RE.search(text)
    if match:
        candidate = f"{match[1]}:{int(match[2])}"
        if SFS_NUMBER_RE.match(candidate):
            return candidate
    return ""


def document_number_candidates(text: str) -> list[str]:
    """The numbers `text` may mean, most likely first: "MBL 1976:580" reads like an agency number but is
    likely the statute 1976:580 with its abbreviation before it, so both are candidates."""
    first = document_number_in(text)
    candidates = [first] if first else []
    if AGENCY_NUMBER_RE.match(first or ""):
        match = _LOOSE_SFS_RE.search(first)
        if match and SFS_NUMBER_RE.match(f"{match[1]}:{int(match[2])}"):
            candidates.append(f"{match[1]}:{int(match[2])}")
    return candidates
