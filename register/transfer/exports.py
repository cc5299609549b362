"""The register, a closed review and lagbevakning's report as Excel (openpyxl), PDF (reportlab) and CSV: pure
functions from the dataclasses below to bytes. What goes in them is read by register.selectors (`register_export_get`,
`review_export_get`) and register.notices.selectors (`notice_report_get`), which also decide what a reader may see
(a private file's title is "Privat fil" for a revisor); nothing here reads the database.

PDF: reportlab's built-in Helvetica (WinAnsi encoding) draws å, ä, ö, é and the dashes Swedish text uses, so
no font file has to ship; a character outside that encoding is drawn as a box, never an error.
Excel and CSV: a text cell that begins like a formula ("=", "+", "-", "@") is written as text, so a title or
a comment can never run as a formula in the reader's spreadsheet program.
"""

from __future__ import annotations

import csv
import io
from datetime import date
from xml.sax.saxutils import escape

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import LongTable, Paragraph, SimpleDocTemplate, Spacer, TableStyle

from compliance.downloads import CONTENT_TYPES, ExportFile
from compliance.spreadsheets import FORMULA_START

from .export_data import NoticeReport, NoticeRow, RegisterExport, ReviewExport


def _day(value: date | None) -> str:
    return value.isoformat() if value else ""


def file_name(kind: str, name: str, day: date, extension: str) -> str:
    """"laglista-arbetsmiljo-2026-11-25.xlsx": ASCII only, so every browser saves it under this name."""
    table = str.maketrans({"å": "a", "ä": "a", "ö": "o", "Å": "A", "Ä": "A", "Ö": "O", "é": "e", "ü": "u"})
    slug = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in name.translate(table).lower())
    slug = "-".join(part for part in slug.split("-") if part)[:60] or "export"
    return f"{kind}-{slug}-{day.isoformat()}.{extension}"


# --- Excel ---------------------------------------------------------------------------------------------

HEADER_FONT = Font(bold=True, color="FFFFFF")
HEADER_FILL = PatternFill("solid", fgColor="1F4E79")
TITLE_FONT = Font(bold=True, size=14)
WRAP = Alignment(wrap_text=True, vertical="top")


def _cell_value(value: str | int | date | None) -> str | int | date | None:
    if isinstance(value, bool):
        return "ja" if value else "nej"
    return value


def _write_table(sheet: Worksheet, heading: list[str], rows: list[list], widths: list[int], *, start_row: int) -> None:
    for col, (label, width) in enumerate(zip(heading, widths), start=1):
        cell = sheet.cell(row=start_row, column=col, value=label)
        cell.font, cell.fill = HEADER_FONT, HEADER_FILL
        sheet.column_dimensions[get_column_letter(col)].width = width
    for r, row in enumerate(rows, start=start_row + 1):
        for c, value in enumerate(row, start=1):
            cell = sheet.cell(row=r, column=c, value=_cell_value(value))
            if isinstance(value, str) and value.startswith(FORMULA_START):
                cell.data_type = "s"  # text, never a formula
            if isinstance(value, date):
                cell.number_format = "yyyy-mm-dd"
            cell.alignment = WRAP
    sheet.freeze_panes = sheet.cell(row=start_row + 1, column=1)
    if rows:
        sheet.auto_filter.ref = f"A{start_row}:{get_column_letter(len(heading))}{start_row + len(rows)}"


def _title_block(sheet: Worksheet, title: str, lines: list[str]) -> int:
    sheet.cell(row=1, column=1, value=title).font = TITLE_FONT
    for i, line in enumerate(lines, start=2):
        sheet.cell(row=i, column=1, value=line)
    return len(lines) + 3


REGISTER_HEADING = ["Grupp", "Författning", "Beteckning", "Typ", "Status", "Ansvarig", "Senast bedömd",
                    "Bedömd av", "Nästa bedömning", "Varför den gäller oss", "Hur vi uppfyller kraven",
                    "Kravpunkter", "Bevis"]
REQUIREMENT_HEADING = ["Författning", "Beteckning", "Paragraf", "Krav", "Status", "Ansvarig", "Kräver bevis",
                       "Bevis"]


