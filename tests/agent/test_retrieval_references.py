"""A question that cites a section in any of the running-text forms gets that section first.

Real statutes (arbetsmiljölagen and LAS from the agent corpus, regeringsformen
loaded here), real vectors and a real Postgres; the forms are those of
agent.retrieval.legal_refs: punkter and stycken inside a chain, a written SFS number, a
statute named earlier in the question, and "kungörelse" as a statute word.
"""

from __future__ import annotations

import pytest

from agent.retrieval.hybrid import retrieve_context
from agent.retrieval.statute_directory import statute_directory_invalidate
from compliance.models import Membership, Workspace
from tests.corpus import load_statutes
from tests.helpers import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def member(loaded):
    alice = make_user("alice")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    return alice, ws


def first(result) -> tuple[str, str]:
    return result.chunks[0].document_number, result.chunks[0].citation


@pytest.mark.parametrize(
    "question, expected",
    [
        # punkt, stycke list and lettered punkt inside the chain
        ("Vad innebär 3 kap. 2 a § 1 arbetsmiljölagen för oss?", ("1977:1160", "3 kap. 2 a §")),
        ("Hur ska 22 § 1 st. och 2 st. LAS tolkas vid uppsägning?", ("1982:80", "22 §")),
        ("Gäller 25 § 1 eller 26 § 2 lagen om anställningsskydd här?", ("1982:80", "25 §")),
        ("Vad säger 6 kap. 6 a § b och 7 § arbetsmiljölagen?", ("1977:1160", "6 kap. 6 a §")),
        # the statute named earlier in the question
        ("Vi följer arbetsmiljölagen. Vad kräver 3 kap. 2 a § av oss?", ("1977:1160", "3 kap. 2 a §")),
        ("Vad innebär 7 § för en arbetsgivare enligt LAS?", ("1982:80", "7 §")),
        ("Enligt LAS krävs saklig grund. Vad säger 22 § samma lag om turordning?", ("1982:80", "22 §")),
        # the number written in the question
        ("Vad säger 3 kap. 2 a § i SFS 1977:1160?", ("1977:1160", "3 kap. 2 a §")),
    ],
)
def test_cited_section_comes_first(member, question, expected):
    alice, ws = member
    result = retrieve_context(question, ws, user=alice)
    assert first(result) == expected
    assert result.chunks[0].reference_match
    assert f"{expected[0]} {expected[1]}" in result.references


def test_an_older_act_cited_by_its_own_number_is_not_todays_act(member):
    alice, ws = member
    result = retrieve_context("Vad sa 7 § lagen om anställningsskydd (1974:12) om saklig grund?", ws, user=alice)
    assert result.references == []
    assert not any(c.reference_match for c in result.chunks)
    today = retrieve_context("Vad säger 7 § lagen om anställningsskydd om saklig grund?", ws, user=alice)
    assert first(today) == ("1982:80", "7 §")


@pytest.fixture
def regeringsformen(loaded):
    # Keyword and reference search need no vectors; the test's transaction removes it again.
    load_statutes("1974:152", embed=False)
    statute_directory_invalidate()
    yield
    statute_directory_invalidate()


def test_kungorelse_names_a_statute(member, regeringsformen):
    alice, ws = member
    result = retrieve_context("Vad säger 2 kap. 1 § kungörelsen om beslutad ny regeringsform?", ws, user=alice,)
    assert first(result) == ("1974:152", "2 kap. 1 §")
    assert result.chunks[0].reference_match
