"""This process's window of each table's recent events (issue 22: ``tables.service.keep_recent`` /
``recent``): what sockets render their updates from without reading the log."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from eventstore.store import RecordedEvent
from tables import service


def events(first: int, last: int, table: int = 7) -> list[RecordedEvent]:
    return [
        RecordedEvent(0, service.stream_id(table), v, "Checked", 1, {"seat": v % 4}, {})
        for v in range(first, last + 1)
    ]


@pytest.fixture(autouse=True)
def empty() -> Iterator[None]:
    service.forget_cache()
    yield
    service.forget_cache()


def versions(found: list[RecordedEvent] | None) -> list[int] | None:
    return None if found is None else [e.version for e in found]


def test_consecutive_batches_make_one_window() -> None:
    service.keep_recent(7, events(1, 5))
    service.keep_recent(7, events(4, 9))  # overlapping: only 6..9 are new
    service.keep_recent(7, events(10, 10))
    assert versions(service.recent(7, 0, 10)) == list(range(1, 11))
    assert versions(service.recent(7, 3, 6)) == [4, 5, 6]
    assert versions(service.recent(7, 10, 10)) == []


def test_what_the_window_does_not_hold_is_none() -> None:
    service.keep_recent(7, events(20, 30))
    assert service.recent(7, 10, 30) is None  # 11..19 were never seen
    assert service.recent(7, 25, 31) is None  # 31 not yet
    assert service.recent(8, 0, 1) is None  # another table
    assert versions(service.recent(7, 19, 30)) == list(range(20, 31))


def test_a_gap_starts_the_window_again_and_a_late_batch_changes_nothing() -> None:
    service.keep_recent(7, events(1, 5))
    service.keep_recent(7, events(9, 12))  # 6..8 missed (another process appended them)
    assert service.recent(7, 0, 12) is None
    assert versions(service.recent(7, 8, 12)) == [9, 10, 11, 12]
    service.keep_recent(7, events(3, 11))  # an older batch arriving late
    assert versions(service.recent(7, 8, 12)) == [9, 10, 11, 12]


def test_the_window_keeps_the_last_events_only() -> None:
    service.keep_recent(7, events(1, service.RECENT_SIZE + 50))
    last = service.RECENT_SIZE + 50
    assert service.recent(7, 0, last) is None
    assert versions(service.recent(7, 50, last)) == list(range(51, last + 1))


def test_forget_cache_empties_it() -> None:
    service.keep_recent(7, events(1, 3))
    service.forget_cache()
    assert service.recent(7, 0, 3) is None


def test_a_commands_events_extend_a_window_but_start_none() -> None:
    """A worker's or the process manager's commands keep no window (they render nothing: no memory spent);
    in a web process the table has one from its sockets' updates, and the process's own appends extend it."""
    service.keep_recent(7, events(1, 3), start=False)
    assert service.recent(7, 0, 3) is None
    service.keep_recent(7, events(1, 3))
    service.keep_recent(7, events(4, 5), start=False)
    assert versions(service.recent(7, 0, 5)) == [1, 2, 3, 4, 5]
