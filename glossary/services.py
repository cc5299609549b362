"""Writes to a workspace's glossary: add, change and remove a term. Every write is validated here, so the page,
the API and admin store the same things; who may write is the entry point's check (owners and editors).

A change to the glossary changes what retrieval searches, so the table's triggers bump the workspace's
knowledge_version on every insert, update and delete, whichever code path made it (migration 0002,
compliance/knowledge_version.py): no cached answer outlives it.
"""

from __future__ import annotations

import re

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
_ALLOWED = re.compile(r"[\w\s\-.,:;/()§'’]+")
ALLOWED_CHARACTERS = "bokstäver, siffror, mellanslag och - . , : ; / ( ) §"
_LETTER = re.compile(r"[^\W\d_]")


class GlossaryError(ApplicationError):
    """A term that cannot be stored. `field` names the input at fault (for the form and the API's details)."""

    code = "glossary_invalid"
    message = "Ogiltigt begrepp."

    def __init__(self, code: str, message: str, *, field: str = "", status: int | None = None) -> None:
        super().__init__(code, message, status=status, details={field: [message]} if field else None)
        self.field = field


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
