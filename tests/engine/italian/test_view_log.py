"""``engine.italian.view.public_log``: a window of the log as one player may receive it, each event redacted
and named by who sat in its seat when it happened (issue 15: a player moved into a seat someone just left
saw that player's dealt and discarded cards, under their own name)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck
from engine.italian import apply, evolve, initial_state
from engine.italian.bot import play_hand
from engine.italian.model import (
    CardsDealt,
    Discarded,
    Event,
    HandShown,
    PlayerSeated,
    RemovePlayer,
    SeatPlayer,
    TableConfig,
    TableState,
)
from engine.italian.view import (
    DEPARTURES,
    CardsDealtHidden,
    DiscardedHidden,
    public_event,
    public_log,
    seating,
)
from engine.occupancy import Seating, seat_of
from engine.shuffle import derive_seed, shuffle


def cards_of(event: object) -> set[Card]:
    return set(getattr(event, "cards", ()))


def play(state: TableState, seed: int) -> tuple[TableState, list[Event]]:
    deck = shuffle(Deck.standard().cards, derive_seed(bytes(32), f"hand-{seed}"))
    played = play_hand(state, deck, random.Random(seed))
    return played.after, list(played.events)


def command(state: TableState, given: RemovePlayer | SeatPlayer) -> tuple[TableState, list[Event]]:
    after, events = apply(state, given)
    return after, list(events)


def test_the_player_seated_where_another_left_sees_none_of_their_cards_nor_gets_their_name() -> None:
    # given: a hand at Anna, Bruno, Carla's table, then Anna leaves and Nuovo takes her seat
    state = initial_state(TableConfig(seats=3), [(0, "Anna", 1000), (1, "Bruno", 1000), (2, "Carla", 1000)])
    state, hand = play(state, 1)
    state, left = command(state, RemovePlayer(0))
    state, arrived = command(state, SeatPlayer(0, "Nuovo", 1000))
    events = hand + left + arrived
    anna_dealt = [e for e in hand if isinstance(e, CardsDealt) and e.seat == 0]
    assert anna_dealt, "Anna was dealt cards"
    # when: Nuovo (seat 0 now) receives the window
    entries = public_log(events, seating(state), "Nuovo")
    # then: none of Anna's cards, and every event of the hand is named by Anna's seating
    assert len(entries) == len(events)
    for event, entry in zip(events, entries, strict=True):
        if isinstance(event, CardsDealt):
            assert entry.event == CardsDealtHidden(event.seat, len(event.cards))
        if isinstance(event, Discarded):
            assert entry.event == DiscardedHidden(event.seat, len(event.cards))
    for entry in entries[: len(hand) + 1]:
        assert entry.seating == ("Anna", "Bruno", "Carla")
    assert entries[-1].seating == ("Nuovo", "Bruno", "Carla")
    # the mistake of issue 15: redacting by the seat the viewer holds *now* gives Anna's cards away
    assert any(cards_of(public_event(e, 0)) for e in anna_dealt)
    # Anna, who has left, still receives her own cards of the hand she played; a spectator none
    anna = public_log(events, seating(state), "Anna")
    assert [entry.event for entry, e in zip(anna, events, strict=True) if e in anna_dealt] == anna_dealt
    spectator = public_log(events, seating(state), None)
    assert not any(cards_of(entry.event) for entry in spectator if not isinstance(entry.event, HandShown))
    # an auditor gets every event unchanged
    assert [entry.event for entry in public_log(events, seating(state), None, reveal=True)] == events


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Event], list[Seating]]:
    """A table's events from its opening: hands played by the bots, and between them players leaving and
    others sitting down in the seats left; with the seating each event happened in (followed forward from
    the states, not by the code under test)."""
    seats = draw(st.integers(2, 5))
    state = initial_state(TableConfig(seats=seats, tournament=False))
    names = iter(f"p{n}" for n in range(100))
    events: list[Event] = []
    during: list[Seating] = []

    def record(before: TableState, produced: list[Event]) -> TableState:
        current = before
        for event in produced:
            after = evolve(current, event)
            # an event happens among the players seated before or after it (an arrival: after)
            during.append(seating(after) if isinstance(event, PlayerSeated) else seating(current))
            events.append(event)
            current = after
        return current

    for seat in range(seats):
        state = record(state, command(state, SeatPlayer(seat, next(names), 1000))[1])
    for _hand in range(draw(st.integers(1, 4))):
        if sum(1 for o in state.seats if o is not None and o.stack > 0) < 2:
            break
        state = record(state, play(state, draw(st.integers(0, 10_000)))[1])
        for seat in draw(st.sets(st.integers(0, seats - 1), max_size=seats)):
            if state.seats[seat] is not None:
                state = record(state, command(state, RemovePlayer(seat))[1])
            if draw(st.booleans()):
                state = record(state, command(state, SeatPlayer(seat, next(names), 1000))[1])
    return events, during


@settings(max_examples=40, deadline=None)
@given(histories(), st.data())
def test_every_card_in_a_window_is_the_viewers_own_at_the_time(
    history: tuple[list[Event], list[Seating]], data: st.DataObject
) -> None:
    events, during = history
    start = data.draw(st.integers(0, len(events) - 1))
    window = events[start:]
    players = sorted({p for at in during for p in at if p is not None})
    viewer = data.draw(st.sampled_from([None, *players]))
    # the seating now: after the last event
    now = list(during[-1])
    if isinstance(events[-1], DEPARTURES):
        now[events[-1].seat] = None
    entries = public_log(window, tuple(now), viewer)
    for event, entry, at in zip(window, entries, during[start:], strict=True):
        assert entry.seating == at
        if isinstance(event, CardsDealt | Discarded):
            mine = seat_of(at, viewer) == event.seat
            assert (entry.event == event) is mine, (viewer, at, event)
            assert cards_of(entry.event) == (cards_of(event) if mine else set())
