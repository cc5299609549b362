"""Re-uploads and versions of files (issue 12, finding 3).

An identical upload is recognised and stored nowhere; a changed file under the same
name (or "Ersätt") becomes a new version that replaces the old one in retrieval once
it is processed; old versions stay in the history, downloadable and restorable by
editors. Processing runs synchronously here (chunk_document, embed_chunk_batch with
the real model); on_commit callbacks are captured, never executed.
"""

from __future__ import annotations

from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from agent.answering.prepare import prepare_context
from agent.retrieval.cache import get_retrieval_cache
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from chunks.models import ContentChunk
from chunks.selectors import chunk_list_visible
from chunks.services import chunk_document, embed_chunk_batch
from compliance import selectors, services
from compliance.errors import ApplicationError
from compliance.models import Membership, ProcessingStatus, UserFile, VersionState
from tests.helpers import BaseTestCase, make_member

MARCH = "Rapporten om arbetsmiljön lämnas till styrelsen senast den 1 mars varje år.\n"
APRIL = "Rapporten om arbetsmiljön lämnas till styrelsen senast den 15 april varje år.\n"
QUERY = "När lämnas rapporten om arbetsmiljön till styrelsen?"


def upload(name: str, text: str | bytes, content_type: str = "text/plain") -> SimpleUploadedFile:
    data = text.encode() if isinstance(text, str) else text
    return SimpleUploadedFile(name, data, content_type=content_type)


def process(user_file: UserFile) -> None:
    """What the worker does: chunk, then embed every chunk with the real model."""
    result = chunk_document("USER_FILE", user_file.pk)
    if result.to_embed:
        embed_chunk_batch(result.to_embed)


class VersionTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.dave = make_member(cls.workspace, "dave", Membership.Role.VIEWER)

    def setUp(self) -> None:
        get_retrieval_cache().clear()
        self.v1 = services.user_file_upload(workspace=self.workspace, user=self.alice,
                                            uploaded=upload("rapport.txt", MARCH))
        process(self.v1)

    def found_texts(self, mode: str) -> list[str]:
        found = retrieve_context(QUERY, self.workspace, user=self.alice,
                                 options=RetrievalOptions(mode=mode, use_references=False))
        return [c.text for c in found.chunks if c.source_type == "USER_FILE"]

    def url(self, name: str, *args: object, slug: str | None = None) -> str:
        return reverse(name, args=[slug or self.workspace.slug, *args])


class IdenticalUploadTests(VersionTestCase):
    def test_identical_bytes_are_refused_with_the_existing_name_and_nothing_is_stored(self) -> None:
        before = UserFile.objects.count()
        with self.captureOnCommitCallbacks(execute=False) as callbacks, \
                self.assertRaises(ApplicationError) as raised:
            services.user_file_upload(workspace=self.workspace, user=self.bob, uploaded=upload("kopia.txt", MARCH))
        self.assertEqual((raised.exception.code, raised.exception.status), ("duplicate_file", 409))
        self.assertEqual(raised.exception.message, "Filen finns redan: rapport.txt")
        self.assertEqual(raised.exception.details, {"file_id": self.v1.pk})
        self.assertEqual(UserFile.objects.count(), before)
        self.assertEqual(callbacks, [])  # not indexed again

    def test_another_workspaces_identical_file_does_not_count(self) -> None:
        theirs = services.user_file_upload(workspace=self.charlies_workspace, user=self.charlie,
                                           uploaded=upload("rapport.txt", MARCH))
        self.assertEqual(theirs.version, 1)
        self.assertEqual(theirs.version_state, VersionState.CURRENT)
        self.assertIsNone(theirs.version_of_id)

    def test_a_deleted_file_does_not_count(self) -> None:
        services.user_file_delete(self.v1)
        again = services.user_file_upload(workspace=self.workspace, user=self.alice,
                                          uploaded=upload("rapport.txt", MARCH))
        self.assertEqual((again.version, again.version_state), (1, VersionState.CURRENT))

    def test_browser_batch_reports_the_duplicate_in_swedish_and_saves_the_others(self) -> None:
        self.login(self.bob)
        r = self.client.post(self.url("file_upload"),
                             {"files": [upload("kopia.txt", MARCH), upload("ny.txt", "Något helt annat.\n")]},
                             follow=True)
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "Filen finns redan: rapport.txt")
        self.assertContains(r, "ny.txt: uppladdad")
        self.assertFalse(UserFile.objects.filter(original_name="kopia.txt").exists())
        self.assertTrue(UserFile.objects.filter(original_name="ny.txt", workspace=self.workspace).exists())


