"""The glossary as Excel and CSV, out and in: an export holds exactly the workspace's terms; an import adds new words,
changes the law words of known ones, removes nothing, and is idempotent; one bad row, a word given two meanings or
a glossary past its bound and nothing is written, with the rows at fault named; cp1252, BOM and both separators;
a round trip between workspaces; readers export but do not import; another workspace is a 404 (page and API)."""

from __future__ import annotations

import csv
import io
from datetime import date

import pytest
from auditlog.models import LogEntry
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import IntegrityError
from django.urls import reverse
from openpyxl import Workbook, load_workbook

from compliance.clock import swedish_today
from compliance.models import Membership, Workspace
from compliance.spreadsheets import MAX_FILE_BYTES
from glossary import services, transfer
from glossary.models import Term
from glossary.services import GlossaryImportError, TermImportResult
from tests.api.base import assert_error
from tests.helpers import BaseTestCase, alice_owning_a_workspace, make_member

from .test_api import CGLOSSARY, GLOSSARY, GlossaryApiTestCase

DAY = date(2026, 1, 15)
HYR = ("hyrpersonal", "inhyrd arbetskraft")
OVK = ("OVK", "funktionskontroll av ventilationssystem")
FRISK = ("friskvårdsbidrag", "personalvårdsförmån")
SKYDD = ("skyddsrond", "undersökning av arbetsförhållanden")


def xlsx(rows: list[list[object]]) -> bytes:
    book = Workbook()
    for row in rows:
        book.active.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def csv_text(rows: list[list[str]], delimiter: str = ";") -> str:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue()


def xlsx_rows(content: bytes) -> list[tuple[object, ...]]:
    return list(load_workbook(io.BytesIO(content)).active.iter_rows(values_only=True))


def stored(workspace: Workspace) -> set[tuple[str, str]]:
    return set(Term.objects.filter(workspace=workspace).values_list("word", "law_words"))


def add(workspace: Workspace, *pairs: tuple[str, str]) -> None:
    for word, law_words in pairs:
        services.term_create(workspace=workspace, user=None, word=word, law_words=law_words)


def import_file(workspace: Workspace, name: str, content: bytes, user: object = None) -> TermImportResult:
    return services.term_import(workspace=workspace, user=user, rows=transfer.read_terms(name, content))


# --- the service and the file reading ------------------------------------------------------------------------


@pytest.mark.django_db
def test_import_adds_changes_leaves_alone_and_is_idempotent() -> None:
    alice, ws = alice_owning_a_workspace()
    add(ws, HYR, ("OVK", "ventilationskontroll"), SKYDD)
    content = xlsx([["Ord", "Lagens ord"], list(HYR), ["ovk", OVK[1]], list(FRISK)])
    before = LogEntry.objects.count()

    assert import_file(ws, "ordlista.xlsx", content, alice) == TermImportResult(added=1, changed=1, unchanged=1)
    # "ovk" is the stored "OVK" (one word whatever its case): its law words change, its spelling stays;
    # skyddsrond, not in the file, is left alone.
    assert stored(ws) == {HYR, OVK, FRISK, SKYDD}
    entries = LogEntry.objects.order_by("pk")[before:]
    assert [(e.action, e.actor) for e in entries] == [(LogEntry.Action.UPDATE, alice), (LogEntry.Action.CREATE, alice)]

    # The same file again changes nothing, and the trail says nothing happened.
    assert import_file(ws, "ordlista.xlsx", content, alice) == TermImportResult(added=0, changed=0, unchanged=3)
    assert stored(ws) == {HYR, OVK, FRISK, SKYDD}
    assert LogEntry.objects.count() == before + 2


