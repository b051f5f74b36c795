"""Checkpointed catch-up subscriptions over the global log (``shared/ARCHITECTURE.md``, "Read").

A :class:`Subscription` has a name (its :class:`~eventstore.models.Checkpoint`) and a handler called with
batches of committed events in commit order. :meth:`Subscription.run_once` reads one batch after the
checkpoint, calls the handler and moves the checkpoint in one transaction, so a handler that writes
projections does so exactly once per event; side effects outside PostgreSQL (broadcasts) are at least once.
:func:`run` loops over subscriptions, sleeping on ``LISTEN eventstore`` between batches (NOTIFY only wakes
readers; the checkpoint decides what is read).

**Registry.** The apps that own subscribers register a factory in their ``AppConfig.ready()``
(:func:`register`: ``tables`` its broadcaster, ``tournaments`` its process manager); ``manage.py
run_subscribers`` and the in-process runner (:func:`tables.inprocess.subscribers`) run :func:`registered`, so
the event store imports no app above it.
"""

from __future__ import annotations

import logging
import select
import threading
from collections.abc import Callable, Sequence

import psycopg
from django.db import connection, transaction

from eventstore.models import Checkpoint
from eventstore.store import NOTIFY_CHANNEL, RecordedEvent, read_all

log = logging.getLogger("mazziere.subscriptions")

Handler = Callable[[Sequence[RecordedEvent]], None]


class Subscription:
    """A named reader of the global log. ``handler(events)`` runs inside the checkpoint's transaction."""

    def __init__(self, name: str, handler: Handler, batch_size: int = 500) -> None:
        self.name = name
        self.handler = handler
        self.batch_size = batch_size
        self._position: tuple[int, int] | None = None  # the checkpoint as this object last wrote it

    def run_once(self) -> int:
        """Handle the next batch; returns how many events it handled (0: caught up).

        Whether there is anything to do is first asked without a transaction, from the position this
        object last committed; the batch itself is read again under the checkpoint's row lock."""
        if self._position is not None and not read_all(self._position, 1):
            return 0
        with transaction.atomic():
            checkpoint, _ = Checkpoint.objects.select_for_update().get_or_create(name=self.name)
            events = read_all((checkpoint.tx_id, checkpoint.global_position), self.batch_size)
            if not events:
                self._position = (checkpoint.tx_id, checkpoint.global_position)
                return 0
            self.handler(events)
            last = events[-1]
            checkpoint.tx_id, checkpoint.global_position = last.tx_id, last.global_position
            checkpoint.save(update_fields=["tx_id", "global_position", "updated_at"])
            position = (last.tx_id, last.global_position)
            transaction.on_commit(lambda: setattr(self, "_position", position))
        return len(events)

    def catch_up(self) -> int:
        """Handle batches until caught up; returns the number of events handled."""
        total = 0
        while handled := self.run_once():
            total += handled
        return total

    def reset(self) -> None:
        """Forget the checkpoint: the next run starts from the first event."""
        Checkpoint.objects.filter(name=self.name).delete()
        self._position = None


_FACTORIES: dict[str, Callable[[], Subscription]] = {}


def register(name: str, factory: Callable[[], Subscription]) -> None:
    """Register ``factory`` (a fresh :class:`Subscription` per call) under ``name``; registering a name
    again replaces its factory. Called from an ``AppConfig.ready()``."""
    _FACTORIES[name] = factory


def registered() -> list[Subscription]:
    """A new :class:`Subscription` of every registered factory, in the order they were registered."""
    return [factory() for factory in _FACTORIES.values()]


def _listener() -> psycopg.Connection[tuple[object, ...]]:
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    listener = psycopg.connect(**params, autocommit=True)
    listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
    return listener


def run(
    subscriptions: Sequence[Subscription], stop: threading.Event | None = None, idle: float = 1.0
) -> None:
    """Run ``subscriptions`` until ``stop`` is set: catch up, then wait for a NOTIFY (at most ``idle`` s)."""
    stop = stop or threading.Event()
    listener = _listener()
    try:
        while not stop.is_set():
            busy = False
            for subscription in subscriptions:
                try:
                    busy = subscription.run_once() > 0 or busy
                except Exception:  # a failing handler must not stop the others; it retries next round
                    log.exception("subscription %s failed", subscription.name)
            if busy:
                continue
            select.select([listener.fileno()], [], [], idle)
            for _ in listener.notifies(timeout=0):
                pass
    finally:
        listener.close()
        connection.close()
