"""The glossary as a file and back: a workspace's terms as Excel (.xlsx) or CSV, and an uploaded file read into
rows for `glossary.services.term_import`. Functions of bytes: the entry points read the terms (glossary.selectors),
the service validates and writes, compliance.spreadsheets reads the file.

Two columns, "Ord" and "Lagens ord", found on import by their Swedish or English header names, so the export of
one workspace imports into another as it is. The CSV is for people as much as for integrations: UTF-8 with a BOM
and ";" between the columns, so Swedish Excel opens it with å, ä and ö, in two columns. A word may begin with "-",
which a spreadsheet program would run as a formula: the .xlsx types such a cell as text, the CSV writes an
apostrophe before it (as Excel does) and the import takes that off again, so a round trip gives the same words.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.core.files.uploadedfile import UploadedFile
from openpyxl import Workbook
from openpyxl.styles import Font

from compliance.downloads import CONTENT_TYPES as DOWNLOAD_TYPES
from compliance.downloads import ExportFile
from compliance.spreadsheets import (
    FORMULA_START,
    MAX_FILE_BYTES,
    SpreadsheetError,
    find_column,
    find_header,
    header_key,
    lines_below,
    read_cells,
)

from .models import Term
from .services import MAX_TERMS, GlossaryImportError, TermImportRow

HEADING = ["Ord", "Lagens ord"]
CONTENT_TYPES = {fmt: DOWNLOAD_TYPES[fmt] for fmt in ("xlsx", "csv")}
FORMATS = tuple(CONTENT_TYPES)
# No file can add more words than the glossary holds.
MAX_ROWS = MAX_TERMS
# Header names people and other tools use, normalised by header_key; matched exactly first, then as a header's
# start ("Lagens ord (SFS)").
WORD_HEADERS = ("ord", "ertord", "vartord", "begrepp", "term", "word", "ourword")
LAW_WORDS_HEADERS = ("lagensord", "lagord", "lagtext", "lagensbegrepp", "lagenstermer", "betyder", "betydelse",
                     "lawwords", "lawword", "lawterms", "lawterm", "means", "meaning")


# --- export ---------------------------------------------------------------------------------------------


def _escaped(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_START) else text


def terms_xlsx(terms: Iterable[Term]) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = "Ordlista"
    sheet.append(HEADING)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for term in terms:
        sheet.append([term.word, term.law_words])
        for cell in sheet[sheet.max_row]:
            if isinstance(cell.value, str) and cell.value.startswith(FORMULA_START):
                cell.data_type = "s"  # text, never a formula
    sheet.column_dimensions["A"].width = 30
    sheet.column_dimensions["B"].width = 60
    sheet.freeze_panes = "A2"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def terms_csv(terms: Iterable[Term]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=";", lineterminator="\r\n")
    writer.writerow(HEADING)
    for term in terms:
        writer.writerow([_escaped(term.word), _escaped(term.law_words)])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


WRITERS = {"xlsx": terms_xlsx, "csv": terms_csv}


def glossary_file(terms: Iterable[Term], fmt: str, *, workspace_slug: str, day: date) -> ExportFile:
    """The terms as `fmt` ("xlsx" or "csv"), named "ordlista-<arbetsyta>-<dag>.<fmt>" (a slug is ASCII already)."""
    return ExportFile(content=WRITERS[fmt](terms), content_type=CONTENT_TYPES[fmt],
                      file_name=f"ordlista-{workspace_slug}-{day.isoformat()}.{fmt}")


# --- import ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Columns:
    word: int
    law_words: int


def _columns(header: list[str]) -> Columns | None:
    keys = [header_key(h) for h in header]
    word = find_column(keys, WORD_HEADERS, set())
    if word is None:
        return None
    law_words = find_column(keys, LAW_WORDS_HEADERS, {word})
    return None if law_words is None else Columns(word=word, law_words=law_words)


def _unescaped(text: str) -> str:
    """A cell as the export wrote it without the apostrophe that kept it from being a formula."""
    return text[1:] if text.startswith("'") and text[1:].startswith(FORMULA_START) else text


def read_terms(name: str, content: bytes) -> list[TermImportRow]:
    """The file's rows under its header as words and law words, unvalidated (the service validates each)."""
    try:
        raw = read_cells(name, content, max_rows=MAX_ROWS)
    except SpreadsheetError as exc:
        raise GlossaryImportError(exc.code, exc.message, details=exc.details) from exc
    found = find_header(raw, _columns)
    if found is None:
        raise GlossaryImportError("no_header", "Hittade ingen rubrikrad. Filen behöver kolumnerna ”Ord” och "
                                  "”Lagens ord”.", details={"field": "file"})
    word, law_words = found.columns.word, found.columns.law_words
    rows = [TermImportRow(line=line.number, word=_unescaped(line.get(word)), law_words=_unescaped(line.get(law_words)))
            # A row with something in other columns only (a note beside the table) is no term.
            for line in lines_below(raw, found.row) if line.get(word) or line.get(law_words)]
    if len(rows) > MAX_ROWS:
        raise GlossaryImportError("too_many_rows", f"Filen har för många rader (högst {MAX_ROWS}).",
                                  details={"field": "file", "max_rows": MAX_ROWS})
    if not rows:
        raise GlossaryImportError("no_rows", "Filen har inga rader under rubrikraden.", details={"field": "file"})
    return rows


def read_upload(uploaded: UploadedFile) -> list[TermImportRow]:
    """An uploaded file's rows. At most one byte past the bound is read: enough to refuse a larger file."""
    return read_terms(uploaded.name or "", uploaded.read(MAX_FILE_BYTES + 1))
