"""The register's REST API: every route's happy path, readers and revisors refused on writes (403, nothing
written), another workspace's objects a 404, bad input a structured 400, all in the one error shape."""

from __future__ import annotations

from datetime import datetime

import pytest
import time_machine
from auditlog.models import LogEntry
from django.contrib.auth.models import User
from django.core.cache import cache
from rest_framework.test import APIClient

from compliance.clock import STOCKHOLM
from compliance.services import api_token_create
from register import services
from register.models import Action, Evidence, RegisterItem, Requirement, Review
from tests.api.base import assert_error

from .base import RegisterTestCase

pytestmark = pytest.mark.clock

REG = "/api/v1/workspaces/alices-ab/register"
CREG = "/api/v1/workspaces/charlies-ab/register"


class RegisterApiTestCase(RegisterTestCase):
    client_class = APIClient

    def setUp(self) -> None:
        super().setUp()
        cache.clear()  # throttling counters

    def auth(self, user: User) -> None:
        key = api_token_create(user=user, name="test").key
        self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")

    def build(self) -> None:
        """A register with a group, an item with a kravpunkt and evidence, an open review and an action."""
        self.register = self.make_register()
        self.group = services.register_group_get_or_create(register=self.register, user=self.alice,
                                                           name="Arbetsmiljö")
        self.item = self.make_item(self.register, group=self.group, responsible=self.bob)
        self.requirement = self.make_requirement(self.item, section_ref="3 kap. 2 a §", needs_evidence=True)
        self.evidence = services.evidence_add(requirement=self.requirement, user=self.alice, kind="file",
                                              user_file=self.policy)
        self.review = services.review_start(register=self.register, user=self.alice, title="Kontroll 2026")
        self.entry = self.review.entries.get()
        self.action = services.action_create(workspace=self.workspace, user=self.alice, title="Skyddsrond",
                                             item=self.item)


