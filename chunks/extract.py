"""Text extraction from files uploaded to a workspace.

Everything here is pure Python on bytes in memory: no database, no disk. The
result is a flat list of text blocks, each knowing the headings above it and
(for PDFs) its page, which `chunks.file_chunking` turns into chunks.

Uploads are untrusted. The type is decided from the content *and* the name, so
a renamed file is refused rather than fed to the wrong parser, and every
failure surfaces as an `ExtractionError` with a stable code and a Swedish
message the UI can show as is. No library exception escapes `extract_text`.
"""

from __future__ import annotations

import io
import logging
import re
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath
from typing import Callable, Iterator

import docx
import pypdf
from docx.document import Document as DocxDocument
from docx.oxml.xmlchemy import BaseOxmlElement
from docx.text.paragraph import Paragraph
from lxml import etree
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pypdf.errors import DependencyError, FileNotDecryptedError

from compliance.errors import ApplicationError
from compliance.text import strip_invisible

logger = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 25 * 1024 * 1024
# A sane upper bound for anything a person would upload as a policy or a
# routine; beyond it extraction time and memory get out of hand.
MAX_PDF_PAGES = 2_000
# A 25 MB upload of plain text is ~25M characters; more than this out of a
# compressed container means a bomb, not a document.
MAX_TEXT_CHARS = 30_000_000
# DOCX zip-bomb bounds, checked on the central directory before any parsing.
MAX_DOCX_UNCOMPRESSED = 200 * 1024 * 1024
MAX_DOCX_RATIO = 200
MAX_DOCX_ENTRIES = 5_000
# Only ratio-check members big enough to matter: tiny XML parts routinely
# compress 50-100x and are harmless.
DOCX_RATIO_MIN_SIZE = 1024 * 1024
MAX_NESTING = 64

PDF = "pdf"
DOCX = "docx"
TXT = "txt"
MARKDOWN = "markdown"
HTML = "html"

MIME_TYPES: dict[str, str] = {
    PDF: "application/pdf",
    DOCX: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    TXT: "text/plain",
    MARKDOWN: "text/markdown",
    HTML: "text/html",
}
_EXTENSION_KINDS: dict[str, str] = {
    ".pdf": PDF,
    ".docx": DOCX,
    ".txt": TXT,
    ".text": TXT,
    ".md": MARKDOWN,
    ".markdown": MARKDOWN,
    ".html": HTML,
    ".htm": HTML,
}
SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(_EXTENSION_KINDS)
_MIME_KINDS: dict[str, str] = {
    **{mime: kind for kind, mime in MIME_TYPES.items()},
    "text/x-markdown": MARKDOWN,
    "application/xhtml+xml": HTML,
}
OCTET_STREAM = "application/octet-stream"

_KIND_NAMES = {PDF: "PDF", DOCX: "Word (DOCX)", TXT: "text", MARKDOWN: "Markdown", HTML: "HTML"}

# Formats we recognise only to refuse them with a precise message.
_BINARY_MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png", "en PNG-bild"),
    (b"\xff\xd8\xff", "image/jpeg", "en JPEG-bild"),
    (b"GIF87a", "image/gif", "en GIF-bild"),
    (b"GIF89a", "image/gif", "en GIF-bild"),
    (b"II*\x00", "image/tiff", "en TIFF-bild"),
    (b"MM\x00*", "image/tiff", "en TIFF-bild"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/msword", "ett äldre Office-dokument (.doc/.xls)"),
    (b"{\\rtf", "application/rtf", "ett RTF-dokument"),
    (b"MZ", "application/vnd.microsoft.portable-executable", "ett program (.exe)"),
    (b"\x7fELF", "application/x-elf", "ett program"),
    (b"\x1f\x8b", "application/gzip", "ett komprimerat arkiv"),
    (b"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed", "ett komprimerat arkiv"),
    (b"Rar!\x1a\x07", "application/vnd.rar", "ett komprimerat arkiv"),
)


class ExtractionError(ApplicationError):
    """A file we cannot extract text from."""


@dataclass(frozen=True)
class TextBlock:
    text: str
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    # Parallel to heading_path: the outline level of each heading (1 = top),
    # so callers can tell a skipped level from a sibling.
    heading_levels: tuple[int, ...] = ()


