"""The dashboard's cache version: per workspace, a stamp that every change to its material renews.

The cached figures of the Översikt page are keyed on it. A version read from the data itself (the
newest log by timestamp, the newest rating) misses a row written with an earlier timestamp (clock
skew between web hosts, a back-dated import), an update (the answer mode written after the turn) and
a delete. Statement-level triggers see every one of those, from any code path: services, admin, a
bulk `update()`, retention pruning, cascades.

Each change sets its workspaces' stamps to the next value of one sequence, drawn once it holds the row's
lock, so a workspace's stamp grows with every committed change and the sum of a scope's stamps does too
(the newest stamp alone would miss a change committed after a later one in another workspace). A sequence
is not rolled back with a transaction: after a rollback, or under a cache that outlived a restored database,
the stamps go on from values never issued, where a plain counter would count to the same sums again and
serve the figures cached for them.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Sum

from agent.models import DashboardVersion


def _bump_function(name: str, touched: str) -> str:
    """A trigger function bumping the workspaces `touched` selects from a transition table `changed`.

    A statement's transition tables exist only for its own event (INSERT: new rows, DELETE: old rows,
    UPDATE: both), and plpgsql plans a query when it first runs it, so each event has its own branch.
    Rows are upserted in workspace order: two statements bumping the same workspaces lock in one order.
    """
    def upsert(source: str) -> str:
        return (f"INSERT INTO agent_dashboardversion (workspace_id, version) "
                f"SELECT ws, nextval('agent_dashboardversion_seq') "
                f"FROM (SELECT DISTINCT ws FROM ({touched.format(changed=source)}) AS t(ws) ORDER BY ws) AS o "
                f"ON CONFLICT (workspace_id) DO UPDATE SET version = nextval('agent_dashboardversion_seq');")

    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        {upsert("changed_new")}
    ELSIF TG_OP = 'DELETE' THEN
        {upsert("changed_old")}
    ELSE
        {upsert("(SELECT * FROM changed_old UNION ALL SELECT * FROM changed_new)")}
    END IF;
    RETURN NULL;
END $$;
"""


# A rating belongs to the workspace of its message's conversation.
_TABLES = {
    "agent_retrievallog": ("agent_dashboard_bump_logs", "SELECT workspace_id FROM {changed} AS c"),
    "agent_feedback": (
        "agent_dashboard_bump_feedback",
        "SELECT conv.workspace_id FROM {changed} AS f JOIN agent_message m ON m.id = f.message_id "
        "JOIN agent_conversation conv ON conv.id = m.conversation_id",
    ),
}
_EVENTS = {
    "INSERT": "REFERENCING NEW TABLE AS changed_new",
    "UPDATE": "REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new",
    "DELETE": "REFERENCING OLD TABLE AS changed_old",
}

INSTALL_SQL = "CREATE SEQUENCE agent_dashboardversion_seq;\n" + "".join(_bump_function(function, touched) for function, touched in _TABLES.values()) + "".join(
    f"CREATE TRIGGER {function}_{event.lower()} AFTER {event} ON {table} {referencing} "
    f"FOR EACH STATEMENT EXECUTE FUNCTION {function}();\n"
    for table, (function, _) in _TABLES.items() for event, referencing in _EVENTS.items()
)

UNINSTALL_SQL = "CREATE SEQUENCE agent_dashboardversion_seq;\n" + "".join(
    f"DROP TRIGGER IF EXISTS {function}_{event.lower()} ON {table};\n"
    for table, (function, _) in _TABLES.items() for event in _EVENTS
) + "".join(f"DROP FUNCTION IF EXISTS {function}();\n" for function, _ in _TABLES.values()) + (
    "DROP SEQUENCE IF EXISTS agent_dashboardversion_seq;\n")


def dashboard_version(workspace_ids: Sequence[int] | None) -> int:
    """The sum of the scope's stamps (None: every workspace): it grows with every change to the scope's
    logs or ratings. Stamps are never deleted, so a deleted workspace cannot take the sum back."""
    counters = DashboardVersion.objects.all()
    if workspace_ids is not None:
        counters = counters.filter(workspace_id__in=list(workspace_ids))
    return counters.aggregate(total=Sum("version"))["total"] or 0
