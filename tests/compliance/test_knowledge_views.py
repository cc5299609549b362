"""The Kunskapsbas page: files (upload, download, delete), assessments, figures, and who may do what.

alice owns the workspace, bob edits, dave only reads, charlie is an outsider
with his own workspace. No Celery worker runs: on_commit callbacks are captured,
never executed.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import HttpResponse
from django.test import override_settings
from django.urls import reverse

from chunks.embedding import active_model_name
from chunks.models import ContentChunk
from chunks.selectors import EMBEDDING_ERROR_CACHE_KEY, chunk_index_size, embedding_state, knowledge_stats
from chunks.services import (
    EMBED_RATE_CACHE_KEY,
    chunk_source_key,
    embedding_rate_record,
    embedding_record_error,
    embedding_record_ok,
    source_progress_refresh,
)
from compliance import services
from compliance.models import Assessment, LegalDocument, Membership, ProcessingStatus, UserFile
from tests.helpers import BaseTestCase, blocked_media_root, make_member


def upload(name: str, data: bytes, content_type: str = "text/plain") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=content_type)


class KnowledgeTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.dave = make_member(cls.workspace, "dave", Membership.Role.VIEWER)
        cls.statute = LegalDocument.objects.create(
            sfs_number="1977:1160", title="Arbetsmiljölag (1977:1160)", full_text="1 § Lagens ändamål …",
            status=ProcessingStatus.DONE,
        )
        cls.assessment = Assessment.objects.create(
            workspace=cls.workspace, title="Systematiskt arbetsmiljöarbete", legal_document=cls.statute,
            section_ref="3 kap. 2 a §", owner=cls.bob, due_date=datetime.date(2026, 12, 31),
        )
        # charlie's own objects: alice must not reach them through her slug either.
        cls.charlies_assessment = Assessment.objects.create(workspace=cls.charlies_workspace, title="Charlies krav")

    def setUp(self) -> None:
        # Files are stored per test: each test has its own MEDIA_ROOT (tests/conftest.py).
        self.file = services.user_file_upload(
            workspace=self.workspace, user=self.alice,
            uploaded=upload("policy.txt", "Vår arbetsmiljöpolicy.\n".encode()),
        )
        self.charlies_file = services.user_file_upload(
            workspace=self.charlies_workspace, user=self.charlie, uploaded=upload("hemlig.txt", b"Charlies text"),
        )

    def url(self, name: str, *args: object, slug: str | None = None) -> str:
        return reverse(name, args=[slug or self.workspace.slug, *args])

    def read_urls(self, slug: str | None = None) -> list[str]:
        return [
            self.url("workspace", slug=slug),
            self.url("knowledge", slug=slug),
            self.url("knowledge_status", slug=slug),
            self.url("file_detail", self.file.pk, slug=slug),
            self.url("file_download", self.file.pk, slug=slug),
        ]

    def write_get_urls(self, slug: str | None = None) -> list[str]:
        return [
            self.url("file_delete", self.file.pk, slug=slug),
            self.url("assessment_create", slug=slug),
            self.url("assessment_edit", self.assessment.pk, slug=slug),
            self.url("assessment_delete", self.assessment.pk, slug=slug),
        ]

    def write_post_urls(self, slug: str | None = None) -> list[str]:
        return [
            self.url("file_upload", slug=slug),
            self.url("file_delete", self.file.pk, slug=slug),
            self.url("assessment_create", slug=slug),
            self.url("assessment_edit", self.assessment.pk, slug=slug),
            self.url("assessment_delete", self.assessment.pk, slug=slug),
        ]


class OwnershipTests(KnowledgeTestCase):
    def test_anonymous_is_sent_to_login_everywhere(self) -> None:
        for url in self.read_urls() + self.write_get_urls():
            with self.subTest(url=url):
                r = self.client.get(url)
                self.assertRedirects(r, reverse("login") + "?next=" + url, fetch_redirect_response=False)
        for url in self.write_post_urls():
            with self.subTest(url=url):
                r = self.client.post(url)
                self.assertEqual(r.status_code, 302)
                self.assertTrue(r["Location"].startswith(reverse("login")))
        self.assertTrue(UserFile.objects.filter(pk=self.file.pk, deleted_at__isnull=True).exists())

    def test_owner_and_editor_can_read_and_open_every_form(self) -> None:
        for user in (self.alice, self.bob):
            self.login(user)
            for url in self.read_urls() + self.write_get_urls():
                with self.subTest(user=user.username, url=url):
                    self.assertEqual(self.client.get(url).status_code, 200)

    def test_viewer_reads_but_may_not_write(self) -> None:
        self.login(self.dave)
        for url in self.read_urls():
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 200)
        for url in self.write_get_urls():
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 403)
        for url in self.write_post_urls():
            with self.subTest(url=url):
                self.assertEqual(self.client.post(url, {"title": "x", "compliance_status": "compliant"}).status_code, 403)
        self.assertTrue(UserFile.objects.filter(pk=self.file.pk, deleted_at__isnull=True).exists())
        self.assertTrue(Assessment.objects.filter(pk=self.assessment.pk, title="Systematiskt arbetsmiljöarbete").exists())
        self.assertEqual(UserFile.objects.filter(workspace=self.workspace).count(), 1)

    def test_viewer_does_not_see_the_controls(self) -> None:
        self.login(self.dave)
        r = self.client.get(self.url("knowledge"))
        self.assertContains(r, "policy.txt")
        self.assertContains(r, "läsbehörighet")
        self.assertNotContains(r, 'type="file"')
        self.assertNotContains(r, self.url("file_delete", self.file.pk))
        self.assertNotContains(r, self.url("assessment_create"))
        self.assertNotContains(r, self.url("assessment_edit", self.assessment.pk))
        self.assertContains(r, self.url("file_download", self.file.pk))

    def test_editor_sees_the_controls(self) -> None:
        self.login(self.bob)
        r = self.client.get(self.url("knowledge"))
        self.assertContains(r, 'type="file"')
        self.assertContains(r, "multiple")
        self.assertContains(r, self.url("file_delete", self.file.pk))
        self.assertContains(r, self.url("assessment_create"))
        self.assertContains(r, self.url("assessment_edit", self.assessment.pk))

    def test_outsider_gets_404_for_every_url(self) -> None:
        self.login(self.charlie)
        for url in self.read_urls() + self.write_get_urls():
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 404)
        for url in self.write_post_urls():
            with self.subTest(url=url):
                self.assertEqual(self.client.post(url, {"title": "x", "compliance_status": "compliant"}).status_code, 404)
        self.assertTrue(UserFile.objects.filter(pk=self.file.pk, deleted_at__isnull=True).exists())
        self.assertTrue(Assessment.objects.filter(pk=self.assessment.pk).exists())
        self.assertEqual(UserFile.objects.filter(workspace=self.workspace).count(), 1)

    def test_outsider_gets_404_for_alices_ids_through_his_own_workspace(self) -> None:
        """IDOR: alice's file and assessment ids under charlie's own slug."""
        self.login(self.charlie)
        slug = self.charlies_workspace.slug
        urls = [
            self.url("file_detail", self.file.pk, slug=slug),
            self.url("file_download", self.file.pk, slug=slug),
            self.url("file_delete", self.file.pk, slug=slug),
            self.url("assessment_edit", self.assessment.pk, slug=slug),
            self.url("assessment_delete", self.assessment.pk, slug=slug),
        ]
        for url in urls:
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 404)
                if "ladda-ner" not in url and url != urls[0]:  # the read-only views answer POST with 405
                    self.assertEqual(
                        self.client.post(url, {"title": "x", "compliance_status": "compliant"}).status_code, 404)
        self.assertIsNone(UserFile.objects.get(pk=self.file.pk).deleted_at)
        self.assertEqual(Assessment.objects.get(pk=self.assessment.pk).title, "Systematiskt arbetsmiljöarbete")
        # His own objects still work under his own slug.
        self.assertEqual(self.client.get(self.url("file_detail", self.charlies_file.pk, slug=slug)).status_code, 200)

    def test_owner_gets_404_for_charlies_ids_through_her_workspace(self) -> None:
        self.login(self.alice)
        for url in (
            self.url("file_detail", self.charlies_file.pk),
            self.url("file_download", self.charlies_file.pk),
            self.url("file_delete", self.charlies_file.pk),
            self.url("assessment_edit", self.charlies_assessment.pk),
            self.url("assessment_delete", self.charlies_assessment.pk),
        ):
            with self.subTest(url=url):
                self.assertEqual(self.client.get(url).status_code, 404)
                if "ta-bort" in url or "bedomningar" in url:
                    self.assertEqual(self.client.post(url).status_code, 404)
        self.assertIsNone(UserFile.objects.get(pk=self.charlies_file.pk).deleted_at)
        self.assertTrue(Assessment.objects.filter(pk=self.charlies_assessment.pk).exists())

    def test_knowledge_page_never_lists_another_workspaces_files(self) -> None:
        self.login(self.alice)
        r = self.client.get(self.url("knowledge"))
        self.assertContains(r, "policy.txt")
        self.assertNotContains(r, "hemlig.txt")
        self.assertNotContains(r, "Charlies krav")

    def test_get_on_upload_is_not_allowed(self) -> None:
        self.login(self.alice)
        self.assertEqual(self.client.get(self.url("file_upload")).status_code, 405)


class UploadTests(KnowledgeTestCase):
    def post_files(self, *files: SimpleUploadedFile, **data: Any) -> HttpResponse:
        return self.client.post(self.url("file_upload"), {"files": list(files), **data}, follow=True)

    def test_several_files_in_one_post(self) -> None:
        self.login(self.bob)
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            r = self.post_files(upload("rutin.txt", "Rutin för tillbud.\n".encode()),
                                upload("läsmig.md", "# Rubrik\n\nText.\n".encode(), "text/markdown"))
        self.assertEqual(r.status_code, 200)
        names = set(UserFile.objects.filter(workspace=self.workspace).values_list("original_name", flat=True))
        self.assertEqual(names, {"policy.txt", "rutin.txt", "läsmig.md"})
        self.assertEqual(len(callbacks), 2)  # one processing task per file, on commit
        rutin = UserFile.objects.get(original_name="rutin.txt")
        self.assertEqual(rutin.uploaded_by, self.bob)
        self.assertEqual(rutin.status, ProcessingStatus.PENDING)
        self.assertFalse(rutin.is_private)
        self.assertContains(r, "rutin.txt: uppladdad")
        self.assertContains(r, "läsmig.md: uppladdad")
        self.assertContains(r, "väntar")
        # Something is waiting: the status partial polls.
        self.assertContains(r, 'hx-trigger="every 2s"')

    def test_a_long_non_ascii_name_first_in_a_batch_costs_nothing(self) -> None:
        self.login(self.bob)
        long_name = "ä" * 200 + ".txt"
        r = self.post_files(upload(long_name, "Rutin.".encode()), upload("bra.txt", b"Innehall."))
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, f"{long_name}: uppladdad")
        self.assertContains(r, "bra.txt: uppladdad")
        saved = UserFile.objects.get(original_name=long_name)
        self.assertTrue(saved.file.name.endswith(".txt"))
        self.assertTrue(UserFile.objects.filter(original_name="bra.txt").exists())

    def test_a_file_the_disk_refuses_is_reported_in_swedish_and_the_page_still_works(self) -> None:
        self.login(self.bob)
        with self.settings(MEDIA_ROOT=blocked_media_root(self, self.workspace.pk)):
            r = self.post_files(upload("rutin.txt", b"Rutin."), upload("bra.txt", b"Innehall."))
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "rutin.txt: Filen kunde inte sparas")
        self.assertContains(r, "bra.txt: Filen kunde inte sparas")
        self.assertFalse(UserFile.objects.filter(original_name__in=["rutin.txt", "bra.txt"]).exists())

    def test_private_flag(self) -> None:
        self.login(self.alice)
        self.post_files(upload("privat.txt", b"Bara for oss."), is_private="on")
        self.assertTrue(UserFile.objects.get(original_name="privat.txt").is_private)
        r = self.client.get(self.url("knowledge"))
        self.assertContains(r, "privat</span>")

    def test_empty_file_is_refused_in_swedish_and_the_others_are_saved(self) -> None:
        self.login(self.alice)
        r = self.post_files(upload("tom.txt", b""), upload("bra.txt", b"Innehall."))
        self.assertContains(r, "tom.txt: Filen är tom.")
        self.assertContains(r, "bra.txt: uppladdad")
        self.assertFalse(UserFile.objects.filter(original_name="tom.txt").exists())
        self.assertTrue(UserFile.objects.filter(original_name="bra.txt", workspace=self.workspace).exists())

    @override_settings(MAX_UPLOAD_BYTES=100)
    def test_too_large_file_is_refused_and_the_others_are_saved(self) -> None:
        self.login(self.alice)
        r = self.post_files(upload("stor.txt", b"x" * 101), upload("liten.txt", b"y" * 100))
        self.assertContains(r, "stor.txt: Filen är för stor")
        self.assertFalse(UserFile.objects.filter(original_name="stor.txt").exists())
        self.assertTrue(UserFile.objects.filter(original_name="liten.txt").exists())

    def test_no_file_chosen(self) -> None:
        self.login(self.alice)
        r = self.client.post(self.url("file_upload"), {}, follow=True)
        self.assertContains(r, "Välj minst en fil")

    def test_unsupported_file_is_accepted_and_its_failure_shown(self) -> None:
        self.login(self.alice)
        self.post_files(upload("bild.png", b"\x89PNG\r\n\x1a\n....", "image/png"))
        f = UserFile.objects.get(original_name="bild.png")
        self.assertEqual(f.status, ProcessingStatus.PENDING)
        # The ingestion worker marks it failed later: the page shows that, in Swedish.
        UserFile.objects.filter(pk=f.pk).update(status=ProcessingStatus.FAILED,
                                                error_message="Filtypen stöds inte.")
        r = self.client.get(self.url("knowledge"))
        self.assertContains(r, "fel</span>")
        self.assertContains(r, "Filtypen stöds inte.")

    def test_download_returns_the_uploaded_bytes(self) -> None:
        data = "Åtgärdsplan för 2026.\n".encode()
        self.login(self.alice)
        self.post_files(upload("plan.txt", data))
        f = UserFile.objects.get(original_name="plan.txt")
        for user in (self.alice, self.bob, self.dave):
            self.login(user)
            r = self.client.get(self.url("file_download", f.pk))
            self.assertEqual(r.status_code, 200)
            self.assertEqual(b"".join(r.streaming_content), data)
            self.assertIn("attachment", r["Content-Disposition"])
            self.assertIn("plan.txt", r["Content-Disposition"])


class DeleteTests(KnowledgeTestCase):
    def test_confirm_page_then_soft_delete(self) -> None:
        self.login(self.bob)
        r = self.client.get(self.url("file_delete", self.file.pk))
        self.assertContains(r, "Ta bort filen?")
        self.assertContains(r, 'method="post"')
        self.assertIsNone(UserFile.objects.get(pk=self.file.pk).deleted_at)  # GET changes nothing

        version = self.workspace.knowledge_version
        r = self.client.post(self.url("file_delete", self.file.pk), follow=True)
        self.assertContains(r, "har tagits bort")
        f = UserFile.objects.get(pk=self.file.pk)  # the row stays
        self.assertIsNotNone(f.deleted_at)
        self.assertTrue(f.file.storage.exists(f.file.name))  # and so does the stored file
        self.workspace.refresh_from_db()
        self.assertGreater(self.workspace.knowledge_version, version)
        self.assertNotContains(self.client.get(self.url("knowledge")), "policy.txt")

    def test_a_deleted_file_is_gone_from_every_page(self) -> None:
        services.user_file_delete(self.file)
        self.login(self.alice)
        for name in ("file_detail", "file_download", "file_delete"):
            with self.subTest(name=name):
                self.assertEqual(self.client.get(self.url(name, self.file.pk)).status_code, 404)
        self.assertEqual(self.client.post(self.url("file_delete", self.file.pk)).status_code, 404)


class AssessmentTests(KnowledgeTestCase):
    def form_data(self, **overrides: Any) -> dict:
        data = {
            "title": "Riskbedömning av kemikalier",
            "legal_document": self.statute.pk,
            "section_ref": "3 kap. 2 a §",
            "compliance_status": Assessment.Status.PARTIAL,
            "notes": "Saknar rutin för uppföljning.",
            "owner": self.bob.pk,
            "due_date": "2026-06-30",
        }
        data.update(overrides)
        return data

    def test_form_is_swedish_and_offers_statutes_and_members_only(self) -> None:
        self.login(self.alice)
        r = self.client.get(self.url("assessment_create"))
        for text in ("Krav", "Författning", "Paragraf", "Bedömning", "Anteckningar", "Ansvarig", "Förfallodatum",
                     "1977:1160 – Arbetsmiljölag (1977:1160)", "delvis uppfyllt"):
            self.assertContains(r, text)
        owners = list(r.context["form"].fields["owner"].queryset)
        self.assertEqual(set(owners), {self.alice, self.bob, self.dave})  # never charlie

    def test_create(self) -> None:
        self.login(self.bob)
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            r = self.client.post(self.url("assessment_create"), self.form_data(), follow=True)
        self.assertContains(r, "har sparats")
        a = Assessment.objects.get(title="Riskbedömning av kemikalier")
        self.assertEqual(a.workspace, self.workspace)
        self.assertEqual(a.legal_document, self.statute)
        self.assertEqual(a.owner, self.bob)
        self.assertEqual(a.created_by, self.bob)
        self.assertEqual(a.due_date, datetime.date(2026, 6, 30))
        self.assertEqual(a.compliance_status, Assessment.Status.PARTIAL)
        self.assertEqual(len(callbacks), 1)
        self.assertContains(r, "Riskbedömning av kemikalier")
        self.assertContains(r, "delvis uppfyllt")

    def test_owner_must_be_a_member(self) -> None:
        self.login(self.alice)
        r = self.client.post(self.url("assessment_create"), self.form_data(owner=self.charlie.pk))
        self.assertEqual(r.status_code, 200)
        self.assertFalse(Assessment.objects.filter(title="Riskbedömning av kemikalier").exists())
        self.assertTrue(r.context["form"].errors["owner"])

    def test_title_is_required(self) -> None:
        self.login(self.alice)
        r = self.client.post(self.url("assessment_create"), self.form_data(title="  "))
        self.assertEqual(r.status_code, 200)
        self.assertTrue(r.context["form"].errors["title"])
        self.assertContains(r, 'role="alert"')
        self.assertEqual(Assessment.objects.filter(workspace=self.workspace).count(), 1)

    def test_edit(self) -> None:
        self.login(self.alice)
        r = self.client.get(self.url("assessment_edit", self.assessment.pk))
        self.assertContains(r, 'value="Systematiskt arbetsmiljöarbete"')
        r = self.client.post(self.url("assessment_edit", self.assessment.pk),
                             self.form_data(title="SAM", compliance_status=Assessment.Status.COMPLIANT, owner=""))
        self.assertRedirects(r, self.url("knowledge"))
        self.assessment.refresh_from_db()
        self.assertEqual(self.assessment.title, "SAM")
        self.assertEqual(self.assessment.compliance_status, Assessment.Status.COMPLIANT)
        self.assertIsNone(self.assessment.owner)
        self.assertEqual(self.assessment.workspace, self.workspace)

    def test_delete(self) -> None:
        self.login(self.bob)
        self.assertContains(self.client.get(self.url("assessment_delete", self.assessment.pk)), "Ta bort bedömningen?")
        r = self.client.post(self.url("assessment_delete", self.assessment.pk))
        self.assertRedirects(r, self.url("knowledge"))
        self.assertFalse(Assessment.objects.filter(pk=self.assessment.pk).exists())

    def test_table_shows_the_assessment(self) -> None:
        self.login(self.dave)
        r = self.client.get(self.url("knowledge"))
        for text in ("Systematiskt arbetsmiljöarbete", "1977:1160", "3 kap. 2 a §", "ej bedömt", "bob", "2026-12-31"):
            self.assertContains(r, text)


class FiguresTests(KnowledgeTestCase):
    def add_chunk(self, **fields: Any) -> ContentChunk:
        defaults = {"header": "h", "path": "00000.00000", "ordinal": 0, "text": "t", "content_hash": "x"}
        defaults.update(fields)
        chunk = ContentChunk.objects.create(**defaults)
        self.refresh_counters(chunk)
        return chunk

    @staticmethod
    def refresh_counters(chunk: ContentChunk) -> None:
        # The figures come from the per-source counters that ingestion keeps; chunks made
        # here by hand get them from the same service the worker calls.
        source_progress_refresh({chunk_source_key(chunk)})

    def test_private_and_deleted_files_are_not_counted(self) -> None:
        private = UserFile.objects.create(workspace=self.workspace, title="Hemlig", original_name="h.txt",
                                          is_private=True)
        self.add_chunk(source_type="USER_FILE", user_file=self.file, workspace=self.workspace)
        self.add_chunk(source_type="USER_FILE", user_file=private, workspace=self.workspace)
        stats = knowledge_stats(self.workspace)
        self.assertEqual(stats["chunks"], 1)
        services.user_file_delete(self.file)
        self.assertEqual(knowledge_stats(self.workspace)["chunks"], 0)

    def test_figures(self) -> None:
        self.add_chunk(source_type="LEGAL_DOCUMENT", legal_document=self.statute, embedding=[0.1] * 384,
                       embedding_model=active_model_name())
        self.add_chunk(source_type="USER_FILE", user_file=self.file, workspace=self.workspace)
        self.login(self.alice)
        r = self.client.get(self.url("knowledge"))
        overview = r.context["overview"]
        self.assertEqual(overview["files"], 1)
        self.assertEqual(overview["assessments"], 1)
        self.assertEqual(overview["statutes"], 1)
        self.assertEqual(overview["documents"], 3)
        self.assertEqual(overview["chunks"], 2)
        self.assertEqual(overview["embedded_percent"], 50.0)
        self.assertEqual(overview["embedding"]["label"], "bäddar in")
        self.assertGreater(overview["size"]["total_bytes"], 0)
        self.assertContains(r, "indexstorlek")
        self.assertContains(r, "MB")
        self.assertContains(r, active_model_name())
        self.assertContains(r, "50 %")

    def test_model_state(self) -> None:
        self.assertEqual(embedding_state(self.workspace)["label"], "klar")
        chunk = self.add_chunk(source_type="USER_FILE", user_file=self.file, workspace=self.workspace)
        self.assertEqual(embedding_state(self.workspace)["label"], "bäddar in")
        # Another workspace's pending chunks do not count for alice.
        self.assertEqual(embedding_state(self.charlies_workspace)["label"], "klar")
        ContentChunk.objects.filter(pk=chunk.pk).update(embedding=[0.2] * 384, embedding_model=active_model_name())
        self.refresh_counters(chunk)
        self.assertEqual(embedding_state(self.workspace)["label"], "klar")
        embedding_record_error("Modellen kunde inte laddas.")
        try:
            state = embedding_state(self.workspace)
            self.assertEqual(state["label"], "fel")
            self.assertEqual(state["error"], "Modellen kunde inte laddas.")
        finally:
            embedding_record_ok()
        self.assertIsNone(cache.get(EMBEDDING_ERROR_CACHE_KEY))

    def test_queue_and_time_left_come_from_counts_and_the_measured_rate(self) -> None:
        cache.delete(EMBED_RATE_CACHE_KEY)
        UserFile.objects.filter(pk=self.file.pk).update(status=ProcessingStatus.PROCESSING)
        for i in range(3):
            self.add_chunk(source_type="USER_FILE", user_file=self.file, workspace=self.workspace, path=f"{i:05d}")
        statute_chunks = ContentChunk.objects.bulk_create(
            ContentChunk(source_type="LEGAL_DOCUMENT", legal_document=self.statute, header="h", path=f"{i:05d}",
                         ordinal=i, text="t", content_hash="x") for i in range(600))
        self.refresh_counters(statute_chunks[0])
        self.login(self.alice)
        partial = self.client.get(self.url("knowledge_status"))
        overview = partial.context["overview"]
        self.assertEqual((overview["chunks_pending"], overview["own_chunks_pending"]), (603, 3))
        self.assertIsNone(overview["eta_seconds"])  # no batch measured yet: no guess
        self.assertContains(partial, "tid kvar beräknas när första satsen är klar")
        self.assertContains(partial, f'{overview["sources_queued"]} i kö · {overview["sources_processing"]} bearbetas')
        self.assertGreaterEqual(overview["sources_processing"], 1)

        embedding_rate_record(32, 4.0)  # a worker embedded a batch at 8 chunks/s
        try:
            partial = self.client.get(self.url("knowledge_status"))
            overview = partial.context["overview"]
            self.assertEqual(overview["eta_seconds"], round(603 / 8))
            self.assertEqual(overview["own_eta_seconds"], round(3 / 8))
            self.assertContains(partial, "dina dokument: under en minut kvar")
            self.assertContains(partial, "allt: cirka 1 min kvar")
        finally:
            cache.delete(EMBED_RATE_CACHE_KEY)

    def test_index_size_selector(self) -> None:
        size = chunk_index_size()
        self.assertGreaterEqual(size["total_bytes"], size["index_bytes"])
        self.assertGreater(size["index_bytes"], 0)  # the indexes exist even when empty

    def test_polling_only_while_something_is_processing(self) -> None:
        self.login(self.alice)
        partial = self.client.get(self.url("knowledge_status"))
        self.assertContains(partial, 'id="knowledge-status"')
        self.assertContains(partial, 'hx-trigger="every 2s"')  # the uploaded file is pending
        self.assertNotContains(partial, "<html")
        UserFile.objects.filter(pk=self.file.pk).update(status=ProcessingStatus.PROCESSING,
                                                        chunks_total=10, chunks_embedded=4)
        partial = self.client.get(self.url("knowledge_status"))
        self.assertContains(partial, 'max="10" value="4"')
        self.assertContains(partial, "bearbetas")
        UserFile.objects.filter(workspace=self.workspace).update(status=ProcessingStatus.DONE)
        Assessment.objects.filter(workspace=self.workspace).update(status=ProcessingStatus.DONE)
        partial = self.client.get(self.url("knowledge_status"))
        self.assertNotContains(partial, "hx-trigger")
        self.assertContains(partial, "klar")
        # Charlie's pending file does not keep alice's page polling.
        self.assertEqual(UserFile.objects.get(pk=self.charlies_file.pk).status, ProcessingStatus.PENDING)
