"""The asker's glossary in retrieval: a question that uses a word of its workspace's glossary is searched with the
law's words the team gave for it too.

People ask in the words of their practice; the statutes write other words, and for a nickname no statute writes
(docs/retrieval.md, "Where realq fails") no bridge mined from the corpus reaches the law. The team knows its words:
`glossary.models.Term` says which words of the law one of them means. Both halves search them: the keyword half's
query gets them as if the question wrote them, and the question is embedded with them in brackets after it. The
team's word itself is still searched (the workspace's own files may use it), but it is no longer named as a word no
source uses: the glossary has said what it means, and the reader is told that instead (`RetrievalResult.glossary`).

The law's words may also say where the law says it: "personalvårdsförmån (11 kap. 11 § inkomstskattelagen)". The
provisions and acts they cite are read as the question's own references are (`taught_references`), so a question
using the word gets the cited § as a source first and the cited act's §§ ranked up, whatever its words; the Ordlista
page says which of them the knowledge base does not hold (agent/retrieval/glossary_checks.py).

Only the glossaries of the workspaces in the asker's scope count (the access scope decides, as for files), so one
workspace's words never steer another's answers.
"""

from __future__ import annotations

from collections.abc import Sequence

from compliance.sql import dict_cursor
from glossary.selectors import TermMatch, term_matches
from law.legal_refs import LegalReference, analyse_references
from law.statute_directory import statute_directory

from .keyword_search import written_words

__all__ = ["TermMatch", "glossary_matches", "searched_text", "still_unknown", "taught_references"]


def glossary_matches(text: str, workspace_ids: Sequence[int]) -> list[TermMatch]:
    """The scope's glossary terms the question uses, one per word (the asking workspace's first)."""
    matches = term_matches(text, list(workspace_ids))
    first = workspace_ids[0] if workspace_ids else None
    by_word: dict[str, TermMatch] = {}
    for match in sorted(matches, key=lambda m: m.workspace_id != first):
        by_word.setdefault(match.word.casefold(), match)
    return list(by_word.values())


def searched_text(text: str, matches: Sequence[TermMatch]) -> str:
    """The question as both halves search it: the law's words of each glossary term it uses, in brackets after it
    ("Hur skyddas en visselblåsare? (rapporterande person)")."""
    law_words = list(dict.fromkeys(match.law_words for match in matches))
    return f"{text} ({'; '.join(law_words)})" if law_words else text


def taught_references(matches: Sequence[TermMatch]) -> list[LegalReference]:
    """The provisions and acts the matched terms' law words cite, resolved as a question's references are: the team
    has said where the law says what its word means, so retrieval treats them as if the question had cited them."""
    if not matches:
        return []
    directory = statute_directory()
    law_words = dict.fromkeys(match.law_words for match in matches)
    return [ref for words in law_words for ref in analyse_references(words, directory) if ref.sfs]


def still_unknown(words: Sequence[str], matches: Sequence[TermMatch], question: str) -> list[str]:
    """`words` (no source uses them) less those a matched glossary term explains, compared as the stemmer's lexemes
    ("visselblåsaren" is explained by the term "visselblåsare"), and less the law's words the terms added: the
    reader is told of the words they wrote, not of a word of the team's glossary that no source uses."""
    taught = sorted({lexeme for match in matches for lexeme in match.lexemes})
    if not words or not taught:
        return list(words)
    asked = set(written_words(question))
    words = [word for word in words if word in asked]
    with dict_cursor() as cursor:
        cursor.execute(
            "SELECT w.word FROM unnest(%(words)s::text[]) WITH ORDINALITY AS w(word, n) "
            "WHERE NOT tsvector_to_array(to_tsvector('swedish', w.word)) && %(taught)s::text[] ORDER BY w.n",
            {"words": list(words), "taught": taught})
        return [row["word"] for row in cursor.fetchall()]
