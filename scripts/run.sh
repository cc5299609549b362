#!/usr/bin/env bash
# Started by `make run`: loads the statutes, then runs a Celery worker, celery beat and the
# web server until Ctrl-C, and stops everything it started (also Postgres and Redis).
set -euo pipefail
cd "$(dirname "$0")/.."
HOST=${1:-127.0.0.1}
PORT=${2:-8000}
PY=.venv/bin/python
# OpenMP threads that spin after each batch steal the other process's core (web and worker share it).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
pids=()
book_pid=""

cleanup() {
  trap - INT TERM EXIT
  echo; echo "Stoppar Lagrum..."
  # The background loads run one command at a time in a subshell: stop the one running, then the subshell.
  if [ -n "$book_pid" ]; then pkill -TERM -P "$book_pid" 2>/dev/null || true; kill -TERM "$book_pid" 2>/dev/null || true; fi
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  $PY scripts/devservices.py stop || true
}
trap cleanup INT TERM EXIT

# One worker serves both queues, "lagrum" (uploads, assessments) always before "lagrum-bulk"
# (statutes, re-embeds): on 2 cores one model process beats two competing ones (bench_priority).
.venv/bin/celery -A compliance worker -l warning --concurrency 1 -Q lagrum,lagrum-bulk -n "lagrum@%h" &
pids+=($!)
# Periodic tasks (CELERY_BEAT_SCHEDULE in compliance/settings.py): re-enqueueing chunks a worker killed
# hard left without a live task (chunks.tasks.recover_stalled_embeddings), pruning old retrieval logs.
DATA_DIR=${LAGRUM_DATA_DIR:-.data}
mkdir -p "$DATA_DIR"
.venv/bin/celery -A compliance beat -l warning -s "$DATA_DIR/celerybeat-schedule" &
pids+=($!)
# The agency regulations (AFS, BFS, MSBFS, …) and the GDPR, then all 177 statutes, chunked here so they are
# keyword-searchable before the web server starts; shipped vectors (data/sfs/vectors-*.npz) make them
# vector-searchable too, the worker embeds the rest. Each load builds the vector graph once at its end
# (chunks/vector_index.py): the smaller load first, so the first build is the small one (8,000 chunks, then
# 35,000; the other way round 27,000 and 35,000). Loading is idempotent: a second `make run` finds every text
# unchanged and skips it.
$PY manage.py load_regulations --sync
$PY manage.py load_sfs --all --sync
echo "Lagrum körs på http://$HOST:$PORT/ (Ctrl-C stoppar)"
$PY manage.py runserver "$HOST:$PORT" --noreload &
pids+=($!)
# Then, in the background once the server is up, three steps one after the other (niced below the web server but
# above the worker, WORKER_NICE 10: text before vectors; log in $DATA_DIR/load_sfs_book.log):
# 1. The official records of 2025–2026 (data/sfs/rkrattsbaser-2026.jsonl.gz, data/sfs/README.md): the 177 statutes'
#    newer versions and repeals and the 58 statutes issued since, so the knowledge base is the law as they give it,
#    not the 2024 copy; about a minute of chunking. A statute of the book not loaded yet is skipped here.
# 2. The rest of the statute book (4,433 statutes, ~95,000 chunks): a process of its own rather than a Celery task,
#    so the one worker keeps embedding (uploads first) while this chunks on the other core, each statute
#    keyword-searchable the moment it is loaded (under 10 minutes on 2 cores; progress on the Kunskapsbas page and
#    in admin). Shipped vectors cover part of it; the worker embeds the rest on the bulk queue. A statute step 1
#    updated keeps its newer version. --keep-vector-index: users search meanwhile, so the vector graph stays and
#    takes the new chunks one by one rather than being dropped and built once at the end (chunks/vector_index.py).
# 3. The records again, for the book's statutes: 296 newer versions and 35 repeals.
# Each step is idempotent and resumable: a later `make run` changes nothing that is done. Their end does not stop
# Lagrum.
RECORDS=data/sfs/rkrattsbaser-2026.jsonl.gz
(
  # A step that fails (its log says why) does not keep the next from running.
  nice -n "${BOOK_NICE:-5}" $PY manage.py sync_sfs --file "$RECORDS" --sync --no-progress || true
  nice -n "${BOOK_NICE:-5}" $PY manage.py load_sfs --book --sync --keep-vector-index --no-progress || true
  nice -n "${BOOK_NICE:-5}" $PY manage.py sync_sfs --file "$RECORDS" --sync --no-progress
) > "$DATA_DIR/load_sfs_book.log" 2>&1 &
book_pid=$!
wait -n "${pids[@]}"
