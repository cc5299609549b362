"""A real Celery worker process on the real Redis broker, writing to the test database.

Tests that use it must commit their data (`django_db(transaction=True)`): the
worker is another process with its own connection and sees only committed rows.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

import pytest
from django.conf import settings
from pytest_django import DjangoDbBlocker

if TYPE_CHECKING:  # for annotations only: the broker's client is imported when a test first reaches it
    import redis

T = TypeVar("T")

QUEUE = "lagrum"  # the interactive queue; "lagrum-bulk" shares the prefix (queued_task_calls sees both)
QUEUES = "lagrum,lagrum-bulk"
BROKER_URL = os.environ["CELERY_BROKER_URL"]  # tests/conftest.py: DB 15 on the run's own Redis
VISIBILITY_TIMEOUT = 10  # the settings' minimum: a killed worker's task comes back after ~10-20 s
WORKER_BATCH_SIZE = 2
READY_TIMEOUT = 90
SUCCEEDED = re.compile(r"Task (?P<task>[\w.]+)\[(?P<id>[0-9a-f-]+)\] succeeded in [\d.]+s: (?P<result>.*)$", re.M)


# `celery -A compliance worker`, plus kombu's sweep for unacknowledged messages every second
# instead of every ~100 s (10 s interval x throttle 10 in kombu 5.7): with the short visibility
# timeout, a killed worker's task comes back within seconds instead of minutes.
WORKER_MAIN = (
    "import sys\n"
    "from compliance.celery import app\n"
    "app.conf.broker_transport_options = {**app.conf.broker_transport_options,\n"
    "    'unacked_restore_interval': 1, 'unacked_restore_throttle': 1}\n"
    "app.worker_main(sys.argv[1:])\n"
)


def wait_for(predicate: Callable[[], T], *, timeout: float, interval: float = 0.1, what: str = "condition") -> T:
    """Poll until `predicate()` is truthy; a bounded wait, never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def _redis() -> redis.Redis:
    import redis

    return redis.Redis.from_url(BROKER_URL)


def purge_test_queue() -> None:
    """Empty the test broker's queue, including messages a killed run left unacknowledged."""
    from compliance.celery import app

    # Never purge the development queue (DB 0); tests get /15 or a DB of their own through the environment.
    assert not BROKER_URL.endswith("/0"), BROKER_URL
    app.control.purge()
    r = _redis()
    r.delete("unacked", "unacked_index", "unacked_mutex")
    for key in r.keys(QUEUE + "*"):  # both queues and their priority sub-lists; purge() sees only the default
        if r.type(key) == b"list":
            r.delete(key)


def queued_task_calls(task_name: str) -> list[tuple[list, dict]]:
    """(args, kwargs) of every queued, not yet delivered call of `task_name` on the test broker."""
    calls = []
    for key in _redis().keys(QUEUE + "*"):
        if _redis().type(key) != b"list":
            continue
        for raw in _redis().lrange(key, 0, -1):
            message = json.loads(raw)
            if message["headers"].get("task") != task_name:
                continue
            body = message["body"]
            if message["properties"].get("body_encoding") == "base64":
                body = base64.b64decode(body)
            args, kwargs, _embed = json.loads(body)
            calls.append((args, kwargs))
    return calls


PRIORITY_STEPS = (0, 3, 6, 9)  # kombu's Redis transport: one list per queue and step
PRIORITY_SEP = "\x06\x16"


@dataclass
class QueuedMessage:
    queue: str
    priority: int
    task: str
    task_id: str
    args: list
    kwargs: dict


def queued_in_consumption_order(queues: tuple[str, ...] = ("lagrum", "lagrum-bulk")) -> list[QueuedMessage]:
    """Every waiting message, in the order a worker started with `-Q lagrum,lagrum-bulk` takes them: kombu
    BRPOPs the lists step by step (0 first), each queue in sorted order within a step, each list oldest first."""
    found = []
    r = _redis()
    for priority in PRIORITY_STEPS:
        for queue in sorted(queues):
            key = queue if priority == 0 else f"{queue}{PRIORITY_SEP}{priority}"
            for raw in reversed(r.lrange(key, 0, -1)):  # LPUSHed, BRPOPed: the right end is the oldest
                message = json.loads(raw)
                body = message["body"]
                if message["properties"].get("body_encoding") == "base64":
                    body = base64.b64decode(body)
                args, kwargs, _embed = json.loads(body)
                found.append(QueuedMessage(queue, priority, message["headers"]["task"], message["headers"]["id"],
                                           args, kwargs))
    return found


