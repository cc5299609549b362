"""Agency and EU regulations as legal documents: their numbers, URLs, pages and the list's filters."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from compliance.anchors import statute_url
from compliance.models import LegalDocument, validate_document_number
from compliance.numbers import document_slug, number_from_slug
from compliance.services import legal_document_upsert
from glossary.services import term_create
from law.regulations import regulation_from_record
from tests.helpers import BaseTestCase
from tests.law.test_load_regulations import shipped_record

NUMBERS = ["1977:1160", "AFS 2023:10", "(EU) 2016/679", "1736:0123 2", "1909:bih. 29 s.1", "ELSÄK-FS 2022:1"]


@pytest.mark.parametrize("number", NUMBERS)
def test_every_kind_of_number_is_valid_and_has_a_reversible_url_form(number: str) -> None:
    validate_document_number(number)
    slug = document_slug(number)
    assert " " not in slug and "/" not in slug and "(" not in slug
    assert number_from_slug(slug) == number


@pytest.mark.parametrize("value", ["", "AFS", "AFS 2023", "afs 2023:1", "(EU) 2016", "SOU 2019:1 x", "1977:1160 "])
def test_bad_numbers_are_rejected_in_swedish(value: str) -> None:
    with pytest.raises(ValidationError) as exc:
        validate_document_number(value)
    assert "Ogiltig beteckning" in str(exc.value)


def test_urls_of_the_new_numbers_and_old_sfs_links() -> None:
    assert statute_url("1977:1160", "3 kap. 2 a §") == "/lag/1977:1160#3kap2a"
    assert statute_url("AFS 2023:1", "3 §") == "/lag/AFS_2023:1#3"
    assert statute_url("(EU) 2016/679", "artikel 6.1") == "/lag/EU_2016-679#artikel-6-1"
    # Article 6's paragraph 1 is not article 61.
    assert statute_url("(EU) 2016/679", "artikel 61") == "/lag/EU_2016-679#artikel-61"
    assert statute_url("1736:0123 2") == "/lag/1736:0123_2"


class RegulationPageTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        for designation in ("AFS 2023:1", "AFS 2023:10", "Förordning (EU) 2016/679"):
            legal_document_upsert(regulation_from_record(shipped_record(designation)), process=False)
        legal_document_upsert(regulation_from_record(shipped_record("BFS 2011:11")), process=False)
        # The statute AFS 2023:1 rests on, loaded: its legal basis links to it.
        LegalDocument.objects.create(sfs_number="1977:1166", title="Arbetsmiljöförordning (1977:1166)",
                                     full_text="1 § Text.", content_type=LegalDocument.ContentType.SFS_ORDINANCE)

    def test_afs_page_with_metadata_advice_set_apart_and_legal_basis_linked(self) -> None:
        self.login(self.alice)
        response = self.client.get("/lag/AFS_2023:1")
        self.assertEqual(response.status_code, 200)
        page = response.content.decode()
        self.assertIn("Föreskrift (AFS)", page)
        self.assertIn("<dt>Utfärdare</dt><dd>Arbetsmiljöverket</dd>", page)
        self.assertIn('<a href="/lag/1977:1166">1977:1166</a>', page)
        self.assertIn('<section class="paragraf advice" id="3-allmant-rad-inte-bindande">', page)
        self.assertIn('<p class="advice-label">Allmänna råd (inte bindande)</p>', page)
        self.assertIn('<section class="paragraf" id="3">', page)
        self.assertNotIn("style=", page)
        # The same page by the number typed with its space, and with a trailing slash.
        self.assertEqual(self.client.get("/lag/AFS%202023:1").status_code, 200)
        self.assertEqual(self.client.get("/lag/AFS_2023:1/").status_code, 200)

    def test_afs_2023_10_contents_by_avdelning_chapter_and_bilaga(self) -> None:
        self.login(self.alice)
        page = self.client.get("/lag/AFS_2023:10").content.decode()
        contents = page.split('<nav class="toc" aria-label="Innehåll">', 1)[1].split("</nav>", 1)[0]
        self.assertIn('<a href="#avdelning-avdelning-ii">Avdelning II: Buller och vibrationer</a>', contents)
        self.assertIn('<a href="#2kap">2 kap. Buller</a>', contents)
        self.assertIn("Bilaga 1 – Beräkning av daglig bullerexponeringsnivå", contents)
        self.assertLess(contents.index("Avdelning II"), contents.index("2 kap. Buller"))
        self.assertIn('id="2kap"', page)

    def test_a_regulations_references_link_to_its_own_chapter_and_the_acts_it_rests_on(self) -> None:
        self.login(self.alice)
        page = self.client.get("/lag/AFS_2023:10").content.decode()
        # 2 kap. 8 §'s "gränsvärdena i 4 §" is 2 kap. 4 §, further up this page.
        section = page[page.index('id="2kap8"'):].split("</section>", 1)[0]
        self.assertIn('<a class="ref-link" href="/lag/AFS_2023:10#2kap4">4 §</a>', section)
        # AFS 2023:1 is issued under 18 § arbetsmiljöförordningen, which is loaded here without that §: the
        # reference opens the ordinance's page.
        page = self.client.get("/lag/AFS_2023:1").content.decode()
        self.assertIn('<a class="ref-link" href="/lag/1977:1166">18 § arbetsmiljöförordningen (1977:1166)</a>', page)

    def test_gdpr_page_links_each_article_to_eur_lex(self) -> None:
        self.login(self.alice)
        page = self.client.get("/lag/EU_2016-679").content.decode()
        self.assertIn("EU-förordning", page)
        self.assertIn('href="https://eur-lex.europa.eu/legal-content/SV/TXT/?uri=CELEX:32016R0679#art_6"', page)
        self.assertEqual(page.count('class="eurlex"'), 99)
        # Every anchor on the page is one place: article 61 and article 6's paragraph 1 are two.
        ids = re.findall(r' id="([^"]+)"', page)
        self.assertEqual([i for i in set(ids) if ids.count(i) > 1], [])
        self.assertIn('id="artikel-6-1"', page)
        self.assertIn('<section class="paragraf" id="artikel-61">', page)
        self.assertIn('id="skal-4"', page)
        # Recital 143 cites the treaty's article 263, which is not the GDPR's: no link into this page for it.
        recital = page[page.index('id="skal-143"'):].split("</section>", 1)[0]
        self.assertIn("artikel 263 i EUF-fördraget", recital)
        self.assertNotIn("#artikel-263", recital)
        # Article 8.1 ("Om artikel 6.1 a är tillämplig …") cites 6.1: the paragraph says so, naming the citing
        # paragraph, not its article (whose text the page shows through its paragraphs).
        paragraph = page[page.index('id="artikel-6-1"'):page.index('id="artikel-6-2"')]
        citing = re.search(r'<p class="cited-by[^>]*>(.*?)</p>', paragraph, re.S)
        self.assertIsNotNone(citing)
        self.assertIn('<a href="#artikel-8-1">artikel 8.1</a>', citing.group(1))
        self.assertNotIn('href="#artikel-8"', citing.group(1))

    def test_a_binding_section_or_an_article_may_be_taught_a_word_an_allmant_rad_may_not(self) -> None:
        self.login(self.alice)
        glossary = reverse("glossary_list", args=[self.workspace.slug])
        afs = self.client.get("/lag/AFS_2023:1").content.decode()
        section = afs[afs.index('<section class="paragraf" id="3">'):].split("</section>", 1)[0]
        self.assertIn(f'href="{glossary}?forfattning=AFS%202023%3A1&amp;enhet=3%20%C2%A7#lagg-till"', section)
        advice = afs[afs.index('id="3-allmant-rad-inte-bindande"'):].split("</section>", 1)[0]
        self.assertNotIn("data-teach-provision", advice)
        gdpr = self.client.get("/lag/EU_2016-679").content.decode()
        self.assertEqual(gdpr.count("data-teach-provision"), 99)
        recital = gdpr[gdpr.index('id="skal-4"'):].split("</section>", 1)[0]
        self.assertNotIn("data-teach-provision", recital)
        # A term citing an article, or a regulation's §, is named there.
        term_create(workspace=self.workspace, user=self.alice, word="dataläcka",
                    law_words="personuppgiftsincident (artikel 33 (EU) 2016/679)")
        term_create(workspace=self.workspace, user=self.alice, word="skyddsrond",
                    law_words="undersökning av arbetsmiljön (3 § AFS 2023:1)")
        gdpr = self.client.get("/lag/EU_2016-679").content.decode()
        article = gdpr[gdpr.index('id="artikel-33"'):].split("</section>", 1)[0]
        self.assertIn(f'I er ordlista: <a href="{glossary}?q=datal%C3%A4cka"', article)
        self.assertEqual(gdpr.count("data-taught-words"), 1)
        afs = self.client.get("/lag/AFS_2023:1").content.decode()
        section = afs[afs.index('<section class="paragraf" id="3">'):].split("</section>", 1)[0]
        self.assertIn(f'I er ordlista: <a href="{glossary}?q=skyddsrond"', section)
        self.assertEqual(afs.count("data-taught-words"), 1)
        # The form the link opens cites the unit so that retrieval reads it back as that unit.
        for number, unit, cited in (("AFS 2023:1", "3 §", "3 § AFS 2023:1"),
                                    ("(EU) 2016/679", "artikel 33", "artikel 33 (EU) 2016/679")):
            with self.subTest(number=number):
                form = self.client.get(glossary, {"forfattning": number, "enhet": unit})
                self.assertContains(form, f'name="law_words" value="{cited}"', html=False)

    def test_unknown_and_malformed_numbers_are_404(self) -> None:
        self.login(self.alice)
        self.assertEqual(self.client.get("/lag/AFS_2099:1").status_code, 404)
        self.assertEqual(self.client.get("/lag/nonsense").status_code, 404)

    def test_old_sfs_links_keep_working(self) -> None:
        self.login(self.alice)
        self.assertEqual(self.client.get("/lag/1977:1166").status_code, 200)

    def test_list_filters_by_kind_and_agency(self) -> None:
        self.login(self.alice)
        page = self.client.get("/lag/", {"typ": "EU_REGULATION"}).content.decode()
        rows = page.split("<tbody>", 1)[1]
        self.assertIn("(EU) 2016/679", rows)
        self.assertNotIn("AFS 2023:1", rows)
        page = self.client.get("/lag/", {"myndighet": "AFS"}).content.decode()
        self.assertIn('href="/lag/AFS_2023:1"', page)
        self.assertIn('href="/lag/AFS_2023:10"', page)
        self.assertNotIn("BFS 2011:11", page)
        self.assertNotIn("1977:1166", page.split("<tbody>", 1)[1])
        self.assertIn('<option value="BFS">Boverket (BFS)</option>', page)
        page = self.client.get("/lag/", {"myndighet": "Boverket"}).content.decode()
        self.assertIn("BFS 2011:11", page)
        self.assertNotIn('href="/lag/AFS_2023:1"', page)

    def test_api_statute_carries_kind_and_regulation_fields(self) -> None:
        self.login(self.alice)
        response = self.client.get("/api/v1/statutes/", {"agency": "AFS"})
        self.assertEqual(response.status_code, 200, response.content)
        rows = response.json()["results"]
        self.assertEqual({r["sfs_number"] for r in rows}, {"AFS 2023:1", "AFS 2023:10"})
        first = next(r for r in rows if r["sfs_number"] == "AFS 2023:1")
        self.assertEqual((first["kind"], first["agency"], first["legal_basis_sfs"]),
                         ("Föreskrift (AFS)", "Arbetsmiljöverket", ["1977:1166"]))
        detail = self.client.get("/api/v1/statutes/EU_2016-679/")
        self.assertEqual(detail.status_code, 200, detail.content)
        self.assertEqual(detail.json()["kind"], "EU-förordning")
