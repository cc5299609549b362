"""`document_repealed`: a repealed statute's chunks leave ordinary retrieval through their own flag.

Until now a repeal set `retrievable = false` on all of the statute's chunks, the flag that marks stubs,
so a question naming the repealed statute found nothing. The repealed statutes' chunks get the new flag,
and `retrievable` goes back to meaning "not a stub" for them (the keyword triggers index them again).
"""

from django.db import migrations, models


def split_repeal_from_stubs(apps, schema_editor):
    from chunks.chunking import is_stub

    ContentChunk = apps.get_model("chunks", "ContentChunk")
    StatuteRepeal = apps.get_model("law", "StatuteRepeal")
    repealed = list(StatuteRepeal.objects.values_list("document_id", flat=True))
    if not repealed:
        return
    chunks = ContentChunk.objects.filter(legal_document_id__in=repealed)
    chunks.update(document_repealed=True)
    content = [pk for pk, text in chunks.values_list("pk", "text").iterator(chunk_size=2000) if not is_stub(text)]
    for i in range(0, len(content), 1000):
        ContentChunk.objects.filter(pk__in=content[i:i + 1000]).update(retrievable=True)


def join_repeal_with_stubs(apps, schema_editor):
    ContentChunk = apps.get_model("chunks", "ContentChunk")
    ContentChunk.objects.filter(document_repealed=True).update(retrievable=False)


class Migration(migrations.Migration):

    dependencies = [
        ("chunks", "0003_scope_statistics"),
        ("law", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="contentchunk",
            name="document_repealed",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.RunPython(split_repeal_from_stubs, join_repeal_with_stubs),
    ]
