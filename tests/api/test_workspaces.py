from __future__ import annotations

from compliance.models import Membership, Workspace

from .base import API, WS, ApiTestCase, assert_error


class WorkspaceTests(ApiTestCase):
    def test_list_detail_and_role(self) -> None:
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

    def test_stats(self) -> None:
        self.auth(self.alice)
        body = self.client.get(f"{WS}/stats/").json()
        self.assertEqual((body["files"], body["assessments"], body["statutes"], body["chunks"]), (1, 1, 2, 3))
        self.assertEqual((body["chunks_embedded"], body["embedded_share"]), (0, 0.0))


class CrossWorkspaceSettingTests(ApiTestCase):
    def test_owner_turns_sharing_off_and_on(self) -> None:
        self.auth(self.alice)
        self.assertTrue(self.client.get(f"{WS}/").json()["allow_cross_workspace"])
        body = self.client.patch(f"{WS}/", {"allow_cross_workspace": False}, format="json").json()
        self.assertFalse(body["allow_cross_workspace"])
        self.assertFalse(Workspace.objects.get(slug="alices-ab").allow_cross_workspace)
        self.client.patch(f"{WS}/", {"allow_cross_workspace": True}, format="json")
        self.assertTrue(Workspace.objects.get(slug="alices-ab").allow_cross_workspace)

    def test_bad_input_is_a_structured_error(self) -> None:
        self.auth(self.alice)
        assert_error(self, self.client.patch(f"{WS}/", {"allow_cross_workspace": "kanske"}, format="json"), 400)
        assert_error(self, self.client.patch(f"{WS}/", {}, format="json"), 400)
        self.assertTrue(Workspace.objects.get(slug="alices-ab").allow_cross_workspace)

    def test_it_checks_ownership(self) -> None:
        self.auth(self.bob)  # an editor, not the owner
        assert_error(self, self.client.patch(f"{WS}/", {"allow_cross_workspace": False}, format="json"), 403)
        self.auth(self.charlie)  # not a member: the workspace does not exist for him
        assert_error(self, self.client.patch(f"{WS}/", {"allow_cross_workspace": False}, format="json"), 404)
        self.assertTrue(Workspace.objects.get(slug="alices-ab").allow_cross_workspace)
