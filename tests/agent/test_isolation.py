"""Workspace isolation as a property: whatever the workspaces, members, files, assessments and
questions, no result ever comes from a workspace the user is not a member of, or from a private or
deleted file or a deleted assessment; and every source the user may see can be found (an empty result
would pass the first half).

Covers plain retrieval, the exact-reference path and the retrieval cache (through prepare_context).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.http import Http404
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from agent.answering.prepare import prepare_context
from agent.retrieval.cache import get_retrieval_cache
from agent.retrieval.hybrid import RetrievalOptions, retrieve_context
from agent.retrieval.keyword_search import keyword_query
from chunks.embedding import active_model_name, get_provider, passage_text
from chunks.models import ContentChunk
from chunks.selectors import chunk_list_visible
from compliance import services
from compliance.models import Assessment, LegalDocument, Membership, UserFile, VersionState, Workspace, content_hash
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

TEXTS = [
    "Vår rutin för skyddsombud och riskbedömning på lagret.",
    "Lönepolicy: löner revideras årligen i april.",
    "Systematiskt arbetsmiljöarbete enligt 3 kap. 2 a § arbetsmiljölagen i vår verksamhet.",
    "Turordning vid uppsägning hanteras av HR enligt LAS.",
    "Incidentrapport: tillbud med truck i lager B.",
]
QUERIES = ["skyddsombud", "löner", "Vad säger 3 kap. 2 a § arbetsmiljölagen?", "turordning LAS", "tillbud truck",
           "riskbedömning", "7 § LAS", "🙂"]
_vectors: dict[str, list] = {}


def vector_for(text: str, header: str) -> np.ndarray:
    key = passage_text(header, text)
    if key not in _vectors:
        _vectors[key] = get_provider().embed_passages([key])[0]
    return _vectors[key]


files_strategy = st.lists(
    st.tuples(st.integers(0, 2), st.sampled_from(range(len(TEXTS))), st.booleans(), st.booleans()),
    min_size=1, max_size=8,
)
assessments_strategy = st.lists(st.tuples(st.integers(0, 2), st.sampled_from(range(len(TEXTS))), st.booleans()),
                                max_size=3)
membership_strategy = st.lists(st.lists(st.booleans(), min_size=3, max_size=3), min_size=2, max_size=2)


def add_chunk(workspace: Workspace, text: str, header: str, **source: Any) -> None:
    ContentChunk.objects.create(
        workspace=workspace, document_title=header.split(" > ")[0], header=header, path="00000.00000", ordinal=0,
        citation="", text=text, token_count=20, content_hash=content_hash(text), embedding=vector_for(text, header),
        embedding_model=active_model_name(), **source,
    )


def build(memberships: list[list[bool]], files: list[tuple[int, int, bool, bool]],
          assessments: Sequence[tuple[int, int, bool]] = ()) -> tuple[list[Workspace], list[User]]:
    workspaces = [Workspace.objects.create(name=f"WS {i}", slug=f"ws-{i}") for i in range(3)]
    users = []
    for u, row in enumerate(memberships):
        user = make_user(f"user{u}")
        users.append(user)
        for w, member in enumerate(row):
            if member:
                Membership.objects.create(user=user, workspace=workspaces[w], role="viewer")
    for i, (w, t, private, deleted) in enumerate(files):
        title = f"fil{i}.txt"
        f = UserFile.objects.create(workspace=workspaces[w], title=title, original_name=title, file="x",
                                    is_private=private, deleted_at=timezone.now() if deleted else None,
                                    status="done")
        add_chunk(workspaces[w], TEXTS[t], f"{title} > Sida 1", source_type="USER_FILE", user_file=f)
    for i, (w, t, deleted) in enumerate(assessments):
        title = f"Bedömning {i}"
        a = Assessment.objects.create(workspace=workspaces[w], title=title, notes=TEXTS[t], status="done",
                                      deleted_at=timezone.now() if deleted else None)
        add_chunk(workspaces[w], TEXTS[t], f"Bedömning: {title}", source_type="ASSESSMENT", assessment=a)
    return workspaces, users


def visible_own_chunks(workspace: Workspace) -> list[ContentChunk]:
    """The workspace's own chunks its members may search: assessments not deleted, files neither private nor
    deleted."""
    return [c for c in ContentChunk.objects.filter(workspace=workspace).select_related("user_file", "assessment")
            if (c.user_file_id is None or (not c.user_file.is_private and c.user_file.deleted_at is None))
            and (c.assessment_id is None or c.assessment.deleted_at is None)]


def assert_visible(chunk_ids: list[int], allowed_ids: set[int]) -> None:
    """Every chunk is a statute's or from a workspace in `allowed_ids`, never private or deleted."""
    for chunk in ContentChunk.objects.filter(pk__in=chunk_ids).select_related("user_file", "assessment"):
        assert chunk.workspace_id is None or chunk.workspace_id in allowed_ids, "a chunk from another workspace leaked"
        if chunk.user_file_id:
            assert not chunk.user_file.is_private, "a private file leaked"
            assert chunk.user_file.deleted_at is None, "a deleted file leaked"
        if chunk.assessment_id:
            assert chunk.assessment.deleted_at is None, "a deleted assessment leaked"


