"""Members: everyone in the workspace reads, owners manage, the last owner stays."""

from __future__ import annotations

from compliance.models import Membership

from .base import WS, ApiTestCase, assert_error


class MemberTests(ApiTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.alice_m = Membership.objects.get(user=self.alice, workspace=self.workspace)
        self.bob_m = Membership.objects.get(user=self.bob, workspace=self.workspace)

    def test_members_can_list(self) -> None:
        self.auth(self.bob)
        body = self.client.get(f"{WS}/members/?ordering=user__username").json()
        self.assertEqual([(m["user"]["username"], m["role"]) for m in body["results"]],
                         [("alice", "owner"), ("bob", "editor")])

    def test_owner_adds_changes_and_removes(self) -> None:
        self.auth(self.alice)
        response = self.client.post(f"{WS}/members/", {"username": "charlie", "role": "viewer"}, format="json")
        self.assertEqual(response.status_code, 201, response.content)
        member_id = response.json()["id"]
        response = self.client.patch(f"{WS}/members/{member_id}/", {"role": "editor"}, format="json")
        self.assertEqual(response.json()["role"], "editor")
        self.assertEqual(self.client.delete(f"{WS}/members/{member_id}/").status_code, 204)
        self.assertFalse(Membership.objects.filter(pk=member_id).exists())

    def test_add_validation(self) -> None:
        self.auth(self.alice)
        cases = [
            ({"username": "nobody", "role": "viewer"}, "invalid"),
            ({"username": "charlie", "role": "admin"}, "invalid"),
            ({"username": "bob", "role": "viewer"}, "already_member"),
            ({}, "invalid"),
        ]
        for body, code in cases:
            with self.subTest(body=body):
                assert_error(self, self.client.post(f"{WS}/members/", body, format="json"), 400, code)

    def test_non_owners_get_403(self) -> None:
        self.auth(self.bob)
        assert_error(self, self.client.post(f"{WS}/members/", {"username": "charlie", "role": "viewer"},
                                            format="json"), 403, "permission_denied")
        assert_error(self, self.client.patch(f"{WS}/members/{self.alice_m.pk}/", {"role": "viewer"},
                                             format="json"), 403)
        assert_error(self, self.client.delete(f"{WS}/members/{self.alice_m.pk}/"), 403)
        self.assertEqual(Membership.objects.get(pk=self.alice_m.pk).role, "owner")

    def test_last_owner_cannot_leave_or_be_demoted(self) -> None:
        self.auth(self.alice)
        error = assert_error(self, self.client.delete(f"{WS}/members/{self.alice_m.pk}/"), 400, "last_owner")
        self.assertIn("ägare", error["message"])
        assert_error(self, self.client.patch(f"{WS}/members/{self.alice_m.pk}/", {"role": "editor"},
                                             format="json"), 400, "last_owner")
        # With a second owner, alice may step down.
        self.client.patch(f"{WS}/members/{self.bob_m.pk}/", {"role": "owner"}, format="json")
        response = self.client.patch(f"{WS}/members/{self.alice_m.pk}/", {"role": "viewer"}, format="json")
        self.assertEqual(response.status_code, 200)
        # Now a viewer: managing is forbidden (403), she can still read the workspace.
        assert_error(self, self.client.delete(f"{WS}/members/{self.bob_m.pk}/"), 403)
        self.assertEqual(self.client.get(f"{WS}/").json()["role"], "viewer")

    def test_unknown_member_is_404(self) -> None:
        self.auth(self.alice)
        assert_error(self, self.client.delete(f"{WS}/members/999999/"), 404)
        assert_error(self, self.client.patch(f"{WS}/members/{2**70}/", {"role": "viewer"}, format="json"), 404)
