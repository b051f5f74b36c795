"""A table stream hand by hand, for auditors (issue 6 §3): chips conserved at every hand's end, and every hand
replayed through the engine from its hand history (the game's ``export_hand`` → ``engine.replay``) to the
recorded finishing stacks. The game is the table's (:attr:`tables.service.Loaded.rules`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from engine.codec import from_data
from engine.core import find_game
from engine.phh import AUTOMATIC_PREFERENCE_NOTE, HandHistory, mark_actions
from engine.replay import replay_histories
from eventstore.store import RecordedEvent
from tables import preferences, service


@dataclass(frozen=True, slots=True)
class Hand:
    """One finished hand: its ``number`` at the table (1, 2, …: the hands started at the table before it
    plus one, whatever game each was, so a table whose game changed numbers its hands on), the table
    ``before`` its ``HandStarted``, its engine events (``HandStarted`` … ``HandEnded``, the eliminations and
    the seed reveal after it included), the table ``after`` them, and the stream versions of its first and
    last event; ``game``: the game it was played in; ``marks``: the indices in ``events`` of the decisions
    the table took for a player from their automatic options (IT-AUTO-1,
    :func:`tables.preferences.answered_by_preference`)."""

    number: int
    before: Any
    events: tuple[Any, ...]
    after: Any
    first_version: int
    last_version: int
    game: str = service.DEFAULT_GAME
    marks: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class HandProblem:
    stream_id: str
    version: int
    message: str


AFTER_END = ("PlayerEliminated", "SeedRevealed")
"""Events that belong to a hand although they follow its ``HandEnded``."""


Steps = Sequence[tuple[Any, "service.Loaded | None"]]
"""The table stream folded once (:func:`tables.service.fold`'s ``steps``): for each event, the game's
event as the fold decoded it (``None`` for the table's own) and the table after it."""


def hands(table_id: int, recorded: Sequence[RecordedEvent], steps: Steps | None = None) -> Iterator[Hand]:
    """The finished hands of a table stream ``recorded`` (all its events, in version order); a hand still
    running at the end is not yielded. ``steps``: the stream already folded (:data:`Steps`), used instead
    of folding and decoding it again."""
    loaded = None
    open_hand: tuple[Any, int] | None = None  # (the table before it, its first version)
    events: list[Any] = []
    marks: list[int] = []
    ended = False
    last = 0
    started = 0  # hands started at the table
    for index, event in enumerate(recorded):
        belongs = open_hand is not None and (not ended or event.type in AFTER_END)
        if open_hand is not None and not belongs and loaded is not None:
            yield _hand(started, open_hand[0], events, loaded, open_hand[1], last, marks)
            open_hand, events, marks, ended = None, [], [], False
        if event.type == "HandStarted" and loaded is not None:
            started += 1
            open_hand, events, marks, ended = (loaded.state, event.version), [], [], False
        before = loaded
        if steps is None:
            decoded = None
            loaded = service.fold(loaded, [event], table_id)
        else:
            decoded, loaded = steps[index]
        cls = loaded.rules.events.get(event.type) if loaded is not None else None
        if open_hand is not None and cls is not None:
            if before is not None and preferences.answered_by_preference(event, _player_at(before)):
                marks.append(len(events))
            events.append(decoded if type(decoded) is cls else from_data(cls, event.data))
            ended = ended or event.type == "HandEnded"
            last = event.version
    if open_hand is not None and ended and loaded is not None:
        yield _hand(started, open_hand[0], events, loaded, open_hand[1], last, marks)


def _player_at(loaded: service.Loaded) -> Callable[[int], str | None]:
    """Who sat at a seat of ``loaded`` (the table's facts, computed only when asked)."""

    def player_at(seat: int) -> str | None:
        seats = loaded.facts.seats
        occupant = seats[seat] if 0 <= seat < len(seats) else None
        return occupant.player if occupant is not None else None

    return player_at


def _hand(
    number: int,
    before: Any,
    events: list[Any],
    after: service.Loaded,
    first: int,
    last: int,
    marks: list[int],
) -> Hand:
    return Hand(number, before, tuple(events), after.state, first, last, after.game, tuple(marks))


def chips_on_table(state: Any, game: str = service.DEFAULT_GAME) -> int:
    """Stacks of every seat plus the chips in the middle carried to the next hand (between hands; the
    game's ``facts``: ``sum(stacks) + carried``)."""
    facts = find_game(game).facts(state)
    return sum(o.stack for o in facts.seats if o is not None) + facts.carried


def history(hand: Hand) -> HandHistory:
    """The hand's PHH history (the game's ``export_hand``; poker all'italiana: our Italian extension,
    ``docs/hand-history-format.md``), each action the table took from a player's automatic options
    commented ``# automatic: preference`` (:func:`engine.phh.mark_actions`)."""
    history: HandHistory = find_game(hand.game).export_hand(hand.before, hand.events)
    if hand.marks:  # the decisions the player's automatic options took (IT-AUTO-1): "# automatic: preference"
        notes = dict.fromkeys(hand.marks, AUTOMATIC_PREFERENCE_NOTE)
        history = mark_actions(history, hand.events, notes)
    return history


def verify(
    stream_id: str, recorded: Sequence[RecordedEvent], steps: Steps | None = None
) -> list[HandProblem]:
    """Chip conservation and engine replay for every finished hand of a table stream; each problem names
    the version of the hand's last event. A hand is conserved when the chips on the table after it equal the
    chips before it (seating and removing players happen between hands, outside the hand's events).
    ``steps``: the stream already folded (:data:`Steps`)."""
    table_id = int(stream_id.removeprefix("table-"))
    problems: list[HandProblem] = []
    for hand in hands(table_id, recorded, steps):
        before, after = chips_on_table(hand.before, hand.game), chips_on_table(hand.after, hand.game)
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
