"""Lagrum settings: one module, every value read from the environment.

Each variable has a documented default (see README, "Configuration"). A value
that cannot be used stops start-up with ImproperlyConfigured naming the
variable, instead of failing later in some request.
"""

from __future__ import annotations

import ipaddress
import os
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("LAGRUM_DATA_DIR", BASE_DIR / ".data"))


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ImproperlyConfigured(f"{name} must be between {minimum} and {maximum}, got {value}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0, maximum: float = 1e9) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None
    if not minimum <= value <= maximum:
        raise ImproperlyConfigured(f"{name} must be between {minimum} and {maximum}, got {value}")
    return value


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name) or default
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def env_networks(name: str, default: str) -> list:
    raw = env_str(name, default)
    try:
        return [ipaddress.ip_network(part.strip()) for part in raw.split(",") if part.strip()]
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be comma-separated networks such as 10.0.0.0/8: {exc}") from None


def env_url(name: str, default: str, schemes: tuple[str, ...]) -> str:
    value = os.environ.get(name) or default
    parsed = urlparse(value)
    if parsed.scheme not in schemes or not (parsed.hostname or parsed.path):
        raise ImproperlyConfigured(
            f"{name} must be a URL with scheme {' or '.join(schemes)}, got {value!r}"
        )
    return value


def database_from_url(name: str, url: str) -> dict:
    parsed = urlparse(url)
    if parsed.scheme not in ("postgres", "postgresql", "pgsql") or not parsed.path.strip("/"):
        raise ImproperlyConfigured(
            f"{name} must look like postgres://user:password@host:port/dbname, got {url!r}"
        )
    try:
        port = parsed.port
    except ValueError:
        raise ImproperlyConfigured(f"{name} has an invalid port: {url!r}") from None
    options = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parsed.path.lstrip("/")),
        "USER": unquote(parsed.username or ""),
        "PASSWORD": unquote(parsed.password or ""),
        "HOST": parsed.hostname or "",
        "PORT": str(port or ""),
        "OPTIONS": options,
        "CONN_MAX_AGE": env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
        "CONN_HEALTH_CHECKS": True,
        # A suffix lets several test runs share one server without sharing a database.
        "TEST": {"NAME": "test_" + unquote(parsed.path.lstrip("/")) + os.environ.get("LAGRUM_TEST_DB_SUFFIX", "")},
    }


# The embedded dev services (scripts/devservices.py) listen here.
EMBEDDED_DATABASE_URL = f"postgres://lagrum:lagrum@127.0.0.1:{os.environ.get('LAGRUM_PG_PORT', '54329')}/lagrum"
EMBEDDED_REDIS_URL = f"redis://127.0.0.1:{os.environ.get('LAGRUM_REDIS_PORT', '63799')}/0"

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
ALLOWED_HOSTS = [h.strip() for h in env_str("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in env_str("CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]
SITE_NAME = "Lagrum"
# Where the site is reached from outside: the absolute links of e-mails (no request to take the host from).
SITE_URL = env_url("SITE_URL", "http://127.0.0.1:8000", ("http", "https")).rstrip("/")

# E-mail (the lagbevakning digests): SMTP when EMAIL_HOST is set, else printed to the console (development).
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST
                        else "django.core.mail.backends.console.EmailBackend")
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1, maximum=65535)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Lagrum <lagbevakning@lagrum.invalid>")
# The Stockholm hour from which the day's (and on Mondays the week's) digests go out.
NOTICE_DIGEST_HOUR = env_int("NOTICE_DIGEST_HOUR", 7, minimum=0, maximum=23)
# A new statute is suggested to a laglista on the subjects of the statutes it cites, leaving out those cited by more
# than this share of the statute book (law/book_citations.py): förvaltningslagen (8 %), offentlighets- och
# sekretesslagen, räntelagen, skatteförfarandelagen and inkomstskattelagen (2.7-5.5 %) are cited for appeals,
# secrecy, interest and tax whatever a statute is about. At 0.02 the 14 most cited are left out; the next
# (hälso- och sjukvårdslagen, utlänningslagen, 1.7 %) are cited by statutes on their own subject.
NOTICE_SUBJECT_MAX_CITING_SHARE = env_float("NOTICE_SUBJECT_MAX_CITING_SHARE", 0.02, minimum=0.0, maximum=1.0)

