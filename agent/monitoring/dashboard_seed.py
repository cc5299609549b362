"""Synthetic chat history for measuring the dashboard: conversations, answers, retrieval logs and
feedback, generated inside Postgres (generate_series) so 100k rows take seconds, not minutes.

The figures are random but plausible (intents, answer modes, latencies, zero matches, cache hits),
spread over the last `days` days up to the application's clock (all inside a dashboard period of `days`,
none in the future even when tests move that clock). Only for a workspace made for the purpose: `seed_dashboard_logs`
first deletes that workspace's conversations and logs.
"""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone

from agent.models import Conversation, RetrievalLog
from compliance.models import Workspace

from .dashboard import rollup_reset

LOGS_PER_CONVERSATION = 20

_MESSAGES_SQL = """
INSERT INTO agent_message (conversation_id, role, content, answer_mode, sources, removed_citations, degraded,
                           error, model_name, created_at, proposals)
SELECT c.ids[1 + (g %% array_length(c.ids, 1))], 'assistant', 'Syntetiskt svar ' || g,
       (ARRAY['model', 'model', 'model', 'extractive', 'extractive', 'direct', 'error'])[1 + floor(random() * 7)::int],
       '[]'::jsonb, '[]'::jsonb, random() < 0.02, '', '', %(now)s - random() * make_interval(days => %(days)s - 1),
       '[]'::jsonb
FROM generate_series(1, %(rows)s) AS g, (SELECT array_agg(id) AS ids FROM agent_conversation
                                         WHERE workspace_id = %(ws)s) AS c
"""

_LOGS_SQL = """
INSERT INTO agent_retrievallog (workspace_id, user_id, message_id, query, intent, intent_confidence, keywords,
    "references", dates, workspace_mentions, unknown_words, glossary_words, fallback, skipped, cache_hit, chunks_matched,
    chunks_excluded_by_threshold, chunks_excluded_by_privacy, chunks_considered, chunks_included,
    chunks_excluded_by_budget, tokens_used, token_budget, latency_ms, retrieval_ms, total_ms, zero_match, degraded,
    answer_mode, error, created_at)
SELECT %(ws)s, %(user)s, m.id,
       CASE WHEN z THEN 'Syntetisk fråga utan träff ' || (m.id %% 150) ELSE 'Syntetisk fråga ' || (m.id %% 5000) END,
       intent, 0.6 + random() * 0.35, '[]'::jsonb, '[]'::jsonb, NULL, '[]'::jsonb,
       CASE WHEN z OR m.id %% 4 = 0 THEN jsonb_build_array('syntetiskord' || (m.id %% 300)) ELSE '[]'::jsonb END,
       CASE WHEN NOT z AND m.id %% 7 = 0 THEN jsonb_build_array('syntetiskbegrepp' || (m.id %% 40)) ELSE '[]'::jsonb END,
       false,
       intent IN ('greeting', 'meta'), hit, matched, 0, NULL, matched, least(matched, 8), greatest(matched - 8, 0),
       least(matched, 8) * 450, 8000, '{}'::jsonb,
       CASE WHEN intent IN ('greeting', 'meta') OR hit THEN NULL ELSE 15 + random() * 60 END,
       20 + random() * 80, z, m.degraded, m.answer_mode, '', m.created_at
FROM (
    SELECT m.*, (ARRAY['factual', 'factual', 'factual', 'factual', 'task', 'task', 'greeting', 'meta'])
                [1 + floor(random() * 8)::int] AS intent,
           random() < 0.08 AS z, random() < 0.2 AS hit
    FROM agent_message m JOIN agent_conversation c ON c.id = m.conversation_id
    WHERE c.workspace_id = %(ws)s
) AS m
CROSS JOIN LATERAL (SELECT CASE WHEN m.z THEN 0 ELSE 3 + floor(random() * 18)::int END AS matched) AS n
"""

_FEEDBACK_SQL = """
INSERT INTO agent_feedback (message_id, user_id, rating, comment, created_at, updated_at)
SELECT m.id, %(user)s, CASE WHEN m.id %% 350 = 0 THEN -1 ELSE 1 END,
       CASE WHEN m.id %% 350 = 0 THEN 'Syntetisk kommentar ' || (m.id %% 40) ELSE '' END, m.created_at, m.created_at
FROM agent_message m JOIN agent_conversation c ON c.id = m.conversation_id
WHERE c.workspace_id = %(ws)s AND m.id %% 50 = 0
"""


@transaction.atomic
def seed_dashboard_logs(workspace: Workspace, user: AbstractBaseUser, *, rows: int, days: int = 90) -> dict:
    """Replace `workspace`'s chat history with `rows` synthetic turns; returns what was made."""
    Conversation.objects.filter(workspace=workspace).delete()
    RetrievalLog.objects.filter(workspace=workspace).delete()
    conversations = max(1, rows // LOGS_PER_CONVERSATION)
    Conversation.objects.bulk_create(
        [Conversation(workspace=workspace, user=user, title=f"Syntetiskt samtal {n}") for n in range(conversations)],
        batch_size=5000,
    )
    params = {"ws": workspace.pk, "user": user.pk, "rows": rows, "days": days, "now": timezone.now()}
    with connection.cursor() as cursor:
        cursor.execute(_MESSAGES_SQL, params)
        cursor.execute(_LOGS_SQL, params)
        logs = cursor.rowcount
        cursor.execute(_FEEDBACK_SQL, params)
        feedback = cursor.rowcount
        cursor.execute("ANALYZE agent_retrievallog; ANALYZE agent_message; ANALYZE agent_feedback")
    # The logs are back-dated into days already rolled up: the next read (or beat) aggregates them again.
    rollup_reset()
    return {"conversations": conversations, "retrieval_logs": logs, "feedback": feedback}