class RegisterAndItemApiTests(RegisterApiTestCase):
    def test_register_and_group_create_and_list(self) -> None:
        self.auth(self.bob)
        response = self.client.post(f"{REG}/registers/", {"name": "Miljö", "description": "ISO 14001"}, format="json")
        self.assertEqual(response.status_code, 201, response.content)
        register_id = response.json()["id"]
        response = self.client.post(f"{REG}/registers/{register_id}/groups/", {"name": "Avfall"}, format="json")
        self.assertEqual((response.status_code, response.json()["name"]), (201, "Avfall"))
        self.assertEqual([g["name"] for g in self.client.get(f"{REG}/registers/{register_id}/groups/").json()],
                         ["Avfall"])
        body = self.client.get(f"{REG}/registers/").json()
        self.assertEqual((body["count"], body["results"][0]["name"], body["results"][0]["item_count"]),
                         (1, "Miljö", 0))
        self.assertEqual(self.client.get(f"{REG}/registers/{register_id}/").json()["description"], "ISO 14001")
        error = assert_error(self, self.client.post(f"{REG}/registers/", {"name": "miljö"}, format="json"), 400,
                             "name_taken")
        self.assertEqual(error["details"], {"field": "name"})

    def test_item_create_is_idempotent_and_reads_back(self) -> None:
        self.register = self.make_register()
        group = services.register_group_get_or_create(register=self.register, user=self.alice, name="Arbetsmiljö")
        self.auth(self.bob)
        body = {"register": self.register.pk, "legal_document": "1977:1160", "group": group.pk,
                "reason": "Vi har anställda", "responsible": "bob"}
        first = self.client.post(f"{REG}/items/", body, format="json")
        self.assertEqual(first.status_code, 201, first.content)
        data = first.json()
        self.assertEqual((data["legal_document"]["sfs_number"], data["legal_document"]["kind"], data["group"]["name"],
                          data["responsible"]["username"], data["status"], data["status_label"], data["origin"]),
                         ("1977:1160", "Lag", "Arbetsmiljö", "bob", "not_assessed", "ej bedömd", "manual"))
        again = self.client.post(f"{REG}/items/", body, format="json")
        self.assertEqual((again.status_code, again.json()["id"]), (200, data["id"]))
        self.assertEqual(RegisterItem.objects.count(), 1)

    def test_item_create_without_register_uses_the_default(self) -> None:
        self.auth(self.alice)
        response = self.client.post(f"{REG}/items/", {"legal_document": "AFS 2023:1"}, format="json")
        self.assertEqual(response.status_code, 201, response.content)
        item = RegisterItem.objects.get()
        self.assertEqual((item.register.name, item.legal_document, item.workspace), ("Laglista", self.afs,
                                                                                     self.workspace))

    def test_item_create_bad_input(self) -> None:
        self.register = self.make_register()
        charlies = services.register_create(workspace=self.charlies_workspace, user=self.charlie, name="C")
        charlies_group = services.register_group_get_or_create(register=charlies, user=self.charlie, name="G")
        self.auth(self.alice)
        cases = [
            ({"legal_document": "lagen"}, "legal_document"),
            ({"legal_document": "1999:999"}, "legal_document"),
            ({"legal_document": "1977:1160", "responsible": "charlie"}, "responsible"),
            ({"legal_document": "1977:1160", "register": charlies.pk}, "register"),
            ({"legal_document": "1977:1160", "register": self.register.pk, "group": charlies_group.pk}, "group"),
            ({"legal_document": "1977:1160", "reason": "x" * 20_001}, "reason"),
            ({"legal_document": 1977}, "legal_document"),
        ]
        for body, field in cases:
            with self.subTest(field=field, body=str(body)[:60]):
                error = assert_error(self, self.client.post(f"{REG}/items/", body, format="json"), 400, "invalid")
                self.assertIn(field, error["details"])
        error = assert_error(self, self.client.post(f"{REG}/items/", {}, format="json"), 400, "document_required")
        self.assertEqual(error["details"], {"field": "legal_document"})
        self.assertFalse(RegisterItem.objects.exists())

    @time_machine.travel(datetime(2026, 3, 2, 12, 0, tzinfo=STOCKHOLM), tick=False)
    def test_item_detail_patch_delete(self) -> None:
        self.build()
        self.auth(self.bob)
        detail = self.client.get(f"{REG}/items/{self.item.pk}/").json()
        self.assertEqual(detail["requirements"][0]["section_ref"], "3 kap. 2 a §")
        self.assertEqual(detail["requirements"][0]["evidence"][0]["label"], "Arbetsmiljöpolicy")
        response = self.client.patch(f"{REG}/items/{self.item.pk}/",
                                     {"status": "partial", "how_we_comply": "Rutin R1", "responsible": None,
                                      "next_review_date": "2027-01-31"}, format="json")
        self.assertEqual(response.status_code, 200, response.content)
        data = response.json()
        self.assertEqual((data["status"], data["how_we_comply"], data["responsible"], data["last_reviewed_at"],
                          data["last_reviewed_by"]["username"], data["next_review_date"]),
                         ("partial", "Rutin R1", None, "2026-03-02", "bob", "2027-01-31"))
        error = assert_error(self, self.client.patch(f"{REG}/items/{self.item.pk}/", {"next_review_date": "31/1"},
                                                     format="json"), 400, "invalid")
        self.assertIn("next_review_date", error["details"])
        assert_error(self, self.client.patch(f"{REG}/items/{self.item.pk}/", {"status": "bra"}, format="json"), 400,
                     "invalid")
        self.assertEqual(self.client.delete(f"{REG}/items/{self.item.pk}/").status_code, 204)
        self.assertFalse(RegisterItem.objects.filter(pk=self.item.pk).exists())
        assert_error(self, self.client.get(f"{REG}/items/{self.item.pk}/"), 404, "not_found")

    def test_item_list_filters(self) -> None:
        self.register = self.make_register()
        group = services.register_group_get_or_create(register=self.register, user=self.alice, name="Dataskydd")
        aml = self.make_item(self.register, self.aml, responsible=self.bob)
        gdpr = self.make_item(self.register, self.gdpr, group=group)
        afs = self.make_item(self.register, self.afs)
        services.register_item_update(item=afs, user=self.alice, data={"status": "compliant"})
        self.auth(self.erin)  # a revisor reads

        def ids(query: str) -> set[int]:
            response = self.client.get(f"{REG}/items/{query}")
            self.assertEqual(response.status_code, 200, response.content)
            return {row["id"] for row in response.json()["results"]}

        self.assertEqual(ids(""), {aml.pk, gdpr.pk, afs.pk})
        self.assertEqual(ids(f"?group={group.pk}"), {gdpr.pk})
        self.assertEqual(ids("?status=compliant"), {afs.pk})
        self.assertEqual(ids(f"?responsible={self.bob.pk}"), {aml.pk})
        self.assertEqual(ids("?kind=EU_REGULATION"), {gdpr.pk})
        self.assertEqual(ids("?q=arbetsmilj"), {aml.pk, afs.pk})
        self.assertEqual(ids(f"?register={self.register.pk}&status=not_assessed"), {aml.pk, gdpr.pk})
        for query, field in (("?status=bra", "status"), ("?kind=lag", "kind"), ("?group=x", "group"),
                             ("?q=" + "x" * 201, "q")):
            with self.subTest(query=query[:20]):
                error = assert_error(self, self.client.get(f"{REG}/items/{query}"), 400, "invalid")
                self.assertIn(field, error["details"])
        charlies = services.register_create(workspace=self.charlies_workspace, user=self.charlie, name="C")
        assert_error(self, self.client.get(f"{REG}/items/?register={charlies.pk}"), 404, "not_found")


