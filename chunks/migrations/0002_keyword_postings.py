"""Keyword postings and statistics for BM25, and the `retrievable` flag.

chunks_posting holds one row per (chunk, lexeme) of every retrievable chunk's
search_vector with its BM25 term weight ("impact", see chunks.keyword_index),
so a query reads each term's postings best-first from an index instead of
ranking every matching row. chunks_termstat and chunks_corpusstat hold the
document frequencies and the chunk count of the shared statutes only;
workspace chunks are counted at query time within the asking workspace's
scope, so no tenant's text ever moves another tenant's statistics.
Statement-level triggers keep all three in step with every insert, delete and
update of chunks, whichever code path makes it.
"""

from django.db import migrations, models

from chunks.keyword_index import POSTINGS_DROP_SQL, POSTINGS_INSTALL_SQL, POSTINGS_REBUILD_SQL


def mark_stubs(apps, schema_editor):
    from chunks.chunking import is_stub

    ContentChunk = apps.get_model("chunks", "ContentChunk")
    stubs = [pk for pk, text in ContentChunk.objects.filter(source_type="LEGAL_DOCUMENT")
             .values_list("pk", "text").iterator(chunk_size=2000) if is_stub(text)]
    for i in range(0, len(stubs), 1000):
        ContentChunk.objects.filter(pk__in=stubs[i:i + 1000]).update(retrievable=False)


class Migration(migrations.Migration):

    dependencies = [
        ("chunks", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="contentchunk",
            name="retrievable",
            field=models.BooleanField(default=True),
        ),
        migrations.RunPython(mark_stubs, migrations.RunPython.noop),
        migrations.RunSQL(POSTINGS_INSTALL_SQL + POSTINGS_REBUILD_SQL, POSTINGS_DROP_SQL),
    ]
