"""Concurrent writers on real connections: optimistic concurrency, and the commit-order rule of catch-up
readers (a subscriber never skips an event committed after one with a larger ``global_position``)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction

from engine.italian.model import TableConfig
from eventstore.models import Checkpoint, Event, ProcessedCommand
from eventstore.store import (
    NewEvent,
    RecordedEvent,
    WrongExpectedVersion,
    append,
    read_stream,
    stream_version,
)
from eventstore.subscriptions import Subscription
from tables import service
from tests.eventstore.helpers import PLAYERS, all_of, respond, start, to_act, wait_until

Sid = Callable[..., str]
WAIT = 10  # seconds: a bound for every wait, so that a failure never hangs the run


def in_thread(
    target: Callable[[], Any], errors: list[BaseException], name: str | None = None
) -> threading.Thread:
    """A thread running ``target`` on its own Django connection (closed at the end); errors are kept."""

    def run() -> None:
        try:
            target()
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True, name=name)
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
                    results[number] = append(
                        s,
                        expected,
                        [NewEvent("Won", {"by": number}), NewEvent("Won", {"by": number, "second": True})],
                    )
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
    subscription = Subscription(
        f"test-order-{early}", lambda batch: handled.extend(e for e in batch if e.stream_id in mine)
    )
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
        assert (checkpoint.tx_id, checkpoint.global_position) < (
            t1_events[0].tx_id,
            t1_events[0].global_position,
        )
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
def test_duplicate_of_a_command_still_in_flight_never_appends_twice(sid: Sid) -> None:
    """A second delivery of a command id while the first is still uncommitted (a client retrying after a
    timeout): one append, one recorded command, and the retry gets the first one's answer."""
    table = service.open_table("t", TableConfig(seats=3), PLAYERS)
    service.handle(table.table_id, start(3))
    player, action = to_act(table.table_id)
    stream = service.stream_id(table.table_id)
    before = stream_version(stream)
    command_id = str(uuid.uuid4())
    first_appended, release_first = threading.Event(), threading.Event()
    outcomes: dict[str, Any] = {}
    errors: list[BaseException] = []

    def slow_response(loaded: service.Loaded) -> dict[str, Any]:  # runs after the append, before commit
        first_appended.set()
        assert release_first.wait(WAIT)
        return {"version": loaded.version}

    def deliver(name: str, respond: Callable[[service.Loaded], dict[str, Any]]) -> Callable[[], None]:
        def run() -> None:
            try:
                outcomes[name] = service.act(
                    table.table_id, player, action, command_id=command_id, respond=respond
                )
            except Exception as error:
                outcomes[name] = error

        return run

    def lock_waits() -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            return int(cursor.fetchone()[0])

    first = in_thread(deliver("first", slow_response), errors)
    second = None
    try:
        assert first_appended.wait(WAIT)
        second = in_thread(deliver("second", lambda loaded: {"version": loaded.version}), errors)
        wait_until(lambda: lock_waits() > 0 or not second.is_alive(), WAIT, "the retry to wait for the first")
    finally:
        release_first.set()
        first.join(WAIT)
        if second is not None:
            second.join(WAIT)
    assert not first.is_alive() and not (second and second.is_alive()) and errors == []
    applied = outcomes["first"]
    assert isinstance(applied, service.Outcome) and not applied.replayed, applied
    after = stream_version(stream)
    assert applied.response == {"version": after} and after > before
    assert {e.metadata.get("command_id") for e in read_stream(stream, before)} == {command_id}
    assert ProcessedCommand.objects.filter(command_id=command_id).count() == 1
    retry = outcomes["second"]
    assert isinstance(retry, service.Outcome) and retry.replayed, retry  # the first one's answer, not a 409
    assert retry.response == applied.response and retry.events == ()
    replay = service.act(table.table_id, player, action, command_id=command_id)  # once committed: the replay
    assert replay.replayed and replay.response == applied.response and stream_version(stream) == after


@pytest.mark.django_db(transaction=True)
def test_duplicate_arriving_while_the_first_is_in_flight_waits_for_its_answer(
    sid: Sid, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first delivery has claimed its command id and is still deciding; the duplicate must neither
    fail nor act twice: it waits for the first to commit and gets the first answer (one append)."""
    table = service.open_table("t", TableConfig(seats=3), PLAYERS)
    service.handle(table.table_id, start(3))
    player, action = to_act(table.table_id)
    stream = service.stream_id(table.table_id)
    before = stream_version(stream)
    command_id = str(uuid.uuid4())
    first_inside, release = threading.Event(), threading.Event()
    original_load = service.load

    def load(table_id: int, at_version: int | None = None, **kwargs: Any) -> service.Loaded:
        if threading.current_thread().name == "first" and not first_inside.is_set():
            first_inside.set()  # the command id is claimed, the decision not yet taken
            assert release.wait(WAIT)
        return original_load(table_id, at_version, **kwargs)

    monkeypatch.setattr(service, "load", load)
    outcomes: dict[str, Any] = {}
    errors: list[BaseException] = []

    def deliver(name: str) -> None:
        try:
            outcomes[name] = service.act(
                table.table_id, player, action, command_id=command_id, respond=respond
            )
        except Exception as error:
            outcomes[name] = error

    first = in_thread(lambda: deliver("first"), errors, "first")
    try:
        assert first_inside.wait(WAIT)
        second = in_thread(lambda: deliver("second"), errors, "second")
        second.join(0.5)
        assert second.is_alive(), "the duplicate must wait for the first delivery, not answer on its own"
    finally:
        release.set()
        first.join(WAIT)
        second.join(WAIT)
    assert not first.is_alive() and not second.is_alive() and errors == []
    one, two = outcomes["first"], outcomes["second"]
    assert isinstance(one, service.Outcome) and not one.replayed, repr(one)
    assert one.response == {"version": stream_version(stream)}
    assert isinstance(two, service.Outcome) and two.replayed, repr(two)
    assert two.response == one.response
    assert ProcessedCommand.objects.filter(command_id=command_id).count() == 1
    assert {e.metadata.get("command_id") for e in read_stream(stream, before)} == {command_id}
