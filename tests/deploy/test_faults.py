"""Issue 23 §1, faults under load (``make faults``): the loopback cluster of ``deploy/local-cluster`` (nginx,
3 web processes, 2 Celery workers, the timekeeper, the subscribers, each under ``config/respawn.sh``) on a
**private PostgreSQL** (``initdb`` into a tmpfs of :data:`QUOTA` mounted for the test, started with ``pg_ctl``
on a free port) and a **private redis-server** (a free port, no persistence), so that restarting them does not
disturb the machine's shared services. Under load — a mixed-game bot tournament (:data:`ROTATION`, one game a
level) and :data:`CASH_GAMES` cash tables of bots, every table watched by a WebSocket client through nginx —
the faults of :data:`FAULTS` in turn, each once the previous one has recovered:

``worker``, ``timekeeper``, ``web``, ``subscribers``: SIGKILL of the process (a worker, the timekeeper, the
web process holding most sockets, the subscribers); its respawn loop starts it again 1 s later.
``postgres-fast`` / ``postgres-immediate``: ``pg_ctl restart -m fast`` / ``-m immediate`` (crash recovery).
``redis``: redis-server killed (SIGKILL) and a fresh, empty one started on the same port: the broker's queue
and unacked messages, the channel layer's groups and the cache are gone.
``disk-full``: a file fills the tmpfs of PostgreSQL's data directory until writes fail (ENOSPC), held
:data:`DISK_FULL_HOLD_S`, then deleted (PostgreSQL is started again by the test, as its supervisor would,
if it stopped).
``socket-resend``: a human at a fresh cash table, on their turn, sends an action on a socket that is closed
before the answer, then reconnects and sends the **same** frame (same ``command_id``, same
``expected_version``): the command is applied once.

**Time to recover** of a fault: from the moment it was injected (the kill, the start of the restart or of the
fill) until every table that was in a hand at that moment has ended a hand (its first ``HandEnded`` recorded
after the fault; ``recorded_at`` is the appending transaction's start); ``first_event_s`` is the same up to
the first event appended on each of those tables. Both in seconds; the disk-full fault's include the hold.

Afterwards: the cash tables are closed, the tournament plays to its winner; every table ended every hand it
started (as many ``HandEnded`` as ``HandStarted`` per stream), no turn ended by two transactions (no timer or
bot acted twice) and no ``command_id`` in two transactions (:func:`log_checks`), the tournament's chips
conserved after every transaction, prizes equal to the pool and every player placed once, ``verify_all`` clean
(hash chains, hands replayed, ledgers, the cashier's whole-log check: balances plus chips at cash tables equal
the grants and credits, projections), every socket at its table's last version, and no ERROR or Traceback in
the processes' logs outside the faults' windows (from the fault to its recovery plus :data:`SETTLE_S`). The
errors seen inside each window are listed per fault in the figures (``.dev/faults-test.json``;
``docs/reliability.md``, "Issue 23 §1: faults under load").

It takes about six minutes and needs root (mount, pg_ctl as the ``postgres`` user): only with
``MAZZIERE_FAULTS_TEST=1``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import signal
import socket as sockets
import subprocess
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.cluster_tools import (
    PASSWORD,
    ROOT,
    VERSION_RE,
    WATCHER,
    Watchers,
    alive,
    clean_environment,
    log_checks,
    login,
    manage,
    process_figures,
    read_state,
    wait,
)

pytestmark = pytest.mark.skipif(
    os.environ.get("MAZZIERE_FAULTS_TEST") != "1",
    reason="the fault test runs with MAZZIERE_FAULTS_TEST=1 (make faults)",
)

PORT = 8120  # nginx; the web processes on 8121-8123 (cluster-test: 8110-8113, make cluster: 8100-8103)
DATABASE = "mazziere_faults"
PG_BIN = Path("/usr/lib/postgresql/15/bin")
QUOTA = "300m"
PLAYERS = int(os.environ.get("MAZZIERE_FAULTS_PLAYERS", "36"))
LEVEL_SECONDS = 30
ROTATION = ("PIT", "NT", "F7S", "PO", "F5D", "NTL")
CASH_GAMES = ("NT", "PO", "F7S")
CASH_BOTS = 4
FAULTS = (
    "worker",
    "timekeeper",
    "web",
    "subscribers",
    "postgres-fast",
    "postgres-immediate",
    "redis",
    "disk-full",
    "socket-resend",
)
DISK_FULL_HOLD_S = 8.0
RECOVERY_TIMEOUT_S = 180.0
SETTLE_S = 10.0
HUMAN, HUMAN_PASSWORD = "faults-human", "faults-human-password-23"
ERROR_RE = re.compile(r"\b(ERROR|CRITICAL|Traceback)\b")
EXPLAINED = {
    "tables_handseed_hand": "PostgreSQL's log of a start of the same hand by two tasks (the queued one and "
    "the sweep's, or a retried one): the loser's INSERT of the hand's seed conflicts, update_or_create takes "
    "the row instead, and the loser's start is refused by the stream version; nothing is applied twice",
}
"""ERROR lines that are not faults: a substring of the line → why it is expected."""
RESULT = ROOT / ".dev" / "faults-test.json"
DUMP = ROOT / ".dev" / "faults-test.dump"


def free_port() -> int:
    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(argv: list[str], timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=check)


@dataclass
class Services:
    """The private PostgreSQL (data directory on a tmpfs of :data:`QUOTA` at ``mount``, its log in ``logs``)
    and redis-server of the test. :meth:`stop` stops both and unmounts, whatever state they are in."""

    base: Path
    pg_port: int = field(default_factory=free_port)
    redis_port: int = field(default_factory=free_port)
    redis: subprocess.Popen[bytes] | None = None
    mounted: bool = False

    @property
    def mount(self) -> Path:
        return self.base / "pgdata-fs"

    @property
    def data(self) -> Path:
        return self.mount / "data"

    @property
    def logs(self) -> Path:
        return self.base / "logs"

    @property
    def database_url(self) -> str:
        return f"postgresql://root@127.0.0.1:{self.pg_port}/{DATABASE}"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def as_postgres(
        self, *argv: str, timeout: float = 120, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        return run(["runuser", "-u", "postgres", "--", *argv], timeout, check)

    def start(self) -> None:
        self.base.chmod(0o755)
        self.mount.mkdir()
        self.logs.mkdir()
        run(["mount", "-t", "tmpfs", "-o", f"size={QUOTA},mode=0755", "tmpfs", str(self.mount)])
        self.mounted = True
        shutil.chown(self.mount, "postgres", "postgres")
        shutil.chown(self.logs, "postgres", "postgres")
        initdb = [str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "root", "--auth=trust", "--no-sync"]
        self.as_postgres(*initdb, "-E", "UTF8")
        self.pg_ctl("start")
        self.start_redis()

    def pg_ctl(self, action: str, *extra: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        options = (
            f"-c port={self.pg_port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.mount} "
            "-c max_connections=300 -c shared_buffers=64MB -c max_wal_size=96MB -c min_wal_size=32MB "
            "-c log_min_messages=warning"
        )
        argv = [str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.logs / "postgresql.log")]
        argv += ["-o", options, "-w", "-t", "60", *extra, action]
        return self.as_postgres(*argv, check=check)

    def pg_running(self) -> bool:
        return self.pg_ctl("status", check=False).returncode == 0

    def start_redis(self) -> None:
        log = open(self.logs / "redis.log", "ab")  # noqa: SIM115 - the child keeps it
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.logs)],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        log.close()
        import redis

        def answers() -> bool:
            with contextlib.suppress(redis.RedisError):
                return bool(redis.Redis(port=self.redis_port).ping())
            return False

        wait(answers, 30, "redis-server to answer", 0.1)

    def kill_redis(self) -> None:
        if self.redis is not None and self.redis.poll() is None:
            self.redis.kill()
            self.redis.wait(10)

    def stop(self) -> None:
        self.kill_redis()
        with contextlib.suppress(Exception):
            if self.data.exists() and self.pg_running():
                self.pg_ctl("stop", "-m", "fast", check=False)
        if self.mounted:
            for _ in range(10):
                if run(["umount", str(self.mount)], check=False).returncode == 0:
                    self.mounted = False
                    break
                time.sleep(1)


@pytest.fixture
def services() -> Iterator[Services]:
    base = Path(tempfile.mkdtemp(prefix="mazziere-faults-"))
    private = Services(base)
    try:
        private.start()
        yield private
    finally:
        private.stop()
        if not private.mounted:  # the logs stay (postgresql.log, redis.log)
            shutil.rmtree(private.mount, ignore_errors=True)
        print(f"private services' logs: {private.logs}")


@pytest.fixture
def cluster(services: Services, tmp_path: Path) -> Iterator[tuple[Path, Services, Path]]:
    state = tmp_path / "state.json"
    argv = [str(ROOT / "deploy" / "local-cluster"), "--fresh", "--database-url", services.database_url]
    argv += ["--redis-url", services.redis_url, "--port", str(PORT), "--first-port", str(PORT)]
    argv += ["--state", str(state), "--logs", str(tmp_path / "logs")]
    out = open(tmp_path / "local-cluster.out", "wb")  # noqa: SIM115
    process = subprocess.Popen(argv, cwd=ROOT, env=clean_environment(), stdout=out, stderr=subprocess.STDOUT)
    try:
        wait(lambda: state.exists() or process.poll() is not None, 180, "the cluster to start")
        assert process.poll() is None, (tmp_path / "local-cluster.out").read_text()
        yield state, services, tmp_path
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(40)
        except subprocess.TimeoutExpired:
            process.kill()
        out.close()


SETUP = """
import hashlib, json
from django.contrib.auth.models import Group, User
from cashier import cash_tables, service
from engine.core import find_game
from engine.tournament.structure import forced_at
from tables import access
from tournaments import mtt, simulation
watcher, _ = User.objects.get_or_create(username={watcher!r})
watcher.set_password({password!r}); watcher.save()
watcher.groups.add(Group.objects.get_or_create(name=access.DIRECTOR)[0])
human, _ = User.objects.get_or_create(username={human!r})
human.set_password({human_password!r}); human.save()
human.groups.add(Group.objects.get_or_create(name=access.PLAYER)[0])
service.grant(human, 10_000, "faults test", "faults-test")
names = simulation.bots({players}, "f23")
config = simulation.config_for({players}, 23, True, 6, level_ms={level_ms}, rotation={rotation!r})
tournament_id = mtt.create(config, "faults-test")
for name in names:
    mtt.register(tournament_id, name, actor="faults-test")
