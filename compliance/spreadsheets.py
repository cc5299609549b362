"""Reading a spreadsheet a person uploads: an Excel (.xlsx) or CSV file to rows of text cells, and finding its
columns by their header names. The register's import of a list (register/transfer/imports.py) and the glossary's
import (glossary/transfer.py) read files this way; what the columns mean, and which rows are wrong, is theirs.

CSV comes as Excel and other services save it: separated by ";", "," or tab, in UTF-8 with or without a BOM, or
in cp1252 (Excel on Windows). A file that is neither (an old .xls, a PDF, an image) is refused with the reason in
Swedish, as is an empty or too large one: a SpreadsheetError, whose code the callers keep in their own errors.
Writing is the exporters' (openpyxl, csv); what they share with reading is which cells a spreadsheet program
would run as formulas (FORMULA_START).
"""

from __future__ import annotations

import csv
import io
import unicodedata
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from openpyxl import load_workbook

from compliance.errors import ApplicationError

MAX_FILE_BYTES = 2 * 1024 * 1024
# How far down a sheet the header row may be (a title and a blank line above the table are common).
HEADER_SEARCH_ROWS = 10
# A text cell beginning with one of these is what a spreadsheet program runs as a formula: exports write such a
# cell as text, never as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

T = TypeVar("T")


class SpreadsheetError(ApplicationError):
    code = "unreadable_file"
    message = "Filen kunde inte läsas."


def header_key(value: object) -> str:
    """"SFS-nummer" → "sfsnummer", "Författningens namn" → "forfattningensnamn": a header as a name to look up."""
    text = unicodedata.normalize("NFKD", str(value or "")).encode("ascii", "ignore").decode().lower()
    return "".join(ch for ch in text if ch.isalnum())


def find_column(keys: list[str], names: tuple[str, ...], taken: set[int]) -> int | None:
    """The index of the first of `keys` (header_key'd) that is one of `names`, else that starts with one
    ("SFS-nummer (ändrad)"), so a free-form sheet still finds its columns. `taken` columns are skipped."""
    for exact in (True, False):
        for name in names:
            for i, key in enumerate(keys):
                if i in taken or not key:
                    continue
                if key == name if exact else key.startswith(name):
                    return i
    return None


def cell_text(value: object) -> str:
    """A cell as text on one line: a whole number Excel stores as a float is written without its ".0"."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return " ".join(str(value).split())


def _rows_from_xlsx(content: bytes, limit: int) -> list[list[str]]:
    try:
        book = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, TypeError) as exc:
        raise SpreadsheetError("unreadable_file", "Excelfilen kunde inte läsas. Spara den som .xlsx och försök igen.",
                               details={"field": "file"}) from exc
    try:
        sheet = book.worksheets[0] if book.worksheets else None
        if sheet is None:
            return []
        rows = []
        for row in sheet.iter_rows(values_only=True):
            rows.append([cell_text(v) for v in row])
            if len(rows) > limit:
                break
        return rows
    finally:
        book.close()


def _decode(content: bytes) -> str:
    if content.startswith(b"\xef\xbb\xbf"):
        return content[3:].decode("utf-8", errors="strict")
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        # Excel on Windows saves "CSV" in cp1252: å, ä, ö are single bytes there.
        return content.decode("cp1252", errors="replace")


def _rows_from_csv(content: bytes, limit: int) -> list[list[str]]:
    try:
        text = _decode(content)
    except UnicodeDecodeError as exc:
        raise SpreadsheetError("unreadable_file", "Filen har en okänd teckenkodning. Spara den som UTF-8.",
                               details={"field": "file"}) from exc
    if "\x00" in text:
        raise SpreadsheetError("not_a_list", "Filen är varken en Excelfil (.xlsx) eller en CSV-fil.",
                               details={"field": "file"})
    sample = "\n".join(text.splitlines()[:HEADER_SEARCH_ROWS + 5])
    try:
        dialect = csv.Sniffer().sniff(sample, delimiters=";,\t")
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = ";" if sample.count(";") >= sample.count(",") else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows = []
    try:
        for row in reader:
            rows.append([cell_text(v) for v in row])
            if len(rows) > limit:
                break
    except csv.Error as exc:
        raise SpreadsheetError("unreadable_file", f"CSV-filen kunde inte läsas: rad {reader.line_num} är trasig.",
                               details={"field": "file", "line": reader.line_num}) from exc
    return rows


def read_cells(name: str, content: bytes, *, max_rows: int,
               max_bytes: int = MAX_FILE_BYTES) -> list[list[str]]:
    """The file's rows (an .xlsx's first sheet) as text cells, from its first line. Reads no more than a header
    search and `max_rows` more: enough for the caller to see that the file has too many. Refuses an empty or too
    large file and one that is no spreadsheet, with the reason."""
    if not content:
        raise SpreadsheetError("empty_file", "Filen är tom.", details={"field": "file"})
    if len(content) > max_bytes:
        raise SpreadsheetError("file_too_large", f"Filen är för stor (högst {max_bytes // (1024 * 1024)} MB).",
                               details={"field": "file", "max_bytes": max_bytes})
    limit = max_rows + HEADER_SEARCH_ROWS + 1
    if content.startswith(b"PK\x03\x04"):
        return _rows_from_xlsx(content, limit)
    if (name or "").lower().endswith((".xls", ".xlsm", ".xlsb", ".ods", ".pdf", ".docx", ".zip")) \
            or content.startswith((b"\xd0\xcf\x11\xe0", b"%PDF")):
        raise SpreadsheetError("not_a_list", "Filen måste vara en Excelfil (.xlsx) eller en CSV-fil. Äldre .xls-filer "
                                             "kan sparas om som .xlsx i Excel.", details={"field": "file"})
    return _rows_from_csv(content, limit)


@dataclass(frozen=True)
class Header(Generic[T]):
    """The header row found: its index among the rows, and what the caller's `columns` made of it."""

    row: int
    columns: T


def find_header(rows: list[list[str]], columns: Callable[[list[str]], T | None]) -> Header[T] | None:
    """The first of the top rows in which `columns` finds the caller's columns. None when no row near the top is
    a header."""
    for i, row in enumerate(rows[:HEADER_SEARCH_ROWS]):
        found = columns(row)
        if found is not None:
            return Header(row=i, columns=found)
    return None


@dataclass(frozen=True)
class Line:
    """A row under the header: its number in the file (as the person's spreadsheet program counts) and cells."""

    number: int
    cells: list[str]

    def get(self, index: int | None) -> str:
        """The cell at `index`, "" for a column the row does not reach or the file does not have."""
        return self.cells[index] if index is not None and index < len(self.cells) else ""


def lines_below(rows: list[list[str]], header_at: int) -> list[Line]:
    """The rows under the header row, blank ones left out, each with its line number in the file."""
    return [Line(number=number, cells=row) for number, row in enumerate(rows[header_at + 1:], start=header_at + 2)
            if any(row)]
