"""law 0006: a later version dated before the year of the act its text runs through (given the statute's own day
when the record did not date the act) loses that day, and its predecessor the matching last day; a day in or after
the act's year, and a statute's first version, keep theirs. Run with Django's own MigrationExecutor on the
historical models, as `migrate` runs it."""

from __future__ import annotations

from datetime import date

from tests.migrations import MigrationTestCase

BEFORE = [("law", "0005_details")]
AFTER = [("law", "0006_versions_dated_before_their_act")]


class UndatedVersionsMigrationTests(MigrationTestCase):
    before = BEFORE

    def setUp(self) -> None:
        super().setUp()
        apps = self.before_apps
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        StatuteVersion = apps.get_model("law", "StatuteVersion")

        def version(doc: object, through: str, origin: str, valid_from: date | None,
                    valid_to: date | None = None) -> object:
            return StatuteVersion.objects.create(document=doc, amended_through=through, full_text=through,
                                                 content_hash=through, origin=origin, valid_from=valid_from,
                                                 valid_to=valid_to)

        wrong = LegalDocument.objects.create(sfs_number="2011:1", title="Lag (2011:1)", full_text="1 §")
        self.corpus = version(wrong, "SFS 2023:881", "CORPUS", None, date(2012, 1, 1))
        self.wrong = version(wrong, "SFS 2025:1383", "FILE", date(2012, 1, 1))
        right = LegalDocument.objects.create(sfs_number="2011:2", title="Lag (2011:2)", full_text="1 §")
        self.right_corpus = version(right, "SFS 2023:1", "CORPUS", None, date(2026, 1, 1))
        self.right = version(right, "SFS 2025:1079", "FILE", date(2026, 1, 1))
        new = LegalDocument.objects.create(sfs_number="2024:9", title="Lag (2024:9)", full_text="1 §")
        self.first = version(new, "SFS 2025:3", "FILE", date(2024, 7, 1))

    def test_forward_undates_a_version_dated_before_its_act(self) -> None:
        apps = self.migrate(AFTER)
        StatuteVersion = apps.get_model("law", "StatuteVersion")

        def days(version: object) -> tuple[date | None, date | None]:
            row = StatuteVersion.objects.get(pk=version.pk)
            return row.valid_from, row.valid_to

        assert days(self.wrong) == (None, None) and days(self.corpus) == (None, None)
        assert days(self.right) == (date(2026, 1, 1), None) and days(self.right_corpus) == (None, date(2026, 1, 1))
        assert days(self.first) == (date(2024, 7, 1), None)
