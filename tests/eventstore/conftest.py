"""Fixtures of the event store tests: no timers, a clean table cache, helpers for committed reads."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from eventstore.store import RecordedEvent, read_all
from tables import service as tables


@pytest.fixture(autouse=True)
def _no_timers_and_fresh_cache(settings: Any) -> Iterator[None]:
    """No Celery task is queued, and no folded table leaks from one test into another."""
    settings.MAZZIERE_TIMERS = "off"
    tables.forget_cache()
    yield
    tables.forget_cache()


@pytest.fixture
def sid() -> Callable[[str], str]:
    """Unique stream ids (``<kind>-<hex>``) so that tests never read each other's streams."""
    tag = uuid.uuid4().hex[:10]
    return lambda kind="s": f"{kind}-{tag}"


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``predicate`` until it returns something truthy. Committed events only become readable by
    ``read_all`` once every older transaction of the cluster has ended (the xmin rule), and other test
    processes (``-n 2``) share the cluster, so reads of the global log may lag for a moment."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def all_of(stream_ids: set[str]) -> list[RecordedEvent]:
    """Every event of ``stream_ids`` that ``read_all`` returns now, in its order."""
    found: list[RecordedEvent] = []
    after = (0, 0)
    while batch := read_all(after, 1000):
        found += [e for e in batch if e.stream_id in stream_ids]
        after = (batch[-1].tx_id, batch[-1].global_position)
    return found
