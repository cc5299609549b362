"""register 0009: each suggested new statute gets its reason, read as `register.notices.subjects` reads it: the
loaded documents its text cites whose subject the workspace's laglista has, those on the list marked, a statute
the whole book cites left out (a notice made on such a statute alone keeps no reason). Run with Django's own
MigrationExecutor on the historical models, as `migrate` runs it."""

from __future__ import annotations

from tests.migrations import MigrationTestCase

BEFORE = [("register", "0008_notice_unit_counts")]
AFTER = [("register", "0009_notice_subject_documents")]
PROCESS = "offentlighet, sekretess, förvaltning och process"


class SubjectDocumentsMigrationTests(MigrationTestCase):
    before = BEFORE

    def setUp(self) -> None:
        super().setUp()
        apps = self.before_apps
        Workspace = apps.get_model("compliance", "Workspace")
        LegalDocument = apps.get_model("compliance", "LegalDocument")
        LegalRegister = apps.get_model("register", "LegalRegister")
        RegisterItem = apps.get_model("register", "RegisterItem")
        StatuteVersion = apps.get_model("law", "StatuteVersion")
        ChangeNotice = apps.get_model("register", "ChangeNotice")
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

    def test_forward_names_the_documents_that_gave_the_subject(self) -> None:
        apps = self.migrate(AFTER)
        ChangeNotice = apps.get_model("register", "ChangeNotice")
        assert ChangeNotice.objects.get(pk=self.hub_only.pk).subject_documents == []
        assert ChangeNotice.objects.get(pk=self.reasoned.pk).subject_documents == [
            {"number": "1971:291", "title": "Förvaltningsprocesslag (1971:291)", "category": PROCESS, "listed": False},
            {"number": "2010:1932", "title": "Delgivningslag (2010:1932)", "category": PROCESS, "listed": True}]