@pytest.mark.django_db
def test_one_bad_row_writes_nothing_and_every_row_at_fault_is_named() -> None:
    _alice, ws = alice_owning_a_workspace()
    add(ws, HYR)
    content = csv_text([["Ord", "Lagens ord"], ["hyrpersonal", "inhyrd personal"], list(FRISK),
                        ["<b>OVK</b>", OVK[1]], ["skyddsrond", ""], ["", ""], ["och", "att"]]).encode()
    with pytest.raises(GlossaryImportError) as caught:
        import_file(ws, "ordlista.csv", content)
    error = caught.value
    assert (error.code, error.status) == ("broken_rows", 400)
    assert "inget har importerats" in error.message
    # Line 6 is blank (skipped); the header is line 1.
    assert [row["line"] for row in error.details["rows"]] == [4, 5, 7]
    assert error.details["rows"][0]["message"].startswith("Rad 4: Ert ord får bara innehålla")
    assert error.details["rows"][1]["message"] == "Rad 5: Fyll i lagens ord."
    # Neither the valid new word nor the change of the known one was written.
    assert stored(ws) == {HYR}


@pytest.mark.django_db
def test_a_word_given_twice() -> None:
    _alice, ws = alice_owning_a_workspace()
    two_meanings = xlsx([["Ord", "Lagens ord"], list(OVK), list(HYR), ["ovk", "ventilationskontroll"]])
    with pytest.raises(GlossaryImportError) as caught:
        import_file(ws, "ordlista.xlsx", two_meanings)
    assert caught.value.code == "broken_rows"
    assert caught.value.details["rows"] == [
        {"line": 4, "message": "Rad 4: ”ovk” står redan på rad 2 med andra lagens ord."}]
    assert stored(ws) == set()
    # Twice with the same meaning is one term.
    same = xlsx([["Ord", "Lagens ord"], list(OVK), list(HYR), ["ovk", OVK[1]]])
    assert import_file(ws, "ordlista.xlsx", same) == TermImportResult(added=2, changed=0, unchanged=0)
    assert stored(ws) == {OVK, HYR}


@pytest.mark.django_db
def test_the_glossary_stays_within_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    _alice, ws = alice_owning_a_workspace()
    monkeypatch.setattr(services, "MAX_TERMS", 2)
    add(ws, HYR)
    with pytest.raises(GlossaryImportError) as caught:
        import_file(ws, "ordlista.csv", csv_text([["Ord", "Lagens ord"], list(OVK), list(FRISK)]).encode())
    assert (caught.value.code, caught.value.details["max_terms"]) == ("too_many", 2)
    assert "högst 2 begrepp" in caught.value.message
    assert stored(ws) == {HYR}
    # A known word does not count twice: one new word and a change fit.
    content = csv_text([["Ord", "Lagens ord"], ["hyrpersonal", "inhyrd personal"], list(OVK)]).encode()
    assert import_file(ws, "ordlista.csv", content) == TermImportResult(added=1, changed=1, unchanged=0)
    assert stored(ws) == {("hyrpersonal", "inhyrd personal"), OVK}


@pytest.mark.django_db
def test_a_write_failing_midway_undoes_the_whole_import(monkeypatch: pytest.MonkeyPatch) -> None:
    _alice, ws = alice_owning_a_workspace()
    add(ws, HYR)

    def conflict(*args: object, **kwargs: object) -> None:
        # As if a concurrent change had stored the word since the import read the glossary.
        raise IntegrityError("glossary_term_word_unique")

    monkeypatch.setattr(services, "model_update", conflict)
    content = csv_text([["Ord", "Lagens ord"], list(FRISK), ["hyrpersonal", "inhyrd personal"]]).encode()
    with pytest.raises(GlossaryImportError) as caught:
        import_file(ws, "ordlista.csv", content)
    assert (caught.value.code, caught.value.status) == ("conflict", 409)
    # friskvårdsbidrag, written before the failing row, was undone with it.
    assert stored(ws) == {HYR}


@pytest.mark.parametrize("encoding, delimiter", [("cp1252", ";"), ("utf-8-sig", ";"), ("utf-8", ","),
                                                 ("cp1252", "\t")])
@pytest.mark.django_db
def test_csv_encodings_and_separators(encoding: str, delimiter: str) -> None:
    text = csv_text([["Begrepp", "Betyder"], list(FRISK), ["visselblåsare", "rapporterande person, visselblåsarlag"]],
                    delimiter=delimiter)
    rows = transfer.read_terms("ordlista.csv", text.encode(encoding))
    assert [(r.line, r.word, r.law_words) for r in rows] == [
        (2, *FRISK), (3, "visselblåsare", "rapporterande person, visselblåsarlag")]


