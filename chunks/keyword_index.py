"""The keyword index behind BM25: postings with per-term impacts, and shared statistics.

BM25 scores a chunk d for query terms t as

    sum_t  idf(t) * tf'(t, d) * (k1 + 1) / (tf'(t, d) + k1 * (1 - b + b * dl(d) / L))

The right-hand factor (the "impact") depends on the chunk alone, so triggers
store it per (lexeme, chunk) in chunks_posting when a chunk is written; a query
then reads each of its terms' postings best-first from an index and multiplies
by idf. Two choices keep every stored number free of other tenants' text:

- L is a fixed reference length (the mean length of a statute section, measured
  once on the statute corpus) instead of a collection average that would move
  with every workspace's uploads;
- document frequencies are stored for the shared statutes only
  (chunks_termstat, chunks_corpusstat); a workspace's own chunks are counted at
  query time within what that workspace may see (agent.keyword_search).

tf' counts a lexeme's occurrences in the chunk's text plus HEADER_WEIGHT times
its occurrences in the contextual header (statute › chapter › rubrik): the
search_vector weights them A (header) and B (text). dl is the chunk's number of
indexed tokens. Stubs (retrievable = false) get no postings and are not counted.
"""

from __future__ import annotations

K1 = 1.2
B = 0.6
HEADER_WEIGHT = 2.0
REFERENCE_LENGTH = 55  # indexed tokens in a mean statute chunk (header included)

IMPACT_FUNCTION_SQL = f"""
CREATE OR REPLACE FUNCTION chunks_bm25_impact(tf_a integer, tf_b integer, dl integer) RETURNS real
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ((tf_b + {HEADER_WEIGHT} * tf_a) * ({K1} + 1)
          / ((tf_b + {HEADER_WEIGHT} * tf_a) + {K1} * (1 - {B} + {B} * greatest(dl, 1)::float8 / {REFERENCE_LENGTH})))::real
$$;
"""

def _postings_of(rows: str, where: str) -> str:
    """The postings (id, workspace_id, lexeme, tf_a, tf_b, dl) of the chunks `rows r` WHERE `where`:
    one per lexeme, header (weight A) and text occurrences apart, dl the chunk's indexed tokens."""
    return f"""
        SELECT u.*, sum(u.tf_a + u.tf_b) OVER (PARTITION BY u.id)::int AS dl FROM (
            SELECT r.id, r.workspace_id, t.lexeme,
                   count(*) FILTER (WHERE w = 'A')::int AS tf_a, count(*) FILTER (WHERE w <> 'A')::int AS tf_b
            FROM {rows} r, unnest(r.search_vector) t, unnest(t.weights) w
            WHERE {where}
            GROUP BY r.id, r.workspace_id, t.lexeme) u"""


def _index(rows: str, where: str) -> str:
    """Insert the postings of those chunks and count the statutes' ones into the shared statistics."""
    return f"""
    WITH p AS ({_postings_of(rows, where)}),
    ins AS (
        INSERT INTO chunks_posting (lexeme, chunk_id, workspace_id, tf_a, tf_b, dl, impact)
        SELECT lexeme, id, workspace_id, tf_a, tf_b, dl, chunks_bm25_impact(tf_a, tf_b, dl) FROM p
        RETURNING lexeme, chunk_id, workspace_id, dl),
    -- Shared statistics: statutes only. Sorted upserts: concurrent loads lock rows in one order.
    ts AS (
        INSERT INTO chunks_termstat AS s (lexeme, df)
        SELECT lexeme, count(*) FROM ins WHERE workspace_id IS NULL GROUP BY lexeme ORDER BY lexeme
        ON CONFLICT (lexeme) DO UPDATE SET df = s.df + EXCLUDED.df)
    UPDATE chunks_corpusstat SET n_docs = n_docs + d.n, total_len = total_len + d.len
    FROM (SELECT count(*) AS n, coalesce(sum(dl), 0) AS len
          FROM (SELECT DISTINCT chunk_id, dl FROM ins WHERE workspace_id IS NULL) x) d
    WHERE id = 1 AND d.n > 0;"""


def _unindex(chunks: str) -> str:
    """Take the postings of the chunks `chunks` picks (a condition on chunks_posting p) out of the
    statistics, then delete them."""
    return f"""
    UPDATE chunks_termstat s SET df = s.df - d.n
    FROM (SELECT p.lexeme, count(*) AS n FROM chunks_posting p WHERE {chunks} AND p.workspace_id IS NULL
          GROUP BY p.lexeme ORDER BY p.lexeme) d
    WHERE s.lexeme = d.lexeme;
    UPDATE chunks_corpusstat SET n_docs = n_docs - d.n, total_len = total_len - d.len
    FROM (SELECT count(*) AS n, coalesce(sum(dl), 0) AS len FROM (
            SELECT DISTINCT p.chunk_id, p.dl FROM chunks_posting p WHERE {chunks} AND p.workspace_id IS NULL) x) d
    WHERE id = 1 AND d.n > 0;
    DELETE FROM chunks_posting p WHERE {chunks};"""


