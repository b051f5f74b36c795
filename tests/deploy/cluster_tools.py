"""What the loopback cluster tests share (``tests/deploy/test_local_cluster.py``,
``tests/deploy/test_faults.py``): the environment of a cluster started from a test, WebSocket watchers of
tables through nginx (:class:`Watchers`), a login through nginx, waiting, the pids of the state file, the
checks read from the tables' log (:func:`log_checks`) and the processes' CPU and memory
(:func:`process_figures`)."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
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