def register_xlsx(data: RegisterExport) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = "Laglista"
    start = _title_block(sheet, f"Laglista – {data.register}", [
        f"Arbetsyta: {data.workspace}", f"Utskriven: {_day(data.printed)}",
        "Sammanställning: " + ", ".join(f"{label} {count}" for label, count in data.summary.items()),
    ])
    rows = [[item.group, item.title, item.number, item.kind, item.status_label, item.responsible,
             item.last_reviewed_at, item.last_reviewed_by, item.next_review_date, item.reason, item.how_we_comply,
             len(item.requirements), "\n".join(item.evidence)] for item in data.items]
    _write_table(sheet, REGISTER_HEADING, rows, [18, 44, 16, 16, 16, 18, 14, 18, 14, 40, 40, 12, 40],
                 start_row=start)
    requirements = book.create_sheet("Kravpunkter")
    start = _title_block(requirements, f"Kravpunkter – {data.register}",
                         [f"Arbetsyta: {data.workspace}", f"Utskriven: {_day(data.printed)}"])
    rows = [[item.title, item.number, r.section_ref, r.title, r.status, r.owner, r.needs_evidence,
             "\n".join(r.evidence)] for item in data.items for r in item.requirements]
    _write_table(requirements, REQUIREMENT_HEADING, rows, [40, 16, 16, 44, 16, 18, 12, 40], start_row=start)
    return _save(book)


REVIEW_HEADING = ["Författning", "Beteckning", "Typ", "Lydelse", "Bedömning", "Motivering", "Bedömd av",
                  "Signerad", "Kravpunkter", "Bevis"]


def review_xlsx(data: ReviewExport) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = "Lagefterlevnadskontroll"
    start = _title_block(sheet, f"Lagefterlevnadskontroll – {data.title}", _review_lines(data))
    rows = [[e.title, e.number, e.kind, e.version, e.rating_label, e.justification, e.assessor, e.assessed_at,
             "\n".join(f"{r.section_ref} {r.title}: {r.status}".strip() for r in e.requirements),
             "\n".join(e.evidence)] for e in data.entries]
    _write_table(sheet, REVIEW_HEADING, rows, [44, 16, 16, 22, 16, 44, 18, 12, 44, 40], start_row=start)
    if data.actions:
        actions = book.create_sheet("Åtgärder")
        _write_table(actions, ["Åtgärd"], [[a] for a in data.actions], [80], start_row=1)
    return _save(book)


def _review_lines(data: ReviewExport) -> list[str]:
    return [
        f"Arbetsyta: {data.workspace}", f"Laglista: {data.register}",
        f"Omfattning: {', '.join(data.groups) if data.groups else 'hela laglistan'}",
        f"Ansvarig granskare: {data.lead or '–'}", f"Per datum: {_day(data.as_of)}",
        f"Avslutad av: {data.closed_by or '–'}", f"Utskriven: {_day(data.printed)}",
        "Sammanställning: " + ", ".join(f"{label} {count}" for label, count in data.summary.items()),
    ]


NOTICE_HEADING = ["Datum", "Författning", "Beteckning", "Typ", "Ändring", "På laglistan", "Ändrade enheter",
                  "Enheter per typ", "Berör kravpunkter", "Hänvisas till från kravpunkter", "Påverkar oss", "Vad behöver göras",
                  "Kommentar", "Bedömd av", "Bedömd", "Åtgärd"]


def _notice_lines(data: NoticeReport) -> list[str]:
    return [f"Arbetsyta: {data.workspace}", f"Period: {data.period}", f"Utskriven: {_day(data.printed)}",
            "Sammanställning: " + ", ".join(f"{label} {count}" for label, count in data.summary.items())]


def _notice_values(row: NoticeRow) -> list:
    return [row.noticed_on, row.title, row.number, row.kind_label, row.change, row.on_register, row.changed_units,
            row.units_text, ", ".join(row.relevant_units), ", ".join(row.cited_units), row.affects_us or "inte bedömd",
            row.what_to_do, row.comment, row.answered_by, row.answered_on, row.action]


def notice_report_xlsx(data: NoticeReport) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = "Lagbevakning"
    start = _title_block(sheet, f"Lagbevakning – {data.workspace}", _notice_lines(data))
    _write_table(sheet, NOTICE_HEADING, [_notice_values(row) for row in data.rows],
                 [12, 44, 16, 16, 36, 12, 12, 30, 24, 24, 14, 40, 30, 18, 12, 40], start_row=start)
    return _save(book)


def _save(book: Workbook) -> bytes:
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


# --- CSV -----------------------------------------------------------------------------------------------

CSV_HEADING = ["id", "grupp", "forfattning", "beteckning", "typ", "status", "status_text", "ansvarig",
               "senast_bedomd", "bedomd_av", "nasta_bedomning", "kravpunkter", "bevis"]