# HTTPS: on by default in production (DEBUG=false), off in development (plain http on
# 127.0.0.1). Behind a TLS-terminating proxy set SECURE_PROXY_SSL_HEADER to the META key
# of the header it sets to "https" (e.g. HTTP_X_FORWARDED_PROTO), or the redirect loops.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 365 * 24 * 3600, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SECURE_PROXY_SSL_HEADER = (env_str("SECURE_PROXY_SSL_HEADER"), "https") if env_str("SECURE_PROXY_SSL_HEADER") else None
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp): everything from this origin, nothing inline.
# Scripts live in static/js; htmx is told not to inject its indicator <style> (base.html).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "django_htmx",
    "axes",
    "csp",
    "auditlog",
    "compliance",
    "law",
    "glossary",
    "chunks",
    "register",
    "agent",
]

# The register's audit trail (register/audit.py): changes stored as JSON (old and new value per field),
# no IP addresses kept.
AUDITLOG_STORE_JSON_CHANGES = True
AUDITLOG_DISABLE_REMOTE_ADDR = True

MIDDLEWARE = [
    "compliance.monitoring.PrometheusMiddleware",  # first, so that it times everything after it
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "compliance.middleware.ApplicationErrorMiddleware",
    # Last, as axes requires: it turns a locked-out login into the lockout response.
    "axes.middleware.AxesMiddleware",
]

if not DEBUG:
    # Production serves its own static files (gunicorn does not); runserver does it in development.
    MIDDLEWARE.insert(2, "whitenoise.middleware.WhiteNoiseMiddleware")

ROOT_URLCONF = "compliance.urls"
WSGI_APPLICATION = "compliance.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "compliance.context_processors.workspaces",
                "register.context_processors.change_notices",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL") or EMBEDDED_DATABASE_URL
DATABASES = {"default": database_from_url("DATABASE_URL", DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_url("REDIS_URL", EMBEDDED_REDIS_URL, ("redis", "rediss", "unix"))
CACHE_BACKEND = env_choice("CACHE_BACKEND", "redis", ("redis", "locmem"))
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
         "KEY_PREFIX": "lagrum"}
        if CACHE_BACKEND == "redis"
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Login throttling (django-axes, attempts in the database so admin lists them):
# after LOGIN_FAILURE_LIMIT failures a user name, and separately a client IP, is
# locked out for LOGIN_LOCKOUT_MINUTES; a success before the limit clears the count.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "compliance.login_throttling.locked_out_response"
AXES_HTTP_RESPONSE_CODE = 429
# Behind a reverse proxy, REMOTE_ADDR is the proxy: name the META key of the header it
# overwrites with the client's address (e.g. HTTP_X_REAL_IP). Never one a client can set.
AXES_CLIENT_IP_CALLABLE = "compliance.login_throttling.client_ip"
LOGIN_CLIENT_IP_HEADER = env_str("LOGIN_CLIENT_IP_HEADER")
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "sv"
LANGUAGES = [("sv", "Svenska")]
TIME_ZONE = "Europe/Stockholm"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(DATA_DIR / "media")))
MEDIA_URL = "/media/"

