"""The loopback cluster of ``deploy/README.md`` (run it as ``deploy/local-cluster``, or ``make cluster``).

Debian's nginx (``deploy/nginx/mazziere.conf``, run as a child with its own prefix under a temporary
directory, not the system service) in front of ``--web`` uvicorn processes (ports ``--first-port`` + 1 …),
``--workers`` Celery workers, the timekeeper and the subscribers, against the machine's PostgreSQL
(``--database`` on 127.0.0.1:5432, user ``root``, created when missing; ``--fresh`` drops it first) and Redis
(127.0.0.1:6379, db ``--redis-db``, flushed at the start). ``--database-url`` and ``--redis-url`` put it on
other servers instead (e.g. a private PostgreSQL and redis-server that a fault test restarts without
disturbing the machine's shared ones, ``tests/deploy/test_faults.py``): the database of the URL is created on
its server when missing (dropped first with ``--fresh``), the Redis database of the URL is flushed;
``--database`` and ``--redis-db`` are then ignored. Each process runs under ``config/respawn.sh``, as
the Procfile's lines do (started again when it dies, as systemd's ``Restart=always`` would).

Migrates and collects the static files first, then starts everything, waits until every web process and
nginx answer, prints the URL and writes the state file (``--state``, JSON: the URL, the database and Redis
URLs, the environment of the processes, and for each process its name, port, the pid of its respawn loop
and the pid of the process itself, and the log files). Ctrl-C, SIGTERM, or nginx dying stops everything
(SIGTERM to each process group, SIGKILL after 10 s) and removes the state file.

The environment of the processes is this one's, plus ``DATABASE_URL``, ``REDIS_URL``, ``DEBUG=false``,
``SECRET_KEY`` (the checkout's development key of ``.dev/secret_key`` when unset), and the prefixes
``CELERY_QUEUE``/``CHANNELS_PREFIX``/``CACHE_PREFIX`` = ``mazziere-cluster``. Set ``MAZZIERE_BOT_THINK``,
``MAZZIERE_NEXT_HAND_DELAY``… before starting it to change the pace of the games.
"""

from __future__ import annotations

import argparse
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
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NGINX_CONF = ROOT / "deploy" / "nginx" / "mazziere.conf"
PREFIX = "mazziere-cluster"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8100, help="nginx's port (8100)")
    parser.add_argument("--first-port", type=int, default=8100, help="web ports are this + 1, + 2, … (8100)")
    parser.add_argument("--web", type=int, default=3, help="web processes (3)")
    parser.add_argument("--workers", type=int, default=2, help="Celery workers (2)")
    parser.add_argument("--concurrency", type=int, default=8, help="threads per Celery worker (8)")
    parser.add_argument("--database", default="mazziere_cluster", help="database name (mazziere_cluster)")
    parser.add_argument("--redis-db", type=int, default=12, help="Redis database number (12)")
    parser.add_argument(
        "--database-url",
        default="",
        help="postgresql://user@host:port/name instead of --database on 127.0.0.1:5432",
    )
    parser.add_argument(
        "--redis-url", default="", help="redis://host:port/db instead of --redis-db on 127.0.0.1:6379"
    )
    parser.add_argument("--fresh", action="store_true", help="drop the database first")
    parser.add_argument("--state", type=Path, default=ROOT / ".dev" / "cluster" / "state.json")
    parser.add_argument("--logs", type=Path, default=None, help="log directory (next to the state file)")
    parser.add_argument("--nginx", default=shutil.which("nginx") or "/usr/sbin/nginx")
    return parser.parse_args(argv)


def say(text: str) -> None:
    print(f"[local-cluster] {text}", flush=True)


def nginx_config(web_ports: list[int], port: int, static: Path, logs: Path, prefix: Path) -> str:
    """``deploy/nginx/mazziere.conf`` with its ``# local-cluster:`` lines replaced, inside a whole
    ``nginx.conf`` of its own (pid, temp paths and logs under ``prefix``/``logs``)."""
    site = NGINX_CONF.read_text()
    servers = "".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;\n" for p in web_ports)
    lines, placed = [], False
    for line in site.splitlines(keepends=True):
        if "# local-cluster: upstream servers" in line:
            if not placed:
                lines.append(servers)
                placed = True
            continue
        if "# local-cluster: listen" in line:
            line = f"    listen 127.0.0.1:{port};\n"
        elif "# local-cluster: access log" in line:
            line = f"    access_log {logs / 'nginx-access.log'} mazziere;\n"
            # which web process answered: the test (and an operator on loopback) reads it
            line += "    add_header X-Mazziere-Upstream $upstream_addr always;\n"
        elif "# local-cluster: static root" in line:
            line = f"        alias {static}/;\n"
        lines.append(line)
    user = "user root;\n" if os.geteuid() == 0 else ""
    temp = "".join(
        f"    {name}_temp_path {prefix / name};\n"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"{user}worker_processes 1;\npid {prefix / 'nginx.pid'};\n"
        f"error_log {logs / 'nginx-error.log'} warn;\n"
        "events { worker_connections 4096; }\n"
        "http {\n"
        "    include /etc/nginx/mime.types;\n    default_type application/octet-stream;\n"
        f"{temp}"
        f"{''.join(lines)}\n}}\n"
    )


