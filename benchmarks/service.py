"""Service benchmark: N four-seat tables played end to end through the real service (HTTP, WebSockets,
PostgreSQL, Redis, Celery), one WebSocket client per seat; sustained actions/s and action latency.

Run with ``python -m benchmarks.service --tables N --seconds S`` (``--help`` for every option). Nothing here
asserts a time: the script prints the machine and the numbers, with "met yes/no" next to the targets of the
issue (on 2 cores with PostgreSQL and Redis on the same machine, at 100 tables: p99 latency < 100 ms and
≥ 300 player actions/s sustained). The last line of the output is the whole result as one JSON object.

What it does, and how it measures:

- **The service.** Unless ``--url`` points at a running one, the script starts it as ``make run`` would
  (``Procfile``), each process in its own session and stopped at the end (Ctrl-C and errors included):
  ``uvicorn config.asgi:application`` on a free port (``--web-workers`` processes), a Celery worker
  (``--pool threads --concurrency 8``), ``manage.py run_subscribers`` (the broadcaster) and ``manage.py
  run_timekeeper`` (it fires the action deadlines that pass, issue 22, and sweeps lost timers; its CPU is the
  service's; started once the clients are connected, so that its sweep does not start the first hands
  before the players are there). ``manage.py migrate`` runs first.
  Databases: ``DATABASE_URL`` / ``REDIS_URL`` when set; ``--external``: PostgreSQL at 127.0.0.1:5432
  (database ``mazziere_bench``) and Redis at 127.0.0.1:6379/5; else the embedded ones of
  :mod:`config.devservices` (``ensure_environment("test")``: the ``.dev/`` PostgreSQL, a throw-away Redis),
  with the benchmark's own database ``mazziere_bench`` so that the development data is left alone. The
  benchmark's database (``mazziere_bench``, in both cases) is dropped and created again at every run, so
  runs start equal (``--keep-db`` reuses it); a database given in ``DATABASE_URL`` is only migrated.
  ``MAZZIERE_NEXT_HAND_DELAY`` is ``--next-hand-delay`` (0.5 s); there are no bots; the action clock is the
  default 30 s + 60 s time bank (the clients answer at once: it runs out only when the service itself
  falls that far behind, counted as "action timeouts"; every action schedules its Celery timeout task, as
  in production). ``--service-env KEY=VALUE`` passes more
  settings (e.g. ``CONN_MAX_AGE=60``) to the service processes.
- **The tables.** N non-tournament tables of ``--game CODE`` (a registered variant code; default ``PIT``,
  pot-limit poker all'italiana with invito 10; ``NT``: no-limit hold'em with blinds 5/10;
  :func:`table_config`), four seats, with four players ``bench-<t>-<s>`` of 1,000,000 chips each (nobody
  busts), users of the group ``player`` with the password ``bench``, opened through
  :func:`tables.service.open_table` in this process (Django set up here too, with ``MAZZIERE_TIMERS=off``
  so that this process queues no task). The first hand of every table is started here once every client is
  connected; the Celery worker starts the later ones after each ``HandEnded``.
- **The clients** (asyncio, in this process; uvloop when installed). Each player logs in through
  ``/accounts/login/`` with its own ``httpx.AsyncClient`` (``--login direct`` instead writes the sessions
  straight into the database, like Django's ``force_login``: the form login costs one PBKDF2 check,
  ~0.4 s of the web process, per player), then opens ``/ws/tables/<id>/`` (``websockets``, its session
  cookie, ``Origin: http://127.0.0.1:PORT``). When a fragment shows the viewer's own seat to act
  (``class="seat … to-act … me"``), the client reads its options from that fragment's buttons and amount box,
  as the browser does (``--state api``: it GETs ``/api/tables/<id>/`` first), picks a legal action — SERVITO
  (``discard`` without cards) in the cambio, ``show`` at a showdown, PARTECIPO, DAI CARTE, a bet or raise
  at the minimum with probability ``--bet-share`` (0.1), else check, else call (fold 15% of the time) —
  and sends ``{action, amount, cards, expected_version, command_id}`` over its socket (fresh UUID, the
  version of that fragment or of the GET).
- **Latency** is from that send until *another* seat's socket receives a fragment whose ``data-version`` is
  greater than the version acted on (what the other players see). Two parts are also given: until the
  commit (the first ``NOTIFY eventstore`` for that table after the send, seen by a ``LISTEN`` connection
  of this process) and from the commit to the other seat's fragment (subscriber, Redis, per-viewer
  render, send). Also: the actor's own acknowledgement (its socket's next fragment), the GET, and the
  client's event-loop lag (a 10 ms sleep's overshoot), which bounds how much the client itself adds.
- **Counts.** After ``--warmup`` seconds the window of ``--seconds`` starts. An action counts when its
  latency is measured inside the window; actions/s = those / window. Events/s = growth of
  ``count(*)`` of ``eventstore_event`` over the window. Errors: refusals answered on the socket (the
  WebSocket form of the API's 409 "stale version", or 400), non-200 GETs, actions without an answer
  within 30 s ("lost"), sockets closed by the server (reopened after 1 s, as htmx's ws extension does),
  tables silent for 10 s with no action under way ("stalls": one GET finds the seat to act, which checks
  its turn again).
- **CPU** over the window, from ``psutil`` (``/proc/<pid>/stat`` without it), in % of one core: each
  service process (uvicorn with its workers), this client process, PostgreSQL (the postmaster, its live
  backends and the ones that ended), Redis, everything else on the machine (other users of the machine
  show up there), and the whole machine's busy time. From these, the service's CPU time per completed
  action (its processes, PostgreSQL and Redis; not the client) and the actions/s the machine's cores could
  carry at that cost with nothing else running — a bound that holds however busy the machine was.
  PostgreSQL's sessions and commits per second come from ``pg_stat_database``. ``--py-spy DIR`` records
  the service processes with py-spy during the window (``--format raw --threads``, collapsed stacks; CPU
  samples only, ``--py-spy-idle`` adds the waiting ones) when ``py-spy`` is installed. The service's
  output goes to a temporary directory, kept (and named at the end) when something went wrong.
- **Variations** (issue 22): ``--web-arg ARGS`` passes more arguments to uvicorn (``--web-arg
  "--ws-per-message-deflate false"``); ``--pin-web CPUS`` puts the web process on those CPUs and every other
  process (worker, subscribers, timekeeper, PostgreSQL, Redis, this client) on the others;
  ``--service-env MAZZIERE_CHANNEL_LAYER=pubsub`` runs the opt-in channel layer.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import json
import os
import platform
import random
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from eventstore.machine import cpu_model

try:
    import psutil
except ImportError:  # pragma: no cover - psutil is a dependency of pgserver, so normally present
    psutil = None

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "bench"
BENCH_DB = "mazziere_bench"
EXTERNAL_DATABASE_URL = f"postgresql://postgres@127.0.0.1:5432/{BENCH_DB}"
EXTERNAL_REDIS_URL = "redis://127.0.0.1:6379/5"
SEATS = 4
STACK = 1_000_000
INVITO = 10
LOST_AFTER = 30.0  # s without an answer (the action clock is 30 s): the action is counted lost
STALL_AFTER = 10.0  # s without a new version or an action under way at a table: its turn is re-checked
TARGET_P99_MS = 100.0
TARGET_ACTIONS = 300.0
TARGET_TABLES = 100
CLIENT = "client (this process)"

VERSION_RE = re.compile(r'<div id="table"[^>]*?\bdata-version="(\d+)"')
MY_TURN_RE = re.compile(r'class="seat seat-pos-\d+ to-act(?: [\w-]+)* me"')
ACTION_RE = re.compile(r'data-action="(\w+)"(?:[^>]*?hx-vals=\'\{[^}]*?"amount": (\d+))?')
AMOUNT_RE = re.compile(r'<input type="number" name="amount" min="(\d+)"')
ERROR_RE = re.compile(r'<div class="error" role="alert">(.*?)</div>', re.S)


def say(text: str = "") -> None:
    print(text, flush=True)


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100) of ``values``; ``None`` when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


# --- CPU accounting -------------------------------------------------------------------------------------

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _proc_stat(pid: int) -> tuple[int, float, float] | None:
    """``(ppid, own cpu s, reaped children's cpu s)`` from ``/proc/<pid>/stat``."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    ppid = int(fields[1])
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return ppid, (utime + stime) / _TICK, (cutime + cstime) / _TICK


def _proc_children(pid: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _proc_stat(int(entry.name))
            if stat is not None:
                parents.setdefault(stat[0], []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cpu_seconds(pid: int | None, *, tree: bool = True, reaped: bool = True) -> float | None:
    """CPU seconds used by ``pid`` (plus its live descendants with ``tree``, plus its ended and reaped
    children with ``reaped``); ``None`` if it cannot be read."""
    if pid is None:
        return None
    if psutil is not None:
        try:
            process = psutil.Process(pid)
            times = process.cpu_times()
            total = times.user + times.system
            if reaped:
                total += times.children_user + times.children_system
            if tree:
                for child in process.children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        child_times = child.cpu_times()
                        total += child_times.user + child_times.system
            return float(total)
        except psutil.Error:
            return None
    stat = _proc_stat(pid)
    if stat is None:
        return None
    total = stat[1] + (stat[2] if reaped else 0.0)
    if tree:
        for child in _proc_children(pid):
            child_stat = _proc_stat(child)
            if child_stat is not None:
                total += child_stat[1]
    return total


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine spent busy (not idle, not waiting for I/O), over all cores."""
    if psutil is not None:
        times = psutil.cpu_times()
        return float(sum(times) - times.idle - getattr(times, "iowait", 0.0))
    values = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    # user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user)
    return (sum(values[:8]) - values[3] - values[4]) / _TICK


# --- environment and databases --------------------------------------------------------------------------


@dataclass
class Setup:
    mode: str  # embedded / external / environment / url
    database_url: str
    redis_url: str
    own_database: bool  # the benchmark's own database: dropped and created again
    pg_data_dir: Path | None = None


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def _conninfo(url: str) -> str:
    """A libpq URI for psycopg (Django's ``postgres://`` spelling included)."""
    return "postgresql://" + url.split("://", 1)[1] if "://" in url else url


def prepare_environment(options: argparse.Namespace) -> Setup:
    """Set ``DATABASE_URL`` / ``REDIS_URL`` in this process (the service processes inherit them), and the
    checkout's development ``SECRET_KEY`` unless one is set."""
    from config import devservices

    devservices.development_secret()
    if options.external:
        os.environ["DATABASE_URL"] = EXTERNAL_DATABASE_URL
        os.environ["REDIS_URL"] = EXTERNAL_REDIS_URL
        return Setup("external", EXTERNAL_DATABASE_URL, EXTERNAL_REDIS_URL, own_database=True)
    given = bool(os.environ.get("DATABASE_URL")) and bool(os.environ.get("REDIS_URL"))
    if given:
        return Setup(
            "url" if options.url else "environment",
            os.environ["DATABASE_URL"],
            os.environ["REDIS_URL"],
            own_database=False,
        )
    had_database = bool(os.environ.get("DATABASE_URL"))
    devservices.ensure_environment("attach" if options.url else "test")
    database_url = os.environ["DATABASE_URL"]
    data_dir = None
    own = False
    if not had_database:
        data_dir = devservices.DEV / "postgres"
        if not options.url:  # the service we start gets its own database next to the development one
            database_url = _with_database(database_url, BENCH_DB)
            os.environ["DATABASE_URL"] = database_url
            own = True
    return Setup("url" if options.url else "embedded", database_url, os.environ["REDIS_URL"], own, data_dir)


def reset_database(setup: Setup, keep: bool) -> None:
    """Create the benchmark's database (drop it first unless ``keep``)."""
    import psycopg

    name = urlsplit(setup.database_url).path.lstrip("/")
    admin = _conninfo(_with_database(setup.database_url, "postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and not keep:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            exists = None
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


def redis_info(url: str) -> dict[str, Any]:
    import redis

    client = redis.Redis.from_url(url)
    try:
        info: dict[str, Any] = client.info("server")
        return info
    finally:
        client.close()


def postgres_facts(url: str, data_dir: Path | None) -> dict[str, Any]:
    """Version and postmaster pid (``None`` if it cannot be found) of the PostgreSQL at ``url``."""
    import psycopg

    with psycopg.connect(_conninfo(url), autocommit=True) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0]
        full = conn.execute("SELECT version()").fetchone()[0]
        pid = None
        directory = data_dir
        if directory is None:
            with contextlib.suppress(psycopg.Error):
                directory = Path(conn.execute("SHOW data_directory").fetchone()[0])
        if directory is not None:
            with contextlib.suppress(OSError, ValueError):
                pid = int((directory / "postmaster.pid").read_text().split()[0])
    return {"version": version, "full": full, "pid": pid}


# --- the service processes ------------------------------------------------------------------------------


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Services:
    """The service processes this benchmark starts (each in its own session, so that it can be stopped
    with everything it started, and so that Ctrl-C reaches only the benchmark, which stops them)."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env = env
        self.logs = logs
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.timekeeper: list[str] = []  # its command line, started once the clients are connected

    def spawn(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"{name}.log", "wb")  # noqa: SIM115 - kept open by the child
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        log.close()
        self.processes[name] = process
        return process

    def tail(self, name: str, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join((self.logs / f"{name}.log").read_text(errors="replace").splitlines()[-lines:])
        return ""

    def check_alive(self) -> None:
        for name, process in self.processes.items():
            if process.poll() is not None:
                raise RuntimeError(
                    f"service process {name} exited with {process.returncode}; its log:\n{self.tail(name)}"
                )

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(max(0.1, deadline - time.monotonic()))
        for process in self.processes.values():
            with contextlib.suppress(ProcessLookupError):  # the group: uvicorn workers, a stuck child
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5)


def run_checked(argv: list[str], env: dict[str, str], what: str) -> None:
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{what} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")


def wait_for_web(services: Services | None, base: str, timeout: float = 90.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while True:
        if services is not None:
            services.check_alive()
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(base + "/accounts/login/", timeout=2).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"the web process did not answer at {base} within {timeout:.0f} s")
        time.sleep(0.3)


def wait_for_log(services: Services, name: str, text: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in services.tail(name, 200):
        services.check_alive()
        if time.monotonic() > deadline:
            raise RuntimeError(f"{name} did not print {text!r} within {timeout:.0f} s")
        time.sleep(0.2)


def wait_for_worker(services: Services, name: str, timeout: float = 60.0) -> bool:
    from config.celery import app

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        services.check_alive()
        with contextlib.suppress(Exception):
            if app.control.ping(destination=[name], timeout=1.0):
                return True
        time.sleep(0.3)
    return False


def listening_pid(port: int) -> int | None:
    if psutil is None:
        return None
    with contextlib.suppress(psutil.Error):
        for conn in psutil.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
                return int(conn.pid)
    return None


# --- tables and players (Django, in this process) ------------------------------------------------------


@dataclass(frozen=True)
class TableSpec:
    table_id: int
    players: tuple[str, ...]


def create_tables(count: int, tag: str, game: str = "PIT") -> list[TableSpec]:
    """``count`` four-seat tables of ``game`` (a variant code: :func:`table_config`) of ``bench-<t>-<s>``
    players (group ``player``, password ``bench``)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group

    from tables import access, service

    user_model = get_user_model()
    for name in access.GROUPS:
        Group.objects.get_or_create(name=name)
    player_group = Group.objects.get(name=access.PLAYER)
    names = [f"bench-{tag}{t}-{s}" for t in range(count) for s in range(SEATS)]
    hashed = make_password(PASSWORD)  # one hash for every player (hashing is ~0.4 s each)
    existing = set(user_model.objects.filter(username__in=names).values_list("username", flat=True))
    user_model.objects.bulk_create(
        [user_model(username=n, password=hashed) for n in names if n not in existing]
    )
    user_model.objects.filter(username__in=names).update(password=hashed)
    through = user_model.groups.through
    ids = user_model.objects.filter(username__in=names).values_list("id", flat=True)
    through.objects.bulk_create(
        [through(user_id=i, group_id=player_group.id) for i in ids], ignore_conflicts=True
    )
    config = table_config(game)
    specs = []
    for t in range(count):
        players = tuple(f"bench-{tag}{t}-{s}" for s in range(SEATS))
        seated = [(s, p, STACK) for s, p in enumerate(players)]
        loaded = service.open_table(f"bench {game} {tag}{t}", config, seated, game=game)
        specs.append(TableSpec(loaded.table_id, players))
    return specs


def table_config(game: str) -> Any:
    """The configuration of a benchmark table of ``game`` (a registered variant code): four seats, not a
    tournament, the default 30 s action clock and 60 s time bank, and the game's first-level forced bets
    with :data:`INVITO` as their headline amount (:func:`engine.tournament.structure.forced_at`: invito 10 in
    poker all'italiana; blinds 5/10 in hold'em, Omaha and draw; small bet 10 in stud). Raises
    :class:`engine.core.UnknownGame` for a code the registry does not know."""
    from engine.core import find_game
    from engine.tournament.structure import forced_at

    rules = find_game(game)
    forced = forced_at(rules, INVITO, 1)
    return rules.table_config(
        seats=SEATS, tournament=False, forced=forced, action_time_ms=30_000, time_bank_ms=60_000
    )


def direct_sessions(usernames: Sequence[str]) -> dict[str, str]:
    """Session keys written straight into the session store (what ``Client.force_login`` does)."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    keys = {}
    for user in get_user_model().objects.filter(username__in=usernames):
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        keys[user.get_username()] = store.session_key
    return keys


def start_first_hands(table_ids: Sequence[int]) -> int:
    from tables import service, timers

    started = 0
    for table_id in table_ids:

        def decide(loaded: Any, at: int) -> Any:
            return service.start_command(loaded, at, None) if timers.can_start(loaded) else None

        with contextlib.suppress(service.StaleVersion):
            started += bool(service.handle(table_id, decide, actor="system").events)
    return started


def close_tables(table_ids: Sequence[int]) -> None:
    from tables import service

    for table_id in table_ids:
        with contextlib.suppress(Exception):
            service.close_table(table_id, "benchmark over")


def close_connections() -> None:
    from django.db import connections

    connections.close_all()


def database_counters() -> dict[str, int]:
    """Events (all, hands started, timeouts) and PostgreSQL's session/commit counters, now."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), count(*) FILTER (WHERE type = 'HandStarted'), "
            "count(*) FILTER (WHERE type = 'PlayerTimedOut') FROM eventstore_event"
        )
        events, hands, timeouts = cursor.fetchone()
        cursor.execute(
            "SELECT sessions, xact_commit, xact_rollback FROM pg_stat_database "
            "WHERE datname = current_database()"
        )
        sessions, commits, rollbacks = cursor.fetchone()
    return {
        "events": events,
        "hands": hands,
        "timeouts": timeouts,
        "pg_sessions": sessions,
        "pg_commits": commits,
        "pg_rollbacks": rollbacks,
    }


# --- the clients ------------------------------------------------------------------------------------------


@dataclass
class Pending:
    """An action sent and not yet seen by another seat."""

    seat: int
    expected: int
    command_id: str
    sent: float  # perf_counter
    committed: float | None = None  # first NOTIFY for the table after the send
    acknowledged: float | None = None  # the actor's own socket's next fragment


@dataclass
class Stats:
    window: tuple[float, float] | None = None  # perf_counter start, end
    latency: list[float] = field(default_factory=list)
    to_commit: list[float] = field(default_factory=list)
    commit_to_seen: list[float] = field(default_factory=list)
    own_ack: list[float] = field(default_factory=list)
    get_latency: list[float] = field(default_factory=list)
    decision: list[float] = field(default_factory=list)  # fragment showing the turn → send
    loop_lag: list[float] = field(default_factory=list)
    completed_total: int = 0
    sent: int = 0
    sent_window: int = 0
    fragments: int = 0
    fragments_window: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: dict[str, str] = field(default_factory=dict)
    actions: Counter[str] = field(default_factory=Counter)

    def in_window(self, at: float) -> bool:
        return self.window is not None and self.window[0] <= at < self.window[1]

    def error(self, kind: str, sample: str = "") -> None:
        self.errors[kind] += 1
        if sample and kind not in self.error_samples:
            self.error_samples[kind] = sample[:200]


def classify_refusal(text: str) -> str:
    if "è cambiato" in text or "arrivata prima" in text:
        return "stale version (409)"
    return "refused (400/403)"


def choose(legal: list[dict[str, Any]], rng: random.Random, bet_share: float) -> tuple[str, int | None]:
    """The benchmark's player: passive, fast, always legal."""
    kinds = {}
    for option in legal:
        kinds.setdefault(option["kind"], option)
    for kind in ("discard", "show", "partecipate", "decline_blind"):
        if kind in kinds:
            return kind, None
    for kind in ("bet", "raise"):
        if kind in kinds and rng.random() < bet_share:
            return kind, int(kinds[kind]["minimum"])
    if "check" in kinds:
        return "check", None
    if "call" in kinds:
        return ("call", None) if rng.random() < 0.85 or "fold" not in kinds else ("fold", None)
    if "fold" in kinds:
        return "fold", None
    first = legal[0]
    return first["kind"], int(first["minimum"]) if first["kind"] in ("bet", "raise", "blind_bet") else None


class TableClient:
    def __init__(self, spec: TableSpec, bench: Bench) -> None:
        self.spec = spec
        self.bench = bench
        self.pending: dict[int, Pending] = {}
        self.version = 0
        self.changed = time.perf_counter()
        self.seats = [SeatClient(self, seat, player) for seat, player in enumerate(spec.players)]

    def observe(self, seat: int, version: int, now: float) -> None:
        if version > self.version:
            self.version = version
            self.changed = now
        stats = self.bench.stats
        for expected in [e for e in self.pending if e < version]:
            pending = self.pending[expected]
            if pending.seat == seat:
                if pending.acknowledged is None:
                    pending.acknowledged = now
                continue
            del self.pending[expected]
            stats.completed_total += 1
            if stats.in_window(now):
                stats.latency.append(now - pending.sent)
                if pending.acknowledged is not None:
                    stats.own_ack.append(pending.acknowledged - pending.sent)
                if pending.committed is not None:
                    stats.to_commit.append(pending.committed - pending.sent)
                    stats.commit_to_seen.append(now - pending.committed)

    def committed(self, now: float) -> None:
        for pending in self.pending.values():
            if pending.committed is None:
                pending.committed = now

    def drop(self, seat: int) -> None:
        for expected in [e for e, p in self.pending.items() if p.seat == seat]:
            del self.pending[expected]


class SeatClient:
    def __init__(self, table: TableClient, seat: int, player: str) -> None:
        self.table = table
        self.seat = seat
        self.player = player
        self.http: Any = None
        self.ws: Any = None
        self.acted_on = 0  # the last version this seat sent an action for
        self.turn_seen: float | None = None
        self.acting = False
        self.again = False
        self.retries = 0

    @property
    def bench(self) -> Bench:
        return self.table.bench

    async def connect(self, session: str | None) -> None:
        """Log in (or take the ``session`` key given) and open the table socket."""
        import httpx

        bench = self.bench
        cookies = {"sessionid": session} if session is not None else None
        self.http = httpx.AsyncClient(
            base_url=bench.base, timeout=30.0, follow_redirects=False, cookies=cookies
        )
        if session is None:
            page = await self.http.get("/accounts/login/")
            page.raise_for_status()
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
            form = {
                "username": self.player,
                "password": PASSWORD,
                "csrfmiddlewaretoken": token.group(1) if token else self.http.cookies["csrftoken"],
            }
            answer = await self.http.post(
                "/accounts/login/", data=form, headers={"Referer": bench.base + "/accounts/login/"}
            )
            if answer.status_code != 302 or "sessionid" not in self.http.cookies:
                raise RuntimeError(f"login of {self.player} failed: HTTP {answer.status_code}")
        await self.open_socket()

    async def open_socket(self) -> None:
        from websockets.asyncio.client import connect

        base = self.bench.base
        cookie = "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())
        url = base.replace("http", "ws", 1) + f"/ws/tables/{self.table.spec.table_id}/"
        self.ws = await connect(
            url, origin=base, additional_headers={"Cookie": cookie}, max_size=None, open_timeout=60
        )

    async def read(self) -> None:
        """Handle the socket's fragments; a closed socket is counted and opened again (as htmx's ws
        extension does), its first fragment being the full table."""
        bench, stats = self.bench, self.bench.stats
        while not bench.stopping:
            try:
                await self.read_socket()
            except Exception as error:
                if bench.stopping:
                    return
                stats.error("socket closed (reopened)", repr(error))
            else:
                if bench.stopping:
                    return
                stats.error("socket closed (reopened)", "closed by the server")
            while not bench.stopping:
                await asyncio.sleep(1.0)
                try:
                    await self.open_socket()
                    break
                except Exception as error:
                    stats.error("socket reopen failed", repr(error))

    async def read_socket(self) -> None:
        bench, stats = self.bench, self.bench.stats
        async for message in self.ws:
            now = time.perf_counter()
            text = message if isinstance(message, str) else message.decode()
            stats.fragments += 1
            if stats.in_window(now):
                stats.fragments_window += 1
            refusal = ERROR_RE.search(text)
            if refusal:
                reason = html.unescape(refusal.group(1))
                stats.error(classify_refusal(reason), reason)
                self.table.drop(self.seat)
                self.acted_on = 0
                self.retries += 1
                if self.retries <= 5:
                    bench.spawn(self.act(delay=0.02 * self.retries))
                continue
            found = VERSION_RE.search(text)
            if found is None:
                continue
            version = int(found.group(1))
            self.table.observe(self.seat, version, now)
            if MY_TURN_RE.search(text) and version > self.acted_on:
                self.turn_seen = now
                if bench.state_from == "fragment":
                    self.act_from_fragment(text, version, now)
                else:
                    bench.spawn(self.act())

    def act_from_fragment(self, text: str, version: int, now: float) -> None:
        """Act as the browser does: from the buttons and the amount box of the fragment just received."""
        bench = self.bench
        box = AMOUNT_RE.search(text)
        legal = []
        for kind, amount in ACTION_RE.findall(text):
            minimum = int(amount) if amount else int(box.group(1)) if box else 0
            legal.append({"kind": kind, "minimum": minimum})
        if not legal:
            return
        kind, amount = choose(legal, bench.rng, bench.bet_share)
        bench.spawn(self.send(kind, amount, version, now))

    async def send(self, kind: str, amount: int | None, version: int, now: float, think: bool = True) -> None:
        """Send the action on the socket (after the think time, unless already waited) and count it."""
        bench, stats = self.bench, self.bench.stats
        command_id = str(uuid.uuid4())
        self.acted_on = version
        if think and bench.think:
            await asyncio.sleep(bench.think)
            now = time.perf_counter()
        self.table.pending[version] = Pending(self.seat, version, command_id, now)
        message = {
            "action": kind,
            "amount": amount,
            "cards": [],
            "expected_version": version,
            "command_id": command_id,
        }
        try:
            await self.ws.send(json.dumps(message))
        except Exception as error:
            if not bench.stopping:
                stats.error("client error", repr(error))
            return
        stats.sent += 1
        stats.actions[kind] += 1
        if stats.in_window(now):
            stats.sent_window += 1
            if self.turn_seen is not None:
                stats.decision.append(now - self.turn_seen)
        self.retries = 0

    async def act(self, delay: float = 0.0) -> None:
        if self.acting:
            self.again = True
            return
        self.acting = True
        bench, stats = self.bench, self.bench.stats
        try:
            if delay:
                await asyncio.sleep(delay)
            if bench.think:
                await asyncio.sleep(bench.think)
            while True:
                self.again = False
                started = time.perf_counter()
                response = await self.http.get(f"/api/tables/{self.table.spec.table_id}/")
                done = time.perf_counter()
                if stats.in_window(done):
                    stats.get_latency.append(done - started)
                if response.status_code != 200:
                    stats.error(f"GET HTTP {response.status_code}", response.text[:200])
                    break
                state = response.json()
                version, table_view = state["version"], state["view"]
                if table_view.get("to_act") != state["your_seat"] or version <= self.acted_on:
                    if self.again:
                        continue
                    break
                kind, amount = choose(table_view["legal"], bench.rng, bench.bet_share)
                await self.send(kind, amount, version, time.perf_counter(), think=False)
                break
        except Exception as error:
            if not bench.stopping:
                stats.error("client error", repr(error))
        finally:
            self.acting = False


class Bench:
    """The clients of every table, and the clocks of the run."""

    def __init__(self, base: str, specs: Sequence[TableSpec], options: argparse.Namespace) -> None:
        self.base = base
        self.tables = [TableClient(spec, self) for spec in specs]
        self.by_stream = {f"table-{t.spec.table_id}": t for t in self.tables}
        self.stats = Stats()
        self.rng = random.Random(options.seed)
        self.bet_share = options.bet_share
        self.think = options.think_ms / 1000
        self.state_from = options.state
        self.stopping = False
        self.tasks: set[asyncio.Task[Any]] = set()
        self.stalls = 0
        self.stalls_window = 0
        self.lost = 0
        self.lost_window = 0

    def spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def seats(self) -> Iterator[SeatClient]:
        for table in self.tables:
            yield from table.seats

    async def watchdog(self) -> None:
        """Lost actions and stalled tables (see the module doc)."""
        while not self.stopping:
            await asyncio.sleep(0.5)
            now = time.perf_counter()
            for table in self.tables:
                for expected, pending in list(table.pending.items()):
                    if now - pending.sent > LOST_AFTER:
                        del table.pending[expected]
                        self.lost += 1
                        self.lost_window += self.stats.in_window(now)
                        self.stats.error("lost (no answer in 30 s)")
                if now - table.changed > STALL_AFTER and not table.pending:
                    table.changed = now
                    self.stalls += 1
                    self.stalls_window += self.stats.in_window(now)
                    self.spawn(self.recheck(table))

    async def recheck(self, table: TableClient) -> None:
        """A stalled table: one GET finds the seat to act, which then checks its turn again."""
        with contextlib.suppress(Exception):
            response = await table.seats[0].http.get(f"/api/tables/{table.spec.table_id}/")
            state = response.json()
            to_act = state["view"].get("to_act")
            if to_act is not None:
                seat = table.seats[to_act]
                seat.acted_on = min(seat.acted_on, state["version"] - 1)
                await seat.act()

    async def loop_lag(self) -> None:
        while not self.stopping:
            started = time.perf_counter()
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            if self.stats.in_window(now):
                self.stats.loop_lag.append(now - started - 0.01)

    async def listen(self, database_url: str) -> None:
        """Commit times: ``NOTIFY eventstore`` (payload: the stream) arrives at each append's commit."""
        import psycopg

        try:
            async with await psycopg.AsyncConnection.connect(
                _conninfo(database_url), autocommit=True
            ) as conn:
                await conn.execute("LISTEN eventstore")
                async for notify in conn.notifies():
                    table = self.by_stream.get(notify.payload)
                    if table is not None:
                        table.committed(time.perf_counter())
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.stats.error("LISTEN failed", repr(error))


# --- the run ----------------------------------------------------------------------------------------------


@dataclass
class Snapshot:
    at: float
    cpu: dict[str, float | None]
    busy: float
    db: dict[str, int]


def take_snapshot(pids: dict[str, tuple[int | None, bool, bool]], db: dict[str, int]) -> Snapshot:
    cpu = {name: cpu_seconds(pid, tree=tree, reaped=reaped) for name, (pid, tree, reaped) in pids.items()}
    return Snapshot(time.perf_counter(), cpu, machine_busy_seconds(), db)


async def drive(
    options: argparse.Namespace,
    base: str,
    specs: Sequence[TableSpec],
    setup: Setup,
    pids: dict[str, tuple[int | None, bool, bool]],
    db: ThreadPoolExecutor,
    services: Services | None,
) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    bench = Bench(base, specs, options)
    result: dict[str, Any] = {}
    usernames = [seat.player for seat in bench.seats()]
    sessions: dict[str, str] = {}
    started = time.perf_counter()
    if options.login == "direct":
        sessions = await loop.run_in_executor(db, direct_sessions, usernames)
    limit = asyncio.Semaphore(options.connect_concurrency)

    async def connect(seat: SeatClient) -> None:
        async with limit:
            await seat.connect(sessions.get(seat.player) if options.login == "direct" else None)

    say(f"Logging in ({options.login}) and connecting {len(usernames)} sockets…")
    connecting = [asyncio.create_task(connect(seat)) for seat in bench.seats()]
    try:
        await asyncio.gather(*connecting)
    except BaseException:
        for task in connecting:
            task.cancel()
        raise
    result["connect_seconds"] = round(time.perf_counter() - started, 1)
    result["client_loop"] = type(loop).__module__.split(".")[0]
    say(f"  connected in {result['connect_seconds']:.1f} s")
    for seat in bench.seats():
        bench.spawn(seat.read())
    background = [
        loop.create_task(bench.watchdog()),
        loop.create_task(bench.loop_lag()),
        loop.create_task(bench.listen(setup.database_url)),
    ]
    profilers: list[subprocess.Popen[bytes]] = []
    try:
        if services is not None and services.timekeeper:
            pids["timekeeper"] = (services.spawn("timekeeper", services.timekeeper).pid, True, True)
            await loop.run_in_executor(db, wait_for_log, services, "timekeeper", "timekeeper running")
        started_hands = await loop.run_in_executor(db, start_first_hands, [s.table_id for s in specs])
        say(f"First hands started at {started_hands} tables; warming up for {options.warmup:g} s…")
        await asyncio.sleep(options.warmup)
        if services is not None:
            services.check_alive()
        first = take_snapshot(pids, await loop.run_in_executor(db, database_counters))
        bench.stats.window = (first.at, first.at + options.seconds)
        profilers = start_profilers(options, pids, services)
        say(f"Measuring for {options.seconds:g} s…")
        await asyncio.sleep(options.seconds)
        last = take_snapshot(pids, await loop.run_in_executor(db, database_counters))
        if services is not None:
            services.check_alive()
    finally:
        bench.stopping = True
        for profiler in profilers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                profiler.wait(30)
        for task in background:
            task.cancel()
        for task in list(bench.tasks):
            task.cancel()
        await asyncio.gather(*background, *bench.tasks, return_exceptions=True)
        for seat in bench.seats():
            with contextlib.suppress(Exception):
                if seat.ws is not None:
                    await seat.ws.close()
            with contextlib.suppress(Exception):
                if seat.http is not None:
                    await seat.http.aclose()
    result.update(summarize(bench, first, last, options))
    return result


def start_profilers(
    options: argparse.Namespace, pids: dict[str, tuple[int | None, bool, bool]], services: Services | None
) -> list[subprocess.Popen[bytes]]:
    if not options.py_spy:
        return []
    binary = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(binary).exists():
        say("  (py-spy not found: no profile)")
        return []
    out = Path(options.py_spy)
    out.mkdir(parents=True, exist_ok=True)
    started = []
    for name in ("web", "worker", "subscribers", "timekeeper"):
        pid = pids.get(name, (None, False, False))[0]
        if pid is None:
            continue
        argv = [
            binary,
            "record",
            "--pid",
            str(pid),
            "--duration",
            str(int(options.seconds)),
            "--rate",
            "100",
            "--format",
            "raw",
            "--output",
            str(out / f"{name}.txt"),
            "--nonblocking",
            "--threads",
        ]
        if options.py_spy_idle:
            argv.append("--idle")
        if name == "web" and options.web_workers > 1:
            argv.append("--subprocesses")
        started.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return started


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value * 1000, 1)


def summarize(bench: Bench, first: Snapshot, last: Snapshot, options: argparse.Namespace) -> dict[str, Any]:
    stats = bench.stats
    window = last.at - first.at
    cpu = {}
    ours = service = 0.0
    for name in first.cpu:
        before, after = first.cpu[name], last.cpu[name]
        if before is None or after is None:
            cpu[name] = None
            continue
        used = max(0.0, after - before)
        ours += used
        service += used if name != CLIENT else 0.0
        cpu[name] = round(100 * used / window, 1)
    actions = len(stats.latency)
    # what one action costs the service (its processes, PostgreSQL, Redis) in CPU time, and how many
    # actions per second the machine's cores could carry at that cost with nothing else running
    per_action = service / actions if actions else None
    cores = os.cpu_count() or 1
    busy = last.busy - first.busy
    cpu["other processes"] = round(100 * max(0.0, busy - ours) / window, 1)
    cpu["machine busy"] = round(100 * busy / window, 1)
    delta = {key: last.db[key] - first.db[key] for key in first.db}

    def distribution(values: list[float]) -> dict[str, float | None]:
        return {
            "p50": _ms(percentile(values, 50)),
            "p95": _ms(percentile(values, 95)),
            "p99": _ms(percentile(values, 99)),
            "max": _ms(max(values) if values else None),
            "mean": _ms(statistics.fmean(values) if values else None),
            "count": len(values),
        }

    return {
        "window_seconds": round(window, 2),
        "actions_completed": len(stats.latency),
        "actions_per_second": round(len(stats.latency) / window, 1),
        "actions_sent": stats.sent_window,
        "events_appended": delta["events"],
        "events_per_second": round(delta["events"] / window, 1),
        "hands_started": delta["hands"],
        "hands_per_second": round(delta["hands"] / window, 2),
        "timeouts": delta["timeouts"],
        "fragments_per_second": round(stats.fragments_window / window, 1),
        "pg_sessions_per_second": round(delta["pg_sessions"] / window, 1),
        "pg_commits_per_second": round(delta["pg_commits"] / window, 1),
        "pg_rollbacks_per_second": round(delta["pg_rollbacks"] / window, 1),
        "latency_ms": distribution(stats.latency),
        "send_to_commit_ms": distribution(stats.to_commit),
        "commit_to_other_seat_ms": distribution(stats.commit_to_seen),
        "own_ack_ms": distribution(stats.own_ack),
        "get_state_ms": distribution(stats.get_latency),
        "decision_ms": distribution(stats.decision),
        "client_loop_lag_ms": distribution(stats.loop_lag),
        "errors": dict(stats.errors),
        "error_samples": stats.error_samples,
        "stalls_in_window": bench.stalls_window,
        "lost_in_window": bench.lost_window,
        "actions_by_kind": dict(stats.actions),
        "cpu_percent_of_one_core": cpu,
        "service_cpu_ms_per_action": _ms(per_action),
        "cpu_bound_actions_per_second": round(cores / per_action, 1) if per_action else None,
    }


# --- output ---------------------------------------------------------------------------------------------


def yes_no(ok: bool) -> str:
    return "yes" if ok else "no"


LATENCIES = (
    ("latency_ms", "action sent → another seat's fragment (the latency)"),
    ("send_to_commit_ms", "  part 1: sent → committed (NOTIFY)"),
    ("commit_to_other_seat_ms", "  part 2: committed → another seat's fragment"),
    ("own_ack_ms", "action sent → the actor's own fragment"),
    ("get_state_ms", "GET /api/tables/{id}/"),
    ("decision_ms", "client: turn seen → action sent (GET included)"),
    ("client_loop_lag_ms", "client event-loop lag (10 ms sleep overshoot)"),
)


def _print_tables(tables: list[tuple[str, list[str], list[tuple[str, ...]]]]) -> None:
    """``(title, columns, rows)`` with rich when installed, else plain text (first column left)."""
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        for title, columns, rows in tables:
            widths = [max(len(str(x)) for x in column) for column in zip(columns, *rows, strict=True)]
            say(title)
            for row in (columns, *rows):
                say(
                    "  ".join(
                        f"{x:<{w}}" if i == 0 else f"{x:>{w}}"
                        for i, (x, w) in enumerate(zip(row, widths, strict=True))
                    )
                )
            say()
        return
    console = Console(width=max(110, shutil.get_terminal_size().columns))
    for title, columns, rows in tables:
        table = Table(title=title, title_justify="left")
        for index, column in enumerate(columns):
            table.add_column(column, justify="left" if index == 0 or column in ("target", "met") else "right")
        for row in rows:
            table.add_row(*row)
        console.print(table)


def report(result: dict[str, Any]) -> None:
    latency = result["latency_ms"]
    note = "" if result["tables"] >= TARGET_TABLES else f" (set for {TARGET_TABLES} tables)"
    errors = result["errors"]
    stale = errors.get("stale version (409)", 0)
    main = [
        ("tables × 4 seats (one socket each)", f"{result['tables']} × 4 of {result['game']}", "", ""),
        ("measured window (after warm-up)", f"{result['window_seconds']} s ({result['warmup']:g} s)", "", ""),
        (
            "player actions completed / s",
            f"{result['actions_per_second']:,}",
            f"≥ {TARGET_ACTIONS:g}{note}",
            yes_no(result["actions_per_second"] >= TARGET_ACTIONS),
        ),
        (
            "latency p99, ms",
            "—" if latency["p99"] is None else f"{latency['p99']:,}",
            f"< {TARGET_P99_MS:g}{note}",
            yes_no(latency["p99"] is not None and latency["p99"] < TARGET_P99_MS),
        ),
        ("events appended / s", f"{result['events_per_second']:,}", "", ""),
        ("hands started / s", f"{result['hands_per_second']:,}", "", ""),
        ("fragments received by the clients / s", f"{result['fragments_per_second']:,}", "", ""),
        (
            "PostgreSQL sessions / s, commits / s",
            f"{result['pg_sessions_per_second']:,}, {result['pg_commits_per_second']:,}",
            "",
            "",
        ),
        (
            "service CPU per action (web, worker, subscribers, timekeeper, PostgreSQL, Redis), ms",
            "—"
            if result["service_cpu_ms_per_action"] is None
            else f"{result['service_cpu_ms_per_action']:,}",
            "",
            "",
        ),
        (
            f"→ actions / s the {os.cpu_count()} cores could carry at that cost, nothing else running",
            "—"
            if result["cpu_bound_actions_per_second"] is None
            else f"{result['cpu_bound_actions_per_second']:,}",
            "",
            "",
        ),
        ("errors: stale version (the socket's 409)", str(stale), "", ""),
        ("errors: other (refusals, HTTP, sockets, lost)", str(sum(errors.values()) - stale), "", ""),
        (
            "tables stalled 10 s, action timeouts",
            f"{result['stalls_in_window']}, {result['timeouts']}",
            "",
            "",
        ),
    ]
    dists = []
    for key, label in LATENCIES:
        d = result[key]
        cells = [d[k] for k in ("p50", "p95", "p99", "max", "mean")]
        dists.append((label, *("—" if c is None else f"{c:,}" for c in cells), f"{d['count']:,}"))
    cpu = [
        (name, "n/a" if value is None else f"{value}%")
        for name, value in result["cpu_percent_of_one_core"].items()
    ]
    _print_tables(
        [
            (
                f"Service benchmark — {result['tables']} tables, {result['mode']} PostgreSQL/Redis",
                ["measure", "value", "target", "met"],
                main,
            ),
            ("Latencies in the window, ms", ["", "p50", "p95", "p99", "max", "mean", "n"], dists),
            (f"CPU in the window, % of one core (the machine has {os.cpu_count()})", ["process", "CPU"], cpu),
        ]
    )
    if errors:
        say("Errors: " + ", ".join(f"{k}: {v}" for k, v in errors.items()))
        for kind, sample in result["error_samples"].items():
            say(f"  e.g. {kind}: {sample}")


def machine(setup: Setup, pg: dict[str, Any], redis_version: str) -> dict[str, str]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "CPU": cpu_model(),
        "Cores": f"{os.cpu_count()} logical (os.cpu_count)",
        "Python": f"{platform.python_implementation()} {platform.python_version()} "
        f"[{platform.python_compiler()}]",
        "Platform": platform.platform(),
        "PostgreSQL": f"{pg['version']} ({setup.mode})",
        "Redis": f"{redis_version} ({setup.mode})",
        "Libraries": ", ".join(
            f"{n} {package_version(n)}"
            for n in (
                "django",
                "channels",
                "channels-redis",
                "uvicorn",
                "uvloop",
                "celery",
                "psycopg",
                "websockets",
                "httpx",
            )
        ),
        "Load average before": " ".join(f"{x:.2f}" for x in load),
        "Date": datetime.now().astimezone().isoformat(timespec="seconds"),
    }


# --- pinning to cores --------------------------------------------------------------------------------------


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (``/proc/<pid>/task/<tid>/children``), those that still exist."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            with contextlib.suppress(OSError, ValueError):
                todo += [int(child) for child in (task / "children").read_text().split()]
    return found


def set_affinity(pid: int, cpus: set[int]) -> None:
    """Every thread of every process of ``pid``'s tree on ``cpus`` (the processes and threads they start
    later inherit it)."""
    for process in process_tree(pid):
        for task in Path(f"/proc/{process}/task").glob("*"):
            with contextlib.suppress(OSError, ValueError):
                os.sched_setaffinity(int(task.name), cpus)


def cpu_list(spec: str) -> set[int]:
    """``--pin-web``'s value: CPU numbers of this machine, comma-separated ("0", "0,1"); else an
    ``argparse`` error (exit 2, a line on stderr)."""
    try:
        cpus = {int(cpu) for cpu in spec.split(",")}
    except ValueError:
        raise argparse.ArgumentTypeError(f"CPU numbers separated by commas, not {spec!r}") from None
    every = set(range(os.cpu_count() or 1))
    if not cpus <= every:
        raise argparse.ArgumentTypeError(f"this machine's CPUs are 0-{max(every)}, not {spec!r}")
    return cpus


def pin(web: set[int], pids: dict[str, tuple[int | None, bool, bool]]) -> tuple[set[int], set[int]]:
    """``--pin-web``: the web process(es) on the CPUs ``web`` (:func:`cpu_list`), every other process of the
    run (worker, subscribers, PostgreSQL, Redis, this client and the timekeeper it starts later) on the
    others; returns both sets. Issue 22: what one web core carries when nothing else runs on it."""
    every = set(range(os.cpu_count() or 1))
    rest = (every - web) or every
    for name, (pid, _tree, _reaped) in pids.items():
        if pid is not None:
            set_affinity(pid, web if name == "web" else rest)
    return web, rest


# --- main -------------------------------------------------------------------------------------------------


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.service", description=" ".join((__doc__ or "").split("\n\n")[0].split())
    )
    parser.add_argument("--tables", type=int, default=10, help="tables of 4 players (default 10)")
    parser.add_argument(
        "--game",
        default="PIT",
        type=str.upper,
        metavar="CODE",
        help="the tables' game, a registered variant code (PIT: pot-limit poker all'italiana, the default; "
        "NT: no-limit hold'em, …)",
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds played before the window (5)")
    parser.add_argument(
        "--url",
        help="a running service (e.g. http://127.0.0.1:8000); its databases must be "
        "this process's DATABASE_URL/REDIS_URL (or the embedded ones of make run)",
    )
    parser.add_argument(
        "--external",
        action="store_true",
        help=f"PostgreSQL {EXTERNAL_DATABASE_URL} and Redis {EXTERNAL_REDIS_URL}",
    )
    parser.add_argument("--web-workers", type=int, default=1, help="uvicorn worker processes (1)")
    parser.add_argument(
        "--pin-web",
        type=cpu_list,
        metavar="CPUS",
        help="the web process on these CPUs (e.g. 0), every other process on the rest (taskset-like)",
    )
    parser.add_argument(
        "--web-arg",
        action="append",
        default=[],
        metavar="ARGS",
        help="more uvicorn arguments, e.g. '--ws-per-message-deflate false' (repeatable)",
    )
    parser.add_argument("--next-hand-delay", type=float, default=0.5, help="MAZZIERE_NEXT_HAND_DELAY (0.5)")
    parser.add_argument(
        "--service-env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="more environment for the service processes (repeatable)",
    )
    parser.add_argument(
        "--login",
        choices=("form", "direct"),
        default="form",
        help="form: POST /accounts/login/ (default); direct: sessions written in the database",
    )
    parser.add_argument("--connect-concurrency", type=int, default=8, help="logins/connects at once (8)")
    parser.add_argument("--bet-share", type=float, default=0.1, help="chance of a minimum bet when allowed")
    parser.add_argument(
        "--state",
        choices=("fragment", "api"),
        default="fragment",
        help="how a client picks its action: fragment: from the buttons of its last fragment, as the "
        "browser does (default); api: GET /api/tables/<id>/ first",
    )
    parser.add_argument("--think-ms", type=float, default=0.0, help="client pause before each action (0)")
    parser.add_argument("--seed", type=int, default=20261122, help="the clients' random choices")
    parser.add_argument(
        "--keep-db", action="store_true", help="reuse the benchmark database, do not recreate it"
    )
    parser.add_argument("--py-spy", metavar="DIR", help="record the service processes with py-spy into DIR")
    parser.add_argument("--py-spy-idle", action="store_true", help="py-spy: sample idle threads too")
    options = parser.parse_args(argv)
    from engine.core import UnknownGame, find_game

    try:
        find_game(options.game)
    except UnknownGame as error:
        parser.error(f"--game: {error}")
    if options.url and options.external:
        parser.error("--url and --external exclude each other (--url uses the service's own databases)")
    return options


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # a kill stops the services too
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    services: Services | None = None
    logs = Path(tempfile.mkdtemp(prefix="mazziere-bench-"))
    db = ThreadPoolExecutor(1, thread_name_prefix="django")
    spec_ids: list[int] = []
    succeeded = errors_seen = False
    try:
        setup = prepare_environment(options)
        os.environ["MAZZIERE_NEXT_HAND_DELAY"] = str(options.next_hand_delay)
        os.environ["MAZZIERE_BOT_THINK"] = "0"
        os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
        os.environ.setdefault("LOG_LEVEL", "WARNING")
        if not options.url:
            os.environ.setdefault("CELERY_QUEUE", "mazziere-bench")
            os.environ.setdefault("CHANNELS_PREFIX", "mazziere-bench")
        extra = dict(item.split("=", 1) for item in options.service_env)
        if setup.own_database:
            reset_database(setup, options.keep_db)
            if setup.mode == "external" and not options.keep_db:
                flush_redis(setup.redis_url)  # db 5 is the benchmark's: no timers left from a previous run
        pg = postgres_facts(setup.database_url, setup.pg_data_dir)
        redis_facts = redis_info(setup.redis_url)
        redis_version, redis_pid = str(redis_facts.get("redis_version", "?")), redis_facts.get("process_id")
        facts = machine(setup, pg, redis_version)
        for key, value in facts.items():
            say(f"{key + ':':<22}{value}")
        say(f"{'Service logs:':<22}{logs}")
        child_env = {**os.environ, **extra, "MAZZIERE_TIMERS": "celery", "PYTHONUNBUFFERED": "1"}
        if not options.url:
            say("Migrating…")
            run_checked([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], child_env, "migrate")
        # this process: Django for the tables and the counters; it schedules no Celery task itself
        os.environ["MAZZIERE_TIMERS"] = "off"
        for key, value in extra.items():
            os.environ.setdefault(key, value)
        import django

        django.setup()
        pids: dict[str, tuple[int | None, bool, bool]] = {}
        if options.url:
            base = options.url.rstrip("/")
            port = urlsplit(base).port or 80
            pids["web"] = (listening_pid(port), True, True)
            wait_for_web(None, base)
        else:
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            services = Services(child_env, logs)
            web = [sys.executable, *shlex.split("-m uvicorn config.asgi:application --host 127.0.0.1")]
            web += ["--port", str(port), "--log-level", "warning"]
            if options.web_workers > 1:
                web += ["--workers", str(options.web_workers)]
            for arg in options.web_arg:
                web += shlex.split(arg)
            worker_name = f"bench-{os.getpid()}@{socket.gethostname()}"
            worker = [
                sys.executable,
                *shlex.split("-m celery -A config worker --pool threads --concurrency 8"),
            ]
            worker += ["--loglevel", "WARNING", "-n", worker_name]
            subscribers = [sys.executable, "manage.py", "run_subscribers"]
            # the timekeeper starts once the clients are connected (run_clients): its sweep would start
            # the waiting tables' first hands before their players are there, and their turns time out
            services.timekeeper = [sys.executable, "manage.py", "run_timekeeper"]
            say("Starting uvicorn, the Celery worker and the subscribers…")
            for name, argv in (("web", web), ("worker", worker), ("subscribers", subscribers)):
                pids[name] = (services.spawn(name, argv).pid, True, True)
            wait_for_web(services, base)
            wait_for_log(services, "subscribers", "subscribers running")
            if not wait_for_worker(services, worker_name):
                say("  (the Celery worker did not answer a ping; going on)")
        pids[CLIENT] = (os.getpid(), False, False)
        pids["postgresql"] = (pg["pid"], True, True)
        pids["redis"] = (int(redis_pid) if redis_pid else None, False, False)
        if options.pin_web:
            pinned = pin(options.pin_web, pids)
            say(f"  pinned: web on CPUs {sorted(pinned[0])}, every other process on {sorted(pinned[1])}")
        tag = uuid.uuid4().hex[:4] + "-" if (options.keep_db or not setup.own_database) else ""
        say(f"Creating {options.tables} tables of {options.game}…")
        specs = db.submit(create_tables, options.tables, tag, options.game).result()
        spec_ids = [s.table_id for s in specs]
        with contextlib.suppress(ImportError):
            import uvloop

            asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
        result = asyncio.run(drive(options, base, specs, setup, pids, db, services))
        result = {
            "benchmark": "service",
            "game": options.game,
            "tables": options.tables,
            "seconds": options.seconds,
            "warmup": options.warmup,
            "mode": setup.mode,
            "web_workers": options.web_workers,
            "web_args": options.web_arg,
            "pin_web": sorted(options.pin_web) if options.pin_web else None,
            "next_hand_delay": options.next_hand_delay,
            "login": options.login,
            "service_env": extra,
            "machine": {**facts, "Load average after": " ".join(f"{x:.2f}" for x in os.getloadavg())},
            **result,
            "targets": {
                "p99_ms": TARGET_P99_MS,
                "actions_per_second": TARGET_ACTIONS,
                "tables": TARGET_TABLES,
            },
        }
        report(result)
        succeeded, errors_seen = True, bool(result["errors"])
        if errors_seen:
            say(f"Service logs kept in {logs}")
        say(json.dumps(result, separators=(",", ":"), default=str))
        return 0
    except KeyboardInterrupt:
        say("Interrupted: stopping the service…")
        return 130
    finally:
        if spec_ids:
            with contextlib.suppress(Exception):
                db.submit(close_tables, spec_ids).result(timeout=120)
        with contextlib.suppress(Exception):
            db.submit(close_connections).result(timeout=10)
        db.shutdown(wait=False, cancel_futures=True)
        if services is not None:
            services.stop()
        if not succeeded:
            say(f"Service logs kept in {logs}")
        elif not errors_seen:
            shutil.rmtree(logs, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
