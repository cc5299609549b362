"""Extraction from real files built here with the real libraries, good and bad."""

from __future__ import annotations

import io
import random
import zipfile
from collections.abc import Callable, Iterator
from typing import Any, Never

import docx
import pypdf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import chunks.extract as extract
from chunks.extract import (
    MIME_TYPES,
    SUPPORTED_EXTENSIONS,
    ExtractedDocument,
    ExtractionError,
    extract_text,
    sniff_mime,
)


@pytest.fixture(autouse=True)
def _media_root() -> Iterator[None]:
    # Shadows the suite-wide fixture of the same name: these tests are pure
    # Python and must run without Django (`-p no:django`).
    yield


# --------------------------------------------------------------------------- builders


def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252")  # WinAnsiEncoding, which the font below declares
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def make_pdf(pages: list[list[str]]) -> bytes:
    """A minimal valid PDF, one text line per list item, with a correct xref table.

    pypdf cannot lay out text, so the objects are written by hand. An empty
    list makes a page with no text layer at all, like a scanned page.
    """
    n = len(pages)
    font_id = 3 + 2 * n
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % (3 + 2 * i) for i in range(n))
        + b"] /Count %d >>" % n,
        font_id: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    }
    for i, lines in enumerate(pages):
        page_id, content_id = 3 + 2 * i, 4 + 2 * i
        if lines:
            ops = [b"BT /F1 11 Tf 14 TL 72 760 Td"]
            for line in lines:
                ops.append(_pdf_string(line) + b" Tj T*")
            ops.append(b"ET")
        else:
            ops = [b"0.5 g 72 72 450 650 re f"]  # a grey box: an "image", no text
        stream = b"\n".join(ops)
        objects[content_id] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        objects[page_id] = (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>" % (font_id, content_id)
        )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: dict[int, int] = {}
    for obj_id in sorted(objects):
        offsets[obj_id] = len(out)
        out += b"%d 0 obj\n" % obj_id + objects[obj_id] + b"\nendobj\n"
    xref_at = len(out)
    size = max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for obj_id in range(1, size):
        out += b"%010d 00000 n \n" % offsets[obj_id]
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref_at)
    return bytes(out)


PDF_PAGES = [
    [
        "Arbetsmiljöpolicy för Exempel AB",
        "",
        "Alla medarbetare ska ha en säker och hälsosam arbetsmiljö. Vi arbetar",
        "systematiskt med att förebygga ohälsa och olycksfall på arbetsplatsen.",
    ],
    ["Ansvar", "", "Vd ansvarar för att arbetsmiljöarbetet följs upp årligen."],
    ["Uppföljning", "", "Skyddsombudet får ta del av riskbedömningar och åtgärdsplaner."],
]


