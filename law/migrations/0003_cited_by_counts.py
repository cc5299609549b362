"""Counts who cites whom in a database loaded before LegalDocument.cited_by existed, once: the loaders
refresh the counts only when a load changes something, so an unchanged reload would never count them."""

from django.db import migrations

from law.services import legal_document_cited_by_refresh


def count(apps, schema_editor):
    legal_document_cited_by_refresh(apps.get_model("compliance", "LegalDocument"))


class Migration(migrations.Migration):

    dependencies = [
        ("law", "0002_change_summary"),
        ("compliance", "0011_legaldocument_cited_by"),
    ]

    operations = [
        migrations.RunPython(count, migrations.RunPython.noop),
    ]
