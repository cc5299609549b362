"""The Ordlista pages (every member reads, owners and editors write, another workspace is a 404), admin scoped to the
staff member's workspaces and writing through the services, and the dashboard's link to teach a word."""

from __future__ import annotations

import pytest
from auditlog.models import LogEntry
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils.http import urlencode

from agent.models import Conversation, Message, RetrievalLog
from compliance.models import Membership, Workspace
from glossary import services
from glossary.models import Term
from tests.helpers import BaseTestCase, chunked_statute, make_user


class GlossaryPageTests(BaseTestCase):
    def url(self, name: str = "glossary_list", *args: object, ws: Workspace | None = None) -> str:
        return reverse(name, args=[(ws or self.workspace).slug, *args])

    def add(self, word: str = "visselblåsare", law_words: str = "rapporterande person") -> Term:
        return services.term_create(workspace=self.workspace, user=self.alice, word=word, law_words=law_words)

    def test_it_checks_ownership(self) -> None:
        term = self.add("friskvårdsbidrag", "personalvårdsförmån")
        services.term_create(workspace=self.charlies_workspace, user=self.charlie, word="OVK",
                             law_words="funktionskontroll av ventilationssystem")
        self.login(self.charlie)
        self.assertEqual(self.client.get(self.url()).status_code, 404)
        self.assertEqual(self.client.post(self.url("glossary_add"), {"word": "a", "law_words": "b"}).status_code, 404)
        for name in ("glossary_edit", "glossary_delete"):
            with self.subTest(name=name):
                self.assertEqual(self.client.get(self.url(name, term.pk)).status_code, 404)
                self.assertEqual(self.client.post(self.url(name, term.pk), {"word": "x", "law_words": "y"}).status_code,
                                 404)
                # charlie's own workspace does not reach alice's term either
                self.assertEqual(self.client.post(self.url(name, term.pk, ws=self.charlies_workspace),
                                                  {"word": "x", "law_words": "y"}).status_code, 404)
        term.refresh_from_db()
        self.assertEqual((term.word, term.law_words), ("friskvårdsbidrag", "personalvårdsförmån"))
        # Each list shows its own workspace's terms only.
        own = self.client.get(self.url(ws=self.charlies_workspace))
        self.assertContains(own, "OVK")
        self.assertNotContains(own, "friskvårdsbidrag")
        self.login(self.alice)
        self.assertNotContains(self.client.get(self.url()), "OVK")

    def test_list_explains_and_shows_who_added_each_term_and_when(self) -> None:
        term = self.add()
        self.login(self.bob)
        r = self.client.get(self.url())
        self.assertContains(r, "söker assistenten också efter lagens ord")
        self.assertContains(r, "Ordlistan gäller bara den här arbetsytan.")
        self.assertContains(r, '<td><strong>visselblåsare</strong></td><td>rapporterande person', html=False)
        self.assertContains(r, "<td>alice</td>", html=False)
        self.assertContains(r, term.created_at.astimezone().strftime("%Y-%m-%d"))
        self.assertContains(r, 'aria-current="page">Ordlista</a>', html=False)
        self.assertContains(r, self.url("glossary_edit", term.pk))
        self.assertContains(r, self.url("glossary_delete", term.pk))
        self.assertContains(r, 'name="law_words"')

    def test_editor_adds_a_term(self) -> None:
        self.login(self.bob)
        r = self.client.post(self.url("glossary_add"), {"word": " OVK ", "law_words": "funktionskontroll"},
                             follow=True)
        self.assertRedirects(r, self.url())
        self.assertContains(r, "”OVK” finns nu i ordlistan: assistenten söker även efter ”funktionskontroll”.")
        term = Term.objects.get(workspace=self.workspace)
        self.assertEqual((term.word, term.law_words, term.created_by), ("OVK", "funktionskontroll", self.bob))

    def test_the_list_is_searched_in_both_words(self) -> None:
        self.add()
        self.add("OVK", "funktionskontroll av ventilationssystem")
        services.term_create(workspace=self.charlies_workspace, user=self.charlie, word="OVK-protokoll",
                             law_words="protokoll")
        self.login(self.bob)
        for query, shown in (("ovk", ["OVK"]), ("RAPPORTERANDE", ["visselblåsare"]), ("", ["OVK", "visselblåsare"])):
            with self.subTest(query=query):
                page = self.client.get(self.url(), {"q": query}).content.decode()
                rows = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
                self.assertEqual([w for w in ("OVK", "visselblåsare") if f"<strong>{w}</strong>" in rows], shown)
                self.assertNotIn("OVK-protokoll", page)
        none = self.client.get(self.url(), {"q": "semester"})
        self.assertContains(none, "Inga begrepp matchar ”semester”.")
        self.assertNotContains(none, 'id="glossary-empty"')

    def test_the_word_is_prefilled_from_the_link(self) -> None:
        self.login(self.alice)
        r = self.client.get(self.url() + "?ord=visselbl%C3%A5sare")
        self.assertContains(r, 'name="word" value="visselblåsare"', html=False)

    def test_the_answers_provisions_are_offered_as_law_words(self) -> None:
        """The answer's link carries its sources' citations: offered in the law words' list, text that law words
        may not hold left out."""
        self.login(self.bob)
        url = self.url() + "?ord=hyrpersonal&lagrum=3+kap.+12+%C2%A7+arbetsmilj%C3%B6lagen&lagrum=%3Cb%3Ex%3C%2Fb%3E"
        html = self.client.get(url).content.decode()
        self.assertIn('list="lagrum-forslag"', html)
        self.assertIn('<datalist id="lagrum-forslag"><option value="3 kap. 12 § arbetsmiljölagen"></option></datalist>',
                      html)
        self.assertNotIn("<b>x", html)
        self.assertNotIn("lagrum-forslag", self.client.get(self.url()).content.decode())
        # A refused post keeps them.
        refused = self.client.post(self.url("glossary_add"), {"word": "hyrpersonal", "law_words": "<b>",
                                                              "lagrum": "3 kap. 12 § arbetsmiljölagen"})
        self.assertContains(refused, '<option value="3 kap. 12 § arbetsmiljölagen">', status_code=400)

    def test_after_adding_from_an_answer_the_person_goes_back_to_it(self) -> None:
        """The answer's link sends its conversation as `tillbaka`; only a path in the same workspace is followed."""
        self.login(self.bob)
        conversation = reverse("conversation", args=[self.workspace.slug, 7])
        page = self.client.get(self.url() + f"?ord=OVK&tillbaka={conversation}")
        self.assertContains(page, f'<input type="hidden" name="tillbaka" value="{conversation}">', html=False)
        # A refused word keeps the way back.
        refused = self.client.post(self.url("glossary_add"), {"word": "OVK", "law_words": "", "tillbaka": conversation})
        self.assertContains(refused, f'name="tillbaka" value="{conversation}"', status_code=400, html=False)
        r = self.client.post(self.url("glossary_add"), {"word": "OVK", "law_words": "funktionskontroll",
                                                        "tillbaka": conversation})
        self.assertRedirects(r, conversation, fetch_redirect_response=False)
        elsewhere = (("https://example.com/ws/alices-ab/", "//example.com/ws/alices-ab/", "/admin/",
                      f"/ws/{self.charlies_workspace.slug}/chatt/", "javascript:alert(1)"))
        for i, back in enumerate(elsewhere):
            with self.subTest(back=back):
                r = self.client.post(self.url("glossary_add"), {"word": f"ord{i}x", "law_words": "arbetsgivare",
                                                                "tillbaka": back})
                self.assertRedirects(r, self.url(), fetch_redirect_response=False)
                self.assertNotContains(self.client.get(self.url() + f"?tillbaka={back}"), 'name="tillbaka"')

    def test_bad_input_gets_the_swedish_error_at_its_field_and_nothing_is_stored(self) -> None:
        self.add()
        self.login(self.alice)
        for data, status, words in (({"word": "", "law_words": "rapporterande person"}, 400, "Fyll i ert ord."),
                                    ({"word": "OVK", "law_words": "<b>x</b>"}, 400, "får bara innehålla bokstäver"),
                                    ({"word": "OVK", "law_words": "ovk"}, 400, "Lagens ord är samma som ert ord"),
                                    ({"word": "Visselblåsare", "law_words": "whistleblower"}, 409,
                                     "Ordet finns redan i ordlistan")):
            with self.subTest(data=data):
                r = self.client.post(self.url("glossary_add"), data)
                self.assertContains(r, words, status_code=status)
                self.assertContains(r, 'class="field has-error"', status_code=status)
                self.assertContains(r, f'value="{data["word"]}"' if data["word"] else 'name="word"',
                                    status_code=status)
        self.assertEqual(list(Term.objects.values_list("word", flat=True)), ["visselblåsare"])

    def test_editor_edits_a_term(self) -> None:
        term = self.add()
        self.login(self.bob)
        page = self.client.get(self.url("glossary_edit", term.pk))
        self.assertContains(page, 'value="rapporterande person"', html=False)
        r = self.client.post(self.url("glossary_edit", term.pk),
                             {"word": "visselblåsare", "law_words": "rapporterande person, visselblåsarlagen"})
        self.assertRedirects(r, self.url())
        term.refresh_from_db()
        self.assertEqual(term.law_words, "rapporterande person, visselblåsarlagen")
        bad = self.client.post(self.url("glossary_edit", term.pk), {"word": "visselblåsare", "law_words": ""})
        self.assertContains(bad, "Fyll i lagens ord.", status_code=400)
        term.refresh_from_db()
        self.assertEqual(term.law_words, "rapporterande person, visselblåsarlagen")

    def test_editor_deletes_a_term_after_a_confirmation(self) -> None:
        term = self.add()
        self.login(self.bob)
        confirm = self.client.get(self.url("glossary_delete", term.pk))
        self.assertContains(confirm, "Ta bort ”visselblåsare” ur ordlistan?")
        self.assertTrue(Term.objects.filter(pk=term.pk).exists())
        r = self.client.post(self.url("glossary_delete", term.pk))
        self.assertRedirects(r, self.url())
        self.assertFalse(Term.objects.filter(pk=term.pk).exists())
        self.assertContains(self.client.get(self.url()), "Ordlistan är tom.")

    def test_reader_and_revisor_see_the_list_but_cannot_write(self) -> None:
        term = self.add()
        for role in (Membership.Role.VIEWER, Membership.Role.AUDITOR):
            Membership.objects.filter(user=self.bob).update(role=role)
            self.login(self.bob)
            with self.subTest(role=role):
                page = self.client.get(self.url() + "?ord=mejl")
                self.assertContains(page, '<strong>visselblåsare</strong>', html=False)
                self.assertNotContains(page, 'name="word"')
                self.assertNotContains(page, self.url("glossary_edit", term.pk))
                self.assertEqual(self.client.post(self.url("glossary_add"),
                                                  {"word": "OVK", "law_words": "funktionskontroll"}).status_code, 403)
                for name in ("glossary_edit", "glossary_delete"):
                    self.assertEqual(self.client.get(self.url(name, term.pk)).status_code, 403)
                    self.assertEqual(self.client.post(self.url(name, term.pk),
                                                      {"word": "x", "law_words": "y"}).status_code, 403)
        self.assertEqual(list(Term.objects.values_list("word", "law_words")),
                         [("visselblåsare", "rapporterande person")])


class GlossaryAdminTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.term = services.term_create(workspace=cls.workspace, user=cls.alice, word="visselblåsare",
                                        law_words="rapporterande person")
        cls.charlies_term = services.term_create(workspace=cls.charlies_workspace, user=cls.charlie, word="OVK",
                                                 law_words="funktionskontroll av ventilationssystem")
        cls.root = make_user("root")
        cls.root.is_staff = cls.root.is_superuser = True
        cls.root.save()

    def test_staff_see_only_their_workspaces_terms(self) -> None:
        # charlie is staff with every glossary permission, but a member of his own workspace only.
        self.charlie.is_staff = True
        self.charlie.save()
        self.charlie.user_permissions.set(Permission.objects.filter(content_type__app_label="glossary"))
        self.login(self.charlie)
        listing = self.client.get(reverse("admin:glossary_term_changelist"))
        self.assertContains(listing, "OVK")
        self.assertNotContains(listing, "visselblåsare")
        self.assertEqual(self.client.get(reverse("admin:glossary_term_change", args=[self.term.pk])).status_code, 302)
        add = self.client.get(reverse("admin:glossary_term_add"))
        self.assertContains(add, "Charlies AB")
        self.assertNotContains(add, "Alices AB")

    def test_admin_writes_go_through_the_services(self) -> None:
        self.login(self.root)
        add = reverse("admin:glossary_term_add")
        r = self.client.post(add, {"workspace": self.workspace.pk, "word": "  friskvård ", "law_words": "personalvård"})
        self.assertEqual(r.status_code, 302, r.content[:2000])
        term = Term.objects.get(word="friskvård")  # tidied by the service
        self.assertEqual((term.workspace, term.created_by), (self.workspace, self.root))
        self.assertEqual(LogEntry.objects.get_for_object(term).get().actor, self.root)
        # The service's refusal is the form again, with its Swedish error, and nothing stored.
        refused = self.client.post(add, {"workspace": self.workspace.pk, "word": "mejl", "law_words": "mejl"})
        self.assertContains(refused, "Lagens ord är samma som ert ord")
        self.assertFalse(Term.objects.filter(word="mejl").exists())
        change = reverse("admin:glossary_term_change", args=[self.term.pk])
        refused = self.client.post(change, {"word": "Friskvård", "law_words": "rapporterande person"})
        self.assertContains(refused, "Ordet finns redan i ordlistan")
        self.assertEqual(self.client.post(change, {"word": "visselblåsare", "law_words": "rapporterande personer"})
                         .status_code, 302)
        self.term.refresh_from_db()
        self.assertEqual(self.term.law_words, "rapporterande personer")
        self.client.post(reverse("admin:glossary_term_delete", args=[self.term.pk]), {"post": "yes"})
        self.assertFalse(Term.objects.filter(pk=self.term.pk).exists())
        self.assertEqual(LogEntry.objects.filter(object_pk=str(self.term.pk), action=LogEntry.Action.DELETE,
                                                 content_type__app_label="glossary").get().actor, self.root)