def make_docx() -> bytes:
    document = docx.Document()
    document.add_heading("Rutin för tillbud", level=0)
    document.add_heading("1. Syfte", level=1)
    document.add_paragraph("Rutinen säkerställer att tillbud rapporteras och åtgärdas.")
    document.add_heading("2. Ansvar", level=1)
    document.add_paragraph("Närmaste chef ansvarar för utredningen.")
    document.add_heading("2.1 Skyddsombud", level=2)
    document.add_paragraph("Skyddsombudet informeras inom en vecka.")
    document.add_paragraph("Rapportera i systemet", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text = "Roll"
    table.cell(0, 1).text = "Uppgift"
    table.cell(1, 0).text = "Chef"
    table.cell(1, 1).text = "Utreder tillbudet"
    document.add_heading("3. Uppföljning", level=1)
    document.add_paragraph("Tillbud följs upp på arbetsplatsträffar.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def make_encrypted_pdf() -> bytes:
    reader = pypdf.PdfReader(io.BytesIO(make_pdf(PDF_PAGES)))
    writer = pypdf.PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    writer.encrypt(user_password="hemligt", owner_password="ägare", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def make_zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _error(data: bytes, filename: str, **kwargs: Any) -> ExtractionError:
    with pytest.raises(ExtractionError) as info:
        extract_text(data, filename, **kwargs)
    error = info.value
    assert error.code and error.message
    assert error.message[0].isupper() and error.message.endswith((".", ")"))
    return error


# --------------------------------------------------------------------------- PDF


def test_pdf_keeps_pages_and_swedish_characters() -> None:
    doc = extract_text(make_pdf(PDF_PAGES), "Arbetsmiljöpolicy.pdf")

    assert isinstance(doc, ExtractedDocument)
    assert doc.kind == "pdf"
    assert doc.page_count == 3
    assert {block.page for block in doc.blocks} == {1, 2, 3}
    assert all(block.heading_path == () for block in doc.blocks)
    page1 = " ".join(b.text for b in doc.blocks if b.page == 1)
    assert "Arbetsmiljöpolicy för Exempel AB" in page1
    # Hard-wrapped lines of one sentence come back as one paragraph.
    assert "Vi arbetar systematiskt med att förebygga ohälsa" in page1
    assert any(b.text.startswith("Vd ansvarar") and b.page == 2 for b in doc.blocks)
    assert any("åtgärdsplaner" in b.text and b.page == 3 for b in doc.blocks)


def test_pdf_blocks_are_in_page_order() -> None:
    doc = extract_text(make_pdf(PDF_PAGES), "policy.pdf")
    pages = [block.page for block in doc.blocks]
    assert pages == sorted(pages)


def test_pdf_page_without_text_is_skipped_but_others_kept() -> None:
    doc = extract_text(make_pdf([[], ["Text på sidan två."]]), "blandad.pdf")
    assert doc.page_count == 2
    assert [(b.page, b.text) for b in doc.blocks] == [(2, "Text på sidan två.")]


def test_pdf_without_text_layer_is_no_text() -> None:
    error = _error(make_pdf([[], []]), "inskannad.pdf")
    assert error.code == "no_text"
    assert "OCR" in error.message and "inskannad" in error.message


def test_encrypted_pdf() -> None:
    error = _error(make_encrypted_pdf(), "hemlig.pdf")
    assert error.code == "encrypted_pdf"
    assert error.message.startswith("PDF-filen är lösenordsskyddad")


def test_pdf_encrypted_with_empty_user_password_is_read() -> None:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(make_pdf(PDF_PAGES))))
    writer.encrypt(user_password="", owner_password="ägare", algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    doc = extract_text(buffer.getvalue(), "utskriftsskyddad.pdf")
    assert doc.page_count == 3 and "Vd ansvarar" in " ".join(b.text for b in doc.blocks)


@pytest.mark.parametrize("data", [
    b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog",  # truncated
    b"%PDF-1.7\n" + b"\x00garbage\xff" * 200,
])
def test_corrupt_pdf(data: bytes) -> None:
    error = _error(data, "trasig.pdf")
    assert error.code == "corrupt_pdf"
    assert "PDF" in error.message


def test_pdf_extension_on_text_is_not_a_pdf() -> None:
    error = _error("Det här är bara text.".encode(), "fake.pdf")
    assert error.code == "corrupt_pdf"
    assert "inte en giltig PDF" in error.message


def test_pdf_extension_on_docx_is_a_mismatch() -> None:
    error = _error(make_docx(), "rutin.pdf")
    assert error.code == "type_mismatch"
    assert ".pdf" in error.message and "Word" in error.message


def test_docx_extension_on_pdf_is_a_mismatch() -> None:
    assert _error(make_pdf(PDF_PAGES), "rutin.docx").code == "type_mismatch"


def test_too_many_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extract, "MAX_PDF_PAGES", 2)
    error = _error(make_pdf(PDF_PAGES), "lång.pdf")
    assert error.code == "too_many_pages"
    assert "3 sidor" in error.message and "2" in error.message


# --------------------------------------------------------------------------- DOCX


def test_docx_headings_levels_and_tables() -> None:
    doc = extract_text(make_docx(), "Rutin för tillbud.docx")
    assert doc.kind == "docx" and doc.page_count is None
    by_text = {block.text: block for block in doc.blocks}

    purpose = by_text["Rutinen säkerställer att tillbud rapporteras och åtgärdas."]
    assert purpose.heading_path == ("Rutin för tillbud", "1. Syfte")
    assert purpose.heading_levels == (0, 1)
    assert by_text["Närmaste chef ansvarar för utredningen."].heading_path == ("Rutin för tillbud", "2. Ansvar")
    nested = by_text["Skyddsombudet informeras inom en vecka."]
    assert nested.heading_path == ("Rutin för tillbud", "2. Ansvar", "2.1 Skyddsombud")
    assert nested.heading_levels == (0, 1, 2)
    assert by_text["• Rapportera i systemet"].heading_path[-1] == "2.1 Skyddsombud"
    # Table text is included, a row per block, under the heading it sits in.
    assert by_text["Roll | Uppgift"].heading_path[-1] == "2.1 Skyddsombud"
    assert "Chef | Utreder tillbudet" in by_text
    # A sibling heading pops the deeper level.
    follow_up = by_text["Tillbud följs upp på arbetsplatsträffar."]
    assert follow_up.heading_path == ("Rutin för tillbud", "3. Uppföljning")
    assert all(block.page is None for block in doc.blocks)


def test_docx_block_order_follows_document() -> None:
    texts = [b.text for b in extract_text(make_docx(), "r.docx").blocks]
    assert texts.index("Närmaste chef ansvarar för utredningen.") < texts.index("Roll | Uppgift")
    assert texts.index("Roll | Uppgift") < texts.index("Tillbud följs upp på arbetsplatsträffar.")


def test_docx_that_is_not_a_zip() -> None:
    error = _error(b"Detta \xe4r inget Word-dokument alls, bara text.", "rutin.docx")
    assert error.code == "corrupt_docx"
    assert "Word" in error.message


def test_docx_zip_without_document_xml() -> None:
    error = _error(make_zip({"hello.txt": b"hej"}), "rutin.docx")
    assert error.code == "corrupt_docx"
    assert "word/document.xml" in error.message


def test_docx_truncated_zip() -> None:
    data = make_docx()
    assert _error(data[: len(data) // 2], "halv.docx").code == "corrupt_docx"


def test_docx_with_broken_xml_is_corrupt() -> None:
    data = make_zip({
        "[Content_Types].xml": b"<Types",
        "word/document.xml": b"<w:document><not closed",
    })
    assert _error(data, "trasig.docx").code == "corrupt_docx"


def test_docx_zip_bomb_ratio_rejected_before_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def must_not_parse(*_args: object, **_kwargs: object) -> Never:
        raise AssertionError("a zip bomb reached the parser")

    monkeypatch.setattr(docx, "Document", must_not_parse)
    bomb = make_zip({
        "[Content_Types].xml": b"<Types/>",
        "word/document.xml": b"<w:document>" + b" " * (30 * 1024 * 1024) + b"</w:document>",
    })
    assert len(bomb) < 200_000
    error = _error(bomb, "bomb.docx")
    assert error.code == "docx_too_large_uncompressed"
    assert "MB" in error.message


def test_docx_zip_bomb_total_size(monkeypatch: pytest.MonkeyPatch) -> None:
    # Many members each under the ratio check: the sum is what gives them away.
    monkeypatch.setattr(extract, "MAX_DOCX_UNCOMPRESSED", 2 * 1024 * 1024)
    members = {f"word/media/part{i}.xml": b"a" * 900_000 for i in range(4)}
    members["word/document.xml"] = b"<w:document/>"
    assert _error(make_zip(members), "stor.docx").code == "docx_too_large_uncompressed"


def test_docx_without_text() -> None:
    buffer = io.BytesIO()
    docx.Document().save(buffer)
    assert _error(buffer.getvalue(), "tom.docx").code == "no_text"


# --------------------------------------------------------------------------- text formats


def test_txt_in_cp1252() -> None:
    text = "Rutin för brandskydd\r\n\r\nÅrlig övning sker i maj. Utrymningsvägar hålls fria.\r\n"
    doc = extract_text(text.encode("cp1252"), "brandskydd.txt")
    assert doc.kind == "txt"
    assert [b.text for b in doc.blocks] == [
        "Rutin för brandskydd",
        "Årlig övning sker i maj. Utrymningsvägar hålls fria.",
    ]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "latin-1"])
def test_txt_encodings(encoding: str) -> None:
    text = "Åtgärder: ärende öppnat, “citat” – klart."
    doc = extract_text(text.encode(encoding, errors="replace"), "a.txt")
    assert doc.blocks[0].text.startswith("Åtgärder: ärende öppnat")
    assert "\ufeff" not in doc.blocks[0].text


def test_txt_with_binary_content_is_bad_encoding() -> None:
    error = _error(bytes(range(256)) * 20, "data.txt")
    assert error.code == "bad_encoding"
    assert "UTF-8" in error.message


def test_decomposed_swedish_characters_are_normalised() -> None:
    doc = extract_text("A\u030arsrapport fo\u0308r ma\u0308tning".encode(), "a.txt")
    assert doc.blocks[0].text == "Årsrapport för mätning"


def test_markdown_headings_and_inline_markup() -> None:
    source = (
        "---\ntitle: ignoreras\n---\n"
        "# Dataskyddspolicy\n\nGäller **alla** anställda på [Exempel AB](https://exempel.se).\n\n"
        "## Personuppgifter\n\n- Namn\n- Personnummer\n\n"
        "### Gallring\n\nUppgifter gallras efter två år.\n\n"
        "## Incidenter\n\n| Typ | Frist |\n|---|---|\n| Personuppgiftsincident | 72 timmar |\n"
    )
    doc = extract_text(source.encode(), "policy.md")
    assert doc.kind == "markdown"
    pairs = [(b.heading_path, b.text) for b in doc.blocks]
    assert pairs == [
        (("Dataskyddspolicy",), "Gäller alla anställda på Exempel AB."),
        (("Dataskyddspolicy", "Personuppgifter"), "• Namn"),
        (("Dataskyddspolicy", "Personuppgifter"), "• Personnummer"),
        (("Dataskyddspolicy", "Personuppgifter", "Gallring"), "Uppgifter gallras efter två år."),
        (("Dataskyddspolicy", "Incidenter"), "Typ | Frist"),
        (("Dataskyddspolicy", "Incidenter"), "Personuppgiftsincident | 72 timmar"),
    ]


def test_html_headings_paragraphs_and_no_scripts() -> None:
    html = """<!DOCTYPE html><html><head><meta charset="windows-1252"><title>Sidtitel</title>
    <style>body { color: red }</style><script>alert("x")</script></head>
    <body><h1>Visselblåsarpolicy</h1><p>Du kan anmäla <b>missförhållanden</b> anonymt.</p>
    <script>var hidden = "hemligt";</script>
    <h2>Så gör du</h2><ol><li>Skriv till oss</li><li>Vänta på svar</li></ol>
    <h3>Uppföljning</h3><div>Vi återkommer inom <em>tre</em> månader.<br>Tack!</div>
    <h2>Kontakt</h2><table><tr><th>Namn</th><th>E-post</th></tr>
    <tr><td>Åsa</td><td><p>asa@exempel.se</p></td></tr></table>
    </body></html>"""
    doc = extract_text(html.encode("cp1252"), "visselblasning.html")
    assert doc.kind == "html"
    pairs = [(b.heading_path, b.text) for b in doc.blocks]
    assert pairs == [
        (("Visselblåsarpolicy",), "Du kan anmäla missförhållanden anonymt."),
        (("Visselblåsarpolicy", "Så gör du"), "• Skriv till oss"),
        (("Visselblåsarpolicy", "Så gör du"), "• Vänta på svar"),
        (("Visselblåsarpolicy", "Så gör du", "Uppföljning"), "Vi återkommer inom tre månader.\nTack!"),
        (("Visselblåsarpolicy", "Kontakt"), "Namn | E-post"),
        (("Visselblåsarpolicy", "Kontakt"), "Åsa | asa@exempel.se"),
    ]
    everything = " ".join(b.text for b in doc.blocks)
    assert "alert" not in everything and "hemligt" not in everything and "color" not in everything


def test_html_utf8_without_declaration() -> None:
    doc = extract_text("<p>Ärendet är öppnat.</p>".encode(), "a.htm")
    assert doc.blocks[0].text == "Ärendet är öppnat."


def test_deeply_nested_html_is_refused_not_truncated() -> None:
    html = b"<html><body>" + b"<div>" * 5000 + b"djupt" + b"</div>" * 5000 + b"</body></html>"
    error = _error(html, "djup.html")
    assert error.code == "too_complex"


def test_empty_heading_is_kept_as_text() -> None:
    doc = extract_text(b"# Ett\n\n## Tom\n\n## Full\n\nText.\n\n## Sist\n", "a.md")
    assert [(b.heading_path, b.text) for b in doc.blocks] == [
        (("Ett",), "Tom"),
        (("Ett", "Full"), "Text."),
        (("Ett",), "Sist"),
    ]


# --------------------------------------------------------------------------- generic refusals


@pytest.mark.parametrize("data", [b"", b"   \n\t  "])
def test_empty(data: bytes) -> None:
    if data:
        assert _error(data, "blank.txt").code == "no_text"
    else:
        error = _error(data, "tom.pdf")
        assert (error.code, error.message) == ("empty", "Filen är tom.")


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + b"\x00" * 40


@pytest.mark.parametrize("data,filename", [
    (b"MZ\x90\x00\x03\x00\x00\x00" + b"\x00" * 100, "setup.exe"),
    (PNG, "bild.png"),
    (PNG, "bild"),
    (b"Hej", "kalkyl.xlsx"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100, "gammal.doc"),
])
def test_unsupported_type(data: bytes, filename: str) -> None:
    error = _error(data, filename)
    assert error.code == "unsupported_type"
    assert "Filtypen stöds inte. Ladda upp PDF, DOCX, TXT, Markdown eller HTML." in error.message


def test_png_named_txt_is_a_mismatch() -> None:
    assert _error(PNG, "anteckningar.txt").code == "type_mismatch"


def test_too_large_has_configurable_limit() -> None:
    data = make_pdf(PDF_PAGES)
    error = _error(data, "policy.pdf", max_bytes=1024)
    assert error.code == "too_large"
    assert "MB" in error.message
    assert _error(b"x" * (3 * 1024 * 1024 + 1), "a.txt", max_bytes=3 * 1024 * 1024).message.endswith("3 MB.")
    assert extract_text(data, "policy.pdf", max_bytes=len(data)).page_count == 3


def test_unexpected_library_failure_is_wrapped() -> None:
    # A page that declares the punycode codec: Python's codec raises a bare
    # UnicodeError, which no extractor expects; it must still come out as a
    # clear Swedish error, never as the library's exception.
    data = b'<html><head><meta charset="punycode"></head><body><p>Hej</p></body></html>'
    with pytest.raises(UnicodeError) as raw:
        data.decode("punycode")
    assert not isinstance(raw.value, UnicodeDecodeError)
    error = _error(data, "sida.html")
    assert error.code == "corrupt_file"
    assert "kunde inte läsas" in error.message


def test_type_from_content_without_extension() -> None:
    assert extract_text(make_pdf(PDF_PAGES), "uppladdning").kind == "pdf"
    assert extract_text(make_docx(), "uppladdning").kind == "docx"
    assert extract_text(b"<html><body><p>Hej</p></body></html>", "blob").kind == "html"
    assert extract_text(b"# Rubrik\n\ntext", "blob", mime_type="text/markdown; charset=utf-8").kind == "markdown"
    assert extract_text(b"vanlig text", "blob").kind == "txt"


def test_extension_is_case_insensitive_and_path_stripped() -> None:
    assert extract_text(make_pdf(PDF_PAGES), r"C:\Users\anna\POLICY.PDF").kind == "pdf"


def test_sniff_mime_and_supported_extensions() -> None:
    assert {".pdf", ".docx", ".txt", ".md", ".html", ".htm"} <= SUPPORTED_EXTENSIONS
    assert sniff_mime(make_pdf(PDF_PAGES), "whatever.bin") == "application/pdf"
    assert sniff_mime(make_docx(), "x.docx") == MIME_TYPES["docx"]
    assert sniff_mime(b"# Hej", "a.md") == "text/markdown"
    assert sniff_mime(b"<!doctype html><p>x", "noext") == "text/html"
    assert sniff_mime(b"plain", "a.txt") == "text/plain"
    assert sniff_mime(PNG, "a.png") == "image/png"
    assert sniff_mime(make_zip({"a": b"b"}), "a.zip") == "application/zip"
    assert sniff_mime(b"\x00\x01\x02\x03" * 10, "x") == "application/octet-stream"


def test_markdown_with_raw_html_blocks() -> None:
    source = b"# A\n\n<!-- kommentar -->\n\n<div>\n<p>inb\xc3\xa4ddad html</p>\n</div>\n\nefter\n"
    doc = extract_text(source, "a.md")
    assert [(b.heading_path, b.text) for b in doc.blocks] == [(("A",), "inbäddad html"), (("A",), "efter")]


# --------------------------------------------------------------------------- robustness


def _mutations(seed: bytes, count: int, rng: random.Random) -> list[bytes]:
    out = []
    for _ in range(count):
        data = bytearray(seed)
        op = rng.random()
        if op < 0.4:
            for _ in range(rng.randint(1, 10)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif op < 0.7:
            del data[rng.randrange(len(data)):]
        else:
            at, src = rng.randrange(len(data)), rng.randrange(len(data))
            data[at:at] = data[src:src + rng.randint(1, 200)]
        out.append(bytes(data))
    return out


@pytest.mark.parametrize("filename,builder", [
    ("a.pdf", lambda: make_pdf(PDF_PAGES)),
    ("a.docx", make_docx),
    ("a.html", lambda: "<h1>Å</h1><p>x</p><table><tr><td>a</td></tr></table>".encode()),
    ("a.md", lambda: "# Å\n\n- x\n\n<!-- c -->\n\n| a |\n|---|\n| b |\n".encode()),
])
def test_damaged_files_only_ever_raise_extraction_error(filename: str, builder: Callable[[], bytes]) -> None:
    rng = random.Random(filename)
    for data in _mutations(builder(), 60, rng):
        try:
            doc = extract_text(data, filename)
        except ExtractionError as error:
            assert error.code != "corrupt_file", error  # each format names its own failure
        else:
            assert doc.blocks and all(b.text.strip() for b in doc.blocks)


def test_arbitrary_bytes_only_ever_raise_extraction_error() -> None:

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.binary(max_size=2000), ext=st.sampled_from(sorted(SUPPORTED_EXTENSIONS) + ["", ".bin"]))
    def check(data: bytes, ext: str) -> None:
        try:
            extract_text(data, "fil" + ext)
        except ExtractionError as error:
            assert error.code != "corrupt_file", error

    check()


@pytest.mark.parametrize("user_password,readable", [("", True), ("hemligt", False)])
def test_aes_encrypted_pdf(user_password: str, readable: bool) -> None:
    # pypdf needs `cryptography` for AES, both to write and to read.
    pytest.importorskip("cryptography")

    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(make_pdf(PDF_PAGES))))
    writer.encrypt(user_password=user_password, owner_password="ägare", algorithm="AES-256")
    buffer = io.BytesIO()
    writer.write(buffer)
    if readable:
        assert extract_text(buffer.getvalue(), "a.pdf").page_count == 3
    else:
        assert _error(buffer.getvalue(), "a.pdf").code == "encrypted_pdf"
