"""Concurrent writers on real connections: optimistic concurrency, and the commit-order rule of catch-up
readers (a subscriber never skips an event committed after one with a larger ``global_position``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction

from eventstore.models import Checkpoint, Event
from eventstore.store import NewEvent, RecordedEvent, WrongExpectedVersion, append, read_stream, stream_version
from eventstore.subscriptions import Subscription
from tests.eventstore.conftest import all_of, wait_until

Sid = Callable[..., str]
WAIT = 10  # seconds: a bound for every wait, so that a failure never hangs the run


def in_thread(target: Callable[[], Any], errors: list[BaseException]) -> threading.Thread:
    """A thread running ``target`` on its own Django connection (closed at the end); errors are kept."""

    def run() -> None:
        try:
            target()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("expected", [0, 1])
def test_concurrent_appends_exactly_one_wins(sid: Sid, expected: int) -> None:
    s = sid()
    if expected:
        append(s, 0, [NewEvent("Opened", {})])
    writers = 8
    barrier = threading.Barrier(writers, timeout=WAIT)
    results: dict[int, list[RecordedEvent] | WrongExpectedVersion] = {}
    errors: list[BaseException] = []

    def writer(number: int) -> Callable[[], None]:
        def write() -> None:
            with transaction.atomic():
                stream_version(s)  # the connection is open before the race starts
                barrier.wait()
                try:
                    results[number] = append(s, expected, [NewEvent("Won", {"by": number}),
                                                           NewEvent("Won", {"by": number, "second": True})])  # fmt: skip
                except WrongExpectedVersion as error:
                    results[number] = error
                    stream_version(s)  # the loser's transaction is still usable (savepoint)

        return write

    threads = [in_thread(writer(n), errors) for n in range(writers)]
    for thread in threads:
        thread.join(WAIT)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    winners = [n for n, r in results.items() if isinstance(r, list)]
    losers = [r for r in results.values() if isinstance(r, WrongExpectedVersion)]
    assert len(winners) == 1 and len(losers) == writers - 1
    assert all(e.stream_id == s and e.expected == expected for e in losers)
    (winner,) = winners
    stored = read_stream(s, expected)
    assert [(e.version, e.data) for e in stored] == [
        (expected + 1, {"by": winner}),
        (expected + 2, {"by": winner, "second": True}),
    ]
    assert stored == results[winner]
    assert Event.objects.filter(stream_id=s).count() == expected + 2


@pytest.mark.django_db(transaction=True)
def test_subscriber_never_skips_an_event_committed_out_of_order(sid: Sid) -> None:
    early, late = sid("early"), sid("late")
    mine = {early, late}
    handled: list[RecordedEvent] = []
    subscription = Subscription(f"test-order-{early}", lambda batch: handled.extend(e for e in batch if e.stream_id in mine))
    subscription.catch_up()  # the checkpoint is past whatever the database already holds
    errors: list[BaseException] = []
    t1_appended, t1_release = threading.Event(), threading.Event()
    t1_events: list[RecordedEvent] = []

    def t1() -> None:  # appends first (smaller global_position), commits last
        with transaction.atomic():
            t1_events.extend(append(early, 0, [NewEvent("First", {})]))
            t1_appended.set()
            assert t1_release.wait(WAIT)

    def t2() -> None:
        with transaction.atomic():
            append(late, 0, [NewEvent("Second", {})])

    first = in_thread(t1, errors)
    try:
        assert t1_appended.wait(WAIT)
        second = in_thread(t2, errors)
        second.join(WAIT)
        assert not second.is_alive() and errors == []
        # T2 is committed and visible to plain reads, T1 is not...
        assert [e.type for e in read_stream(late)] == ["Second"] and read_stream(early) == []
        # ...but neither a catch-up reader nor read_all hand it out while the older T1 may still commit
        subscription.catch_up()
        assert handled == []
        assert all_of(mine) == []
        checkpoint = Checkpoint.objects.get(name=subscription.name)
        assert (checkpoint.tx_id, checkpoint.global_position) < (t1_events[0].tx_id, t1_events[0].global_position)
    finally:
        t1_release.set()
        first.join(WAIT)
    assert not first.is_alive() and errors == []

    def both_handled() -> bool:
        subscription.catch_up()
        return len(handled) >= 2

    wait_until(both_handled, WAIT, "both events handled")
    assert [(e.stream_id, e.type) for e in handled] == [(early, "First"), (late, "Second")]
    a, b = handled
    assert a.global_position < b.global_position and a.tx_id < b.tx_id  # T1 got the older transaction id
    assert [e.event_id for e in all_of(mine)] == [a.event_id, b.event_id]  # commit-safe order
    subscription.catch_up()
    assert len(handled) == 2  # each exactly once
    checkpoint = Checkpoint.objects.get(name=subscription.name)
    assert (checkpoint.tx_id, checkpoint.global_position) >= (b.tx_id, b.global_position)


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicates_of_one_command_append_once(sid: Sid) -> None:
    """Two deliveries of one command id racing each other: never two appends, one recorded command."""
    from engine.italian.model import TableConfig
    from eventstore.models import ProcessedCommand
    from tables import service
    from tests.eventstore.test_tables import respond, start, to_act

    table = service.open_table("t", TableConfig(seats=3), [(0, "a", 100), (1, "b", 100), (2, "c", 100)])
    service.handle(table.table_id, start(3))
    player, action = to_act(table.table_id)
    stream = service.stream_id(table.table_id)
    before = stream_version(stream)
    command_id = "8c0e7d6e-4a1c-4f57-9d35-3f9c2b6a0c11"
    barrier = threading.Barrier(2, timeout=WAIT)
    outcomes: list[Any] = []
    errors: list[BaseException] = []

    def deliver() -> None:
        barrier.wait()
        try:
            outcomes.append(service.act(table.table_id, player, action, command_id=command_id, respond=respond))
        except Exception as error:  # noqa: BLE001 - what the second delivery gets is checked below
            outcomes.append(error)

    threads = [in_thread(deliver, errors) for _ in range(2)]
    for thread in threads:
        thread.join(WAIT)
    assert not any(t.is_alive() for t in threads) and errors == []
    applied = [o for o in outcomes if isinstance(o, service.Outcome) and not o.replayed]
    assert len(applied) == 1, outcomes
    after = stream_version(stream)
    assert applied[0].response == {"version": after}
    assert {e.metadata.get("command_id") for e in read_stream(stream, before)} == {command_id}
    assert ProcessedCommand.objects.filter(command_id=command_id).count() == 1
    (other,) = [o for o in outcomes if o is not applied[0]]
    # the second delivery: the replayed response, or (it raced the first one's commit) a refusal
    assert (isinstance(other, service.Outcome) and other.replayed and other.response == applied[0].response) or (
        isinstance(other, Exception)
    ), other
