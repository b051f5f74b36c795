"""What the loopback cluster tests share (``tests/deploy/test_local_cluster.py``,
``tests/deploy/test_faults.py``): the environment of a cluster started from a test, WebSocket watchers of
tables through nginx (:class:`Watchers`), a login through nginx, waiting, the pids of the state file, the
checks read from the tables' log (:func:`log_checks`) and the processes' CPU and memory
(:func:`process_figures`); and issue 23 §1's run of faults under load (:func:`faults_under_load`: its load,
measures and end checks), shared by ``make faults`` (``tests/deploy/test_faults.py``, the loopback cluster)
and ``make faults-run`` (``tests/deploy/test_faults_run.py``, ``make run``'s processes); the end checks
(:func:`end_checks`) also by ``make soak`` (``tests/deploy/test_soak.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import itertools
import json
import os
import re
import socket as sockets
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACE = {"MAZZIERE_BOT_THINK": "0.2", "MAZZIERE_BOT_THINK_MAX": "0.5", "MAZZIERE_NEXT_HAND_DELAY": "0.5"}
WATCHER, PASSWORD = "cluster-watcher", "cluster-watcher-password-22"
VERSION_RE = re.compile(r'<div id="table"[^>]*?\bdata-version="(\d+)"')


def clean_environment() -> dict[str, str]:
    """This process's environment without what ``config.testing`` set for the test run."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CELERY_QUEUE", "CHANNELS_PREFIX", "CACHE_PREFIX", "DATABASE_URL", "REDIS_URL")
        and not key.startswith("PYTEST")
    }
    return {**env, **PACE}


@dataclass
class Socket:
    """One WebSocket client of a table, through nginx; reopened when closed (as htmx's ws extension)."""

    table_id: int
    upstreams: list[str] = field(default_factory=list)  # the web process of each connection, in order
    connects: list[float] = field(default_factory=list)  # monotonic times
    closes: list[float] = field(default_factory=list)
    seen: list[tuple[float, int, bool]] = field(default_factory=list)  # (time, version, first after connect)
    errors: list[str] = field(default_factory=list)

    def last_version(self, before: float | None = None) -> int:
        versions = [v for t, v, _ in self.seen if before is None or t < before]
        return max(versions, default=0)


