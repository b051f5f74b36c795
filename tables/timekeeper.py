"""The timekeeper: every second, the table timers that are overdue and the periodic jobs (tournament clocks).

The service's timers are Celery tasks queued after each commit (:func:`tables.timers.schedule`). When a task
is lost — the worker died (``kill -9``: the Redis transport gives its unacknowledged messages back only after
``visibility_timeout``, an hour by default), was stopped (``kill -STOP`` holds its prefetched tasks), or the
queue was purged — the table would wait forever. The timekeeper finds such tables from their projection rows
(:func:`tables.timers.due`: a deadline, a bot's move or the next hand more than
:data:`tables.timers.SWEEP_GRACE_MS` late) and runs the same runners (:data:`tables.tasks.RUNNERS`) **in its
own process**, so nothing here depends on the worker. Every runner carries the table's version, so a task the
worker runs later (a restarted worker working through its backlog, a message given back) finds the table
moved on and does nothing; two timekeepers are harmless too.

Other apps register their periodic jobs in ``AppConfig.ready()`` with :func:`register` (``tournaments``: the
level clocks, T-LEVEL-1), which keeps ``tables`` free of imports of ``tournaments``.

Run by ``manage.py run_timekeeper`` (``Procfile``) and, as a thread, by :func:`tables.inprocess.timekeeper`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.db import close_old_connections, connection

from tables import tasks, timers
from tables.service import now_ms

log = logging.getLogger("mazziere.timekeeper")

INTERVAL = 1.0  # seconds between two rounds

Job = Callable[[], int]
_jobs: dict[str, Job] = {}


def register(name: str, job: Job) -> None:
    """Run ``job()`` at every round (it returns how many things it did). ``name``: for the log; registering
    a name again replaces its job."""
    _jobs[name] = job


def jobs() -> dict[str, Job]:
    """The registered periodic jobs, by name."""
    return dict(_jobs)


class SweepFailed(Exception):
    """Some overdue tables could not be handled in a round (the first error is the ``__cause__``)."""


def sweep(now: int | None = None) -> int:
    """Run every overdue timer, bot move and next-hand start (:func:`tables.timers.due`) here, now; returns
    how many acted. A runner that fails does not stop the others; then :class:`SweepFailed` is raised at
    the end (e.g. the broker is down when the next timer is queued: the events are committed, the table goes
    on at the next round), and :class:`Round` logs it without flooding the log."""
    done = 0
    failures: list[Exception] = []
    overdue = timers.due(now)
    for name, table_id, version in overdue:
        try:
            done += tasks.RUNNERS[name](table_id, version)
        except Exception as error:
            failures.append(error)
    if failures:
        raise SweepFailed(
            f"{len(failures)} of {len(overdue)} overdue tables failed ({done} acted); the first error follows"
        ) from failures[0]
    return done


class Round:
    """One round of the timekeeper: each job (they are short: a query, now and then a level to advance), then
    the sweep (as long as there are overdue tables). A part that fails is logged with its traceback the first
    time; while it keeps failing (the database is down) it is logged again once a minute, and its recovery
    once."""

    REPEAT_MS = 60_000

    def __init__(self) -> None:
        self._failing: dict[str, tuple[int, int]] = {}  # part -> (failures in a row, last logged at ms)

    def __call__(self) -> dict[str, int]:
        done: dict[str, int] = {}
        for part, call in [*jobs().items(), ("sweep", sweep)]:
            try:
                done[part] = call()
            except Exception:
                self._failed(part)
                continue
            failed = self._failing.pop(part, None)
            if failed is not None:
                log.warning("timekeeper: %s works again after %d failed rounds", part, failed[0])
        return done

    def _failed(self, part: str) -> None:
        now = now_ms()
        count, logged = self._failing.get(part, (0, 0))
        if count == 0:
            log.exception("timekeeper: %s failed (retried every round)", part)
            logged = now
        elif now - logged >= self.REPEAT_MS:
            log.error("timekeeper: %s still failing (%d rounds)", part, count + 1)
            logged = now
        self._failing[part] = (count + 1, logged)


def run(stop: threading.Event, interval: float = INTERVAL) -> None:
    """Run rounds every ``interval`` seconds until ``stop`` is set (a round that takes longer is followed
    by the next at once). Database connections are renewed between rounds as Django does between requests
    (``CONN_MAX_AGE``, broken connections) and closed at the end."""
    round_ = Round()
    try:
        while not stop.is_set():
            began = time.monotonic()
            close_old_connections()
            round_()
            stop.wait(max(0.0, interval - (time.monotonic() - began)))
    finally:
        connection.close()
