from django.db import migrations, models
from django.db.models import Count

# `StatuteChange.Kind`'s order, as the notices count them.
KINDS = ["ADDED", "AMENDED", "REPEALED", "RENUMBERED"]


def count_units(apps, schema_editor) -> None:
    """Each amendment notice's units by kind, read from its version's changes. A notice whose stored count no longer
    matches them (answered before its version's changes were rebuilt) keeps no breakdown rather than a wrong one,
    and is worded by its count alone."""
    ChangeNotice = apps.get_model("register", "ChangeNotice")
    StatuteChange = apps.get_model("law", "StatuteChange")
    notices = ChangeNotice.objects.filter(kind="amended", version__isnull=False)
    version_ids = set(notices.values_list("version_id", flat=True))
    counted: dict[int, dict[str, int]] = {}
    for row in (StatuteChange.objects.filter(to_version_id__in=version_ids).values("to_version_id", "kind")
                .annotate(n=Count("id"))):
        counted.setdefault(row["to_version_id"], {})[row["kind"]] = row["n"]
    for notice in notices.only("pk", "version_id", "change_count"):
        found = counted.get(notice.version_id, {})
        if found and sum(found.values()) == notice.change_count:
            ordered = {kind: found[kind] for kind in KINDS if found.get(kind)}
            ChangeNotice.objects.filter(pk=notice.pk).update(unit_counts=ordered)


class Migration(migrations.Migration):

    dependencies = [
        ("register", "0007_notice_cited_units"),
        ("law", "0005_details"),
    ]

    operations = [
        migrations.AddField(
            model_name="changenotice",
            name="unit_counts",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.RunPython(count_units, migrations.RunPython.noop),
    ]