@hsettings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(memberships=membership_strategy, files=files_strategy, assessments=assessments_strategy,
       query=st.sampled_from(QUERIES), mode=st.sampled_from(["hybrid", "vector", "keyword"]))
def test_no_result_ever_leaks(loaded: list[LegalDocument], memberships: list[list[bool]],
                              files: list[tuple[int, int, bool, bool]], assessments: list[tuple[int, int, bool]],
                              query: str, mode: str) -> None:
    get_retrieval_cache().clear()
    with transaction.atomic():
        workspaces, users = build(memberships, files, assessments)
        for user, row in zip(users, memberships):
            for workspace, member in zip(workspaces, row):
                if not member:
                    with pytest.raises(Http404):
                        retrieve_context(query, workspace, user=user)
                    continue
                result = retrieve_context(query, workspace, user=user, options=RetrievalOptions(mode=mode))
                assert_visible([c.chunk_id for c in result.chunks], {workspace.pk})
                # Twice through the pre-model step: the second answer may come from the cache.
                for _ in range(2):
                    prepared = prepare_context([{"role": "user", "content": query}], workspace, user)
                    assert_visible([c["chunk_id"] for c in prepared.citations], {workspace.pk})
                # What the member may see is found: asked in its own words, each visible source comes back.
                # (Without the reference paths: a text citing 3 kap. 2 a § would fill top-k with that statute.)
                for chunk in visible_own_chunks(workspace):
                    found = retrieve_context(chunk.text, workspace, user=user,
                                             options=RetrievalOptions(mode=mode, use_references=False))
                    assert chunk.pk in {c.chunk_id for c in found.chunks}, "a visible source was not found"
        transaction.set_rollback(True)


def test_cache_is_not_shared_between_workspaces(loaded: list[LegalDocument]) -> None:
    get_retrieval_cache().clear()
    with transaction.atomic():
        workspaces, users = build([[True, True, False]], [(0, 0, False, False), (1, 0, False, False)])
        a = prepare_context([{"role": "user", "content": "skyddsombud"}], workspaces[0], users[0])
        b = prepare_context([{"role": "user", "content": "skyddsombud"}], workspaces[1], users[0])
        again = prepare_context([{"role": "user", "content": "skyddsombud"}], workspaces[0], users[0])
        assert not a.metrics["cache_hit"] and not b.metrics["cache_hit"] and again.metrics["cache_hit"]
        a_files = {c["source_id"] for c in a.citations if c["source_type"] == "USER_FILE"}
        b_files = {c["source_id"] for c in b.citations if c["source_type"] == "USER_FILE"}
        assert a_files and b_files and a_files.isdisjoint(b_files)
        transaction.set_rollback(True)