cash = []
for number, code in enumerate({cash_games!r}, start=1):
    table = cash_tables.open_cash_table(name=f"Faults {{number}} {{code}}", game=code,
        stakes=forced_at(find_game(code), 10, 1), seats=6, min_buy_in=500, max_buy_in=1000,
        actor="faults-test")
    cash_tables.seat_bots(table, {cash_bots}, "faults-test")
    cash.append(table)
mtt.start(tournament_id, "faults-test", seed=hashlib.sha256(b"mazziere-faults-23").digest())
print(json.dumps({{"tournament_id": tournament_id, "cash_tables": cash}}))
"""

HUMAN_TABLE = """
import json
from django.contrib.auth.models import User
from cashier import cash_tables, service
table = cash_tables.open_cash_table(name="Faults socket", game="NT", stakes="5/10", seats=3, min_buy_in=500,
    max_buy_in=1000, action_time_ms=120_000, actor="faults-test")
service.buy_in(User.objects.get(username={human!r}), table, 0, 1000)
cash_tables.seat_bots(table, 2, "faults-test")
print(json.dumps({{"table_id": table}}))
"""

CLOSE_CASH = """
import json
from cashier import cash_tables
from cashier.models import CashTable
print(json.dumps({t.table_id: cash_tables.close_cash_table(t.table_id, "faults-test")
    for t in CashTable.objects.filter(status="open")}))
