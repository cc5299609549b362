"""Shared setup for the register's tests: alice owns, bob edits, dave reads, erin is the revisor (auditor),
charlie is an outsider with a workspace (and a register) of his own."""

from __future__ import annotations

from typing import Any

from compliance.models import Assessment, LegalDocument, Membership, UserFile
from register import services
from register.models import LegalRegister, RegisterItem, Requirement, Review
from tests.helpers import BaseTestCase, make_member


class RegisterTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls) -> None:
        super().setUpTestData()
        cls.dave = make_member(cls.workspace, "dave", Membership.Role.VIEWER)
        cls.erin = make_member(cls.workspace, "erin", Membership.Role.AUDITOR)
        cls.aml = LegalDocument.objects.create(sfs_number="1977:1160", title="Arbetsmiljölag (1977:1160)",
                                               full_text="1 § Text.", content_type="SFS_LAW",
                                               amended_through="SFS 2024:100")
        cls.gdpr = LegalDocument.objects.create(sfs_number="(EU) 2016/679", title="Dataskyddsförordningen",
                                                full_text="Artikel 1", content_type="EU_REGULATION")
        cls.afs = LegalDocument.objects.create(sfs_number="AFS 2023:1", title="Systematiskt arbetsmiljöarbete",
                                               full_text="1 §", content_type="AGENCY_REGULATION")
        cls.policy = UserFile.objects.create(workspace=cls.workspace, title="Arbetsmiljöpolicy",
                                             original_name="policy.pdf", file="workspaces/x/policy.pdf", size=10)
        cls.private_file = UserFile.objects.create(workspace=cls.workspace, title="Hemlig lönelista",
                                                   original_name="loner.xlsx", file="workspaces/x/loner.xlsx",
                                                   size=10, is_private=True)
        cls.charlie_file = UserFile.objects.create(workspace=cls.charlies_workspace, title="Charlies fil",
                                                   original_name="c.pdf", file="workspaces/y/c.pdf", size=10)
        cls.assessment = Assessment.objects.create(workspace=cls.workspace, title="Riskbedömning")
        cls.charlie_assessment = Assessment.objects.create(workspace=cls.charlies_workspace, title="Charlies")

    def make_register(self, name: str = "Laglista") -> LegalRegister:
        return services.register_create(workspace=self.workspace, user=self.alice, name=name)

    def make_item(self, register: LegalRegister, document: LegalDocument | None = None, **kwargs: Any) -> RegisterItem:
        return services.register_item_add(register=register, user=self.alice,
                                          legal_document=document if document is not None else self.aml,
                                          **kwargs).item

    def make_requirement(self, item: RegisterItem, title: str = "Undersöka risker", **data: Any) -> Requirement:
        return services.requirement_create(item=item, user=self.alice, data={"title": title, **data})

    def make_closed_review(self, register: LegalRegister, *, rating: str = "compliant") -> Review:
        review = services.review_start(register=register, user=self.alice, title="Kontroll 2026")
        for entry in review.entries.all():
            services.review_entry_rate(entry=entry, user=self.bob, rating=rating, justification="Genomgånget")
        return services.review_close(review=review, user=self.alice)