def _file_chunk(workspace: Workspace, i: int, text: str, *, private: bool = False, deleted: bool = False) -> None:
    title = f"stat{i}.txt"
    f = UserFile.objects.create(workspace=workspace, title=title, original_name=title, file="x", is_private=private,
                                deleted_at=timezone.now() if deleted else None, status="done")
    ContentChunk.objects.create(
        source_type="USER_FILE", user_file=f, workspace=workspace, document_title=title, header=f"{title} > Sida 1",
        path="00000.00000", ordinal=0, citation="Sida 1", text=text, token_count=20, content_hash=content_hash(text))


@hsettings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(files=files_strategy, query=st.sampled_from(QUERIES))
def test_keyword_statistics_never_count_what_the_workspace_cannot_see(loaded: list[LegalDocument],
                                                                      files: list[tuple[int, int, bool, bool]],
                                                                      query: str) -> None:
    """Term weights and the keyword ranking of one workspace are the same whatever other
    workspaces, private files and deleted files hold: no count reveals their text."""
    get_retrieval_cache().clear()
    with transaction.atomic():
        workspaces, users = build([[True, False, False], [False, True, False]], [(0, 0, False, False)])
        mine, user = workspaces[0], users[0]
        options = RetrievalOptions(mode="keyword", use_references=False)

        def observed() -> tuple[list[tuple[str, float]], list[str], list[int]]:
            q = keyword_query(query, [mine.pk])
            ranked = [c.chunk_id for c in retrieve_context(query, mine, user=user, options=options).chunks]
            return list(zip(q.terms, q.weights)), q.unknown_words, ranked

        before = observed()
        for i, (w, t, private, deleted) in enumerate(files):
            # Every extra file is one `mine` must not see: another workspace's, or a private/deleted one of its own.
            target = workspaces[w] if w else mine
            hidden = private or deleted or not (target is mine)
            _file_chunk(target, i, TEXTS[t] + " " + query, private=private or not hidden, deleted=deleted)
        assert observed() == before
        transaction.set_rollback(True)


