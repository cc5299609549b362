"""The glossary's REST API: list, add, change and remove terms; the service's validation in the one error shape
(nothing stored); a duplicate word a 409; readers and revisors refused on writes; another workspace's terms a 404
and never listed; the routes in the OpenAPI schema."""

from __future__ import annotations

from django.http import HttpResponse

from compliance.models import Membership
from glossary import services
from glossary.models import Term
from tests.api.base import API, ApiTestCase, assert_error
from tests.helpers import chunked_statute, make_member

GLOSSARY = f"{API}/workspaces/alices-ab/glossary"
CGLOSSARY = f"{API}/workspaces/charlies-ab/glossary"


class GlossaryApiTestCase(ApiTestCase):
    """alice owns, bob edits, dave reads, erin is the revisor; charlie has a workspace and a glossary of his own."""

    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.dave = make_member(cls.workspace, "dave", Membership.Role.VIEWER)
        cls.erin = make_member(cls.workspace, "erin", Membership.Role.AUDITOR)
        cls.term = services.term_create(workspace=cls.workspace, user=cls.alice, word="visselblåsare",
                                        law_words="rapporterande person")
        cls.charlie_term = services.term_create(workspace=cls.charlies_workspace, user=cls.charlie, word="OVK",
                                                law_words="funktionskontroll av ventilationssystem")

    def stored(self) -> list[tuple[int, str, str]]:
        return list(Term.objects.order_by("pk").values_list("workspace_id", "word", "law_words"))


