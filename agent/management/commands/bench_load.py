"""Load benchmark: the app run the way production runs it, driven by N concurrent users for a fixed time.

Starts, on 127.0.0.1 only: gunicorn (several workers, DEBUG=false) and a Celery worker,
with the Redis-backed cache and retrieval cache (RETRIEVAL_CACHE_BACKEND=django). Two
throwaway workspaces each get a user, an API token and one file carrying a marker word no
other document has. Half the users chat (the API's streamed answer; no model is configured,
so answers are extractive), half search the API, and a few searchers also upload a small
file each round (the worker chunks and embeds it meanwhile). Every search hit and every
answer's sources are checked against the asking workspace: a file or assessment of the
other workspace is a leak and must never happen; a fifth of the questions ask for the other
workspace's marker word to tempt one. The other questions are the dev questions, each request
the next one (a question repeats only after all were asked), and the shared query vector
cache starts empty: the report says how many searches found their question's vector cached.

Each virtual user pauses between requests, uniformly at random within --think-seconds
(default 1:3 s, the usual load-testing default and still far faster than a person reading
an answer): that is N people using the product at once, the run the latency targets are
judged on. `--think-seconds 0` is the closed-loop stress run (every user sends its next
request the moment an answer ends): on 2 cores it saturates the machine by construction and
measures capacity, not latency. The report gives the think time and the offered load.

Bounded by --seconds and --max-requests, whichever comes first. The API throttle is raised
for the run (one virtual user sends far more than a person). Everything it created is
deleted afterwards, and the processes it started are stopped.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from agent.evaluation.benchmarking import latency_summary, machine_info, read_jsonl, write_json
from agent.retrieval.query_vector_cache import query_vectors
from chunks.services import chunk_document
from compliance.models import Assessment, LegalDocument, Membership, UserFile, Workspace
from compliance.services import api_token_create, user_file_upload

HOST = "127.0.0.1"  # never anything else: this command must not load another machine
TARGETS = {"search_p95_ms": 300, "chat_first_token_p95_ms": 1000}
FALLBACK_QUESTIONS = [
    "Vad säger 3 kap. 2 a § arbetsmiljölagen?",
    "Hur länge får en anställd jobba övertid per år?",
    "Vilka regler gäller för turordning vid uppsägning?",
    "Måste vi ha ett skyddsombud på arbetsplatsen?",
    "Vad gäller för provanställning?",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def think_range(value: str) -> tuple[float, float]:
    """`MIN:MAX` seconds, or one number for a fixed pause (0: none)."""
    try:
        low, sep, high = value.partition(":")
        bounds = (float(low), float(high if sep else low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"ange MIN:MAX i sekunder, t.ex. 1:3 (fick {value!r})") from None
    if not 0 <= bounds[0] <= bounds[1] <= 600:
        raise argparse.ArgumentTypeError(f"0 <= MIN <= MAX <= 600 krävs (fick {value!r})")
    return bounds


def questions() -> list[str]:
    path = settings.BASE_DIR / "data" / "sfs" / "dev_questions.jsonl.gz"
    found = [q["question"] for q in read_jsonl(path)] if path.exists() else []
    return FALLBACK_QUESTIONS + found


class QuestionPool:
    """Every request asks the next question, across users and phases: a question comes
    back only once all have been asked, as people rarely ask the very same words."""

    def __init__(self, pool: list[str]) -> None:
        self._pool, self._next = pool, 0
        self._lock = threading.Lock()

    def take(self) -> str:
        with self._lock:
            question = self._pool[self._next % len(self._pool)]
            self._next += 1
            return question


class Budget:
    """At most `limit` requests, until `deadline`."""

    def __init__(self, limit: int, deadline: float) -> None:
        self.limit, self.deadline, self.used = limit, deadline, 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.used >= self.limit or time.monotonic() >= self.deadline:
                return False
            self.used += 1
            return True

    def pause(self, seconds: float) -> None:
        """A user's think time, never past the deadline."""
        if seconds > 0:
            time.sleep(max(0.0, min(seconds, self.deadline - time.monotonic())))


