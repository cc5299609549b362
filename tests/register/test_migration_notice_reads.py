"""register 0005: the read state each notice recorded (read_at / read_by) becomes that member's NoticeRead,
and back, run with Django's own MigrationExecutor on the historical models, as `migrate` runs it."""

from __future__ import annotations

from datetime import datetime, timezone

from tests.migrations import MigrationTestCase

BEFORE = [("register", "0004_change_notices")]
AFTER = [("register", "0005_notice_read_per_user")]
READ = datetime(2026, 3, 2, 8, 30, tzinfo=timezone.utc)


class NoticeReadMigrationTests(MigrationTestCase):
    before = BEFORE

    def setUp(self) -> None:
        super().setUp()
        apps = self.before_apps
        User = apps.get_model("auth", "User")
        Workspace = apps.get_model("compliance", "Workspace")
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        StatuteVersion = apps.get_model("law", "StatuteVersion")
        ChangeNotice = apps.get_model("register", "ChangeNotice")
        self.alice = User.objects.create(username="alice")
        ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
        doc = LegalDocument.objects.create(sfs_number="2099:1", title="Lag (2099:1) om provföretag", full_text="1 §")
        versions = [StatuteVersion.objects.create(document=doc, full_text=f"1 § v{n}", content_hash=str(n),
                                                  origin="FILE", amended_through=f"SFS 2099:{n}") for n in (1, 2)]
        self.read = ChangeNotice.objects.create(workspace=ws, legal_document=doc, version=versions[0],
                                                kind="amended", read_at=READ, read_by=self.alice)
        self.unread = ChangeNotice.objects.create(workspace=ws, legal_document=doc, version=versions[1],
                                                  kind="amended")

    def test_forward_keeps_the_recorded_reader_and_reverse_restores_it(self) -> None:
        apps = self.migrate(AFTER)
        NoticeRead = apps.get_model("register", "NoticeRead")
        assert list(NoticeRead.objects.values_list("notice_id", "user_id", "read_at")) == [
            (self.read.pk, self.alice.pk, READ)]

        apps = self.migrate(BEFORE)
        ChangeNotice = apps.get_model("register", "ChangeNotice")
        restored = ChangeNotice.objects.get(pk=self.read.pk)
        assert (restored.read_at, restored.read_by_id) == (READ, self.alice.pk)
        assert ChangeNotice.objects.get(pk=self.unread.pk).read_at is None