@dataclass
class ExtractedDocument:
    blocks: list[TextBlock]
    page_count: int | None
    kind: str


UNSUPPORTED_MESSAGE = "Filtypen stöds inte. Ladda upp PDF, DOCX, TXT, Markdown eller HTML."


def _unsupported(detail: str | None = None) -> ExtractionError:
    message = UNSUPPORTED_MESSAGE if detail is None else f"Filen verkar vara {detail}. {UNSUPPORTED_MESSAGE}"
    return ExtractionError("unsupported_type", message)


# --------------------------------------------------------------------------- type detection


@dataclass(frozen=True)
class _Sniffed:
    kind: str | None  # PDF or DOCX when recognised, TXT for text-like bytes, None otherwise
    mime: str
    description: str | None = None  # Swedish, for refusals of known binary formats
    zip_without_document: bool = False


def _extension(filename: str) -> str:
    # Browsers on Windows may send a full path; only the last component counts.
    name = PureWindowsPath(PurePosixPath(filename or "").name).name
    return PurePosixPath(name).suffix.lower()


def _looks_like_text(head: bytes) -> bool:
    if head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return True
    if b"\x00" in head:
        return False
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls <= max(1, len(head) // 100)


def _sniff(data: bytes) -> _Sniffed:
    # The PDF spec tolerates junk before the header, and so do readers.
    if b"%PDF-" in data[:1024]:
        return _Sniffed(PDF, MIME_TYPES[PDF])
    if data.startswith(b"PK\x03\x04") or data.startswith(b"PK\x05\x06"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                names = set(archive.namelist())
        except Exception:
            return _Sniffed(None, "application/zip", "ett trasigt zip-arkiv")
        if "word/document.xml" in names:
            return _Sniffed(DOCX, MIME_TYPES[DOCX])
        return _Sniffed(None, "application/zip", "ett zip-arkiv", zip_without_document=True)
    for magic, mime, description in _BINARY_MAGIC:
        # "MZ" alone also starts ordinary text; an executable has NULs early on.
        if data.startswith(magic) and (magic != b"MZ" or b"\x00" in data[:64]):
            return _Sniffed(None, mime, description)
    if _looks_like_text(data[:8192]):
        return _Sniffed(TXT, MIME_TYPES[TXT])
    return _Sniffed(None, OCTET_STREAM)


_HTML_START = re.compile(rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)\b", re.I | re.S)


def _text_kind_from_content(data: bytes) -> str:
    head = data[:2048].lstrip(b"\xef\xbb\xbf")
    return HTML if _HTML_START.match(head) else TXT


def sniff_mime(data: bytes, filename: str) -> str:
    """Best guess of the MIME type, from the content first and the name second.

    Returns "application/octet-stream" for unrecognised binary content. Does
    not judge whether name and content agree: `extract_text` does that.
    """
    sniffed = _sniff(data)
    if sniffed.kind in (PDF, DOCX) or sniffed.kind is None:
        return sniffed.mime
    declared = _EXTENSION_KINDS.get(_extension(filename))
    if declared in (TXT, MARKDOWN, HTML):
        return MIME_TYPES[declared]
    return MIME_TYPES[_text_kind_from_content(data)]


def _declared_kind(filename: str, mime_type: str | None) -> str | None:
    """The type the uploader claims, or None when it claims nothing useful."""
    ext = _extension(filename)
    if ext:
        if ext not in _EXTENSION_KINDS:
            raise _unsupported()
        return _EXTENSION_KINDS[ext]
    # Only without an extension does the (client-supplied) MIME type count.
    mime = (mime_type or "").split(";")[0].strip().lower()
    return _MIME_KINDS.get(mime)


def _resolve_kind(data: bytes, filename: str, mime_type: str | None) -> str:
    declared = _declared_kind(filename, mime_type)
    sniffed = _sniff(data)
    ext = _extension(filename) or "(ingen filändelse)"

    def mismatch(actual: str) -> ExtractionError:
        return ExtractionError(
            "type_mismatch",
            f"Filens innehåll stämmer inte med filändelsen {ext}: filen verkar vara {actual}. "
            "Kontrollera filen och ladda upp den igen.",
        )

    if sniffed.kind in (PDF, DOCX):
        if declared in (None, sniffed.kind):
            return sniffed.kind
        raise mismatch(f"en {_KIND_NAMES[sniffed.kind]}-fil")
    if declared == PDF:
        if sniffed.description and not sniffed.zip_without_document:
            raise mismatch(sniffed.description)
        raise ExtractionError("corrupt_pdf", "Filen är inte en giltig PDF-fil och kunde inte läsas.")
    if declared == DOCX:
        if sniffed.zip_without_document:
            raise ExtractionError(
                "corrupt_docx",
                "Filen är inte ett giltigt Word-dokument (DOCX): dokumentdelen word/document.xml saknas.",
            )
        if sniffed.description and sniffed.mime == "application/msword":
            raise ExtractionError(
                "corrupt_docx",
                "Filen är ett äldre Word-dokument (.doc). Spara den som .docx eller PDF och ladda upp igen.",
            )
        raise ExtractionError("corrupt_docx", "Filen är inte ett giltigt Word-dokument (DOCX) och kunde inte läsas.")
    if sniffed.kind is None:
        if declared is not None and sniffed.description:
            raise mismatch(sniffed.description)
        if declared in (TXT, MARKDOWN, HTML):
            raise _bad_encoding()
        raise _unsupported(sniffed.description)
    # Text-like content: trust the declared text flavour, else look inside.
    return declared or _text_kind_from_content(data)


# --------------------------------------------------------------------------- text hygiene

_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi",
                            "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"})
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u3000]+")


