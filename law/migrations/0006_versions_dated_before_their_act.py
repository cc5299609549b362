import re

from django.db import migrations

_ACT_YEAR_RE = re.compile(r"(\d{4}):\d+")


def undate(apps, schema_editor) -> None:
    """A version applied before `law.services._valid_from` knew an undated act was given the statute's own
    in-force day ("ändrad genom SFS 2025:1383, gäller från 2012-01-01"). An act takes effect no earlier than the
    year it is issued in, which its number names: a later version dated before that year has no known first day,
    and its predecessor no known last day."""
    StatuteVersion = apps.get_model("law", "StatuteVersion")
    for version in StatuteVersion.objects.exclude(origin="CORPUS").exclude(valid_from=None).order_by("pk"):
        found = _ACT_YEAR_RE.search(version.amended_through or "")
        if found is None or version.valid_from.year >= int(found.group(1)):
            continue
        # A statute's first version starts on the statute's own day, as `_valid_from` gives it.
        if not StatuteVersion.objects.filter(document_id=version.document_id, pk__lt=version.pk).exists():
            continue
        StatuteVersion.objects.filter(document_id=version.document_id, pk__lt=version.pk,
                                      valid_to=version.valid_from).update(valid_to=None)
        StatuteVersion.objects.filter(pk=version.pk).update(valid_from=None)


class Migration(migrations.Migration):

    dependencies = [
        ("law", "0005_details"),
    ]

    operations = [
        migrations.RunPython(undate, migrations.RunPython.noop),
    ]