@pytest.mark.clock
class DashboardLinkTests(BaseTestCase):
    def test_an_unknown_word_links_to_the_glossary_with_the_word(self) -> None:
        conversation = Conversation.objects.create(workspace=self.workspace, user=self.alice, title="X")
        message = Message.objects.create(conversation=conversation, role="assistant", content="svar",
                                         answer_mode="extractive")
        RetrievalLog.objects.create(workspace=self.workspace, message=message, answer_mode="extractive",
                                    intent="factual", query="Vad gäller för en visselblåsare?",
                                    unknown_words=["Visselblåsare"])
        self.login(self.alice)
        html = self.client.get(reverse("dashboard", args=[self.workspace.slug])).content.decode()
        self.assertIn(f'href="{reverse("glossary_list", args=[self.workspace.slug])}?ord=visselbl%C3%A5sare#lagg-till"',
                      html)
        self.assertNotIn("data-taught", html)
        # Taught since: the word shows as in the glossary at once, though the dashboard's figures are cached.
        services.term_create(workspace=self.workspace, user=self.alice, word="visselblåsare",
                             law_words="rapporterande person")
        html = self.client.get(reverse("dashboard", args=[self.workspace.slug])).content.decode()
        self.assertIn("data-taught>i ordlistan</a>", html)
        self.assertNotIn("?ord=visselbl%C3%A5sare", html)


