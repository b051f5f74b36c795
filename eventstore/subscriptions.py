"""Checkpointed catch-up subscriptions over the global log (``shared/ARCHITECTURE.md``, "Read").

A :class:`Subscription` has a name (its :class:`~eventstore.models.Checkpoint`) and a handler called with
batches of committed events in commit order. :meth:`Subscription.run_once` reads one batch after the
checkpoint, calls the handler and moves the checkpoint in one transaction, so a handler that writes
projections does so exactly once per event; side effects outside PostgreSQL (broadcasts) are at least once.
A subscription made with ``at_least_once=True`` (the broadcaster: it writes nothing in PostgreSQL) takes no
transaction and no lock per batch, and one made with ``wants`` (the tournament process manager) none for a
batch it has nothing to do with: it reads after the position it holds in memory and writes its checkpoint
at most every :data:`SAVE_EVERY` seconds (and when :func:`run` stops), so after a crash it repeats at most
that much, which its handler must tolerate (issue 22: the per-batch transaction was most of the
subscribers' CPU per action).
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
import time
from collections.abc import Callable, Sequence

import psycopg
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from eventstore.backup import check_transaction_ids
from eventstore.models import Checkpoint
from eventstore.store import NOTIFY_CHANNEL, RecordedEvent, read_all

log = logging.getLogger("mazziere.subscriptions")

Handler = Callable[[Sequence[RecordedEvent]], None]
Wants = Callable[[RecordedEvent], bool]
SAVE_EVERY = 1.0
"""Seconds between two lazy checkpoint writes (an ``at_least_once`` subscription's position; a
transactional one's after batches it had nothing to do with)."""


class Subscription:
    """A named reader of the global log. ``handler(events)`` runs inside the checkpoint's transaction,
    or, with ``at_least_once``, outside any (see the module). ``wants(event)``: whether the handler has
    anything to do with an event; a batch of none such is passed over without a transaction (the
    position moves in memory and is written lazily, as an ``at_least_once`` one's: after a crash such a
    batch is read and passed over again, which changes nothing)."""

    def __init__(
        self,
        name: str,
        handler: Handler,
        batch_size: int = 500,
        *,
        at_least_once: bool = False,
        wants: Wants | None = None,
    ) -> None:
        self.name = name
        self.handler = handler
        self.batch_size = batch_size
        self.at_least_once = at_least_once
        self.wants = wants
        self._position: tuple[int, int] | None = None  # how far this object has read (handled or passed)
        self._saved: tuple[int, int] | None = None  # the position in the checkpoint row, as last known
        self._saved_at = 0.0

    def run_once(self) -> int:
        """Handle the next batch; returns how many events it handled or passed over (0: caught up).

        Whether there is anything to do is first asked without a transaction, from the position this
        object holds; the batch itself is read again under the checkpoint's row lock."""
        if self.at_least_once:
            return self._run_at_least_once()
        if self._position is not None:
            probe = read_all(self._position, self.batch_size if self.wants else 1)
            if not probe:
                self.save(force=False)
                return 0
            if self.wants is not None and not any(map(self.wants, probe)):
                self._position = (probe[-1].tx_id, probe[-1].global_position)
                self.save(force=False)
                return len(probe)
        with transaction.atomic():
            checkpoint, _ = Checkpoint.objects.select_for_update().get_or_create(name=self.name)
            events = read_all((checkpoint.tx_id, checkpoint.global_position), self.batch_size)
            if not events:
                self._position = self._saved = (checkpoint.tx_id, checkpoint.global_position)
                return 0
            self.handler(events)
            last = events[-1]
            checkpoint.tx_id, checkpoint.global_position = last.tx_id, last.global_position
            checkpoint.save(update_fields=["tx_id", "global_position", "updated_at"])
            position = (last.tx_id, last.global_position)
            transaction.on_commit(lambda: self._committed(position))
        return len(events)

    def _committed(self, position: tuple[int, int]) -> None:
        self._position = self._saved = position
        self._saved_at = time.monotonic()

    def _run_at_least_once(self) -> int:
        if self._position is None:
            checkpoint, _ = Checkpoint.objects.get_or_create(name=self.name)
            self._committed((checkpoint.tx_id, checkpoint.global_position))
        assert self._position is not None
        events = read_all(self._position, self.batch_size)
        if events:
            self.handler(events)
            self._position = (events[-1].tx_id, events[-1].global_position)
        self.save(force=False)
        return len(events)

    def save(self, force: bool = True) -> None:
        """Write the position this object holds to its checkpoint, if it is ahead of it (unless ``force``,
        at most every :data:`SAVE_EVERY` seconds). The row only ever moves forward (another process of the
        same subscription may be further)."""
        if self._position is None or self._position == self._saved:
            return
        if not force and time.monotonic() - self._saved_at < SAVE_EVERY:
            return
        tx_id, position = self._position
        behind = Q(tx_id__lt=tx_id) | Q(tx_id=tx_id, global_position__lt=position)
        Checkpoint.objects.filter(behind, name=self.name).update(
            tx_id=tx_id, global_position=position, updated_at=timezone.now()
        )
        self._saved, self._saved_at = self._position, time.monotonic()

    def catch_up(self) -> int:
        """Handle batches until caught up; returns the number of events handled."""
        total = 0
        while handled := self.run_once():
            total += handled
        return total

    def reset(self) -> None:
        """Forget the checkpoint: the next run starts from the first event."""
        Checkpoint.objects.filter(name=self.name).delete()
        self._position = self._saved = None


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
    """Run ``subscriptions`` until ``stop`` is set: catch up, then wait for a NOTIFY (at most ``idle`` s).
    Raises :class:`eventstore.backup.LogAheadOfServer` first if the log was restored from a cluster whose
    transaction ids are ahead of this server's (the subscriptions would wait for them)."""
    check_transaction_ids()
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
        for subscription in subscriptions:
            try:
                subscription.save()
            except Exception:
                log.exception("subscription %s: its position could not be saved", subscription.name)
        listener.close()
        connection.close()
