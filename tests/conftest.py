"""Test setup shared by every test.

The suite runs against the real embedded Postgres (pgvector) and Redis that
`make test` starts. Tests use their own Redis databases so a running dev
worker never picks up a test's task.
"""

import os

os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:63799/14")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:63799/15")
os.environ.setdefault("CACHE_BACKEND", "locmem")
os.environ["MEDIA_ROOT"] = os.environ.get("TEST_MEDIA_ROOT", "/tmp/lagrum-test-media")

import pytest  # noqa: E402

from tests.helpers import *  # noqa: E402,F401,F403


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