def _csv_text(value: str | int | date | None) -> str:
    text = "" if value is None else (value.isoformat() if isinstance(value, date) else str(value))
    return "'" + text if text.startswith(FORMULA_START) else text


def register_csv(data: RegisterExport) -> bytes:
    """For integrations: one row per item, stable ASCII column names, status as its code and its text,
    UTF-8 with a BOM (so Excel reads å, ä, ö), comma separated, ISO dates."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_HEADING)
    for item in data.items:
        writer.writerow([_csv_text(v) for v in (
            item.id, item.group, item.title, item.number, item.kind, item.status, item.status_label,
            item.responsible, item.last_reviewed_at, item.last_reviewed_by, item.next_review_date,
            len(item.requirements), " | ".join(item.evidence))])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


NOTICE_CSV_HEADING = ["datum", "forfattning", "beteckning", "typ", "typ_text", "andring", "pa_laglistan",
                      "andrade_enheter", "enheter_per_typ", "beror_kravpunkter", "hanvisas_fran_kravpunkter", "paverkar_oss",
                      "vad_behover_goras", "kommentar", "bedomd_av", "bedomd", "atgard"]


def notice_report_csv(data: NoticeReport) -> bytes:
    """As the register's CSV: one row per notice, stable ASCII column names, the kind as its code and its text, the
    answer as its Swedish label (empty when not answered), lists joined with " | "."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(NOTICE_CSV_HEADING)
    for row in data.rows:
        writer.writerow([_csv_text(v) for v in (
            row.noticed_on, row.title, row.number, row.kind, row.kind_label, row.change,
            "ja" if row.on_register else "nej", row.changed_units, row.units_text, " | ".join(row.relevant_units),
            " | ".join(row.cited_units), row.affects_us, row.what_to_do, row.comment, row.answered_by,
            row.answered_on, row.action)])
    return ("\ufeff" + buffer.getvalue()).encode("utf-8")


# --- PDF -----------------------------------------------------------------------------------------------


def _styles() -> dict[str, ParagraphStyle]:
    base = getSampleStyleSheet()
    return {
        "title": ParagraphStyle("title", parent=base["Title"], fontName="Helvetica-Bold", fontSize=16,
                                alignment=0, spaceAfter=4),
        "meta": ParagraphStyle("meta", parent=base["Normal"], fontName="Helvetica", fontSize=9, leading=12),
        "cell": ParagraphStyle("cell", parent=base["Normal"], fontName="Helvetica", fontSize=7.5, leading=9.5),
        "head": ParagraphStyle("head", parent=base["Normal"], fontName="Helvetica-Bold", fontSize=7.5,
                               leading=9.5, textColor=colors.white),
    }


def _p(text: str, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(text or "").replace("\n", "<br/>"), style)


def _table(heading: list[str], rows: list[list[str]], widths: list[float],
           styles: dict[str, ParagraphStyle]) -> LongTable:
    data = [[_p(h, styles["head"]) for h in heading]] + [[_p(c, styles["cell"]) for c in row] for row in rows]
    table = LongTable(data, colWidths=widths, repeatRows=1)
    table.setStyle(TableStyle([
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#1F4E79")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#B0B7C3")),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#F2F5F9")]),
    ]))
    return table


def _pdf(title: str, meta: list[str], heading: list[str], rows: list[list[str]], widths_mm: list[float],
         footer: str, extra: list | None = None) -> bytes:
    styles = _styles()
    buffer = io.BytesIO()
    page = landscape(A4)

    def draw_footer(canvas: Canvas, doc: SimpleDocTemplate) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 7.5)
        canvas.drawString(12 * mm, 8 * mm, footer)
        canvas.drawRightString(page[0] - 12 * mm, 8 * mm, f"Sida {doc.page}")
        canvas.restoreState()

    doc = SimpleDocTemplate(buffer, pagesize=page, leftMargin=12 * mm, rightMargin=12 * mm, topMargin=12 * mm,
                            bottomMargin=14 * mm, title=title, author="Lagrum")
    story = [_p(title, styles["title"]), *[_p(line, styles["meta"]) for line in meta], Spacer(1, 4 * mm)]
    story.append(_table(heading, rows, [w * mm for w in widths_mm], styles) if rows
                 else _p("Inga poster.", styles["meta"]))
    for block in extra or []:
        story.extend([Spacer(1, 5 * mm), _p(block[0], styles["title"]), *[_p(line, styles["meta"])
                                                                            for line in block[1]]])
    doc.build(story, onFirstPage=draw_footer, onLaterPages=draw_footer)
    return buffer.getvalue()


