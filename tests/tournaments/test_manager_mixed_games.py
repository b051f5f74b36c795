"""The tournament process manager keys a sit-and-go's hands by the table's hand number across its games
(T-ELIM-1, mixed games of issue 17): a table that changes game numbers its hands afresh in the new game, and
the new game's hand *k* is not the old game's hand *k* already recorded. Before the fix a bust in the second
was dropped as a hand already recorded, and a mixed sit-and-go whose last bust fell on such a number never
finished (``tests/tournaments/test_games.py``, "PIT then NT", timed out now and then). Since the one
tournament model every hand is recorded (``RecordHand``), so every key is checked."""

from __future__ import annotations

import random

import pytest

from engine.core import ForcedBets
from engine.tournament.sitgo import Level, TournamentConfig
from eventstore.store import read_stream
from tables import service as tables
from tests.tables import helpers
from tournaments import manager, service
from tournaments.models import Tournament
from tournaments.views import bots

pytestmark = pytest.mark.django_db


def _play_hand(table_id: int, rng: random.Random, seed: int) -> None:
    tables.handle(
        table_id, lambda loaded, at: tables.start_command(loaded, at, None, seed=helpers.seed_bytes(seed))
    )
    for _ in range(500):
        loaded = tables.load(table_id)
        if not loaded.facts.in_hand:
            return
        tables.handle(
            table_id,
            lambda loaded, at: loaded.rules.bot_command(loaded.state, min(loaded.facts.to_act), rng, at),
        )
    raise AssertionError("the hand does not end")


def _report(table_id: int, seen: int) -> int:
    """The manager handles the table's events after version ``seen`` (as its subscription would); returns
    the table's version."""
    events = read_stream(tables.stream_id(table_id), seen)
    manager.handle(events)
    return events[-1].version if events else seen


def test_a_hand_of_the_new_game_is_not_taken_for_the_old_games_hand_of_the_same_number() -> None:
    """Every hand of a mixed sit-and-go (a one-table MTT, issue 17) is recorded once, keyed by its number
    across the table's games: the hold'em hands 1..k after the Italian hands 1..k are the table's hands
    k+1..2k, none dropped as already recorded (T-ELIM-1 reads its busts from them)."""
    levels = (
        Level(10, 60_000, ForcedBets(invito=10), "PIT"),
        Level(20, 60_000, ForcedBets(small_blind=10, big_blind=20)),
    )
    players = bots(3)
    config = TournamentConfig("Misto", seats=3, starting_stack=30_000, levels=levels, action_time_ms=5000,
                              time_bank_ms=0, game="NT")  # fmt: skip
    tournament_id = service.create(config, "capo", players)
    table_id = Tournament.objects.get(id=tournament_id).table_id
    assert table_id is not None
    rng, seed, seen = random.Random(3), 1, 0
    while tables.load(table_id).hand_number < 3 or tables.load(table_id).facts.carried:
        _play_hand(table_id, rng, seed)
        seen = _report(table_id, seen)
        seed += 1
    italian = tables.load(table_id)
    assert italian.game == "PIT"
    number = italian.facts.hand_number  # the Italian hand numbers 1..number
    # the game changes (the next level's game), and it numbers its own hands from 1 again
    changed = tables.change_game(
        table_id,
        "NT",
        service.table_config(service.config(config), levels[1].forced_bets, "NT"),
        expected_version=italian.version,
    )
    assert changed.hands_before == number and changed.facts.hand_number == 0
    for _ in range(number):
        _play_hand(table_id, rng, seed)
        seen = _report(table_id, seen)
        seed += 1
    assert tables.load(table_id).facts.hand_number == number
    stream = read_stream(service.stream_id(tournament_id))
    keys = [e.data["hand_key"] for e in stream if e.type == "HandRecorded"]
    assert keys == [f"{table_id}-{k}" for k in range(1, 2 * number + 1)]
    _, state = service.load(tournament_id)
    assert state.hands == frozenset(keys)
