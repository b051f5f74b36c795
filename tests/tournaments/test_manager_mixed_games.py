"""The tournament process manager keys a sit-and-go's eliminations by the table's hand number across its games
(T-ELIM-1, mixed games of issue 17): a table that changes game numbers its hands afresh in the new game, and a
bust in the new game's hand *k* is not the bust of the old game's hand *k* already recorded. Before the fix
the second was dropped as a hand already recorded, and a mixed sit-and-go whose last bust fell on such a
number never finished (``tests/tournaments/test_games.py``, "PIT then NT", timed out now and then)."""

from __future__ import annotations

import random

import pytest

from engine.core import ForcedBets
from engine.tournament.sitgo import Level, TournamentConfig
from eventstore.store import RecordedEvent, read_stream
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


def _eliminated(table_id: int, version: int, hand: int, seat: int, player: str, stack: int) -> RecordedEvent:
    """A ``PlayerEliminated`` of the table's stream as the manager reads it, at ``version`` of the table."""
    data = {"hand": hand, "seat": seat, "player": player, "starting_stack": stack}
    return RecordedEvent(0, tables.stream_id(table_id), version, "PlayerEliminated", 1, data, {})


def test_a_bust_in_the_new_game_is_not_taken_for_the_old_games_bust_of_the_same_hand_number() -> None:
    levels = (
        Level(10, 60_000, ForcedBets(invito=10), "PIT"),
        Level(20, 60_000, ForcedBets(small_blind=10, big_blind=20)),
    )
    players = bots(3)
    config = TournamentConfig("Misto", seats=3, starting_stack=300, levels=levels, action_time_ms=5000,
                              time_bank_ms=0, game="NT")  # fmt: skip
    tournament_id = service.create(config, "capo", players)
    table_id = Tournament.objects.get(id=tournament_id).table_id
    assert table_id is not None
    rng, seed = random.Random(3), 1
    while tables.load(table_id).hand_number == 0 or tables.load(table_id).facts.carried:
        _play_hand(table_id, rng, seed)
        seed += 1
    italian = tables.load(table_id)
    assert italian.game == "PIT"
    number = italian.facts.hand_number  # the Italian hand numbers 1..number
    seats = {o.player: s for s, o in enumerate(italian.facts.seats) if o is not None}
    first, second, winner = players
    # the first bust, in the Italian game's last hand
    manager.handle([_eliminated(table_id, italian.version, number, seats[first], first, 300)])
    assert sorted(Tournament.objects.get(id=tournament_id).remaining) == sorted([second, winner])
    # the game changes (the next level's game), and its hand ``number`` (its own count) busts the second
    changed = tables.change_game(
        table_id,
        "NT",
        service.table_config(config, levels[1].forced_bets, "NT"),
        expected_version=italian.version,
    )
    assert changed.hands_before == number and changed.facts.hand_number == 0
    manager.handle([_eliminated(table_id, changed.version, number, seats[second], second, 300)])
    tournament = Tournament.objects.get(id=tournament_id)
    assert tournament.status == "finished" and tournament.winner == winner
    keys = [
        e.data["hand_key"]
        for e in read_stream(service.stream_id(tournament_id))
        if e.type == "PlayerFinished"
    ]
    assert keys == [f"{table_id}-{number}", f"{table_id}-{2 * number}", f"{table_id}-{2 * number}"]