class Results:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.error_samples: list[str] = []
        self.seen: set[tuple[str, str, int]] = set()  # (workspace slug, source type, source id)
        self.search_timings: list[dict] = []  # the server's retrieval stages of each search

    def stages(self, timings: dict) -> None:
        with self._lock:
            self.search_timings.append(timings)

    def ok(self, kind: str, ms: float) -> None:
        with self._lock:
            self.latency[kind].append(ms)

    def error(self, kind: str, detail: str) -> None:
        with self._lock:
            self.errors[kind] += 1
            if len(self.error_samples) < 10:
                self.error_samples.append(f"{kind}: {detail[:300]}")

    def sources(self, slug: str, rows: list[dict] | None) -> None:
        with self._lock:
            for row in rows or []:
                if row.get("source_type") in ("USER_FILE", "ASSESSMENT"):
                    self.seen.add((slug, row["source_type"], int(row["source_id"])))


class Client:
    """One virtual user: a keep-alive connection and an API token."""

    def __init__(self, port: int, token: str, slug: str) -> None:
        self.port, self.slug = port, slug
        self.headers = {"Authorization": f"Bearer {token}"}
        self.conn = http.client.HTTPConnection(HOST, port, timeout=60)

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict | None = None) -> http.client.HTTPResponse:
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=body, headers={**self.headers, **(headers or {})})
                return self.conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A keep-alive connection the server closed: reconnect once.
                self.conn.close()
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=60)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def json(self, method: str, path: str, data: dict | None = None) -> tuple[int, bytes]:
        body = json.dumps(data).encode() if data is not None else None
        response = self.request(method, path, body, {"Content-Type": "application/json"} if body else None)
        return response.status, response.read()


def search(client: Client, results: Results, query: str) -> None:
    t0 = time.perf_counter()
    status, body = client.json("POST", f"/api/v1/workspaces/{client.slug}/search", {"query": query, "top_k": 10})
    ms = (time.perf_counter() - t0) * 1000
    if status != 200:
        results.error("search", f"{status} {body[:200]!r}")
        return
    results.ok("search", ms)
    data = json.loads(body)
    results.sources(client.slug, data["results"])
    results.stages(data.get("timings_ms") or {})


def new_conversation(client: Client) -> int:
    status, body = client.json("POST", f"/api/v1/workspaces/{client.slug}/conversations/", {})
    if status != 201:
        raise RuntimeError(f"conversation: {status} {body[:200]!r}")
    return json.loads(body)["id"]


def chat(client: Client, results: Results, conversation: int, question: str) -> None:
    path = f"/api/v1/workspaces/{client.slug}/conversations/{conversation}/messages?{urlencode({'stream': 'true'})}"
    t0 = time.perf_counter()
    response = client.request("POST", path, json.dumps({"content": question}).encode(),
                              {"Content-Type": "application/json", "Accept": "text/event-stream"})
    if response.status != 200:
        results.error("chat", f"{response.status} {response.read()[:200]!r}")
        return
    first_token = None
    event = None
    done = False
    for raw in iter(response.readline, b""):
        line = raw.decode("utf-8").rstrip("\n")
        if line.startswith("event: "):
            event = line[7:]
            if event == "token" and first_token is None:
                first_token = (time.perf_counter() - t0) * 1000
        elif line.startswith("data: ") and event in ("sources", "done", "error"):
            data = json.loads(line[6:])
            if event == "sources":
                results.sources(client.slug, data)
            elif event == "done":
                results.sources(client.slug, data.get("sources"))
                done = True
            else:
                results.error("chat", f"error event: {data}")
    total = (time.perf_counter() - t0) * 1000
    if not done or first_token is None:
        results.error("chat", "stream ended without a token and a done event")
        return
    results.ok("chat_first_token", first_token)
    results.ok("chat_total", total)