@pytest.mark.django_db
def test_headers_in_english_in_any_order_under_a_title() -> None:
    content = xlsx([["Our glossary"], [], ["Comment", "Law words", "Word"], [None, OVK[1], "OVK"],
                    ["only a note", None, None]])
    rows = transfer.read_terms("glossary.xlsx", content)
    assert [(r.line, r.word, r.law_words) for r in rows] == [(4, *OVK)]


@pytest.mark.parametrize("code, name, content", [
    ("empty_file", "ordlista.csv", b""),
    ("file_too_large", "ordlista.csv", b"Ord;Lagens ord\n" + b"a" * MAX_FILE_BYTES),
    ("not_a_list", "ordlista.pdf", b"%PDF-1.7 binary"),
    ("unreadable_file", "ordlista.xlsx", b"PK\x03\x04 not a zip"),
    ("no_header", "ordlista.csv", "Kalle;Anka\nhyrpersonal;inhyrd arbetskraft\n".encode()),
    ("no_header", "ordlista.csv", "Ord;Kommentar\nhyrpersonal;inhyrd arbetskraft\n".encode()),
    ("no_rows", "ordlista.xlsx", xlsx([["Ord", "Lagens ord"]])),
])
def test_bad_files_are_refused_in_swedish(code: str, name: str, content: bytes) -> None:
    with pytest.raises(GlossaryImportError) as caught:
        transfer.read_terms(name, content)
    assert (caught.value.code, caught.value.status) == (code, 400)
    assert caught.value.message.endswith(".")


def test_too_many_rows() -> None:
    content = ("Ord;Lagens ord\n" + "".join(f"ord{i};lagord{i}\n" for i in range(transfer.MAX_ROWS + 1))).encode()
    with pytest.raises(GlossaryImportError) as caught:
        transfer.read_terms("ordlista.csv", content)
    assert caught.value.code == "too_many_rows"


@pytest.mark.django_db
def test_round_trip_between_workspaces_in_both_formats() -> None:
    _alice, ws = alice_owning_a_workspace()
    # A word beginning like a formula is written as text, and comes back as it was.
    add(ws, HYR, OVK, FRISK, ("-avdrag", "avdrag för ökade levnadskostnader"))
    for fmt in transfer.FORMATS:
        other = Workspace.objects.create(name=f"Mottagaren {fmt}", slug=f"mottagaren-{fmt}")
        export = transfer.glossary_file(list(Term.objects.filter(workspace=ws)), fmt, workspace_slug=ws.slug,
                                        day=DAY)
        assert import_file(other, export.file_name, export.content) == TermImportResult(added=4, changed=0,
                                                                                        unchanged=0)
        assert stored(other) == stored(ws)
    csv_export = transfer.glossary_file(list(Term.objects.filter(workspace=ws)), "csv", workspace_slug=ws.slug,
                                        day=DAY)
    assert "'-avdrag;" in csv_export.content.decode("utf-8-sig")
    xlsx_export = transfer.glossary_file(list(Term.objects.filter(workspace=ws)), "xlsx", workspace_slug=ws.slug,
                                         day=DAY)
    sheet = load_workbook(io.BytesIO(xlsx_export.content)).active
    minus = next(row[0] for row in sheet.iter_rows() if row[0].value == "-avdrag")
    assert minus.data_type == "s"


# --- the Ordlista page ---------------------------------------------------------------------------------------