class RequirementAndEvidenceApiTests(RegisterApiTestCase):
    def test_requirement_crud(self) -> None:
        self.build()
        self.auth(self.bob)
        response = self.client.post(f"{REG}/items/{self.item.pk}/requirements/",
                                    {"title": "Skyddsombud", "section_ref": "6 kap. 2 §", "owner": str(self.bob.pk),
                                     "due_date": "2026-12-31", "needs_evidence": True}, format="json")
        self.assertEqual(response.status_code, 201, response.content)
        data = response.json()
        self.assertEqual((data["owner"]["username"], data["due_date"], data["position"], data["evidence"]),
                         ("bob", "2026-12-31", 1, []))
        listed = self.client.get(f"{REG}/items/{self.item.pk}/requirements/").json()
        self.assertEqual([r["title"] for r in listed], ["Undersöka risker", "Skyddsombud"])
        response = self.client.patch(f"{REG}/requirements/{data['id']}/", {"status": "non_compliant"}, format="json")
        self.assertEqual((response.status_code, response.json()["status_label"]), (200, "uppfylls inte"))
        assert_error(self, self.client.patch(f"{REG}/requirements/{data['id']}/", {"owner": "charlie"},
                                             format="json"), 400, "invalid")
        assert_error(self, self.client.post(f"{REG}/items/{self.item.pk}/requirements/", {"title": ""},
                                            format="json"), 400, "invalid")
        self.assertEqual(self.client.delete(f"{REG}/requirements/{data['id']}/").status_code, 204)
        self.assertEqual(Requirement.objects.count(), 1)

    def test_evidence_add_list_delete(self) -> None:
        self.build()
        self.auth(self.bob)
        url = f"{REG}/requirements/{self.requirement.pk}/evidence/"
        external = self.client.post(url, {"kind": "external", "reference": "Pärm 3, flik 2"}, format="json")
        self.assertEqual((external.status_code, external.json()["label"]), (201, "Pärm 3, flik 2"))
        assessment = self.client.post(url, {"kind": "assessment", "assessment": self.assessment.pk}, format="json")
        self.assertEqual((assessment.status_code, assessment.json()["label"]), (201, "Riskbedömning"))
        self.assertEqual(len(self.client.get(url).json()), 3)
        self.assertEqual(self.client.get(f"{REG}/evidence/{self.evidence.pk}/").json()["user_file"], self.policy.pk)
        self.assertEqual(self.client.delete(f"{REG}/evidence/{external.json()['id']}/").status_code, 204)
        self.assertEqual(Evidence.objects.count(), 2)

    def test_evidence_of_another_workspace_is_refused(self) -> None:
        self.build()
        self.auth(self.alice)
        url = f"{REG}/requirements/{self.requirement.pk}/evidence/"
        before = Evidence.objects.count()
        for body, code in (({"kind": "file", "user_file": self.charlie_file.pk}, "unknown_file"),
                           ({"kind": "file", "user_file": 10**12}, "unknown_file"),
                           ({"kind": "assessment", "assessment": self.charlie_assessment.pk}, "unknown_assessment"),
                           ({"kind": "external", "reference": ""}, "reference_required"),
                           ({"kind": "rykte"}, "invalid")):
            with self.subTest(code=code):
                assert_error(self, self.client.post(url, body, format="json"), 400, code)
        self.assertEqual(Evidence.objects.count(), before)

    def test_private_file_title_hidden_from_revisor(self) -> None:
        self.build()
        private = services.evidence_add(requirement=self.requirement, user=self.alice, kind="file",
                                        user_file=self.private_file)
        self.auth(self.erin)
        labels = [e["label"] for e in self.client.get(f"{REG}/items/{self.item.pk}/").json()["requirements"][0]
                  ["evidence"]]
        self.assertEqual(labels, ["Arbetsmiljöpolicy", "Privat fil"])
        self.assertEqual(self.client.get(f"{REG}/evidence/{private.pk}/").json()["label"], "Privat fil")
        history = self.client.get(f"{REG}/items/{self.item.pk}/history/")
        self.assertNotIn("Hemlig lönelista", history.content.decode())
        self.assertIn("Privat fil", history.content.decode())
        self.auth(self.bob)
        labels = [e["label"] for e in self.client.get(f"{REG}/items/{self.item.pk}/").json()["requirements"][0]
                  ["evidence"]]
        self.assertEqual(labels, ["Arbetsmiljöpolicy", "Hemlig lönelista"])


