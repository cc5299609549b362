"""register 0008: each amendment notice gets its units by kind and the number of acts they name, counted from its
version's changes, unless its stored count no longer matches them (then it keeps its count alone rather than a
breakdown of other units); each suggested new statute gets its reason, read as `register.notices.subjects` reads
it: the loaded documents its text cites whose subject the workspace's laglista has, those on the list marked, a
statute the whole book cites left out (a notice made on such a statute alone keeps no reason). Run with Django's
own MigrationExecutor on the historical models, as `migrate` runs it."""

from __future__ import annotations

from tests.migrations import MigrationTestCase

BEFORE = [("register", "0007_notice_cited_units")]
AFTER = [("register", "0008_notice_counts_and_reasons")]
PROCESS = "offentlighet, sekretess, förvaltning och process"


class NoticeCountsAndReasonsMigrationTests(MigrationTestCase):
    before = BEFORE

    def setUp(self) -> None:
        super().setUp()
        apps = self.before_apps
        Workspace = apps.get_model("compliance", "Workspace")
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        LegalRegister = apps.get_model("register", "LegalRegister")
        RegisterItem = apps.get_model("register", "RegisterItem")
        StatuteVersion = apps.get_model("law", "StatuteVersion")
        StatuteChange = apps.get_model("law", "StatuteChange")
        ChangeNotice = apps.get_model("register", "ChangeNotice")
        # An amended statute: a version counted as its changes are now, and one answered before they were rebuilt.
        alices = Workspace.objects.create(name="Alices AB", slug="alices-ab")
        doc = LegalDocument.objects.create(sfs_number="2099:1", title="Lag (2099:1) om provföretag", full_text="1 §")
        old, new, newer = [StatuteVersion.objects.create(document=doc, full_text=f"1 § v{n}", content_hash=str(n),
                                                         origin="FILE", amended_through=f"SFS 2099:{n}")
                           for n in (1, 2, 3)]
        for ordinal, (kind, citation, act) in enumerate([("AMENDED", "1 §", "2099:10"), ("REPEALED", "2 §", "2099:10"),
                                                         ("ADDED", "3 §", "2099:11"), ("AMENDED", "4 §", "")]):
            StatuteChange.objects.create(document=doc, from_version=old, to_version=new, kind=kind,
                                         citation=citation, amending_sfs=act, ordinal=ordinal)
        StatuteChange.objects.create(document=doc, from_version=new, to_version=newer, kind="AMENDED",
                                     citation="1 §")
        self.counted = ChangeNotice.objects.create(workspace=alices, legal_document=doc, version=new, kind="amended",
                                                   change_count=4)
        # Answered before its version's changes were rebuilt: it counted 3 units, its version now has 1.
        self.stale = ChangeNotice.objects.create(workspace=alices, legal_document=doc, version=newer, kind="amended",
                                                 change_count=3)

        # Two suggested new statutes: one citing only a statute the whole book cites, one citing two of the list's
        # subject, one of them on the list.
        ws = Workspace.objects.create(name="Myndigheten", slug="myndigheten")
        register = LegalRegister.objects.create(workspace=ws, name="Laglista")
        docs = {number: LegalDocument.objects.create(sfs_number=number, title=title, full_text="1 §", category=PROCESS)
                for number, title in (("2017:900", "Förvaltningslag (2017:900)"),
                                      ("2010:1932", "Delgivningslag (2010:1932)"),
                                      ("1971:291", "Förvaltningsprocesslag (1971:291)"))}
        for number in ("2017:900", "2010:1932"):
            RegisterItem.objects.create(register=register, workspace=ws, legal_document=docs[number])

        def suggested(number: str, text: str) -> object:
            doc = LegalDocument.objects.create(sfs_number=number, title=f"Förordning ({number})", full_text=text)
            version = StatuteVersion.objects.create(document=doc, full_text=text, content_hash=number, origin="FILE",
                                                    is_current=True)
            return ChangeNotice.objects.create(workspace=ws, legal_document=doc, version=version, kind="new")

        self.hub_only = suggested("2099:3", "2 § Överklagas enligt förvaltningslagen (2017:900).")
        self.reasoned = suggested("2099:4", "1 § Delges enligt förvaltningsprocesslagen (1971:291) och "
                                            "delgivningslagen (2010:1932) samt förvaltningslagen (2017:900).")

    def test_forward_counts_each_notice_by_kind_from_its_version(self) -> None:
        apps = self.migrate(AFTER)
        ChangeNotice = apps.get_model("register", "ChangeNotice")
        counted = ChangeNotice.objects.get(pk=self.counted.pk)
        assert (counted.unit_counts, counted.act_count) == ({"ADDED": 1, "AMENDED": 2, "REPEALED": 1}, 2)
        stale = ChangeNotice.objects.get(pk=self.stale.pk)
        assert (stale.unit_counts, stale.act_count, stale.change_count) == ({}, 0, 3)

    def test_forward_names_the_documents_that_gave_the_subject(self) -> None:
        apps = self.migrate(AFTER)
        ChangeNotice = apps.get_model("register", "ChangeNotice")
        assert ChangeNotice.objects.get(pk=self.hub_only.pk).subject_documents == []
        assert ChangeNotice.objects.get(pk=self.reasoned.pk).subject_documents == [
            {"number": "1971:291", "title": "Förvaltningsprocesslag (1971:291)", "category": PROCESS, "listed": False},
            {"number": "2010:1932", "title": "Delgivningslag (2010:1932)", "category": PROCESS, "listed": True}]