class Worker:
    """One `celery worker` process (solo pool by default: SIGKILL takes the running task with it)."""

    def __init__(self, name: str, log_path: Path, env: dict, pool: str = "solo") -> None:
        self.name = name
        self.log_path = log_path
        self.env = env
        self.pool = pool
        self.proc: subprocess.Popen | None = None

    def start(self) -> Worker:
        self._log = open(self.log_path, "ab")
        pool = ["--pool", self.pool] + (["--concurrency", "1"] if self.pool == "prefork" else [])
        self.proc = subprocess.Popen(
            [sys.executable, "-c", WORKER_MAIN, "worker", *pool, "-Q", QUEUES, "-l", "info",
             "-n", f"{self.name}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=settings.BASE_DIR, env=self.env, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(self._ready, timeout=READY_TIMEOUT, interval=0.2, what=f"worker {self.name} to be ready")
        return self

    def _ready(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"worker {self.name} exited ({self.proc.returncode}):\n{self.log()[-3000:]}")
        return " ready." in self.log()

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def results(self, task_name: str) -> list[str]:
        """The return values the worker logged for every succeeded call of `task_name`."""
        return [m["result"] for m in SUCCEEDED.finditer(self.log()) if m["task"] == task_name]

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL: no warm shutdown, the running task is neither finished nor acknowledged."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        self._log.close()

    def children(self) -> list[int]:
        path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        return [int(pid) for pid in path.read_text().split()]

    def kill_whole(self) -> list[int]:
        """SIGKILL the main process and its pool children at once: nobody is left to requeue anything."""
        children = self.children()
        for pid in [self.proc.pid, *children]:
            os.kill(pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        for pid in children:
            wait_for(lambda: not Path(f"/proc/{pid}").exists() or "Z" in _proc_state(pid), timeout=30,
                     what=f"pool child {pid} to die")
        self._log.close()
        return children

    def stop(self) -> None:
        if self.alive:
            self.proc.send_signal(signal.SIGTERM)  # warm shutdown: unacked messages go back to the queue
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=30)
        if self.proc is not None and not self._log.closed:
            self._log.close()


def _proc_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


class Beat(Worker):
    """`celery beat`: sends the periodic tasks (the embedding recovery) to the broker."""

    def start(self) -> Beat:
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "compliance", "beat", "-l", "info",
             "-s", str(self.log_path.with_suffix(".schedule"))],
            cwd=settings.BASE_DIR, env=self.env, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(self._ready, timeout=READY_TIMEOUT, interval=0.2, what="celery beat to start")
        return self

    def _ready(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"beat exited ({self.proc.returncode}):\n{self.log()[-3000:]}")
        return "Sending due task" in self.log() or "beat: Starting..." in self.log()


class WorkerFactory(Protocol):
    """What `worker_factory` gives a test: call it to start a worker; its media folder, its workers, and a way
    to stop them all."""

    media_root: Path
    workers: list[Worker]
    stop_all: Callable[[], None]

    def __call__(self, name: str = "", *, pool: str = "solo", extra_env: dict | None = None,
                 beat: bool = False) -> Worker: ...


@pytest.fixture(scope="module")
def worker_factory(django_db_setup: None, django_db_blocker: DjangoDbBlocker,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerFactory]:
    """Start workers on the test database and broker; every one is stopped at teardown."""
    from django.db import connection

    db = connection.settings_dict
    assert db["NAME"].startswith("test_"), db["NAME"]
    media_root = tmp_path_factory.mktemp("worker-media")
    logs = tmp_path_factory.mktemp("worker-logs")
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "DATABASE_CONN_MAX_AGE": "0",  # hold no idle connection the test's flush would wait for
        "CELERY_BROKER_URL": BROKER_URL,
        "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
        "EMBEDDING_BATCH_SIZE": str(WORKER_BATCH_SIZE),
        "EMBEDDING_BACKEND": "local",
        "SFS_VECTORS_PATH": str(media_root / "no-shipped-vectors.npz"),  # statutes need the worker's model
        "MEDIA_ROOT": str(media_root),
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("EMBEDDING_MODEL", None)
    workers: list[Worker] = []

    def start(name: str = "", *, pool: str = "solo", extra_env: dict | None = None, beat: bool = False) -> Worker:
        if not workers:
            purge_test_queue()
        name = name or f"test-worker-{os.getpid()}-{len(workers) + 1}"
        worker = (Beat if beat else Worker)(name, logs / f"{name}.log", {**env, **(extra_env or {})}, pool=pool)
        workers.append(worker)
        return worker.start()

    def stop_all() -> None:
        """A test that counts what its workers did starts with no worker of an earlier test running."""
        for worker in workers:
            worker.stop()
        purge_test_queue()

    start.media_root = media_root
    start.workers = workers
    start.stop_all = stop_all
    try:
        yield start
    finally:
        for worker in workers:
            worker.stop()
        purge_test_queue()


@pytest.fixture(scope="module")
def celery_worker(worker_factory: WorkerFactory) -> Worker:
    """One worker for the whole module."""
    return worker_factory()


@pytest.fixture
def clean_queue() -> Iterator[None]:
    """For tests that enqueue without a worker: nothing they queue outlives them."""
    purge_test_queue()
    yield
    purge_test_queue()
