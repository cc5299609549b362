""""Rensa kunskapsbasen": the owner soft-deletes every file (all versions) and assessment of the workspace
after a confirmation naming the counts; statutes and other workspaces are untouched."""

from datetime import timedelta
from typing import Any

from django.http import Http404
from django.urls import reverse
from django.utils import timezone

from chunks.models import ContentChunk
from chunks.selectors import chunk_list_visible, knowledge_overview
from compliance import selectors
from compliance.models import Assessment, LegalDocument, UserFile, VersionState, Workspace
from compliance.services import knowledge_clear
from tests.helpers import BaseTestCase


def make_file(workspace: Workspace, title: str, **extra: Any) -> UserFile:
    return UserFile.objects.create(workspace=workspace, title=title, original_name=f"{title}.txt", file="x",
                                   content_hash=title, chunked_hash=title, status="done", **extra)


def make_chunk(source: UserFile | Assessment, text: str, **fk: Any) -> ContentChunk:
    return ContentChunk.objects.create(workspace_id=source.workspace_id, header=text, path="00000", ordinal=0,
                                       text=text, content_hash=text, **fk)


class KnowledgeClearTests(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.statute = LegalDocument.objects.create(sfs_number="1977:1160", title="Arbetsmiljölag (1977:1160)",
                                                   full_text="1 § Text.")
        ContentChunk.objects.create(source_type="LEGAL_DOCUMENT", legal_document=cls.statute, header="AML > 1 §",
                                    path="00000", ordinal=0, text="Lagens ändamål.", content_hash="s")
        cls.policy = make_file(cls.workspace, "Policy")
        # A document with three versions: the old one, the current one and a new one still processing.
        cls.rutin_v1 = make_file(cls.workspace, "Rutin", version_state=VersionState.SUPERSEDED)
        cls.rutin_v2 = make_file(cls.workspace, "Rutin v2", version_of=cls.rutin_v1, version=2)
        cls.rutin_v3 = make_file(cls.workspace, "Rutin v3", version_of=cls.rutin_v1, version=3,
                                 version_state=VersionState.PENDING)
        cls.private = make_file(cls.workspace, "Privat", is_private=True)
        cls.already_gone = make_file(cls.workspace, "Borta", deleted_at=timezone.now() - timedelta(days=3))
        cls.assessments = [Assessment.objects.create(workspace=cls.workspace, title=f"Krav {i}", status="done")
                           for i in range(3)]
        cls.charlies_file = make_file(cls.charlies_workspace, "Charlies fil")
        cls.charlies_assessment = Assessment.objects.create(workspace=cls.charlies_workspace, title="Charlies krav")
        for f in (cls.policy, cls.rutin_v2, cls.charlies_file):
            make_chunk(f, f"Text ur {f.title}", source_type="USER_FILE", user_file=f)
        for a in (*cls.assessments, cls.charlies_assessment):
            make_chunk(a, f"Text ur {a.title}", source_type="ASSESSMENT", assessment=a)

    def url(self, name: str = "knowledge_clear", ws: Workspace | None = None) -> str:
        return reverse(name, args=[(ws or self.workspace).slug])

    def test_the_confirmation_names_the_counts(self) -> None:
        self.login(self.alice)
        r = self.client.get(self.url())
        self.assertEqual(r.status_code, 200)
        # Three documents (Policy, Rutin, Privat): versions are one file, the deleted one is already gone.
        self.assertContains(r, "Ta bort 3 filer och 3 bedömningar från kunskapsbasen?")
        self.assertContains(r, 'method="post"')
        self.assertNotContains(r, "<script>")  # CSP: a page, no inline script
        self.assertIsNone(UserFile.objects.get(pk=self.policy.pk).deleted_at)  # asking deletes nothing

    def test_singular_counts(self) -> None:
        UserFile.objects.exclude(pk=self.policy.pk).update(deleted_at=timezone.now())
        Assessment.objects.filter(pk__in=[a.pk for a in self.assessments[1:]]).update(deleted_at=timezone.now())
        self.login(self.alice)
        self.assertContains(self.client.get(self.url()), "Ta bort 1 fil och 1 bedömning från kunskapsbasen?")

    def test_the_knowledge_page_offers_it_to_owners_only(self) -> None:
        self.login(self.alice)
        self.assertContains(self.client.get(self.url("knowledge")), self.url())
        self.login(self.bob)
        self.assertNotContains(self.client.get(self.url("knowledge")), self.url())

    def test_owner_clears_files_and_assessments(self) -> None:
        version_before = self.workspace.knowledge_version
        self.login(self.alice)
        r = self.client.post(self.url(), follow=True)
        self.assertRedirects(r, self.url("knowledge"))
        self.assertContains(r, "Kunskapsbasen är rensad: 3 filer och 3 bedömningar togs bort.")

        # Soft: every row stays, every version of every document is marked deleted.
        mine = UserFile.objects.filter(workspace=self.workspace)
        self.assertEqual(mine.count(), 6)
        self.assertFalse(mine.filter(deleted_at__isnull=True).exists())
        self.assertEqual(Assessment.objects.filter(workspace=self.workspace, deleted_at__isnull=False).count(), 3)
        self.assertLess(UserFile.objects.get(pk=self.already_gone.pk).deleted_at,
                        UserFile.objects.get(pk=self.policy.pk).deleted_at)  # its own deletion time is kept
        # Gone from every read.
        self.assertFalse(selectors.user_file_list(self.workspace).exists())
        self.assertFalse(selectors.assessment_list(self.workspace).exists())
        with self.assertRaises(Http404):
            selectors.assessment_get(self.workspace, self.assessments[0].pk)
        self.assertEqual(self.client.get(reverse("assessment_edit", args=[self.workspace.slug,
                                                                          self.assessments[0].pk])).status_code, 404)
        self.assertEqual(self.client.get(reverse("file_detail", args=[self.workspace.slug,
                                                                      self.policy.pk])).status_code, 404)
        overview = knowledge_overview(self.workspace)
        self.assertEqual((overview["files"], overview["assessments"], overview["statutes"]), (0, 0, 1))
        self.assertEqual({c.source_type for c in chunk_list_visible([self.workspace.pk])}, {"LEGAL_DOCUMENT"})
        # The retrieval cache is keyed by the workspace's knowledge version: it moved on.
        self.assertGreater(Workspace.objects.get(pk=self.workspace.pk).knowledge_version, version_before)
        # Statutes are shared, another workspace is not this one's to clear.
        self.assertTrue(LegalDocument.objects.filter(pk=self.statute.pk).exists())
        self.assertIsNone(UserFile.objects.get(pk=self.charlies_file.pk).deleted_at)
        self.assertIsNone(Assessment.objects.get(pk=self.charlies_assessment.pk).deleted_at)
        self.assertEqual(len(chunk_list_visible([self.charlies_workspace.pk]).filter(
            workspace=self.charlies_workspace)), 2)

    def test_the_service_reports_what_it_removed(self) -> None:
        first = knowledge_clear(workspace=self.workspace)
        self.assertEqual((first.files, first.assessments), (3, 3))
        again = knowledge_clear(workspace=self.workspace)
        self.assertEqual((again.files, again.assessments), (0, 0))

    def test_an_empty_knowledge_base_says_so(self) -> None:
        self.login(self.charlie)
        knowledge_clear(workspace=self.charlies_workspace)
        r = self.client.get(self.url(ws=self.charlies_workspace))
        self.assertContains(r, "Kunskapsbasen är redan tom.")
        self.assertNotContains(r, 'type="submit" class="danger"')

    def test_editors_may_not_clear(self) -> None:
        self.login(self.bob)
        self.assertEqual(self.client.get(self.url()).status_code, 403)
        self.assertEqual(self.client.post(self.url()).status_code, 403)
        self.assertEqual(selectors.user_file_list(self.workspace).count(), 3)
        self.assertEqual(selectors.assessment_list(self.workspace).count(), 3)

    def test_it_checks_ownership(self) -> None:
        self.login(self.charlie)
        self.assertEqual(self.client.get(self.url()).status_code, 404)
        self.assertEqual(self.client.post(self.url()).status_code, 404)
        self.assertEqual(selectors.user_file_list(self.workspace).count(), 3)
        self.assertEqual(selectors.assessment_list(self.workspace).count(), 3)
