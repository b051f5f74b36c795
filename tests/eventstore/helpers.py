"""Helpers of the event store tests: committed reads of the global log, tables driven by the service."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from engine.italian.legal import ActionKind, legal_actions
from engine.italian.model import TableConfig
from eventstore.models import Event
from eventstore.store import RecordedEvent, read_all
from tables import service

PLAYERS = [(0, "a", 100), (1, "b", 100), (2, "c", 100)]


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``predicate`` until it returns something truthy. Committed events only become readable by
    ``read_all`` once every older transaction of the cluster has ended (the xmin rule), and other test
    processes (``-n 2``) share the cluster, so reads of the global log may lag for a moment."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def all_of(stream_ids: set[str]) -> list[RecordedEvent]:
    """Every event of ``stream_ids`` that ``read_all`` returns now, in its order."""
    found: list[RecordedEvent] = []
    after = (0, 0)
    while batch := read_all(after, 1000):
        found += [e for e in batch if e.stream_id in stream_ids]
        after = (batch[-1].tx_id, batch[-1].global_position)
    return found


# actions a player can take without an amount or cards
SIMPLE = {
    ActionKind.FOLD,
    ActionKind.CHECK,
    ActionKind.CALL,
    ActionKind.PAROL,
    ActionKind.DECLINE_BLIND,
    ActionKind.PARTECIPATE,
    ActionKind.SHOW,
    ActionKind.MUCK,
}


def start(seed: int) -> Any:
    """A ``decide`` starting the next hand with a fixed shuffle (reproducible hands)."""
    return lambda loaded, at: service.start_command(loaded, at, None, seed=seed.to_bytes(32, "big"))


def open_and_start(seed: int = 1) -> int:
    """A three-handed table (a, b, c with 100 chips) with its first hand started; returns its id."""
    loaded = service.open_table("t", TableConfig(seats=3), PLAYERS)
    outcome = service.handle(loaded.table_id, start(seed))
    assert outcome.loaded.state.hand is not None
    return loaded.table_id


def count(table_id: int) -> int:
    return Event.objects.filter(stream_id=service.stream_id(table_id)).count()


def to_act(table_id: int) -> tuple[str, str]:
    """``(player, action)``: who is to act and an amount-free action they may take."""
    state = service.load(table_id).state
    assert state.hand is not None and state.hand.to_act is not None
    seat = state.hand.to_act
    kinds = [o.kind for o in legal_actions(state, seat)]
    options = [kind for kind in kinds if kind in SIMPLE] or [ActionKind.DISCARD]  # no cards: SERVITO
    assert options[-1] in kinds
    action = options[-1].value  # e.g. DAI CARTE in the blind round, BUSSO/VEDO when betting
    assert action in service.ACTIONS
    occupant = state.seats[seat]
    assert occupant is not None
    return occupant.player, action


def respond(loaded: service.Loaded) -> dict[str, Any]:
    return {"version": loaded.version}
