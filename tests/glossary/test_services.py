"""The glossary's writes: what is stored, what is refused (in Swedish, at its field), the audit trail, and the
workspace's knowledge_version following every change, whichever code path made it."""

from __future__ import annotations

import pytest
from auditlog.models import LogEntry
from django.db import connection
from django.http import Http404

from compliance.models import Workspace
from glossary import selectors, services
from glossary.models import Term
from glossary.services import GlossaryError
from tests.helpers import alice_owning_a_workspace, make_user

pytestmark = pytest.mark.django_db


def version(workspace: Workspace) -> int:
    return Workspace.objects.get(pk=workspace.pk).knowledge_version


def test_a_term_is_stored_tidied_and_audited() -> None:
    alice, ws = alice_owning_a_workspace()
    term = services.term_create(workspace=ws, user=alice, word="  Hyr\u00adpersonal ", law_words="inhyrd\tarbetskraft")
    assert (term.word, term.law_words, term.created_by) == ("Hyrpersonal", "inhyrd arbetskraft", alice)
    services.term_update(term=term, user=alice, word="hyrpersonal", law_words="inhyrd arbetskraft")
    services.term_delete(term=term, user=alice)
    entries = LogEntry.objects.get_for_model(Term).order_by("pk")
    assert [e.action for e in entries] == [LogEntry.Action.CREATE, LogEntry.Action.UPDATE, LogEntry.Action.DELETE]
    assert {e.actor for e in entries} == {alice}
    assert entries[0].additional_data == {"workspace_id": ws.pk}


@pytest.mark.parametrize("word, law_words, code, field", [
    ("", "inhyrd arbetskraft", "required", "word"),
    ("hyrpersonal", "   ", "required", "law_words"),
    ("och att", "inhyrd arbetskraft", "stop_words", "word"),
    ("1234", "inhyrd arbetskraft", "no_letters", "word"),
    ("<b>hyrpersonal</b>", "inhyrd arbetskraft", "characters", "word"),
    ("hyrpersonal", "[inhyrd arbetskraft](https://example.com)", "characters", "law_words"),
    ("hyr*personal*", "inhyrd arbetskraft", "characters", "word"),
    ("x" * 101, "inhyrd arbetskraft", "too_long", "word"),
    ("hyrpersonal", "y" * 201, "too_long", "law_words"),
    ("Hyrpersonal", "hyrpersonal", "same_words", "law_words"),
])
def test_bad_input_is_refused_at_its_field_and_nothing_is_stored(word: str, law_words: str, code: str,
                                                                 field: str) -> None:
    alice, ws = alice_owning_a_workspace()
    with pytest.raises(GlossaryError) as caught:
        services.term_create(workspace=ws, user=alice, word=word, law_words=law_words)
    assert (caught.value.code, caught.value.field, caught.value.status) == (code, field, 400)
    assert caught.value.details == {field: [caught.value.message]}
    assert not Term.objects.exists()


def test_a_word_is_stored_once_per_workspace_whatever_its_case() -> None:
    alice, ws = alice_owning_a_workspace()
    services.term_create(workspace=ws, user=alice, word="OVK", law_words="funktionskontroll av ventilationssystem")
    with pytest.raises(GlossaryError) as caught:
        services.term_create(workspace=ws, user=alice, word="ovk", law_words="ventilationskontroll")
    assert (caught.value.code, caught.value.status) == ("duplicate", 409)
    other = services.term_create(workspace=ws, user=alice, word="hyrpersonal", law_words="inhyrd arbetskraft")
    with pytest.raises(GlossaryError):
        services.term_update(term=other, user=alice, word="Ovk", law_words="inhyrd arbetskraft")
    assert sorted(Term.objects.values_list("word", flat=True)) == ["OVK", "hyrpersonal"]
    # Another workspace has words of its own.
    bob = make_user("bob")
    theirs = Workspace.objects.create(name="Bobs AB", slug="bobs-ab")
    services.term_create(workspace=theirs, user=bob, word="OVK", law_words="obligatorisk ventilationskontroll")
    assert Term.objects.filter(word__iexact="ovk").count() == 2


def test_a_workspace_holds_a_bounded_number_of_terms(monkeypatch: pytest.MonkeyPatch) -> None:
    alice, ws = alice_owning_a_workspace()
    monkeypatch.setattr(services, "MAX_TERMS", 2)
    services.term_create(workspace=ws, user=alice, word="hyrpersonal", law_words="inhyrd arbetskraft")
    services.term_create(workspace=ws, user=alice, word="uppsägningslön", law_words="lön under uppsägningstiden")
    with pytest.raises(GlossaryError) as caught:
        services.term_create(workspace=ws, user=alice, word="skyddsrond", law_words="undersökning av arbetsförhållanden")
    assert caught.value.code == "too_many"
    assert Term.objects.count() == 2


def test_another_workspaces_term_is_not_found() -> None:
    alice, ws = alice_owning_a_workspace()
    theirs = Workspace.objects.create(name="Bobs AB", slug="bobs-ab")
    term = services.term_create(workspace=theirs, user=None, word="hyrpersonal", law_words="inhyrd arbetskraft")
    with pytest.raises(Http404):
        selectors.term_get(ws, term.pk)
    assert list(selectors.term_list(ws)) == []
    assert selectors.term_get(theirs, term.pk) == term


@pytest.mark.parametrize("path", ["service", "update", "sql"])
def test_every_change_bumps_the_workspaces_knowledge_version(path: str) -> None:
    alice, ws = alice_owning_a_workspace()
    bystander = Workspace.objects.create(name="Bobs AB", slug="bobs-ab")
    before, untouched = version(ws), version(bystander)
    term = services.term_create(workspace=ws, user=alice, word="hyrpersonal", law_words="inhyrd arbetskraft")
    assert version(ws) == before + 1
    if path == "service":
        services.term_update(term=term, user=alice, word="hyrpersonal", law_words="inhyrd arbetskraft från bemanningsföretag")
    elif path == "update":
        Term.objects.filter(pk=term.pk).update(law_words="inhyrd arbetskraft från bemanningsföretag")
    else:
        with connection.cursor() as cursor:
            cursor.execute("UPDATE glossary_term SET law_words = %s WHERE id = %s", ["inhyrd personal", term.pk])
    assert version(ws) == before + 2
    Term.objects.filter(pk=term.pk).delete()
    assert version(ws) == before + 3
    assert version(bystander) == untouched


def test_an_unchanged_save_writes_nothing() -> None:
    alice, ws = alice_owning_a_workspace()
    term = services.term_create(workspace=ws, user=alice, word="hyrpersonal", law_words="inhyrd arbetskraft")
    before = version(ws)
    services.term_update(term=term, user=alice, word=" hyrpersonal", law_words="inhyrd  arbetskraft")
    assert version(ws) == before
    assert LogEntry.objects.get_for_model(Term).count() == 1
