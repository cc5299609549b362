"""Finds the authority each statute governs the own work of in a database loaded before
LegalDocument.addressee existed, once: the loaders refresh it only when a load changes something."""

from django.db import migrations

from law.services import legal_document_addressee_refresh


def find(apps, schema_editor):
    legal_document_addressee_refresh(apps.get_model("compliance", "LegalDocument"))


class Migration(migrations.Migration):

    dependencies = [
        ("law", "0003_cited_by_counts"),
        ("compliance", "0012_legaldocument_addressee"),
    ]

    operations = [
        migrations.RunPython(find, migrations.RunPython.noop),
    ]
