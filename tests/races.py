"""The race harness of issue 23 §2 (``tests/test_races.py``, ``make soak-races``; ``docs/reliability.md``,
"Issue 23: races").

:class:`Racers` keeps a few threads, each with its own Django connection to the real PostgreSQL, and runs
one callable per thread released together by a barrier: both sides have loaded the same version before
either appends. :func:`effects` counts what a race did from the event log itself: the distinct
transactions (``tx_id``) that appended to a stream after a version, so one effect is one command applied,
with whatever the dealer, the automatic answers and the seed reveal appended in that same transaction.
:class:`Tally` adds the races up; :func:`report` writes the figures to ``.dev/races-<name>.json``.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from django.db import connection

WAIT = 30.0
"""Seconds: a bound on every wait (a barrier, a thread's answer), so that a hang fails instead of blocking."""

REPO = Path(__file__).resolve().parents[1]


def race_count(default: int) -> int:
    """How many races a test runs: ``MAZZIERE_RACES`` (the soak: 10,000 in all) or ``default`` (``make
    test``)."""
    return int(os.environ.get("MAZZIERE_RACES", default))


class Racers:
    """``size`` threads, each with its own database connection, that run callables together.

    :meth:`race` gives one callable to each thread; each waits at a barrier, then calls it. Returns each
    result, or the exception it raised (never raised here). :meth:`close` ends the threads and closes their
    connections."""

    def __init__(self, size: int = 2) -> None:
        self.size = size
        self._inbox: list[queue.Queue[Callable[[], Any] | None]] = [queue.Queue() for _ in range(size)]
        self._outbox: queue.Queue[tuple[int, Any]] = queue.Queue()
        self._barrier = threading.Barrier(size, timeout=WAIT)
        self._threads = [
            threading.Thread(target=self._loop, args=(i,), daemon=True, name=f"racer-{i}")
            for i in range(size)
        ]
        for thread in self._threads:
            thread.start()

    def _loop(self, index: int) -> None:
        try:
            while (target := self._inbox[index].get()) is not None:
                try:
                    self._barrier.wait()
                    result: Any = target()
                except BaseException as error:  # reported to the caller, who judges it
                    result = error
                self._outbox.put((index, result))
        finally:
            connection.close()

    def race(self, *targets: Callable[[], Any]) -> list[Any]:
        assert len(targets) == self.size, targets
        for inbox, target in zip(self._inbox, targets, strict=True):
            inbox.put(target)
        results: list[Any] = [None] * self.size
        for _ in targets:
            index, result = self._outbox.get(timeout=WAIT)
            results[index] = result
        return results

    def close(self) -> None:
        for inbox in self._inbox:
            inbox.put(None)
        for thread in self._threads:
            thread.join(WAIT)


def effects(stream: str, after: int, but: str = "") -> list[tuple[str, ...]]:
    """The transactions that appended to ``stream`` after version ``after``, in commit order: for each, the
    event types it appended (one tuple per transaction). ``but``: leave out the transactions of this actor
    (``"manager"``: the process manager's follow-ups, e.g. seating a player whose move waited for the
    hand's end)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tx_id::text, array_agg(type ORDER BY version) FROM eventstore_event "
            "WHERE stream_id = %s AND version > %s GROUP BY tx_id "
            "HAVING bool_and(coalesce(metadata->>'actor', '') <> %s) ORDER BY min(version)",
            [stream, after, but],
        )
        return [tuple(types) for _, types in cursor.fetchall()]


@dataclass
class Tally:
    """The figures of one kind of race: ``races``; ``effects`` (transactions appended by the racing
    commands, summed); ``duplicates`` (races where both commands took effect where one may); ``lost``
    (races where none did); ``errors`` (an exception other than the refusal a loser gets, or an unanswered
    frame: what would be a 5xx or a dead socket); ``chips_lost`` (checks of the chips that failed);
    ``outcomes``: how the races ended, by name."""

    name: str
    races: int = 0
    effects: int = 0
    duplicates: int = 0
    lost: int = 0
    errors: int = 0
    chips_checked: int = 0
    chips_lost: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)

    def count(self, outcome: str, applied: int, expected: int = 1, detail: object = "") -> None:
        """One race that ended as ``outcome`` with ``applied`` effects (``expected``: how many it must
        have); ``detail``: what they were, for the samples."""
        self.races += 1
        self.effects += applied
        self.outcomes[outcome] += 1
        if applied > expected:
            self.duplicates += 1
            self.note(f"{outcome}: {applied} effects {detail}")
        elif applied < expected:
            self.lost += 1
            self.note(f"{outcome}: {applied} effects")

    def error(self, what: object) -> None:
        self.errors += 1
        self.note(f"error: {what!r}")

    def logged(self, records: Sequence[logging.LogRecord]) -> None:
        """Count every ERROR the service logged during the races as an error (a race must not log one)."""
        for record in records:
            if record.levelno >= logging.ERROR:
                self.error(f"logged {record.name}: {record.getMessage()}")

    def chips(self, ok: bool, what: str = "") -> None:
        self.chips_checked += 1
        if not ok:
            self.chips_lost += 1
            self.note(f"chips: {what}")

    def note(self, text: str) -> None:
        if len(self.samples) < 20:
            self.samples.append(text[:300])

    @property
    def clean(self) -> bool:
        return not (self.duplicates or self.lost or self.errors or self.chips_lost)


def report(tally: Tally, seconds: float) -> dict[str, Any]:
    """Write the tally (and ``seconds`` of wall time) to ``.dev/races-<name>.json``; print one line."""
    figures = {**asdict(tally), "outcomes": dict(tally.outcomes), "seconds": round(seconds, 1)}
    target = REPO / ".dev" / f"races-{tally.name}.json"
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps(figures, indent=1))
    print(
        f"races {tally.name}: {tally.races} races, {tally.effects} effects, {tally.duplicates} duplicates, "
        f"{tally.lost} lost, {tally.errors} errors, chips {tally.chips_lost} lost of {tally.chips_checked} "
        f"checks, {seconds:.1f} s; {dict(tally.outcomes)}"
    )
    return figures