class UnusedLawWordsTests(BaseTestCase):
    """The list says which of a term's law words no source uses: such a word finds nothing."""

    def test_a_law_word_no_source_uses_is_named(self) -> None:
        chunked_statute("2099:7", "Lag (2099:7) om inhyrning",
                        "1 § Den som anlitar inhyrd arbetskraft ska vidta de skyddsåtgärder som behövs.")
        services.term_create(workspace=self.workspace, user=self.alice, word="hyrpersonal",
                             law_words="inhyrd arbetskraft")
        services.term_create(workspace=self.workspace, user=self.alice, word="hyrfolk", law_words="inhurd arbetskraft")
        self.login(self.alice)
        page = self.client.get(reverse("glossary_list", args=[self.workspace.slug])).content.decode()
        rows = {word: page[page.index(f"<strong>{word}</strong>"):].split("</tr>")[0]
                for word in ("hyrpersonal", "hyrfolk")}
        self.assertNotIn("data-unused", rows["hyrpersonal"])
        self.assertIn("Ingen källa använder ”inhurd”:", rows["hyrfolk"])
        self.assertNotIn("”arbetskraft”", rows["hyrfolk"])


class CitedProvisionTests(BaseTestCase):
    """Law words may cite where the law says it: the list links a provision the knowledge base holds, and says so of
    one it lacks or one that names no act, since a question using the word would not get it."""

    def test_the_list_links_a_held_provision_and_names_a_missing_one(self) -> None:
        chunked_statute("2099:7", "Lag (2099:7) om inhyrning",
                        "1 § Den som anlitar inhyrd arbetskraft ska vidta de skyddsåtgärder som behövs.")
        for word, cited in (("hyrpersonal", "1 § lagen (2099:7) om inhyrning"),
                            ("hyrfolk", "9 § lagen (2099:7) om inhyrning"), ("inhyrda", "1 §"),
                            ("hyrbolag", "lagen (2098:1) om bemanning"), ("inhyrning", "1–3 §§ lagen (2099:7) om inhyrning")):
            services.term_create(workspace=self.workspace, user=self.alice, word=word,
                                 law_words=f"inhyrd arbetskraft ({cited})")
        self.login(self.alice)
        page = self.client.get(reverse("glossary_list", args=[self.workspace.slug])).content.decode()
        rows = {word: page[page.index(f"<strong>{word}</strong>"):].split("</tr>")[0]
                for word in ("hyrpersonal", "hyrfolk", "inhyrda", "hyrbolag", "inhyrning")}
        self.assertIn('Lagrum: <a href="/lag/2099:7#1">1 § lagen (2099:7) om inhyrning</a>', rows["hyrpersonal"])
        self.assertNotIn("data-missing-provision", rows["hyrpersonal"])
        self.assertIn("”9 § lagen (2099:7) om inhyrning” finns inte i kunskapsbasen", rows["hyrfolk"])
        self.assertIn("”lagen (2098:1) om bemanning” finns inte i kunskapsbasen", rows["hyrbolag"])
        self.assertIn("”1 §” säger inte vilken lag det gäller", rows["inhyrda"])
        # A range is one citation: linked once, its units the knowledge base lacks named.
        self.assertEqual(rows["inhyrning"].count("data-provision"), 1)
        self.assertIn("Av ”1–3 §§ lagen (2099:7) om inhyrning” finns 2 §, 3 § inte i kunskapsbasen",
                      rows["inhyrning"])
        for word, row in rows.items():
            with self.subTest(word=word):
                # The citation's own words ("lagen", "inhyrning") are not law words to find.
                self.assertNotIn("data-unused", row)
                self.assertEqual(row.count("data-provision") + row.count("data-missing-provision"),
                                 2 if word == "inhyrning" else 1)

    def test_a_cited_chapter_is_linked_or_named_missing(self) -> None:
        chunked_statute("2099:8", "Lag (2099:8) om bemanning",
                        "1 kap. Inledande bestämmelser\n\n1 § Denna lag gäller bemanning.\n\n"
                        "2 kap. Inhyrning\n\n1 § Den som anlitar inhyrd arbetskraft ska vidta skyddsåtgärder.")
        services.term_create(workspace=self.workspace, user=self.alice, word="hyrpersonal",
                             law_words="inhyrd arbetskraft (2 kap. lagen (2099:8) om bemanning)")
        services.term_create(workspace=self.workspace, user=self.alice, word="hyrfolk",
                             law_words="inhyrd arbetskraft (9 kap. lagen (2099:8) om bemanning)")
        self.login(self.alice)
        page = self.client.get(reverse("glossary_list", args=[self.workspace.slug])).content.decode()
        self.assertIn('Lagrum: <a href="/lag/2099:8#2kap">2 kap. lagen (2099:8) om bemanning</a>', page)
        self.assertIn("”9 kap. lagen (2099:8) om bemanning” finns inte i kunskapsbasen", page)

    def test_every_citation_of_a_long_glossary_is_checked(self) -> None:
        """More cited units than one question's exact search reads (50): each is still found."""
        chunked_statute("2099:9", "Lag (2099:9) om många paragrafer",
                        "\n\n".join(f"{n} § Arbetsgivaren ska dokumentera åtgärd nummer {n}." for n in range(1, 61)))
        for n in range(1, 61):
            services.term_create(workspace=self.workspace, user=self.alice, word=f"åtgärd{n}",
                                 law_words=f"dokumentera ({n} § lagen (2099:9) om många paragrafer)")
        self.login(self.alice)
        page = self.client.get(reverse("glossary_list", args=[self.workspace.slug])).content.decode()
        self.assertEqual(page.count("data-provision"), 60)
        self.assertNotIn("data-missing-provision", page)


