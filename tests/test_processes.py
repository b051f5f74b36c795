"""Issue 15, defects 5 and 13: the process set of ``make run`` (``Procfile``, ``config/respawn.sh``).

The real ``make run`` (migrate, the demo banner, honcho and the four processes) runs on a free port against
this test's database and Redis, with a sit-and-go of bots created by the test. Then:

1. the banner gives the port the web process listens on (``MAZZIERE_PORT``, defect 13);
2. the Celery worker is stopped (``kill -STOP``): the bot table goes on (the timekeeper runs the overdue
   moves itself) and so does the tournament clock;
3. the worker is killed (``kill -9``): the web still answers, a new worker process is started, and it takes
   the tasks queued meanwhile (the queue empties);
4. Ctrl-C (SIGINT to the foreground process group, as a terminal sends it) stops everything: no process
   of the tree is left.

Before, honcho stopped the whole service as soon as one process ended, and the sweep was a Celery task: a
stopped worker froze every bot table and clock.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil
import pytest

from engine.italian.model import Limit
from engine.tournament.sitgo import Level, TournamentConfig
from eventstore.store import read_stream
from tables import service as tables
from tables.inprocess import celery_app, purge_queue
from tests.service_harness import wait_for
from tests.tournaments.test_timekeeper import ACTIONS
from tournaments import service
from tournaments.models import Tournament
from tournaments.views import bots

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def status(url: str) -> int:
    """The HTTP status of a GET (redirects not followed), 0 when nothing answers."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(url, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def tree(root: int) -> list[psutil.Process]:
    """``root`` and all its descendants that are still running."""
    try:
        top = psutil.Process(root)
        return [top, *top.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def worker_pid(root: int) -> int | None:
    """The Celery worker process (not the shells of its Procfile line) under ``root``."""
    for process in tree(root):
        try:
            line = process.cmdline()
        except psutil.Error:
            continue
        if line[:1] != ["sh"] and "celery" in line and "worker" in line and "config/respawn.sh" not in line:
            return process.pid
    return None


def alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def queued(queue: str) -> int:
    with celery_app().connection_for_write() as conn:
        return int(conn.default_channel.client.llen(queue))


def actions(table_id: int) -> int:
    return sum(1 for e in read_stream(tables.stream_id(table_id)) if e.type in ACTIONS)


def level(tournament_id: int) -> int:
    return int(Tournament.objects.get(id=tournament_id).level)


@pytest.mark.slow
@pytest.mark.timers
@pytest.mark.django_db(transaction=True)
def test_make_run_restarts_a_dead_worker_and_keeps_serving(settings: Any, tmp_path: Path) -> None:
    settings.MAZZIERE_NEXT_HAND_DELAY = 0.5  # the first start is queued by this process
    port = free_port()
    database = urlsplit(os.environ["DATABASE_URL"])._replace(path="/" + settings.DATABASES["default"]["NAME"])
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    purge_queue(queue)
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")},
        "DATABASE_URL": database.geturl(),  # this test's database; REDIS_URL, CELERY_QUEUE: this test's
        "MAZZIERE_PORT": str(port),
        "MAZZIERE_BOT_THINK": "0.2",
        "MAZZIERE_NEXT_HAND_DELAY": "0.5",
        "DB_POOL_SIZE": "4",
        "PYTHONUNBUFFERED": "1",
    }
    log_path = tmp_path / "make-run.log"
    log = log_path.open("wb")
    # its own process group, as a terminal's foreground job: Ctrl-C is a SIGINT to that group
    command = ["make", "--no-print-directory", "-o", ".venv/.installed", "run"]  # installed: not again
    make = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)  # fmt: skip

    def output() -> str:
        return "make run's output (last 3000 characters):\n" + log_path.read_text(errors="replace")[-3000:]

    seen: set[int] = set()
    try:
        base = f"http://127.0.0.1:{port}"
        page = base + "/accounts/login/"  # a page every visitor gets (200), rendered by Django
        wait_for(lambda: status(page) == 200 or make.poll() is not None, 60, "the web process",
                 interval=0.3, details=output)  # fmt: skip
        assert make.poll() is None, output()
        # defect 13: the banner gives the address the web process listens on
        assert f"Mazziere is running at {base}/" in log_path.read_text(), output()
        first_worker = wait_for(lambda: worker_pid(make.pid), 30, "the Celery worker", details=output)

        # fixed limit and deep stacks: nobody busts during the test; 1.5 s levels: the clock ticks often
        levels = tuple(Level(10 + 5 * n, 1500) for n in range(40))
        config = TournamentConfig("Processi", seats=4, limit=Limit.FIXED_LIMIT, starting_stack=50_000,
                                  levels=levels)  # fmt: skip
        tournament_id = service.create(config, "direttore", bots(4))  # full: it starts
        table_id = Tournament.objects.get(id=tournament_id).table_id
        wait_for(lambda: actions(table_id) >= 5, 30, "the worker to play the bots' moves", details=output)

        # the worker stops: the timekeeper plays the overdue moves and ticks the clock
        os.kill(first_worker, signal.SIGSTOP)
        stopped_at, moves, clock = time.monotonic(), actions(table_id), level(tournament_id)
        wait_for(lambda: actions(table_id) >= moves + 3 and level(tournament_id) > clock, 40,
                 "the table and the clock to advance with the worker stopped", details=output)  # fmt: skip
        stopped_for = time.monotonic() - stopped_at
        stopped_moves = actions(table_id) - moves
        assert queued(queue) > 0  # the tasks the tables queued meanwhile wait for a worker

        # the worker dies: the others keep serving, it is started again and takes the queued tasks
        seen.update(p.pid for p in tree(make.pid))
        os.kill(first_worker, signal.SIGKILL)
        assert status(page) == 200
        second_worker = wait_for(lambda: (w := worker_pid(make.pid)) not in (None, first_worker) and w, 30,
                                 "a new worker process", details=output)  # fmt: skip
        assert not alive(first_worker)
        assert "exited with status 137: starting it again" in log_path.read_text(), output()
        wait_for(lambda: queued(queue) == 0, 30, "the new worker to take the queued tasks", details=output)
        moves = actions(table_id)
        wait_for(lambda: actions(table_id) >= moves + 3, 30, "the table to go on", details=output)
        assert status(page) == 200
        assert alive(second_worker)
    finally:
        seen.update(p.pid for p in tree(make.pid))
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGINT)  # Ctrl-C
        try:
            make.wait(30)
        except subprocess.TimeoutExpired:
            for process in tree(make.pid):
                process.kill()
            make.wait(10)
            raise AssertionError("make run did not stop on Ctrl-C\n" + output()) from None
        finally:
            log.close()
    # Ctrl-C stopped every process of the tree
    wait_for(lambda: not [pid for pid in seen if alive(pid)], 10, "every process to end",
             details=lambda: str([(p, psutil.Process(p).cmdline()) for p in seen if alive(p)]))  # fmt: skip
    assert "SIGINT received" in log_path.read_text()
    purge_queue(queue)
    rate = 60 * stopped_moves / stopped_for
    print(f"\nworker stopped: {stopped_moves} bot actions in {stopped_for:.1f} s ({rate:.0f} actions/min); "
          f"restarted as pid {second_worker}")  # fmt: skip
