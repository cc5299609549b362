from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from pytest_django import DjangoDbBlocker, Settings

# Tests loading regulations queue their embedding on the test broker: ingestion's clean-queue fixture.
from tests.chunks.conftest import clean_queue  # noqa: F401

if TYPE_CHECKING:  # for annotations only: the fixtures import the models when they run
    from compliance.models import LegalDocument
    from tests.fake_openai import FakeOpenAI

CORPUS = ("1977:1160", "1982:80")


@pytest.fixture(scope="package")
def statutes(django_db_setup: None, django_db_blocker: DjangoDbBlocker) -> "Iterator[list[LegalDocument]]":
    """Arbetsmiljölagen and LAS, chunked and embedded with the real model, for the agent tests.

    They are committed (embedding them once per package saves minutes) and
    deleted again when the package is done, so later TestCases start clean.
    """
    from compliance.models import LegalDocument
    from tests.corpus import load_statutes, require_test_database

    with django_db_blocker.unblock():
        docs = load_statutes(*CORPUS)
    yield docs
    with django_db_blocker.unblock():
        require_test_database()  # the delete below must never reach a developer's database
        LegalDocument.objects.filter(sfs_number__in=CORPUS).delete()


@pytest.fixture
def loaded(statutes: "list[LegalDocument]", django_db_blocker: DjangoDbBlocker) -> "list[LegalDocument]":
    # A TransactionTestCase may have flushed them: put them back (vectors are cached).
    from tests.corpus import load_statutes

    with django_db_blocker.unblock():
        return load_statutes(*CORPUS)


@pytest.fixture
def team(loaded: "list[LegalDocument]", settings: Settings) -> dict[str, Any]:
    """No model configured (answers are extractive); alice owns Alices AB, where bob reads;
    charlie owns Charlies AB."""
    from compliance.models import Membership, Workspace
    from tests.helpers import make_user

    settings.OPENAI_API_KEY = ""
    settings.OPENAI_BASE_URL = ""
    alice, bob, charlie = make_user("alice"), make_user("bob"), make_user("charlie")
    ws = Workspace.objects.create(name="Alices AB", slug="alices-ab")
    other = Workspace.objects.create(name="Charlies AB", slug="charlies-ab")
    Membership.objects.create(user=alice, workspace=ws, role="owner")
    Membership.objects.create(user=bob, workspace=ws, role="viewer")
    Membership.objects.create(user=charlie, workspace=other, role="owner")
    return {"alice": alice, "bob": bob, "charlie": charlie, "ws": ws, "other": other}


@pytest.fixture
def fake_model(settings: Settings) -> "Iterator[FakeOpenAI]":
    """The chat model stood in for through the real openai client (tests/fake_openai.py)."""
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        settings.OPENAI_BASE_URL = fake.base_url
        settings.OPENAI_API_KEY = "test-key"
        settings.CHAT_MODEL = "fake-model"
        yield fake


@pytest.fixture
def empty_retrieval_cache() -> None:
    """No answer from an earlier test's cache entry: the test sees what this question's retrieval gives."""
    from agent.retrieval.cache import get_retrieval_cache

    get_retrieval_cache().clear()
