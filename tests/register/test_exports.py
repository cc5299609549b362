"""Exports of the register and a closed review: the xlsx opened with openpyxl, the PDF read with pypdf, the CSV
parsed; Swedish labels, the workspace's name, the Stockholm day, statuses, owners, evidence, reviewers; a
private file's title never shown to a revisor; another workspace's register or review a 404."""

from __future__ import annotations

import csv
import io
from datetime import date, datetime

import pytest
import time_machine
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.urls import reverse
from openpyxl import load_workbook
from pypdf import PdfReader

from compliance.clock import STOCKHOLM
from register import services
from register.transfer import exports
from register.transfer.export_data import ItemRow, RegisterExport

from .base import RegisterTestCase
from .test_api import CREG, REG, RegisterApiTestCase

pytestmark = pytest.mark.clock

# 00:30 on 25 November in Stockholm: still the 24th in UTC. The exports are dated by the Stockholm day.
PRINTED = datetime(2026, 11, 25, 0, 30, tzinfo=STOCKHOLM)


def sheet_text(content: bytes, sheet: str | None = None) -> list[list]:
    book = load_workbook(io.BytesIO(content))
    ws = book[sheet] if sheet else book.active
    return [[cell for cell in row] for row in ws.iter_rows(values_only=True)]


def pdf_text(content: bytes) -> str:
    """The PDF's text with its line breaks as spaces: table cells wrap where the column ends."""
    return " ".join(" ".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages).split())


class ExportFixture(RegisterTestCase):
    def build(self) -> None:
        self.register = self.make_register("Arbetsmiljö och dataskydd")
        group = services.register_group_get_or_create(register=self.register, user=self.alice, name="Arbetsmiljö")
        self.aml_item = self.make_item(self.register, self.aml, group=group, responsible=self.bob)
        self.gdpr_item = self.make_item(self.register, self.gdpr)
        requirement = self.make_requirement(self.aml_item, "Undersöka risker", section_ref="3 kap. 2 a §",
                                            owner=self.bob)
        services.evidence_add(requirement=requirement, user=self.alice, kind="file", user_file=self.policy)
        services.evidence_add(requirement=requirement, user=self.alice, kind="file", user_file=self.private_file)
        services.evidence_add(requirement=requirement, user=self.alice, kind="external", reference="=HYPERLINK(1)")
        with time_machine.travel(datetime(2026, 3, 2, 12, 0, tzinfo=STOCKHOLM), tick=False):
            self.review = services.review_start(register=self.register, user=self.alice, title="Årlig kontroll 2026",
                                                lead=self.alice)
            entry = self.review.entries.get(item=self.aml_item)
            services.review_entry_rate(entry=entry, user=self.bob, rating="partial",
                                       justification="Riskbedömning saknas för lagret",
                                       evidence=list(requirement.evidence.all()))
            services.review_entry_rate(entry=self.review.entries.get(item=self.gdpr_item), user=self.alice,
                                       rating="non_compliant", justification="Registerförteckning saknas")
            services.review_close(review=self.review, user=self.alice)