def _clean(text: str) -> str:
    # NFC matters for Swedish: PDFs often emit "a" + combining ring for "å",
    # which would then never match "å" in keyword search.
    text = unicodedata.normalize("NFC", text.translate(_LIGATURES))
    text = strip_invisible(text.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [_SPACES.sub(" ", line).strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


class _Collector:
    """Accumulates blocks under a heading stack and enforces the text bound."""

    def __init__(self) -> None:
        self.blocks: list[TextBlock] = []
        self._stack: list[tuple[int, str]] = []
        self._top_has_content = True
        self._chars = 0

    def heading(self, level: int, text: str) -> None:
        text = _clean(text).replace("\n", " ")
        if not text:
            return
        if self._stack and self._stack[-1][0] >= level:
            self._keep_empty_heading()
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, text))
        self._top_has_content = False
        self._count(len(text))

    def add(self, text: str, page: int | None = None) -> None:
        text = _clean(text)
        if not text:
            return
        self._count(len(text))
        self._top_has_content = True
        self.blocks.append(TextBlock(
            text=text,
            heading_path=tuple(t for _, t in self._stack),
            page=page,
            heading_levels=tuple(level for level, _ in self._stack),
        ))

    def finish(self) -> list[TextBlock]:
        if self._stack:
            self._keep_empty_heading()
        return self.blocks

    def _keep_empty_heading(self) -> None:
        # A heading with nothing under it (a placeholder, the last line of a
        # document) is still text the user wrote: keep it as a block under
        # its parents rather than let it vanish.
        if self._top_has_content:
            return
        self.blocks.append(TextBlock(
            text=self._stack[-1][1],
            heading_path=tuple(t for _, t in self._stack[:-1]),
            heading_levels=tuple(level for level, _ in self._stack[:-1]),
        ))
        self._top_has_content = True

    def _count(self, n: int) -> None:
        self._chars += n
        if self._chars > MAX_TEXT_CHARS:
            raise _too_complex()


def _too_complex() -> ExtractionError:
    return ExtractionError("too_complex", "Filen är för omfattande eller för komplext uppbyggd för att kunna läsas.")


def _no_text(kind: str) -> ExtractionError:
    if kind == PDF:
        return ExtractionError(
            "no_text",
            "PDF-filen innehåller ingen läsbar text. Den är troligen inskannad som bilder; "
            "kör textigenkänning (OCR) på den och ladda upp igen.",
        )
    return ExtractionError("no_text", "Filen innehåller ingen text.")


# --------------------------------------------------------------------------- PDF

_LIST_ITEM = re.compile(r"^([•▪◦·\-–—*]|\d{1,3}[.)]|[a-zåäö][.)]|\(\w{1,3}\))\s")
_SENTENCE_END = re.compile(r"[.!?:;»”\"')]$")