class StatutePageLinkTests(BaseTestCase):
    """A statute page's § links to the Ordlista form with the provision as law words that cite it; the person goes
    back to that § once the word is added."""

    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.doc = chunked_statute("2099:7", "Lag (2099:7) om inhyrning",
                                  "1 § Den som anlitar inhyrd arbetskraft ska vidta de skyddsåtgärder som behövs.\n\n"
                                  "2 § Den som hyr ut arbetskraft ska informera om riskerna.")

    def url(self, **params: str) -> str:
        return reverse("glossary_list", args=[self.workspace.slug]) + ("?" + urlencode(params) if params else "")

    def test_the_pointed_provision_fills_in_the_law_words(self) -> None:
        self.login(self.bob)
        page = self.client.get(self.url(forfattning="2099:7", enhet="2 §"))
        self.assertContains(page, 'name="law_words" value="2 § lagen om inhyrning"', html=False)
        self.assertContains(page, "Lagens ord hänvisar till 2 § lagen om inhyrning")
        self.assertContains(page, '<input type="hidden" name="forfattning" value="2099:7">', html=False)
        self.assertContains(page, '<input type="hidden" name="tillbaka" value="/lag/2099:7#2">', html=False)

    def test_a_provision_no_citation_reaches_fills_in_nothing(self) -> None:
        self.login(self.bob)
        for params in ({"forfattning": "2098:1", "enhet": "2 §"}, {"forfattning": "2099:7", "enhet": "<b>2 §</b>"},
                       {"forfattning": "2099:7", "enhet": ""}, {"enhet": "2 §"}):
            with self.subTest(params=params):
                html = self.client.get(self.url(**params)).content.decode()
                self.assertIn('name="law_words"', html)
                self.assertNotIn('name="law_words" value=', html)
                self.assertNotIn("data-pointed", html)
                self.assertNotIn("<b>2", html)

    def test_the_word_is_added_and_the_person_goes_back_to_the_section(self) -> None:
        self.login(self.bob)
        refused = self.client.post(reverse("glossary_add", args=[self.workspace.slug]), {
            "word": "", "law_words": "2 § lagen (2099:7) om inhyrning", "forfattning": "2099:7", "enhet": "2 §"})
        self.assertContains(refused, "Fyll i ert ord.", status_code=400)
        self.assertContains(refused, "data-pointed", status_code=400)
        self.assertContains(refused, 'name="tillbaka" value="/lag/2099:7#2"', status_code=400, html=False)
        r = self.client.post(reverse("glossary_add", args=[self.workspace.slug]), {
            "word": "hyrbolag", "law_words": "uthyrning (2 § lagen (2099:7) om inhyrning)", "forfattning": "2099:7",
            "enhet": "2 §"})
        self.assertRedirects(r, "/lag/2099:7#2", fetch_redirect_response=False)
        term = Term.objects.get(workspace=self.workspace, word="hyrbolag")
        self.assertEqual(term.law_words, "uthyrning (2 § lagen (2099:7) om inhyrning)")

    def test_only_a_statute_page_or_the_workspace_is_a_way_back(self) -> None:
        self.login(self.bob)
        for i, back in enumerate(("/lag/2099:7", "/lag/2099:7#1", f"/ws/{self.workspace.slug}/chatt/")):
            with self.subTest(back=back):
                r = self.client.post(reverse("glossary_add", args=[self.workspace.slug]),
                                     {"word": f"ord{i}a", "law_words": "arbetsgivare", "tillbaka": back})
                self.assertRedirects(r, back, fetch_redirect_response=False)
        for i, back in enumerate(("/lag/", "/admin/", "lag/2099:7", "/lag/2099:7/../../admin/", "https://x.se/lag/2099:7")):
            with self.subTest(back=back):
                r = self.client.post(reverse("glossary_add", args=[self.workspace.slug]),
                                     {"word": f"ord{i}b", "law_words": "arbetsgivare", "tillbaka": back})
                self.assertRedirects(r, self.url(), fetch_redirect_response=False)