def _counted_statistics(workspace: Workspace) -> tuple[int, dict[str, int]]:
    """(n_docs, {lexeme: df}) the keyword index holds for the workspace's own chunks."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(sum(n_docs), 0) FROM chunks_scopestat WHERE workspace_id = %s", [workspace.pk])
        n_docs = cursor.fetchone()[0]
        cursor.execute("SELECT lexeme, df FROM chunks_scopetermstat WHERE workspace_id = %s AND df <> 0",
                       [workspace.pk])
        return n_docs, dict(cursor.fetchall())


def _recounted_statistics(workspace: Workspace) -> tuple[int, dict[str, int]]:
    """The same, counted afresh over what the ORM twin of the scope predicate lets the workspace see."""
    ids = list(chunk_list_visible([workspace.pk]).filter(workspace=workspace, retrievable=True)
               .values_list("pk", flat=True))
    with connection.cursor() as cursor:
        cursor.execute("SELECT lexeme, count(*) FROM chunks_posting WHERE chunk_id = ANY(%s) GROUP BY lexeme", [ids])
        return len(ids), dict(cursor.fetchall())


def _apply(op: str, target: int, files: list[UserFile], assessments: list[Assessment]) -> None:
    """One change of what a workspace may search, made the way the services or admin make it."""
    now = timezone.now()
    if op in ("private", "public", "delete", "restore", "supersede", "current", "purge") and files:
        f = files[target % len(files)]
        rows = UserFile.objects.filter(pk=f.pk)
        if op == "private":
            rows.update(is_private=True)
        elif op == "public":
            rows.update(is_private=False)
        elif op == "delete":
            rows.update(deleted_at=now)
        elif op == "restore":
            rows.update(deleted_at=None)
        elif op == "supersede":
            rows.update(version_state=VersionState.SUPERSEDED)
        elif op == "current":
            f.refresh_from_db()
            f.version_state = VersionState.CURRENT
            f.save(update_fields=["version_state"])
        elif op == "purge":
            rows.delete()  # the chunks go with it
    elif op in ("drop_assessment", "undrop_assessment") and assessments:
        a = assessments[target % len(assessments)]
        Assessment.objects.filter(pk=a.pk).update(deleted_at=now if op == "drop_assessment" else None)
    elif op == "edit" and files:
        chunk = ContentChunk.objects.filter(user_file=files[target % len(files)]).first()
        if chunk is not None:
            chunk.text += " Skyddsronden protokollförs."
            chunk.save()  # an indexing update: the chunk is taken out and counted in again
    elif op == "move" and files:
        ContentChunk.objects.filter(user_file=files[target % len(files)]).update(workspace=Workspace.objects.last())


@hsettings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(files=files_strategy, assessments=assessments_strategy,
       ops=st.lists(st.tuples(st.sampled_from(["private", "public", "delete", "restore", "supersede", "current",
                                               "purge", "drop_assessment", "undrop_assessment", "edit", "move"]),
                              st.integers(0, 7)), max_size=8))
def test_stored_workspace_statistics_always_match_a_recount(loaded: list[LegalDocument],
                                                            files: list[tuple[int, int, bool, bool]],
                                                            assessments: list[tuple[int, int, bool]],
                                                            ops: list[tuple[str, int]]) -> None:
    """The per-workspace document frequencies the keyword half reads (kept by triggers) equal a count
    made afresh over what each workspace may see, after any sequence of files made private or public,
    deleted, restored, superseded, purged or edited and assessments deleted or restored: no count ever
    includes a hidden chunk, and none lags behind a change."""
    with transaction.atomic():
        workspaces, _ = build([[True, True, True]], files, assessments)
        file_rows = list(UserFile.objects.filter(workspace__in=workspaces).order_by("pk"))
        assessment_rows = list(Assessment.objects.filter(workspace__in=workspaces).order_by("pk"))
        for op, target in [("none", 0), *ops]:
            _apply(op, target, file_rows, assessment_rows)
            file_rows = [f for f in file_rows if UserFile.objects.filter(pk=f.pk).exists()]
            for workspace in workspaces:
                assert _counted_statistics(workspace) == _recounted_statistics(workspace), (op, workspace.name)
        transaction.set_rollback(True)


def test_every_visibility_change_moves_the_stored_statistics(loaded: list[LegalDocument]) -> None:
    """Each kind of change, once, in a row: the stored counts follow it (and it changes them)."""
    with transaction.atomic():
        workspaces, _ = build([[True, True, True]], [(0, 0, False, False), (0, 1, False, False)], [(0, 2, False)])
        mine = workspaces[0]
        file_rows = list(UserFile.objects.filter(workspace=mine).order_by("pk"))
        assessment_rows = list(Assessment.objects.filter(workspace=mine))
        seen = [_counted_statistics(mine)[0]]
        for op in ["private", "public", "delete", "restore", "supersede", "current", "drop_assessment",
                   "undrop_assessment", "edit", "move", "purge"]:
            _apply(op, 0, file_rows, assessment_rows)
            assert _counted_statistics(mine) == _recounted_statistics(mine), op
            seen.append(_counted_statistics(mine)[0])
        # 3 sources; each hiding change takes one out and its reversal puts it back; the move and the purge.
        assert seen == [3, 2, 3, 2, 3, 2, 3, 2, 3, 3, 2, 2]
        transaction.set_rollback(True)


profiles_strategy = st.lists(st.tuples(st.booleans(), st.booleans()), min_size=3, max_size=3)
preferences_strategy = st.lists(st.lists(st.booleans(), min_size=3, max_size=3), min_size=2, max_size=2)


@hsettings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@given(memberships=membership_strategy, profiles=profiles_strategy, preferences=preferences_strategy,
       query=st.sampled_from(["skyddsombud", "turordning LAS"]))
def test_profiles_and_preferences_never_leak(loaded: list[LegalDocument], memberships: list[list[bool]],
                                             profiles: list[tuple[bool, bool]], preferences: list[list[bool]],
                                             query: str) -> None:
    """A workspace's profile reaches only its own members' context; a user's preferences only that user's,
    even in the same workspace, and through the cache too (each turn is asked twice)."""
    get_retrieval_cache().clear()
    with transaction.atomic():
        workspaces, users = build(memberships, [(0, 0, False, False)])
        owner = make_user("owner")
        for w, (workspace, (has_field, has_fact)) in enumerate(zip(workspaces, profiles)):
            Membership.objects.create(user=owner, workspace=workspace, role="owner")
            if has_field:
                services.profile_update(workspace=workspace, user=owner, values={"location": f"Profilort{w}x"})
            if has_fact:
                services.profile_fact_add(workspace=workspace, user=owner, text=f"Profilfakta{w}x")
        for u, (user, row) in enumerate(zip(users, preferences)):
            for w, (workspace, has_pref) in enumerate(zip(workspaces, row)):
                if has_pref and memberships[u][w]:
                    services.preference_update(workspace=workspace, user=user, values={"role": f"Roll{u}w{w}x"})
        for u, (user, row) in enumerate(zip(users, memberships)):
            for w, (workspace, member) in enumerate(zip(workspaces, row)):
                if not member:
                    continue
                for _ in range(2):
                    prepared = prepare_context([{"role": "user", "content": query}], workspace, user)
                    text = "\n".join(m["content"] for m in prepared.messages)
                    for other in range(3):
                        own = other == w
                        assert (f"Profilort{other}x" in text) == (own and profiles[other][0])
                        assert (f"Profilfakta{other}x" in text) == (own and profiles[other][1])
                        for v in range(len(users)):
                            mine = own and v == u and preferences[v][other] and memberships[v][other]
                            assert (f"Roll{v}w{other}x" in text) == bool(mine)
        transaction.set_rollback(True)


@hsettings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(memberships=membership_strategy, files=files_strategy, assessments=assessments_strategy,
       query=st.sampled_from(QUERIES), named=st.integers(0, 2), allow=st.lists(st.booleans(), min_size=3, max_size=3))
def test_a_named_workspace_widens_only_what_the_user_may_see(loaded: list[LegalDocument], memberships: list[list[bool]],
                                                             files: list[tuple[int, int, bool, bool]],
                                                             assessments: list[tuple[int, int, bool]], query: str,
                                                             named: int, allow: list[bool]) -> None:
    """Naming a workspace ("… i WS 1") adds its non-private sources only if the user is a member and it
    allows sharing; and then every such source can be found from the other workspace."""
    get_retrieval_cache().clear()
    with transaction.atomic():
        workspaces, users = build(memberships, files, assessments)
        for workspace, allowed in zip(workspaces, allow):
            Workspace.objects.filter(pk=workspace.pk).update(allow_cross_workspace=allowed)
        target = workspaces[named]
        for user, row in zip(users, memberships):
            for workspace, member in zip(workspaces, row):
                if not member:
                    continue
                widened = row[named] and allow[named] and target != workspace
                allowed_ids = {workspace.pk, target.pk} if widened else {workspace.pk}
                for _ in range(2):  # the second may come from the cache
                    prepared = prepare_context([{"role": "user", "content": f"{query} i WS {named}"}], workspace, user)
                    assert_visible([c["chunk_id"] for c in prepared.citations], allowed_ids)
                if widened:
                    for chunk in visible_own_chunks(target):
                        prepared = prepare_context([{"role": "user", "content": f"{chunk.text} (WS {named})"}],
                                                   workspace, user)
                        rows = {c["chunk_id"]: c for c in prepared.citations}
                        # Identical text in two documents takes one slot, the other shown beside it.
                        rows.update({a["chunk_id"]: a for c in prepared.citations for a in c.get("also_sources") or []})
                        assert chunk.pk in rows, "a source of the named workspace was not found"
                        assert rows[chunk.pk]["workspace_name"] == target.name
        transaction.set_rollback(True)
