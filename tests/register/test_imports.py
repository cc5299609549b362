"""Importing a list from another service: xlsx built here with openpyxl, CSV with ";" and "," in UTF-8, with a
BOM and in cp1252; rows matched by number, exact title and similar title; nothing committed before the
confirmation or when anything is wrong; a second run adds nothing."""

from __future__ import annotations

import io
import re

from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from openpyxl import Workbook

from compliance.models import LegalDocument
from compliance.numbers import document_number_in
from register import services
from register.transfer import imports
from register.transfer.imports import Confidence, RegisterImportError
from register.models import ItemOrigin, RegisterGroup, RegisterItem
from tests.api.base import assert_error

from .base import RegisterTestCase
from .test_api import CREG, REG, RegisterApiTestCase


def xlsx(rows: list[list], *, title_rows: int = 0) -> bytes:
    book = Workbook()
    sheet = book.active
    for i in range(title_rows):
        sheet.append([f"Export från Lagbevakaren {i}"] if i == 0 else [])
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


ROWS = [
    ["SFS-nummer", "Titel", "Grupp"],
    ["SFS 1977:1160", "Arbetsmiljölag", "Arbetsmiljö"],
    ["", "Systematiskt arbetsmiljöarbete", "Arbetsmiljö"],
    ["", "Dataskyddsförordning", "Dataskydd"],
    ["2099:1", "Lag om något som inte finns", "Övrigt"],
]


