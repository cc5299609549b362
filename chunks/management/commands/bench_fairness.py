"""Fairness across workspaces: a small upload in B while A's large file embeds (issue #31, 4).

One real `celery worker` (`-Q lagrum,lagrum-bulk`, concurrency 1, what `make run` starts) on this
database, in a broker namespace of its own (chunks.bench_isolation: the instance's worker never sees
these tasks). Two runs of A's file (about 2 MB, 2,190 chunks by default; `--chunks` scales it), each
with fresh text so nothing is reused:

- alone: upload it in workspace A, time until every chunk has a vector;
- shared: upload it again, wait until its embedding is under way (`--delay` seconds after its first
  vector), upload a one-line file in workspace B, time until B's file is found by keyword and by
  vector search, and until A's file is done.

Targets: B keyword < 10 s, vector < 30 s, A shared at most 10 % later than alone. The benchmark's
workspaces, user and files are deleted afterwards, whatever happens.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import BaseCommand, CommandParser
from django.db.models import Q

from agent.evaluation.benchmarking import machine_info, write_json
from chunks import bench_isolation
from chunks.embedding import active_model_name
from chunks.management.commands._bench import file_found, wait_until
from chunks.models import ContentChunk
from chunks.tasks import BULK_QUEUE, INTERACTIVE_QUEUE
from compliance.models import ProcessingStatus, UserFile, Workspace
from compliance.services import user_file_upload, workspace_create

TARGETS = {"keyword_s": 10, "vector_s": 30, "large_slowdown": 0.10}
SECTION_TOPICS = ["arbetsmiljö", "riskbedömning", "tillbud", "skyddsombud", "introduktion", "arbetstid",
                  "semester", "distansarbete", "brandskydd", "dataskydd", "inköp", "miljö"]


def large_file(nonce: str, chunks: int) -> str:
    """About `chunks` sections of ~900 characters: one chunk each (2,190 of them are ~2 MB)."""
    parts = []
    for n in range(1, chunks + 1):
        topic = SECTION_TOPICS[n % len(SECTION_TOPICS)]
        body = " ".join(
            f"Punkt {n}.{i} i rutinen för {topic} ({nonce}) säger att ansvarig chef följer upp arbetet, "
            f"dokumenterar brister och åtgärdar dem inom avtalad tid." for i in range(1, 7))
        parts.append(f"# Rutin {n}: {topic}\n\n{body}\n\n")
    return "".join(parts)


def small_file(nonce: str) -> tuple[str, str]:
    """A one-line file, and the made-up word only it contains (a keyword hit can only be this file)."""
    word = "brandövning" + "".join(chr(ord("a") + int(c, 16)) for c in nonce)
    return f"Brandlarmet provas den första måndagen varje månad ({word}).\n", word


class Command(BaseCommand):
    help = "Time a small upload in one workspace while another workspace's large file embeds."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--chunks", type=int, default=2190, help="sections in A's file (one chunk each)")
        parser.add_argument("--delay", type=float, default=10.0,
                            help="seconds after A's first vector before B uploads")
        parser.add_argument("--timeout", type=float, default=3600.0)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        user = get_user_model().objects.create_user(f"bench-fair-{uuid.uuid4().hex[:6]}")
        ws_a = workspace_create(name=f"Bench A {uuid.uuid4().hex[:6]}", owner=user)
        ws_b = workspace_create(name=f"Bench B {uuid.uuid4().hex[:6]}", owner=user)
        prefix = bench_isolation.new_keyprefix("bench-fairness")
        workers: list[subprocess.Popen] = []
        try:
            with bench_isolation.private_broker(prefix):
                try:
                    log_path = Path(tempfile.mkdtemp(prefix="bench-fairness-")) / "worker.log"
                    workers.append(bench_isolation.start_worker("bench-fair", f"{INTERACTIVE_QUEUE},{BULK_QUEUE}",
                                                                prefix, log_path))
                    wait_until(lambda: " ready." in log_path.read_text(errors="replace"), 120, "the worker")
                    alone_s = self._large(ws_a, user, opts)["done_s"]
                    shared = self._shared(ws_a, ws_b, user, opts)
                finally:
                    bench_isolation.stop_workers(workers)
        finally:
            for workspace in (ws_a, ws_b):
                for user_file in UserFile.objects.filter(workspace=workspace):
                    user_file.file.delete(save=False)
                workspace.delete()
            user.delete()
        report = {
            "machine": machine_info(),
            "large_chunks": shared["large_chunks"],
            "large_bytes": shared["large_bytes"],
            "large_alone_s": round(alone_s, 1),
            "large_shared_s": round(shared["large_done_s"], 1),
            "large_slowdown": round(shared["large_done_s"] / alone_s - 1, 3),
            "small_uploaded_after_s": round(shared["small_uploaded_after_s"], 1),
            "small_keyword_s": round(shared["keyword_s"], 2),
            "small_vector_s": round(shared["vector_s"], 2),
            "targets": TARGETS,
        }
        report["meets_targets"] = (report["small_keyword_s"] < TARGETS["keyword_s"]
                                   and report["small_vector_s"] < TARGETS["vector_s"]
                                   and report["large_slowdown"] <= TARGETS["large_slowdown"])
        if opts["json"]:
            write_json(self.stdout, report)
        else:
            self.stdout.write(str(report))

    def _upload(self, workspace: Workspace, user: AbstractBaseUser, name: str, text: str) -> UserFile:
        return user_file_upload(workspace=workspace, user=user, uploaded=SimpleUploadedFile(
            name, text.encode(), content_type="text/markdown"))

    def _large(self, workspace: Workspace, user: AbstractBaseUser, opts: dict) -> dict:
        nonce = uuid.uuid4().hex[:8]
        text = large_file(nonce, opts["chunks"])
        t0 = time.monotonic()
        user_file = self._upload(workspace, user, f"stor-{nonce}.md", text)
        done = wait_until(lambda: self._status(user_file) == ProcessingStatus.DONE, opts["timeout"], "A's file")
        return {"done_s": done - t0, "user_file": user_file, "bytes": len(text.encode())}

    def _shared(self, ws_a: Workspace, ws_b: Workspace, user: AbstractBaseUser, opts: dict) -> dict:
        nonce = uuid.uuid4().hex[:8]
        text = large_file(nonce, opts["chunks"])
        t0 = time.monotonic()
        large = self._upload(ws_a, user, f"stor-{nonce}.md", text)
        wait_until(lambda: ContentChunk.objects.filter(user_file=large, embedding__isnull=False).exists(),
                   opts["timeout"], "A's first vector")
        time.sleep(opts["delay"])  # a benchmark, not a test: A's file is well under way
        small_text, word = small_file(nonce)
        t1 = time.monotonic()
        small = self._upload(ws_b, user, f"liten-{nonce}.md", small_text)
        keyword = wait_until(lambda: file_found(word, ws_b, user, "keyword", small), opts["timeout"],
                             "B's keyword hit") - t1
        chunks = ContentChunk.objects.filter(user_file=small)
        vector = wait_until(
            lambda: chunks.exists() and not chunks.filter(Q(embedding__isnull=True)
                                                          | ~Q(embedding_model=active_model_name())).exists()
            and file_found("Hur ofta provas brandlarmet?", ws_b, user, "vector", small),
            opts["timeout"], "B's vector hit") - t1
        done = wait_until(lambda: self._status(large) == ProcessingStatus.DONE, opts["timeout"], "A's file")
        return {"large_done_s": done - t0, "large_chunks": ContentChunk.objects.filter(user_file=large).count(),
                "large_bytes": len(text.encode()), "small_uploaded_after_s": t1 - t0, "keyword_s": keyword,
                "vector_s": vector}

    @staticmethod
    def _status(user_file: UserFile) -> str:
        return UserFile.objects.filter(pk=user_file.pk).values_list("status", flat=True).first()