INSTALL_SQL = IMPACT_FUNCTION_SQL + f"""
CREATE TABLE chunks_posting (
    lexeme text NOT NULL,
    chunk_id bigint NOT NULL,
    workspace_id bigint NULL,
    tf_a smallint NOT NULL,
    tf_b smallint NOT NULL,
    dl integer NOT NULL,
    impact real NOT NULL
);
CREATE INDEX chunks_posting_term ON chunks_posting (lexeme, impact DESC) INCLUDE (chunk_id, workspace_id);
CREATE INDEX chunks_posting_chunk ON chunks_posting (chunk_id, lexeme) INCLUDE (impact);
CREATE INDEX chunks_posting_workspace ON chunks_posting (workspace_id, lexeme) WHERE workspace_id IS NOT NULL;

CREATE TABLE chunks_termstat (lexeme text PRIMARY KEY, df integer NOT NULL);
CREATE TABLE chunks_corpusstat (id integer PRIMARY KEY CHECK (id = 1), n_docs bigint NOT NULL, total_len bigint NOT NULL);
INSERT INTO chunks_corpusstat VALUES (1, 0, 0);

CREATE FUNCTION chunks_postings_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {_index("new_rows", "r.retrievable")}
    RETURN NULL;
END $$;

CREATE FUNCTION chunks_postings_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {_unindex("p.chunk_id IN (SELECT id FROM old_rows)")}
    RETURN NULL;
END $$;

CREATE TRIGGER chunks_postings_on_insert AFTER INSERT ON chunks_contentchunk
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_postings_add();
CREATE TRIGGER chunks_postings_on_delete AFTER DELETE ON chunks_contentchunk
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_postings_remove();
"""

# An update that changes what a chunk indexes (its text, header, scope or retrievable
# flag) is a removal plus an addition; vector updates (the common case) touch nothing.
INSTALL_SQL += """
CREATE FUNCTION chunks_postings_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changed bigint[];
BEGIN
    changed := ARRAY(SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
                     WHERE o.search_vector IS DISTINCT FROM n.search_vector OR o.retrievable <> n.retrievable
                        OR o.workspace_id IS DISTINCT FROM n.workspace_id);
    IF cardinality(changed) > 0 THEN
        PERFORM chunks_postings_reindex(changed);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER chunks_postings_on_update AFTER UPDATE ON chunks_contentchunk
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_postings_update();
"""

# Re-derive the postings and statistics of some chunks from their current rows
# (used by the update trigger; an empty array is a no-op).
INSTALL_SQL += f"""
CREATE FUNCTION chunks_postings_reindex(ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    {_unindex("p.chunk_id = ANY(ids)")}
    {_index("chunks_contentchunk", "r.id = ANY(ids) AND r.retrievable")}
END $$;
"""

# Build everything from the chunks as they are (after the migration, or to recompute
# the impacts when K1, B, HEADER_WEIGHT or REFERENCE_LENGTH change). One pass, no
# upserts: the synthetic 1M-chunk benchmark corpus is built with it.
REBUILD_SQL = f"""
TRUNCATE chunks_posting, chunks_termstat;
UPDATE chunks_corpusstat SET n_docs = 0, total_len = 0;
INSERT INTO chunks_posting (lexeme, chunk_id, workspace_id, tf_a, tf_b, dl, impact)
SELECT lexeme, id, workspace_id, tf_a, tf_b, dl, chunks_bm25_impact(tf_a, tf_b, dl)
FROM ({_postings_of("chunks_contentchunk", "r.retrievable")}) p;
INSERT INTO chunks_termstat (lexeme, df)
SELECT lexeme, count(*) FROM chunks_posting WHERE workspace_id IS NULL GROUP BY lexeme;
UPDATE chunks_corpusstat SET n_docs = d.n, total_len = d.len
FROM (SELECT count(*) AS n, coalesce(sum(dl), 0) AS len
      FROM (SELECT DISTINCT chunk_id, dl FROM chunks_posting WHERE workspace_id IS NULL) x) d WHERE id = 1;
"""

DROP_SQL = """
DROP TRIGGER IF EXISTS chunks_postings_on_insert ON chunks_contentchunk;
DROP TRIGGER IF EXISTS chunks_postings_on_delete ON chunks_contentchunk;
DROP TRIGGER IF EXISTS chunks_postings_on_update ON chunks_contentchunk;
DROP FUNCTION IF EXISTS chunks_postings_add(), chunks_postings_remove(), chunks_postings_update(),
    chunks_postings_reindex(bigint[]), chunks_bm25_impact(integer, integer, integer);
DROP TABLE IF EXISTS chunks_posting, chunks_termstat, chunks_corpusstat;
"""


def rebuild_keyword_index(cursor) -> None:
    """Recompute every impact and statistic from the chunks (after changing the constants)."""
    cursor.execute(IMPACT_FUNCTION_SQL)
    cursor.execute(REBUILD_SQL)


def vacuum_keyword_index(cursor) -> None:
    """VACUUM (ANALYZE) what a search reads, after a bulk load (outside any transaction).

    The keyword half reads each term's postings best-first with an index-only scan; until
    the visibility map is set, every posting read is also a heap fetch, the planner costs
    the ordered read accordingly and reads all of a term's postings in a bitmap scan and
    sorts them instead (at 100k chunks: 0.5 s instead of 5 ms for a common word).
    Autovacuum gets there too, but only a minute or more after a load.
    """
    for table in ("chunks_contentchunk", "chunks_posting", "chunks_termstat"):
        cursor.execute(f"VACUUM (ANALYZE) {table}")
