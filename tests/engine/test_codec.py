"""The JSON codec round-trips every event, command and state the decider produces (event store format)."""

from __future__ import annotations

import json
import random
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import make_dataclass

import pytest

from engine.cards import Deck
from engine.codec import CodecError, from_data, registry, to_data
from engine.italian import initial_state
from engine.italian.bot import play_hand
from engine.italian.model import Command, Event, HandStarted, Limit, StartHand, TableConfig, TableState
from engine.shuffle import shuffle

EVENTS = registry(Event)
COMMANDS = registry(Command)


def test_registry_names_every_event_and_command() -> None:
    assert "HandStarted" in EVENTS and "PlayerEliminated" in EVENTS and len(EVENTS) == 30  # + ChipsAdded
    assert "StartHand" in COMMANDS and "TimeoutExpired" in COMMANDS


@pytest.mark.parametrize("limit", list(Limit))
def test_events_and_states_round_trip_through_json(limit: Limit) -> None:
    rng = random.Random(7)
    state = initial_state(TableConfig(seats=5, limit=limit), [(s, f"p{s}", 300) for s in range(5)])
    seen_types = set()
    for number in range(25):
        players = sum(1 for seat in state.seats if seat is not None and seat.stack > 0)
        if players < 2:
            break
        deck = shuffle(Deck.italian(players).cards, bytes([number]) * 32)
        played = play_hand(state, deck, rng, at=number * 1000)
        for event in played.events:
            text = json.dumps(to_data(event))
            assert from_data(type(event), json.loads(text)) == event
            seen_types.add(type(event).__name__)
        # a mid-hand-free state (snapshot at a hand boundary) round-trips too
        assert from_data(TableState, json.loads(json.dumps(to_data(played.after)))) == played.after
        state = played.after
    assert {"HandStarted", "CardsDealt", "HandEnded", "PotAwarded"} <= seen_types


def test_mid_hand_state_and_commands_round_trip() -> None:
    state = initial_state(TableConfig(seats=3), [(0, "a", 100), (1, "b", 100), (2, "c", 100)])
    from engine.italian import apply

    command = StartHand(deck=Deck.italian(3).cards, at=5, hand_id="h1")
    after, _ = apply(state, command)
    assert from_data(TableState, to_data(after)) == after
    assert from_data(StartHand, to_data(command)) == command


def test_bad_data_is_refused_with_a_named_error() -> None:
    with pytest.raises(CodecError, match="HandStarted"):
        from_data(HandStarted, {"number": "one"})
    with pytest.raises(CodecError, match="no field 'colour'"):
        from_data(EVENTS["Checked"], {"seat": 1, "colour": "red"})
    with pytest.raises(CodecError):
        from_data(EVENTS["Checked"], {"seat": True})


def test_first_decodes_of_a_type_in_many_threads_at_once_all_succeed() -> None:
    """The decoder of a dataclass is generated on its first use; threads decoding a type for the first time
    together (the Celery worker's pool and the service threads loading snapshots) must all get the value, not
    an ``IndexError`` from a half-built decoder (CI, stop 30)."""

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often: the half-built window is a few microseconds wide
    try:
        _decode_new_types_in_threads()
    finally:
        sys.setswitchinterval(switch)


def _decode_new_types_in_threads() -> None:
    for round_ in range(20):
        names = [f"f{index}" for index in range(12)]
        cls = make_dataclass(f"Wide{round_}", [(name, int) for name in names], frozen=True)
        data = {name: index for index, name in enumerate(names)}
        barrier = threading.Barrier(8)
        with ThreadPoolExecutor(8) as pool:
            futures = [pool.submit(_decode_together, barrier, cls, data) for _ in range(8)]
        assert [future.result() for future in futures] == [cls(**data)] * 8


def _decode_together(barrier: threading.Barrier, cls: type, data: dict[str, int]) -> object:
    barrier.wait()
    return from_data(cls, data)
