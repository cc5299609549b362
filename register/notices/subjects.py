"""What a new statute is about, read from the statutes it cites: a new ordinance under the working-hours act is
about working hours. The importer gives a new statute no category of its own, so its subjects are the categories
of the loaded documents its text cites by SFS number, and those documents are why a laglista hears of it.

A statute the book cites everywhere (förvaltningslagen for appeals, offentlighets- och sekretesslagen for secrecy:
`NOTICE_SUBJECT_MAX_CITING_SHARE`, `law.book_citations`) says nothing of the subject.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from compliance.models import LegalDocument
from law.book_citations import CITED_SFS_RE, book_citations


@dataclass(frozen=True)
class SubjectDocument:
    """A loaded document a new statute cites, and the subject (category) it gives the new statute."""

    number: str
    title: str
    category: str


def subject_documents(text: str, *, exclude: int | None = None) -> list[SubjectDocument]:
    """The loaded documents with a category that `text` cites by SFS number, in the order it first cites them,
    leaving out `exclude` (the new statute itself) and the statutes the book cites everywhere."""
    book = book_citations()
    numbers = list(dict.fromkeys(number for number in CITED_SFS_RE.findall(text or "")
                                 if book.share(number) <= settings.NOTICE_SUBJECT_MAX_CITING_SHARE))
    if not numbers:
        return []
    found = {number: SubjectDocument(number, title, category) for number, title, category in
             LegalDocument.objects.filter(sfs_number__in=numbers).exclude(pk=exclude).exclude(category="")
             .values_list("sfs_number", "title", "category")}
    return [found[number] for number in numbers if number in found]


def statute_subjects(text: str, *, exclude: int | None = None) -> set[str]:
    """A new statute's subjects: the categories of `subject_documents`."""
    return {document.category for document in subject_documents(text, exclude=exclude)}
