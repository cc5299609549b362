"""A bad setting stops start-up with ImproperlyConfigured naming the variable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def start_django(**env: str) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "DJANGO_SETTINGS_MODULE": "compliance.settings", **env}
    return subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DATABASE_URL", "mysql://x@localhost/db"),
        ("DATABASE_URL", "postgres://localhost:notaport/db"),
        ("REDIS_URL", "http://127.0.0.1:6379"),
        ("EMBEDDING_BACKEND", "magic"),
        ("RETRIEVAL_MAX_TOKENS", "many"),
        ("RETRIEVAL_MAX_TOKENS", "10"),
        ("DEBUG", "perhaps"),
        ("OPENAI_BASE_URL", "ftp://models.example"),
        ("MAX_UPLOAD_BYTES", "-5"),
        ("METRICS_ALLOWED_NETWORKS", "10.0.0.0/8,everywhere"),
        ("RETRIEVAL_LOG_RETENTION_DAYS", "0"),
    ],
)
def test_bad_value_names_the_variable(variable: str, value: str) -> None:
    result = start_django(**{variable: value})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert variable in result.stderr.splitlines()[-1]


def test_production_requires_a_secret_key() -> None:
    result = start_django(DEBUG="false", SECRET_KEY="")
    assert "SECRET_KEY" in result.stderr.splitlines()[-1]


def test_http_reranker_requires_its_url() -> None:
    result = start_django(RERANK_BACKEND="http", RERANK_URL="")
    assert "RERANK_URL" in result.stderr.splitlines()[-1]


def test_defaults_start_cleanly_and_database_url_is_parsed() -> None:
    code = ("import django; django.setup(); from django.conf import settings as s; "
            "d=s.DATABASES['default']; print(d['NAME'], d['HOST'], d['PORT'], s.RETRIEVAL_MAX_TOKENS)")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "compliance.settings",
           "DATABASE_URL": "postgres://u:p%40ss@db.internal:5433/lagrum_prod", "RETRIEVAL_MAX_TOKENS": "6000"}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["lagrum_prod", "db.internal", "5433", "6000"]