def upload(client: Client, results: Results, n: str) -> None:
    boundary = secrets.token_hex(12)
    text = f"Rutin {n} för tillbudsrapportering. Alla tillbud rapporteras till skyddsombudet samma dag.\n"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"rutin-{n}.txt\"\r\n"
            f"Content-Type: text/plain\r\n\r\n{text}\r\n--{boundary}--\r\n").encode()
    t0 = time.perf_counter()
    response = client.request("POST", f"/api/v1/workspaces/{client.slug}/files/", body,
                              {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    data = response.read()
    if response.status != 201:
        results.error("upload", f"{response.status} {data[:200]!r}")
        return
    results.ok("upload", (time.perf_counter() - t0) * 1000)


class Command(BaseCommand):
    help = "Drive N concurrent users (chat, search, uploads) against gunicorn + Celery on 127.0.0.1; print latencies."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--users", type=int, default=20)
        parser.add_argument("--seconds", type=float, default=60)
        parser.add_argument("--max-requests", type=int, default=20000)
        parser.add_argument("--workers", type=int, default=3, help="gunicorn worker processes")
        parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker")
        parser.add_argument("--uploaders", type=int, default=2, help="searchers that also upload each round")
        parser.add_argument("--warmup-seconds", type=float, default=10)
        parser.add_argument("--think-seconds", type=think_range, default=(1.0, 3.0), metavar="MIN:MAX",
                            help="each user's pause between requests, uniform in MIN:MAX (default 1:3); "
                                 "0: closed loop, the capacity run")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        users = max(2, opts["users"])
        if not LegalDocument.objects.filter(chunks__isnull=False).exists():
            raise CommandError("Inga författningar är inlästa: kör först `manage.py load_sfs`.")
        run_id = secrets.token_hex(3)
        machine_before = machine_info()  # the load others put on the machine, before this run adds its own
        # Vectors an earlier run left in the shared cache would make every repeated question a hit.
        query_vectors.clear()
        media = Path(tempfile.mkdtemp(prefix="lagrum-bench-load-"))
        port = free_port()
        setup = self._setup(run_id)
        procs: list[subprocess.Popen] = []
        try:
            procs = self._start(port, media, opts)
            self._wait_ready(port, procs)
            report = self._drive(port, setup, users, opts)
            report["machine_before"] = machine_before
        finally:
            for proc in procs:
                stop(proc)
            self._teardown(setup)
            shutil.rmtree(media, ignore_errors=True)
        if opts["json"]:
            write_json(self.stdout, report)
        else:
            for kind, summary in report["endpoints"].items():
                self.stdout.write(f"{kind:18} {summary}")
            self.stdout.write(f"throughput {report['throughput_rps']} req/s, errors {report['errors']['total']}, "
                              f"leaks {report['leaks']}, think {report['think_seconds']} s")

    # ----------------------------------------------------------------- setup

    def _setup(self, run_id: str) -> dict:
        """Two workspaces, each with a user, a token and a file with its own marker word."""
        spaces = []
        for label in ("a", "b"):
            user = get_user_model().objects.create_user(f"bench-{run_id}-{label}", password=secrets.token_urlsafe(16))
            ws = Workspace.objects.create(name=f"Last {run_id} {label}", slug=f"bench-{run_id}-{label}")
            Membership.objects.create(user=user, workspace=ws, role=Membership.Role.OWNER)
            marker = f"kodord{label}{secrets.token_hex(4)}"
            secret = _NamedBytes(f"hemlig-{label}.txt",
                                 f"Intern rutin. Kodordet {marker} gäller bara den här arbetsytan.\n".encode())
            f = user_file_upload(workspace=ws, user=user, uploaded=secret, title=f"Hemlig {label}")
            chunk_document("USER_FILE", f.pk)
            token = api_token_create(user=user, name="bench_load").key
            spaces.append({"user": user, "ws": ws, "marker": marker, "token": token})
        return {"spaces": spaces}

    def _teardown(self, setup: dict) -> None:
        for space in setup["spaces"]:
            Workspace.objects.filter(pk=space["ws"].pk).delete()
            space["user"].delete()

    # ----------------------------------------------------------------- processes

    def _env(self, media: Path, opts: dict) -> dict:
        env = dict(os.environ)
        db = connection.settings_dict
        env.update(
            # The very database this command set up (under pytest, the test database).
            DATABASE_URL=f"postgres://{quote(db['USER'])}:{quote(db['PASSWORD'])}@{db['HOST'] or HOST}:"
                         f"{db['PORT'] or 5432}/{quote(db['NAME'])}",
            DEBUG="false", SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS=HOST,
            # Plain http on the loopback: production's TLS settings would redirect every request.
            SECURE_SSL_REDIRECT="false", SESSION_COOKIE_SECURE="false", CSRF_COOKIE_SECURE="false",
            SECURE_HSTS_SECONDS="0", CACHE_BACKEND="redis", RETRIEVAL_CACHE_BACKEND="django",
            OPENAI_API_KEY="", OPENAI_BASE_URL="", API_THROTTLE_RATE="1000000/min",
            MEDIA_ROOT=str(media), EMBEDDING_THREADS="1", OMP_WAIT_POLICY="PASSIVE", PYTHONUNBUFFERED="1",
        )
        return env

    def _start(self, port: int, media: Path, opts: dict) -> list[subprocess.Popen]:
        env = self._env(media, opts)
        bin_dir = Path(sys.executable).parent
        log = open(media / "processes.log", "w")
        web = subprocess.Popen(
            [str(bin_dir / "gunicorn"), "compliance.wsgi:application", "--bind", f"{HOST}:{port}",
             "--workers", str(opts["workers"]), "--threads", str(opts["threads"]), "--timeout", "120",
             "--log-level", "warning"],
            cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        worker = subprocess.Popen(
            [str(bin_dir / "celery"), "-A", "compliance", "worker", "-l", "warning", "--concurrency", "1",
             "-Q", "lagrum", "-n", f"bench-load-{port}@%h"],
            cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return [web, worker]

    def _wait_ready(self, port: int, procs: list[subprocess.Popen]) -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in procs):
                raise CommandError("gunicorn eller Celery-arbetaren avslutades vid start.")
            try:
                conn = http.client.HTTPConnection(HOST, port, timeout=5)
                conn.request("GET", "/logga-in/")
                if conn.getresponse().status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        raise CommandError("Webbservern svarade inte inom 90 s.")

    # ----------------------------------------------------------------- load

    def _drive(self, port: int, setup: dict, users: int, opts: dict) -> dict:
        spaces = setup["spaces"]
        pool = QuestionPool(questions())
        chatters = users // 2
        results = Results()

        think_min, think_max = opts["think_seconds"]

        def run_user(i: int, budget: Budget, sink: Results) -> None:
            space, other = spaces[i % 2], spaces[(i + 1) % 2]
            client = Client(port, space["token"], space["ws"].slug)
            conversation, asked, n = None, 0, 0
            rng = random.Random(i)
            # Users start spread over one think time, as people do, not all in the same millisecond.
            budget.pause(rng.uniform(0, think_max))
            try:
                while budget.take():
                    n += 1
                    # Every fifth question tempts a leak: the other workspace's marker word.
                    q = f"Vad gäller enligt {other['marker']}?" if n % 5 == 0 else pool.take()
                    if i < chatters:
                        if conversation is None or asked >= 5:
                            conversation, asked = new_conversation(client), 0
                        chat(client, sink, conversation, q)
                        asked += 1
                    else:
                        search(client, sink, q)
                        if i - chatters < opts["uploaders"] and budget.take():
                            budget.pause(rng.uniform(think_min, think_max))
                            # Text of its own (the warm-up repeats i and n): identical bytes are refused as a duplicate.
                            upload(client, sink, f"{i}-{n}-{secrets.token_hex(4)}")
                    budget.pause(rng.uniform(think_min, think_max))
            except Exception as exc:  # a crashed virtual user is an error, not a crashed benchmark
                sink.error("client", repr(exc))
            finally:
                client.conn.close()

        def run_phase(seconds: float, limit: int, sink: Results) -> float:
            budget = Budget(limit, time.monotonic() + seconds)
            threads = [threading.Thread(target=run_user, args=(i, budget, sink), daemon=True) for i in range(users)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join(seconds + 120)
            return time.perf_counter() - t0

        # Warm-up: every gunicorn worker loads the embedding model on its first query.
        warm = Results()
        run_phase(opts["warmup_seconds"], opts["max_requests"], warm)
        elapsed = run_phase(opts["seconds"], opts["max_requests"], results)

        allowed = {
            space["ws"].slug: {("USER_FILE", pk) for pk in UserFile.objects.filter(workspace=space["ws"])
                                                                       .values_list("pk", flat=True)}
            | {("ASSESSMENT", pk) for pk in Assessment.objects.filter(workspace=space["ws"])
                                                            .values_list("pk", flat=True)}
            for space in spaces
        }
        leaks = sorted(f"{slug}: {kind} {pk}" for slug, kind, pk in results.seen | warm.seen
                       if (kind, pk) not in allowed[slug])
        completed = sum(len(results.latency[kind]) for kind in ("search", "chat_total", "upload"))
        errors = dict(results.errors)
        endpoints = {kind: latency_summary(values) for kind, values in sorted(results.latency.items())}
        search_p95 = endpoints.get("search", {}).get("p95_ms")
        mean_think = (think_min + think_max) / 2
        searches = results.search_timings
        server = {stage: latency_summary([t[stage] for t in searches if isinstance(t.get(stage), (int, float))
                                          and not isinstance(t.get(stage), bool)])
                  for stage in ("embed", "sql", "total")}
        first_p95 = endpoints.get("chat_first_token", {}).get("p95_ms")
        return {
            "users": users, "chatters": chatters, "searchers": users - chatters,
            "uploaders": min(opts["uploaders"], users - chatters),
            "seconds": round(elapsed, 1), "port": port,
            "think_seconds": {"min": think_min, "max": think_max, "mean": mean_think},
            # What the users would send if every answer were instant; closed loop (no think time): no limit.
            "offered_load": ({"max_rps": round(users / mean_think, 1), "per_user_max_rps": round(1 / mean_think, 2)}
                             if mean_think else {"max_rps": None, "closed_loop": True}),
            "gunicorn_workers": opts["workers"], "gunicorn_threads": opts["threads"],
            "requests": completed, "throughput_rps": round(completed / elapsed, 1) if elapsed else 0,
            "errors": {"total": sum(errors.values()), **errors, "samples": results.error_samples},
            "warmup_errors": sum(warm.errors.values()),
            "leaks": len(leaks), "leak_samples": leaks[:10],
            "endpoints": endpoints,
            # The server's retrieval stages of the searches (timings_ms), and how many questions
            # another request had embedded already (the query vector cache).
            "search_server_ms": server,
            "search_embed_cached_share": (round(sum(bool(t.get("embed_cached")) for t in searches) / len(searches), 2)
                                          if searches else None),
            "targets": {
                "search_p95_ms": TARGETS["search_p95_ms"], "chat_first_token_p95_ms": TARGETS["chat_first_token_p95_ms"],
                "met": bool(search_p95 is not None and search_p95 < TARGETS["search_p95_ms"]
                            and first_p95 is not None and first_p95 < TARGETS["chat_first_token_p95_ms"]
                            and not errors and not leaks),
            },
            "machine": machine_info(),
        }


class _NamedBytes:
    """The least an upload needs: a name, a size, a content type and read()."""

    def __init__(self, name: str, data: bytes) -> None:
        self.name, self._data, self.size, self.content_type = name, data, len(data), "text/plain"

    def read(self) -> bytes:
        return self._data


def stop(proc: subprocess.Popen) -> None:
    """Stop a process group this command started (gunicorn's and Celery's children too)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
    except ProcessLookupError:
        pass