class GlossaryApiTests(GlossaryApiTestCase):
    def test_list_create_update_delete(self) -> None:
        self.auth(self.bob)
        response = self.client.post(f"{GLOSSARY}/", {"word": " friskvårdsbidrag ", "law_words": "personalvårdsförmån"},
                                    format="json")
        self.assertEqual(response.status_code, 201, response.content)
        created = response.json()
        self.assertEqual(set(created), {"id", "word", "law_words", "provisions", "unused_law_words", "created_by",
                                        "created_at", "updated_at"})
        # Stored as the service cleans it.
        self.assertEqual((created["word"], created["law_words"], created["created_by"]),
                         ("friskvårdsbidrag", "personalvårdsförmån", "bob"))
        url = f"{GLOSSARY}/{created['id']}/"

        body = self.client.get(f"{GLOSSARY}/").json()
        self.assertEqual(body["count"], 2)
        self.assertEqual([t["word"] for t in body["results"]], ["friskvårdsbidrag", "visselblåsare"])
        self.assertEqual(self.client.get(url).json(), created)

        # PATCH keeps what it leaves out; PUT replaces both.
        response = self.client.patch(url, {"law_words": "förmån av personalvårdskaraktär"}, format="json")
        self.assertEqual(response.status_code, 200, response.content)
        self.assertEqual((response.json()["word"], response.json()["law_words"]),
                         ("friskvårdsbidrag", "förmån av personalvårdskaraktär"))
        response = self.client.put(url, {"word": "Friskvård", "law_words": "personalvårdsförmån"}, format="json")
        self.assertEqual(response.status_code, 200, response.content)
        self.assertEqual(Term.objects.filter(pk=created["id"]).values_list("word", "law_words").get(),
                         ("Friskvård", "personalvårdsförmån"))
        error = assert_error(self, self.client.put(url, {"word": "Friskvård"}, format="json"), 400, "invalid")
        self.assertIn("law_words", error["details"])

        self.assertEqual(self.client.delete(url).status_code, 204)
        self.assertFalse(Term.objects.filter(pk=created["id"]).exists())
        assert_error(self, self.client.get(url), 404, "not_found")

    def test_the_list_filters_on_both_words(self) -> None:
        services.term_create(workspace=self.workspace, user=self.alice, word="hyrpersonal",
                             law_words="inhyrd arbetskraft")
        self.auth(self.dave)
        for query, words in (("PERSON", ["hyrpersonal", "visselblåsare"]), ("inhyrd", ["hyrpersonal"]),
                             ("ovk", []), ("", ["hyrpersonal", "visselblåsare"])):
            with self.subTest(query=query):
                body = self.client.get(f"{GLOSSARY}/", {"q": query}).json()
                self.assertEqual([t["word"] for t in body["results"]], words)
        error = assert_error(self, self.client.get(f"{GLOSSARY}/", {"q": "x" * 101}), 400, "invalid")
        self.assertIn("q", error["details"])

    def test_bad_input_is_the_services_error_on_its_field_and_stores_nothing(self) -> None:
        self.auth(self.alice)
        before = self.stored()
        cases = [
            ({"word": "", "law_words": "rapporterande person"}, "required", "word", "Fyll i ert ord."),
            ({"word": "   ", "law_words": "rapporterande person"}, "required", "word", "Fyll i ert ord."),
            ({"word": "och", "law_words": "rapporterande person"}, "stop_words", "word",
             "Ert ord består bara av småord som sökningen bortser från."),
            ({"word": "OVK", "law_words": "att och"}, "stop_words", "law_words",
             "Lagens ord består bara av småord som sökningen bortser från."),
            ({"word": "Anställd", "law_words": "anställd"}, "same_words", "law_words",
             "Lagens ord är samma som ert ord; skriv vad lagen kallar det."),
            ({"word": "a" * 101, "law_words": "rapporterande person"}, "too_long", "word",
             "Ert ord får vara högst 100 tecken."),
            ({"word": "OVK", "law_words": "b" * 201}, "too_long", "law_words",
             "Lagens ord får vara högst 200 tecken."),
        ]
        for body, code, field, message in cases:
            with self.subTest(body=body):
                error = assert_error(self, self.client.post(f"{GLOSSARY}/", body, format="json"), 400, code)
                self.assertEqual(error["message"], message)
                self.assertEqual(error["details"], {field: [message]})
                error = assert_error(self, self.client.put(f"{GLOSSARY}/{self.term.pk}/", body, format="json"),
                                     400, code)
                self.assertEqual(error["details"], {field: [message]})
        # Types and required fields are the serializer's, in the same shape.
        for body in ({"word": 5, "law_words": "x"}, {"word": ["x"], "law_words": "x"}, {"law_words": "x"},
                     {"word": None, "law_words": "x"}):
            with self.subTest(body=body):
                error = assert_error(self, self.client.post(f"{GLOSSARY}/", body, format="json"), 400, "invalid")
                self.assertEqual(list(error["details"]), ["word"])
        self.assertEqual(self.stored(), before)

    def test_a_word_the_glossary_has_is_409_whatever_its_case(self) -> None:
        self.auth(self.bob)
        other = services.term_create(workspace=self.workspace, user=self.alice, word="OVK",
                                     law_words="funktionskontroll av ventilationssystem")
        before = self.stored()
        message = "Ordet finns redan i ordlistan; ändra det i stället."
        error = assert_error(self, self.client.post(f"{GLOSSARY}/", {"word": "VisselBLÅSARE", "law_words": "larm"},
                                                    format="json"), 409, "duplicate")
        self.assertEqual(error["details"], {"word": [message]})
        error = assert_error(self, self.client.patch(f"{GLOSSARY}/{other.pk}/", {"word": "Visselblåsare"},
                                                     format="json"), 409, "duplicate")
        self.assertEqual(error["details"], {"word": [message]})
        self.assertEqual(self.stored(), before)
        # Charlie's "OVK" is his workspace's word, not alice's: no conflict across workspaces.
        self.assertEqual(self.client.patch(f"{GLOSSARY}/{other.pk}/", {"word": "ovk"}, format="json").status_code,
                         200)

    def test_readers_and_revisors_read_but_get_403_on_writes(self) -> None:
        before = self.stored()
        url = f"{GLOSSARY}/{self.term.pk}/"
        body = {"word": "larmare", "law_words": "rapporterande person"}
        for user in (self.dave, self.erin):
            self.auth(user)
            with self.subTest(user=user.username):
                self.assertEqual(self.client.get(f"{GLOSSARY}/").json()["count"], 1)
                self.assertEqual(self.client.get(url).json()["word"], "visselblåsare")
                assert_error(self, self.client.post(f"{GLOSSARY}/", body, format="json"), 403, "permission_denied")
                assert_error(self, self.client.put(url, body, format="json"), 403, "permission_denied")
                assert_error(self, self.client.patch(url, body, format="json"), 403, "permission_denied")
                assert_error(self, self.client.delete(url), 403, "permission_denied")
        self.assertEqual(self.stored(), before)

    def test_it_checks_ownership(self) -> None:
        before = self.stored()
        body = {"word": "larmare", "law_words": "rapporterande person"}
        self.auth(self.alice)
        # Charlie's term through alice's own workspace, and charlie's workspace itself: both 404.
        for url in (f"{GLOSSARY}/{self.charlie_term.pk}/", f"{CGLOSSARY}/{self.charlie_term.pk}/"):
            with self.subTest(url=url):
                assert_error(self, self.client.get(url), 404, "not_found")
                assert_error(self, self.client.put(url, body, format="json"), 404, "not_found")
                assert_error(self, self.client.patch(url, body, format="json"), 404, "not_found")
                assert_error(self, self.client.delete(url), 404, "not_found")
        assert_error(self, self.client.get(f"{CGLOSSARY}/"), 404, "not_found")
        assert_error(self, self.client.post(f"{CGLOSSARY}/", body, format="json"), 404, "not_found")
        self.assertEqual([t["id"] for t in self.client.get(f"{GLOSSARY}/").json()["results"]], [self.term.pk])
        # A reader asking for another workspace's term: the 404 comes before the role's 403.
        self.auth(self.dave)
        assert_error(self, self.client.delete(f"{GLOSSARY}/{self.charlie_term.pk}/"), 404, "not_found")
        # And the outsider sees nothing of alice's.
        self.auth(self.charlie)
        assert_error(self, self.client.get(f"{GLOSSARY}/"), 404, "not_found")
        assert_error(self, self.client.get(f"{GLOSSARY}/{self.term.pk}/"), 404, "not_found")
        assert_error(self, self.client.delete(f"{GLOSSARY}/{self.term.pk}/"), 404, "not_found")
        self.assertEqual(self.stored(), before)

    def test_unauthenticated_is_401(self) -> None:
        calls: list[HttpResponse] = [
            self.client.get(f"{GLOSSARY}/"),
            self.client.post(f"{GLOSSARY}/", {"word": "larmare", "law_words": "rapporterande person"}, format="json"),
            self.client.get(f"{GLOSSARY}/{self.term.pk}/"),
            self.client.patch(f"{GLOSSARY}/{self.term.pk}/", {"word": "larmare"}, format="json"),
            self.client.delete(f"{GLOSSARY}/{self.term.pk}/"),
        ]
        for response in calls:
            with self.subTest(method=response.request["REQUEST_METHOD"]):
                assert_error(self, response, 401, "not_authenticated")
                self.assertEqual(response["WWW-Authenticate"], "Bearer")

    def test_the_schema_documents_the_routes(self) -> None:
        paths = self.client.get(f"{API}/schema/?format=json").json()["paths"]
        methods = {path: {m for m in ops if m != "parameters"} for path, ops in paths.items() if "/glossary/" in path}
        self.assertEqual(methods, {
            "/api/v1/workspaces/{slug}/glossary/": {"get", "post"},
            "/api/v1/workspaces/{slug}/glossary/{term_id}/": {"get", "put", "patch", "delete"},
            "/api/v1/workspaces/{slug}/glossary/export/{fmt}": {"get"},
            "/api/v1/workspaces/{slug}/glossary/import/": {"post"},
        })
        imported = paths["/api/v1/workspaces/{slug}/glossary/import/"]["post"]
        self.assertEqual((imported["tags"], list(imported["requestBody"]["content"])),
                         (["glossary"], ["multipart/form-data", "application/x-www-form-urlencoded"]))
        self.assertEqual(set(paths["/api/v1/workspaces/{slug}/glossary/export/{fmt}"]["get"]["responses"]["200"]
                             ["content"]), {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                                            "text/csv"})
        create = paths["/api/v1/workspaces/{slug}/glossary/"]["post"]
        self.assertEqual(create["tags"], ["glossary"])
        self.assertIn("201", create["responses"])
        self.assertEqual(create["responses"]["403"]["content"]["application/json"]["schema"],
                         {"$ref": "#/components/schemas/Error"})


