"""Knowledge-base controls: "Synka nu" re-processes what changed, on the bulk queue; the last update is
shown as a relative time with the exact time on hover."""

from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone

from chunks.models import ContentChunk
from chunks.tasks import BULK_QUEUE
from compliance.models import Assessment, ProcessingStatus, UserFile, Workspace
from compliance.templatetags.lagrum_time import relative_time
from tests.helpers import BaseTestCase

pytestmark = pytest.mark.clock


class KnowledgeControlTests(BaseTestCase):
    def url(self, name: str, ws: Workspace | None = None) -> str:
        return reverse(name, args=[(ws or self.workspace).slug])

    def make_file(self, title: str, *, content: str = "a", chunked: str = "a", status: str = ProcessingStatus.DONE,
                  **extra: Any) -> UserFile:
        return UserFile.objects.create(workspace=self.workspace, title=title, original_name=f"{title}.txt",
                                       file="x", content_hash=content, chunked_hash=chunked, status=status,
                                       processed_at=timezone.now(), **extra)

    def test_sync_requeues_only_what_changed_on_the_bulk_queue(self) -> None:
        same = self.make_file("Oförändrad")
        changed = self.make_file("Ändrad", content="b")
        failed = self.make_file("Misslyckad", status=ProcessingStatus.FAILED)
        self.make_file("Borttagen", content="b", deleted_at=timezone.now())
        old_model = Assessment.objects.create(workspace=self.workspace, title="Gammal modell", content_hash="a",
                                              chunked_hash="a", status=ProcessingStatus.DONE)
        chunk = ContentChunk.objects.create(source_type="ASSESSMENT", assessment=old_model, workspace=self.workspace,
                                            header="h", path="0", ordinal=0, text="t", content_hash="h",
                                            embedding=[0.1] * 384, embedding_model="ett-gammalt-namn")
        self.login(self.bob)
        with mock.patch("chunks.tasks.process_document.apply_async") as process, \
                mock.patch("chunks.tasks.embed_chunks.apply_async") as embed, \
                self.captureOnCommitCallbacks(execute=True):
            r = self.client.post(self.url("knowledge_sync"), follow=True)
        self.assertContains(r, "3 dokument synkas nu.")
        queued = {call.args[0] for call in process.call_args_list}
        self.assertEqual(queued, {("USER_FILE", changed.pk), ("USER_FILE", failed.pk)})
        self.assertTrue(all(call.kwargs["queue"] == BULK_QUEUE for call in process.call_args_list))
        self.assertEqual(embed.call_args_list[0].args[0], ([chunk.pk],))
        self.assertEqual(embed.call_args_list[0].args[1], {"bulk": True})
        changed.refresh_from_db()
        same.refresh_from_db()
        self.assertEqual((changed.status, same.status), (ProcessingStatus.PENDING, ProcessingStatus.DONE))
        # The page polls while anything is pending: progress is visible.
        self.assertContains(r, 'hx-trigger="every 2s"')

    def test_sync_with_nothing_to_do_says_so(self) -> None:
        self.make_file("Oförändrad")
        self.login(self.alice)
        r = self.client.post(self.url("knowledge_sync"), follow=True)
        self.assertContains(r, "Allt är redan uppdaterat")

    def test_it_checks_ownership(self) -> None:
        changed = self.make_file("Ändrad", content="b")
        self.login(self.charlie)
        self.assertEqual(self.client.post(self.url("knowledge_sync")).status_code, 404)
        changed.refresh_from_db()
        self.assertEqual(changed.status, ProcessingStatus.DONE)

    def test_last_update_is_relative_with_the_exact_time_on_hover(self) -> None:
        self.make_file("Fil")
        UserFile.objects.update(processed_at=timezone.now() - timedelta(minutes=5))
        self.login(self.alice)
        r = self.client.get(self.url("knowledge"))
        self.assertContains(r, "för 5\u00a0minuter sedan")  # naturaltime keeps number and unit together
        exact = timezone.localtime(UserFile.objects.get().processed_at).strftime("%Y-%m-%d %H:%M")
        self.assertContains(r, f'title="{exact}"')
        self.assertContains(r, "Synka nu")
        self.assertEqual(relative_time(timezone.now() - timedelta(hours=2)), "för 2\u00a0timmar sedan")
