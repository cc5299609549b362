"""Import a list from another service: an Excel (.xlsx) or CSV file of titles and SFS numbers, in two steps.

1. `import_preview` reads the file (columns found by their Swedish or English header names, CSV separated
   by ";" "," or tab, in UTF-8 with or without BOM or in cp1252), matches each row to the corpus (by its
   number, then its exact title, then a similar title) and returns the rows with their confidence and a
   signed token holding them. Nothing is written.
2. `register_import_confirm` (register.services) takes the token back with the person's choices for the rows
   (the document for an unmatched row, or skip) and adds every chosen row in one transaction.

The pending preview lives in the signed token (django.core.signing: tamper-proof, bound to the workspace,
register and person, valid for an hour), not in a table: the browser's form and an API client carry it the
same way, and an abandoned preview leaves nothing behind.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from django.core import signing

from compliance.errors import ApplicationError
from compliance.models import LegalDocument
from compliance.numbers import document_number_candidates, document_number_in
from compliance.spreadsheets import (
    MAX_FILE_BYTES,
    SpreadsheetError,
    find_column,
    find_header,
    header_key,
    lines_below,
    read_cells,
)

from .. import selectors
from ..services import ImportRowChoice

MAX_ROWS = 1000
MAX_CELL_CHARS = 500
TOKEN_MAX_AGE = 60 * 60
TOKEN_SALT = "register.import"


class RegisterImportError(ApplicationError):
    code = "import_invalid"
    message = "Filen kunde inte läsas."


class Confidence:
    NUMBER = "number"
    TITLE_EXACT = "title_exact"
    TITLE_SIMILAR = "title_similar"
    NONE = "none"

    LABELS = {NUMBER: "exakt beteckning", TITLE_EXACT: "exakt titel", TITLE_SIMILAR: "liknande titel",
              NONE: "ingen träff"}


# Header names other services and people use, normalised by header_key (compliance.spreadsheets). Matched
# exactly first, then as the start of the header ("SFS-nummer (ändrad)"), so a free-form sheet still finds its
# columns.
NUMBER_HEADERS = ("sfsnummer", "sfsnr", "sfs", "beteckning", "forfattningsnummer", "forfattningsbeteckning",
                  "nummer", "nr", "referens", "number", "reference", "celexnummer", "celex")
TITLE_HEADERS = ("titel", "rubrik", "namn", "forfattning", "forfattningensnamn", "forfattningenstitel", "lag",
                 "lagnamn", "dokument", "title", "name", "krav")
GROUP_HEADERS = ("grupp", "omrade", "kategori", "avsnitt", "amnesomrade", "rubrikgrupp", "group", "category",
                 "area")


@dataclass(frozen=True)
class Columns:
    number: int | None
    title: int | None
    group: int | None


def _columns(header: list[str]) -> Columns | None:
    keys = [header_key(h) for h in header]
    taken: set[int] = set()
    number = find_column(keys, NUMBER_HEADERS, taken)
    if number is not None:
        taken.add(number)
    title = find_column(keys, TITLE_HEADERS, taken)
    if title is not None:
        taken.add(title)
    group = find_column(keys, GROUP_HEADERS, taken)
    if number is None and title is None:
        return None
    return Columns(number=number, title=title, group=group)


# --- reading the file (compliance.spreadsheets reads it; the columns and the rows' checks are the register's) --


@dataclass(frozen=True)
class SheetRow:
    line: int
    number_text: str
    title: str
    group: str


def read_rows(name: str, content: bytes) -> list[SheetRow]:
    """The file's rows under its header, as text. Refuses what is not a list of documents, with the reason."""
    try:
        raw = read_cells(name, content, max_rows=MAX_ROWS, max_bytes=MAX_FILE_BYTES)
    except SpreadsheetError as exc:
        # The register's import answers in its own error, with the reader's code and message.
        raise RegisterImportError(exc.code, exc.message, details=exc.details) from exc
    found = find_header(raw, _columns)
    if found is None:
        raise RegisterImportError("no_header", "Hittade ingen rubrikrad. Filen behöver en kolumn som heter t.ex. "
                                        "\"SFS-nummer\" eller \"Beteckning\", och/eller \"Titel\".",
                           details={"field": "file"})
    columns = found.columns
    rows, errors = [], []
    for line in lines_below(raw, found.row):
        offset = line.number
        number_text, title, group = line.get(columns.number), line.get(columns.title), line.get(columns.group)
        too_long = [label for label, value in (("beteckningen", number_text), ("titeln", title), ("gruppen", group))
                    if len(value) > MAX_CELL_CHARS]
        if too_long:
            errors.append({"line": offset, "message": f"Rad {offset}: {too_long[0]} är för lång "
                                                      f"(högst {MAX_CELL_CHARS} tecken)."})
        elif not number_text and not title:
            errors.append({"line": offset, "message": f"Rad {offset}: varken beteckning eller titel."})
        elif number_text and not document_number_in(number_text) and not title:
            errors.append({"line": offset, "message": f"Rad {offset}: \"{number_text[:60]}\" är ingen beteckning "
                                                      f"(t.ex. 1977:1160, AFS 2023:1 eller (EU) 2016/679)."})
        else:
            rows.append(SheetRow(line=offset, number_text=number_text, title=title, group=group[:120]))
    if len(rows) + len(errors) > MAX_ROWS:
        raise RegisterImportError("too_many_rows", f"Filen har för många rader (högst {MAX_ROWS}).",
                           details={"field": "file", "max_rows": MAX_ROWS})
    if errors:
        raise RegisterImportError("broken_rows", f"{len(errors)} rader i filen kunde inte läsas. Rätta dem och försök "
                                          "igen; inget har importerats.", details={"field": "file", "rows": errors})
    if not rows:
        raise RegisterImportError("no_rows", "Filen har inga rader under rubrikraden.", details={"field": "file"})
    return rows