@pytest.mark.clock
class GlossaryTransferPageTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        add(cls.workspace, HYR, OVK)
        add(cls.charlies_workspace, SKYDD)
        cls.dave = make_member(cls.workspace, "dave", Membership.Role.VIEWER)

    def url(self, name: str, *args: object, ws: Workspace | None = None) -> str:
        return reverse(name, args=[(ws or self.workspace).slug, *args])

    def upload(self, content: bytes, name: str = "ordlista.xlsx", ws: Workspace | None = None) -> object:
        return self.client.post(self.url("glossary_import", ws=ws), {"file": SimpleUploadedFile(name, content)},
                                follow=True)

    def test_export_holds_exactly_the_workspaces_terms(self) -> None:
        self.login(self.bob)
        response = self.client.get(self.url("glossary_export", "xlsx"))
        self.assertEqual(response["Content-Type"], transfer.CONTENT_TYPES["xlsx"])
        # Named by the Stockholm day, as the register's exports.
        self.assertEqual(response["Content-Disposition"],
                         f'attachment; filename="ordlista-alices-ab-{swedish_today().isoformat()}.xlsx"')
        self.assertEqual(xlsx_rows(response.content), [("Ord", "Lagens ord"), HYR, OVK])
        response = self.client.get(self.url("glossary_export", "csv"))
        self.assertEqual(response["Content-Type"], "text/csv; charset=utf-8")
        self.assertTrue(response.content.startswith(b"\xef\xbb\xbf"))
        self.assertEqual(response.content.decode("utf-8-sig").splitlines(),
                         ["Ord;Lagens ord", "hyrpersonal;inhyrd arbetskraft", "OVK;funktionskontroll av ventilationssystem"])
        self.assertEqual(self.client.get(self.url("glossary_export", "pdf")).status_code, 404)

    def test_editor_imports_and_sees_the_counts(self) -> None:
        self.login(self.bob)
        page = self.client.get(self.url("glossary_list"))
        self.assertContains(page, self.url("glossary_export", "xlsx"))
        self.assertContains(page, self.url("glossary_export", "csv"))
        self.assertContains(page, f'action="{self.url("glossary_import")}" enctype="multipart/form-data"', html=False)
        self.assertContains(page, "inget ord tas bort")
        content = xlsx([["Ord", "Lagens ord"], list(HYR), ["ovk", "ventilationskontroll"], list(FRISK)])
        response = self.upload(content)
        self.assertRedirects(response, self.url("glossary_list"))
        self.assertContains(response, "Importen är klar. Nya begrepp: 1, ändrade: 1, oförändrade: 1.")
        self.assertEqual(stored(self.workspace), {HYR, ("OVK", "ventilationskontroll"), FRISK})
        self.assertEqual(Term.objects.get(word=FRISK[0]).created_by, self.bob)
        self.assertContains(self.upload(content), "Importen är klar. Nya begrepp: 0, ändrade: 0, oförändrade: 3.")

    def test_a_refused_file_is_the_page_with_the_rows_at_fault(self) -> None:
        self.login(self.alice)
        response = self.upload(csv_text([["Ord", "Lagens ord"], list(FRISK), ["hyrpersonal", "hyrpersonal"]]).encode(),
                               name="ordlista.csv")
        self.assertContains(response, "1 rad i filen kunde inte importeras", status_code=400)
        self.assertContains(response, "Rad 3: Lagens ord är samma som ert ord", status_code=400)
        response = self.upload(b"\x89PNG\r\n\x1a\n\x00\x00", name="bild.png")
        self.assertContains(response, "varken en Excelfil", status_code=400)
        response = self.client.post(self.url("glossary_import"), {})
        self.assertContains(response, "Välj en fil att importera.", status_code=400)
        self.assertEqual(stored(self.workspace), {HYR, OVK})

    def test_a_reader_exports_but_cannot_import(self) -> None:
        self.login(self.dave)
        page = self.client.get(self.url("glossary_list"))
        self.assertContains(page, self.url("glossary_export", "csv"))
        self.assertNotContains(page, self.url("glossary_import"))
        self.assertEqual(self.client.get(self.url("glossary_export", "csv")).status_code, 200)
        response = self.upload(xlsx([["Ord", "Lagens ord"], list(FRISK)]))
        self.assertEqual(response.status_code, 403)
        self.assertEqual(stored(self.workspace), {HYR, OVK})

    def test_it_checks_ownership(self) -> None:
        self.login(self.charlie)
        for fmt in transfer.FORMATS:
            self.assertEqual(self.client.get(self.url("glossary_export", fmt)).status_code, 404)
        self.assertEqual(self.upload(xlsx([["Ord", "Lagens ord"], list(FRISK)])).status_code, 404)
        self.assertEqual(stored(self.workspace), {HYR, OVK})
        # charlie's own export holds his terms, not alice's; alice cannot reach his.
        response = self.client.get(self.url("glossary_export", "xlsx", ws=self.charlies_workspace))
        self.assertEqual(xlsx_rows(response.content), [("Ord", "Lagens ord"), SKYDD])
        self.login(self.alice)
        self.assertEqual(self.client.get(self.url("glossary_export", "csv", ws=self.charlies_workspace)).status_code,
                         404)
        self.assertEqual(self.upload(xlsx([["Ord", "Lagens ord"], list(FRISK)]), ws=self.charlies_workspace)
                         .status_code, 404)
        self.assertEqual(stored(self.charlies_workspace), {SKYDD})


