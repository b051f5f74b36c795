"""Per-seat values as every decider changes them (issue 16): tuples indexed by seat, the seats' occupants.

Shared by the core's decider (:mod:`engine.core.rules`) and poker all'italiana's
(:mod:`engine.games.italian.rules`): each returns a new tuple (the engine's states are frozen values) and
never validates (the callers are ``evolve`` functions, folding events already decided).
"""

from __future__ import annotations

from typing import Any

from engine._replace import replacer
from engine.core.model import SeatState

__all__ = ["add_at", "clockwise", "seat_with", "set_at", "with_stack"]

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


def clockwise(n: int, after: int) -> list[int]:
    """All ``n`` seats in clockwise order, starting just after ``after`` (``after`` itself last)."""
    return [(after + i) % n for i in range(1, n + 1)]