@time_machine.travel(PRINTED, tick=False)
class RegisterExportTests(ExportFixture, RegisterApiTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.build()

    def download(self, user: User, url: str) -> HttpResponse:
        self.client.force_login(user)
        response = self.client.get(url)
        self.assertEqual(response.status_code, 200, response.content[:300])
        return response

    def test_register_xlsx(self) -> None:
        response = self.download(self.bob, reverse("register_export", args=["alices-ab", self.register.pk, "xlsx"]))
        self.assertEqual(response["Content-Type"], exports.CONTENT_TYPES["xlsx"])
        self.assertIn('filename="laglista-arbetsmiljo-och-dataskydd-2026-11-25.xlsx"', response["Content-Disposition"])
        rows = sheet_text(response.content)
        self.assertEqual(rows[0][0], "Laglista – Arbetsmiljö och dataskydd")
        self.assertEqual(rows[1][0], "Arbetsyta: Alices AB")
        self.assertEqual(rows[2][0], "Utskriven: 2026-11-25")
        header = next(r for r in rows if r[0] == "Grupp")
        self.assertEqual(header[:9], ["Grupp", "Författning", "Beteckning", "Typ", "Status", "Ansvarig",
                                      "Senast bedömd", "Bedömd av", "Nästa bedömning"])
        body = {r[1]: dict(zip(header, r)) for r in rows[rows.index(header) + 1:]}
        aml = body["Arbetsmiljölag (1977:1160)"]
        self.assertEqual((aml["Grupp"], aml["Beteckning"], aml["Typ"], aml["Status"], aml["Ansvarig"], aml["Bedömd av"]),
                         ("Arbetsmiljö", "1977:1160", "Lag", "uppfylls delvis", "bob", "bob"))
        self.assertEqual(aml["Senast bedömd"].date(), date(2026, 3, 2))
        self.assertEqual(aml["Bevis"].split("\n"), ["Arbetsmiljöpolicy", "Hemlig lönelista", "=HYPERLINK(1)"])
        self.assertEqual(body["Dataskyddsförordningen (EU) 2016/679"]["Status"], "uppfylls inte")
        # The formula-looking reference is text, not a formula.
        book = load_workbook(io.BytesIO(response.content))
        cells = [c for row in book.active.iter_rows() for c in row if c.value == "Arbetsmiljöpolicy\nHemlig lönelista\n=HYPERLINK(1)"]
        self.assertEqual(cells[0].data_type, "s")
        requirements = sheet_text(response.content, "Kravpunkter")
        self.assertIn(["Arbetsmiljölag (1977:1160)", "1977:1160", "3 kap. 2 a §", "Undersöka risker", "ej bedömd",
                       "bob", "nej", "Arbetsmiljöpolicy\nHemlig lönelista\n=HYPERLINK(1)"], requirements)

    def test_register_pdf(self) -> None:
        response = self.download(self.bob, reverse("register_export", args=["alices-ab", self.register.pk, "pdf"]))
        self.assertEqual(response["Content-Type"], "application/pdf")
        text = pdf_text(response.content)
        for expected in ("Laglista – Arbetsmiljö och dataskydd", "Arbetsyta: Alices AB", "Utskriven: 2026-11-25",
                         "Författning", "Ansvarig", "Senast bedömd", "uppfylls delvis", "uppfylls inte",
                         "Arbetsmiljölag (1977:1160)", "Arbetsmiljöpolicy", "Hemlig lönelista", "2026-03-02",
                         "Sida 1", "Sammanställning: ej bedömd 0, uppfylls 0, uppfylls delvis 1, uppfylls inte 1"):
            self.assertIn(expected, text)

    def test_register_csv(self) -> None:
        response = self.download(self.bob, reverse("register_export", args=["alices-ab", self.register.pk, "csv"]))
        self.assertTrue(response.content.startswith(b"\xef\xbb\xbf"))
        rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
        aml = next(r for r in rows if r["beteckning"] == "1977:1160")
        self.assertEqual((aml["status"], aml["status_text"], aml["ansvarig"], aml["senast_bedomd"], aml["kravpunkter"]),
                         ("partial", "uppfylls delvis", "bob", "2026-03-02", "1"))
        self.assertEqual(aml["bevis"], "Arbetsmiljöpolicy | Hemlig lönelista | =HYPERLINK(1)")

    def test_revisor_never_sees_a_private_files_title(self) -> None:
        for fmt in ("xlsx", "pdf", "csv"):
            with self.subTest(fmt=fmt):
                response = self.download(self.erin, reverse("register_export", args=["alices-ab", self.register.pk,
                                                                                    fmt]))
                text = pdf_text(response.content) if fmt == "pdf" else (
                    str(sheet_text(response.content)) + str(sheet_text(response.content, "Kravpunkter"))
                    if fmt == "xlsx" else response.content.decode("utf-8-sig"))
                self.assertNotIn("Hemlig lönelista", text)
                self.assertIn("Privat fil", text)
                self.assertIn("Arbetsmiljöpolicy", text)
        for fmt in ("xlsx", "pdf"):
            with self.subTest(review=fmt):
                response = self.download(self.erin, reverse("review_export", args=["alices-ab", self.review.pk, fmt]))
                text = pdf_text(response.content) if fmt == "pdf" else str(sheet_text(response.content))
                self.assertNotIn("Hemlig lönelista", text)
                self.assertIn("Privat fil", text)

    def test_closed_review_xlsx_and_pdf(self) -> None:
        # The register changes after the review closed: the export shows what the review saw.
        services.register_item_update(item=self.aml_item, user=self.alice, data={"status": "compliant"})
        response = self.download(self.dave, reverse("review_export", args=["alices-ab", self.review.pk, "xlsx"]))
        self.assertIn('filename="kontroll-arlig-kontroll-2026-2026-03-02.xlsx"', response["Content-Disposition"])
        rows = sheet_text(response.content)
        self.assertEqual(rows[0][0], "Lagefterlevnadskontroll – Årlig kontroll 2026")
        meta = [r[0] for r in rows[1:10]]
        for line in ("Arbetsyta: Alices AB", "Laglista: Arbetsmiljö och dataskydd", "Omfattning: hela laglistan",
                     "Ansvarig granskare: alice", "Per datum: 2026-03-02", "Avslutad av: alice",
                     "Utskriven: 2026-11-25"):
            self.assertIn(line, meta)
        header = next(r for r in rows if r[0] == "Författning")
        body = {r[0]: dict(zip(header, r)) for r in rows[rows.index(header) + 1:]}
        aml = body["Arbetsmiljölag (1977:1160)"]
        self.assertEqual((aml["Bedömning"], aml["Bedömd av"], aml["Lydelse"], aml["Motivering"]),
                         ("uppfylls delvis", "bob", "t.o.m. SFS 2024:100", "Riskbedömning saknas för lagret"))
        self.assertEqual(aml["Signerad"].date(), date(2026, 3, 2))
        self.assertIn("3 kap. 2 a § Undersöka risker: ej bedömd", aml["Kravpunkter"])
        actions = sheet_text(response.content, "Åtgärder")
        self.assertIn("Åtgärda brist: Dataskyddsförordningen", actions[1][0])

        pdf = self.download(self.dave, reverse("review_export", args=["alices-ab", self.review.pk, "pdf"]))
        text = pdf_text(pdf.content)
        for expected in ("Lagefterlevnadskontroll – Årlig kontroll 2026", "Arbetsyta: Alices AB",
                         "Per datum: 2026-03-02", "uppfylls delvis", "uppfylls inte", "Registerförteckning saknas",
                         "Åtgärder", "Bedömd av", "t.o.m. SFS 2024:100"):
            self.assertIn(expected, text)

    def test_open_review_and_unknown_format(self) -> None:
        open_review = services.review_start(register=self.register, user=self.alice, title="Pågående")
        self.client.force_login(self.bob)
        response = self.client.get(reverse("review_export", args=["alices-ab", open_review.pk, "pdf"]))
        self.assertEqual(response.status_code, 409)
        self.assertContains(response, "inte avslutad", status_code=409)
        self.assertEqual(self.client.get(reverse("register_export", args=["alices-ab", self.register.pk,
                                                                          "docx"])).status_code, 404)
        self.assertEqual(self.client.get(reverse("review_export", args=["alices-ab", self.review.pk,
                                                                        "csv"])).status_code, 404)

    def test_it_checks_ownership(self) -> None:
        """charlie (an outsider) and alice through charlie's workspace: 404 for the register and the review."""
        charlies = services.register_create(workspace=self.charlies_workspace, user=self.charlie, name="C")
        services.register_item_add(register=charlies, user=self.charlie, legal_document=self.aml)
        charlies_review = services.review_start(register=charlies, user=self.charlie, title="C")
        self.client.force_login(self.charlie)
        for url in (reverse("register_export", args=["alices-ab", self.register.pk, "xlsx"]),
                    reverse("review_export", args=["alices-ab", self.review.pk, "pdf"]),
                    reverse("register_export", args=["charlies-ab", self.register.pk, "xlsx"]),
                    reverse("review_export", args=["charlies-ab", self.review.pk, "pdf"])):
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 404)
        self.client.force_login(self.alice)
        for url in (reverse("register_export", args=["alices-ab", charlies.pk, "xlsx"]),
                    reverse("review_export", args=["alices-ab", charlies_review.pk, "pdf"]),
                    reverse("register_export", args=["charlies-ab", charlies.pk, "csv"])):
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 404)
        self.client.logout()
        self.assertEqual(self.client.get(reverse("register_export", args=["alices-ab", self.register.pk,
                                                                          "xlsx"])).status_code, 302)

    def test_api_exports(self) -> None:
        self.auth(self.erin)
        response = self.client.get(f"{REG}/registers/{self.register.pk}/export/xlsx")
        self.assertEqual(response.status_code, 200)
        self.assertEqual(sheet_text(response.content)[1][0], "Arbetsyta: Alices AB")
        response = self.client.get(f"{REG}/reviews/{self.review.pk}/export/pdf")
        self.assertIn("Årlig kontroll 2026", pdf_text(response.content))
        self.assertEqual(self.client.get(f"{REG}/registers/{self.register.pk}/export/csv").status_code, 200)
        self.assertEqual(self.client.get(f"{REG}/registers/{self.register.pk}/export/doc").status_code, 404)
        self.auth(self.charlie)
        self.assertEqual(self.client.get(f"{REG}/registers/{self.register.pk}/export/xlsx").status_code, 404)
        self.assertEqual(self.client.get(f"{CREG}/registers/{self.register.pk}/export/xlsx").status_code, 404)
        self.assertEqual(self.client.get(f"{CREG}/reviews/{self.review.pk}/export/pdf").status_code, 404)


