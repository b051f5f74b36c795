"""Append and read (``eventstore.store``): versions, optimistic concurrency, metadata, snapshots,
upcasters."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from django.db import connection, transaction

from eventstore import upcasting
from eventstore.models import Event, Snapshot
from eventstore.store import (
    NewEvent,
    RecordedEvent,
    WrongExpectedVersion,
    append,
    latest_snapshot,
    read_stream,
    save_snapshot,
    stream_version,
    streams,
)
from eventstore.upcasting import upcaster

pytestmark = pytest.mark.django_db

Sid = Callable[..., str]


def rows(stream_id: str) -> list[tuple[int, str, dict]]:
    """``(version, type, data)`` of the stream as stored in ``eventstore_event``."""
    return list(
        Event.objects.filter(stream_id=stream_id).order_by("version").values_list("version", "type", "data")
    )


def events(*types: str) -> list[NewEvent]:
    return [NewEvent(t, {"n": i}) for i, t in enumerate(types)]


# --- append and read ----------------------------------------------------------------------------------


def test_versions_count_from_one_and_records_come_back(sid: Sid) -> None:
    s = sid()
    assert stream_version(s) == 0
    recorded = append(s, 0, events("Opened", "Moved"))
    assert [(e.version, e.type, e.data, e.stream_id) for e in recorded] == [
        (1, "Opened", {"n": 0}, s),
        (2, "Moved", {"n": 1}, s),
    ]
    assert recorded[0].global_position < recorded[1].global_position
    assert recorded[0].tx_id == recorded[1].tx_id > 0  # one insert, one transaction
    assert recorded[0].recorded_at is not None
    assert len({uuid.UUID(e.event_id) for e in recorded}) == 2
    more = append(s, 2, events("Closed"))
    assert [e.version for e in more] == [3]
    assert stream_version(s) == 3
    assert rows(s) == [(1, "Opened", {"n": 0}), (2, "Moved", {"n": 1}), (3, "Closed", {"n": 0})]
    assert read_stream(s) == recorded + more


def test_empty_append_does_nothing(sid: Sid) -> None:
    s = sid()
    assert append(s, 0, []) == []
    assert append(s, 7, iter(())) == []  # not even the version is checked
    assert stream_version(s) == 0 and rows(s) == []


def test_read_stream_after_and_to(sid: Sid) -> None:
    s, other = sid("a"), sid("b")
    append(s, 0, events(*"ABCDE"))
    append(other, 0, events("X"))
    assert [e.version for e in read_stream(s)] == [1, 2, 3, 4, 5]
    assert [e.type for e in read_stream(s, 2)] == ["C", "D", "E"]
    assert [e.version for e in read_stream(s, 1, 3)] == [2, 3]
    assert [e.version for e in read_stream(s, to_version=2)] == [1, 2]
    assert read_stream(s, 5) == [] and read_stream(s, 3, 3) == [] and read_stream(s, to_version=0) == []
    assert read_stream(sid("missing")) == []
    assert stream_version(s) == 5 and stream_version(other) == 1


def _as_folded(recorded: list[RecordedEvent]) -> list[tuple[object, ...]]:
    """What a fold reads of each event."""
    return [
        (e.global_position, e.stream_id, e.version, e.type, e.schema_version, e.data, e.metadata)
        for e in recorded
    ]


def test_a_lean_read_gives_what_a_fold_reads_as_the_full_read_does(sid: Sid) -> None:
    s = sid("lean")
    text = 'è "quoted" \\ \n ♥'
    first = {"n": 1, "text": text, "big": 2**62, "nested": {"cards": ["Ah", "Tc"], "none": None}}
    append(s, 0, [NewEvent("A", first), NewEvent("B", {"x": True}, metadata={"at": 7, "actor": "anna"})])
    append(s, 2, events("C", "D"), metadata={"at": 9})
    upcaster("C", 1)(lambda d: {**d, "upcast": True})
    try:
        for bounds in [(0, None), (1, None), (1, 3), (0, 2), (4, None), (2, 2)]:
            lean = read_stream(s, *bounds, lean=True)
            assert _as_folded(lean) == _as_folded(read_stream(s, *bounds))
            assert all(e.recorded_at is None and e.tx_id == 0 and e.event_id == "" for e in lean)
        assert read_stream(s, lean=True)[0].data == first
        assert read_stream(s, lean=True)[2].data == {"n": 0, "upcast": True}
        assert read_stream(sid("missing"), lean=True) == []
    finally:
        upcasting.unregister("C", 1)


def test_metadata_is_merged_into_each_event_own_wins(sid: Sid) -> None:
    s = sid()
    recorded = append(
        s,
        0,
        [NewEvent("A", {}), NewEvent("B", {}, metadata={"actor": "bob", "extra": 1})],
        {"actor": "system", "command_id": "c-1"},
    )
    assert recorded[0].metadata == {"actor": "system", "command_id": "c-1"}
    assert recorded[1].metadata == {"actor": "bob", "command_id": "c-1", "extra": 1}
    stored = dict(Event.objects.filter(stream_id=s).values_list("version", "metadata"))
    assert stored == {1: recorded[0].metadata, 2: recorded[1].metadata}
    assert append(sid("other"), 0, [NewEvent("C", {})])[0].metadata == {}


@pytest.mark.parametrize(
    "expected", [0, 1, 3, 4, 99], ids=["new-on-existing", "stale", "too-high", "too-high+1", "far"]
)
def test_wrong_expected_version_appends_nothing(sid: Sid, expected: int) -> None:
    s = sid()
    append(s, 0, events("A", "B"))
    before = rows(s)
    total = Event.objects.count()
    with pytest.raises(WrongExpectedVersion) as raised:
        append(s, expected, events("X", "Y"))
    assert raised.value.stream_id == s and raised.value.expected == expected
    assert rows(s) == before and Event.objects.count() == total
    assert stream_version(s) == 2


def test_expected_version_on_a_missing_stream(sid: Sid) -> None:
    s = sid()
    with pytest.raises(WrongExpectedVersion):
        append(s, 1, events("A"))
    assert rows(s) == []


def test_transaction_stays_usable_after_a_failed_append(sid: Sid) -> None:
    s = sid()
    with transaction.atomic():
        append(s, 0, events("A"))
        with pytest.raises(WrongExpectedVersion):
            append(s, 0, events("Dup"))  # a version that exists: nothing inserted, no aborted transaction
        with pytest.raises(WrongExpectedVersion):
            append(s, 5, events("Gap"))
        recorded = append(s, 1, events("B"))
        assert [e.version for e in recorded] == [2]
        with connection.cursor() as cursor:  # the connection is not in an aborted transaction
            cursor.execute("SELECT count(*) FROM eventstore_event WHERE stream_id = %s", [s])
            assert cursor.fetchone()[0] == 2
    assert [(v, t) for v, t, _ in rows(s)] == [(1, "A"), (2, "B")]


def test_a_longer_batch_behind_a_shorter_winner_appends_none_of_its_events(sid: Sid) -> None:
    """Two writers at version 1: the winner appended one event, the loser three. Version 2 collides, 3 and 4
    would not: the loser must still append nothing (the rows it got in are taken back) and get
    WrongExpectedVersion, with its transaction usable."""
    s = sid()
    append(s, 0, events("A"))
    append(s, 1, events("Winner"))
    with transaction.atomic():
        with pytest.raises(WrongExpectedVersion):
            append(s, 1, events("L1", "L2", "L3"))
        assert [(v, t) for v, t, _ in rows(s)] == [(1, "A"), (2, "Winner")]
        assert [e.type for e in append(s, 2, events("Next"))] == ["Next"]
    assert [t for _, t, _ in rows(s)] == ["A", "Winner", "Next"]


def test_an_append_outside_a_transaction_is_atomic_too(sid: Sid) -> None:
    s = sid()
    append(s, 0, events("A"))
    append(s, 1, events("B"))
    with pytest.raises(WrongExpectedVersion):
        append(s, 1, events("X", "Y", "Z"))
    assert [t for _, t, _ in rows(s)] == ["A", "B"]


@pytest.mark.django_db(transaction=True)
def test_committed_appends_notify_their_stream(sid: Sid) -> None:
    """The trigger of migration 0003 sends ``NOTIFY eventstore, '<stream>'`` once per stream and statement,
    at commit; a rolled-back append sends nothing."""
    from eventstore.subscriptions import _listener

    s, rolled_back = sid(), sid("r")
    listener = _listener()
    try:
        append(s, 0, events("A", "B"))
        with pytest.raises(RuntimeError), transaction.atomic():
            append(rolled_back, 0, events("A"))
            raise RuntimeError("roll back")
        payloads = [n.payload for n in listener.notifies(timeout=2, stop_after=1)]
        payloads += [n.payload for n in listener.notifies(timeout=0.3)]
    finally:
        listener.close()
    assert payloads == [s]


def test_streams_by_prefix_in_creation_order(sid: Sid) -> None:
    tag = uuid.uuid4().hex[:8]
    first, second, lookalike = f"pfx_{tag}-1", f"pfx_{tag}-2", f"pfxX{tag}-3"
    append(second, 0, events("A"))
    append(first, 0, events("A", "B"))
    append(lookalike, 0, events("A"))
    append(second, 1, events("C"))
    assert streams(f"pfx_{tag}-") == [second, first]  # "_" is literal, each stream once
    assert streams(f"pfx%{tag}") == []  # "%" is literal too
    assert lookalike in streams(f"pfxX{tag}")


# --- snapshots ----------------------------------------------------------------------------------------


def test_snapshots_latest_at_most_and_schema(sid: Sid) -> None:
    s = sid()
    assert latest_snapshot(s) is None
    save_snapshot(s, 3, {"v": 3})
    save_snapshot(s, 10, {"v": 10})
    save_snapshot(s, 7, {"v": 7})
    save_snapshot(s, 12, {"v": "new"}, schema_version=2)
    assert latest_snapshot(s) == (10, {"v": 10})
    assert latest_snapshot(s, at_most=9) == (7, {"v": 7})
    assert latest_snapshot(s, at_most=7) == (7, {"v": 7})
    assert latest_snapshot(s, at_most=2) is None
    assert latest_snapshot(s, schema_version=2) == (12, {"v": "new"})
    assert latest_snapshot(s, schema_version=2, at_most=11) is None
    assert latest_snapshot(s, schema_version=3) is None
    assert latest_snapshot(sid("other")) is None


def test_snapshot_insert_is_idempotent(sid: Sid) -> None:
    s = sid()
    save_snapshot(s, 4, {"first": True})
    save_snapshot(s, 4, {"first": False})  # no error, the existing one is kept
    save_snapshot(s, 4, {"first": False}, schema_version=2)  # unique on (stream, version) whatever the schema
    assert latest_snapshot(s) == (4, {"first": True})
    assert list(Snapshot.objects.filter(stream_id=s).values_list("version", "schema_version", "data")) == [
        (4, 1, {"first": True})
    ]


# --- upcasters ----------------------------------------------------------------------------------------


def test_upcaster_turns_old_events_into_the_current_schema(sid: Sid) -> None:
    s = sid()

    def v1_to_v2(data: dict) -> dict:
        return {"amount": data["chips"], "unit": "chips"}

    def v2_to_v3(data: dict) -> dict:
        return {**data, "currency": "EUR"}

    upcaster("TestThing", 1)(v1_to_v2)
    try:
        recorded = append(
            s,
            0,
            [
                NewEvent("TestThing", {"chips": 5}),
                NewEvent("TestThing", {"amount": 8}, 2),
                NewEvent("OtherThing", {"chips": 1}),
            ],
        )
        # the append returns the upcast form too, the stored payload is never rewritten
        assert (recorded[0].schema_version, recorded[0].data) == (2, {"amount": 5, "unit": "chips"})
        read = read_stream(s)
        assert [(e.schema_version, e.data) for e in read] == [
            (2, {"amount": 5, "unit": "chips"}),
            (2, {"amount": 8}),
            (1, {"chips": 1}),
        ]
        assert rows(s)[0] == (1, "TestThing", {"chips": 5})
        assert Event.objects.get(stream_id=s, version=1).schema_version == 1
        with pytest.raises(ValueError, match="TestThing v1"):
            upcaster("TestThing", 1)(lambda data: data)
        upcaster("TestThing", 2)(v2_to_v3)  # chains apply in order
        assert [(e.schema_version, e.data) for e in read_stream(s, to_version=2)] == [
            (3, {"amount": 5, "unit": "chips", "currency": "EUR"}),
            (3, {"amount": 8, "currency": "EUR"}),
        ]
    finally:
        upcasting.unregister("TestThing", 1)
        upcasting.unregister("TestThing", 2)
    assert [(e.schema_version, e.data) for e in read_stream(s, to_version=1)] == [(1, {"chips": 5})]
    upcaster("TestThing", 1)(v1_to_v2)  # registrable again once removed
    upcasting.unregister("TestThing", 1)


def test_read_all_orders_transactions_as_numbers_not_as_text(sid) -> None:  # type: ignore[no-untyped-def]
    """Regression (found at 100,000 transactions): the selected ``tx_id::text`` shadowed the column in
    ORDER BY, so transaction 10 came before 9 — and consumers skipped events when the ids grew a digit."""
    from django.db import connection

    from eventstore.store import read_all

    stream = sid("order")
    with connection.cursor() as cursor:
        for version, tx in ((1, "9"), (2, "10")):
            cursor.execute(
                "INSERT INTO eventstore_event (stream_id, version, type, schema_version, data, metadata, "
                "event_id, tx_id) VALUES (%s, %s, 'E', 1, '{}', '{}', gen_random_uuid(), %s::xid8)",
                [stream, version, tx],
            )
    mine = [e.tx_id for e in read_all((8, 0), limit=100_000) if e.stream_id == stream]
    assert mine == [9, 10]