class NewVersionTests(VersionTestCase):
    def upload_april(self) -> UserFile:
        return services.user_file_upload(workspace=self.workspace, user=self.bob,
                                         uploaded=upload("rapport.txt", APRIL))

    def test_same_name_makes_version_two_which_replaces_the_first_once_processed(self) -> None:
        v2 = self.upload_april()
        self.assertEqual((v2.version, v2.version_of_id, v2.version_state), (2, self.v1.pk, VersionState.PENDING))
        # Until the new version is processed, the old one stays current and searchable.
        self.assertEqual(list(selectors.user_file_list(self.workspace)), [self.v1])
        self.assertTrue(any("1 mars" in t for t in self.found_texts("keyword")))
        process(v2)
        self.v1.refresh_from_db()
        v2.refresh_from_db()
        self.assertEqual((self.v1.version_state, v2.version_state), (VersionState.SUPERSEDED, VersionState.CURRENT))
        self.assertEqual(list(selectors.user_file_list(self.workspace)), [v2])
        for mode in ("keyword", "vector", "hybrid"):
            with self.subTest(mode=mode):
                texts = self.found_texts(mode)
                self.assertTrue(any("15 april" in t for t in texts), texts)
                self.assertFalse(any("1 mars" in t for t in texts), texts)
        # The ORM twin of the scope agrees; the old chunks are kept (for the history and a restore).
        visible = chunk_list_visible([self.workspace.pk]).filter(workspace=self.workspace)
        self.assertEqual(set(visible.values_list("user_file_id", flat=True)), {v2.pk})
        self.assertTrue(ContentChunk.objects.filter(user_file=self.v1).exists())

    def test_the_retrieval_cache_never_serves_the_superseded_text(self) -> None:
        messages = [{"role": "user", "content": QUERY}]
        first = prepare_context(messages, self.workspace, self.alice)
        self.assertIn("1 mars", first.context_text)
        again = prepare_context(messages, self.workspace, self.alice)
        self.assertTrue(again.metrics["cache_hit"])
        v2 = self.upload_april()
        process(v2)
        self.workspace.refresh_from_db()  # as the next request loads it
        after = prepare_context(messages, self.workspace, self.alice)
        self.assertFalse(after.metrics["cache_hit"])
        self.assertIn("15 april", after.context_text)
        self.assertNotIn("1 mars", after.context_text)
        services.user_file_version_restore(self.v1)
        self.workspace.refresh_from_db()
        restored = prepare_context(messages, self.workspace, self.alice)
        self.assertFalse(restored.metrics["cache_hit"])
        self.assertIn("1 mars", restored.context_text)
        self.assertNotIn("15 april", restored.context_text)

    def test_a_failed_new_version_leaves_the_old_one_current_and_searchable(self) -> None:
        # Whitespace only: extraction finds no text, so processing the new version fails.
        broken = services.user_file_upload(workspace=self.workspace, user=self.bob,
                                           uploaded=upload("rapport.txt", " \n \n"))
        chunk_document("USER_FILE", broken.pk)
        broken.refresh_from_db()
        self.v1.refresh_from_db()
        self.assertEqual((broken.status, broken.version_state), (ProcessingStatus.FAILED, VersionState.PENDING))
        self.assertEqual(self.v1.version_state, VersionState.CURRENT)
        self.assertTrue(any("1 mars" in t for t in self.found_texts("hybrid")))

    def test_a_later_upload_wins_over_an_earlier_one_still_waiting(self) -> None:
        v2 = self.upload_april()
        v3 = services.user_file_upload(workspace=self.workspace, user=self.bob,
                                       uploaded=upload("rapport.txt", APRIL + "Tillägg.\n"))
        self.assertEqual(v3.version, 3)
        process(v3)
        process(v2)  # the earlier upload finishing last must not take over
        states = dict(UserFile.objects.filter(pk__in=[self.v1.pk, v2.pk, v3.pk]).values_list("pk", "version_state"))
        self.assertEqual(states, {self.v1.pk: VersionState.SUPERSEDED, v2.pk: VersionState.SUPERSEDED,
                                  v3.pk: VersionState.CURRENT})

    def test_explicit_replace_under_another_name(self) -> None:
        v2 = services.user_file_upload(workspace=self.workspace, user=self.bob, replaces=self.v1,
                                       uploaded=upload("rapport-2026.txt", APRIL))
        self.assertEqual((v2.version, v2.version_of_id), (2, self.v1.pk))
        process(v2)
        self.assertEqual(list(selectors.user_file_list(self.workspace)), [v2])

    def test_restore_makes_the_old_version_current_without_reprocessing(self) -> None:
        v2 = self.upload_april()
        process(v2)
        v1_chunks = set(ContentChunk.objects.filter(user_file=self.v1).values_list("pk", flat=True))
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            services.user_file_version_restore(self.v1)
        self.assertEqual(callbacks, [])  # its chunks and vectors are reused as they are
        self.assertEqual(set(ContentChunk.objects.filter(user_file=self.v1).values_list("pk", flat=True)), v1_chunks)
        self.assertEqual(list(selectors.user_file_list(self.workspace)), [self.v1])
        for mode in ("keyword", "vector"):
            with self.subTest(mode=mode):
                texts = self.found_texts(mode)
                self.assertTrue(any("1 mars" in t for t in texts), texts)
                self.assertFalse(any("15 april" in t for t in texts), texts)

    def test_a_version_that_failed_cannot_be_restored(self) -> None:
        broken = services.user_file_upload(workspace=self.workspace, user=self.bob,
                                           uploaded=upload("rapport.txt", " \n \n"))
        chunk_document("USER_FILE", broken.pk)
        with self.assertRaises(ApplicationError) as raised:
            services.user_file_version_restore(UserFile.objects.get(pk=broken.pk))
        self.assertEqual(raised.exception.status, 409)

    def test_every_version_keeps_its_bytes(self) -> None:
        v2 = self.upload_april()
        process(v2)
        services.user_file_version_restore(self.v1)
        for version, text in ((self.v1, MARCH), (v2, APRIL)):
            with UserFile.objects.get(pk=version.pk).file.open("rb") as fh:
                self.assertEqual(fh.read(), text.encode())

    def test_a_new_version_reuses_the_vectors_of_its_unchanged_passages(self) -> None:
        first = "# Ansvar\n\nChefen ansvarar för arbetsmiljön.\n\n# Rapport\n\nRapporten lämnas senast 1 mars.\n"
        doc = services.user_file_upload(workspace=self.workspace, user=self.bob,
                                        uploaded=upload("rutin.md", first, "text/markdown"))
        process(doc)
        second = services.user_file_upload(
            workspace=self.workspace, user=self.bob,
            uploaded=upload("rutin.md", first.replace("1 mars", "15 april"), "text/markdown"))
        result = chunk_document("USER_FILE", second.pk)
        self.assertEqual((result.chunks, result.reused_embeddings, len(result.to_embed)), (2, 1, 1))

    def test_processing_again_changes_no_version(self) -> None:
        v2 = self.upload_april()
        process(v2)
        # A redelivered task, or an admin's "Bearbeta om" of the old version: neither switches back.
        chunk_document("USER_FILE", v2.pk, force=True)
        chunk_document("USER_FILE", self.v1.pk, force=True)
        self.assertEqual(list(selectors.user_file_list(self.workspace)), [v2])
        self.assertEqual(UserFile.objects.get(pk=self.v1.pk).version_state, VersionState.SUPERSEDED)

    def test_deleting_removes_every_version(self) -> None:
        v2 = self.upload_april()
        process(v2)
        services.user_file_delete(v2)
        self.assertFalse(UserFile.objects.alive().filter(pk__in=[self.v1.pk, v2.pk]).exists())
        self.assertEqual(self.found_texts("keyword"), [])


