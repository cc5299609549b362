from django.db import migrations

from compliance.knowledge_version import every_change_uninstall_sql, row_change_sql

# What of an item retrieval reads (the register prior, agent/retrieval/hybrid.py): its workspace, its document
# and whether it applies ("ej tillämplig" does not count). A status between two other values, a review date or
# a note changes no source's rank.
ITEM_CHANGED = ("o.workspace_id <> n.workspace_id OR o.legal_document_id IS DISTINCT FROM n.legal_document_id "
                "OR (o.status = 'not_applicable') <> (n.status = 'not_applicable')")


class Migration(migrations.Migration):
    """Every laglista item added or removed, and every change of its document or of whether it applies, bumps its
    workspace's knowledge_version, whichever code path made it (services, admin, an import, a bulk update, SQL, a
    register deleted with its items): retrieval weighs the documents on the laglista, so no cached answer may
    outlive a change to it."""

    dependencies = [
        ("register", "0009_notice_leaning_documents"),
        ("compliance", "0007_knowledge_version_follows_data"),
    ]

    operations = [
        migrations.RunSQL(row_change_sql("register_registeritem", ITEM_CHANGED),
                          every_change_uninstall_sql("register_registeritem")),
    ]