# Uploads: bad input gets a clear error, never a crash (chunks/extract.py).
MAX_UPLOAD_BYTES = env_int("MAX_UPLOAD_BYTES", 25 * 1024 * 1024, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# Celery: tasks are enqueued with transaction.on_commit, acknowledged late so a
# killed worker's batch is redelivered, and prefetch 1 so nothing sits idle in a dead worker.
CELERY_BROKER_URL = env_url("CELERY_BROKER_URL", REDIS_URL, ("redis", "rediss", "memory", "amqp"))
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "lagrum"
# Two queues, "lagrum" (what a user waits for) and "lagrum-bulk" (statutes, re-embeds): chunks.tasks.route_task
# picks one. A worker serving both (-Q lagrum,lagrum-bulk) polls them in sorted name order, always
# "lagrum" first, so an upload never waits behind more than the one bulk batch already running.
CELERY_TASK_ROUTES = ["chunks.tasks.route_task"]
# unacked_mutex_expire: a worker holds a Redis lock while it scans for unacknowledged messages to redeliver (a
# scan of milliseconds); one killed during that scan keeps every other worker from redelivering until the lock
# expires: kombu's default is 300 s, 60 s bounds that wait after a crash.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=10),
                                   "queue_order_strategy": "sorted", "unacked_mutex_expire": 60}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Periodic tasks, run by `celery beat` (scripts/run.sh, docker-compose's beat service).
CELERY_BEAT_SCHEDULE = {
    "prune-retrieval-logs": {"task": "agent.tasks.prune_retrieval_logs", "schedule": 6 * 3600.0},
    # The dashboard's daily rollup; a page view does the same when this is behind.
    "rollup-retrieval-logs": {"task": "agent.tasks.rollup_retrieval_logs", "schedule": 600.0,
                              "options": {"expires": 600.0}},
}

# The Celery worker's CPU niceness (compliance/celery.py): embedding uploads yields to web requests
# on the same cores. 0 leaves the worker's priority as started.
WORKER_NICE = env_int("WORKER_NICE", 10, minimum=0, maximum=19)

# Embeddings: one interface (chunks/embedding.py), chosen here.
EMBEDDING_BACKEND = env_choice("EMBEDDING_BACKEND", "local", ("local", "openai"))
EMBEDDING_DIMENSIONS = env_int("EMBEDDING_DIMENSIONS", 384, minimum=1, maximum=4000)
EMBEDDING_MODEL = env_str(
    "EMBEDDING_MODEL", "multilingual-e5-small-q4" if EMBEDDING_BACKEND == "local" else "text-embedding-3-small"
)
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 32, minimum=1, maximum=2048)
EMBEDDING_THREADS = env_int("EMBEDDING_THREADS", os.cpu_count() or 1, minimum=1, maximum=256)
EMBEDDING_BASE_URL = env_str("EMBEDDING_BASE_URL")  # an OpenAI-compatible embeddings server
EMBEDDING_QUERY_MODEL = env_str("EMBEDDING_QUERY_MODEL")  # defaults to EMBEDDING_MODEL
# Recovery (celery beat, chunks.tasks.recover_stalled_embeddings): every INTERVAL seconds, chunks older
# than AFTER seconds that no queued or running task mentions are queued again (a worker killed whole).
EMBEDDING_RECOVERY_AFTER_SECONDS = env_int("EMBEDDING_RECOVERY_AFTER_SECONDS", 60, minimum=1)
EMBEDDING_RECOVERY_INTERVAL_SECONDS = env_int("EMBEDDING_RECOVERY_INTERVAL_SECONDS", 30, minimum=1)
EMBEDDING_RECOVERY_INSPECT_TIMEOUT = env_float("EMBEDDING_RECOVERY_INSPECT_TIMEOUT", 1.0, minimum=0.1, maximum=30)
CELERY_BEAT_SCHEDULE["recover-stalled-embeddings"] = {
    "task": "chunks.tasks.recover_stalled_embeddings",
    "schedule": float(EMBEDDING_RECOVERY_INTERVAL_SECONDS),
    "options": {"expires": float(EMBEDDING_RECOVERY_INTERVAL_SECONDS)},  # no pile-up while no worker runs
}
# A vector graph that a bulk load dropped and did not live to build again (chunks/vector_index.py).
CELERY_BEAT_SCHEDULE["vector-index-repair"] = {"task": "chunks.tasks.vector_index_repair", "schedule": 600.0,
                                               "options": {"expires": 600.0}}
# Lagbevakning (register.notices): every hour, make the change notices an import left undone (a worker that
# died between applying and notifying), and send the e-mail digests that are due (each once per period).
CELERY_BEAT_SCHEDULE["change-notices-scan"] = {"task": "register.notices.tasks.notices_scan",
                                               "schedule": 3600.0, "options": {"expires": 3600.0}}
CELERY_BEAT_SCHEDULE["change-notice-digests"] = {"task": "register.notices.tasks.digests_send",
                                                 "schedule": 3600.0, "options": {"expires": 3600.0}}
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")

# The chat model, through the openai client. Without a key or base URL the
# assistant answers extractively (quotes the sources) and says so.
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL")
if OPENAI_BASE_URL:
    env_url("OPENAI_BASE_URL", OPENAI_BASE_URL, ("http", "https"))
if EMBEDDING_BASE_URL:
    env_url("EMBEDDING_BASE_URL", EMBEDDING_BASE_URL, ("http", "https"))
CHAT_MODEL = env_str("CHAT_MODEL", "gpt-4o-mini")
CHAT_CONTEXT_WINDOW = env_int("CHAT_CONTEXT_WINDOW", 128000, minimum=1024)
CHAT_TIMEOUT_SECONDS = env_float("CHAT_TIMEOUT_SECONDS", 60.0, minimum=1.0, maximum=600.0)
CHAT_ANSWER_RESERVE_TOKENS = env_int("CHAT_ANSWER_RESERVE_TOKENS", 2000, minimum=0)
# Tokens reserved for the "Användarprofil" section (workspace profile + personal preferences),
# deducted before the knowledge budget is computed.
PROFILE_TOKEN_BUDGET = env_int("PROFILE_TOKEN_BUDGET", 500, minimum=50, maximum=4000)
# The one limit on a chat message, in the browser, the API and the chat itself.
CHAT_MESSAGE_MAX_CHARS = env_int("CHAT_MESSAGE_MAX_CHARS", 8000, minimum=100, maximum=100000)
# A search query: longer text adds nothing to ranking and only costs time.
RETRIEVAL_QUERY_MAX_CHARS = env_int("RETRIEVAL_QUERY_MAX_CHARS", 2000, minimum=100, maximum=100000)

