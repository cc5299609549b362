from __future__ import annotations

from compliance.models import LegalDocument

from .base import API, ApiTestCase, assert_error


class StatuteTests(ApiTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.auth(self.charlie)  # shared: any authenticated user

    def sfs_numbers(self, query: str = "") -> list[str]:
        response = self.client.get(f"{API}/statutes/{query}")
        self.assertEqual(response.status_code, 200, response.content)
        return [s["sfs_number"] for s in response.json()["results"]]

    def test_list_filters_and_orders(self) -> None:
        self.assertEqual(self.sfs_numbers(), ["1977:1160", "1977:1166"])
        self.assertEqual(self.sfs_numbers("?ordering=-sfs_number"), ["1977:1166", "1977:1160"])
        self.assertEqual(self.sfs_numbers("?sfs=1977:1160"), ["1977:1160"])
        self.assertEqual(self.sfs_numbers("?sfs=1977"), ["1977:1160", "1977:1166"])
        self.assertEqual(self.sfs_numbers("?sfs=1978"), [])
        self.assertEqual(self.sfs_numbers("?content_type=SFS_ORDINANCE"), ["1977:1166"])
        self.assertEqual(self.sfs_numbers("?q=förordning"), ["1977:1166"])
        self.assertEqual(self.sfs_numbers("?q=AML"), ["1977:1160"])
        self.assertEqual(self.sfs_numbers("?q=arbetsmiljölagen"), ["1977:1160"])
        self.assertEqual(self.sfs_numbers("?ordering=nonsense"), ["1977:1160", "1977:1166"])

    def test_pagination(self) -> None:
        body = self.client.get(f"{API}/statutes/?page_size=1&page=2").json()
        self.assertEqual((body["count"], len(body["results"])), (2, 1))
        self.assertIsNotNone(body["previous"])
        assert_error(self, self.client.get(f"{API}/statutes/?page=99"), 404, "not_found")

    def test_bad_filters_are_400(self) -> None:
        for query in ("?sfs=abc", "?content_type=LAW", "?q=a%00b", "?sfs=1977:1160%00", "?q=" + "x" * 300):
            with self.subTest(query=query):
                assert_error(self, self.client.get(f"{API}/statutes/{query}"), 400, "invalid")

    def test_detail_groups_split_sections(self) -> None:
        body = self.client.get(f"{API}/statutes/1977:1160/").json()
        self.assertEqual(body["title"], "Arbetsmiljölag (1977:1160)")
        self.assertNotIn("full_text", body)
        self.assertEqual([s["citation"] for s in body["sections"]], ["1 kap. 1 §", "3 kap. 2 a §"])
        self.assertEqual(body["sections"][1]["text"], "Första delen.\n\nAndra delen.")
        self.assertEqual(body["sections"][1]["header"], "AML > 3 kap. > 2 a §")

    def test_detail_says_whose_own_work_a_statute_governs(self) -> None:
        self.assertEqual(self.client.get(f"{API}/statutes/1977:1160/").json()["addressee"], "")
        LegalDocument.objects.filter(sfs_number="1977:1166").update(addressee="Arbetsmiljöverket")
        self.assertEqual(self.client.get(f"{API}/statutes/1977:1166/").json()["addressee"], "Arbetsmiljöverket")

    def test_unknown_or_malformed_sfs_is_404(self) -> None:
        for sfs in ("1999:1", "nonsense", "1977:1160%00", "%F0%9F%92%A9"):
            with self.subTest(sfs=sfs):
                assert_error(self, self.client.get(f"{API}/statutes/{sfs}/"), 404, "not_found")
