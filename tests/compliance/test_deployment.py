"""docker-compose.yml cannot run here (no Docker engine); check it is what we deploy."""

from pathlib import Path

import yaml
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def test_compose_names_the_images_and_services() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) >= {"db", "redis", "web", "worker", "beat"}
    assert services["db"]["image"].startswith("pgvector/pgvector:pg1")
    assert services["db"]["image"].split(":pg")[1] in ("17", "18")
    assert services["redis"]["image"] == "redis:7-alpine"
    assert "gunicorn" in services["web"]["command"]
    assert "celery" in services["worker"]["command"] and "worker" in services["worker"]["command"]
    # Both queues, interactive first; no fixed name or port, so `--scale worker=N` works.
    assert services["worker"]["command"][services["worker"]["command"].index("-Q") + 1] == "lagrum,lagrum-bulk"
    assert not {"container_name", "ports", "hostname"} & set(services["worker"])
    assert services["beat"]["command"][:4] == ["celery", "-A", "compliance", "beat"]
    assert "deploy" not in services["beat"]  # one beat, never scaled
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert env["DATABASE_URL"].endswith("@db:5432/lagrum")
        assert env["REDIS_URL"].startswith("redis://redis:6379")
        assert services[name]["build"] == "."
        assert env["RETRIEVAL_CACHE_BACKEND"] == "django"  # shared cache across processes and hosts


def test_dockerfile_runs_gunicorn() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert dockerfile.startswith("#") and "FROM python:3.11" in dockerfile
    assert "gunicorn" in dockerfile and "compliance.wsgi:application" in dockerfile


def test_beat_runs_the_periodic_tasks_in_compose_and_make_run() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "compliance", "beat"]
    assert "celery -A compliance beat" in (ROOT / "scripts" / "run.sh").read_text()
    tasks = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "agent.tasks.prune_retrieval_logs" in tasks


def test_make_run_and_compose_apply_the_official_records_around_the_book() -> None:
    # The bundled 2024 copy is not the law in force: both start-ups apply the shipped records, before the book (the
    # core statutes and the new ones) and after it (the book's), in that order.
    records = "sync_sfs --file data/sfs/rkrattsbaser-2026.jsonl.gz"
    book = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["book"]["command"]
    assert book.count(records) == 2 and book.index(records) < book.index("load_sfs --book") < book.rindex(records)
    run = (ROOT / "scripts" / "run.sh").read_text()
    assert "RECORDS=data/sfs/rkrattsbaser-2026.jsonl.gz" in run
    steps = [line.strip() for line in run.splitlines() if "manage.py sync_sfs" in line or "load_sfs --book" in line]
    assert [("sync" if "sync_sfs" in step else "book") for step in steps] == ["sync", "book", "sync"]
    assert all('--file "$RECORDS"' in step for step in steps if "sync_sfs" in step)


def test_prometheus_is_optional_and_scrapes_the_app() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert services["prometheus"]["profiles"] == ["monitoring"]
    assert "./prometheus.yml:/etc/prometheus/prometheus.yml:ro" in services["prometheus"]["volumes"]
    assert "PROMETHEUS_MULTIPROC_DIR" in services["web"]["command"]
    config = yaml.safe_load((ROOT / "prometheus.yml").read_text())
    job = config["scrape_configs"][0]
    assert job["metrics_path"] == "/metrics" and job["static_configs"][0]["targets"] == ["web:8000"]
    assert job["authorization"]["type"] == "Bearer"
