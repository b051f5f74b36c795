"""The service's background parts as threads of one process: a Celery worker, the timekeeper and the
subscribers (what ``make run`` starts as processes, ``Procfile``). Used by ``manage.py simulate_tournament``
and by the tests (``tests/service_harness.py``).

It lives in ``tables``, the lowest layer that has all it runs (the table tasks, the timekeeper); what the
apps above add (the tournament clocks, the process manager) comes in through the registries they fill in
their ``AppConfig.ready()`` (:func:`tables.timekeeper.register`, :func:`eventstore.subscriptions.register`).
The Celery app is the current one (``config.celery``, loaded with the project).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings as django_settings

# --- Celery ------------------------------------------------------------------------------------------------


def celery_app() -> Any:
    """The project's Celery app (``config.celery.app``, created when Django loads the ``config`` package)."""
    from celery import current_app

    return current_app._get_current_object()


def purge_queue(queue: str) -> int:
    """Drop every message waiting in ``queue`` (tasks left by earlier tests); returns how many."""
    app = celery_app()
    with app.connection_for_write() as conn:
        return int(conn.default_channel.queue_purge(queue) or 0)


@contextmanager
def celery_worker(concurrency: int = 4, pool: str = "threads") -> Iterator[Any]:
    """A real Celery worker in a thread, consuming only this test process's queue (purged first)."""
    from celery.contrib.testing.worker import start_worker

    app = celery_app()
    queue = django_settings.CELERY_TASK_DEFAULT_QUEUE
    assert app.conf.task_default_queue == queue, (
        f"the Celery app sends to {app.conf.task_default_queue!r}, the test queue is {queue!r}"
    )
    purge_queue(queue)
    root = logging.getLogger()
    before, level = set(root.handlers), root.level
    with start_worker(
        app,
        pool=pool,
        concurrency=concurrency,
        perform_ping_check=False,
        loglevel="WARNING",
        queues=[queue],
        shutdown_timeout=30.0,
    ) as worker:
        added = [handler for handler in root.handlers if handler not in before]
        try:
            yield worker
        finally:
            # the worker's logging setup replaced the root logger's handlers with its own: drop those, so
            # that the tests after this one do not print every warning twice
            for handler in added:
                root.removeHandler(handler)
            root.setLevel(level)
    # ETA tasks the worker held (timeouts, next hands) went back to the queue at shutdown
    purge_queue(queue)


# --- the timekeeper ----------------------------------------------------------------------------------------


@contextmanager
def timekeeper(interval: float = 0.25) -> Iterator[threading.Thread]:
    """The timekeeper (``manage.py run_timekeeper``, :mod:`tables.timekeeper`) in a thread: every
    ``interval`` seconds the overdue table timers, run in this thread (not through Celery), and the
    tournament clocks."""
    from tables import timekeeper as keeper

    stop = threading.Event()
    failure: list[BaseException] = []

    def target() -> None:
        try:
            keeper.run(stop, interval)
        except BaseException as error:  # reported at teardown
            failure.append(error)

    thread = threading.Thread(target=target, name="timekeeper", daemon=True)
    thread.start()
    try:
        yield thread
    finally:
        stop.set()
        thread.join(30)
        assert not thread.is_alive(), "the timekeeper thread did not stop"
        if failure:
            raise AssertionError(f"the timekeeper stopped with {failure[0]!r}") from failure[0]


# --- subscribers -------------------------------------------------------------------------------------------


@contextmanager
def subscribers(idle: float = 0.2) -> Iterator[threading.Thread]:
    """The subscribers the apps registered (``manage.py run_subscribers``: the broadcaster, the tournament
    process manager; :func:`eventstore.subscriptions.registered`) in a thread."""
    from eventstore.subscriptions import registered, run

    stop = threading.Event()
    failure: list[BaseException] = []

    def target() -> None:
        try:
            run(registered(), stop, idle=idle)
        except BaseException as error:  # reported at teardown
            failure.append(error)

    thread = threading.Thread(target=target, name="subscribers", daemon=True)
    thread.start()
    try:
        yield thread
    finally:
        stop.set()
        thread.join(10)
        assert not thread.is_alive(), "the subscribers thread did not stop"
        if failure:
            raise AssertionError(f"the subscribers stopped with {failure[0]!r}") from failure[0]
