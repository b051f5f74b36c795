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
``MAZZIERE_FAULTS_TEST=1``. The load, the measures and the end checks are
:func:`tests.deploy.cluster_tools.faults_under_load` (shared with ``make faults-run``,
``tests/deploy/test_faults_run.py``: the same faults on ``make run``'s processes); the injectors are here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.deploy.cluster_tools import (
    ROOT,
    Database,
    Fault,
    Load,
    Logs,
    alive,
    clean_environment,
    faults_under_load,
    free_port,
    process_figures,
    read_state,
    run,
    wait,
)
from tests.deploy.cluster_tools import fill_disk as shared_fill_disk

pytestmark = pytest.mark.skipif(
    os.environ.get("MAZZIERE_FAULTS_TEST") != "1",
    reason="the fault test runs with MAZZIERE_FAULTS_TEST=1 (make faults)",
)

PORT = 8120  # nginx; the web processes on 8121-8123 (cluster-test: 8110-8113, make cluster: 8100-8103)
DATABASE = "mazziere_faults"
PG_BIN = Path("/usr/lib/postgresql/15/bin")
QUOTA = "300m"
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
RESULT = ROOT / ".dev" / "faults-test.json"
DUMP = ROOT / ".dev" / "faults-test.dump"


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
def port() -> int:
    """The cluster's nginx port (its web processes on the next three): :data:`PORT`; a test module that
    shares :func:`cluster` overrides this fixture to run beside ``make faults``."""
    return PORT


@pytest.fixture
def cluster(services: Services, tmp_path: Path, port: int) -> Iterator[tuple[Path, Services, Path]]:
    state = tmp_path / "state.json"
    argv = [str(ROOT / "deploy" / "local-cluster"), "--fresh", "--database-url", services.database_url]
    argv += ["--redis-url", services.redis_url, "--port", str(port), "--first-port", str(port)]
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
    start = lambda: services.pg_ctl("start", check=False)  # noqa: E731
    shared_fill_disk(services.mount, db, fault, services.pg_running, start)


def inject(services: Services, state_path: Path, name: str, fault: Fault, load: Load) -> None:
    """Apply the fault ``name`` to the cluster (see the module doc)."""
    if name in ("worker", "timekeeper", "subscribers"):
        kill_process(state_path, "worker-1" if name == "worker" else name, fault)
    elif name == "web":
        owners = Counter(s.upstreams[-1] for s in load.watchers.sockets if s.upstreams)
        port = int(owners.most_common(1)[0][0].rsplit(":", 1)[1])
        web = next(p["name"] for p in read_state(state_path)["processes"].values() if p["port"] == port)
        kill_process(state_path, web, fault)
    elif name.startswith("postgres-"):
        restart_postgres(services, name.removeprefix("postgres-"), fault)
    elif name == "redis":
        restart_redis(services, fault)
    elif name == "disk-full":
        fill_disk(services, load.db, fault)
    else:
        raise AssertionError(f"unknown fault {name}")


def test_faults_under_load(cluster: tuple[Path, Services, Path]) -> None:
    state_path, services, _ = cluster
    state = read_state(state_path)
    env = {**clean_environment(), **state["environment"]}
    env["SECRET_KEY"] = os.environ.get("SECRET_KEY") or (ROOT / ".dev" / "secret_key").read_text().strip()
    faults_under_load(
        base=state["url"],
        env=env,
        database_url=state["database_url"],
        logs=Logs([Path(state["logs"]), services.logs]),
        faults=FAULTS,
        inject=lambda name, fault, load: inject(services, state_path, name, fault, load),
        processes=lambda: process_figures(read_state(state_path)),
        dump=lambda: run(
            [str(PG_BIN / "pg_dump"), "-Fc", "-f", str(DUMP), state["database_url"]], 300, check=False
        ),
        result_path=RESULT,
    )
