"""Reads of a workspace's glossary. The caller has already decided the workspace (membership_get_by_slug for
pages and the API, the access scope for retrieval): another workspace's term is a 404 here, like its files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import django_filters
from django.db.models import Q, QuerySet
from django.db.models.functions import Lower
from django.http import Http404

from compliance.models import Workspace
from compliance.sql import dict_cursor

from .models import Term


class TermFilter(django_filters.FilterSet):
    """The Ordlista page's and the API's filter, one definition for both."""

    q = django_filters.CharFilter(method="filter_q")

    class Meta:
        model = Term
        fields: list[str] = []

    def filter_q(self, queryset: QuerySet[Term], name: str, value: str) -> QuerySet[Term]:
        """A part of the team's word or of the law's words, in any case."""
        value = value.strip()
        return queryset.filter(Q(word__icontains=value) | Q(law_words__icontains=value)) if value else queryset


def term_list(workspace: Workspace, *, filters: Mapping[str, object] | None = None) -> QuerySet[Term]:
    terms = Term.objects.filter(workspace=workspace).select_related("created_by")
    return TermFilter(filters, queryset=terms).qs if filters else terms


# Law words that may cite a unit: a § sign, a chapter or an article. Read first in SQL, so a statute page parses
# the few terms that cite something, not the whole glossary.
_CITES_A_UNIT = r"§|\mkap\.|\martikel\M"


def term_list_citing(workspace: Workspace) -> QuerySet[Term]:
    """The workspace's terms whose law words may cite a provision (glossary_checks reads which)."""
    return Term.objects.filter(workspace=workspace, law_words__iregex=_CITES_A_UNIT).order_by(Lower("word"), "pk")


def term_get(workspace: Workspace, term_id: int) -> Term:
    term = Term.objects.filter(workspace=workspace, pk=term_id).first()
    if term is None:
        raise Http404("Begreppet finns inte.")
    return term


@dataclass(frozen=True)
class TermMatch:
    """A term of the asker's glossary that a question uses."""

    term_id: int
    workspace_id: int
    word: str  # as the team wrote it
    law_words: str
    lexemes: list[str]  # the word's, as the Swedish stemmer gives them: what a question's word is matched by


# The one rule for when a text uses a term t: it holds the term's words in order, in any inflection the Swedish
# stemmer joins, as the index reads text. {text} is the SQL of the text.
_USES_TERM = "to_tsvector('swedish', {text}) @@ phraseto_tsquery('swedish', t.word)"


def term_matches(text: str, workspace_ids: tuple[int, ...] | list[int]) -> list[TermMatch]:
    """The terms of `workspace_ids`' glossaries whose word the question uses, in any inflection the Swedish
    stemmer joins ("visselblåsaren" uses "visselblåsare"), a phrase's words in order."""
    if not workspace_ids or not text.strip():
        return []
    with dict_cursor() as cursor:
        cursor.execute(
            "SELECT t.id AS term_id, t.workspace_id, t.word, t.law_words, "
            "tsvector_to_array(to_tsvector('swedish', t.word)) AS lexemes FROM glossary_term t "
            "WHERE t.workspace_id = ANY(%(ws)s) "
            f"AND {_USES_TERM.format(text='%(text)s')} "
            "ORDER BY lower(t.word), t.id",
            {"ws": list(workspace_ids), "text": text})
        return [TermMatch(**row) for row in cursor.fetchall()]


def words_taught(workspace: Workspace, words: Sequence[str]) -> set[str]:
    """Those of `words` that a term of the workspace's glossary explains (matched as a question's words are)."""
    if not words:
        return set()
    with dict_cursor() as cursor:
        cursor.execute(
            "SELECT w.word FROM unnest(%(words)s::text[]) AS w(word) WHERE EXISTS ("
            f"SELECT 1 FROM glossary_term t WHERE t.workspace_id = %(ws)s AND {_USES_TERM.format(text='w.word')})",
            {"words": list(words), "ws": workspace.pk})
        return {row["word"] for row in cursor.fetchall()}
