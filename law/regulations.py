"""The shipped agency regulations and the GDPR as legal documents.

`data/foreskrifter/foreskrifter.jsonl.gz` and `data/eu/gdpr.jsonl.gz` (written by
law.extract) hold one record per regulation. `regulation_from_record` turns a record into
what `compliance.services.legal_document_upsert` stores: the metadata, a plain full text
(what the page shows while the document is chunked, and what its hash is taken of) and
the *structure*: the units in document order, in one shape for both kinds of regulation,
from which chunks.regulation_chunking builds the chunks.

A unit of the structure:
    kind       "inledning", "kapitel", "paragraf", "allmänt råd", "övergångsbestämmelser",
               "bilaga", "artikel", "skäl"
    citation   "2 kap. 3 §", "2 kap. 3 § allmänna råd", "Bilaga 1", "artikel 6", "skäl 4"
    binding    False for allmänna råd and recitals: advice and reasons, never a rule
    avdelning, chapter, chapter_title, section, heading, title, url: where they apply, else ""
    text       the unit's text, stycken separated by blank lines
    parts      articles only: [{"citation": "artikel 6.1", "text": …}] per numbered punkt
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from compliance.models import LegalDocument
from compliance.numbers import AGENCY_NUMBER_RE, EU_NUMBER_RE
from compliance.services import LegalDocumentData

REPO_ROOT = Path(__file__).resolve().parents[1]
FORESKRIFTER_PATH = REPO_ROOT / "data" / "foreskrifter" / "foreskrifter.jsonl.gz"
GDPR_PATH = REPO_ROOT / "data" / "eu" / "gdpr.jsonl.gz"

_REGULATION_KINDS = {"inledning", "kapitel", "paragraf", "allmänt råd", "övergångsbestämmelser", "bilaga"}
# How the GDPR is named in Swedish text, for the reference parser and the list's search.
GDPR_SHORT_NAMES = ["dataskyddsförordningen", "EU:s dataskyddsförordning", "allmänna dataskyddsförordningen"]
GDPR_ABBREVIATIONS = ["GDPR"]
# A title that announces advice only ("… allmänna råd om egenkontroll"), no föreskrifter.
_ADVICE_ONLY_RE = re.compile(r"^\S+ allmänna råd\b")


class RecordError(ValueError):
    """A record that cannot be loaded; the message says why (in Swedish, for the command's report)."""


@dataclass(frozen=True)
class SourceRecord:
    """One line of a shipped file: its name for reports (the designation, else file and line) and its data."""

    name: str
    data: dict | None
    error: str = ""


def read_records(path: Path) -> Iterator[SourceRecord]:
    """The records of a .jsonl.gz file. A line that is not a JSON object is yielded with its error,
    so one bad line is reported and the rest still loads."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line_number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            name = f"{path.name}:{line_number}"
            try:
                data = json.loads(line)
            except json.JSONDecodeError as error:
                yield SourceRecord(name, None, f"ogiltig JSON ({error.msg})")
                continue
            if not isinstance(data, dict):
                yield SourceRecord(name, None, "raden är inte ett JSON-objekt")
                continue
            yield SourceRecord(str(data.get("designation") or name), data)


def regulation_from_record(record: dict) -> LegalDocumentData:
    """An agency regulation's or an EU regulation's record as a legal document; RecordError if malformed."""
    if "articles" in record or record.get("kind") == "EU-förordning":
        return _eu_regulation(record)
    return _agency_regulation(record)


def _require(record: dict, key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RecordError(f"fältet {key!r} saknas eller är tomt")
    return value.strip()


def _date(record: dict, key: str) -> date | None:
    value = record.get(key)
    if value in (None, ""):
        return None
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise RecordError(f"fältet {key!r} är inget datum: {value!r}") from None


def _agency_regulation(record: dict) -> LegalDocumentData:
    number = _require(record, "designation")
    if not AGENCY_NUMBER_RE.match(number):
        raise RecordError(f"ogiltig beteckning {number!r} (väntat t.ex. AFS 2023:1)")
    units = record.get("units")
    if not isinstance(units, list) or not units:
        raise RecordError("inga enheter (units) i posten")
    structure = [_agency_unit(unit, index) for index, unit in enumerate(units)]
    if not any(u["text"] for u in structure):
        raise RecordError("posten saknar text")
    title = _require(record, "title")
    if _ADVICE_ONLY_RE.search(title):
        # "Naturvårdsverkets allmänna råd om …": the whole document is advice, none of it binding.
        structure = [{**u, "kind": "allmänt råd", "binding": False} for u in structure]
    basis = record.get("legal_basis") or {}
    issued = _date(record, "issued")
    in_force = _date(record, "in_force")
    return LegalDocumentData(
        sfs_number=number,
        title=title,
        full_text=render_text(structure),
        content_type=LegalDocument.ContentType.AGENCY_REGULATION,
        issued=issued,
        in_force=in_force.isoformat() if in_force else "",
        in_force_date=in_force,
        source=str(record.get("source") or ""),
        agency=str(record.get("agency") or ""),
        series=str(record.get("series") or AGENCY_NUMBER_RE.match(number)["series"]),
        legal_basis=str(basis.get("text") or ""),
        legal_basis_sfs=[str(n) for n in basis.get("sfs") or []],
        structure=structure,
    )


def _agency_unit(unit: dict, index: int) -> dict:
    if not isinstance(unit, dict):
        raise RecordError(f"enhet {index} är inget objekt")
    kind = unit.get("kind")
    if kind not in _REGULATION_KINDS:
        raise RecordError(f"enhet {index} har okänd typ {kind!r}")
    stycken = unit.get("stycken")
    if not isinstance(stycken, list) or not all(isinstance(s, str) for s in stycken):
        raise RecordError(f"enhet {index} ({unit.get('citation') or kind}) saknar text (stycken)")
    return {
        "kind": kind,
        "citation": str(unit.get("citation") or ""),
        "binding": bool(unit.get("binding", kind != "allmänt råd")) and kind != "allmänt råd",
        "avdelning": str(unit.get("avdelning") or ""),
        "chapter": str(unit.get("chapter") or ""),
        "chapter_title": str(unit.get("chapter_title") or ""),
        "section": str(unit.get("section") or ""),
        "heading": str(unit.get("heading") or ""),
        "title": str(unit.get("title") or ""),
        "url": "",
        "text": "\n\n".join(s.strip() for s in stycken if s.strip()),
    }


def _eu_regulation(record: dict) -> LegalDocumentData:
    number = _require(record, "number")
    if not EU_NUMBER_RE.match(number):
        raise RecordError(f"ogiltig beteckning {number!r} (väntat t.ex. (EU) 2016/679)")
    articles = record.get("articles")
    if not isinstance(articles, list) or not articles:
        raise RecordError("inga artiklar i posten")
    structure = [_recital(r, i) for i, r in enumerate(record.get("recitals") or [])]
    structure += [_article(a, i) for i, a in enumerate(articles)]
    return LegalDocumentData(
        sfs_number=number,
        title=_require(record, "title"),
        full_text=render_text(structure),
        content_type=LegalDocument.ContentType.EU_REGULATION,
        short_names=list(GDPR_SHORT_NAMES) if number == "(EU) 2016/679" else [],
        abbreviations=list(GDPR_ABBREVIATIONS) if number == "(EU) 2016/679" else [],
        source=str(record.get("url") or ""),
        agency="Europaparlamentet och rådet",
        series="EU",
        structure=structure,
    )


def _recital(recital: dict, index: int) -> dict:
    if not isinstance(recital, dict) or not isinstance(recital.get("text"), str):
        raise RecordError(f"skäl {index + 1} saknar text")
    return {"kind": "skäl", "citation": str(recital.get("citation") or f"skäl {index + 1}"), "binding": False,
            "avdelning": "", "chapter": "", "chapter_title": "", "section": "", "heading": "", "title": "",
            "url": str(recital.get("url") or ""), "text": recital["text"].strip()}


def _article(article: dict, index: int) -> dict:
    if not isinstance(article, dict) or not article.get("number"):
        raise RecordError(f"artikel {index + 1} saknar nummer")
    citation = str(article.get("citation") or f"artikel {article['number']}")
    parts = []
    for paragraph in article.get("paragraphs") or []:
        text = _paragraph_text(paragraph)
        if not text:
            continue
        number = paragraph.get("number")
        parts.append({"citation": f"{citation}.{number}" if number else citation,
                      "number": str(number or ""), "text": text})
    if not parts:
        raise RecordError(f"{citation} saknar text")
    return {
        "kind": "artikel", "citation": citation, "binding": True, "avdelning": "",
        "chapter": str(article.get("chapter") or ""), "chapter_title": str(article.get("chapter_title") or ""),
        "section": str(article["number"]), "heading": str(article.get("section") or ""), "title": str(article.get("title") or ""),
        "url": str(article.get("url") or ""), "parts": parts,
        "text": "\n\n".join(p["text"] for p in parts),
    }


def _paragraph_text(paragraph: dict) -> str:
    """A numbered punkt as it reads: "1. Stycke …" with its led "a) …" on lines of their own."""
    stycken = [s.strip() for s in paragraph.get("stycken") or [] if isinstance(s, str) and s.strip()]
    points = [f"{p.get('letter')}) {p.get('text', '').strip()}" for p in paragraph.get("points") or []
              if isinstance(p, dict) and p.get("text")]
    if not stycken and not points:
        return ""
    # The first stycke introduces the led; later stycken (e.g. "Led f i första stycket …") follow them.
    lines = stycken[:1] + points + stycken[1:]
    number = paragraph.get("number")
    if number:
        lines[0] = f"{number}. {lines[0]}"
    return "\n".join(lines)


def render_text(structure: list[dict]) -> str:
    """The plain full text: each unit under the headings that open it, allmänna råd and recitals named as such."""
    blocks: list[str] = []
    avdelning = chapter = heading = None
    for unit in structure:
        if unit["avdelning"] and unit["avdelning"] != avdelning:
            blocks.append(unit["avdelning"])
        avdelning = unit["avdelning"] or avdelning
        if unit["chapter"] and unit["chapter"] != chapter:
            label = f"Kapitel {unit['chapter']}" if unit["kind"] == "artikel" else f"{unit['chapter']} kap."
            blocks.append(" ".join(filter(None, [label, unit["chapter_title"]])))
            heading = None
        chapter = unit["chapter"] or chapter
        if unit["heading"] and unit["heading"] != heading and unit["kind"] != "allmänt råd":
            blocks.append(unit["heading"])
        heading = unit["heading"] or heading
        if unit["kind"] == "allmänt råd":
            blocks.append(f"Allmänna råd ({unit['citation'].removesuffix(' allmänna råd')}, inte bindande)")
        elif unit["kind"] in ("bilaga", "artikel"):
            blocks.append(" ".join(filter(None, [unit["citation"].capitalize(), unit["title"]])))
        elif unit["kind"] == "skäl":
            blocks.append(f"({unit['citation']}, inte bindande)")
        blocks.append(unit["text"])
    return "\n\n".join(b for b in blocks if b)
