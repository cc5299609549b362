"""How long a user's upload waits while a bulk re-embed of the statutes runs.

For each worker layout: start real `celery worker` processes on the configured
broker and database, queue a bulk re-embed of the statute chunks (their vectors
are dropped and queued on the bulk queue, as `reembed` does), let the bulk work
run, then upload a 20-page policy through the real upload service and time
until it is searchable by keyword and by vector (every chunk of it has a
vector and vector search finds it). Layouts:

- `priority`: one worker, `-Q lagrum,lagrum-bulk`, concurrency 1 (what `make run` starts);
- `split`: two workers, one per queue, concurrency 1 each.

It may run beside a user's instance (`make run` and its worker): its messages
go to a broker namespace of its own (chunks.bench_isolation), so the instance's
worker never takes them and its queues are never purged; the statute vectors it
drops are copied first and written back exactly afterwards, whether the run
finishes, fails or is interrupted (a run killed outright leaves the copy, and
the next run, or `--restore`, writes it back first). Its workspace, user and
upload are deleted after. Meanwhile vector search over the statutes is degraded
on that instance: on a production one, use a database of your own.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q, QuerySet

from agent.evaluation.benchmarking import machine_info, write_json
from chunks import bench_isolation
from chunks.embedding import active_model_name
from chunks.management.commands._bench import file_found, wait_until
from chunks.models import ContentChunk, SourceType
from chunks.services import embeddings_drop
from chunks.tasks import BULK_QUEUE, INTERACTIVE_QUEUE, enqueue_embedding
from compliance.models import LegalDocument, Membership, UserFile, Workspace
from compliance.services import user_file_upload, workspace_create

LAYOUTS = {
    "priority": [f"{INTERACTIVE_QUEUE},{BULK_QUEUE}"],
    "split": [INTERACTIVE_QUEUE, BULK_QUEUE],
}
TARGETS_S = {"keyword": 10, "vector": 30}
BENCH_SLUG = "bench-priority"


def marker(nonce: str, page: int) -> str:
    """A made-up word only this upload contains, so a keyword hit can only be the new policy."""
    return "kontroll" + "".join(chr(ord("a") + int(c, 16)) for c in nonce) + "abcdefghijklmnopqrst"[page - 1]


def policy_markdown(nonce: str, pages: int = 20) -> str:
    """A 20-page workplace policy: one heading and about a page (~330 words) of text per section."""
    topics = ["arbetsmiljö", "riskbedömning", "tillbud", "skyddsombud", "introduktion", "arbetstid",
              "semester", "kränkande särbehandling", "distansarbete", "brandskydd"]
    parts = [f"# Policy för systematiskt arbetsmiljöarbete ({nonce})\n"]
    for page in range(1, pages + 1):
        topic = topics[page % len(topics)]
        parts.append(f"\n## {page}. Rutin för {topic}\n")
        sentences = [
            f"Avsnitt {page} beskriver hur verksamheten arbetar med {topic} i det dagliga arbetet.",
            f"Närmaste chef ansvarar för att rutinen för {topic} följs och att brister åtgärdas utan dröjsmål.",
            "Medarbetare ska delta i arbetet och rapportera risker, tillbud och olyckor till sin chef.",
            f"Skyddsombudet ges möjlighet att delta när {topic} planeras, genomförs och följs upp.",
            "Åtgärder som inte genomförs omedelbart förs in i en skriftlig handlingsplan med ansvarig och datum.",
            f"Uppföljning av {topic} sker minst en gång per år och dokumenteras i verksamhetens ledningssystem.",
        ]
        body = " ".join(sentences[(page + i) % len(sentences)] for i in range(30))
        parts.append(f"{body} Kontrollord: {marker(nonce, page)}.\n")
    return "".join(parts)


@dataclass(frozen=True)
class BenchWorkspace:
    workspace: Workspace
    user: AbstractBaseUser
    workspace_created: bool  # by this run, which then deletes it
    user_created: bool


class Command(BaseCommand):
    help = "Time until an uploaded policy is searchable while a bulk re-embed of the statutes runs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--layouts", default="priority,split", help=f"comma-separated: {', '.join(LAYOUTS)}")
        parser.add_argument("--warmup", type=float, default=10.0,
                            help="seconds of bulk work before the upload (the models load, the queue is busy)")
        parser.add_argument("--timeout", type=float, default=300.0)
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--restore", action="store_true",
                            help="only write back the vectors a killed run left in its snapshot, then exit")

    def handle(self, *args: Any, **opts: Any) -> None:
        # A run killed outright left its snapshot: the statutes get their vectors back before anything else.
        if bench_isolation.snapshot_pending():
            restored = bench_isolation.restore_statute_vectors()
            self.stderr.write(f"restored {restored} statute vectors a previous run left dropped")
        if opts["restore"]:
            return
        layouts = [name.strip() for name in opts["layouts"].split(",") if name.strip()]
        unknown = [name for name in layouts if name not in LAYOUTS]
        if unknown:
            raise CommandError(f"unknown layout(s): {', '.join(unknown)}")
        if not ContentChunk.objects.filter(source_type=SourceType.LEGAL_DOCUMENT).exists():
            raise CommandError("no statutes loaded: run `manage.py load_sfs --all --sync` first")
        bench = self._workspace()
        try:
            runs = [self._run(layout, bench.workspace, bench.user, opts) for layout in layouts]
        finally:
            self._delete_uploads(bench.workspace)
            if bench.workspace_created:
                bench.workspace.delete()
            if bench.user_created:
                bench.user.delete()
        report = {
            "machine": machine_info(),
            "statute_chunks": ContentChunk.objects.filter(source_type=SourceType.LEGAL_DOCUMENT).count(),
            "runs": runs,
            "targets_s": TARGETS_S,
        }
        if opts["json"]:
            write_json(self.stdout, report)
            return
        for run in runs:
            self.stdout.write(f"{run['layout']}: keyword {run['keyword_s']} s, vector {run['vector_s']} s, "
                              f"bulk chunks embedded meanwhile {run['bulk_chunks_embedded_during']}")

    def _workspace(self) -> BenchWorkspace:
        """The benchmark's workspace and user, and whether this run created each (then it deletes it)."""
        user, user_created = get_user_model().objects.get_or_create(username="bench")
        workspace = Workspace.objects.filter(slug=BENCH_SLUG).first()
        created = workspace is None
        if created:
            workspace = workspace_create(name="Benchmark", owner=user, slug=BENCH_SLUG)
        Membership.objects.get_or_create(workspace=workspace, user=user, defaults={"role": Membership.Role.OWNER})
        return BenchWorkspace(workspace, user, workspace_created=created, user_created=user_created)

    def _run(self, layout: str, workspace: Workspace, user: AbstractBaseUser, opts: dict) -> dict:
        prefix = bench_isolation.new_keyprefix(f"bench-priority-{layout}")
        workers, logdir = [], Path(tempfile.mkdtemp(prefix="bench-priority-"))
        statute_chunks = ContentChunk.objects.filter(source_type=SourceType.LEGAL_DOCUMENT)
        # Copied and committed before a single vector is dropped: whatever happens next, they come back.
        bench_isolation.snapshot_statute_vectors()
        try:
            with bench_isolation.private_broker(prefix):  # on leaving, its namespace's keys are deleted
                try:
                    return self._measure(layout, workspace, user, opts, prefix, workers, logdir, statute_chunks)
                finally:
                    bench_isolation.stop_workers(workers)  # before the purge: a warm shutdown requeues
        finally:
            self._delete_uploads(workspace)
            bench_isolation.restore_statute_vectors()

    def _measure(self, layout: str, workspace: Workspace, user: AbstractBaseUser, opts: dict, prefix: str,
                 workers: list[subprocess.Popen], logdir: Path, statute_chunks: QuerySet[ContentChunk]) -> dict:
        doc_ids = list(LegalDocument.objects.order_by("id").values_list("id", flat=True))
        ids: list[int] = []
        for start in range(0, len(doc_ids), 20):  # a few statutes per transaction: short lock holds
            ids += embeddings_drop(legal_document_ids=doc_ids[start:start + 20])
        enqueue_embedding(ids, bulk=True)
        for i, queues in enumerate(LAYOUTS[layout]):
            workers.append(self._start_worker(f"bench-{layout}-{i}", queues, prefix, logdir))
        wait_until(lambda: statute_chunks.filter(embedding__isnull=False).exists(), opts["timeout"],
                   "the first bulk batch")
        time.sleep(opts["warmup"])  # a benchmark, not a test: let the bulk job settle into its pace
        bulk_before = statute_chunks.filter(embedding__isnull=False).count()
        nonce = uuid.uuid4().hex[:8]
        data = policy_markdown(nonce).encode()
        t0 = time.monotonic()
        user_file = user_file_upload(workspace=workspace, user=user, uploaded=SimpleUploadedFile(
            f"arbetsmiljopolicy-{nonce}.md", data, content_type="text/markdown"))
        keyword_s = wait_until(lambda: file_found(marker(nonce, 7), workspace, user, "keyword",
                                                   user_file), opts["timeout"], "keyword hit") - t0
        chunks = ContentChunk.objects.filter(user_file=user_file)
        vector_s = wait_until(
            lambda: chunks.exists() and not chunks.filter(Q(embedding__isnull=True)
                                                          | ~Q(embedding_model=active_model_name())).exists()
            and file_found("Vem ansvarar för att rutinen för brandskydd följs?", workspace, user, "vector",
                            user_file), opts["timeout"], "vector hit") - t0
        bulk_after = statute_chunks.filter(embedding__isnull=False).count()
        user_file.refresh_from_db()
        return {
            "layout": layout,
            "workers": LAYOUTS[layout],
            "policy_bytes": len(data),
            "policy_chunks": chunks.count(),
            "keyword_s": round(keyword_s, 2),
            "vector_s": round(vector_s, 2),
            "policy_status": user_file.status,
            "bulk_chunks_queued": len(ids),
            "bulk_chunks_embedded_before_upload": bulk_before,
            "bulk_chunks_embedded_during": bulk_after - bulk_before,
            "bulk_still_pending": len(ids) - bulk_after,
            "meets_targets": keyword_s < TARGETS_S["keyword"] and vector_s < TARGETS_S["vector"],
        }

    @staticmethod
    def _delete_uploads(workspace: Workspace) -> None:
        """The benchmark's uploads, rows and stored bytes."""
        for user_file in UserFile.objects.filter(workspace=workspace):
            user_file.file.delete(save=False)
        UserFile.objects.filter(workspace=workspace).delete()

    def _start_worker(self, name: str, queues: str, prefix: str, logdir: Path) -> subprocess.Popen:
        log_path = logdir / f"{name}.log"
        proc = bench_isolation.start_worker(name, queues, prefix, log_path)
        wait_until(lambda: " ready." in log_path.read_text(errors="replace") or proc.poll() is not None, 120,
                   f"worker {name}")
        if proc.poll() is not None:
            raise CommandError(f"worker {name} exited:\n{log_path.read_text(errors='replace')[-2000:]}")
        return proc


