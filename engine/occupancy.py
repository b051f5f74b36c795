"""Who sat where when each event of a table's log happened, for any game on the shared table model.

A table's seats change only through *arrivals* (an event seating ``player`` at ``seat``) and *departures*
(an event emptying ``seat``, naming the ``player`` who leaves); every other event happens in the seating the
events before it left. Each game names its arrival and departure event types (poker all'italiana:
``engine.games.italian.view.ARRIVALS`` / ``DEPARTURES``); the
engine reads only their fields ``seat`` (0-based) and
``player``.

Who may see an event's cards, and whose name goes with it, depends on who sat in its seat *when it
happened*, not on who sits there now: a player moved into a seat someone just left must see none of that
player's cards (issue 15). :func:`seatings` gives that seating for every event of a window of the log that
may start anywhere in the stream, by walking the window back from the seating after its last event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["SeatChange", "Seating", "seat_of", "seatings"]

Seating = tuple[str | None, ...]
"""One entry per seat: the player sitting there, ``None`` for an empty seat."""


class SeatChange(Protocol):
    """An arrival or a departure: ``player`` takes or leaves ``seat`` (0-based)."""

    @property
    def seat(self) -> int: ...

    @property
    def player(self) -> str: ...


def seat_of(seating: Seating, player: str | None) -> int | None:
    """The seat (0-based) of ``player`` in ``seating``, ``None`` if they are not seated (or ``player`` is
    ``None``: a spectator)."""
    if player is None:
        return None
    for seat, occupant in enumerate(seating):
        if occupant == player:
            return seat
    return None


def seatings(
    events: Sequence[object],
    after: Seating,
    arrivals: tuple[type[SeatChange], ...],
    departures: tuple[type[SeatChange], ...],
) -> tuple[Seating, ...]:
    """For each of ``events`` (consecutive events of one table, in order), the seating it happened in.

    ``after``: the seating once the last of ``events`` happened (the table now, for a window ending at its
    last version). An arrival happens with its player in the seat, a departure with its player still in it;
    any other event in the seating left by the events before it. Walking back, an arrival empties its seat
    and a departure puts its player back, so the window may start anywhere in the stream.

    Total: an arrival or departure naming a seat outside ``after`` widens nothing and is skipped, and the
    events are believed over ``after`` where they disagree (a log the engine wrote never does).
    """
    current = list(after)
    found: list[Seating] = []
    for event in reversed(events):
        if isinstance(event, arrivals) and 0 <= event.seat < len(current):
            current[event.seat] = event.player
            found.append(tuple(current))
            current[event.seat] = None
        elif isinstance(event, departures) and 0 <= event.seat < len(current):
            current[event.seat] = event.player
            found.append(tuple(current))
        else:
            found.append(tuple(current))
    found.reverse()
    return tuple(found)