# --- the API -------------------------------------------------------------------------------------------------


class GlossaryTransferApiTests(GlossaryApiTestCase):
    """alice owns (visselblåsare), bob edits, dave reads, erin is the revisor; charlie's glossary holds OVK."""

    def post_file(self, content: bytes, name: str = "ordlista.xlsx", base: str = GLOSSARY) -> object:
        return self.client.post(f"{base}/import/", {"file": SimpleUploadedFile(name, content)}, format="multipart")

    def test_export(self) -> None:
        self.auth(self.dave)
        response = self.client.get(f"{GLOSSARY}/export/xlsx")
        self.assertEqual(response.status_code, 200, response.content[:300])
        self.assertEqual(xlsx_rows(response.content), [("Ord", "Lagens ord"), ("visselblåsare", "rapporterande person")])
        response = self.client.get(f"{GLOSSARY}/export/csv")
        self.assertEqual(response.content.decode("utf-8-sig"), "Ord;Lagens ord\r\nvisselblåsare;rapporterande person\r\n")
        assert_error(self, self.client.get(f"{GLOSSARY}/export/pdf"), 404, "not_found")

    def test_import_returns_the_counts(self) -> None:
        self.auth(self.bob)
        content = xlsx([["Word", "Law words"], ["Visselblåsare", "rapporterande person"], list(HYR), list(OVK)])
        response = self.post_file(content)
        self.assertEqual((response.status_code, response.json()), (200, {"added": 2, "changed": 0, "unchanged": 1}))
        again = self.post_file(content)
        self.assertEqual(again.json(), {"added": 0, "changed": 0, "unchanged": 3})
        self.assertEqual(stored(self.workspace), {("visselblåsare", "rapporterande person"), HYR, OVK})

    def test_errors_are_structured_and_write_nothing(self) -> None:
        self.auth(self.alice)
        before = self.stored()
        error = assert_error(self, self.post_file(xlsx([["Ord", "Lagens ord"], list(HYR), ["OVK", "*"]])), 400,
                             "broken_rows")
        self.assertEqual([row["line"] for row in error["details"]["rows"]], [3])
        self.assertTrue(error["details"]["rows"][0]["message"].startswith("Rad 3: "))
        assert_error(self, self.post_file(b"%PDF-1.7", name="ordlista.pdf"), 400, "not_a_list")
        assert_error(self, self.post_file(b"", name="ordlista.csv"), 400, "empty_file")
        assert_error(self, self.client.post(f"{GLOSSARY}/import/", {}, format="multipart"), 400, "invalid")
        self.assertEqual(self.stored(), before)

    def test_readers_cannot_import(self) -> None:
        before = self.stored()
        for user in (self.dave, self.erin):
            with self.subTest(user=user.username):
                self.auth(user)
                assert_error(self, self.post_file(xlsx([["Ord", "Lagens ord"], list(HYR)])), 403, "permission_denied")
        self.assertEqual(self.stored(), before)

    def test_it_checks_ownership(self) -> None:
        before = self.stored()
        self.auth(self.charlie)
        for fmt in transfer.FORMATS:
            assert_error(self, self.client.get(f"{GLOSSARY}/export/{fmt}"), 404, "not_found")
        assert_error(self, self.post_file(xlsx([["Ord", "Lagens ord"], list(HYR)])), 404, "not_found")
        self.auth(self.alice)
        assert_error(self, self.client.get(f"{CGLOSSARY}/export/csv"), 404, "not_found")
        assert_error(self, self.post_file(xlsx([["Ord", "Lagens ord"], list(HYR)]), base=CGLOSSARY), 404, "not_found")
        self.assertEqual(self.stored(), before)
