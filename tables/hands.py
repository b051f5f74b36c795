"""A table stream hand by hand, for auditors (issue 6 §3): chips conserved at every hand's end, and every hand
replayed through the engine from its hand history (``engine.phh.export_hand`` → ``engine.replay``) to the
recorded finishing stacks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engine.codec import from_data
from engine.italian.model import Event, HandEnded, TableState
from engine.phh import HandHistory, export_hand
from engine.replay import replay_histories
from eventstore.store import RecordedEvent
from tables import service


@dataclass(frozen=True, slots=True)
class Hand:
    """One finished hand: the table ``before`` its ``HandStarted``, its engine events (``HandStarted`` …
    ``HandEnded``, the eliminations and the seed reveal after it included), the table ``after`` them, and the
    stream versions of its first and last event."""

    number: int
    before: TableState
    events: tuple[Event, ...]
    after: TableState
    first_version: int
    last_version: int


@dataclass(frozen=True, slots=True)
class HandProblem:
    stream_id: str
    version: int
    message: str


AFTER_END = ("PlayerEliminated", "SeedRevealed")
"""Events that belong to a hand although they follow its ``HandEnded``."""


def hands(table_id: int, recorded: Sequence[RecordedEvent]) -> Iterator[Hand]:
    """The finished hands of a table stream ``recorded`` (all its events, in version order); a hand still
    running at the end is not yielded."""
    loaded = None
    open_hand: tuple[TableState, int] | None = None  # (the table before it, its first version)
    events: list[Event] = []
    ended = False
    last = 0
    for event in recorded:
        belongs = open_hand is not None and (not ended or event.type in AFTER_END)
        if open_hand is not None and not belongs and loaded is not None:
            yield _hand(open_hand[0], events, loaded.state, open_hand[1], last)
            open_hand, events, ended = None, [], False
        if event.type == "HandStarted" and loaded is not None:
            open_hand, events, ended = (loaded.state, event.version), [], False
        loaded = service.fold(loaded, [event], table_id)
        cls = service.ENGINE_EVENTS.get(event.type)
        if open_hand is not None and cls is not None:
            events.append(from_data(cls, event.data))
            ended = ended or event.type == "HandEnded"
            last = event.version
    if open_hand is not None and ended and loaded is not None:
        yield _hand(open_hand[0], events, loaded.state, open_hand[1], last)


def _hand(before: TableState, events: list[Event], after: TableState, first: int, last: int) -> Hand:
    number = next((e.number for e in events if isinstance(e, HandEnded)), 0)
    return Hand(number, before, tuple(events), after, first, last)


def chips_on_table(state: TableState) -> int:
    """Stacks of every seat plus the chips in the middle carried to the next hand (between hands)."""
    return sum(o.stack for o in state.seats if o is not None) + state.carried


def history(hand: Hand) -> HandHistory:
    """The hand's PHH history (our Italian extension, ``docs/hand-history-format.md``)."""
    return export_hand(hand.before, hand.events)


def verify(stream_id: str, recorded: Sequence[RecordedEvent]) -> list[HandProblem]:
    """Chip conservation and engine replay for every finished hand of a table stream; each problem names
    the version of the hand's last event. A hand is conserved when the chips on the table after it equal the
    chips before it (seating and removing players happen between hands, outside the hand's events)."""
    table_id = int(stream_id.removeprefix("table-"))
    problems: list[HandProblem] = []
    for hand in hands(table_id, recorded):
        before, after = chips_on_table(hand.before), chips_on_table(hand.after)
        if before != after:
            problems.append(
                HandProblem(
                    stream_id, hand.last_version, f"hand {hand.number}: {before} chips before, {after} after"
                )
            )
            continue
        try:
            difference = replay_histories([history(hand)])
        except ValueError as error:
            problems.append(
                HandProblem(stream_id, hand.last_version, f"hand {hand.number}: no history: {error}")
            )
            continue
        if difference is not None:
            problems.append(
                HandProblem(
                    stream_id, hand.last_version, f"hand {hand.number}: the replay differs: {difference}"
                )
            )
    return problems
