"""The timekeeper: every tenth of a second, the action deadlines that passed; every second, the table timers
that are overdue and the periodic jobs (tournament clocks).

**Deadlines** (issue 22): an action's deadline is not a Celery task queued at every commit (that cost a
message and about 3.5 ms of CPU per action, in the web process and the worker, for a timer that the player's
action almost always made obsolete). It is the ``deadline_ms`` of the table's projection row; every
:data:`DEADLINE_TICK` seconds :class:`Deadlines` reads the tables whose deadline passed
(:func:`tables.timers.expired`, one query) and queues their timeout, once per ``(table, version)``
(again after :data:`REFIRE_MS` if the table has not moved on: a lost message); the sweep below still runs any
that a dead worker lost, in this process.

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
DEADLINE_TICK = 0.1  # seconds between two reads of the deadlines that passed
REFIRE_MS = 2_000  # a fired deadline whose table is still at that version fires again after this

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


class Deadlines:
    """Fires the timeouts of the tables whose action deadline passed (:func:`tables.timers.expired`), each
    ``(table, version)`` once (again after :data:`REFIRE_MS` if the table is still there: the message was
    lost, or the timeout came a moment early by another clock and was refused). Returns how many it fired.
    A failure to queue (the broker is down) runs the timeout here, in this process."""

    def __init__(self) -> None:
        self._fired: dict[tuple[int, int], int] = {}

    def __call__(self, now: int | None = None) -> int:
        now = now or now_ms()
        fired = 0
        expired = timers.expired(now)
        for key in expired:
            last = self._fired.get(key)
            if last is not None and now - last < REFIRE_MS:
                continue
            self._fired[key] = now
            try:
                timers.fire_timeout(*key)
            except Exception:  # the broker is down: run it here (the runner checks the version)
                log.warning("timekeeper: could not queue the timeout of table %s v%s; running it here", *key)
                tasks.run_timeout(*key)
            fired += 1
        if len(self._fired) > len(expired):  # forget the tables that moved on
            current = set(expired)
            self._fired = {key: at for key, at in self._fired.items() if key in current}
        return fired


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
            count = self.part(part, call)
            if count is not None:
                done[part] = count
        return done

    def part(self, name: str, call: Job) -> int | None:
        """Run one part: what it did, or ``None`` when it failed (logged as the class says)."""
        try:
            count = call()
        except Exception:
            self._failed(name)
            return None
        failed = self._failing.pop(name, None)
        if failed is not None:
            log.warning("timekeeper: %s works again after %d failed rounds", name, failed[0])
        return count

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


def run(stop: threading.Event, interval: float = INTERVAL, tick: float = DEADLINE_TICK) -> None:
    """Run rounds every ``interval`` seconds, and the deadlines (:class:`Deadlines`) every ``tick`` seconds
    (at most ``interval``), until ``stop`` is set (a round that takes longer is followed by the next at
    once). Database connections are renewed between rounds as Django does between requests
    (``CONN_MAX_AGE``, broken connections) and closed at the end."""
    round_ = Round()
    deadlines = Deadlines()
    tick = min(tick, interval)
    next_round = time.monotonic()
    try:
        while not stop.is_set():
            began = time.monotonic()
            close_old_connections()
            round_.part("deadlines", deadlines)
            if began >= next_round:
                round_()
                next_round = began + interval
            stop.wait(max(0.0, min(began + tick, next_round) - time.monotonic()))
    finally:
        connection.close()
