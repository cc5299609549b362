from django.db import migrations

from compliance.knowledge_version import every_change_uninstall_sql, row_change_sql

# What retrieval reads of a company profile (the suggestions the register prior weighs as on the laglista,
# register.suggestions.profile_prior_documents): the fields the suggestion rules read, and its workspace.
PROFILE_CHANGED = " OR ".join(
    ["o.workspace_id <> n.workspace_id",
     *(f"o.{name} IS DISTINCT FROM n.{name}" for name in ("employee_count", "industry", "sni_code",
                                                         "has_collective_agreement", "sector",
                                                         "processes_sensitive_data"))])
# ... and of a decision on a suggestion: a decided document is no longer weighed as suggested.
DECISION_CHANGED = ("o.workspace_id <> n.workspace_id OR o.legal_document_id <> n.legal_document_id "
                    "OR o.decision <> n.decision")


class Migration(migrations.Migration):
    """Every change of what a company profile suggests, and every decision on a suggestion, bumps the workspace's
    knowledge_version, whichever code path made it: retrieval weighs the documents its profile suggests and nobody
    has decided on as on its laglista, so no cached answer may outlive a change to them. A change of the profile's
    location or collective agreement's name, or a decision's reason, changes no rank and bumps nothing."""

    dependencies = [
        ("register", "0010_knowledge_version_follows_items"),
        ("compliance", "0007_knowledge_version_follows_data"),
    ]

    operations = [
        migrations.RunSQL(row_change_sql("compliance_workspaceprofile", PROFILE_CHANGED),
                          every_change_uninstall_sql("compliance_workspaceprofile")),
        migrations.RunSQL(row_change_sql("register_suggestiondecision", DECISION_CHANGED),
                          every_change_uninstall_sql("register_suggestiondecision")),
    ]