# --- matching and the preview -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentChoice:
    id: int
    sfs_number: str
    title: str


@dataclass(frozen=True)
class PreviewRow:
    line: int
    number_text: str
    title: str
    group: str
    confidence: str
    document: DocumentChoice | None
    candidates: list[DocumentChoice] = field(default_factory=list)

    @property
    def confidence_label(self) -> str:
        return Confidence.LABELS[self.confidence]


@dataclass(frozen=True)
class ImportPreview:
    token: str
    file_name: str
    rows: list[PreviewRow]

    @property
    def matched(self) -> int:
        return sum(1 for row in self.rows if row.document is not None)

    @property
    def unmatched(self) -> int:
        return len(self.rows) - self.matched

    def count(self, confidence: str) -> int:
        return sum(1 for row in self.rows if row.confidence == confidence)


def _choice(document: LegalDocument) -> DocumentChoice:
    return DocumentChoice(id=document.pk, sfs_number=document.sfs_number, title=document.title)


def match_rows(rows: list[SheetRow]) -> list[PreviewRow]:
    """Each row's document: by number (exact), else by title (exact, else the most similar)."""
    by_number = selectors.legal_documents_by_number(
        number for row in rows for number in document_number_candidates(row.number_text))
    matched = []
    for row in rows:
        document = _first_found(row.number_text, by_number)
        if document is not None:
            matched.append(PreviewRow(line=row.line, number_text=row.number_text, title=row.title, group=row.group,
                                      confidence=Confidence.NUMBER, document=_choice(document)))
            continue
        found = selectors.legal_document_title_match(row.title)
        if found.exact is not None:
            matched.append(PreviewRow(line=row.line, number_text=row.number_text, title=row.title, group=row.group,
                                      confidence=Confidence.TITLE_EXACT, document=_choice(found.exact)))
        elif found.similar:
            # A similar title is a guess: proposed, with the alternatives, for the person to confirm.
            matched.append(PreviewRow(line=row.line, number_text=row.number_text, title=row.title, group=row.group,
                                      confidence=Confidence.TITLE_SIMILAR, document=_choice(found.similar[0]),
                                      candidates=[_choice(d) for d in found.similar]))
        else:
            matched.append(PreviewRow(line=row.line, number_text=row.number_text, title=row.title, group=row.group,
                                      confidence=Confidence.NONE, document=None))
    return matched