# Retrieval (agent/).
RETRIEVAL_MAX_TOKENS = env_int("RETRIEVAL_MAX_TOKENS", 8000, minimum=100, maximum=200000)
RETRIEVAL_CONTEXT_SHARE = env_float("RETRIEVAL_CONTEXT_SHARE", 0.6, minimum=0.05, maximum=1.0)
RETRIEVAL_TOP_K = env_int("RETRIEVAL_TOP_K", 20, minimum=1, maximum=200)
# The context block also gets the §§ beside the best statute hits (the prose failures are mostly "right
# statute, neighbouring §"): the neighbours of this many top sections, one § either side, after every
# direct hit, so the token budget drops them first. 0 turns it off (docs/retrieval.md, "Neighbours").
RETRIEVAL_NEIGHBOUR_ANCHORS = env_int("RETRIEVAL_NEIGHBOUR_ANCHORS", 3, minimum=0, maximum=10)
# The context block also gets the statute §§ that the best hits among agency regulations cite ("Av 3 kap. 6 §
# arbetsmiljölagen följer att …"), as it gets the regulation and EU units that statute hits cite (docs/retrieval.md,
# "The act §§ a regulation cites").
RETRIEVAL_CITED_ACTS = env_bool("RETRIEVAL_CITED_ACTS", True)
# Bridges between a question's words and the statutes' words, mined from the statutes (agent/retrieval/bridges.py,
# docs/retrieval.md "Bridges"): an acronym no statute writes in capitals is not searched as its lower-case
# homograph; a definition whose explanation holds the question's words lends its term; two question words
# that make a compound the statutes use add it. Added words weigh RETRIEVAL_BRIDGE_WEIGHT times their idf.
RETRIEVAL_BRIDGE_ACRONYMS = env_bool("RETRIEVAL_BRIDGE_ACRONYMS", True)
RETRIEVAL_BRIDGE_DEFINITIONS = env_bool("RETRIEVAL_BRIDGE_DEFINITIONS", True)
RETRIEVAL_BRIDGE_COMPOUNDS = env_bool("RETRIEVAL_BRIDGE_COMPOUNDS", True)
# A question word also finds the statute compounds it is the head or modifier of (the index side of compound
# splitting, done on the query: "incident" -> "personuppgiftsincident").
RETRIEVAL_BRIDGE_COMPOUND_PARTS = env_bool("RETRIEVAL_BRIDGE_COMPOUND_PARTS", False)
# A question word's synonyms in the shipped Swedish thesaurus (data/thesaurus/, law.thesaurus) that the statutes
# use join its keyword query at half the bridge weight (docs/retrieval.md, "Synonyms").
RETRIEVAL_BRIDGE_SYNONYMS = env_bool("RETRIEVAL_BRIDGE_SYNONYMS", False)
# A question word no source uses that is one slip from a statute word ("skydsombud") is searched as that word,
# at RETRIEVAL_SPELLING_WEIGHT times its idf, and a question typed without diacritics is given the statutes' marks
# before it is analysed (agent/retrieval/spelling.py, docs/retrieval.md "A misspelt word").
RETRIEVAL_BRIDGE_SPELLING = env_bool("RETRIEVAL_BRIDGE_SPELLING", True)
# A question word in a definite form the Swedish stemmer leaves whole ("avtalet", "karensavdraget") also searches
# its base form ("avtal") where the statutes use it (agent/retrieval/bridges.py, docs/retrieval.md "Inflections").
RETRIEVAL_BRIDGE_INFLECTIONS = env_bool("RETRIEVAL_BRIDGE_INFLECTIONS", True)
# Two question words that are a verb and its particle ("säga upp") also search the statute words that write them as
# one, particle first ("uppsägning"), at half RETRIEVAL_BRIDGE_WEIGHT (docs/retrieval.md, "Particle verbs").
RETRIEVAL_BRIDGE_PARTICLES = env_bool("RETRIEVAL_BRIDGE_PARTICLES", True)
RETRIEVAL_SPELLING_WEIGHT = env_float("RETRIEVAL_SPELLING_WEIGHT", 1.0, minimum=0.0, maximum=2.0)
RETRIEVAL_BRIDGE_WEIGHT = env_float("RETRIEVAL_BRIDGE_WEIGHT", 0.5, minimum=0.0, maximum=2.0)
# Query expansion from the vocabulary's embedding neighbours (agent/retrieval/vocabulary_neighbours.py,
# docs/retrieval.md "Neighbours in the vocabulary"): a question word the statutes use in at most
# RETRIEVAL_NEIGHBOURS_MAX_DF chunks (a practice word: 0) adds the statute index terms closest to it by cosine, at
# RETRIEVAL_BRIDGE_WEIGHT. The vectors come from `manage.py build_term_vectors` (data/sfs/terms-<model>.npz, or
# RETRIEVAL_NEIGHBOURS_PATH).
RETRIEVAL_NEIGHBOURS = env_bool("RETRIEVAL_NEIGHBOURS", False)
RETRIEVAL_NEIGHBOURS_PATH = env_str("RETRIEVAL_NEIGHBOURS_PATH")
# e5 puts two unrelated words close: random pairs of the 21,088 statute terms have median cosine 0.886, 1 in 1,000
# reaches 0.945 and 1 in 10,000 0.966 (build_term_vectors prints these). Against ~21,000 terms a floor below the
# 1-in-10,000 rate lets chance alone admit terms for every word, so the floor is just above it (the median term's
# nearest other term is also at 0.966: mostly its own inflections and compound family).
RETRIEVAL_NEIGHBOURS_MIN_COSINE = env_float("RETRIEVAL_NEIGHBOURS_MIN_COSINE", 0.97, minimum=0.5, maximum=1.0)
# At most this many terms join one question: each is a guess, and many guesses outweigh the question's own words.
RETRIEVAL_NEIGHBOURS_MAX_TERMS = env_int("RETRIEVAL_NEIGHBOURS_MAX_TERMS", 4, minimum=0, maximum=20)
# A word used by more statute chunks than this already finds its own sections; its neighbours would dilute it. 2 is
# the vocabulary's own floor (build_term_vectors --min-df): a word no more chunks use is hardly the statutes' word.
RETRIEVAL_NEIGHBOURS_MAX_DF = env_int("RETRIEVAL_NEIGHBOURS_MAX_DF", 2, minimum=0, maximum=1000000)
# "words": each rare question word is compared with the terms; "question": the question's own vector is (a term
# joins when it is as close to the question as the question's own terms are on average).
RETRIEVAL_NEIGHBOURS_FROM = env_choice("RETRIEVAL_NEIGHBOURS_FROM", "words", ("words", "question"))
# The context block also gets the introductory and defining §§ of the chapters of this many best statute hits
# (the whole chapter when it has at most RETRIEVAL_CHAPTER_FULL_TOKENS tokens), after the neighbours, so the
# budget drops them first: many questions are answered by a chapter (docs/retrieval.md, "Chapters"). 0: off.
RETRIEVAL_CHAPTER_ANCHORS = env_int("RETRIEVAL_CHAPTER_ANCHORS", 2, minimum=0, maximum=10)
RETRIEVAL_CHAPTER_FULL_TOKENS = env_int("RETRIEVAL_CHAPTER_FULL_TOKENS", 1500, minimum=0, maximum=20000)
# A statute or regulation without chapters is its own one chapter for the anchors above: its first § and defining
# §§ (all of it when short) join the block for its hits, as a chapter's do (docs/retrieval.md, "A document without
# chapters"). More than half the loaded laws and regulations have no chapters.
RETRIEVAL_UNCHAPTERED_ANCHORS = env_bool("RETRIEVAL_UNCHAPTERED_ANCHORS", True)
# When an agency regulation is among this many best hits, the context block also gets the RETRIEVAL_ACT_SECTIONS
# §§ of the statutes it details (its legal basis, the acts it cites most) that answer the question best, scored
# like the neighbouring §§ (before the chapters' core §§): the regulation fills in the act, and the act is the
# binding rule (docs/retrieval.md, "The acts behind the regulations"). 0 turns either off.
RETRIEVAL_ACT_ANCHORS = env_int("RETRIEVAL_ACT_ANCHORS", 5, minimum=0, maximum=20)
RETRIEVAL_ACT_SECTIONS = env_int("RETRIEVAL_ACT_SECTIONS", 3, minimum=0, maximum=10)
# Ranked sources past RETRIEVAL_TOP_K that the context block may still take, last and in rank order, into the
# budget the hits, their neighbours and chapters leave unused (docs/retrieval.md, "The reserve"). 0 turns it off.
RETRIEVAL_CONTEXT_RESERVE = env_int("RETRIEVAL_CONTEXT_RESERVE", 40, minimum=0, maximum=100)
# How the two halves are fused (docs/retrieval.md): "score" mixes standardised scores, "rrf" ranks.
RETRIEVAL_FUSION = env_choice("RETRIEVAL_FUSION", "score", ("score", "rrf"))
RETRIEVAL_VECTOR_SHARE = env_float("RETRIEVAL_VECTOR_SHARE", 0.6, minimum=0.0, maximum=1.0)
# An everyday question (names and cites no statute, at most RETRIEVAL_EVERYDAY_MAX_WORDS keywords) gets up to
# this much more vector share, the less of its keyword weight the best keyword return matches: its words are
# often not the statute's, and then the meaning is the better guide (docs/retrieval.md, "A vector share for
# everyday questions"). 0 turns it off.
RETRIEVAL_EVERYDAY_VECTOR_SHARE = env_float("RETRIEVAL_EVERYDAY_VECTOR_SHARE", 0.2, minimum=0.0, maximum=0.4)
RETRIEVAL_EVERYDAY_MAX_WORDS = env_int("RETRIEVAL_EVERYDAY_MAX_WORDS", 6, minimum=1, maximum=30)
# The kind prior: a tillkännagivande's, kungörelse's or old resolution's fused score is multiplied by this
# (1 turns it off), so they rank below the binding rules unless clearly better (docs/retrieval.md).
RETRIEVAL_KIND_PRIOR = env_float("RETRIEVAL_KIND_PRIOR", 0.8, minimum=0.0, maximum=1.0)
# The citation prior: the most a document's fused score loses for being cited by no other loaded document
# (0 turns it off), and how many citing documents earn the whole score (docs/retrieval.md).
RETRIEVAL_CITATION_PRIOR = env_float("RETRIEVAL_CITATION_PRIOR", 0.1, minimum=0.0, maximum=0.5)
RETRIEVAL_CITATION_SATURATION = env_int("RETRIEVAL_CITATION_SATURATION", 100, minimum=1, maximum=100000)
# The addressee prior: a statute governing one authority's own work (its instruction, its registers) has its
# fused score multiplied by this unless the question names the authority (1 turns it off; docs/retrieval.md).
RETRIEVAL_ADDRESSEE_PRIOR = env_float("RETRIEVAL_ADDRESSEE_PRIOR", 0.8, minimum=0.0, maximum=1.0)
# An EU regulation's recitals (skäl) weighed after its articles: agent/retrieval/hybrid.py, docs/retrieval.md
# "The recital prior". 1 turns it off.
RETRIEVAL_RECITAL_PRIOR = env_float("RETRIEVAL_RECITAL_PRIOR", 0.8, minimum=0.0, maximum=1.0)
# The register prior: a document the asking workspace's laglista does not hold has its fused score multiplied by
# this, once the laglista holds any document (1 turns it off; docs/retrieval.md, "The laglista weighs the sources").
RETRIEVAL_REGISTER_PRIOR = env_float("RETRIEVAL_REGISTER_PRIOR", 0.9, minimum=0.0, maximum=1.0)
# The same while the laglista holds no document: a document the company profile does not suggest
# (register.suggestions.profile_prior_documents) is multiplied by this. 1 turns the profile's part off, beside a
# laglista too (docs/retrieval.md, "The company profile weighs the sources").
RETRIEVAL_PROFILE_PRIOR = env_float("RETRIEVAL_PROFILE_PRIOR", 0.9, minimum=0.0, maximum=1.0)
# The regulation prior: an agency regulation's fused score is multiplied by this, so the statute whose duties it
# details comes first unless the question names the regulation (1 turns it off; docs/retrieval.md).
RETRIEVAL_REGULATION_PRIOR = env_float("RETRIEVAL_REGULATION_PRIOR", 0.8, minimum=0.0, maximum=1.0)
RETRIEVAL_RRF_K = env_int("RETRIEVAL_RRF_K", 60, minimum=1)
# A question naming a statute runs the named statute's search on a connection of its own beside the general one
# (agent/retrieval/concurrent_search.py): each web process keeps up to four more idle connections for it.
RETRIEVAL_CONCURRENT_SEARCHES = env_bool("RETRIEVAL_CONCURRENT_SEARCHES", True)
# HNSW candidate list per vector search. Higher finds more of the exact top 20 for more time; so does the graph's
# deeper ef_construction (chunks/models.py) at the same depth. On that graph 64 was as fast as 100 at 1M chunks on a
# quiet host and found less (docs/retrieval.md, "How deep the HNSW search looks", "How well the HNSW graph is built").
RETRIEVAL_HNSW_EF_SEARCH = env_int("RETRIEVAL_HNSW_EF_SEARCH", 100, minimum=10, maximum=1000)
# A load whose text is at least this share of the text the HNSW graph holds drops the graph and builds it once at
# the end (chunks/vector_index.py): on 2 cores an insert into a graph of ef_construction 256 costs about 6 ms a chunk,
# a whole build under 1 ms a chunk of the table, so the break-even is near 0.15 (lower at 64). 0 always rebuilds; a
# large value never does.
VECTOR_INDEX_REBUILD_SHARE = env_float("VECTOR_INDEX_REBUILD_SHARE", 0.2, minimum=0.0, maximum=1e6)
# Memory for building the graph (maintenance_work_mem of that session): past it the build slows several times.
# About 2 kB a chunk at 384 dimensions: 1024 MB holds the whole statute book with room to spare.
VECTOR_INDEX_BUILD_MEMORY_MB = env_int("VECTOR_INDEX_BUILD_MEMORY_MB", 1024, minimum=64, maximum=65536)
# The relevance threshold (docs/retrieval.md): a source below it is left out; 0 turns it off.
RETRIEVAL_MIN_RELEVANCE = env_float("RETRIEVAL_MIN_RELEVANCE", 0.84, minimum=0.0, maximum=1.0)
RETRIEVAL_MIN_KEYWORD_COVERAGE = env_float("RETRIEVAL_MIN_KEYWORD_COVERAGE", 0.08, minimum=0.0, maximum=1.0)
# The same for a source still without a vector when the question has one (most sources are judged by meaning):
# the low floor above is for keyword mode, where it is all there is.
RETRIEVAL_MIN_KEYWORD_COVERAGE_BESIDE_VECTORS = env_float("RETRIEVAL_MIN_KEYWORD_COVERAGE_BESIDE_VECTORS", 0.3,
                                                          minimum=0.0, maximum=1.0)