class PureExportTests(RegisterTestCase):
    """The builders are pure: data in, bytes out; an empty register and characters outside Latin-1 too."""

    def test_empty_register_and_unusual_characters(self) -> None:
        data = RegisterExport(workspace="Åsa & Örjan <AB>", register="Tom lista", printed=date(2026, 1, 1),
                              items=[], summary={"ej bedömd": 0})
        self.assertIn("Åsa & Örjan <AB>", pdf_text(exports.register_pdf(data)))
        self.assertEqual(sheet_text(exports.register_xlsx(data))[1][0], "Arbetsyta: Åsa & Örjan <AB>")
        row = ItemRow(id=1, group="", title="Łódź → 😀 lag", number="", kind="Eget krav", status="compliant",
                      status_label="uppfylls", responsible="", last_reviewed_at=None, last_reviewed_by="",
                      next_review_date=None, reason="", how_we_comply="")
        data = RegisterExport(workspace="Alices AB", register="L", printed=date(2026, 1, 1), items=[row],
                              summary={"uppfylls": 1})
        self.assertIn("uppfylls", pdf_text(exports.register_pdf(data)))
        self.assertEqual(exports.register_csv(data).decode("utf-8-sig").splitlines()[1].split(",")[2],
                         "Łódź → 😀 lag")

    def test_formula_looking_text_stays_text(self) -> None:
        row = ItemRow(id=1, group="+SUM(A1)", title="=cmd|' /C calc'!A0", number="", kind="Eget krav",
                      status="compliant", status_label="uppfylls", responsible="@bob", last_reviewed_at=None,
                      last_reviewed_by="", next_review_date=None, reason="-1", how_we_comply="")
        data = RegisterExport(workspace="Alices AB", register="L", printed=date(2026, 1, 1), items=[row],
                              summary={"uppfylls": 1})
        line = next(csv.DictReader(io.StringIO(exports.register_csv(data).decode("utf-8-sig"))))
        self.assertEqual((line["forfattning"], line["grupp"], line["ansvarig"]),
                         ("'=cmd|' /C calc'!A0", "'+SUM(A1)", "'@bob"))
        book = load_workbook(io.BytesIO(exports.register_xlsx(data)))
        cells = {c.value: c.data_type for row in book.active.iter_rows() for c in row if c.value is not None}
        self.assertEqual((cells["=cmd|' /C calc'!A0"], cells["+SUM(A1)"], cells["-1"]), ("s", "s", "s"))
