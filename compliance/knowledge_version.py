"""A workspace's knowledge_version follows its data, not its callers.

The retrieval cache keys on `Workspace.knowledge_version` (agent/retrieval/cache.py). The services bump it
(`workspace_touch_knowledge`), but a file made private by admin's plain `save()`, a bulk `update()`, a shell
or a migration went around them, and the context block kept serving the file's text from the cache. These
statement-level triggers bump the version whenever a file or an assessment changes what retrieval may see
of it (privacy, deletion, the version state, its workspace) or goes away, whichever code path did it.

A table every row of which is retrieval's input (a workspace's glossary: glossary/models.py) bumps on every insert,
update and delete (`every_change_sql`), installed by its own app's migration; a table some of whose columns are
(a laglista's items: the register prior weighs the documents on it) bumps on every insert and delete and on the
updates that change those columns (`row_change_sql`).

Each statement bumps its workspaces once, in id order (two statements lock them in the same order; the
keyword statistics' triggers lock the same rows in the same order).
"""

from __future__ import annotations

# (table, what changed between the old row o and the new row n that changes what retrieval sees)
_TABLES = {
    "compliance_userfile": "(o.deleted_at IS NULL) <> (n.deleted_at IS NULL) OR o.is_private <> n.is_private"
                           " OR o.version_state <> n.version_state OR o.workspace_id <> n.workspace_id",
    "compliance_assessment": "(o.deleted_at IS NULL) <> (n.deleted_at IS NULL) OR o.workspace_id <> n.workspace_id",
}

# Bumps the workspaces {ids} selects, each once, locked in id order.
_BUMP = ("UPDATE compliance_workspace w SET knowledge_version = w.knowledge_version + 1 FROM ("
         "SELECT id FROM compliance_workspace WHERE id IN ({ids}) ORDER BY id FOR UPDATE) AS locked "
         "WHERE w.id = locked.id;")
# Each event's statement trigger, with the transition tables it may read.
_TRIGGERS = {
    "insert": "CREATE TRIGGER {table}_knowledge_on_insert AFTER INSERT ON {table}\n"
              "    REFERENCING NEW TABLE AS changed_new FOR EACH STATEMENT EXECUTE FUNCTION {table}_knowledge_bump();\n",
    "update": "CREATE TRIGGER {table}_knowledge_on_update AFTER UPDATE ON {table}\n"
              "    REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new FOR EACH STATEMENT\n"
              "    EXECUTE FUNCTION {table}_knowledge_bump();\n",
    "delete": "CREATE TRIGGER {table}_knowledge_on_delete AFTER DELETE ON {table}\n"
              "    REFERENCING OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION {table}_knowledge_bump();\n",
}


def _install(table: str, branches: str, events: tuple[str, ...]) -> str:
    # A statement's transition tables exist only for its own event, and plpgsql plans a query when it
    # first runs it, so each event has its own branch.
    return (f"""
CREATE OR REPLACE FUNCTION {table}_knowledge_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
{branches}
    RETURN NULL;
END $$;
""" + "".join(_TRIGGERS[event].format(table=table) for event in events))


def _uninstall(table: str, events: tuple[str, ...]) -> str:
    return ("".join(f"DROP TRIGGER IF EXISTS {table}_knowledge_on_{event} ON {table};\n" for event in events)
            + f"DROP FUNCTION IF EXISTS {table}_knowledge_bump();\n")


def _function(table: str, changed: str) -> str:
    both = (f"SELECT o.workspace_id FROM changed_old o JOIN changed_new n ON n.id = o.id WHERE {changed} "
            f"UNION SELECT n.workspace_id FROM changed_old o JOIN changed_new n ON n.id = o.id WHERE {changed}")
    return _install(table, f"""    IF TG_OP = 'DELETE' THEN
        {_BUMP.format(ids="SELECT workspace_id FROM changed_old")}
    ELSE
        {_BUMP.format(ids=both)}
    END IF;""", ("update", "delete"))


INSTALL_SQL = "".join(_function(table, changed) for table, changed in _TABLES.items())
UNINSTALL_SQL = "".join(_uninstall(table, ("update", "delete")) for table in _TABLES)
_EVERY = ("insert", "update", "delete")


def every_change_sql(table: str) -> str:
    """Triggers bumping the knowledge_version of the workspaces of every row a statement inserts, updates or
    deletes in `table` (it has a `workspace_id`)."""
    return _install(table, f"""    IF TG_OP = 'INSERT' THEN
        {_BUMP.format(ids="SELECT workspace_id FROM changed_new")}
    ELSIF TG_OP = 'UPDATE' THEN
        {_BUMP.format(ids="SELECT workspace_id FROM changed_old UNION SELECT workspace_id FROM changed_new")}
    ELSE
        {_BUMP.format(ids="SELECT workspace_id FROM changed_old")}
    END IF;""", _EVERY)


def every_change_uninstall_sql(table: str) -> str:
    """Removes the triggers `every_change_sql` or `row_change_sql` installed on `table`."""
    return _uninstall(table, _EVERY)


def row_change_sql(table: str, changed: str) -> str:
    """Triggers bumping the knowledge_version of the workspaces of every row a statement inserts or deletes in
    `table` (it has a `workspace_id`), and of every row it updates where `changed` holds between the old row
    `o` and the new row `n`: for a table only some of whose columns are retrieval's input (a laglista item's
    document and whether it applies, not its review dates)."""
    both = (f"SELECT o.workspace_id FROM changed_old o JOIN changed_new n ON n.id = o.id WHERE {changed} "
            f"UNION SELECT n.workspace_id FROM changed_old o JOIN changed_new n ON n.id = o.id WHERE {changed}")
    return _install(table, f"""    IF TG_OP = 'INSERT' THEN
        {_BUMP.format(ids="SELECT workspace_id FROM changed_new")}
    ELSIF TG_OP = 'UPDATE' THEN
        {_BUMP.format(ids=both)}
    ELSE
        {_BUMP.format(ids="SELECT workspace_id FROM changed_old")}
    END IF;""", _EVERY)