class VersionPageTests(VersionTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.v2 = services.user_file_upload(workspace=self.workspace, user=self.bob,
                                            uploaded=upload("rapport.txt", APRIL))
        process(self.v2)

    def test_history_on_the_file_page(self) -> None:
        self.login(self.dave)
        r = self.client.get(self.url("file_detail", self.v2.pk))
        self.assertContains(r, "Versionshistorik")
        self.assertContains(r, "Version 2")
        self.assertContains(r, "Version 1")
        self.assertContains(r, "Nuvarande version")
        self.assertContains(r, self.url("file_download", self.v1.pk))
        # A reader sees the history but gets no controls to change it.
        self.assertNotContains(r, "Återställ")
        self.assertNotContains(r, "Ersätt")

    def test_editor_sees_replace_and_restore(self) -> None:
        self.login(self.bob)
        r = self.client.get(self.url("file_detail", self.v2.pk))
        self.assertContains(r, "Ersätt")
        self.assertContains(r, "Återställ")
        self.assertContains(r, self.url("file_version_restore", self.v1.pk))

    def test_editor_restores_from_the_page(self) -> None:
        self.login(self.bob)
        r = self.client.post(self.url("file_version_restore", self.v1.pk), follow=True)
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "Version 1 är nu nuvarande version.")
        self.assertEqual(list(selectors.user_file_list(self.workspace)), [self.v1])

    def test_reader_may_not_restore_or_replace(self) -> None:
        self.login(self.dave)
        self.assertEqual(self.client.post(self.url("file_version_restore", self.v1.pk)).status_code, 403)
        r = self.client.post(self.url("file_replace", self.v2.pk), {"file": upload("x.txt", "Ny text.\n")})
        self.assertEqual(r.status_code, 403)
        self.assertEqual(list(selectors.user_file_list(self.workspace)), [self.v2])
        self.assertFalse(UserFile.objects.filter(original_name="x.txt").exists())

    def test_editor_replaces_from_the_page(self) -> None:
        self.login(self.bob)
        r = self.client.post(self.url("file_replace", self.v2.pk),
                             {"file": upload("rapport-ny.txt", "Helt ny rapporttext.\n")}, follow=True)
        self.assertEqual(r.status_code, 200)
        self.assertContains(r, "Version 3")
        v3 = UserFile.objects.get(original_name="rapport-ny.txt")
        self.assertEqual((v3.version, v3.version_of_id, v3.version_state), (3, self.v1.pk, VersionState.PENDING))

    def test_replace_with_identical_bytes_is_refused_in_swedish(self) -> None:
        self.login(self.bob)
        r = self.client.post(self.url("file_replace", self.v2.pk), {"file": upload("rapport.txt", APRIL)},
                             follow=True)
        self.assertContains(r, "Filen finns redan: rapport.txt")
        self.assertEqual(UserFile.objects.filter(workspace=self.workspace).count(), 2)

    def test_it_checks_ownership(self) -> None:
        self.login(self.charlie)
        for url in (self.url("file_detail", self.v1.pk, slug=self.charlies_workspace.slug),
                    self.url("file_download", self.v1.pk, slug=self.charlies_workspace.slug)):
            self.assertEqual(self.client.get(url).status_code, 404)
        for url in (self.url("file_version_restore", self.v1.pk, slug=self.charlies_workspace.slug),
                    self.url("file_replace", self.v2.pk, slug=self.charlies_workspace.slug),
                    self.url("file_version_restore", self.v1.pk)):
            self.assertEqual(self.client.post(url, {"file": upload("x.txt", "x\n")}).status_code, 404)
        self.assertEqual(list(selectors.user_file_list(self.workspace)), [self.v2])


