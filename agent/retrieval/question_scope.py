"""What one question may read: the one rule every read path (chat, context, search) goes through.

The user's scope in the workspace, widened by the other workspaces the question names, where the user is a
member and the workspace allows it (`compliance.selectors.access_scope_for` decides; a name the user may
not read changes nothing). The question is analysed once, with the names it may mention, and the sources
from a named workspace carry that workspace's name and slug on their cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.contrib.auth.base_user import AbstractBaseUser

from compliance.models import Membership, Workspace
from compliance.selectors import AccessScope, access_scope_for

from .query_analysis import QueryAnalysis, analyse_query
from .sources import RetrievedChunk
from .statute_directory import statute_directory
from .workspace_names import workspace_names_for


@dataclass(frozen=True)
class QuestionScope:
    analysis: QueryAnalysis
    scope: AccessScope
    # The named workspaces the scope was widened by: id -> (name, slug).
    named: dict[int, tuple[str, str]] = field(default_factory=dict)


def question_scope(question: str, history: Sequence[str], user: AbstractBaseUser, workspace: Workspace, *,
                   membership: Membership | None = None) -> QuestionScope:
    """Analyse `question` (after `history`) and decide the scope it reads; raises Http404 for a non-member."""
    scope = access_scope_for(user, workspace, membership=membership)
    names = workspace_names_for(user, workspace)
    analysis = analyse_query(question, history, directory=statute_directory(), workspace_names=names.names,
                             ordinary_words=names.ordinary)
    named = {pk: (name, slug) for pk, name, slug in names.others if name in analysis.workspace_mentions}
    if named:
        # The selector decides which named workspaces really widen the scope.
        scope = access_scope_for(user, workspace, named=list(named), membership=membership)
    return QuestionScope(analysis=analysis, scope=scope, named=named)


def label_workspaces(chunks: list[RetrievedChunk], named: dict[int, tuple[str, str]]) -> list[RetrievedChunk]:
    """Mark each source from another (named) workspace with that workspace's name and slug."""
    for chunk in chunks:
        if chunk.workspace_id in named:
            chunk.workspace_name, chunk.workspace_slug = named[chunk.workspace_id]
    return chunks
