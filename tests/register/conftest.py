# Applying statutes queues their chunking on the test broker: ingestion's clean-queue fixture empties it.
from tests.chunks.conftest import clean_queue  # noqa: F401
