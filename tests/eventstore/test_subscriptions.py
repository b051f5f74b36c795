"""Checkpointed subscriptions (``eventstore.subscriptions.Subscription``): batches, failures, reset."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from eventstore.models import Checkpoint
from eventstore.store import NewEvent, RecordedEvent, append
from eventstore.subscriptions import Subscription
from tests.eventstore.helpers import all_of, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

Sid = Callable[..., str]


class Boom(Exception):
    pass


def committed(sid: Sid, count: int) -> tuple[str, list[RecordedEvent]]:
    """A committed stream of ``count`` events, once ``read_all`` hands all of them out."""
    s = sid()
    append(s, 0, [NewEvent("Counted", {"n": n}) for n in range(count)])
    found = wait_until(lambda: len(all_of({s})) == count and all_of({s}), what="committed events readable")
    return s, found


def fresh(
    name: str, handler: Callable[[Sequence[RecordedEvent]], None], batch_size: int = 500
) -> Subscription:
    """A subscription whose checkpoint starts after every event the database already holds."""
    subscription = Subscription(name, lambda batch: None, batch_size)
    subscription.catch_up()
    subscription.handler = handler
    return subscription


def test_batches_move_the_checkpoint(sid: Sid) -> None:
    seen: list[list[int]] = []
    subscription = fresh(f"test-batches-{sid()}", lambda batch: seen.append([e.data["n"] for e in batch]), 2)
    _, stored = committed(sid, 5)
    assert subscription.run_once() == 2
    checkpoint = Checkpoint.objects.get(name=subscription.name)
    assert (checkpoint.tx_id, checkpoint.global_position) == (stored[1].tx_id, stored[1].global_position)
    assert subscription.catch_up() == 3
    assert subscription.run_once() == 0 and subscription.catch_up() == 0
    assert seen == [[0, 1], [2, 3], [4]]
    checkpoint.refresh_from_db()
    assert (checkpoint.tx_id, checkpoint.global_position) == (stored[-1].tx_id, stored[-1].global_position)


def test_handler_failure_rolls_back_checkpoint_and_its_writes(sid: Sid) -> None:
    delivered: list[list[int]] = []
    fail = {"on": 2}
    side = f"side-effect-{sid()}"

    def handler(batch: Sequence[RecordedEvent]) -> None:
        delivered.append([e.data["n"] for e in batch])
        # a projection write in the handler's (the checkpoint's) transaction
        Checkpoint.objects.create(name=f"{side}-{len(delivered)}")
        if len(delivered) == fail["on"]:
            raise Boom

    subscription = fresh(f"test-failure-{sid()}", handler, 2)
    _, stored = committed(sid, 3)
    assert subscription.run_once() == 2
    with pytest.raises(Boom):
        subscription.run_once()
    checkpoint = Checkpoint.objects.get(name=subscription.name)
    assert (checkpoint.tx_id, checkpoint.global_position) == (stored[1].tx_id, stored[1].global_position)
    assert not Checkpoint.objects.filter(name=f"{side}-2").exists()  # rolled back with the checkpoint
    assert subscription.run_once() == 1  # the failed batch is delivered again
    assert subscription.run_once() == 0
    assert delivered == [[0, 1], [2], [2]]
    assert Checkpoint.objects.filter(name__startswith=side).count() == 2


def test_failure_on_the_very_first_batch_leaves_no_checkpoint(sid: Sid) -> None:
    committed(sid, 2)
    attempts: list[int] = []

    def handler(batch: Sequence[RecordedEvent]) -> None:
        attempts.append(len(batch))
        raise Boom

    name = f"test-first-{sid()}"
    with pytest.raises(Boom):
        Subscription(name, handler).run_once()
    assert not Checkpoint.objects.filter(name=name).exists()
    assert attempts and attempts[0] >= 2


def test_reset_restarts_from_the_beginning(sid: Sid) -> None:
    s, stored = committed(sid, 3)
    mine: list[str] = []
    subscription = Subscription(
        f"test-reset-{sid()}", lambda batch: mine.extend(e.event_id for e in batch if e.stream_id == s)
    )
    subscription.catch_up()
    assert mine == [e.event_id for e in stored]
    assert subscription.catch_up() == 0
    other = Subscription(f"test-reset-other-{sid()}", lambda batch: None)
    other.catch_up()
    subscription.reset()
    assert not Checkpoint.objects.filter(name=subscription.name).exists()
    assert Checkpoint.objects.filter(name=other.name).exists()  # only its own checkpoint is forgotten
    assert subscription.catch_up() >= 3
    assert mine == [e.event_id for e in stored] * 2
    assert other.catch_up() == 0


def test_an_idle_subscription_asks_with_one_query_and_still_sees_new_events(
    sid: Sid, django_assert_num_queries: Callable[..., object]
) -> None:
    """Caught up, :meth:`Subscription.run_once` asks for a next event with a single read and no transaction
    (the subscribers' loop runs it on every wake-up); a new event is still handled, under the lock."""
    seen: list[int] = []
    subscription = fresh(f"test-idle-{sid()}", lambda batch: seen.extend(e.data["n"] for e in batch))
    with django_assert_num_queries(1):  # type: ignore[operator]
        assert subscription.run_once() == 0
    committed(sid, 2)
    assert subscription.catch_up() == 2
    assert seen == [0, 1]
    with django_assert_num_queries(1):  # type: ignore[operator]
        assert subscription.run_once() == 0



def test_an_at_least_once_subscription_reads_without_a_transaction_and_saves_its_position_now_and_then(
    sid: Sid, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22: the broadcaster's kind of subscription holds its position in memory and writes the
    checkpoint at most every ``SAVE_EVERY`` seconds; a new one (a restarted process) resumes from the
    checkpoint, so it repeats at most what came after the last write, and loses nothing."""
    from eventstore import subscriptions

    seen: list[tuple[str, int]] = []

    def handler(events: Sequence[RecordedEvent]) -> None:
        seen.extend((e.stream_id, e.version) for e in events)

    monkeypatch.setattr(subscriptions, "SAVE_EVERY", 3600.0)
    stream, _ = committed(sid, 1)
    first = Subscription("alo", handler, at_least_once=True)
    first.catch_up()
    assert [v for s, v in seen if s == stream] == [1]
    saved = Checkpoint.objects.get(name="alo")
    assert (saved.tx_id, saved.global_position) == (0, 0)  # not written yet: within SAVE_EVERY
    append(stream, 1, [NewEvent("Counted", {"n": 2})])
    wait_until(lambda: len(all_of({stream})) == 2, what="the second event readable")
    first.catch_up()
    assert [v for s, v in seen if s == stream] == [1, 2]
    first.save()  # what run() does when it stops
    saved = Checkpoint.objects.get(name="alo")
    last = all_of({stream})[-1]
    assert (saved.tx_id, saved.global_position) == (last.tx_id, last.global_position)
    append(stream, 2, [NewEvent("Counted", {"n": 3})])
    wait_until(lambda: len(all_of({stream})) == 3, what="the third event readable")
    seen.clear()
    Subscription("alo", handler, at_least_once=True).catch_up()  # a restarted process
    assert [v for s, v in seen if s == stream] == [3]


def test_a_subscription_passes_over_batches_it_does_not_want_and_handles_the_rest_exactly_once(
    sid: Sid, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22: with ``wants``, a batch of events the handler has nothing to do with moves the position
    in memory only (no transaction; the checkpoint written lazily); a wanted event is handled in the
    checkpoint's transaction, with the events since the checkpoint, once."""
    from eventstore import subscriptions

    monkeypatch.setattr(subscriptions, "SAVE_EVERY", 3600.0)
    handled: list[tuple[str, int]] = []
    stream, _ = committed(sid, 1)
    subscription = fresh("picky", lambda batch: None)
    subscription.handler = lambda batch: handled.extend((e.stream_id, e.version) for e in batch)
    subscription.wants = lambda event: event.type == "Wanted"
    before = Checkpoint.objects.get(name="picky")
    append(stream, 1, [NewEvent("Counted", {"n": 1})])
    wait_until(lambda: len(all_of({stream})) == 2, what="the unwanted event readable")
    assert subscription.catch_up() == 1  # passed over
    assert handled == []
    row = Checkpoint.objects.get(name="picky")
    assert (row.tx_id, row.global_position) == (before.tx_id, before.global_position)  # lazily
    append(stream, 2, [NewEvent("Wanted", {"n": 2})])
    wait_until(lambda: len(all_of({stream})) == 3, what="the wanted event readable")
    subscription.catch_up()
    assert [v for s, v in handled if s == stream] == [2, 3]  # from the checkpoint, in its transaction
    last = all_of({stream})[-1]
    row = Checkpoint.objects.get(name="picky")
    assert (row.tx_id, row.global_position) == (last.tx_id, last.global_position)
    handled.clear()
    assert subscription.catch_up() == 0 and handled == []  # once
