"""Test setup shared by every test.

The suite runs against the real embedded Postgres (pgvector) and Redis that
`make test` starts. Tests use their own Redis databases so a running dev
worker never picks up a test's task.
"""

import os
from collections.abc import Iterator
from pathlib import Path

# On the Redis that `make test` started (LAGRUM_REDIS_PORT, as compliance/settings.py reads it): two runs on
# one machine with their own ports then never share a broker, where one's queue purge would drop the
# other's unacknowledged tasks.
_REDIS_PORT = os.environ.get("LAGRUM_REDIS_PORT", "63799")
os.environ.setdefault("REDIS_URL", f"redis://127.0.0.1:{_REDIS_PORT}/14")
os.environ.setdefault("CELERY_BROKER_URL", f"redis://127.0.0.1:{_REDIS_PORT}/15")
os.environ.setdefault("CACHE_BACKEND", "locmem")
os.environ["MEDIA_ROOT"] = os.environ.get("TEST_MEDIA_ROOT", "/tmp/lagrum-test-media")

import pytest  # noqa: E402
import time_machine  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from pytest_django import Settings  # noqa: E402

from agent.retrieval.concurrent_search import close_side_connections  # noqa: E402
from compliance.models import Membership, Workspace  # noqa: E402
from tests.clocks import CLOCKS  # noqa: E402
from tests.helpers import *  # noqa: E402,F401,F403
from tests.helpers import make_user  # noqa: E402


@pytest.fixture
def member() -> tuple[User, Workspace]:
    """Greta, owner of Gretas AB: the one member that searches of a corpus of our own ask as."""
    user = make_user("greta")
    ws = Workspace.objects.create(name="Gretas AB", slug="gretas-ab")
    Membership.objects.create(user=user, workspace=ws, role="owner")
    return user, ws


@pytest.fixture(autouse=True)
def _media_root(settings: Settings, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _side_search_connections_closed() -> Iterator[None]:
    """A search outside a transaction (a transactional test, the live server) may open connections in the side
    search's threads; closed after each test, they hold no test database open when the run ends."""
    yield
    close_side_connections()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--clock", choices=sorted(CLOCKS), default=None,
                     help="run the clock-marked tests with the clock starting at this fixed instant (tests/clocks.py)")


def pytest_configure(config: pytest.Config) -> None:
    """With --clock, the whole run's clock starts at that instant and ticks on (time-machine), before the
    test database and any class's setUpTestData: no test data is dated after the tests that read it.
    Postgres's own now() is not moved; no rule of ours reads it."""
    name = config.getoption("--clock")
    if name:
        config._lagrum_clock = time_machine.travel(CLOCKS[name], tick=True)
        config._lagrum_clock.start()


def pytest_unconfigure(config: pytest.Config) -> None:
    if getattr(config, "_lagrum_clock", None) is not None:
        config._lagrum_clock.stop()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With --clock, only the tests marked `clock` run: they are the ones that read today or now."""
    if not config.getoption("--clock"):
        return
    keep = [item for item in items if item.get_closest_marker("clock")]
    config.hook.pytest_deselected(items=[item for item in items if not item.get_closest_marker("clock")])
    items[:] = keep
