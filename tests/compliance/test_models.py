import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import Http404

from compliance.models import LegalDocument, Membership, UserFile, Workspace, validate_sfs_number
from compliance.selectors import access_scope_for, workspace_list_for_user
from compliance.services import MembershipError, membership_set, workspace_create
from tests.helpers import BaseTestCase


@pytest.mark.parametrize("value", ["1977:1160", "1982:80", "2018:218", "1915:218"])
def test_valid_sfs_numbers(value: str) -> None:
    validate_sfs_number(value)


@pytest.mark.parametrize("value", ["", "1977", "1977-1160", "77:1160", "1977:0", "1977:12345", "prop. 1976/77:149",
                                   "SOU 2019:1", " 1977:1160", "1977:1160 "])
def test_bad_sfs_numbers_are_rejected_in_swedish(value: str) -> None:
    with pytest.raises(ValidationError) as exc:
        validate_sfs_number(value)
    assert "Ogiltigt SFS-nummer" in str(exc.value)


class ModelTests(BaseTestCase):
    def test_legal_document_full_clean_rejects_bad_sfs(self) -> None:
        doc = LegalDocument(sfs_number="1977/1160", title="Arbetsmiljölag", full_text="1 § Text.")
        with self.assertRaises(ValidationError):
            doc.full_clean()

    def test_duplicate_sfs_number_is_refused(self) -> None:
        LegalDocument.objects.create(sfs_number="1977:1160", title="Arbetsmiljölag (1977:1160)", full_text="x")
        with self.assertRaises(IntegrityError), transaction.atomic():
            LegalDocument.objects.create(sfs_number="1977:1160", title="Dubblett", full_text="y")

    def test_file_without_workspace_is_invalid(self) -> None:
        f = UserFile(title="Policy", original_name="policy.pdf")
        with self.assertRaises(ValidationError) as exc:
            f.full_clean()
        self.assertIn("workspace", exc.exception.message_dict)
        with self.assertRaises(IntegrityError), transaction.atomic():
            UserFile.objects.create(title="Policy", original_name="policy.pdf", file="x.pdf")

    def test_membership_roles(self) -> None:
        owner = Membership.objects.get(user=self.alice, workspace=self.workspace)
        member = Membership.objects.get(user=self.bob, workspace=self.workspace)
        self.assertTrue(owner.can_manage and owner.can_edit)
        self.assertTrue(member.can_edit and not member.can_manage)
        membership_set(workspace=self.workspace, user=self.bob, role=Membership.Role.VIEWER)
        viewer = Membership.objects.get(user=self.bob, workspace=self.workspace)
        self.assertFalse(viewer.can_edit)
        self.assertEqual(viewer.get_role_display(), "läsare")
        with self.assertRaises(MembershipError):
            membership_set(workspace=self.workspace, user=self.bob, role="admin")

    def test_membership_set_keeps_the_last_owner(self) -> None:
        with self.assertRaises(MembershipError) as raised:
            membership_set(workspace=self.workspace, user=self.alice, role=Membership.Role.VIEWER)
        self.assertEqual(raised.exception.code, "last_owner")
        self.assertEqual(Membership.objects.get(user=self.alice, workspace=self.workspace).role, Membership.Role.OWNER)
        membership_set(workspace=self.workspace, user=self.charlie, role=Membership.Role.OWNER)
        membership_set(workspace=self.workspace, user=self.alice, role=Membership.Role.VIEWER)
        self.assertEqual(Membership.objects.get(user=self.alice, workspace=self.workspace).role, Membership.Role.VIEWER)

    def test_one_membership_per_user_and_workspace(self) -> None:
        with self.assertRaises(IntegrityError), transaction.atomic():
            Membership.objects.create(user=self.alice, workspace=self.workspace, role=Membership.Role.VIEWER)

    def test_workspace_create_makes_the_creator_owner_and_unique_slug(self) -> None:
        a = workspace_create(name="Alices AB", owner=self.charlie)
        self.assertNotEqual(a.slug, self.workspace.slug)
        self.assertEqual(Membership.objects.get(user=self.charlie, workspace=a).role, "owner")

    def test_scope_requires_membership(self) -> None:
        self.assertEqual(access_scope_for(self.bob, self.workspace).workspace_ids, (self.workspace.pk,))
        with self.assertRaises(Http404):
            access_scope_for(self.charlie, self.workspace)
        self.assertEqual(list(workspace_list_for_user(self.charlie)), [self.charlies_workspace])
        self.assertIsInstance(self.workspace, Workspace)
