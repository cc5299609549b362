import pgvector.django.indexes
from django.db import migrations


def _rebuild(ef_construction: int) -> list[str]:
    # The new graph is built beside the old one, without locking out writes, and then takes its name, so searches
    # keep their index while a large corpus is re-indexed (55 min at a million chunks on two busy cores, so the
    # migration step of a deploy over a large database waits that long; searches go on meanwhile).
    return [
        "DROP INDEX CONCURRENTLY IF EXISTS chunk_embedding_hnsw_rebuilt",
        "CREATE INDEX CONCURRENTLY chunk_embedding_hnsw_rebuilt ON chunks_contentchunk "
        f"USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = {ef_construction})",
        "DROP INDEX CONCURRENTLY chunk_embedding_hnsw",
        "ALTER INDEX chunk_embedding_hnsw_rebuilt RENAME TO chunk_embedding_hnsw",
    ]


class Migration(migrations.Migration):
    # CREATE/DROP INDEX CONCURRENTLY cannot run inside a transaction.
    atomic = False

    dependencies = [
        ('chunks', '0005_contentchunk_document_title_length'),
        ('compliance', '0014_legaldocument_title_length'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(_rebuild(256), reverse_sql=_rebuild(64))],
            state_operations=[
                migrations.RemoveIndex(
                    model_name='contentchunk',
                    name='chunk_embedding_hnsw',
                ),
                migrations.AddIndex(
                    model_name='contentchunk',
                    index=pgvector.django.indexes.HnswIndex(ef_construction=256, fields=['embedding'], m=16,
                                                            name='chunk_embedding_hnsw',
                                                            opclasses=['vector_cosine_ops']),
                ),
            ],
        ),
    ]