class ReviewAndActionApiTests(RegisterApiTestCase):
    @time_machine.travel(datetime(2026, 3, 2, 12, 0, tzinfo=STOCKHOLM), tick=False)
    def test_a_review_to_its_end(self) -> None:
        self.build()
        second = self.make_item(self.register, self.gdpr, group=self.group)
        private = services.evidence_add(requirement=self.requirement, user=self.alice, kind="file",
                                        user_file=self.private_file)
        self.auth(self.bob)
        response = self.client.post(f"{REG}/reviews/", {"register": self.register.pk, "title": "Arbetsmiljö 2026",
                                                        "groups": [self.group.pk], "lead": "alice",
                                                        "due_date": "2026-06-30"}, format="json")
        self.assertEqual(response.status_code, 201, response.content)
        review = response.json()
        self.assertEqual((review["entry_count"], review["signed_count"], review["state"], review["lead"]["username"],
                          [g["name"] for g in review["groups"]]), (2, 0, "open", "alice", ["Arbetsmiljö"]))
        entries = {e["item"]: e for e in review["entries"]}
        base = f"{REG}/reviews/{review['id']}"
        assert_error(self, self.client.post(f"{base}/close"), 400, "review_incomplete")
        rated = self.client.post(f"{base}/entries/{entries[self.item.pk]['id']}/rate",
                                 {"rating": "non_compliant", "justification": "Ingen skyddsrond",
                                  "evidence": [self.evidence.pk, private.pk], "action_owner": "bob",
                                  "action_due_date": "2026-04-15"}, format="json")
        self.assertEqual(rated.status_code, 200, rated.content)
        self.assertEqual((rated.json()["action"]["owner"]["username"], rated.json()["action"]["due_date"]),
                         ("bob", "2026-04-15"))
        self.assertEqual(rated.json()["entry"]["assessed_by"]["username"], "bob")
        # Evidence of another item is refused on the rating.
        other_req = self.make_requirement(second, "Register")
        other_ev = services.evidence_add(requirement=other_req, user=self.alice, kind="external", reference="X")
        assert_error(self, self.client.post(f"{base}/entries/{entries[second.pk]['id']}/rate",
                                            {"rating": "compliant", "evidence": [self.evidence.pk]}, format="json"),
                     400, "evidence_not_on_item")
        assert_error(self, self.client.post(f"{base}/entries/{entries[second.pk]['id']}/rate",
                                            {"rating": "not_assessed"}, format="json"), 400, "invalid")
        self.client.post(f"{base}/entries/{entries[second.pk]['id']}/rate",
                         {"rating": "compliant", "evidence": [other_ev.pk]}, format="json")
        closed = self.client.post(f"{base}/close")
        self.assertEqual(closed.status_code, 200, closed.content)
        data = closed.json()
        self.assertEqual((data["state"], data["as_of"], data["closed_by"]["username"], data["signed_count"]),
                         ("closed", "2026-03-02", "bob", 2))
        frozen = next(e for e in data["entries"] if e["item"] == self.item.pk)
        self.assertEqual((frozen["title"], frozen["frozen_version"], frozen["rating_label"]),
                         ("Arbetsmiljölag (1977:1160)", "t.o.m. SFS 2024:100", "uppfylls inte"))
        self.assertEqual([e["label"] for e in frozen["evidence"]], ["Arbetsmiljöpolicy", "Hemlig lönelista"])
        # A revisor reads the closed review, without the private file's title.
        self.auth(self.erin)
        frozen = next(e for e in self.client.get(f"{base}/").json()["entries"] if e["item"] == self.item.pk)
        self.assertEqual([e["label"] for e in frozen["evidence"]], ["Arbetsmiljöpolicy", "Privat fil"])
        self.assertEqual(self.client.get(f"{base}/entries/").json()["count"], 2)
        # Closed is closed.
        self.auth(self.alice)
        assert_error(self, self.client.post(f"{base}/entries/{entries[second.pk]['id']}/rate",
                                            {"rating": "partial"}, format="json"), 409, "review_closed")
        assert_error(self, self.client.post(f"{base}/close"), 409, "review_closed")
        self.assertEqual(Action.objects.filter(review_entry__isnull=False).count(), 1)

    def test_review_start_bad_input(self) -> None:
        self.build()
        charlies = services.register_create(workspace=self.charlies_workspace, user=self.charlie, name="C")
        self.auth(self.alice)
        for body, field in (({"register": charlies.pk, "title": "K"}, "register"),
                            ({"register": self.register.pk, "title": ""}, "title"),
                            ({"register": self.register.pk, "title": "K", "groups": [10**12]}, "groups"),
                            ({"register": self.register.pk, "title": "K", "lead": "charlie"}, "lead"),
                            ({"register": self.register.pk, "title": "K", "due_date": "i morgon"}, "due_date")):
            with self.subTest(field=field):
                error = assert_error(self, self.client.post(f"{REG}/reviews/", body, format="json"), 400, "invalid")
                self.assertIn(field, error["details"])
        self.assertEqual(Review.objects.count(), 1)

    def test_actions(self) -> None:
        self.build()
        self.auth(self.bob)
        response = self.client.post(f"{REG}/actions/", {"title": "Uppdatera policy", "requirement": self.requirement.pk,
                                                        "owner": "alice", "due_date": "2026-09-01"}, format="json")
        self.assertEqual(response.status_code, 201, response.content)
        action = response.json()
        self.assertEqual((action["item"], action["owner"]["username"], action["state"]), (self.item.pk, "alice", "open"))
        done = self.client.patch(f"{REG}/actions/{action['id']}/", {"state": "done"}, format="json").json()
        self.assertEqual((done["state"], done["closed_by"]["username"]), ("done", "bob"))
        self.assertEqual({a["id"] for a in self.client.get(f"{REG}/actions/?state=open").json()["results"]},
                         {self.action.pk})
        self.assertEqual(self.client.get(f"{REG}/actions/?owner={self.alice.pk}").json()["count"], 1)
        self.assertEqual(self.client.get(f"{REG}/actions/{action['id']}/").json()["title"], "Uppdatera policy")
        assert_error(self, self.client.get(f"{REG}/actions/?state=kanske"), 400, "invalid")
        assert_error(self, self.client.post(f"{REG}/actions/", {"title": "x", "item": 10**12}, format="json"), 400,
                     "invalid")


