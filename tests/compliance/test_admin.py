from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from chunks.models import ContentChunk
from compliance import services
from compliance.models import Assessment, LegalDocument, ProcessingStatus, UserFile
from tests.helpers import BaseTestCase


class AdminTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.admin = get_user_model().objects.create_superuser("admin", "admin@example.se", "pw")
        cls.doc = LegalDocument.objects.create(sfs_number="1977:1160", title="Arbetsmiljölag (1977:1160)",
                                               full_text="1 § Text.", status=ProcessingStatus.DONE)
        cls.chunk = ContentChunk.objects.create(
            source_type="LEGAL_DOCUMENT", legal_document=cls.doc, header="Arbetsmiljölag > 1 §", path="00000.00000",
            ordinal=0, citation="1 §", text="1 § Text.", content_hash="h", embedding=[0.1] * 384,
            embedding_model="multilingual-e5-small-q4")
        UserFile.objects.create(workspace=cls.workspace, title="Policy", original_name="p.txt", file="p.txt")
        Assessment.objects.create(workspace=cls.workspace, title="Riskbedömning")

    def setUp(self) -> None:
        self.client.force_login(self.admin)

    def test_every_changelist_and_filters_load(self) -> None:
        for model in ("workspace", "membership", "legaldocument", "userfile", "assessment", "apitoken"):
            self.assertEqual(self.client.get(reverse(f"admin:compliance_{model}_changelist")).status_code, 200)
        url = reverse("admin:compliance_legaldocument_changelist")
        self.assertContains(self.client.get(url, {"content_type__exact": "SFS_LAW", "q": "1977"}), "1977:1160")
        self.assertEqual(self.client.get(reverse("admin:chunks_contentchunk_changelist")).status_code, 200)
        self.assertEqual(self.client.get(reverse("admin:agent_retrievallog_changelist")).status_code, 200)

    def test_reprocess_action_enqueues_on_commit(self) -> None:
        url = reverse("admin:compliance_legaldocument_changelist")
        with self.captureOnCommitCallbacks() as callbacks:
            self.client.post(url, {"action": "reprocess", "_selected_action": [self.doc.pk]})
        self.assertEqual(len(callbacks), 1)
        self.doc.refresh_from_db()
        self.assertEqual(self.doc.status, ProcessingStatus.PENDING)

    def test_reembed_action_drops_vectors_and_enqueues(self) -> None:
        url = reverse("admin:compliance_legaldocument_changelist")
        with self.captureOnCommitCallbacks() as callbacks:
            self.client.post(url, {"action": "reembed", "_selected_action": [self.doc.pk]})
        self.assertEqual(len(callbacks), 1)
        self.chunk.refresh_from_db()
        self.assertIsNone(self.chunk.embedding)

    def test_non_staff_cannot_use_admin(self) -> None:
        self.client.force_login(self.alice)
        response = self.client.get(reverse("admin:compliance_legaldocument_changelist"))
        self.assertEqual(response.status_code, 302)

    def test_staff_who_are_not_superusers_see_only_their_workspaces(self) -> None:
        # charlie is staff with every view permission, but a member of his own workspace only.
        charlie = self.charlie
        charlie.is_staff = True
        charlie.save()
        charlie.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
        UserFile.objects.create(workspace=self.charlies_workspace, title="Charlies policy", original_name="c.txt",
                                file="c.txt")
        alices = UserFile.objects.get(workspace=self.workspace)
        self.client.force_login(charlie)
        files = self.client.get(reverse("admin:compliance_userfile_changelist"))
        self.assertContains(files, "Charlies policy")
        self.assertNotContains(files, "Policy</a>")
        # Alice's file is simply not there: the admin answers as for an id that does not exist.
        detail = self.client.get(reverse("admin:compliance_userfile_change", args=[alices.pk]))
        self.assertEqual(detail.status_code, 302)
        self.assertNotContains(self.client.get(reverse("admin:compliance_assessment_changelist")), "Riskbedömning")
        workspaces = self.client.get(reverse("admin:compliance_workspace_changelist"))
        self.assertContains(workspaces, "Charlies AB")
        self.assertNotContains(workspaces, "Alices AB")
        # Shared statutes stay visible to every staff member with the permission.
        self.assertContains(self.client.get(reverse("admin:compliance_legaldocument_changelist")), "1977:1160")

    def test_a_saved_sources_workspace_cannot_be_changed_in_admin(self) -> None:
        # Its chunks carry the workspace: a moved file would stay searchable where it was.
        f = UserFile.objects.create(workspace=self.workspace, title="Policy", original_name="p.txt", file="x",
                                    uploaded_by=self.alice)
        form = self.client.get(reverse("admin:compliance_userfile_change", args=[f.pk])).content.decode()
        self.assertNotIn('name="workspace"', form)
        self.assertIn('name="workspace"', self.client.get(reverse("admin:compliance_assessment_add")).content.decode())


class MemoryAdminTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.admin = get_user_model().objects.create_superuser("admin", "admin@example.se", "pw")
        cls.profile = services.profile_update(workspace=cls.workspace, user=cls.alice, values={"employee_count": 45})
        services.profile_fact_add(workspace=cls.workspace, user=cls.alice, text="Vi har lager")
        cls.preference = services.preference_update(workspace=cls.workspace, user=cls.alice,
                                                    values={"role": "HR-chef"})

    def test_profile_and_facts_are_listed_and_preferences_are_read_only(self) -> None:
        self.client.force_login(self.admin)
        self.assertContains(self.client.get(reverse("admin:compliance_workspaceprofile_changelist")), "45")
        self.assertContains(self.client.get(reverse("admin:compliance_profilefact_changelist")), "Vi har lager")
        self.assertContains(self.client.get(reverse("admin:compliance_personalpreference_changelist")), "HR-chef")
        url = reverse("admin:compliance_personalpreference_change", args=[self.preference.pk])
        page = self.client.get(url)
        self.assertContains(page, "HR-chef")
        self.assertNotContains(page, 'name="role"')
        self.client.post(url, {"role": "Hackad"})
        self.preference.refresh_from_db()
        self.assertEqual(self.preference.role, "HR-chef")

    def test_profile_changes_go_through_the_service(self) -> None:
        self.client.force_login(self.admin)
        url = reverse("admin:compliance_workspaceprofile_change", args=[self.profile.pk])
        self.client.post(url, {"employee_count": "50", "industry": "", "sni_code": "", "collective_agreement": "",
                               "sector": "", "location": "", "has_collective_agreement": "unknown",
                               "processes_sensitive_data": "unknown"})
        self.profile.refresh_from_db()
        self.assertEqual(self.profile.employee_count, 50)
        self.assertEqual(self.profile.origins["employee_count"]["user_id"], self.admin.pk)

    def test_staff_see_only_their_own_preferences(self) -> None:
        staff = get_user_model().objects.create_user("staffan", password="pw", is_staff=True)
        staff.user_permissions.add(Permission.objects.get(codename="view_personalpreference"))
        self.client.force_login(staff)
        self.assertNotContains(self.client.get(reverse("admin:compliance_personalpreference_changelist")), "HR-chef")

