# Applying statutes queues their chunking on the test broker (clean_queue empties it); the worker tests
# start real Celery workers on the test database (worker_factory).
from tests.chunks.conftest import clean_queue, worker_factory  # noqa: F401