class HistoryApiTests(RegisterApiTestCase):
    def test_item_history_is_read_only_and_has_before_after(self) -> None:
        self.build()
        services.register_item_update(item=self.item, user=self.bob, data={"status": "partial"})
        self.auth(self.erin)
        response = self.client.get(f"{REG}/items/{self.item.pk}/history/")
        self.assertEqual(response.status_code, 200, response.content)
        rows = response.json()["results"]
        change = next(r for r in rows if r["model"] == "registeritem" and r["action"] == "update"
                      and "status" in r["changes"])
        self.assertEqual((change["actor"], change["changes"]["status"], change["model_label"], change["action_label"]),
                         ("bob", ["not_assessed", "partial"], "laglistepost", "ändrad"))
        self.assertIn("requirement", {r["model"] for r in rows})
        # The whole workspace's trail, and one review's.
        everything = self.client.get(f"{REG}/history/").json()
        self.assertIn("review", {r["model"] for r in everything["results"]})
        self.assertGreater(everything["count"], response.json()["count"])
        services.review_entry_rate(entry=self.entry, user=self.bob, rating="compliant")
        review_rows = self.client.get(f"{REG}/history/?review={self.review.pk}").json()["results"]
        self.assertEqual({r["model"] for r in review_rows}, {"review", "reviewentry"})
        charlies = services.register_create(workspace=self.charlies_workspace, user=self.charlie, name="C")
        services.register_item_add(register=charlies, user=self.charlie, legal_document=self.aml)
        self.assertNotIn("C", {r["object_repr"] for r in self.client.get(f"{REG}/history/").json()["results"]})
        charlies_review = services.review_start(register=charlies, user=self.charlie, title="C")
        assert_error(self, self.client.get(f"{REG}/history/?review={charlies_review.pk}"), 404, "not_found")
        assert_error(self, self.client.get(f"{REG}/history/?review=x"), 400, "invalid")
        self.assertEqual(self.client.post(f"{REG}/history/").status_code, 405)
        for method in ("post", "put", "patch", "delete"):
            with self.subTest(method=method):
                self.assertEqual(getattr(self.client, method)(f"{REG}/items/{self.item.pk}/history/").status_code,
                                 405)


