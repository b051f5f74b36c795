"""``engine.occupancy``: who sat where when each event of a window of a table's log happened (issue 15).

The module knows no game: these tests use events of their own (any game's arrival and departure events with
``seat`` and ``player``), and a hypothesis property compares the walk back from the end of any window with
the seating followed forward from the table's start.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.occupancy import Seating, seat_of, seatings


@dataclass(frozen=True, slots=True)
class Joined:
    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class Left:
    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class Busted:
    seat: int
    player: str
    hand: int


@dataclass(frozen=True, slots=True)
class Acted:
    """Any other event of a seat (a bet, cards dealt to it)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Dealt:
    """An event with ``player``-like data but no seat change (must not be taken for one)."""

    seat: int
    player: str


ARRIVALS = (Joined,)
DEPARTURES = (Left, Busted)


def test_a_player_moved_into_a_seat_is_not_the_one_who_played_there_before() -> None:
    # the window: anna plays seat 0, leaves, bruno sits there and plays
    events = [Acted(0), Dealt(0, "anna"), Left(0, "anna"), Joined(0, "bruno"), Acted(0)]
    found = seatings(events, ("bruno", "carla"), ARRIVALS, DEPARTURES)
    assert found == (
        ("anna", "carla"),
        ("anna", "carla"),
        ("anna", "carla"),  # a departure happens with its player still seated
        ("bruno", "carla"),  # an arrival with its player already seated
        ("bruno", "carla"),
    )
    assert [seat_of(at, "bruno") for at in found] == [None, None, None, 0, 0]
    assert [seat_of(at, "anna") for at in found] == [0, 0, 0, None, None]


def test_an_elimination_empties_the_seat_and_the_window_may_start_anywhere() -> None:
    events = [Acted(1), Busted(1, "dora", 7), Joined(1, "ezio")]
    assert seatings(events, (None, "ezio"), ARRIVALS, DEPARTURES) == (
        (None, "dora"),
        (None, "dora"),
        (None, "ezio"),
    )
    assert seatings([], ("a", None), ARRIVALS, DEPARTURES) == ()


def test_seat_of_a_spectator_or_an_absent_player_is_none() -> None:
    assert seat_of(("a", None, "b"), "b") == 2
    assert seat_of(("a", None, "b"), None) is None
    assert seat_of(("a", None, "b"), "c") is None


def test_total_a_seat_change_outside_the_table_is_skipped() -> None:
    events = [Joined(5, "x"), Left(-1, "y"), Acted(0)]
    assert seatings(events, ("a",), ARRIVALS, DEPARTURES) == (("a",), ("a",), ("a",))


NAMES = tuple(f"p{n}" for n in range(12))


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[object], list[Seating]]:
    """A table's log from its start (empty seats), with the seating each event happened in, followed
    forward: players arrive in empty seats, leave (or bust) from their seats, and act from them."""
    size = draw(st.integers(1, 6))
    seats: list[str | None] = [None] * size
    events: list[object] = []
    during: list[Seating] = []
    for _ in range(draw(st.integers(0, 60))):
        empty = [s for s in range(size) if seats[s] is None]
        taken = [s for s in range(size) if seats[s] is not None]
        choices = ["join"] * bool(empty) + ["leave", "bust", "act", "deal"] * bool(taken)
        if not choices:
            break
        kind = draw(st.sampled_from(choices))
        if kind == "join":
            seat = draw(st.sampled_from(empty))
            seats[seat] = draw(st.sampled_from([n for n in NAMES if n not in seats]))
            events.append(Joined(seat, seats[seat]))  # type: ignore[arg-type]
            during.append(tuple(seats))
            continue
        seat = draw(st.sampled_from(taken))
        player = seats[seat]
        assert player is not None
        during.append(tuple(seats))
        if kind == "leave":
            events.append(Left(seat, player))
            seats[seat] = None
        elif kind == "bust":
            events.append(Busted(seat, player, draw(st.integers(1, 9))))
            seats[seat] = None
        elif kind == "act":
            events.append(Acted(seat))
        else:
            events.append(Dealt(seat, player))
    return events, during


@settings(deadline=None)  # no timing asserted (a loaded CI machine)
@given(tables(), st.data())
def test_walking_a_window_back_gives_the_seating_followed_forward(
    table: tuple[list[object], list[Seating]], data: st.DataObject
) -> None:
    events, during = table
    start = data.draw(st.integers(0, len(events)))
    end = data.draw(st.integers(start, len(events)))
    # the seating after the window's last event: the one that event happened in, then its own change
    if end == 0:
        return
    after = list(during[end - 1])
    last = events[end - 1]
    if isinstance(last, DEPARTURES):
        after[last.seat] = None
    assert seatings(events[start:end], tuple(after), ARRIVALS, DEPARTURES) == tuple(during[start:end])
