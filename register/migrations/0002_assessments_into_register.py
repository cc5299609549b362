"""Every workspace's assessments become kravpunkter on its laglista, with nothing lost.

Each live assessment becomes a kravpunkt (title, §, status, notes, owner, due date) under the item for its
legal document on the workspace's first register ("Laglista", created when missing); assessments that named
no document go under one item "Egna krav utan författning". The kravpunkt keeps a link to its assessment
(`Requirement.assessment`), which stays where it is: it is still the searchable "Er bedömning" source.

Re-running is a no-op (an assessment already linked is skipped). Reversing removes exactly what this made:
the linked kravpunkter, then the items it made that hold nothing else, then the registers it made that hold
nothing; the assessments are untouched either way.
"""

from django.db import migrations

STATUS = {"compliant": "compliant", "partial": "partial", "non_compliant": "non_compliant",
          "not_assessed": "not_assessed"}
REGISTER_NAME = "Laglista"
NO_DOCUMENT_TITLE = "Egna krav utan författning"


def _item_status(statuses: list[str]) -> str:
    """An item is as good as its weakest kravpunkt: all met → met; any unmet → unmet; else partly."""
    known = [s for s in statuses if s != "not_assessed"]
    if not known:
        return "not_assessed"
    if "non_compliant" in known:
        return "non_compliant"
    if all(s == "compliant" for s in statuses):
        return "compliant"
    return "partial"


def forward(apps, schema_editor):
    Assessment = apps.get_model("compliance", "Assessment")
    LegalRegister = apps.get_model("register", "LegalRegister")
    RegisterItem = apps.get_model("register", "RegisterItem")
    Requirement = apps.get_model("register", "Requirement")
    assessments = (Assessment.objects.filter(deleted_at__isnull=True, requirement__isnull=True)
                   .order_by("workspace_id", "created_at", "pk"))
    touched_items = set()
    for assessment in assessments.iterator():
        register = LegalRegister.objects.filter(workspace_id=assessment.workspace_id).order_by("pk").first()
        if register is None:
            register = LegalRegister.objects.create(workspace_id=assessment.workspace_id, name=REGISTER_NAME,
                                                    description="Skapad från arbetsytans tidigare bedömningar.")
        if assessment.legal_document_id:
            item = RegisterItem.objects.filter(register=register, legal_document_id=assessment.legal_document_id).first()
            lookup = {"legal_document_id": assessment.legal_document_id}
        else:
            item = RegisterItem.objects.filter(register=register, legal_document__isnull=True,
                                               title=NO_DOCUMENT_TITLE).first()
            lookup = {"title": NO_DOCUMENT_TITLE}
        if item is None:
            item = RegisterItem.objects.create(register=register, workspace_id=assessment.workspace_id,
                                               origin="assessment", responsible_id=assessment.owner_id, **lookup)
        Requirement.objects.create(
            item=item, workspace_id=assessment.workspace_id, title=assessment.title[:300],
            section_ref=assessment.section_ref[:80], description=assessment.notes,
            status=STATUS.get(assessment.compliance_status, "not_assessed"), owner_id=assessment.owner_id,
            due_date=assessment.due_date, assessment_id=assessment.pk,
            position=Requirement.objects.filter(item=item).count())
        touched_items.add(item.pk)
    for item in RegisterItem.objects.filter(pk__in=touched_items, origin="assessment"):
        statuses = list(Requirement.objects.filter(item=item).values_list("status", flat=True))
        item.status = _item_status(statuses)
        item.save(update_fields=["status"])


def backward(apps, schema_editor):
    LegalRegister = apps.get_model("register", "LegalRegister")
    RegisterItem = apps.get_model("register", "RegisterItem")
    Requirement = apps.get_model("register", "Requirement")
    Requirement.objects.filter(assessment__isnull=False).delete()
    RegisterItem.objects.filter(origin="assessment", requirements__isnull=True).delete()
    LegalRegister.objects.filter(name=REGISTER_NAME, created_by__isnull=True, items__isnull=True,
                                 reviews__isnull=True,
                                 description="Skapad från arbetsytans tidigare bedömningar.").delete()


class Migration(migrations.Migration):
    dependencies = [("register", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