class PermissionApiTests(RegisterApiTestCase):
    def writes(self) -> list[tuple[str, str, dict | None]]:
        return [
            ("post", f"{REG}/registers/", {"name": "Ny"}),
            ("post", f"{REG}/registers/{self.register.pk}/groups/", {"name": "Ny"}),
            ("post", f"{REG}/items/", {"legal_document": "(EU) 2016/679"}),
            ("patch", f"{REG}/items/{self.item.pk}/", {"status": "compliant"}),
            ("delete", f"{REG}/items/{self.item.pk}/", None),
            ("post", f"{REG}/items/{self.item.pk}/requirements/", {"title": "Nytt"}),
            ("patch", f"{REG}/requirements/{self.requirement.pk}/", {"status": "compliant"}),
            ("delete", f"{REG}/requirements/{self.requirement.pk}/", None),
            ("post", f"{REG}/requirements/{self.requirement.pk}/evidence/", {"kind": "external", "reference": "P"}),
            ("delete", f"{REG}/evidence/{self.evidence.pk}/", None),
            ("post", f"{REG}/reviews/", {"register": self.register.pk, "title": "Ny"}),
            ("post", f"{REG}/reviews/{self.review.pk}/entries/{self.entry.pk}/rate", {"rating": "non_compliant"}),
            ("post", f"{REG}/reviews/{self.review.pk}/close", None),
            ("post", f"{REG}/actions/", {"title": "Ny"}),
            ("patch", f"{REG}/actions/{self.action.pk}/", {"state": "done"}),
        ]

    def test_readers_and_revisors_are_refused_every_write(self) -> None:
        self.build()
        before = (LogEntry.objects.count(), RegisterItem.objects.count(), Requirement.objects.count(),
                  Evidence.objects.count(), Review.objects.count(), Action.objects.count())
        for user in (self.dave, self.erin):
            self.auth(user)
            for method, url, body in self.writes():
                with self.subTest(user=user.username, method=method, url=url):
                    response = getattr(self.client, method)(url, body, format="json")
                    assert_error(self, response, 403, "permission_denied")
        self.assertEqual((LogEntry.objects.count(), RegisterItem.objects.count(), Requirement.objects.count(),
                          Evidence.objects.count(), Review.objects.count(), Action.objects.count()), before)

    def test_readers_and_revisors_read_everything(self) -> None:
        self.build()
        reads = [f"{REG}/registers/", f"{REG}/registers/{self.register.pk}/", f"{REG}/registers/{self.register.pk}/groups/",
                 f"{REG}/items/", f"{REG}/items/{self.item.pk}/", f"{REG}/items/{self.item.pk}/history/",
                 f"{REG}/items/{self.item.pk}/requirements/", f"{REG}/requirements/{self.requirement.pk}/",
                 f"{REG}/requirements/{self.requirement.pk}/evidence/", f"{REG}/evidence/{self.evidence.pk}/",
                 f"{REG}/reviews/", f"{REG}/reviews/{self.review.pk}/", f"{REG}/reviews/{self.review.pk}/entries/",
                 f"{REG}/actions/", f"{REG}/actions/{self.action.pk}/"]
        for user in (self.dave, self.erin):
            self.auth(user)
            for url in reads:
                with self.subTest(user=user.username, url=url):
                    self.assertEqual(self.client.get(url).status_code, 200)

    def test_unauthenticated_is_401(self) -> None:
        self.build()
        for method, url, body in self.writes():
            with self.subTest(method=method, url=url):
                assert_error(self, getattr(self.client, method)(url, body, format="json"), 401, "not_authenticated")