def _first_found(text: str, by_number: dict[str, LegalDocument]) -> LegalDocument | None:
    return next((by_number[n] for n in document_number_candidates(text) if n in by_number), None)


def _token_scope(workspace_id: int, register_id: int, user_id: int) -> str:
    return f"{workspace_id}:{register_id}:{user_id}"


def import_preview(*, workspace_id: int, register_id: int, user_id: int, file_name: str,
                   content: bytes) -> ImportPreview:
    """Read and match a file; nothing is written. The token carries the rows to the confirmation."""
    rows = match_rows(read_rows(file_name, content))
    payload = {"scope": _token_scope(workspace_id, register_id, user_id), "file": file_name[:200],
               "rows": [asdict(row) for row in rows]}
    token = signing.dumps(payload, salt=TOKEN_SALT, compress=True)
    return ImportPreview(token=token, file_name=file_name[:200], rows=rows)


def preview_from_token(token: str, *, workspace_id: int, register_id: int, user_id: int) -> ImportPreview:
    """The preview a token holds, if it was made for this workspace, register and person within the hour."""
    try:
        payload = signing.loads(token or "", salt=TOKEN_SALT, max_age=TOKEN_MAX_AGE)
    except signing.SignatureExpired as exc:
        raise RegisterImportError("preview_expired", "Förhandsgranskningen är för gammal. Ladda upp filen igen.",
                           details={"field": "token"}) from exc
    except signing.BadSignature as exc:
        raise RegisterImportError("invalid_token", "Förhandsgranskningen är ogiltig. Ladda upp filen igen.",
                           details={"field": "token"}) from exc
    if not isinstance(payload, dict) or payload.get("scope") != _token_scope(workspace_id, register_id, user_id):
        raise RegisterImportError("invalid_token", "Förhandsgranskningen hör till en annan laglista eller person. "
                                            "Ladda upp filen igen.", details={"field": "token"})
    rows = []
    for raw in payload.get("rows", []):
        document = DocumentChoice(**raw["document"]) if raw.get("document") else None
        rows.append(PreviewRow(line=raw["line"], number_text=raw["number_text"], title=raw["title"],
                               group=raw["group"], confidence=raw["confidence"], document=document,
                               candidates=[DocumentChoice(**c) for c in raw.get("candidates", [])]))
    return ImportPreview(token=token, file_name=payload.get("file", ""), rows=rows)


SKIP = "skip"


def import_choices(preview: ImportPreview, choices: dict[int, str]) -> list[ImportRowChoice]:
    """The rows to add: each row's choice by its line ("skip", or a document number the person chose);
    a row without one keeps the document the preview proposed, and an unmatched row is skipped.
    A chosen number that is not in the corpus is refused with its line; nothing is added then."""
    lines = {row.line for row in preview.rows}
    unknown_lines = sorted(set(choices) - lines)
    if unknown_lines:
        raise RegisterImportError("unknown_row", f"Rad {unknown_lines[0]} finns inte i förhandsgranskningen.",
                                  details={"field": "choices", "line": unknown_lines[0]})
    wanted = {line: value for line, value in choices.items() if value and value != SKIP}
    by_number = selectors.legal_documents_by_number(
        number for value in wanted.values() for number in document_number_candidates(value))
    chosen = {line: _first_found(value, by_number) for line, value in wanted.items()}
    bad = sorted(line for line, document in chosen.items() if document is None)
    if bad:
        raise RegisterImportError("unknown_document", f"Rad {bad[0]}: författningen \"{choices[bad[0]][:60]}\" finns "
                                                      "inte. Välj en annan eller hoppa över raden.",
                                  details={"field": "choices", "line": bad[0]})
    proposed = selectors.legal_documents_by_id(row.document.id for row in preview.rows if row.document)
    result = []
    for row in preview.rows:
        choice = choices.get(row.line)
        if choice == SKIP or (choice is None and row.document is None):
            document = None
        elif choice:
            document = chosen[row.line]
        else:
            document = proposed.get(row.document.id)
        result.append(ImportRowChoice(line=row.line, legal_document=document, group=row.group))
    return result
