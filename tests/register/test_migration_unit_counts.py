"""register 0008: each amendment notice gets its units by kind, counted from its version's changes, unless its
stored count no longer matches them (then it keeps its count alone rather than a breakdown of other units); run
with Django's own MigrationExecutor on the historical models, as `migrate` runs it."""

from __future__ import annotations

from tests.migrations import MigrationTestCase

BEFORE = [("register", "0007_notice_cited_units")]
AFTER = [("register", "0008_notice_unit_counts")]


class UnitCountsMigrationTests(MigrationTestCase):
    before = BEFORE

    def setUp(self) -> None:
        super().setUp()
        apps = self.before_apps
        Workspace = apps.get_model("compliance", "Workspace")
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        StatuteVersion = apps.get_model("law", "StatuteVersion")
        StatuteChange = apps.get_model("law", "StatuteChange")
        ChangeNotice = apps.get_model("register", "ChangeNotice")
        ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
        doc = LegalDocument.objects.create(sfs_number="2099:1", title="Lag (2099:1) om provföretag", full_text="1 §")
        old, new, newer = [StatuteVersion.objects.create(document=doc, full_text=f"1 § v{n}", content_hash=str(n),
                                                         origin="FILE", amended_through=f"SFS 2099:{n}")
                           for n in (1, 2, 3)]
        for ordinal, (kind, citation) in enumerate([("AMENDED", "1 §"), ("REPEALED", "2 §"), ("ADDED", "3 §"),
                                                    ("AMENDED", "4 §")]):
            StatuteChange.objects.create(document=doc, from_version=old, to_version=new, kind=kind,
                                         citation=citation, ordinal=ordinal)
        StatuteChange.objects.create(document=doc, from_version=new, to_version=newer, kind="AMENDED",
                                     citation="1 §")
        self.counted = ChangeNotice.objects.create(workspace=ws, legal_document=doc, version=new, kind="amended",
                                                   change_count=4)
        # Answered before its version's changes were rebuilt: it counted 3 units, its version now has 1.
        self.stale = ChangeNotice.objects.create(workspace=ws, legal_document=doc, version=newer, kind="amended",
                                                 change_count=3)

    def test_forward_counts_each_notice_by_kind_from_its_version(self) -> None:
        apps = self.migrate(AFTER)
        ChangeNotice = apps.get_model("register", "ChangeNotice")
        assert ChangeNotice.objects.get(pk=self.counted.pk).unit_counts == {"ADDED": 1, "AMENDED": 2, "REPEALED": 1}
        stale = ChangeNotice.objects.get(pk=self.stale.pk)
        assert (stale.unit_counts, stale.change_count) == ({}, 3)
