"""What one question may read: the one rule every read path (chat, context, search) goes through.

The user's scope in the workspace, widened by the other workspaces the question names, where the user is a
member and the workspace allows it (`compliance.selectors.access_scope_for` decides; a name the user may
not read changes nothing). The question is analysed once, with the names it may mention, and the sources
from a named workspace carry that workspace's name and slug on their cards.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from cachetools import LRUCache
from django.contrib.auth.base_user import AbstractBaseUser

from compliance.clock import swedish_today
from compliance.models import Membership, Workspace
from compliance.selectors import AccessScope, access_scope_for
from law.legal_refs import StatuteDirectory
from law.statute_directory import statute_directory

from . import bridges
from .query_analysis import QueryAnalysis, analyse_query
from .sources import RetrievedChunk
from .workspace_names import WorkspaceNames, workspace_names_for


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
    analysis = _analysis(question, tuple(history), names, swedish_today())
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


# The analyses of the questions asked lately. A question asked again (a colleague's identical question, an
# answer asked for anew: the turns a retrieval cache hit serves) is a function of these inputs and the statute
# directory, and analysing it was a tenth of a cache hit. Kept for one directory: a reloaded one starts afresh.
_analyses: LRUCache = LRUCache(maxsize=256)
_analyses_directory: StatuteDirectory | None = None
_analyses_lock = threading.Lock()


def _analysis(question: str, history: tuple[str, ...], names: WorkspaceNames, today: date) -> QueryAnalysis:
    global _analyses_directory
    directory = statute_directory()
    key = (question, history, names.others, names.ordinary, today)
    with _analyses_lock:
        if _analyses_directory is not directory:
            _analyses.clear()
            _analyses_directory = directory
        found = _analyses.get(key)
    if found is None:
        found = analyse_query(question, history, directory=directory, workspace_names=names.names,
                              ordinary_words=names.ordinary, today=today, marked=bridges.question_marks())
        with _analyses_lock:
            if _analyses_directory is directory:
                _analyses[key] = found
    # Each turn gets lists of its own, so nothing a turn does to its analysis reaches the next one.
    return dataclasses.replace(found, keywords=list(found.keywords), references=list(found.references),
                               sfs_numbers=list(found.sfs_numbers), workspace_mentions=list(found.workspace_mentions),
                               restored=dict(found.restored))