class Watchers:
    """The sockets, in an event loop of their own thread."""

    def __init__(self, base: str, cookie: str, table_ids: list[int], per_table: int = 2) -> None:
        self.base, self.cookie = base, cookie
        self.sockets = [Socket(t) for t in table_ids for _ in range(per_table)]
        self.loop = asyncio.new_event_loop()
        self.stopping = False
        self.thread = threading.Thread(target=self.loop.run_forever, name="watchers", daemon=True)

    def start(self) -> None:
        self.thread.start()
        for socket in self.sockets:
            asyncio.run_coroutine_threadsafe(self.watch(socket), self.loop)

    def stop(self) -> None:
        self.stopping = True
        time.sleep(1.5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    async def watch(self, socket: Socket) -> None:
        from websockets.asyncio.client import connect

        url = self.base.replace("http", "ws", 1) + f"/ws/tables/{socket.table_id}/"
        while not self.stopping:
            try:
                async with connect(
                    url, origin=self.base, additional_headers={"Cookie": self.cookie}, max_size=None,
                    open_timeout=20, ping_interval=None,
                ) as ws:  # fmt: skip
                    socket.connects.append(time.monotonic())
                    socket.upstreams.append(ws.response.headers.get("X-Mazziere-Upstream", "?"))
                    first = True
                    while not self.stopping:
                        try:
                            message = await asyncio.wait_for(ws.recv(), 1.0)
                        except TimeoutError:
                            continue
                        text = message if isinstance(message, str) else message.decode()
                        found = VERSION_RE.search(text)
                        if found:
                            socket.seen.append((time.monotonic(), int(found.group(1)), first))
                            first = False
            except Exception as error:  # closed by the server, refused while nginx fails over…
                if self.stopping:
                    return
                socket.errors.append(repr(error)[:200])
            if not self.stopping:
                socket.closes.append(time.monotonic())
                await asyncio.sleep(0.5)


def manage(env: dict[str, str], *argv: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def read_state(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def wait(predicate: Any, timeout: float, what: str, interval: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
            result = predicate()
            if result:
                return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def login(base: str, username: str = WATCHER, password: str = PASSWORD) -> str:
    """Log ``username`` (the watcher) in through nginx (the login form with its CSRF token); the cookie
    header."""
    import httpx

    with httpx.Client(base_url=base, timeout=30, follow_redirects=False) as http:
        page = http.get("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert token, "no CSRF token on the login page"
        answer = http.post(
            "/accounts/login/",
            data={"username": username, "password": password, "csrfmiddlewaretoken": token.group(1)},
        )
        assert answer.status_code == 302 and "sessionid" in http.cookies, f"login: HTTP {answer.status_code}"
        return "; ".join(f"{name}={value}" for name, value in http.cookies.items())


def log_checks(database_url: str) -> dict[str, Any]:
    """From the log of every table: turns (a ``TurnStarted`` followed by its ``TurnStarted`` or ``HandEnded``)
    not ended by exactly one transaction, ``command_id``s in more than one transaction, and the hands started
    and ended per table."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT stream_id, version, type, tx_id::text, metadata->>'command_id' FROM eventstore_event "
            "WHERE stream_id LIKE 'table-%%' ORDER BY stream_id, version"
        ).fetchall()
    turns = double = 0
    commands: dict[str, set[str]] = {}
    unended: dict[str, int] = {}
    last_version: dict[int, int] = {}
    for stream, group in itertools.groupby(rows, key=lambda row: row[0]):
        events = list(group)
        last_version[int(stream.removeprefix("table-"))] = events[-1][1]
        kinds = Counter(kind for _, _, kind, _, _ in events)
        if kinds["HandStarted"] != kinds["HandEnded"]:
            unended[stream] = kinds["HandStarted"] - kinds["HandEnded"]
        for index, (_, _, kind, _, _) in enumerate(events):
            if kind != "TurnStarted":
                continue
            transactions = set()
            for later in events[index + 1 :]:
                transactions.add(later[3])
                if later[2] in ("TurnStarted", "HandEnded"):
                    break
            else:
                continue  # the stream's last turn, not ended
            turns += 1
            double += len(transactions) != 1
        for _, _, _, tx, command_id in events:
            if command_id:
                commands.setdefault(command_id, set()).add(tx)
    return {
        "turns_checked": turns,
        "turns_not_ended_by_exactly_one_transaction": double,
        "command_ids": len(commands),
        "command_ids_in_two_transactions": sum(len(txs) > 1 for txs in commands.values()),
        "tables_with_unended_hands": unended,
        "hands": sum(1 for row in rows if row[2] == "HandEnded"),
        "table_events": len(rows),
        "last_version": last_version,
    }


def process_figures(state: dict[str, Any]) -> dict[str, dict[str, float]]:
    """CPU seconds (user + system, since the process started) and resident memory (MB) of each process of
    the cluster, and its children (nginx's worker)."""
    import psutil

    figures = {}
    for name, entry in state["processes"].items():
        with contextlib.suppress(psutil.Error, TypeError):
            process = psutil.Process(entry["pid"])
            tree = [process, *process.children(recursive=True)]
            cpu = sum(p.cpu_times().user + p.cpu_times().system for p in tree)
            rss = sum(p.memory_info().rss for p in tree)
            figures[name] = {"cpu_s": round(cpu, 1), "rss_mb": round(rss / 2**20, 1)}
    return figures


# ---- issue 23 §1, faults under load: what make faults (test_faults.py) and make faults-run
# ---- (test_faults_run.py) share: the load, the faults' measurement, the end checks

PLAYERS = int(os.environ.get("MAZZIERE_FAULTS_PLAYERS", "36"))
LEVEL_SECONDS = 30
ROTATION = ("PIT", "NT", "F7S", "PO", "F5D", "NTL")
CASH_GAMES = ("NT", "PO", "F7S")
CASH_BOTS = 4
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


def free_port() -> int:
    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(argv: list[str], timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=check)


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

    def __init__(self, directories: list[Path], files: tuple[Path, ...] = ()) -> None:
        self.directories = directories
        self.extra = files  # log files of other names (pgserver's PostgreSQL log is ``log``)
        self.offsets: dict[Path, int] = {}

    def files(self) -> list[Path]:
        found = {p for d in self.directories for p in d.glob("*.log")}
        return sorted(found | {p for p in self.extra if p.exists()})

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


def fill_disk(
    mount: Path,
    db: Database,
    fault: Fault,
    running: Any = None,
    start: Any = None,
    hold_s: float = DISK_FULL_HOLD_S,
) -> None:
    """Fill the file system at ``mount`` (a tmpfs with a quota) with a file until ENOSPC, hold ``hold_s``
    seconds, delete it; then, when ``running()`` says PostgreSQL stopped, ``start()`` it (as its supervisor
    would; ``None``: nothing to do, a supervisor of the stack does it)."""
    filler = mount / "filler"
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
    while time.time() - held < hold_s:
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
    if running is not None and not running():
        fault.notes.append("PostgreSQL had stopped" + (": started again by the test" if start else ""))
        if start is not None:
            start()


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


@dataclass
class EndChecks:
    """The end checks of a run under load (:func:`end_checks`): the tables' log (:func:`log_checks`), each
    tournament's :data:`TOURNAMENT_CHECKS`, ``verify_all`` and the watchers' sockets against the log."""

    log: dict[str, Any]
    tournaments: dict[int, dict[str, Any]]
    verified: subprocess.CompletedProcess[str]
    verify_s: float
    stale_sockets: dict[int, tuple[int | None, int | None]]

    def figures(self) -> dict[str, Any]:
        """The figures a run's result file keeps of the log, ``verify_all`` and the sockets."""
        keys = ("hands", "table_events", "turns_checked", "turns_not_ended_by_exactly_one_transaction",
                "command_ids", "command_ids_in_two_transactions", "tables_with_unended_hands")  # fmt: skip
        return {
            **{key: self.log[key] for key in keys},
            "verify_all_ok": self.verified.returncode == 0,
            "verify_all_s": round(self.verify_s, 1),
            "verify_all_tail": (self.verified.stdout + self.verified.stderr)[-1500:],
            "sockets_not_at_the_last_version": self.stale_sockets,
        }

    def check(self) -> None:
        """Assert them: every turn ended by one transaction, no ``command_id`` twice, every hand ended, each
        tournament finished with its chips conserved, prizes equal to the pool and every player placed once,
        ``verify_all`` clean, every socket at its table's last version."""
        log = self.log
        assert log["turns_not_ended_by_exactly_one_transaction"] == 0, log
        assert log["command_ids_in_two_transactions"] == 0, log
        assert not log["tables_with_unended_hands"], log
        for tournament_id, found in self.tournaments.items():
            for check in ("finished", "chips_conserved", "prizes_sum_to_pool", "every_player_placed_once"):
                assert found[check] is True, (tournament_id, check, found)
        assert self.verified.returncode == 0, self.figures()["verify_all_tail"]
        assert not self.stale_sockets, self.stale_sockets


def end_checks(
    env: dict[str, str],
    database_url: str,
    tournament_ids: list[int],
    sockets: list[Socket],
    dump: Any,
    verify_timeout: float,
) -> EndChecks:
    """The end checks of :func:`faults_under_load` and the soak (``tests/deploy/test_soak.py``), once the load
    is over: :func:`log_checks` on ``database_url``, :data:`TOURNAMENT_CHECKS` of each of ``tournament_ids``
    and ``verify_all`` (``manage.py`` in ``env``, up to ``verify_timeout`` s), then ``dump()`` (a ``pg_dump``
    of the log, for a look at whatever failed), and ``sockets`` compared with their tables' last versions.
    Asserts nothing (:meth:`EndChecks.check` does)."""
    log = log_checks(database_url)
    tournaments = {t: shell(env, TOURNAMENT_CHECKS.format(tournament_id=t)) for t in tournament_ids}
    started = time.monotonic()
    verified = manage(env, "verify_all", timeout=verify_timeout)
    verify_s = time.monotonic() - started
    dump()
    stale = {
        s.table_id: (s.last_version(), log["last_version"].get(s.table_id))
        for s in sockets
        if s.last_version() != log["last_version"].get(s.table_id)
    }
    return EndChecks(log, tournaments, verified, verify_s, stale)


@dataclass
class Load:
    """What a fault injector of :func:`faults_under_load` may need: the service's address, the environment of
    ``manage.py`` on it, the test's connection and the table watchers."""

    base: str
    env: dict[str, str]
    db: Database
    watchers: Watchers


def faults_under_load(
    *,
    base: str,
    env: dict[str, str],
    database_url: str,
    logs: Logs,
    faults: tuple[str, ...],
    inject: Any,
    processes: Any,
    dump: Any,
    result_path: Path,
) -> dict[str, Any]:
    """Issue 23 §1's run on a started service at ``base`` (``env``: ``manage.py``'s environment on it).

    The load (:data:`SETUP`: a bot tournament of :data:`PLAYERS` rotating :data:`ROTATION`, cash tables of
    :data:`CASH_GAMES`) and a WebSocket watcher per table; then each fault of ``faults`` in turn, injected by
    ``inject(name, fault, load)`` (``socket-resend`` is done here: :func:`resend_on_a_new_socket`), its
    recovery measured (:func:`measure`, up to :data:`RECOVERY_TIMEOUT_S` s) and its log lines kept
    (``logs``, up to :data:`SETTLE_S` s after). Afterwards the cash tables are closed, the tournament plays
    to its end, and the end checks: :func:`log_checks`, :data:`TOURNAMENT_CHECKS`, ``verify_all``, sockets at
    the last version, no ERROR outside the faults' windows. ``processes()``: the processes' CPU and memory
    at the end; ``dump()``: called after ``verify_all`` (a ``pg_dump`` of the log). Writes the figures to
    ``result_path``, asserts the checks, returns the figures."""
    db = Database(database_url)
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
    load = Load(base, env, db, watchers)
    done: list[Fault] = []
    outside: dict[str, list[str]] = {}
    socket_seen: dict[str, Any] = {}
    try:
        wait(lambda: all(s.seen for s in watchers.sockets), 60, "every socket's first fragment")
        time.sleep(15)  # some play before the first fault
        for name in faults:
            for log, lines in errors_in(logs.since_mark()).items():
                outside.setdefault(log, []).extend(lines)
            fault = Fault(name)
            fault.playing = playing_tables(db)
            if name == "socket-resend":
                socket_seen = resend_on_a_new_socket(base, env, db, fault)
            else:
                inject(name, fault, load)
            done.append(fault)
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
        figures = processes()
    finally:
        watchers.stop()
    for log, lines in errors_in(logs.since_mark()).items():
        outside.setdefault(log, []).extend(lines)

    end = end_checks(env, database_url, [tournament_id], watchers.sockets, dump, verify_timeout=900)
    result = {
        "players": PLAYERS,
        "rotation": list(ROTATION),
        "cash_tables": made["cash_tables"],
        "closing": closing,
        "tables": len(table_ids),
        "play_s": round(ended - started, 1),
        "faults": [f.figures() for f in done],
        "socket_resend": socket_seen,
        **end.figures(),
        "tournament": end.tournaments[tournament_id],
        "socket_connects": sum(len(s.connects) for s in watchers.sockets),
        "errors_outside_the_faults": {log: lines[:10] for log, lines in outside.items()},
        "processes": figures,
        "load_average": os.getloadavg(),
    }
    result_path.parent.mkdir(exist_ok=True)
    result_path.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    db.close()

    assert all(f.recovery_s is not None for f in done), [f.figures() for f in done]
    if socket_seen:
        assert socket_seen["transactions_with_the_command"] <= 1, socket_seen
    end.check()
    assert not outside, outside
    return result