"""

TOURNAMENT_CHECKS = """
import json
from tournaments import mtt, simulation
_, state, _ = mtt.load({tournament_id})
print(json.dumps({{
    "finished": state.status.value == "finished",
    "chips_conserved": simulation.chips_conserved({tournament_id}),
    "prizes_sum_to_pool": sum(prize for *_, prize in state.finished) == state.prize_pool,
    "every_player_placed_once": simulation.placed_once(state),
    "players": len(state.entries),
}}))
"""


def shell(env: dict[str, str], code: str) -> Any:
    """Run ``code`` in ``manage.py shell`` with the cluster's environment; its last line of output, JSON."""
    done = manage(env, "shell", "-c", code, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


class Database:
    """The test's own connection to the private database, opened again after a restart or a failure."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.conn: Any = None

    def query(self, sql: str, params: Any = None) -> list[Any]:
        import psycopg

        for attempt in range(3):
            try:
                if self.conn is None or self.conn.closed:
                    self.conn = psycopg.connect(self.url, autocommit=True, connect_timeout=5)
                return list(self.conn.execute(sql, params).fetchall())
            except psycopg.Error:
                with contextlib.suppress(Exception):
                    self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
                time.sleep(1)
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            with contextlib.suppress(Exception):
                self.conn.close()


@dataclass
class Fault:
    """One fault of the run: its name, when it was injected (epoch s), the tables in a hand then, how long
    each took to end a hand and to append an event after it (s), and what the logs said meanwhile."""

    name: str
    at: float = 0.0
    playing: list[int] = field(default_factory=list)
    recovery_s: float | None = None
    first_event_s: float | None = None
    per_table_s: dict[int, float] = field(default_factory=dict)
    window_end: float = 0.0
    notes: list[str] = field(default_factory=list)
    errors: dict[str, list[str]] = field(default_factory=dict)
    respawns: dict[str, int] = field(default_factory=dict)

    def figures(self) -> dict[str, Any]:
        return {
            "fault": self.name,
            "tables_in_a_hand": len(self.playing),
            "recovery_s": self.recovery_s,
            "first_event_s": self.first_event_s,
            "slowest_tables_s": dict(sorted(self.per_table_s.items(), key=lambda kv: -kv[1])[:3]),
            "respawns": self.respawns,
            "notes": self.notes,
            "error_lines": {name: len(lines) for name, lines in self.errors.items()},
            "errors": {name: lines[:6] for name, lines in self.errors.items()},
        }


class Logs:
    """The processes' log files: what each gained since the last :meth:`mark`."""

    def __init__(self, directories: list[Path]) -> None:
        self.directories = directories
        self.offsets: dict[Path, int] = {}

    def files(self) -> list[Path]:
        return sorted(p for d in self.directories for p in d.glob("*.log"))

    def mark(self) -> None:
        self.offsets = {p: p.stat().st_size for p in self.files()}

    def since_mark(self) -> dict[str, str]:
        gained = {}
        for path in self.files():
            with open(path, "rb") as handle:
                handle.seek(self.offsets.get(path, 0))
                text = handle.read().decode(errors="replace")
            if text:
                gained[path.name] = text
        self.offsets = {p: p.stat().st_size for p in self.files()}
        return gained


def errors_in(texts: dict[str, str]) -> dict[str, list[str]]:
    found = {}
    for name, text in texts.items():
        if name == "nginx-access.log":
            continue
        lines = [
            line[:300]
            for line in text.splitlines()
            if ERROR_RE.search(line) and not any(known in line for known in EXPLAINED)
        ]
        if lines:
            found[name] = lines
    return found


def respawns_in(texts: dict[str, str]) -> dict[str, int]:
    counts = {name: text.count("starting it again") for name, text in texts.items()}
    return {name: count for name, count in counts.items() if count}


def playing_tables(db: Database) -> list[int]:
    rows = db.query("SELECT id FROM tables_table WHERE status = 'playing' ORDER BY id")
    return [row[0] for row in rows]


def measure(db: Database, fault: Fault) -> bool:
    """Fill ``fault``'s recovery figures; ``True`` once every table in a hand at the fault ended a hand."""
    if not fault.playing:
        fault.recovery_s = fault.first_event_s = 0.0
        return True
    streams = [f"table-{t}" for t in fault.playing]
    rows = db.query(
        "SELECT stream_id, min(extract(epoch FROM recorded_at)) FILTER (WHERE type = 'HandEnded'), "
        "min(extract(epoch FROM recorded_at)) FROM eventstore_event "
        "WHERE stream_id = ANY(%s) AND recorded_at > to_timestamp(%s) GROUP BY stream_id",
        [streams, fault.at],
    )
    ended = {int(s.removeprefix("table-")): float(e) - fault.at for s, e, _ in rows if e is not None}
    first = [float(f) - fault.at for _, _, f in rows if f is not None]
    fault.per_table_s = {t: round(s, 2) for t, s in ended.items()}
    if len(ended) < len(fault.playing):
        return False
    fault.recovery_s = round(max(ended.values()), 2)
    fault.first_event_s = round(max(first), 2)
    return True


def kill_process(state_path: Path, name: str, fault: Fault) -> None:
    state = read_state(state_path)
    pid = state["processes"][name]["pid"]
    assert alive(pid), (name, pid)
    fault.at = time.time()
    os.kill(pid, signal.SIGKILL)
    fault.notes.append(f"SIGKILL {name} (pid {pid})")
    wait(
        lambda: (p := read_state(state_path)["processes"][name]["pid"]) not in (None, pid) and alive(p),
        60,
        f"{name} to be started again",
    )
    fault.notes.append(f"{name} started again after {time.time() - fault.at:.1f} s")


def restart_postgres(services: Services, mode: str, fault: Fault) -> None:
    fault.at = time.time()
    done = services.pg_ctl("restart", "-m", mode, check=False)
    fault.notes.append(
        f"pg_ctl restart -m {mode}: exit {done.returncode} after {time.time() - fault.at:.1f} s"
    )


def restart_redis(services: Services, fault: Fault) -> None:
    fault.at = time.time()
    services.kill_redis()
    services.start_redis()
    fault.notes.append(f"redis-server SIGKILL, a fresh one up after {time.time() - fault.at:.1f} s")


def fill_disk(services: Services, db: Database, fault: Fault) -> None:
    """Fill the tmpfs with a file until ENOSPC, hold :data:`DISK_FULL_HOLD_S`, delete it; start PostgreSQL
    again if it stopped (as its supervisor would)."""
    filler = services.mount / "filler"
    chunk = b"\0" * 2**20
    fault.at = time.time()
    written = 0
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(chunk)
                written += 1
        except OSError as error:
            assert error.errno == errno.ENOSPC, error
    fault.notes.append(f"filled the tmpfs with {written} MB")
    held = time.time()
    failed_writes = 0
    while time.time() - held < DISK_FULL_HOLD_S:
        with contextlib.suppress(Exception):  # the server's state while full
            failed_writes = len(
                db.query(
                    "SELECT 1 FROM eventstore_event WHERE recorded_at > to_timestamp(%s) LIMIT 1", [held]
                )
            )
        time.sleep(1)
    fault.notes.append(f"events recorded during the hold: {'some' if failed_writes else 'none'}")
    filler.unlink()
    fault.notes.append(f"deleted after {time.time() - fault.at:.1f} s")
    time.sleep(3)
    if not services.pg_running():
        fault.notes.append("PostgreSQL had stopped: started again by the test")
        services.pg_ctl("start", check=False)


def resend_on_a_new_socket(base: str, env: dict[str, str], db: Database, fault: Fault) -> dict[str, Any]:
    """A human at a fresh cash table (:data:`HUMAN_TABLE`): on their turn, an action frame sent on a socket
    closed before any answer, then the same frame on a new socket. Returns what was seen."""
    import asyncio

    from websockets.asyncio.client import connect

    table_id = shell(env, HUMAN_TABLE.format(human=HUMAN))["table_id"]
    cookie = login(base, HUMAN, HUMAN_PASSWORD)

    def my_turn() -> int | None:
        rows = db.query(
            "SELECT version, to_act, seats FROM tables_table WHERE id = %s AND status = 'playing'", [table_id]
        )
        if rows and rows[0][1] is not None and (rows[0][2][rows[0][1]] or {}).get("player") == HUMAN:
            return int(rows[0][0])
        return None

    version = wait(my_turn, 120, "the human's turn")
    command_id = str(uuid.uuid4())
    frame = json.dumps({"action": "fold", "expected_version": version, "command_id": command_id})
    url = base.replace("http", "ws", 1) + f"/ws/tables/{table_id}/"
    seen: dict[str, Any] = {"table_id": table_id, "version": version, "command_id": command_id}

    async def drop_then_resend() -> None:
        async with connect(url, origin=base, additional_headers={"Cookie": cookie}, max_size=None) as ws:
            await ws.recv()  # the whole table
            fault.at = time.time()
            await ws.send(frame)
            await asyncio.sleep(0.02)
            ws.transport.abort()  # dropped before the answer is read
        async with connect(url, origin=base, additional_headers={"Cookie": cookie}, max_size=None) as ws:
            first = await ws.recv()
            found = VERSION_RE.search(first if isinstance(first, str) else first.decode())
            seen["version_on_reconnect"] = int(found.group(1)) if found else None
            await ws.send(frame)
            answers = []
            with contextlib.suppress(TimeoutError):
                while True:
                    message = await asyncio.wait_for(ws.recv(), 3)
                    answers.append(message if isinstance(message, str) else message.decode())
            seen["answer_is_refusal"] = any('id="messages"' in a and "error" in a for a in answers)
            seen["answers"] = len(answers)

    asyncio.run(drop_then_resend())
    rows = db.query(
        "SELECT count(DISTINCT tx_id::text), count(*) FROM eventstore_event "
        "WHERE metadata->>'command_id' = %s",
        [command_id],
    )
    seen["transactions_with_the_command"], seen["events_with_the_command"] = rows[0]
    claimed = db.query("SELECT count(*) FROM eventstore_processedcommand WHERE command_id = %s", [command_id])
    seen["processed_command_rows"] = claimed[0][0]
    fault.playing = [table_id]
    fault.notes.append(
        f"fold at v{version} sent then dropped; reconnect saw v{seen['version_on_reconnect']}; resent: "
        f"{'refused' if seen['answer_is_refusal'] else 'answered'}; the command in "
        f"{seen['transactions_with_the_command']} transaction(s)"
    )
    return seen


def test_faults_under_load(cluster: tuple[Path, Services, Path]) -> None:
    state_path, services, _ = cluster
    state = read_state(state_path)
    base = state["url"]
    env = {**clean_environment(), **state["environment"]}
    env["SECRET_KEY"] = os.environ.get("SECRET_KEY") or (ROOT / ".dev" / "secret_key").read_text().strip()
    db = Database(state["database_url"])
    logs = Logs([Path(state["logs"]), services.logs])
    started = time.time()
    made = shell(
        env,
        SETUP.format(watcher=WATCHER, password=PASSWORD, human=HUMAN, human_password=HUMAN_PASSWORD,
                     players=PLAYERS, level_ms=LEVEL_SECONDS * 1000, rotation=ROTATION, cash_games=CASH_GAMES,
                     cash_bots=CASH_BOTS),
    )  # fmt: skip
    tournament_id = made["tournament_id"]
    expected = -(-PLAYERS // 6)

    def tournament_tables() -> list[int]:
        rows = db.query("SELECT id FROM tables_table WHERE tournament_id = %s ORDER BY id", [tournament_id])
        return [r[0] for r in rows] if len(rows) >= expected else []

    table_ids = wait(tournament_tables, 120, "the tournament's tables") + made["cash_tables"]
    watchers = Watchers(base, login(base), table_ids, per_table=1)
    watchers.start()
    faults: list[Fault] = []
    outside: dict[str, list[str]] = {}
    socket_seen: dict[str, Any] = {}
    try:
        wait(lambda: all(s.seen for s in watchers.sockets), 60, "every socket's first fragment")
        time.sleep(15)  # some play before the first fault
        for name in FAULTS:
            for log, lines in errors_in(logs.since_mark()).items():
                outside.setdefault(log, []).extend(lines)
            fault = Fault(name)
            fault.playing = playing_tables(db)
            if name in ("worker", "timekeeper", "subscribers"):
                kill_process(state_path, "worker-1" if name == "worker" else name, fault)
            elif name == "web":
                owners = Counter(s.upstreams[-1] for s in watchers.sockets if s.upstreams)
                port = int(owners.most_common(1)[0][0].rsplit(":", 1)[1])
                web = next(
                    p["name"] for p in read_state(state_path)["processes"].values() if p["port"] == port
                )
                kill_process(state_path, web, fault)
            elif name.startswith("postgres-"):
                restart_postgres(services, name.removeprefix("postgres-"), fault)
            elif name == "redis":
                restart_redis(services, fault)
            elif name == "disk-full":
                fill_disk(services, db, fault)
            elif name == "socket-resend":
                socket_seen = resend_on_a_new_socket(base, env, db, fault)
            faults.append(fault)
            try:
                wait(lambda f=fault: measure(db, f), RECOVERY_TIMEOUT_S, f"recovery from {name}", 1.0)
            except AssertionError:
                fault.notes.append(f"NOT RECOVERED within {RECOVERY_TIMEOUT_S:.0f} s: {fault.per_table_s}")
            time.sleep(SETTLE_S)
            texts = logs.since_mark()
            fault.errors = errors_in(texts)
            fault.respawns = respawns_in(texts)
            print(json.dumps(fault.figures(), indent=1), flush=True)
        # the end: the cash tables close after their hands, the tournament plays to its winner
        closing = shell(env, CLOSE_CASH)

        def over() -> bool:
            status = db.query("SELECT status FROM tournaments_tournament WHERE id = %s", [tournament_id])
            left = db.query("SELECT count(*) FROM cashier_cashtable WHERE status <> 'closed'")
            return status[0][0] == "finished" and left[0][0] == 0

        wait(over, 900, "the tournament's end and the cash tables closed", 2.0)
        ended = time.time()
        time.sleep(3)  # the last broadcasts
        figures = process_figures(read_state(state_path))
    finally:
        watchers.stop()
    for log, lines in errors_in(logs.since_mark()).items():
        outside.setdefault(log, []).extend(lines)

    checks = log_checks(state["database_url"])
    tournament = shell(env, TOURNAMENT_CHECKS.format(tournament_id=tournament_id))
    verify_started = time.monotonic()
    verified = manage(env, "verify_all", timeout=900)
    verify_s = time.monotonic() - verify_started
    # the log, for a look at whatever failed (pg_restore it into a database of the machine's PostgreSQL)
    run([str(PG_BIN / "pg_dump"), "-Fc", "-f", str(DUMP), state["database_url"]], timeout=300, check=False)
    stale_sockets = {
        s.table_id: (s.last_version(), checks["last_version"].get(s.table_id))
        for s in watchers.sockets
        if s.last_version() != checks["last_version"].get(s.table_id)
    }
    result = {
        "players": PLAYERS,
        "rotation": list(ROTATION),
        "cash_tables": made["cash_tables"],
        "closing": closing,
        "tables": len(table_ids),
        "play_s": round(ended - started, 1),
        "faults": [f.figures() for f in faults],
        "socket_resend": socket_seen,
        "hands": checks["hands"],
        "table_events": checks["table_events"],
        "turns_checked": checks["turns_checked"],
        "turns_not_ended_by_exactly_one_transaction": checks["turns_not_ended_by_exactly_one_transaction"],
        "command_ids": checks["command_ids"],
        "command_ids_in_two_transactions": checks["command_ids_in_two_transactions"],
        "tables_with_unended_hands": checks["tables_with_unended_hands"],
        "tournament": tournament,
        "verify_all_ok": verified.returncode == 0,
        "verify_all_s": round(verify_s, 1),
        "verify_all_tail": (verified.stdout + verified.stderr)[-1500:],
        "sockets_not_at_the_last_version": stale_sockets,
        "socket_connects": sum(len(s.connects) for s in watchers.sockets),
        "errors_outside_the_faults": {log: lines[:10] for log, lines in outside.items()},
        "processes": figures,
        "load_average": os.getloadavg(),
    }
    RESULT.parent.mkdir(exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    db.close()

    assert all(f.recovery_s is not None for f in faults), [f.figures() for f in faults]
    assert checks["turns_not_ended_by_exactly_one_transaction"] == 0, checks
    assert checks["command_ids_in_two_transactions"] == 0, checks
    assert not checks["tables_with_unended_hands"], checks
    assert socket_seen["transactions_with_the_command"] <= 1, socket_seen
    for check in ("finished", "chips_conserved", "prizes_sum_to_pool", "every_player_placed_once"):
        assert tournament[check] is True, (check, tournament)
    assert verified.returncode == 0, result["verify_all_tail"]
    assert not stale_sockets, stale_sockets
    assert not outside, outside