def register_pdf(data: RegisterExport) -> bytes:
    rows = [[item.group, f"{item.title}\n{item.kind}", item.status_label, item.responsible,
             f"{_day(item.last_reviewed_at)}\n{item.last_reviewed_by}".strip(), _day(item.next_review_date),
             str(len(item.requirements)), "\n".join(item.evidence)] for item in data.items]
    return _pdf(
        f"Laglista – {data.register}",
        [f"Arbetsyta: {data.workspace}", f"Utskriven: {_day(data.printed)}",
         "Sammanställning: " + ", ".join(f"{label} {count}" for label, count in data.summary.items())],
        ["Grupp", "Författning", "Status", "Ansvarig", "Senast bedömd", "Nästa bedömning", "Kravpunkter", "Bevis"],
        rows, [30, 80, 24, 28, 28, 22, 18, 43],
        footer=f"{data.workspace} · Laglista – {data.register} · utskriven {_day(data.printed)}")


def review_pdf(data: ReviewExport) -> bytes:
    rows = [[f"{e.title}\n{e.kind}", e.version, e.rating_label, e.justification,
             f"{e.assessor}\n{_day(e.assessed_at)}".strip(),
             "\n".join(f"{r.section_ref} {r.title}: {r.status}".strip() for r in e.requirements),
             "\n".join(e.evidence)] for e in data.entries]
    extra = [("Åtgärder", data.actions)] if data.actions else []
    return _pdf(
        f"Lagefterlevnadskontroll – {data.title}", _review_lines(data),
        ["Författning", "Lydelse", "Bedömning", "Motivering", "Bedömd av", "Kravpunkter", "Bevis"],
        rows, [62, 28, 24, 52, 28, 41, 38],
        footer=f"{data.workspace} · Lagefterlevnadskontroll – {data.title} · per {_day(data.as_of)}", extra=extra)


def notice_report_pdf(data: NoticeReport) -> bytes:
    rows = []
    for row in data.rows:
        units = [row.units_text]
        if row.relevant_units:
            units.append("berör kravpunkter: " + ", ".join(row.relevant_units))
        if row.cited_units:
            units.append("hänvisas till från kravpunkter: " + ", ".join(row.cited_units))
        if not row.on_register:
            units.append("inte på laglistan")
        answer = (f"Påverkar oss: {row.affects_us}\n{row.what_to_do}\n{row.comment}".strip() if row.answered
                  else "inte bedömd")
        rows.append([_day(row.noticed_on), f"{row.title}\n{row.number} · {row.kind_label}", row.change,
                     "\n".join(u for u in units if u), answer,
                     f"{row.answered_by}\n{_day(row.answered_on)}".strip(), row.action])
    return _pdf(
        f"Lagbevakning – {data.workspace}", _notice_lines(data),
        ["Datum", "Författning", "Ändring", "Enheter", "Bedömning", "Bedömd av", "Åtgärd"],
        rows, [20, 62, 44, 40, 52, 24, 31],
        footer=f"{data.workspace} · Lagbevakning {data.period} · utskriven {_day(data.printed)}")


# --- files ---------------------------------------------------------------------------------------------

REGISTER_FORMATS = {"xlsx": register_xlsx, "pdf": register_pdf, "csv": register_csv}
REVIEW_FORMATS = {"xlsx": review_xlsx, "pdf": review_pdf}
NOTICE_REPORT_FORMATS = {"xlsx": notice_report_xlsx, "pdf": notice_report_pdf, "csv": notice_report_csv}


def register_file(data: RegisterExport, fmt: str) -> ExportFile:
    return ExportFile(content=REGISTER_FORMATS[fmt](data), content_type=CONTENT_TYPES[fmt],
                      file_name=file_name("laglista", data.register, data.printed, fmt))


def review_file(data: ReviewExport, fmt: str) -> ExportFile:
    return ExportFile(content=REVIEW_FORMATS[fmt](data), content_type=CONTENT_TYPES[fmt],
                      file_name=file_name("kontroll", data.title, data.as_of or data.printed, fmt))


def notice_report_file(data: NoticeReport, fmt: str) -> ExportFile:
    return ExportFile(content=NOTICE_REPORT_FORMATS[fmt](data), content_type=CONTENT_TYPES[fmt],
                      file_name=file_name("lagbevakning", data.workspace, data.printed, fmt))