# The band just over the floor: a source with a cosine from RETRIEVAL_MIN_RELEVANCE up to (not including) this
# passes only if it also matches RETRIEVAL_BAND_KEYWORD_COVERAGE of the question's BM25 weight, since there
# meaning alone let everyday off-topic questions through ("The band over the floor"); at or under the floor
# it turns the band off.
RETRIEVAL_MIN_RELEVANCE_ALONE = env_float("RETRIEVAL_MIN_RELEVANCE_ALONE", 0.85, minimum=0.0, maximum=1.0)
RETRIEVAL_BAND_KEYWORD_COVERAGE = env_float("RETRIEVAL_BAND_KEYWORD_COVERAGE", 0.2, minimum=0.0, maximum=1.0)
# How the threshold applies: "question" (a question with one source over it keeps its ranked sources:
# the off-topic set still gets none, real questions keep gold sections under the floor) or "source"
# (each source must pass).
RETRIEVAL_RELEVANCE_GATE = env_choice("RETRIEVAL_RELEVANCE_GATE", "question", ("question", "source"))
RETRIEVAL_VECTOR_WEIGHT = env_float("RETRIEVAL_VECTOR_WEIGHT", 1.0, maximum=100)
RETRIEVAL_KEYWORD_WEIGHT = env_float("RETRIEVAL_KEYWORD_WEIGHT", 1.0, maximum=100)
RETRIEVAL_CACHE_TTL_MS = env_int("RETRIEVAL_CACHE_TTL_MS", 300000, minimum=0)
RETRIEVAL_CACHE_SIZE = env_int("RETRIEVAL_CACHE_SIZE", 20, minimum=1)
RETRIEVAL_CACHE_BACKEND = env_choice("RETRIEVAL_CACHE_BACKEND", "memory", ("memory", "django"))
# Query vectors shared by every web process through CACHES (agent/retrieval.py); 0: per process only.
QUERY_VECTOR_CACHE_TTL_SECONDS = env_int("QUERY_VECTOR_CACHE_TTL_SECONDS", 86400, minimum=0, maximum=30 * 86400)
# /metrics (Prometheus): open to these networks (comma-separated CIDRs; loopback by default under
# DEBUG, none in production) and to requests that send `Authorization: Bearer <METRICS_TOKEN>`.
METRICS_TOKEN = env_str("METRICS_TOKEN", "")
METRICS_ALLOWED_NETWORKS = env_networks("METRICS_ALLOWED_NETWORKS", "127.0.0.1/32,::1/128" if DEBUG else "")

