from __future__ import annotations

from compliance.models import Membership, Workspace

from .base import API, WS, ApiTestCase


class WorkspaceTests(ApiTestCase):
    def test_list_detail_and_role(self):
        other = Workspace.objects.create(name="Bobs förening", slug="bobs-forening")
        Membership.objects.create(user=self.bob, workspace=other, role=Membership.Role.VIEWER)
        self.auth(self.bob)
        body = self.client.get(f"{API}/workspaces/").json()
        self.assertEqual([(w["slug"], w["role"]) for w in body["results"]],
                         [("alices-ab", "editor"), ("bobs-forening", "viewer")])
        body = self.client.get(f"{API}/workspaces/?ordering=-name").json()
        self.assertEqual(body["results"][0]["slug"], "bobs-forening")
        detail = self.client.get(f"{WS}/").json()
        self.assertEqual((detail["name"], detail["role"]), ("Alices AB", "editor"))

    def test_stats(self):
        self.auth(self.alice)
        body = self.client.get(f"{WS}/stats/").json()
        self.assertEqual((body["files"], body["assessments"], body["statutes"], body["chunks"]), (1, 1, 2, 3))
        self.assertEqual((body["chunks_embedded"], body["embedded_share"]), (0, 0.0))
