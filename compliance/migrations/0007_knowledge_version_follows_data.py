"""Triggers that bump a workspace's knowledge_version whenever a file or an assessment changes what
retrieval may see (compliance/knowledge_version.py), whichever code path made the change."""

from django.db import migrations

from compliance.knowledge_version import INSTALL_SQL, UNINSTALL_SQL


class Migration(migrations.Migration):

    dependencies = [
        ("compliance", "0006_workspace_memory_version"),
    ]

    operations = [
        migrations.RunSQL(INSTALL_SQL, UNINSTALL_SQL),
    ]
