"""Records of Regeringskansliets rättsdatabaser's SFS API (the `sfst` service's JSON): reading,
validating and normalising them into what the corpus holds.

The service's text is hard-wrapped at about 65 characters with CRLF line ends; the corpus (and the
parser) expects the layout of data/sfs/README.md: one paragraph per block, blocks separated by one
blank line, tables keeping their line breaks. `normalise_text` does what the corpus extraction did.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from compliance.models import SFS_NUMBER_RE

# Every field the service sends (docs: ../shared/data/sfs/README.md). A field outside these sets is
# reported: the format changed and we may be misreading it.
RECORD_FIELDS = frozenset({
    "andringsforfattningar", "arkiverad", "beteckning", "beteckningSortable", "dokumenttyp",
    "forfattningstypNamn", "fulltext", "grundforfattningId", "historisk", "ikraftDateTime",
    "ikraftDenDagenRegeringenBestammer", "ikraftOvergangsbestammelse", "lopnummer", "notis",
    "organisation", "previousId", "publicerad", "publiceradDateTime", "publiceringsar", "register",
    "rubrik", "skapadDateTime", "tidsbegransadDateTime", "uppdateradDateTime", "upphavdDateTime",
    "upphavdDenDagenRegeringenBestammer", "upphavdOvergangsbestammelse", "utkast",
})
FULLTEXT_FIELDS = frozenset({
    "andringInford", "arkiverad", "forfattningstext", "fulltextInformationId", "historisk", "omtryck",
    "ovrigt", "publicerad", "publiceradDateTime", "skapadDateTime", "uppdateradDateTime", "upphavdGenom",
    "utfardadDateTime", "utkast", "utkastId",
})
REQUIRED_FIELDS = ("beteckning", "rubrik", "fulltext")
# The fields the importer reads: the compact copy in data/sfs keeps these, and the record hash is
# taken over them, so the full record and its compact copy are the same version.
USED_FIELDS = ("beteckning", "rubrik", "forfattningstypNamn", "upphavdDateTime", "ikraftDateTime",
               "organisation", "andringsforfattningar", "fulltext")
USED_FULLTEXT_FIELDS = ("fulltextInformationId", "andringInford", "upphavdGenom", "omtryck",
                        "utfardadDateTime", "ovrigt", "uppdateradDateTime", "forfattningstext")
USED_AMENDMENT_FIELDS = ("beteckning", "rubrik", "ikraftDateTime", "anteckningar")

_SFS_IN_RE = re.compile(r"(\d{4}):(\d+)")
# A § that starts a line, as the parser reads one (law.sfs_parser.SECTION_RE): its text opens with an
# uppercase letter or a marker. "9 b § döms …" at a line start is a reference wrapped there, not a §.
_SECTION_START_RE = re.compile(r"^\d+ (?:[a-z] )?§ (?=[A-ZÅÄÖÉ/])")
_TABLE_RE = re.compile(r"\t| {3,}")
_HYPHEN_KEEP_SPACE = ("och", "eller", "samt", "resp", "respektive", "till")


class RecordError(ValueError):
    """A record that cannot be imported; the message names what is wrong."""


@dataclass(frozen=True)
class AmendingAct:
    sfs: str
    title: str
    in_force: date | None
    notes: str


@dataclass(frozen=True)
class OfficialRecord:
    sfs: str
    title: str
    kind: str                 # "Lag", "Förordning", …
    text: str                 # normalised to the corpus layout
    amended_through: str      # "SFS 2025:1079" ("" when never amended)
    issued: date | None
    in_force: date | None
    repealed_on: date | None
    repealed_by: str          # "SFS 2025:1506"
    department: str
    record_id: str
    record_hash: str
    updated: str
    amending_acts: dict[str, AmendingAct] = field(default_factory=dict)

    @property
    def repealed(self) -> bool:
        return self.repealed_on is not None or bool(self.repealed_by)


def sfs_number_in(value: str | None) -> str:
    """"2025:1079" out of "t.o.m. SFS 2025:1079"; "" if none."""
    year, number = sfs_key(value)
    return f"{year}:{number}" if year else ""


def sfs_key(value: str | None) -> tuple[int, int]:
    """(year, number) of the SFS number in "t.o.m. SFS 2025:1079" / "SFS 2023:349"; (0, 0) if none."""
    match = _SFS_IN_RE.search(value or "")
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def _date(value: object, name: str) -> date | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise RecordError(f"{name}: inte ett datum ({value!r})")
    try:
        return date.fromisoformat(value[:10])
    except ValueError as exc:
        raise RecordError(f"{name}: inte ett datum ({value!r})") from exc


def compact_record(raw: dict) -> dict:
    """The fields the importer reads, in a fixed shape (what data/sfs ships and what is hashed)."""
    out = {key: raw.get(key) for key in USED_FIELDS if key != "fulltext"}
    out["organisation"] = {"namn": (raw.get("organisation") or {}).get("namn")}
    out["fulltext"] = {key: (raw.get("fulltext") or {}).get(key) for key in USED_FULLTEXT_FIELDS}
    out["andringsforfattningar"] = [
        {key: act.get(key) for key in USED_AMENDMENT_FIELDS}
        for act in (raw.get("andringsforfattningar") or []) if isinstance(act, dict)
    ]
    return out


def record_hash(raw: dict) -> str:
    canonical = json.dumps(compact_record(raw), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def parse_record(raw: object) -> OfficialRecord:
    """Validate one record and normalise it. Raises RecordError naming the problem."""
    if not isinstance(raw, dict):
        raise RecordError("posten är inte ett JSON-objekt")
    unknown = set(raw) - RECORD_FIELDS
    if unknown:
        raise RecordError(f"okända fält: {', '.join(sorted(unknown))}")
    missing = [name for name in REQUIRED_FIELDS if raw.get(name) in (None, "")]
    if missing:
        raise RecordError(f"fält saknas: {', '.join(missing)}")
    sfs = raw["beteckning"]
    if not isinstance(sfs, str) or not SFS_NUMBER_RE.match(sfs):
        raise RecordError(f"SFS-numret går inte att tolka: {sfs!r}")
    fulltext = raw["fulltext"]
    if not isinstance(fulltext, dict):
        raise RecordError("fulltext är inte ett objekt")
    unknown = set(fulltext) - FULLTEXT_FIELDS
    if unknown:
        raise RecordError(f"okända fält i fulltext: {', '.join(sorted(unknown))}")
    text = fulltext.get("forfattningstext")
    if not isinstance(text, str) or not text.strip():
        raise RecordError("forfattningstext saknas eller är tom")
    amended = fulltext.get("andringInford") or ""
    if amended and sfs_key(amended) == (0, 0):
        raise RecordError(f"andringInford går inte att tolka: {amended!r}")
    acts = {}
    for act in raw.get("andringsforfattningar") or []:
        if isinstance(act, dict) and isinstance(act.get("beteckning"), str):
            acts[act["beteckning"]] = AmendingAct(
                sfs=act["beteckning"], title=act.get("rubrik") or "",
                in_force=_date(act.get("ikraftDateTime"), "andringsforfattningar.ikraftDateTime"),
                notes=act.get("anteckningar") or "")
    amended_through = f"SFS {sfs_number_in(amended)}" if amended else ""
    return OfficialRecord(
        sfs=sfs,
        title=" ".join(str(raw["rubrik"]).split()),
        kind=raw.get("forfattningstypNamn") or "",
        text=normalise_text(text),
        amended_through=amended_through,
        issued=_date(fulltext.get("utfardadDateTime"), "utfardadDateTime"),
        in_force=_date(raw.get("ikraftDateTime"), "ikraftDateTime"),
        repealed_on=_date(raw.get("upphavdDateTime"), "upphavdDateTime"),
        repealed_by=fulltext.get("upphavdGenom") or "",
        department=(raw.get("organisation") or {}).get("namn") or "",
        record_id=str(fulltext.get("fulltextInformationId") or ""),
        record_hash=record_hash(raw),
        updated=fulltext.get("uppdateradDateTime") or raw.get("uppdateradDateTime") or "",
        amending_acts=acts,
    )


@dataclass(frozen=True)
class RawLine:
    """One line of a records file: the decoded record, or why it could not be decoded."""

    line_no: int
    record: object = None
    error: str = ""

    @property
    def name(self) -> str:
        if isinstance(self.record, dict) and isinstance(self.record.get("beteckning"), str):
            return f"rad {self.line_no} (SFS {self.record['beteckning']})"
        return f"rad {self.line_no}"


def read_records(path: Path) -> Iterator[RawLine]:
    """Each non-empty line of a .jsonl or .jsonl.gz file; a line that is not JSON is reported, not raised."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                yield RawLine(line_no, json.loads(line))
            except json.JSONDecodeError as exc:
                yield RawLine(line_no, error=f"inte giltig JSON ({exc.msg}, kolumn {exc.colno})")


