"""bench_glossary times the glossary's look-up and an import in a throwaway workspace and prints JSON (its shape
and counts, not its timing), then leaves nothing behind: no workspace, term, user or audit entry."""

from __future__ import annotations

import io
import json

import pytest
from auditlog.models import LogEntry
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from compliance.models import LegalDocument, Workspace
from glossary.models import Term

pytestmark = pytest.mark.django_db


def test_bench_prints_the_lookup_and_the_imports_and_cleans_up(loaded: list[LegalDocument]) -> None:
    entries = LogEntry.objects.count()
    out = io.StringIO()
    call_command("bench_glossary", "--json", "--terms", "20", "--questions", "5", stdout=out)
    result = json.loads(out.getvalue())
    assert (result["terms"], result["questions"], result["lookups"]) == (20, 5, 10)
    assert result["lookup_empty"]["n"] == result["lookup_full"]["n"] == 10
    assert result["lookup_full"]["p95_ms"] > 0 and isinstance(result["target_met"], bool)
    # The same file twice: the second import changes nothing.
    assert result["import"]["first"] | {"ms": 0} == {"ms": 0, "added": 20, "changed": 0, "unchanged": 0}
    assert result["import"]["again"] | {"ms": 0} == {"ms": 0, "added": 0, "changed": 0, "unchanged": 20}
    assert 0 <= result["questions_using_a_term"] <= 5
    assert not Workspace.objects.filter(slug__startswith="bench-glossary-").exists()
    assert not get_user_model().objects.filter(username__startswith="bench-glossary-").exists()
    assert not Term.objects.exists()
    assert LogEntry.objects.count() == entries


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(CommandError, match="--terms"):
        call_command("bench_glossary", "--terms", "501")
