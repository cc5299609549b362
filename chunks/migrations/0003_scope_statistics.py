"""Per-workspace keyword statistics kept by triggers (chunks_scopechunk, chunks_scopetermstat,
chunks_scopestat), so a question's term weights no longer count the asking workspace's visible
chunks and their postings afresh (about 16 ms for a 2,000-chunk workspace at 1M chunks).

The chunk trigger functions are replaced by versions that also keep these counts, triggers on
files and assessments count or uncount their chunks when their visibility changes, and every
workspace is counted from its chunks as they are. Databases made after this change get the
current chunk functions from 0002 already; installing them again is harmless.
"""

from django.db import migrations

from chunks.keyword_index import POSTINGS_FUNCTIONS_SQL, SCOPE_INSTALL_SQL, SCOPE_REBUILD_SQL


class Migration(migrations.Migration):

    dependencies = [
        ("chunks", "0002_keyword_postings"),
        ("compliance", "0006_workspace_memory_version"),
    ]

    operations = [
        migrations.RunSQL(SCOPE_INSTALL_SQL + POSTINGS_FUNCTIONS_SQL + SCOPE_REBUILD_SQL, migrations.RunSQL.noop),
    ]
