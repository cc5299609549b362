from django.db import migrations

from compliance.knowledge_version import every_change_sql, every_change_uninstall_sql


class Migration(migrations.Migration):
    """Every insert, update and delete of a term bumps its workspace's knowledge_version, whichever code path
    made it (services, admin, a bulk update, SQL): retrieval searches the glossary, so no cached answer may
    outlive a change to it."""

    dependencies = [
        ("glossary", "0001_initial"),
        ("compliance", "0007_knowledge_version_follows_data"),
    ]

    operations = [
        migrations.RunSQL(every_change_sql("glossary_term"), every_change_uninstall_sql("glossary_term")),
    ]
