"""Source pages: the statute list and statute page (shared), and a workspace file's page."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import SimpleTestCase
from django.urls import reverse

from chunks.models import ContentChunk
from compliance import services
from compliance.anchors import citation_anchor, statute_url
from compliance.models import LegalDocument, Membership, UserFile, content_hash
from glossary.services import term_create
from tests.helpers import BaseTestCase, make_member, make_user

TITLE = "Arbetsmiljölag (1977:1160)"


class CitationAnchorTests(SimpleTestCase):
    def test_sections(self) -> None:
        self.assertEqual(citation_anchor("3 kap. 2 a §"), "3kap2a")
        self.assertEqual(citation_anchor("7 §"), "7")
        self.assertEqual(citation_anchor("1 kap. 1 §"), "1kap1")
        self.assertEqual(citation_anchor("12 a kap. 3 b §"), "12akap3b")
        self.assertEqual(citation_anchor("  36 § "), "36")

    def test_other_units(self) -> None:
        self.assertEqual(citation_anchor("3 kap."), "3kap")
        self.assertEqual(citation_anchor("Övergångsbestämmelser 2009:1439"), "overgangsbestammelser-2009-1439")
        self.assertEqual(citation_anchor("Bilaga 1"), "bilaga-1")
        self.assertEqual(citation_anchor(""), "")

    def test_statute_url(self) -> None:
        self.assertEqual(statute_url("1977:1160", "3 kap. 2 a §"), "/lag/1977:1160#3kap2a")
        self.assertEqual(statute_url("1977:1160"), "/lag/1977:1160")


def add_chunk(doc: LegalDocument, path: str, citation: str, text: str, *, header: str | None = None,
              kind: str = "section", chapter: str = "") -> ContentChunk:
    return ContentChunk.objects.create(
        source_type="LEGAL_DOCUMENT", legal_document=doc, document_number=doc.sfs_number,
        document_title=doc.title, header=header or f"{TITLE} > {citation}", path=path,
        ordinal=int(path.replace(".", "")), citation=citation, text=text, kind=kind, chapter=chapter,
        content_hash=content_hash(text),
    )


def citing_links(body: str, anchor: str, line: str) -> list[tuple[str, str]]:
    """The (href, text) links of a unit's "Hänvisas till" line: `line` "cited-by" (the page's own units citing it)
    or "cited-elsewhere" (other documents' units)."""
    section = body[body.index(f'id="{anchor}"'):].split("</section>", 1)[0]
    found = re.search(rf'<p class="cited-by small muted" data-{line}>(.*?)</p>', section, re.S)
    return re.findall(r'<a href="([^"]+)">([^<]+)</a>', found.group(1)) if found else []


class StatutePageTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.doc = LegalDocument.objects.create(
            sfs_number="1977:1160", title=TITLE, full_text="(full text)", category="arbetsmiljö",
            amended_through="SFS 2024:1234", content_type=LegalDocument.ContentType.SFS_LAW,
            abbreviations=["AML"],
        )
        cls.ordinance = LegalDocument.objects.create(
            sfs_number="1977:1166", title="Arbetsmiljöförordning (1977:1166)", full_text="1 § Text.",
            content_type=LegalDocument.ContentType.SFS_ORDINANCE,
        )
        # Created out of order on purpose: the page orders by path.
        add_chunk(cls.doc, "00005.00000", "Övergångsbestämmelser 2009:1439", "ÖVERGÅNGSTEXT", kind="transitional",
                  header=f"{TITLE} > Övergångsbestämmelser > 2009:1439")
        add_chunk(cls.doc, "00003.00001", "3 kap. 2 a §", "DEL TVÅ av 2 a §", chapter="3",
                  header=f"{TITLE} > 3 kap. Allmänna skyldigheter > 2 a §")
        add_chunk(cls.doc, "00001.00000", "1 kap. 1 §", "Lagens ändamål är att förebygga ohälsa.", chapter="1",
                  header=f"{TITLE} > 1 kap. Lagens ändamål och tillämpningsområde > 1 §")
        add_chunk(cls.doc, "00003.00000", "3 kap. 2 a §", "DEL ETT av 2 a §", chapter="3",
                  header=f"{TITLE} > 3 kap. Allmänna skyldigheter > Systematiskt arbetsmiljöarbete > 2 a §")
        add_chunk(cls.doc, "00004.00000", "3 kap. 3 §", "Tredje paragrafen.", chapter="3",
                  header=f"{TITLE} > 3 kap. Allmänna skyldigheter > 3 §")

    def test_anonymous_is_sent_to_login(self) -> None:
        for url in (reverse("statute_list"), "/lag/1977:1160", "/lag/1977:1160/"):
            with self.subTest(url=url):
                r = self.client.get(url)
                self.assertEqual(r.status_code, 302)
                self.assertTrue(r["Location"].startswith(reverse("login")))

    def test_any_logged_in_user_sees_shared_statutes(self) -> None:
        for user in (self.alice, self.bob, self.charlie, make_user("nobody")):
            self.login(user)
            with self.subTest(user=user.username):
                self.assertContains(self.client.get("/lag/1977:1160"), TITLE)
                self.assertContains(self.client.get(reverse("statute_list")), "1977:1160")

    def test_url_with_and_without_slash(self) -> None:
        self.login(self.alice)
        self.assertEqual(reverse("statute", args=["1977:1160"]), "/lag/1977:1160")
        self.assertEqual(self.client.get("/lag/1977:1160").status_code, 200)
        self.assertEqual(self.client.get("/lag/1977:1160/").status_code, 200)
        self.assertEqual(self.client.get("/lag/1999:1").status_code, 404)
        self.assertEqual(self.client.get("/lag/inte-ett-nummer/").status_code, 404)

    def test_metadata(self) -> None:
        self.login(self.alice)
        r = self.client.get("/lag/1977:1160")
        for text in ("SFS-nummer", "1977:1160", "Ändring införd t.o.m.", "SFS 2024:1234", "Område", "arbetsmiljö"):
            self.assertContains(r, text)

    def test_a_statute_governing_an_authoritys_own_work_says_so(self) -> None:
        self.login(self.alice)
        self.assertNotContains(self.client.get("/lag/1977:1160"), "<dt>Reglerar</dt>")
        LegalDocument.objects.filter(pk=self.ordinance.pk).update(addressee="Arbetsmiljöverket")
        self.assertContains(self.client.get("/lag/1977:1166"),
                            "<dt>Reglerar</dt><dd>Arbetsmiljöverket: myndighetens egen verksamhet</dd>", html=False)

    def test_source_is_the_official_database_with_the_sfs_number_linked_there(self) -> None:
        # What the bundled corpus stores: the cached copy it was built from (technical provenance).
        provenance = "mttias/swedish-laws@56a0d3f7a7d5:cache/4012.xml"
        LegalDocument.objects.filter(pk=self.doc.pk).update(source=provenance)
        self.login(self.alice)
        r = self.client.get("/lag/1977:1160")
        self.assertContains(r, "<dt>Källa</dt><dd>Regeringskansliets rättsdatabaser (SFST), hämtad april 2024</dd>",
                            html=False)
        self.assertContains(r, '<a href="https://rkrattsbaser.gov.se/sfst?bet=1977:1160" rel="noopener noreferrer"'
                               ' title="Författningen i Regeringskansliets rättsdatabaser">1977:1160</a>')
        self.assertNotContains(r, "mttias")
        # The provenance is kept where staff look for it: the statute's admin page.
        admin_user = get_user_model().objects.create_superuser("admin", "admin@example.se", "pw")
        self.client.force_login(admin_user)
        change = self.client.get(reverse("admin:compliance_legaldocument_change", args=[self.doc.pk]))
        self.assertContains(change, provenance)

    def test_a_source_given_as_a_web_address_stays_a_link(self) -> None:
        url = "https://rkrattsbaser.gov.se/sfst?bet=1977:1166"
        LegalDocument.objects.filter(pk=self.ordinance.pk).update(source=url)
        self.login(self.alice)
        self.assertContains(self.client.get("/lag/1977:1166"),
                            f'<dt>Källa</dt><dd><a href="{url}" rel="noopener noreferrer">{url}</a></dd>')

    def test_anchors_and_document_order(self) -> None:
        self.login(self.alice)
        body = self.client.get("/lag/1977:1160").content.decode()
        for anchor in ('id="1kap1"', 'id="3kap2a"', 'id="3kap3"', 'id="overgangsbestammelser-2009-1439"',
                       'id="3kap"', 'id="1kap"'):
            self.assertIn(anchor, body)
        order = [body.index(t) for t in ('id="1kap1"', "Lagens ändamål är", 'id="3kap2a"', "DEL ETT", "DEL TVÅ",
                                         'id="3kap3"', "ÖVERGÅNGSTEXT")]
        self.assertEqual(order, sorted(order))
        # Every id once: a link opens one place.
        ids = re.findall(r' id="([^"]+)"', body)
        self.assertEqual([i for i in set(ids) if ids.count(i) > 1], [])
        self.assertIn('<h2 class="chapter" id="overgangsbestammelser">Övergångsbestämmelser</h2>', body)
        # The split § is one block: one anchor, both parts inside it.
        self.assertEqual(body.count('id="3kap2a"'), 1)
        block = body[body.index('id="3kap2a"'):body.index('id="3kap3"')]
        self.assertIn("DEL ETT", block)
        self.assertIn("DEL TVÅ", block)
        # Chapter headings and the rubrik come from the chunk headers.
        self.assertIn("3 kap. Allmänna skyldigheter", body)
        self.assertIn("Systematiskt arbetsmiljöarbete", body)
        self.assertIn("Övergångsbestämmelser", body)

    def test_an_editor_may_teach_a_word_for_each_section(self) -> None:
        """Each § links to the current workspace's Ordlista form, pointing at the § and coming back to it; a
        transitional provision does not, and a member who may not edit, or has no workspace, sees no link."""
        glossary = reverse("glossary_list", args=[self.workspace.slug])
        for user in (self.alice, self.bob):
            self.login(user)
            with self.subTest(user=user.username):
                body = self.client.get("/lag/1977:1160").content.decode()
                self.assertEqual(body.count("data-teach-provision"), 3)
                self.assertIn(f'href="{glossary}?forfattning=1977%3A1160&amp;enhet=3%20kap.%202%20a%20%C2%A7#lagg-till"',
                              body)
                self.assertIn('aria-label="Lär assistenten ert ord för 3 kap. 2 a §"', body)
                transitional = body[body.index('id="overgangsbestammelser-2009-1439"'):]
                self.assertNotIn("data-teach-provision", transitional.split("</section>")[0])
        readers = (make_member(self.workspace, "reader", Membership.Role.VIEWER),
                   make_member(self.workspace, "revisor", Membership.Role.AUDITOR))
        for user in (*readers, make_user("nobody")):
            self.login(user)
            with self.subTest(user=user.username):
                self.assertNotContains(self.client.get("/lag/1977:1160"), "data-teach-provision")
        # charlie's link goes to his own workspace.
        self.login(self.charlie)
        body = self.client.get("/lag/1977:1160").content.decode()
        self.assertIn(reverse("glossary_list", args=[self.charlies_workspace.slug]) + "?forfattning=", body)
        self.assertNotIn(glossary, body)

    def test_each_section_names_the_workspaces_words_that_cite_it(self) -> None:
        """A term whose law words cite a § (a range each of its §§, a chapter its heading) is named there, linked to
        the Ordlista; only the current workspace's terms, to every member of it."""
        for word, law_words in (("skyddsplan", "systematiskt arbetsmiljöarbete (3 kap. 2 a § arbetsmiljölagen)"),
                                ("Tillsynsplan", "3 kap. 2 a–3 §§ arbetsmiljölagen"),
                                ("skyldighetskapitlet", "allmänna skyldigheter (3 kap. arbetsmiljölagen)"),
                                ("ledighetsord", "5 kap. 1 § semesterlagen"), ("chefsord", "arbetsgivare")):
            term_create(workspace=self.workspace, user=self.alice, word=word, law_words=law_words)
        term_create(workspace=self.charlies_workspace, user=self.charlie, word="charlies-ord",
                    law_words="3 kap. 2 a § arbetsmiljölagen")
        glossary = reverse("glossary_list", args=[self.workspace.slug])
        reader = make_member(self.workspace, "reader", Membership.Role.VIEWER)
        for user in (self.alice, reader):
            self.login(user)
            with self.subTest(user=user.username):
                body = self.client.get("/lag/1977:1160").content.decode()
                sections = {anchor: body[body.index(f'id="{anchor}"'):].split("</section>", 1)[0]
                            for anchor in ("1kap1", "3kap2a", "3kap3")}
                # In the glossary's order, whatever the case.
                self.assertIn(f'I er ordlista: <a href="{glossary}?q=skyddsplan"', sections["3kap2a"])
                self.assertIn(f'<a href="{glossary}?q=Tillsynsplan"', sections["3kap2a"])
                self.assertIn(f'I er ordlista: <a href="{glossary}?q=Tillsynsplan"', sections["3kap3"])
                self.assertNotIn("data-taught-words", sections["1kap1"])
                chapter = body[body.index('id="3kap"'):body.index('id="3kap2a"')]
                self.assertIn(f'I er ordlista (hela kapitlet): <a href="{glossary}?q=skyldighetskapitlet"', chapter)
                self.assertEqual(body.count("data-taught-words"), 3)
                for word in ("ledighetsord", "chefsord", "charlies-ord"):
                    self.assertNotIn(f"?q={word}", body)
        self.login(self.charlie)
        body = self.client.get("/lag/1977:1160").content.decode()
        self.assertIn("?q=charlies-ord", body)
        self.assertNotIn("skyddsplan", body)

    def test_transitional_provisions_come_last_whatever_their_path(self) -> None:
        add_chunk(self.doc, "00000.00000", "Övergångsbestämmelser 1991:677", "TIDIG ÖVERGÅNG", kind="transitional")
        self.login(self.alice)
        body = self.client.get("/lag/1977:1160").content.decode()
        self.assertLess(body.index('id="3kap3"'), body.index("TIDIG ÖVERGÅNG"))

    def test_a_transitional_provision_cited_alone_and_its_heading_share_no_id(self) -> None:
        add_chunk(self.doc, "00000.00000", "Övergångsbestämmelser", "UTAN NUMMER", kind="transitional")
        self.login(self.alice)
        body = self.client.get("/lag/1977:1160").content.decode()
        ids = re.findall(r' id="([^"]+)"', body)
        self.assertEqual([i for i in set(ids) if ids.count(i) > 1], [])
        self.assertIn('<section class="paragraf transitional" id="overgangsbestammelser">', body)
        self.assertIn('<h2 class="chapter">Övergångsbestämmelser</h2>', body)

    def test_two_versions_of_a_section_get_unique_anchors(self) -> None:
        add_chunk(self.doc, "00006.00000", "3 kap. 3 §", "NY LYDELSE", chapter="3",
                  header=f"{TITLE} > 3 kap. Allmänna skyldigheter > 3 § (träder i kraft 2025-07-01)")
        self.login(self.alice)
        body = self.client.get("/lag/1977:1160").content.decode()
        self.assertEqual(body.count('id="3kap3"'), 1)
        self.assertIn('id="3kap3-2"', body)
        self.assertIn("träder i kraft 2025-07-01", body)

    def test_references_in_the_text_link_to_the_units_they_cite(self) -> None:
        """A § cited by another held statute, by this statute (a bare § being its own chapter's) or by name alone
        becomes a link to its place; a unit nobody shows does not send the reader to a wrong one."""
        add_chunk(self.doc, "00002.00000", "2 kap. 1 §",
                  "1 § Arbetsgivaren ska följa 3 §. Detsamma gäller 3 kap. 2 a §. Undantag finns i 9 §. Se 3 kap. "
                  "99 §. Se även 1 § arbetsmiljöförordningen (1977:1166). Jfr 5 § arbetsmiljöförordningen (1977:1166).",
                  chapter="2",
                  header=f"{TITLE} > 2 kap. Arbetsmiljöns beskaffenhet > 1 §")
        add_chunk(self.doc, "00002.00001", "2 kap. 3 §", "3 § Tredje i andra kapitlet.", chapter="2",
                  header=f"{TITLE} > 2 kap. Arbetsmiljöns beskaffenhet > 3 §")
        add_chunk(self.doc, "00005.00001", "Övergångsbestämmelser 2010:1", "Äldre föreskrifter gäller för 3 §.",
                  kind="transitional")
        add_chunk(self.ordinance, "00001.00000", "1 §", "1 § Förordningens första paragraf.")
        self.login(self.alice)
        body = self.client.get("/lag/1977:1160").content.decode()
        section = body[body.index('id="2kap1"'):body.index('id="2kap3"')]
        links = re.findall(r'<a class="ref-link" href="([^"]+)">([^<]+)</a>', section)
        self.assertEqual(links, [
            ("/lag/1977:1160#2kap3", "3 §"),  # its own chapter's 3 §
            ("/lag/1977:1160#3kap2a", "3 kap. 2 a §"),
            ("/lag/1977:1166#1", "1 § arbetsmiljöförordningen (1977:1166)"),
            ("/lag/1977:1166", "5 § arbetsmiljöförordningen (1977:1166)"),  # not held: the statute, not a §
        ])
        # 2 kap. 9 § and 3 kap. 99 § are on no page; the § heading is no reference to itself.
        self.assertIn("Undantag finns i 9 §. Se 3 kap. 99 §.", section)
        self.assertNotIn('href="/lag/1977:1160#2kap1"', section)
        # Transitional provisions stand outside the chapters: their bare § is not placed.
        transitional = body[body.index("Äldre föreskrifter"):].split("</section>", 1)[0]
        self.assertNotIn("ref-link", transitional)

    def chapter_two(self, *texts: str) -> None:
        """2 kap. 1 §, 2 §, … with these texts, each opening with its § number."""
        for number, text in enumerate(texts, start=1):
            add_chunk(self.doc, f"00002.{number - 1:05d}", f"2 kap. {number} §", f"{number} § {text}", chapter="2",
                      header=f"{TITLE} > 2 kap. Arbetsmiljöns beskaffenhet > {number} §")

    def test_each_unit_a_chain_cites_is_a_link_of_its_own(self) -> None:
        self.chapter_two("Se 2 och 3 §§ samt 3 kap. 2 a §.", "Text.", "Text.")
        self.login(self.alice)
        body = self.client.get("/lag/1977:1160").content.decode()
        section = body[body.index('id="2kap1"'):body.index('id="2kap2"')]
        self.assertEqual(re.findall(r'<a class="ref-link" href="([^"]+)">([^<]+)</a>', section), [
            ("/lag/1977:1160#2kap2", "2"),
            ("/lag/1977:1160#2kap3", "3 §§"),
            ("/lag/1977:1160#3kap2a", "3 kap. 2 a §"),
        ])

    def test_each_section_names_the_sections_of_its_statute_that_cite_it(self) -> None:
        self.chapter_two("Se 2 och 3 §§. Jfr 1 §.", "Utöver 3 § gäller 3 kap. 2 a §.", "Text.")
        self.login(self.alice)
        body = self.client.get("/lag/1977:1160").content.decode()

        def cited_by(anchor: str) -> list[tuple[str, str]]:
            return [(href.removeprefix("#"), text) for href, text in citing_links(body, anchor, "cited-by")]

        # In page order, each citing § once; a § naming itself cites nothing.
        self.assertEqual(cited_by("2kap3"), [("2kap1", "2 kap. 1 §"), ("2kap2", "2 kap. 2 §")])
        self.assertEqual(cited_by("2kap2"), [("2kap1", "2 kap. 1 §")])
        self.assertEqual(cited_by("3kap2a"), [("2kap2", "2 kap. 2 §")])
        self.assertEqual(cited_by("2kap1"), [])
        self.assertIn("Hänvisas till i", body)

    def test_each_section_names_the_units_of_other_documents_that_cite_it(self) -> None:
        """The förordning's § and a föreskrift's allmänt råd citing 3 kap. 2 a § are named under it, each linking to
        where it is; a workspace's file, a repealed document and a text naming the law without a § are not."""
        add_chunk(self.ordinance, "00001.00000", "1 §", "1 § Av 3 kap. 2 a § arbetsmiljölagen (1977:1160) följer "
                  "att arbetsgivaren ska undersöka riskerna.", header="Arbetsmiljöförordning (1977:1166) > 1 §")
        add_chunk(self.ordinance, "00002.00000", "2 §", "2 § Arbetsmiljölagen gäller också här.",
                  header="Arbetsmiljöförordning (1977:1166) > 2 §")
        afs = LegalDocument.objects.create(sfs_number="AFS 2099:1", title="Föreskrifter om provarbete",
                                           full_text="", content_type=LegalDocument.ContentType.AGENCY_REGULATION)
        add_chunk(afs, "00004.00001", "4 § allmänt råd (inte bindande)", "Kraven i 3 kap. 2 a och 3 §§ "
                  "arbetsmiljölagen gäller även för provarbete.", kind="advice",
                  header="Föreskrifter om provarbete > 4 §")
        repealed = LegalDocument.objects.create(sfs_number="1970:1", title="Lag (1970:1) om det gamla",
                                                full_text="", content_type=LegalDocument.ContentType.SFS_LAW)
        add_chunk(repealed, "00001.00000", "1 §", "1 § Se 3 kap. 3 § arbetsmiljölagen (1977:1160).",
                  header="Lag (1970:1) om det gamla > 1 §")
        ContentChunk.objects.filter(legal_document=repealed).update(document_repealed=True)
        policy = UserFile.objects.create(workspace=self.workspace, title="Policy.pdf", original_name="Policy.pdf",
                                         file="x", status="done")
        ContentChunk.objects.create(
            source_type="USER_FILE", user_file=policy, workspace=self.workspace, document_title="Policy.pdf",
            header="Policy.pdf > Sida 1", path="00001", ordinal=0, citation="Sida 1",
            text="Vår rutin följer 3 kap. 3 § arbetsmiljölagen (1977:1160).", content_hash=content_hash("rutin"))
        self.login(self.alice)
        body = self.client.get("/lag/1977:1160").content.decode()

        def elsewhere(anchor: str) -> list[tuple[str, str]]:
            return citing_links(body, anchor, "cited-elsewhere")

        self.assertEqual(elsewhere("3kap2a"), [
            ("/lag/1977:1166#1", "1 § Arbetsmiljöförordning (1977:1166)"),
            ("/lag/AFS_2099:1#4-allmant-rad-inte-bindande",
             "4 § allmänt råd (inte bindande) Föreskrifter om provarbete"),
        ])
        self.assertEqual(elsewhere("3kap3"), [
            ("/lag/AFS_2099:1#4-allmant-rad-inte-bindande",
             "4 § allmänt råd (inte bindande) Föreskrifter om provarbete"),
        ])
        self.assertEqual(elsewhere("1kap1"), [])
        self.assertNotIn("Policy.pdf", body)
        self.assertNotIn("1970:1", body)
        self.assertIn("Hänvisas till från", body)

    def test_without_chunks_the_full_text_is_shown(self) -> None:
        self.login(self.alice)
        r = self.client.get("/lag/1977:1166")
        self.assertContains(r, "Författningen bearbetas")
        self.assertContains(r, '<pre class="statute">1 § Text.</pre>', html=False)

    def test_list_search_and_filter(self) -> None:
        self.login(self.alice)
        r = self.client.get(reverse("statute_list"), {"q": "förordning"})
        self.assertContains(r, "1977:1166")
        self.assertNotContains(r, 'href="/lag/1977:1160"')
        r = self.client.get(reverse("statute_list"), {"q": "1977:1160"})
        self.assertContains(r, 'href="/lag/1977:1160"')
        self.assertNotContains(r, "1977:1166")
        r = self.client.get(reverse("statute_list"), {"q": "AML"})
        self.assertContains(r, 'href="/lag/1977:1160"')
        r = self.client.get(reverse("statute_list"), {"typ": LegalDocument.ContentType.SFS_ORDINANCE})
        self.assertContains(r, "1977:1166")
        self.assertNotContains(r, 'href="/lag/1977:1160"')
        r = self.client.get(reverse("statute_list"), {"q": "finns inte"})
        self.assertContains(r, "Inga författningar hittades")


class FilePageTests(BaseTestCase):
    def setUp(self) -> None:
        self.dave = make_member(self.workspace, "dave", Membership.Role.VIEWER)
        self.file = services.user_file_upload(
            workspace=self.workspace, user=self.alice, is_private=True,
            uploaded=SimpleUploadedFile("rutin.md", "# Rutin\n\nText.".encode(), content_type="text/markdown"),
        )
        self.chunk_b = ContentChunk.objects.create(
            source_type="USER_FILE", user_file=self.file, workspace=self.workspace, header="rutin.md > Del två",
            path="00001", ordinal=1, text="ANDRA STYCKET", content_hash="b",
        )
        self.chunk_a = ContentChunk.objects.create(
            source_type="USER_FILE", user_file=self.file, workspace=self.workspace, header="rutin.md > Rutin",
            path="00000", ordinal=0, text="FÖRSTA STYCKET", content_hash="a",
        )
        self.url = reverse("file_detail", args=[self.workspace.slug, self.file.pk])

    def test_members_see_metadata_and_chunks_in_order_with_anchors(self) -> None:
        for user in (self.alice, self.bob, self.dave):
            self.login(user)
            with self.subTest(user=user.username):
                r = self.client.get(self.url)
                body = r.content.decode()
                self.assertContains(r, "rutin.md")
                self.assertContains(r, "privat")  # private files are visible to members
                self.assertIn(f'id="chunk-{self.chunk_a.pk}"', body)
                self.assertIn(f'id="chunk-{self.chunk_b.pk}"', body)
                self.assertLess(body.index("FÖRSTA STYCKET"), body.index("ANDRA STYCKET"))
                self.assertContains(r, "Del två")

    def test_delete_control_only_for_editors(self) -> None:
        delete_url = reverse("file_delete", args=[self.workspace.slug, self.file.pk])
        self.login(self.dave)
        self.assertNotContains(self.client.get(self.url), delete_url)
        self.login(self.bob)
        self.assertContains(self.client.get(self.url), delete_url)

    def test_outsider_and_anonymous(self) -> None:
        r = self.client.get(self.url)
        self.assertRedirects(r, reverse("login") + "?next=" + self.url, fetch_redirect_response=False)
        self.login(self.charlie)
        self.assertEqual(self.client.get(self.url).status_code, 404)
        idor = reverse("file_detail", args=[self.charlies_workspace.slug, self.file.pk])
        self.assertEqual(self.client.get(idor).status_code, 404)

    def test_deleted_file_is_404(self) -> None:
        services.user_file_delete(self.file)
        self.login(self.alice)
        self.assertEqual(self.client.get(self.url).status_code, 404)

    def test_failed_file_shows_its_error(self) -> None:
        type(self.file).objects.filter(pk=self.file.pk).update(status="failed", error_message="Filen är skadad.")
        ContentChunk.objects.filter(user_file=self.file).delete()
        self.login(self.alice)
        r = self.client.get(self.url)
        self.assertContains(r, "Filen är skadad.")