class LawWordsCheckApiTests(GlossaryApiTestCase):
    def test_a_term_says_what_its_law_words_cite_and_which_find_nothing(self) -> None:
        """As the Ordlista page does: the provisions cited, held or not, and the law's words no source uses."""
        chunked_statute("2099:7", "Lag (2099:7) om inhyrning",
                        "1 § Den som anlitar inhyrd arbetskraft ska vidta de skyddsåtgärder som behövs.")
        self.auth(self.bob)
        held = self.client.post(f"{GLOSSARY}/", {"word": "hyrpersonal",
                                                 "law_words": "inhyrd arbetskraft (1 § lagen (2099:7) om inhyrning)"},
                                format="json").json()
        self.assertEqual(held["provisions"], [{"written": "1 § lagen (2099:7) om inhyrning",
                                               "document_number": "2099:7", "citation": "1 §", "held": True,
                                               "missing": []}])
        self.assertEqual(held["unused_law_words"], [])
        missing = self.client.patch(f"{GLOSSARY}/{held['id']}/", {"law_words": "inhurd arbetskraft (9 § lagen "
                                                                                "(2099:7) om inhyrning)"},
                                    format="json").json()
        self.assertEqual(missing["provisions"], [{"written": "9 § lagen (2099:7) om inhyrning",
                                                  "document_number": "2099:7", "citation": "9 §", "held": False,
                                                  "missing": []}])
        self.assertEqual(missing["unused_law_words"], ["inhurd"])
        listed = {t["word"]: t for t in self.client.get(f"{GLOSSARY}/").json()["results"]}
        self.assertEqual(listed["hyrpersonal"], self.client.get(f"{GLOSSARY}/{held['id']}/").json())
        self.assertEqual(listed["visselblåsare"]["provisions"], [])
