"""A no-limit hold'em table (``NT``, issue 16) through the service: opened with its game code, hands started
with the service's shuffle, played by the game's bot and by players' API actions to the end, the seeds
revealed, chips conserved, and the table reloaded from its events equal to the live one."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from django.utils import translation

from audit import shuffles as audit
from engine.core import ForcedBets, find_game
from eventstore.store import read_stream
from tables import rendering, service
from tests.tables import helpers

pytestmark = pytest.mark.django_db

PLAYERS = ("anna", "bruno", "carla", "dario")


def open_holdem(stack: int = 400, code: str = "NT") -> int:
    game = find_game(code)
    config = game.table_config(
        seats=6,
        tournament=True,
        forced=ForcedBets(small_blind=5, big_blind=10),
        action_time_ms=30_000,
        time_bank_ms=10_000,
    )
    loaded = service.open_table(code, config, [(s, p, stack) for s, p in enumerate(PLAYERS)], game=code)
    return loaded.table_id


def play_hand(table_id: int, rng: random.Random, seed: int) -> None:
    service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=helpers.seed_bytes(seed))
    )
    for _ in range(500):
        loaded = service.load(table_id)
        facts = loaded.facts
        if not facts.in_hand:
            return
        service.handle(
            table_id,
            lambda loaded, at: loaded.rules.bot_command(loaded.state, min(loaded.facts.to_act), rng, at),
        )
    raise AssertionError("the hand does not end")


@pytest.mark.parametrize("code", ["NT", "FT", "PO"])
def test_bot_hands_play_to_the_end_through_the_service(code: str) -> None:
    table_id = open_holdem(code=code)
    opened = read_stream(service.stream_id(table_id))[0]
    assert opened.data["game"] == code
    rng = random.Random(3)
    for number in range(1, 6):
        if not find_game(code).can_start_hand(service.load(table_id).state):
            break
        play_hand(table_id, rng, seed=number)
        loaded = service.load(table_id)
        facts = loaded.facts
        assert facts.hand_number == number and not facts.in_hand
        assert not facts.reveal_due  # the service revealed the hand's seed
        assert sum(s.stack for s in facts.seats if s is not None) == 400 * len(PLAYERS)
    types = [event.type for event in read_stream(service.stream_id(table_id))]
    assert types.count("HandEnded") == types.count("SeedRevealed") >= 1
    live = service.load(table_id)
    service.forget_cache()
    assert service.load(table_id).state == live.state


def test_players_act_by_name_and_the_engine_refuses_what_the_rules_refuse() -> None:
    table_id = open_holdem()
    service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=helpers.seed_bytes(1))
    )
    loaded = service.load(table_id)
    game = loaded.rules
    first = min(loaded.facts.to_act)
    player = PLAYERS[first]
    raise_action = next(a for a in game.legal_actions(loaded.state, first) if a.kind == "raise")
    assert (raise_action.label, raise_action.minimum) == ("Raise", 20)  # G-ACT-2: at least double the blind
    with pytest.raises(game.illegal_action, match="between 20 and"):
        service.act(table_id, player, "raise", amount=15)
    assert service.load(table_id).version == loaded.version
    other = PLAYERS[(first + 1) % len(PLAYERS)]
    with pytest.raises(game.illegal_action, match="turn"):
        service.act(table_id, other, "fold")
    with pytest.raises(service.BadRequest):
        service.act(table_id, player, "parol")  # not an action of hold'em
    service.act(table_id, player, "raise", amount=30)
    after = service.load(table_id)
    hand = after.state.hand
    assert hand is not None and hand.current_bet == 30 and hand.round_bets[first] == 30
    assert after.facts.seats[first].stack == 370


def test_the_audit_checks_the_shuffle_and_the_card_flow_of_holdem_hands() -> None:
    table_id = open_holdem()
    rng = random.Random(8)
    for number in range(1, 4):
        play_hand(table_id, rng, seed=number)
    recorded = read_stream(service.stream_id(table_id))
    assert audit.verify_table_stream(recorded) == []
    # a board card that is not the top of the stock is caught
    index = next(i for i, e in enumerate(recorded) if e.type == "BoardDealt")
    tampered = recorded[index]
    swapped = dict(tampered.data, cards=list(reversed(tampered.data["cards"])))
    if swapped["cards"] == tampered.data["cards"]:
        swapped["burn"], swapped["cards"] = swapped["cards"], swapped["burn"]
    forged = [*recorded[:index], replace(tampered, data=swapped), *recorded[index + 1 :]]
    problems = audit.verify_table_stream(forged)
    assert len(problems) == 1 and "top of the stock" in problems[0].message


def test_the_table_page_and_its_log_render_a_holdem_hand_for_each_player() -> None:
    table_id = open_holdem()
    rng = random.Random(5)
    play_hand(table_id, rng, seed=4)
    service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=helpers.seed_bytes(9))
    )
    loaded = service.load(table_id)
    for seat, player in enumerate(PLAYERS):
        with translation.override("en"):
            html = rendering.fragments(loaded, player, 0)
        assert "Preflop" in html and "Blinds 5/10" in html
        own = loaded.state.hand.down[seat]
        others = [c for s, cards in enumerate(loaded.state.hand.down) if s != seat for c in cards]
        assert all(f'data-card="{card}"' in html for card in own)
        assert not any(f'data-card="{card}"' in html for card in others)
        assert not any(f"receives {card}" in html for card in others)
