# Loading statutes queues their embedding on the test broker: the same clean-queue fixture as ingestion's tests.
from tests.chunks.conftest import clean_queue  # noqa: F401
