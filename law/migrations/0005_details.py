"""Finds the statutes each agency regulation details in a database loaded before LegalDocument.details_sfs
existed, once: the loaders refresh it only when a load changes something."""

from django.db import migrations

from law.services import legal_document_details_refresh


def find(apps, schema_editor):
    legal_document_details_refresh(apps.get_model("compliance", "LegalDocument"))


class Migration(migrations.Migration):

    dependencies = [
        ("law", "0004_addressees"),
        ("compliance", "0013_legaldocument_details_sfs"),
    ]

    operations = [
        migrations.RunPython(find, migrations.RunPython.noop),
    ]
