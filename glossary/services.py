"""Writes to a workspace's glossary: add, change and remove a term, and import many from a file's rows. Every write
is validated here (one path, `_validated`), so the page, the API, admin and an import store the same things; who
may write is the entry point's check (owners and editors).

A change to the glossary changes what retrieval searches, so the table's triggers bump the workspace's
knowledge_version on every insert, update and delete, whichever code path made it (migration 0002,
compliance/knowledge_version.py): no cached answer outlives it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction

from compliance.audit import audit_actor
from compliance.errors import ApplicationError
from compliance.model_update import model_update
from compliance.models import Workspace
from compliance.sql import dict_cursor
from compliance.text import strip_control, strip_invisible

from .models import DUPLICATE_MESSAGE, LAW_WORDS_MAX_LENGTH, WORD_MAX_LENGTH, Term

# Enough for every nickname a team uses; a bound, so one workspace cannot make every question's look-up slow.
MAX_TERMS = 500
# Words, not markup: the terms are quoted in answers (Markdown) and in the model's context, so no brackets, angle
# brackets, asterisks, backticks or ampersands that could make a link, a tag or emphasis of them.
# The dash a legal citation writes a range with ("11–19 §§") is a word character here, not markup.
_ALLOWED = re.compile(r"[\w\s\-–.,:;/()§'’]+")
ALLOWED_CHARACTERS = "bokstäver, siffror, mellanslag och - – . , : ; / ( ) §"
_LETTER = re.compile(r"[^\W\d_]")


class GlossaryError(ApplicationError):
    """A term that cannot be stored. `field` names the input at fault (for the form and the API's details)."""

    code = "glossary_invalid"
    message = "Ogiltigt begrepp."

    def __init__(self, code: str, message: str, *, field: str = "", status: int | None = None) -> None:
        super().__init__(code, message, status=status, details={field: [message]} if field else None)
        self.field = field


# At most this many law words are offered on the form from an answer's sources (its link carries them).
MAX_SUGGESTED_CITATIONS = 8


def allowed_law_words(text: str) -> bool:
    """Whether `text` has only what law words may hold, within their length: the check a suggestion of them is put
    through before a page offers it (the service's full validation still runs on what is posted)."""
    return 0 < len(text) <= LAW_WORDS_MAX_LENGTH and bool(_ALLOWED.fullmatch(text))


def _clean(value: object, *, field: str, label: str, max_length: int) -> str:
    text = " ".join(strip_invisible(strip_control(str(value or ""))).split())
    if not text:
        raise GlossaryError("required", f"Fyll i {label}.", field=field)
    if len(text) > max_length:
        raise GlossaryError("too_long", f"{label.capitalize()} får vara högst {max_length} tecken.", field=field)
    if not _ALLOWED.fullmatch(text):
        raise GlossaryError("characters", f"{label.capitalize()} får bara innehålla {ALLOWED_CHARACTERS}.",
                            field=field)
    if not _LETTER.search(text):
        raise GlossaryError("no_letters", f"{label.capitalize()} måste innehålla bokstäver.", field=field)
    with dict_cursor() as cursor:
        # What retrieval matches and searches is the Swedish stemmer's lexemes: a word of stop words only
        # ("och", "att") would never match a question, nor find a source.
        cursor.execute("SELECT numnode(plainto_tsquery('swedish', %s)) AS nodes", [text])
        nodes = cursor.fetchone()["nodes"]
    if not nodes:
        raise GlossaryError("stop_words", f"{label.capitalize()} består bara av småord som sökningen bortser från.",
                            field=field)
    return text


def _validated(*, word: object, law_words: object) -> dict[str, str]:
    data = {
        "word": _clean(word, field="word", label="ert ord", max_length=WORD_MAX_LENGTH),
        "law_words": _clean(law_words, field="law_words", label="lagens ord", max_length=LAW_WORDS_MAX_LENGTH),
    }
    if data["word"].casefold() == data["law_words"].casefold():
        raise GlossaryError("same_words", "Lagens ord är samma som ert ord; skriv vad lagen kallar det.",
                            field="law_words")
    return data


def _duplicate() -> GlossaryError:
    return GlossaryError("duplicate", DUPLICATE_MESSAGE, field="word", status=409)


def term_create(*, workspace: Workspace, user: AbstractBaseUser | None, word: object, law_words: object) -> Term:
    data = _validated(word=word, law_words=law_words)
    with transaction.atomic():
        # Locks the workspace row, so two requests cannot both pass the count below.
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
        if Term.objects.filter(workspace=workspace).count() >= MAX_TERMS:
            raise GlossaryError("too_many", f"Ordlistan rymmer högst {MAX_TERMS} begrepp.")
        if Term.objects.filter(workspace=workspace, word__iexact=data["word"]).exists():
            raise _duplicate()
        with audit_actor(user):
            return Term.objects.create(workspace=workspace, created_by=user, **data)


def term_update(*, term: Term, user: AbstractBaseUser | None, word: object, law_words: object) -> Term:
    data = _validated(word=word, law_words=law_words)
    if Term.objects.filter(workspace_id=term.workspace_id, word__iexact=data["word"]).exclude(pk=term.pk).exists():
        raise _duplicate()
    try:
        with transaction.atomic(), audit_actor(user):
            return model_update(term, fields=("word", "law_words"), data=data).instance
    except IntegrityError:  # the same word stored by a concurrent request since the check above
        raise _duplicate() from None


def term_delete(*, term: Term, user: AbstractBaseUser | None) -> None:
    with audit_actor(user):
        term.delete()


# --- import ---------------------------------------------------------------------------------------------


class GlossaryImportError(ApplicationError):
    """A file that cannot be imported; nothing of it is. `details["rows"]` lists the rows at fault (line and
    message), as the register's import does."""

    code = "import_invalid"
    message = "Filen kunde inte importeras."


@dataclass(frozen=True)
class TermImportRow:
    line: int  # the row's number in the file, as the person's spreadsheet program counts
    word: str
    law_words: str


@dataclass(frozen=True)
class TermImportResult:
    added: int
    changed: int  # an existing word whose law words the file changed
    unchanged: int


def _row_error(line: int, message: str) -> dict[str, object]:
    return {"line": line, "message": f"Rad {line}: {message}"}


def _import_plan(rows: Sequence[TermImportRow]) -> dict[str, tuple[int, dict[str, str]]]:
    """Each word of the file (lower-cased, as the unique constraint compares) with its first row and its validated
    data; refuses the file, naming every row at fault, if a row is invalid or a word is given two meanings."""
    plan: dict[str, tuple[int, dict[str, str]]] = {}
    errors = []
    for row in rows:
        try:
            data = _validated(word=row.word, law_words=row.law_words)
        except GlossaryError as exc:
            errors.append(_row_error(row.line, exc.message))
            continue
        key = data["word"].lower()
        first = plan.get(key)
        if first is None:
            plan[key] = (row.line, data)
        elif first[1]["law_words"] != data["law_words"]:
            # Which meaning the team wants is theirs to say; taking either would be a guess.
            errors.append(_row_error(row.line, f"”{data['word']}” står redan på rad {first[0]} med andra lagens ord."))
    if errors:
        rows_at_fault = "1 rad" if len(errors) == 1 else f"{len(errors)} rader"
        raise GlossaryImportError("broken_rows", f"{rows_at_fault} i filen kunde inte importeras. Rätta och försök "
                                  "igen; inget har importerats.", details={"field": "file", "rows": errors})
    return plan


def term_import(*, workspace: Workspace, user: AbstractBaseUser | None,
                rows: Sequence[TermImportRow]) -> TermImportResult:
    """Add the file's new words and change the law words of those the glossary has (a word is the same whatever
    its case; its stored spelling stays). Idempotent: the same file again changes nothing. Never removes a term.
    All or nothing: one bad row, a word given two meanings or a glossary beyond MAX_TERMS, and nothing is written."""
    plan = _import_plan(rows)
    try:
        with transaction.atomic():
            # Locks the workspace row, as term_create does, so no concurrent add passes the bound below.
            Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
            existing = {term.word.lower(): term for term in Term.objects.filter(workspace=workspace)}
            new = [key for key in plan if key not in existing]
            if len(existing) + len(new) > MAX_TERMS:
                raise GlossaryImportError(
                    "too_many", f"Ordlistan rymmer högst {MAX_TERMS} begrepp. Den har {len(existing)} och filen "
                    f"har {len(new)} nya ord; inget har importerats.",
                    details={"field": "file", "max_terms": MAX_TERMS, "existing": len(existing), "new": len(new)})
            added = changed = unchanged = 0
            with audit_actor(user):
                for key, (_line, data) in plan.items():
                    term = existing.get(key)
                    if term is None:
                        Term.objects.create(workspace=workspace, created_by=user, **data)
                        added += 1
                    elif model_update(term, fields=("law_words",), data=data).has_updated:
                        changed += 1
                    else:
                        unchanged += 1
    except IntegrityError:  # a word stored by a concurrent change since the read above; the whole import undone
        raise GlossaryImportError("conflict", "Ordlistan ändrades samtidigt. Försök igen; inget har importerats.",
                                  status=409) from None
    return TermImportResult(added=added, changed=changed, unchanged=unchanged)