class Cluster:
    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.state_path: Path = options.state
        self.logs: Path = options.logs or options.state.parent / "logs"
        self.processes: dict[str, dict[str, Any]] = {}
        self.popen: dict[str, subprocess.Popen[bytes]] = {}
        self.prefix = Path(tempfile.mkdtemp(prefix="mazziere-nginx-"))
        self.env: dict[str, str] = {}
        self.url = f"http://127.0.0.1:{options.port}"

    # --- setup -------------------------------------------------------------------------------------------
    def environment(self) -> dict[str, str]:
        options = self.options
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("CELERY_QUEUE", "CHANNELS_PREFIX", "CACHE_PREFIX", "PYTEST_XDIST_WORKER")
        }
        sys.path.insert(0, str(ROOT))
        from config import devservices  # the checkout's development key, unless SECRET_KEY is set

        devservices.development_secret()
        env.update(
            DATABASE_URL=options.database_url or f"postgresql://root@127.0.0.1:5432/{options.database}",
            REDIS_URL=options.redis_url or f"redis://127.0.0.1:6379/{options.redis_db}",
            SECRET_KEY=os.environ["SECRET_KEY"],
            DEBUG="false",
            CELERY_QUEUE=PREFIX,
            CHANNELS_PREFIX=PREFIX,
            CACHE_PREFIX=PREFIX,
            PYTHONUNBUFFERED="1",
            PATH=f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
        )
        env.setdefault("LOG_LEVEL", "WARNING")
        return env

    def prepare(self) -> None:
        import psycopg
        import redis
        from psycopg.conninfo import conninfo_to_dict, make_conninfo

        options = self.options
        url = self.env["DATABASE_URL"]
        database = conninfo_to_dict(url)["dbname"]
        with psycopg.connect(make_conninfo(url, dbname="postgres"), autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()
            if exists and options.fresh:
                conn.execute(f'DROP DATABASE "{database}" WITH (FORCE)')
                exists = None
            if not exists:
                conn.execute(f'CREATE DATABASE "{database}"')
        client = redis.Redis.from_url(self.env["REDIS_URL"])
        try:
            client.flushdb()  # the broker's queue, the channel layer and the cache of a previous run
        finally:
            client.close()
        for what, argv in (
            ("migrate", ["manage.py", "migrate", "--noinput", "-v0"]),
            ("collectstatic", ["manage.py", "collectstatic", "--noinput", "-v0"]),
        ):
            say(f"{what}…")
            result = subprocess.run(
                [sys.executable, *argv], cwd=ROOT, env=self.env, capture_output=True, text=True
            )
            if result.returncode != 0:
                raise SystemExit(f"{what} failed:\n{result.stdout}\n{result.stderr}")

    # --- processes ----------------------------------------------------------------------------------------
    def spawn(self, name: str, argv: list[str], port: int | None = None, respawn: bool = True) -> None:
        log_path = self.logs / f"{name}.log"
        log = open(log_path, "ab")  # noqa: SIM115 - the child keeps it
        command = ["sh", str(ROOT / "config" / "respawn.sh"), *argv] if respawn else argv
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own group: stopped with everything it started
        )
        log.close()
        self.popen[name] = process
        self.processes[name] = {"name": name, "port": port, "loop_pid": process.pid, "log": str(log_path)}

    def child_pid(self, name: str) -> int | None:
        """The pid of the process a respawn loop runs now (``None`` while it waits to start it again)."""
        loop = self.processes[name]["loop_pid"]
        with contextlib.suppress(OSError):
            children = Path(f"/proc/{loop}/task/{loop}/children").read_text().split()
            for pid in children:
                with contextlib.suppress(OSError):
                    if Path(f"/proc/{pid}/comm").read_text().strip() != "sleep":
                        return int(pid)
        return None

    def start(self) -> None:
        options = self.options
        python = sys.executable
        web_ports = [options.first_port + n for n in range(1, options.web + 1)]
        for n, port in enumerate(web_ports, start=1):
            argv = [python, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
            argv += ["--port", str(port), "--log-level", "warning", "--ws-max-size", "65536"]
            self.spawn(f"web-{n}", argv, port)
        for n in range(1, options.workers + 1):
            argv = [python, "-m", "celery", "-A", "config", "worker", "--pool", "threads"]
            argv += ["--concurrency", str(options.concurrency), "--loglevel", "WARNING"]
            argv += ["-n", f"worker-{n}@%h"]
            self.spawn(f"worker-{n}", argv)
        self.spawn("timekeeper", [python, "manage.py", "run_timekeeper"])
        self.spawn("subscribers", [python, "manage.py", "run_subscribers"])
        for port in web_ports:
            self.wait_http(f"http://127.0.0.1:{port}/accounts/login/", f"web :{port}")
        static = Path(
            subprocess.run(
                [python, "-c", "from django.conf import settings; print(settings.STATIC_ROOT)"],
                cwd=ROOT,
                env={**self.env, "DJANGO_SETTINGS_MODULE": "config.settings"},
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
        (self.prefix / "conf").mkdir()
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
            (self.prefix / name).mkdir()
        conf = self.prefix / "conf" / "nginx.conf"
        conf.write_text(nginx_config(web_ports, options.port, static, self.logs, self.prefix))
        check = subprocess.run(
            [options.nginx, "-t", "-q", "-p", str(self.prefix), "-c", str(conf)],
            capture_output=True,
            text=True,
        )
        if check.returncode != 0:
            raise SystemExit(f"nginx -t failed:\n{check.stderr}")
        self.spawn(
            "nginx",
            [options.nginx, "-p", str(self.prefix), "-c", str(conf), "-g", "daemon off;"],
            options.port,
            respawn=False,
        )
        self.wait_http(f"{self.url}/accounts/login/", "nginx")

    def wait_http(self, url: str, what: str, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self.check_alive()
            with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    return
            if time.monotonic() > deadline:
                raise SystemExit(f"{what} did not answer at {url} within {timeout:.0f} s")
            time.sleep(0.3)

    def check_alive(self) -> None:
        for name, process in self.popen.items():
            if process.poll() is not None:
                raise SystemExit(
                    f"{name} exited with {process.returncode} (log: {self.processes[name]['log']})"
                )

    def write_state(self) -> None:
        for name in self.processes:
            self.processes[name]["pid"] = (
                self.child_pid(name) if name != "nginx" else self.processes[name]["loop_pid"]
            )
        state = {
            "url": self.url,
            "pid": os.getpid(),
            "database_url": self.env["DATABASE_URL"],
            "redis_url": self.env["REDIS_URL"],
            "environment": {
                key: self.env[key]
                for key in self.env
                if key.startswith(("MAZZIERE_", "CELERY_", "CHANNELS_", "CACHE_"))
                or key in ("DATABASE_URL", "REDIS_URL", "DEBUG", "LOG_LEVEL")
            },
            "logs": str(self.logs),
            "nginx_prefix": str(self.prefix),
            "processes": self.processes,
        }
        draft = self.state_path.with_suffix(".tmp")
        draft.write_text(json.dumps(state, indent=2))
        draft.replace(self.state_path)

    def stop(self) -> None:
        for process in self.popen.values():
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for process in self.popen.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(max(0.1, deadline - time.monotonic()))
        for process in self.popen.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(5)
        with contextlib.suppress(FileNotFoundError):
            self.state_path.unlink()
        shutil.rmtree(self.prefix, ignore_errors=True)

    def run(self) -> int:
        self.state_path.parent.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(parents=True, exist_ok=True)
        self.env = self.environment()
        stopping = {"signal": 0}

        def stop_on(signum: int, frame: Any) -> None:
            stopping["signal"] = signum
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, stop_on)
        signal.signal(signal.SIGHUP, stop_on)
        try:
            self.prepare()
            say(f"starting {self.options.web} web, {self.options.workers} workers, timekeeper, subscribers…")
            self.start()
            self.write_state()
            say(f"ready: {self.url}/  (state {self.state_path}, logs {self.logs}; Ctrl-C stops)")
            while True:
                time.sleep(1)
                self.check_alive()
                self.write_state()  # a process started again by its loop has a new pid
        except KeyboardInterrupt:
            say("stopping…")
            return 0
        except SystemExit as error:
            say(f"failed: {error}")
            return 1
        finally:
            self.stop()
            say("stopped")


def main(argv: list[str] | None = None) -> int:
    options = parse(argv)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", options.database):
        raise SystemExit("--database: letters, digits and _ only")
    if options.database_url:
        from psycopg.conninfo import conninfo_to_dict

        name = str(conninfo_to_dict(options.database_url).get("dbname", ""))
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise SystemExit("--database-url: a database name of letters, digits and _ only")
    return Cluster(options).run()


if __name__ == "__main__":
    sys.exit(main())
