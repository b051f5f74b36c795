"""Plain helpers of the tables tests (fixtures live in ``conftest.py``)."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from typing import Any

from channels.testing import WebsocketCommunicator  # daphne (dev extra) makes the package importable

from engine.italian.bot import bot_command
from engine.italian.legal import ActionKind, legal_actions
from engine.italian.model import (
    BetOrRaise,
    CheckOrCall,
    Command,
    DeclineBlind,
    Discard,
    Fold,
    MuckHand,
    Partecipate,
    Phase,
    SayParol,
    ShowHand,
    TableConfig,
)
from eventstore.models import Event
from tables import service

__all__ = ["WebsocketCommunicator"]

PLAYERS = ("anna", "bruno", "carla")
STACK = 500
DECK_SEED = 7  # with bot seed 5: blind declined, a fold, cambio, a showdown with one MOSTRO and one NASCONDO
BOT_SEED = 5


def seed_bytes(seed: int) -> bytes:
    return seed.to_bytes(32, "big")


def open_three(name: str = "T", config: TableConfig | None = None, players=PLAYERS) -> int:  # type: ignore[no-untyped-def]
    """A 3-seat table with ``players`` on seats 0..2 (500 chips each); returns its id."""
    loaded = service.open_table(
        name, config or TableConfig(seats=3), [(seat, player, STACK) for seat, player in enumerate(players)]
    )
    return loaded.table_id


def start_hand(table_id: int, seed: int = DECK_SEED) -> service.Loaded:
    """Start the next hand with a fixed shuffle (reproducible hands)."""
    outcome = service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=seed_bytes(seed))
    )
    assert outcome.loaded.state.hand is not None
    return outcome.loaded


def events(table_id: int) -> int:
    """How many events the table's stream holds in ``eventstore_event``."""
    return Event.objects.filter(stream_id=service.stream_id(table_id)).count()


def to_act(table_id: int) -> tuple[int, str]:
    """``(seat, username)`` of the player to act."""
    loaded = service.load(table_id)
    hand = loaded.state.hand
    assert hand is not None and hand.to_act is not None
    occupant = loaded.state.seats[hand.to_act]
    assert occupant is not None
    return hand.to_act, occupant.player


def not_to_act(table_id: int) -> str:
    """A seated player whose turn it is not."""
    seat, _ = to_act(table_id)
    state = service.load(table_id).state
    occupant = state.seats[(seat + 1) % len(state.seats)]
    assert occupant is not None
    return occupant.player


def decline_blinds(table_id: int) -> service.Loaded:
    """Everyone says DAI CARTE until the cards are dealt (the opening round)."""
    loaded = service.load(table_id)
    while loaded.state.hand is not None and loaded.state.hand.phase is Phase.BLIND:
        _, player = to_act(table_id)
        loaded = service.act(table_id, player, "decline_blind", expected_version=loaded.version).loaded
    assert loaded.state.hand is not None and loaded.state.hand.phase is Phase.OPENING
    return loaded


def body(action: str, version: int, **extra: Any) -> dict[str, Any]:
    """A POST body for ``/api/tables/{id}/act/`` with a fresh command id."""
    return {"command_id": str(uuid.uuid4()), "expected_version": version, "action": action, **extra}


def as_request(loaded: service.Loaded, seat: int, command: Command) -> dict[str, Any]:
    """The API/socket fields (``action``, ``amount``, ``cards``) for an engine ``command`` of ``seat``."""
    kinds = {option.kind for option in legal_actions(loaded.state, seat)}
    if isinstance(command, BetOrRaise):
        kind = next(k for k in (ActionKind.BLIND_BET, ActionKind.BET, ActionKind.RAISE) if k in kinds)
        return {"action": kind.value, "amount": command.to}
    if isinstance(command, CheckOrCall):
        return {"action": "check" if ActionKind.CHECK in kinds else "call"}
    if isinstance(command, Discard):
        return {"action": "discard", "cards": [str(card) for card in command.cards]}
    simple = {
        Fold: "fold",
        SayParol: "parol",
        DeclineBlind: "decline_blind",
        Partecipate: "partecipate",
        ShowHand: "show",
        MuckHand: "muck",
    }
    return {"action": simple[type(command)]}


def bot_moves(table_id: int, rng_seed: int = BOT_SEED) -> Callable[[], tuple[str, dict[str, Any]] | None]:
    """A function giving ``(player, request fields)`` for the bot's next move (``None``: the hand is over)."""
    rng = random.Random(rng_seed)

    def next_move() -> tuple[str, dict[str, Any]] | None:
        loaded = service.load(table_id)
        hand = loaded.state.hand
        if hand is None:
            return None
        assert hand.to_act is not None
        command = bot_command(loaded.state, hand.to_act, rng)
        occupant = loaded.state.seats[hand.to_act]
        assert occupant is not None
        return occupant.player, as_request(loaded, hand.to_act, command)

    return next_move


def wait_until(predicate: Callable[[], Any], timeout: float = 15.0, what: str = "condition") -> Any:
    """Poll ``predicate`` until it returns something truthy (see ``tests/eventstore/conftest.py``: the
    broadcaster only reads events once every older transaction of the cluster has ended)."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def bot_move(rng: random.Random) -> Callable[[service.Loaded, int], Command | None]:
    """A command builder for :func:`tables.service.handle`: the engine's bot for the seat to act (``None``
    when nobody is to act)."""

    def decide(loaded: service.Loaded, at: int) -> Command | None:
        hand = loaded.state.hand
        if hand is None or hand.to_act is None:
            return None
        return bot_command(loaded.state, hand.to_act, rng, at)

    return decide


def play_to_end(table_id: int, rng: random.Random) -> service.Loaded:
    """The bots play the hand in progress to its end, one command per transaction."""
    loaded = service.load(table_id)
    while loaded.state.hand is not None:
        loaded = service.handle(table_id, bot_move(rng), expected_version=loaded.version).loaded
    return loaded
