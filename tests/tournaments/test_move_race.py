"""A move racing the next hand's start (T-BAL-1): the process manager saw the table between hands, then the
table's timer started a hand (it read the tournament before the move was committed). The seat is then
refused by the table: the manager must retry the recording from a fresh load (``StaleVersion``), which
leaves the move pending until the hand ends, instead of logging a refused seat."""

from __future__ import annotations

import pytest

from engine.core import ForcedBets, find_game
from eventstore.store import read_stream
from tables import service
from tables.games import refusals
from tests.tables import helpers
from tournaments import mtt

pytestmark = pytest.mark.django_db


def _table(seated: int) -> int:
    game = find_game("NT")
    config = game.table_config(
        seats=4,
        tournament=True,
        forced=ForcedBets(small_blind=5, big_blind=10),
        action_time_ms=30_000,
        time_bank_ms=0,
    )
    players = [(s, name, 500) for s, name in enumerate(("anna", "bruno", "carla")[:seated])]
    return service.open_table(game.short_name, config, players, game="NT").table_id


def _seat_dario(loaded: service.Loaded, at: int) -> object:
    return loaded.rules.seat_command(3, "dario", 500, at)


def test_a_seat_refused_because_a_hand_started_meanwhile_asks_for_a_retry() -> None:
    table_id = _table(3)
    service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=helpers.seed_bytes(1))
    )
    before = len(read_stream(service.stream_id(table_id)))
    with pytest.raises(service.StaleVersion, match="attende la fine"):
        mtt._between_hands_handle(table_id, _seat_dario, "manager")
    assert len(read_stream(service.stream_id(table_id))) == before  # nothing appended
    assert service.load(table_id).seat_of("dario") is None


def test_between_hands_the_seat_is_taken_and_other_refusals_stay_refusals() -> None:
    table_id = _table(3)
    loaded = mtt._between_hands_handle(table_id, _seat_dario, "manager")
    assert loaded.seat_of("dario") == 3 and loaded.facts.seats[3].stack == 500
    with pytest.raises(refusals()):  # the seat is taken now: not a race, the refusal itself
        mtt._between_hands_handle(table_id, _seat_dario, "manager")