def _pdf_paragraphs(page_text: str) -> list[str]:
    """Rejoin a page's hard-wrapped lines into paragraphs.

    pypdf returns one line per visual line. Chunking splits at sentence
    boundaries, so sentences wrapped over lines must become one line again;
    a line break counts as a paragraph break only where the layout says so.
    """
    lines = [line.strip() for line in _clean(page_text).split("\n")]
    lengths = sorted(len(line) for line in lines if line)
    if not lengths:
        return []
    typical = lengths[(len(lengths) * 3) // 4]  # robust "full line" width
    paragraphs: list[str] = []
    current = ""
    for line in lines:
        if not line:
            if current:
                paragraphs.append(current)
            current = ""
            continue
        if not current:
            current = line
            continue
        short = len(current.rsplit("\n", 1)[-1]) < 0.75 * typical
        starts_upper = line[0].isupper() or line[0].isdigit()
        if _LIST_ITEM.match(line) or (short and starts_upper) or (
            _SENTENCE_END.search(current) and starts_upper and len(current) < 0.9 * typical
        ):
            paragraphs.append(current)
            current = line
        elif current.endswith("-") and len(current) > 1 and current[-2].isalpha() and line[0].islower():
            current += line  # keep the hyphen: "arbets-miljö" beats losing "för- och"
        else:
            current += " " + line
    if current:
        paragraphs.append(current)
    return paragraphs


def _extract_pdf(data: bytes) -> ExtractedDocument:
    encrypted = ExtractionError(
        "encrypted_pdf",
        "PDF-filen är lösenordsskyddad och kan inte läsas. Ta bort lösenordsskyddet och ladda upp den igen.",
    )
    corrupt = ExtractionError("corrupt_pdf", "PDF-filen är skadad och kunde inte läsas.")
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            # Many PDFs are "encrypted" only to restrict printing, with an
            # empty user password: those open fine in any viewer.
            try:
                if not reader.decrypt(""):
                    raise encrypted
            except (DependencyError, FileNotDecryptedError, NotImplementedError):
                raise encrypted from None
        page_count = len(reader.pages)
    except ExtractionError:
        raise
    except (FileNotDecryptedError, DependencyError):
        raise encrypted from None
    except Exception as exc:  # pypdf raises a zoo of types on bad input, not only PdfReadError
        logger.info("PDF could not be opened: %r", exc)
        raise corrupt from None
    if page_count == 0:
        raise corrupt
    if page_count > MAX_PDF_PAGES:
        raise ExtractionError(
            "too_many_pages",
            f"PDF-filen har {page_count} sidor. Högst {MAX_PDF_PAGES} sidor stöds; dela upp filen.",
        )
    collector = _Collector()
    failed = 0
    for index in range(page_count):
        try:
            page_text = reader.pages[index].extract_text() or ""
        except (FileNotDecryptedError, DependencyError):
            raise encrypted from None
        except Exception as exc:
            # One unreadable page should not sink a 100-page policy.
            logger.info("PDF page %d could not be read: %r", index + 1, exc)
            failed += 1
            continue
        for paragraph in _pdf_paragraphs(page_text):
            collector.add(paragraph, page=index + 1)
    if failed == page_count:
        raise corrupt
    if not collector.blocks:
        raise _no_text(PDF)
    return ExtractedDocument(blocks=collector.blocks, page_count=page_count, kind=PDF)


# --------------------------------------------------------------------------- DOCX

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_HEADING_STYLE = re.compile(r"^(heading|rubrik)\s*(\d)$", re.I)


def _check_docx_archive(data: bytes) -> None:
    """Refuse zip bombs from the central directory, before anything inflates."""
    bomb = ExtractionError(
        "docx_too_large_uncompressed",
        f"Word-dokumentet packas upp till mer än tillåtet ({MAX_DOCX_UNCOMPRESSED // (1024 * 1024)} MB) "
        "eller är misstänkt hårt komprimerat, och kan därför inte läsas.",
    )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
    except Exception:
        raise ExtractionError("corrupt_docx", "Filen är inte ett giltigt Word-dokument (DOCX) och kunde inte läsas.") from None
    if len(infos) > MAX_DOCX_ENTRIES:
        raise bomb
    total = 0
    for info in infos:
        total += info.file_size
        if info.file_size > DOCX_RATIO_MIN_SIZE and info.file_size > MAX_DOCX_RATIO * max(info.compress_size, 1):
            raise bomb
    if total > MAX_DOCX_UNCOMPRESSED:
        raise bomb
    if "word/document.xml" not in {info.filename for info in infos}:
        raise ExtractionError(
            "corrupt_docx",
            "Filen är inte ett giltigt Word-dokument (DOCX): dokumentdelen word/document.xml saknas.",
        )


def _outline_level(element: BaseOxmlElement) -> int | None:
    values = element.xpath("./w:pPr/w:outlineLvl/@w:val")
    if values and values[0].isdigit() and int(values[0]) < 9:  # 9 means "body text"
        return int(values[0]) + 1
    return None


def _docx_heading_level(paragraph: Paragraph) -> int | None:
    direct = _outline_level(paragraph._p)
    if direct is not None:
        return direct
    style = paragraph.style
    for _ in range(8):  # custom heading styles are usually based on built-in ones
        if style is None:
            return None
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 0
        match = _HEADING_STYLE.match(name)
        if match:
            return int(match.group(2))
        level = _outline_level(style.element)
        if level is not None:
            return level
        style = style.base_style
    return None


def _docx_list_prefix(paragraph: Paragraph) -> str:
    name = (paragraph.style.name or "") if paragraph.style is not None else ""
    numbered = bool(paragraph._p.xpath("./w:pPr/w:numPr"))
    return "• " if numbered or name.lower().startswith("list") else ""


def _docx_cell_text(cell: etree._Element, document: DocxDocument) -> str:
    # iter() also reaches paragraphs of nested tables: flattened into the cell.
    texts = (Paragraph(p, document).text for p in cell.iter(f"{_W}p"))
    return " ".join(t.strip() for t in texts if t.strip())


def _docx_table_rows(table: etree._Element, document: DocxDocument) -> Iterator[str]:
    # Walk the XML rather than python-docx's grid API: merged cells would
    # repeat there, and malformed grids make it raise.
    for row in table.iterchildren(f"{_W}tr"):
        cells = [_docx_cell_text(cell, document) for cell in row.iterchildren(f"{_W}tc")]
        cells = [c for c in cells if c]
        if cells:
            yield " | ".join(cells)


def _docx_body_items(container: etree._Element, depth: int = 0) -> Iterator:
    if depth > MAX_NESTING:
        raise _too_complex()
    for child in container.iterchildren():
        if child.tag in (f"{_W}p", f"{_W}tbl"):
            yield child
        elif child.tag == f"{_W}sdt":  # content controls wrap cover pages, tables of contents, ...
            for content in child.iterchildren(f"{_W}sdtContent"):
                yield from _docx_body_items(content, depth + 1)
        elif child.tag == f"{_W}customXml":
            yield from _docx_body_items(child, depth + 1)


def _extract_docx(data: bytes) -> ExtractedDocument:
    _check_docx_archive(data)

    try:
        document = docx.Document(io.BytesIO(data))
        body = document.element.body
        collector = _Collector()
        for item in _docx_body_items(body):
            if item.tag == f"{_W}tbl":
                for row in _docx_table_rows(item, document):
                    collector.add(row)
                continue
            paragraph = Paragraph(item, document)
            text = paragraph.text
            level = _docx_heading_level(paragraph)
            if level is not None and text.strip():
                collector.heading(level, text)
            else:
                collector.add(_docx_list_prefix(paragraph) + text if text.strip() else "")
        collector.finish()
    except ExtractionError:
        raise
    except Exception as exc:
        logger.info("DOCX could not be parsed: %r", exc)
        raise ExtractionError("corrupt_docx", "Word-dokumentet är skadat och kunde inte läsas.") from None
    if not collector.blocks:
        raise _no_text(DOCX)
    return ExtractedDocument(blocks=collector.blocks, page_count=None, kind=DOCX)


# --------------------------------------------------------------------------- text, Markdown, HTML


def _bad_encoding() -> ExtractionError:
    return ExtractionError(
        "bad_encoding",
        "Textfilen kunde inte läsas: teckenkodningen känns inte igen eller filen innehåller binära data. "
        "Spara den som UTF-8 och ladda upp igen.",
    )


def _decode_text(data: bytes) -> str:
    """UTF-8 (with or without BOM) or UTF-16 with BOM, else Windows-1252.

    Swedish text from older Windows tools is cp1252/latin-1; UTF-8 decoding
    is strict, so any such file fails it and falls through correctly.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        encodings: tuple[str, ...] = ("utf-8-sig",)
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encodings = ("utf-16",)
    else:
        encodings = ("utf-8", "cp1252", "latin-1")
    for encoding in encodings:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if _looks_binary(text):
            break
        return text
    raise _bad_encoding()


def _looks_binary(text: str) -> bool:
    sample = text[:65536]
    bad = sum(1 for ch in sample if (ord(ch) < 32 and ch not in "\t\n\r\f\x1b") or ch == "\ufffd")
    return bad > max(2, len(sample) // 200)


def _extract_txt(data: bytes) -> ExtractedDocument:
    text = _decode_text(data)
    collector = _Collector()
    for paragraph in re.split(r"\n\s*\n", text.replace("\r\n", "\n").replace("\r", "\n")):
        collector.add(paragraph)
    if not collector.blocks:
        raise _no_text(TXT)
    return ExtractedDocument(blocks=collector.blocks, page_count=None, kind=TXT)


def _markdown_inline(token: Token) -> str:
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type == "softbreak":
            parts.append(" ")
        elif child.type == "hardbreak":
            parts.append("\n")
        elif child.type == "image":
            parts.append(_markdown_inline(child) or child.content)
        elif child.type == "html_inline":
            continue  # tags alone; the text between them comes as text tokens
    return "".join(parts)


def _strip_front_matter(text: str) -> str:
    match = re.match(r"^---[ \t]*\n.*?\n(---|\.\.\.)[ \t]*(\n|$)", text, re.S)
    return text[match.end():] if match else text


def _extract_markdown(data: bytes) -> ExtractedDocument:
    text = _strip_front_matter(_decode_text(data))
    parser = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table")
    tokens = parser.parse(text)
    collector = _Collector()
    pending_heading: int | None = None
    list_depth = 0
    row: list[str] = []
    in_cell = False
    for token in tokens:
        kind = token.type
        if kind == "heading_open":
            pending_heading = int(token.tag[1])
        elif kind == "heading_close":
            pending_heading = None
        elif kind in ("bullet_list_open", "ordered_list_open"):
            list_depth += 1
        elif kind in ("bullet_list_close", "ordered_list_close"):
            list_depth -= 1
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close":
            collector.add(" | ".join(c for c in row if c))
        elif kind in ("th_open", "td_open"):
            in_cell = True
        elif kind in ("th_close", "td_close"):
            in_cell = False
        elif kind == "inline":
            content = _markdown_inline(token)
            if pending_heading is not None:
                collector.heading(pending_heading, content)
            elif in_cell:
                row.append(content.strip())
            else:
                collector.add(("• " if list_depth else "") + content)
        elif kind in ("fence", "code_block"):
            collector.add(token.content)
        elif kind == "html_block":
            collector.add(_html_fragment_text(token.content))
    collector.finish()
    if not collector.blocks:
        raise _no_text(MARKDOWN)
    return ExtractedDocument(blocks=collector.blocks, page_count=None, kind=MARKDOWN)


_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "head", "svg", "math", "canvas",
                        "iframe", "object", "embed", "select", "button"})
_BLOCK_TAGS = frozenset({"p", "div", "section", "article", "main", "aside", "header", "footer", "nav",
                         "blockquote", "pre", "li", "ul", "ol", "dl", "dt", "dd", "table", "thead",
                         "tbody", "tfoot", "tr", "caption", "figure", "figcaption", "form", "fieldset",
                         "legend", "address", "details", "summary", "hr", "body", "html"})
_HEADING_TAGS = {f"h{n}": n for n in range(1, 7)}
_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.I)


def _decode_html(data: bytes) -> str:
    match = _META_CHARSET.search(data[:4096])
    if match and not data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode(match.group(1).decode("ascii"), errors="strict")
        except (LookupError, UnicodeDecodeError):
            pass  # a lying declaration: fall back to our own detection
    return _decode_text(data)


def _parse_html(text: str) -> etree._Element | None:
    parser = etree.HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, no_network=True)
    # Re-encode ourselves: lxml refuses str input carrying an encoding declaration.
    root = etree.fromstring(text.encode("utf-8", errors="replace"), parser=parser)
    if any(entry.type_name == "ERR_RESOURCE_LIMIT" for entry in parser.error_log):
        # libxml2 silently drops everything below depth 256: refuse instead.
        raise _too_complex()
    return root


def _walk_html(root: etree._Element, on_heading: Callable[[int, str], None], on_text: Callable[[str], None]) -> None:
    """Stream an HTML tree as headings and text blocks, iteratively.

    Block elements end a text block, except inside a heading or a table row,
    which stay one piece of text whatever markup they contain.
    """

    buffer: list[str] = []
    heading: list[int] = []  # levels of the headings being read
    rows = 0  # depth of open <tr>s
    cells_in_row = 0

    def boundary() -> None:
        if heading or rows:
            buffer.append(" ")
            return
        on_text("".join(buffer))
        buffer.clear()

    walker = etree.iterwalk(root, events=("start", "end"))
    for event, element in walker:
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if event == "start":
            if tag in _SKIP_TAGS:
                walker.skip_subtree()  # its "end" event still comes, with the tail
                continue
            if tag in _HEADING_TAGS:
                boundary()
                heading.append(_HEADING_TAGS[tag])
            elif tag == "tr":
                boundary()
                rows += 1
                cells_in_row = 0
            elif tag in ("td", "th"):
                buffer.append(" | " if cells_in_row else " ")
                cells_in_row += 1
            elif tag in _BLOCK_TAGS:
                boundary()
                if tag == "li":
                    buffer.append("• ")
            elif tag == "br":
                buffer.append("\n")
            if element.text:
                buffer.append(element.text)
            continue
        if tag in _HEADING_TAGS and heading:
            level = heading.pop()
            if not heading:
                on_heading(level, "".join(buffer))
                buffer.clear()
        elif tag == "tr" and rows:
            rows -= 1
            boundary()
        elif tag in _BLOCK_TAGS:
            boundary()
        if element.tail:
            buffer.append(element.tail)
    boundary()


def _html_fragment_text(fragment: str) -> str:
    root = _parse_html(fragment)
    if root is None:  # only comments or whitespace
        return ""
    parts: list[str] = []
    _walk_html(root, lambda _level, text: parts.append(text), parts.append)
    return "\n\n".join(p.strip() for p in parts if p.strip())


def _extract_html(data: bytes) -> ExtractedDocument:
    text = _decode_html(data)
    if not text.strip():
        raise _no_text(HTML)
    root = _parse_html(text)
    if root is None:
        raise _no_text(HTML)
    collector = _Collector()
    _walk_html(root, collector.heading, collector.add)
    collector.finish()
    if not collector.blocks:
        raise _no_text(HTML)
    return ExtractedDocument(blocks=collector.blocks, page_count=None, kind=HTML)


# --------------------------------------------------------------------------- entry point

_EXTRACTORS: dict[str, Callable[[bytes], ExtractedDocument]] = {
    PDF: _extract_pdf,
    DOCX: _extract_docx,
    TXT: _extract_txt,
    MARKDOWN: _extract_markdown,
    HTML: _extract_html,
}


def extract_text(
    data: bytes,
    filename: str,
    *,
    mime_type: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ExtractedDocument:
    """Extract the text of an uploaded file as blocks in document order.

    Raises ExtractionError, and only ExtractionError, for anything that is
    not a readable PDF, DOCX, text, Markdown or HTML file.
    """
    if not data:
        raise ExtractionError("empty", "Filen är tom.")
    if len(data) > max_bytes:
        raise ExtractionError("too_large", f"Filen är för stor. Största tillåtna storlek är {_format_mb(max_bytes)} MB.")
    try:
        kind = _resolve_kind(data, filename, mime_type)
        return _EXTRACTORS[kind](data)
    except ExtractionError:
        raise
    except RecursionError:
        raise _too_complex() from None
    except Exception as exc:  # the promise: no library exception reaches the caller
        logger.warning("Unexpected extraction failure for %r: %r", filename, exc, exc_info=True)
        raise ExtractionError("corrupt_file", "Filen kunde inte läsas. Den kan vara skadad.") from None


def _format_mb(max_bytes: int) -> str:
    mb = max_bytes / (1024 * 1024)
    return f"{mb:.0f}" if mb >= 10 or mb == int(mb) else f"{mb:.1f}".replace(".", ",")
