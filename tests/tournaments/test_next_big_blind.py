"""T-BAL-1's pointer for blind games: after each hand a table reports the seat due to post the next big
blind (``tournaments.mtt._next_big_blind``); on a real no-limit hold'em table it is the seat that posts the
big blind in the next hand (G-BTN-1: the big blind moves one player a hand, dead button)."""

from __future__ import annotations

import random

import pytest

from engine.core import ForcedBets, find_game
from eventstore.store import read_stream
from tables import service
from tests.tables import helpers
from tournaments.mtt import _next_big_blind

pytestmark = pytest.mark.django_db


class Seat:
    def __init__(self, player: str, stack: int) -> None:
        self.player, self.stack = player, stack


def test_the_big_blind_moves_one_player_a_hand_to_a_player_still_in() -> None:
    seats = [Seat("a", 10), None, Seat("c", 10), Seat("d", 10), Seat("e", 10), None]
    assert _next_big_blind(seats, 0, set()) == 4  # button a, blinds c and d: e is next
    assert _next_big_blind(seats, 0, {"e"}) == 0  # e busted in the hand: a
    assert _next_big_blind(seats, 0, set(), big_blind=2) == 3  # told the hand's big blind: the next one
    assert _next_big_blind(seats, 0, {"a"}, big_blind=4) == 2
    heads_up = [Seat("a", 10), None, Seat("c", 10)]
    assert _next_big_blind(heads_up, 0, set()) == 0  # G-BLIND-2: c was the big blind, a is next
    assert _next_big_blind([Seat("a", 10), None], 0, set()) is None


def test_on_a_holdem_table_the_reported_seat_posts_the_next_big_blind() -> None:
    game = find_game("NT")
    config = game.table_config(
        seats=6, tournament=True, forced=ForcedBets(small_blind=5, big_blind=10), action_time_ms=30_000,
        time_bank_ms=0,
    )  # fmt: skip
    players = [(seat, f"p{seat}", 200) for seat in (0, 1, 3, 4)]
    table_id = service.open_table("BB", config, players, game="NT", first_button=0).table_id
    rng = random.Random(11)
    checked = 0
    for number in range(1, 12):
        loaded = service.load(table_id)
        if not game.can_start_hand(loaded.state):
            break
        if loaded.facts.hand_number:
            facts = loaded.facts
            expected = _next_big_blind(facts.seats, facts.button, set(), loaded.state.big_blind)
            # without the game's own record of its big blind: worked out from the button (G-BLIND-1)
            assert _next_big_blind(facts.seats, facts.button, set()) == expected
        secret = helpers.seed_bytes(number)
        service.handle(table_id, lambda ld, at, s=secret: service.start_command(ld, at, None, s))
        started = next(
            e for e in reversed(read_stream(service.stream_id(table_id))) if e.type == "HandStarted"
        )
        if number > 1:
            assert started.data["big_blind"] == expected, (number, started.data)
            checked += 1
        for _ in range(500):
            loaded = service.load(table_id)
            if not loaded.facts.in_hand:
                break
            service.handle(
                table_id, lambda ld, at: ld.rules.bot_command(ld.state, min(ld.facts.to_act), rng, at)
            )
    assert checked >= 3
