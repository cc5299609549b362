"""The statutes' bridges while the statutes change: a question is answered with the bridges read before while the
new ones are read on a side connection; inside a transaction the caller reads them (nothing else could see them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent.retrieval import bridges
from tests.helpers import chunked_statute

BRIDGES = "\n\n".join([
    "1 kap. Broar",
    "1 § En stat inom Europeiska ekonomiska samarbetsområdet (EES) likställs med Sverige.",
])
TUNNELS = "\n\n".join([
    "1 kap. Tunnlar",
    "1 § Tunnlar ska besiktas av Statens tunnelinspektion (STI) vart tredje år.",
])


@pytest.fixture
def version_read_every_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # The version is otherwise read at most every 10 s; these tests change it within one.
    monkeypatch.setattr(bridges, "VERSION_CHECK_SECONDS", 0.0)
    bridges.forget()
    yield
    bridges.forget()


@pytest.mark.django_db(transaction=True)
def test_a_load_is_read_beside_the_questions_which_keep_the_bridges_read_before(version_read_every_time: None) -> None:
    chunked_statute("2099:1", "Lag (2099:1) om broar", BRIDGES)
    before = bridges.vocabulary()  # none in this process yet: read by the caller
    assert "EES" in before.acronyms and "STI" not in before.acronyms

    chunked_statute("2099:2", "Lag (2099:2) om tunnlar", TUNNELS)
    assert bridges.vocabulary() is before  # the question did not wait for the new statute's words
    refresh = bridges._refresh
    assert refresh is not None and refresh.future is not None
    refresh.future.result(timeout=120)

    after = bridges.vocabulary()
    assert after is not before
    assert {"EES", "STI"} <= after.acronyms
    assert after.spelling is after._spelling  # read beside too, not by the next question

    # One read at a time, then none for REFRESH_SECONDS: a long load is not read without pause.
    chunked_statute("2099:3", "Lag (2099:3) om färjor", "1 kap. Färjor\n\n1 § Färjor ska ha flytvästar (FV).")
    assert bridges.vocabulary() is after
    assert bridges._refresh is refresh


@pytest.mark.django_db
def test_inside_a_transaction_the_caller_reads_the_new_statutes_words(version_read_every_time: None) -> None:
    chunked_statute("2099:1", "Lag (2099:1) om broar", BRIDGES)
    before = bridges.vocabulary()
    chunked_statute("2099:2", "Lag (2099:2) om tunnlar", TUNNELS)  # uncommitted: no other connection sees it
    after = bridges.vocabulary()
    assert after is not before and "STI" in after.acronyms
    assert bridges._refresh is None


@pytest.mark.django_db(transaction=True)
def test_a_side_mining_that_ends_late_leaves_newer_bridges_in_place(version_read_every_time: None) -> None:
    chunked_statute("2099:1", "Lag (2099:1) om broar", BRIDGES)
    before = bridges.vocabulary()
    chunked_statute("2099:2", "Lag (2099:2) om tunnlar", TUNNELS)
    newer = bridges.Vocabulary(version=(-1, -1))
    # Holding the lock, as a mining in a caller's thread would, keeps the side mining waiting until that caller has
    # installed its newer bridges; the side mining must not put its older ones back over them.
    with bridges._lock:
        assert bridges.vocabulary() is before
        refresh = bridges._refresh
        assert refresh is not None and refresh.future is not None
        bridges._local = newer
    mined = refresh.future.result(timeout=120)
    assert "STI" in mined.acronyms
    assert bridges._local is newer