# Retrieval logs (the dashboard's raw material) older than this are deleted by a periodic task.
RETRIEVAL_LOG_RETENTION_DAYS = env_int("RETRIEVAL_LOG_RETENTION_DAYS", 180, minimum=1)
RETRIEVAL_SLOW_MS = env_int("RETRIEVAL_SLOW_MS", 500, minimum=1)
# The whole pre-model step (intent, analysis, retrieval, assembly) warns in the log above this.
PREPARE_SLOW_MS = env_int("PREPARE_SLOW_MS", 1500, minimum=1, maximum=600000)
RERANK_BACKEND = env_choice("RERANK_BACKEND", "none", ("none", "http"))
RERANK_URL = env_str("RERANK_URL")
RERANK_API_KEY = env_str("RERANK_API_KEY")
RERANK_MODEL = env_str("RERANK_MODEL")
# How many fused sources the reranker reorders. It can only promote what it is given: on the lagen.nu
# dev set the gold section is among the fused top 50 for 74 % of questions, top 100 for 77 %, top 200
# for 81 % (docs/retrieval.md, "Where the gap is"); each candidate costs the reranker one pair.
RERANK_CANDIDATES = env_int("RERANK_CANDIDATES", 100, minimum=10, maximum=300)
if RERANK_BACKEND == "http" and not RERANK_URL:
    raise ImproperlyConfigured("RERANK_URL must be set when RERANK_BACKEND is http")