class ImportTestCase(RegisterTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.mbl = LegalDocument.objects.create(sfs_number="1976:580", title="Lag (1976:580) om medbestämmande i "
                                               "arbetslivet", full_text="1 §", short_names=["medbestämmandelagen"])

    def setUp(self) -> None:
        super().setUp()
        self.register = self.make_register()

    def preview(self, name: str, content: bytes, *, user: User | None = None) -> imports.ImportPreview:
        return imports.import_preview(workspace_id=self.workspace.pk, register_id=self.register.pk,
                                      user_id=(user or self.alice).pk, file_name=name, content=content)


class ReadAndMatchTests(ImportTestCase):
    def test_xlsx_rows_matched_with_their_confidence(self) -> None:
        preview = self.preview("lista.xlsx", xlsx(ROWS, title_rows=2))
        got = [(row.line, row.confidence, row.document.sfs_number if row.document else None, row.group)
               for row in preview.rows]
        self.assertEqual(got, [
            (4, Confidence.NUMBER, "1977:1160", "Arbetsmiljö"),
            (5, Confidence.TITLE_EXACT, "AFS 2023:1", "Arbetsmiljö"),
            (6, Confidence.TITLE_SIMILAR, "(EU) 2016/679", "Dataskydd"),
            (7, Confidence.NONE, None, "Övrigt"),
        ])
        self.assertEqual(preview.rows[2].confidence_label, "liknande titel")
        self.assertEqual((preview.matched, preview.unmatched), (3, 1))
        # Nothing is written by a preview.
        self.assertFalse(RegisterItem.objects.exists())

    def test_title_with_its_number_and_short_name_match_exactly(self) -> None:
        content = "Titel\nLag (1976:580) om medbestämmande i arbetslivet\nmedbestämmandelagen\n".encode()
        preview = self.preview("lista.csv", content)
        self.assertEqual([(r.confidence, r.document.sfs_number) for r in preview.rows],
                         [(Confidence.TITLE_EXACT, "1976:580"), (Confidence.TITLE_EXACT, "1976:580")])

    def test_csv_separators_and_encodings(self) -> None:
        text_semicolon = "Beteckning;Författningens namn;Område\r\nAFS 2023:1;Systematiskt arbetsmiljöarbete;Arbetsmiljö\r\n"
        text_comma = 'SFS nr,Rubrik,Kategori\n1977:1160,"Arbetsmiljölag, med ändringar",Arbetsmiljö\n'
        variants = {
            "semikolon utf-8": text_semicolon.encode("utf-8"),
            "semikolon bom": b"\xef\xbb\xbf" + text_semicolon.encode("utf-8"),
            "semikolon cp1252": text_semicolon.encode("cp1252"),
            "komma utf-8": text_comma.encode("utf-8"),
            "komma cp1252": text_comma.encode("cp1252"),
            "tab": text_semicolon.replace(";", "\t").encode("utf-8"),
        }
        for name, content in variants.items():
            with self.subTest(name):
                rows = self.preview("lista.csv", content).rows
                self.assertEqual(len(rows), 1)
                self.assertEqual(rows[0].confidence, Confidence.NUMBER)
                self.assertEqual(rows[0].group, "Arbetsmiljö")
                self.assertIn(rows[0].document.sfs_number, ("AFS 2023:1", "1977:1160"))

    def test_number_normalisation(self) -> None:
        for text, number in (("SFS 1977:1160", "1977:1160"), ("1977: 1160", "1977:1160"), ("AFS2023:1", "AFS 2023:1"),
                             ("afs 2023:01", "AFS 2023:1"), ("EU 2016/679", "(EU) 2016/679"),
                             ("Förordning (EU) nr 2016/679", "(EU) 2016/679"), ("ELSÄK-FS 2022:1", "ELSÄK-FS 2022:1"),
                             ("Arbetsmiljölag (1977:1160)", "1977:1160"), ("ingen", ""), ("2016/679", "")):
            with self.subTest(text=text):
                self.assertEqual(document_number_in(text), number)

    def test_bad_files_are_refused_with_swedish_errors(self) -> None:
        cases = {
            "empty_file": ("lista.csv", b""),
            "file_too_large": ("lista.csv", b"Titel\n" + b"a" * (imports.MAX_FILE_BYTES + 1)),
            "not_a_list": ("lista.pdf", b"%PDF-1.4 binary"),
            "unreadable_file": ("lista.xlsx", b"PK\x03\x04 not really a zip"),
            "no_header": ("lista.csv", "Kalle;Anka\n1;2\n".encode()),
            "no_rows": ("lista.xlsx", xlsx([["SFS-nummer", "Titel"]])),
        }
        for code, (name, content) in cases.items():
            with self.subTest(code=code), self.assertRaises(RegisterImportError) as caught:
                self.preview(name, content)
            self.assertEqual(caught.exception.code, code)
            self.assertTrue(caught.exception.message)
        old_excel = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 100
        with self.assertRaises(RegisterImportError) as caught:
            self.preview("lista.xls", old_excel)
        self.assertIn(".xlsx", caught.exception.message)

    def test_broken_rows_are_listed_by_line(self) -> None:
        content = xlsx([["SFS-nummer", "Titel"], ["1977:1160", "Arbetsmiljölag"], ["", ""], ["", None],
                        ["hej hopp", ""], ["", "x" * 501]])
        with self.assertRaises(RegisterImportError) as caught:
            self.preview("lista.xlsx", content)
        self.assertEqual(caught.exception.code, "broken_rows")
        self.assertEqual([row["line"] for row in caught.exception.details["rows"]], [5, 6])
        self.assertIn("Rad 5", caught.exception.details["rows"][0]["message"])

    def test_too_many_rows(self) -> None:
        content = ("Titel\n" + "\n".join(f"Lag nummer {i}" for i in range(imports.MAX_ROWS + 1))).encode()
        with self.assertRaises(RegisterImportError) as caught:
            self.preview("lista.csv", content)
        self.assertEqual(caught.exception.code, "too_many_rows")


class ConfirmTests(ImportTestCase):
    def test_confirm_commits_the_chosen_rows_once(self) -> None:
        preview = self.preview("lista.xlsx", xlsx(ROWS))
        token = imports.preview_from_token(preview.token, workspace_id=self.workspace.pk,
                                           register_id=self.register.pk, user_id=self.alice.pk)
        # Row 4 (similar title) is confirmed as proposed; row 5 (no match) resolved to a document by the person.
        choices = {5: "1976:580"}
        result = services.register_import_confirm(register=self.register, user=self.bob,
                                                  rows=imports.import_choices(token, choices))
        self.assertEqual((result.created, result.existing, result.skipped), (4, 0, 0))
        items = {i.legal_document.sfs_number: i for i in RegisterItem.objects.select_related("group", "legal_document")}
        self.assertEqual(set(items), {"1977:1160", "AFS 2023:1", "(EU) 2016/679", "1976:580"})
        self.assertEqual({i.origin for i in items.values()}, {ItemOrigin.IMPORT})
        self.assertEqual(items["1977:1160"].group.name, "Arbetsmiljö")
        self.assertEqual(RegisterGroup.objects.filter(register=self.register).count(), 3)
        # The same import again adds nothing.
        again = services.register_import_confirm(register=self.register, user=self.bob,
                                                 rows=imports.import_choices(token, choices))
        self.assertEqual((again.created, again.existing), (0, 4))
        self.assertEqual(RegisterItem.objects.count(), 4)

    def test_skip_and_unknown_choices(self) -> None:
        preview = self.preview("lista.xlsx", xlsx(ROWS))
        rows = imports.import_choices(preview, {2: imports.SKIP, 3: "skip"})
        self.assertEqual([r.legal_document is None for r in rows], [True, True, False, True])
        for choices, code in (({5: "2099:1"}, "unknown_document"), ({5: "nonsens"}, "unknown_document"),
                              ({99: "1977:1160"}, "unknown_row")):
            with self.subTest(code=code), self.assertRaises(RegisterImportError) as caught:
                imports.import_choices(preview, choices)
            self.assertEqual(caught.exception.code, code)

    def test_a_failing_row_commits_nothing(self) -> None:
        preview = self.preview("lista.xlsx", xlsx(ROWS))
        rows = imports.import_choices(preview, {})
        # The last group's name is too long for a group: the service refuses it after the first rows were added.
        rows[-1] = services.ImportRowChoice(line=rows[-1].line, legal_document=self.mbl, group="G" * 200)
        with self.assertRaises(services.RegisterError):
            services.register_import_confirm(register=self.register, user=self.alice, rows=rows)
        self.assertFalse(RegisterItem.objects.exists())
        self.assertFalse(RegisterGroup.objects.exists())

    def test_token_is_bound_to_workspace_register_and_person(self) -> None:
        preview = self.preview("lista.xlsx", xlsx(ROWS))
        other = services.register_create(workspace=self.workspace, user=self.alice, name="Annan")
        for kwargs in (dict(workspace_id=self.charlies_workspace.pk, register_id=self.register.pk,
                            user_id=self.alice.pk),
                       dict(workspace_id=self.workspace.pk, register_id=other.pk, user_id=self.alice.pk),
                       dict(workspace_id=self.workspace.pk, register_id=self.register.pk, user_id=self.bob.pk)):
            with self.subTest(kwargs=kwargs), self.assertRaises(RegisterImportError) as caught:
                imports.preview_from_token(preview.token, **kwargs)
            self.assertEqual(caught.exception.code, "invalid_token")
        with self.assertRaises(RegisterImportError) as caught:
            imports.preview_from_token(preview.token[:-3] + "abc", workspace_id=self.workspace.pk,
                                       register_id=self.register.pk, user_id=self.alice.pk)
        self.assertEqual(caught.exception.code, "invalid_token")

    def test_readers_cannot_confirm(self) -> None:
        preview = self.preview("lista.xlsx", xlsx(ROWS), user=self.dave)
        with self.assertRaises(services.PermissionDeniedError):
            services.register_import_confirm(register=self.register, user=self.dave,
                                             rows=imports.import_choices(preview, {}))
        self.assertFalse(RegisterItem.objects.exists())


class ImportPageTests(ImportTestCase):
    def url(self, name: str, slug: str = "alices-ab", register_id: int | None = None) -> str:
        return reverse(name, args=[slug, register_id or self.register.pk])

    def test_upload_preview_confirm(self) -> None:
        self.login(self.bob)
        page = self.client.get(self.url("register_import"))
        self.assertContains(page, "Importera en lista till Laglista")
        upload = SimpleUploadedFile("lista.xlsx", xlsx(ROWS))
        preview = self.client.post(self.url("register_import"), {"file": upload})
        self.assertContains(preview, "Förhandsgranska import")
        for label in ("exakt beteckning", "exakt titel", "liknande titel", "ingen träff", "Hoppa över"):
            self.assertContains(preview, label)
        self.assertFalse(RegisterItem.objects.exists())
        token = re.search(r'name="token" value="([^"]+)"', preview.content.decode())[1]
        done = self.client.post(self.url("register_import_confirm"),
                                {"token": token, "row-2": "1977:1160", "row-3": "skip", "row-4": "(EU) 2016/679",
                                 "row-5": "skip", "number-5": "MBL 1976:580"}, follow=True)
        self.assertContains(done, "Importen är klar: 3 nya poster, 0 fanns redan, 1 rader hoppades över.")
        self.assertEqual(set(RegisterItem.objects.values_list("legal_document__sfs_number", flat=True)),
                         {"1977:1160", "(EU) 2016/679", "1976:580"})

    def test_errors_are_shown_in_swedish_and_nothing_committed(self) -> None:
        self.login(self.alice)
        response = self.client.post(self.url("register_import"),
                                    {"file": SimpleUploadedFile("lista.xlsx", xlsx([["Titel"], ["Lag"], ["x" * 600]]))})
        self.assertContains(response, "rader i filen kunde inte läsas", status_code=400)
        self.assertContains(response, "Rad 3: titeln är för lång", status_code=400)
        response = self.client.post(self.url("register_import"),
                                    {"file": SimpleUploadedFile("bild.png", b"\x89PNG\r\n\x1a\n\x00\x00")})
        self.assertContains(response, "varken en Excelfil", status_code=400)
        response = self.client.post(self.url("register_import"), {})
        self.assertContains(response, "Välj en fil", status_code=400)
        upload = self.client.post(self.url("register_import"), {"file": SimpleUploadedFile("l.xlsx", xlsx(ROWS))})
        token = re.search(r'name="token" value="([^"]+)"', upload.content.decode())[1]
        response = self.client.post(self.url("register_import_confirm"), {"token": token, "number-5": "2099:1"})
        self.assertContains(response, "Rad 5: författningen", status_code=400)
        response = self.client.post(self.url("register_import_confirm"), {"token": "trasig"})
        self.assertContains(response, "Förhandsgranskningen är ogiltig", status_code=400)
        self.assertFalse(RegisterItem.objects.exists())

    def test_readers_and_revisors_are_refused(self) -> None:
        for user in (self.dave, self.erin):
            self.login(user)
            with self.subTest(user=user.username):
                self.assertEqual(self.client.get(self.url("register_import")).status_code, 403)
                self.assertEqual(self.client.post(self.url("register_import_confirm"), {"token": "x"}).status_code,
                                 403)

    def test_it_checks_ownership(self) -> None:
        charlies = services.register_create(workspace=self.charlies_workspace, user=self.charlie, name="C")
        self.login(self.charlie)
        for url in (self.url("register_import"), self.url("register_import", "charlies-ab"),
                    self.url("register_import_confirm")):
            with self.subTest(url=url):
                self.assertEqual(self.client.post(url, {"token": "x"}).status_code, 404)
        self.login(self.alice)
        self.assertEqual(self.client.get(self.url("register_import", register_id=charlies.pk)).status_code, 404)
        self.assertEqual(self.client.post(self.url("register_import_confirm", register_id=charlies.pk),
                                          {"token": "x"}).status_code, 404)
        self.assertFalse(RegisterItem.objects.exists())


class ImportApiTests(ImportTestCase, RegisterApiTestCase):
    def test_preview_and_confirm(self) -> None:
        self.auth(self.bob)
        url = f"{REG}/registers/{self.register.pk}/import"
        response = self.client.post(url, {"file": SimpleUploadedFile("lista.xlsx", xlsx(ROWS))}, format="multipart")
        self.assertEqual(response.status_code, 200, response.content[:300])
        body = response.json()
        self.assertEqual([(r["line"], r["confidence"]) for r in body["rows"]],
                         [(2, "number"), (3, "title_exact"), (4, "title_similar"), (5, "none")])
        self.assertEqual((body["matched"], body["unmatched"]), (3, 1))
        self.assertFalse(RegisterItem.objects.exists())
        choices = [{"line": 4, "document": "skip"}, {"line": 5, "document": "1976:580"}]
        confirm = self.client.post(f"{url}/confirm", {"token": body["token"], "choices": choices}, format="json")
        self.assertEqual((confirm.status_code, confirm.json()), (200, {"created": 3, "existing": 0, "skipped": 1}))
        again = self.client.post(f"{url}/confirm", {"token": body["token"], "choices": choices}, format="json")
        self.assertEqual(again.json(), {"created": 0, "existing": 3, "skipped": 1})
        # Without choices the similar title is taken as proposed and the unmatched row skipped.
        default = self.client.post(f"{url}/confirm", {"token": body["token"]}, format="json")
        self.assertEqual(default.json(), {"created": 1, "existing": 2, "skipped": 1})
        self.assertEqual(RegisterItem.objects.count(), 4)

    def test_errors_are_structured_400s(self) -> None:
        self.auth(self.alice)
        url = f"{REG}/registers/{self.register.pk}/import"
        error = assert_error(self, self.client.post(url, {"file": SimpleUploadedFile(
            "l.csv", "Titel\nLag\n\n;\nhej;".encode() + b"\n" + ("x" * 600).encode())}, format="multipart"), 400,
            "broken_rows")
        self.assertEqual([r["line"] for r in error["details"]["rows"]], [6])
        assert_error(self, self.client.post(url, {"file": SimpleUploadedFile("l.pdf", b"%PDF-1.7")},
                                            format="multipart"), 400, "not_a_list")
        assert_error(self, self.client.post(url, {}, format="multipart"), 400, "invalid")
        assert_error(self, self.client.post(f"{url}/confirm", {"token": "x"}, format="json"), 400, "invalid_token")
        assert_error(self, self.client.post(f"{url}/confirm", {"choices": []}, format="json"), 400, "invalid")
        self.auth(self.erin)
        assert_error(self, self.client.post(url, {"file": SimpleUploadedFile("lista.xlsx", xlsx(ROWS))},
                                            format="multipart"), 403, "permission_denied")
        self.auth(self.charlie)
        assert_error(self, self.client.post(url, {"file": SimpleUploadedFile("lista.xlsx", xlsx(ROWS))},
                                            format="multipart"), 404, "not_found")
        assert_error(self, self.client.post(f"{CREG}/registers/{self.register.pk}/import/confirm", {"token": "x"},
                                            format="json"), 404, "not_found")
        self.assertFalse(RegisterItem.objects.exists())