class VersionAdminTests(VersionTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.v2 = services.user_file_upload(workspace=self.workspace, user=self.bob,
                                            uploaded=upload("rapport.txt", APRIL))
        process(self.v2)

    def test_admin_shows_the_history_and_restores(self) -> None:
        self.bob.is_staff = True
        self.bob.save()
        self.bob.user_permissions.set(Permission.objects.filter(codename__in=["view_userfile", "change_userfile"]))
        self.login(self.bob)
        page = self.client.get(reverse("admin:compliance_userfile_change", args=[self.v2.pk]))
        self.assertContains(page, "Version 1</a>")
        self.assertContains(page, "Version 2</a>")
        listed = self.client.get(reverse("admin:compliance_userfile_changelist"), {"version_state__exact": "current"})
        self.assertEqual([f.pk for f in listed.context["cl"].result_list], [self.v2.pk])
        self.client.post(reverse("admin:compliance_userfile_changelist"),
                         {"action": "restore_version", "_selected_action": [self.v1.pk]})
        self.assertEqual(list(selectors.user_file_list(self.workspace)), [self.v1])

    def test_admin_versions_are_scoped_like_everything_else(self) -> None:
        self.charlie.is_staff = True
        self.charlie.save()
        self.charlie.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
        self.login(self.charlie)
        listed = self.client.get(reverse("admin:compliance_userfile_changelist"))
        self.assertEqual(list(listed.context["cl"].result_list), [])
        for version in (self.v1, self.v2):
            page = self.client.get(reverse("admin:compliance_userfile_change", args=[version.pk]))
            self.assertEqual(page.status_code, 302)  # as for an id that does not exist
