"""Per-seat values as every decider changes them (issue 16): tuples indexed by seat, the seats' occupants.

Shared by the core's decider (:mod:`engine.core.rules`) and poker all'italiana's
(:mod:`engine.games.italian.rules`): each returns a new tuple (the engine's states are frozen values) and
never validates (the callers are ``evolve`` functions, folding events already decided).
"""

from __future__ import annotations

from typing import Any, Protocol

from engine._replace import replacer
from engine.core.model import SeatState

__all__ = ["add_at", "can_act", "clockwise", "in_hand", "seat_stack", "seat_with", "set_at", "with_stack"]

_occupant_with = replacer(SeatState)


def set_at(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """``values`` with ``value`` at ``index``."""
    changed = list(values)  # a list's item set: a third faster than joining two slices around the value
    changed[index] = value
    return tuple(changed)


def add_at(values: tuple[int, ...], index: int, amount: int) -> tuple[int, ...]:
    """``values`` with ``amount`` added at ``index``."""
    changed = list(values)
    changed[index] += amount
    return tuple(changed)


def with_stack(seats: tuple[SeatState | None, ...], seat: int, delta: int) -> tuple[SeatState | None, ...]:
    """``seats`` with ``delta`` chips added to the stack of ``seat``'s occupant (there must be one)."""
    changed = list(seats)
    occupant = changed[seat]
    assert occupant is not None
    changed[seat] = _occupant_with(occupant, stack=occupant.stack + delta)
    return tuple(changed)


def seat_with(seats: tuple[SeatState | None, ...], seat: int, **changes: Any) -> tuple[SeatState | None, ...]:
    """``seats`` with the occupant of ``seat`` (there must be one) changed."""
    occupant = seats[seat]
    assert occupant is not None
    return set_at(seats, seat, _occupant_with(occupant, **changes))


class Table(Protocol):
    """Any game's table state (the core's :class:`~engine.core.model.CoreState`, poker all'italiana's
    ``TableState``): its seats."""

    @property
    def seats(self) -> tuple[SeatState | None, ...]: ...


class Hand(Protocol):
    """Any game's hand in progress: the seats dealt in (clockwise from the button's left) and the seats out
    of it (``folded``: folded, and the seats not dealt in)."""

    @property
    def dealt(self) -> tuple[int, ...]: ...

    @property
    def folded(self) -> frozenset[int]: ...


def seat_stack(state: Table, seat: int) -> int:
    """The chips behind of ``seat``'s player (0: an empty seat)."""
    occupant = state.seats[seat]
    return 0 if occupant is None else occupant.stack


def in_hand(hand: Hand) -> list[int]:
    """Seats still contesting the hand, clockwise from the button's left."""
    folded = hand.folded
    return [s for s in hand.dealt if s not in folded]


def can_act(state: Table, hand: Hand) -> list[int]:
    """Seats still contesting the hand with chips behind (not all-in), clockwise from the button's left."""
    seats = state.seats
    folded = hand.folded
    return [s for s in hand.dealt if s not in folded and (o := seats[s]) is not None and o.stack > 0]


def clockwise(n: int, after: int) -> list[int]:
    """All ``n`` seats in clockwise order, starting just after ``after`` (``after`` itself last)."""
    return [(after + i) % n for i in range(1, n + 1)]