# Which statutes `load_sfs` and `make run` load by default.
SFS_CORPUS_PATH = Path(env_str("SFS_CORPUS_PATH", str(BASE_DIR / "data" / "sfs" / "sfs.jsonl.gz")))
# The rest of the statute book in force (4,433 statutes beside the 177 of SFS_CORPUS_PATH, each stored once):
# `load_sfs --book` loads both, `make run` in the background after the web server starts.
SFS_BOOK_PATH = Path(env_str("SFS_BOOK_PATH", str(BASE_DIR / "data" / "sfs" / "sfs_book.jsonl.gz")))
# Precomputed statute vectors (chunks/shipped_vectors.py); empty: vectors-<model>.npz beside the corpus.
SFS_VECTORS_PATH = env_str("SFS_VECTORS_PATH")

# Statute versions (law/, `manage.py sync_sfs`). A statute that is not loaded is created by the importer
# when it was issued after the bundled corpus's snapshot: it is new law, not one we left out.
SFS_CORPUS_SNAPSHOT = date.fromisoformat(env_str("SFS_CORPUS_SNAPSHOT", "2024-05-05"))
# Rättsdatabasernas SFS service: off by default. SFS_SERVICE_URL holds "{sfs}" for the statute's number.
SFS_SERVICE_ENABLED = env_bool("SFS_SERVICE_ENABLED", False)
SFS_SERVICE_URL = env_str("SFS_SERVICE_URL")
SFS_SERVICE_TIMEOUT = env_float("SFS_SERVICE_TIMEOUT", 30.0, minimum=1, maximum=300)
if SFS_SERVICE_ENABLED:
    if "{sfs}" not in SFS_SERVICE_URL:
        raise ImproperlyConfigured("SFS_SERVICE_URL must contain {sfs} when SFS_SERVICE_ENABLED is on")
    # Daily: the service publishes amendments as they are consolidated.
    CELERY_BEAT_SCHEDULE["sync-sfs"] = {"task": "law.tasks.sync_sfs_daily", "schedule": 24 * 3600.0,
                                        "options": {"expires": 12 * 3600.0}}

os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(DATA_DIR / "tiktoken"))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "compliance.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "compliance.api.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["rest_framework.throttling.UserRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"user": env_str("API_THROTTLE_RATE", "600/min")},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Lagrum API",
    "DESCRIPTION": "Sök i svensk lag och arbetsytans egna dokument, och ställ frågor med källhänvisningar.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Choice sets that share a field name with another set ("status", "state") get names of their own.
    "ENUM_NAME_OVERRIDES": {
        "RegisterStatusEnum": "register.models.ComplianceStatus",
        "ReviewStateEnum": "register.models.Review.State",
        "ActionStateEnum": "register.models.Action.State",
        "EvidenceKindEnum": "register.models.Evidence.Kind",
        "ChangeNoticeKindEnum": "register.models.ChangeNotice.Kind",
        "ProcessingStatusEnum": "compliance.models.ProcessingStatus",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