def records_by_hash(path: Path) -> dict[str, OfficialRecord]:
    """The records of a file that read as records, by `record_hash`: what versions applied from them store. A
    line that does not read is left out here; `sync_sfs` names it."""
    found: dict[str, OfficialRecord] = {}
    for line in read_records(path):
        if line.error:
            continue
        try:
            record = parse_record(line.record)
        except RecordError:
            continue
        found[record.record_hash] = record
    return found


# --- text layout ---------------------------------------------------------------------------------

def _join(lines: list[str]) -> str:
    out = ""
    for line in lines:
        if not out:
            out = line
            continue
        if out.endswith("-") and line[:1].islower() and not out.endswith(" -"):
            head = re.search(r"(\w+)-$", out)
            tail = re.match(r"\w+", line)
            if tail and tail.group() in _HYPHEN_KEEP_SPACE:
                out = f"{out} {line}"  # "bygg- och rivningsåtgärder": a real hyphen before "och"
            elif head and tail and head.group(1).islower() and len(head.group(1)) >= 3 and len(tail.group()) >= 3:
                out = out[:-1] + line  # a word broken at the line end: "tjänst-/göringsskyldighet"
            else:
                out = out + line
        else:
            out = f"{out} {line}"
    return out


def normalise_text(text: str) -> str:
    """The service's hard-wrapped text in the corpus layout (data/sfs/README.md, "Text layout")."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ")
    paragraphs: list[str] = []
    for block in re.split(r"\n[ \t]*\n", text):
        lines = [line.rstrip() for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        if any(_TABLE_RE.search(line.strip()) for line in lines) and len(lines) > 1:
            paragraphs.append("\n".join(lines))
            continue
        current: list[str] = []
        for line in lines:
            line = line.strip()
            # A § run on without a blank line after a sentence's end starts a new paragraph ("5 kap." ends a
            # reference, not a sentence). List items on lines of their own stay joined, as the 2024 corpus has
            # them: splitting them made more unchanged §§ differ in layout from it (measured on the 2026 records).
            if current and current[-1].endswith(".") and not current[-1].endswith(" kap.") \
                    and _SECTION_START_RE.match(line):
                paragraphs.append(_join(current))
                current = []
            current.append(line)
        paragraphs.append(_join(current))
    return "\n\n".join(paragraphs)
