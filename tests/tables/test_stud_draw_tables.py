"""Seven card stud (``F7S``) and five card draw (``N5D``) tables through the service (issue 16): opened
with their game code, hands started with the service's shuffle and played by the game's bot to the end,
the seeds revealed, chips conserved, the table reloaded from its events equal to the live one, and the
audit checking the card flow — the draw's reshuffles and stud's 7th street included (FD-1, ST-1)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from audit import shuffles as audit
from engine.core import ForcedBets, find_game
from eventstore.store import read_stream
from tables import service
from tests.tables import helpers

pytestmark = pytest.mark.django_db

PLAYERS = ("anna", "bruno", "carla", "dario", "elena", "fabio")
FORCED = {
    "F7S": ForcedBets(ante=1, bring_in=2, small_bet=10, big_bet=20),
    "N5D": ForcedBets(small_blind=5, big_blind=10),
}


def open_table(code: str, players: int, stack: int = 400) -> int:
    game = find_game(code)
    config = game.table_config(
        seats=players, tournament=True, forced=FORCED[code], action_time_ms=30_000, time_bank_ms=10_000
    )
    seated = [(s, p, stack) for s, p in enumerate(PLAYERS[:players])]
    return service.open_table(game.short_name, config, seated, game=code).table_id


def play_hand(table_id: int, rng: random.Random, seed: int) -> None:
    service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=helpers.seed_bytes(seed))
    )
    for _ in range(500):
        loaded = service.load(table_id)
        if not loaded.facts.in_hand:
            return
        service.handle(
            table_id,
            lambda loaded, at: loaded.rules.bot_command(loaded.state, min(loaded.facts.to_act), rng, at),
        )
    raise AssertionError("the hand does not end")


@pytest.mark.parametrize(("code", "players"), [("F7S", 6), ("N5D", 6)])
def test_bot_hands_play_to_the_end_through_the_service_and_pass_the_audit(code: str, players: int) -> None:
    table_id = open_table(code, players)
    rng = random.Random(5)
    played = 0
    for number in range(1, 9):
        if not find_game(code).can_start_hand(service.load(table_id).state):
            break
        play_hand(table_id, rng, seed=number)
        played += 1
        facts = service.load(table_id).facts
        assert facts.hand_number == number and not facts.in_hand and not facts.reveal_due
        assert sum(s.stack for s in facts.seats if s is not None) == 400 * players
    assert played >= 2
    recorded = read_stream(service.stream_id(table_id))
    assert audit.verify_table_stream(recorded) == []
    live = service.load(table_id)
    service.forget_cache()
    assert service.load(table_id).state == live.state


def test_players_bring_in_and_complete_by_name() -> None:
    table_id = open_table("F7S", 3)
    service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=helpers.seed_bytes(2))
    )
    loaded = service.load(table_id)
    seat = min(loaded.facts.to_act)
    kinds = [(a.kind, a.label) for a in loaded.rules.legal_actions(loaded.state, seat)]
    assert kinds == [("bring_in", "Bring-in"), ("complete", "Complete")]
    with pytest.raises(loaded.rules.illegal_action, match="ST-1"):
        service.act(table_id, PLAYERS[seat], "fold")
    service.act(table_id, PLAYERS[seat], "bring_in")
    after = service.load(table_id)
    assert after.state.hand.current_bet == 2
    nxt = min(after.facts.to_act)
    service.act(table_id, PLAYERS[nxt], "complete", amount=10)
    assert service.load(table_id).state.hand.current_bet == 10


def test_players_draw_by_name_and_the_audit_catches_a_forged_reshuffle() -> None:
    table_id = open_table("N5D", 6)
    service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=helpers.seed_bytes(4))
    )
    for _ in range(20):  # everyone calls or checks before the draw
        loaded = service.load(table_id)
        hand = loaded.state.hand
        if hand.drawing:
            break
        seat = min(loaded.facts.to_act)
        kinds = [a.kind for a in loaded.rules.legal_actions(loaded.state, seat)]
        service.act(table_id, PLAYERS[seat], "check" if "check" in kinds else "call")
    for _ in range(6):  # everyone changes five cards: the stock runs out
        loaded = service.load(table_id)
        seat = min(loaded.facts.to_act)
        mine = loaded.state.hand.down[seat]
        service.act(table_id, PLAYERS[seat], "discard", cards=[str(card) for card in mine])
    loaded = service.load(table_id)
    assert loaded.state.hand.reshuffles == 1
    rng = random.Random(1)
    while service.load(table_id).facts.in_hand:
        service.handle(
            table_id,
            lambda loaded, at: loaded.rules.bot_command(loaded.state, min(loaded.facts.to_act), rng, at),
        )
    recorded = read_stream(service.stream_id(table_id))
    assert audit.verify_table_stream(recorded) == []
    index = next(i for i, e in enumerate(recorded) if e.type == "StockReshuffled")
    tampered = recorded[index]
    forged_data = dict(tampered.data, stock=list(reversed(tampered.data["stock"])))
    forged = [*recorded[:index], replace(tampered, data=forged_data), *recorded[index + 1 :]]
    problems = audit.verify_table_stream(forged)
    assert len(problems) == 1 and "reshuffle 1" in problems[0].message


def test_the_log_describes_stud_and_draw_events() -> None:
    from django.utils import translation

    from engine.cards import parse_cards
    from engine.core.model import HandStarted, StockReshuffled
    from engine.core.view import CardsDealtHidden, StockReshuffledPublic
    from tables.rendering import describe

    translation.activate("en")  # the page's sentences in English (issue 17's table page)
    stud = find_game("F7S")
    names = {0: "anna", 1: "bruno"}
    started = HandStarted(1, "", 1, -1, -1, (0, 1), FORCED["F7S"], (), 0)
    assert describe(started, names, stud) == "Hand 1: Ante 1 · Bring-in 2 · Bets 10/20."
    up = CardsDealtHidden(1, 2, parse_cards("Kd"), 0)
    assert describe(up, names, stud) == "bruno receives 2 cards; bruno receives Kd face up"
    assert describe(StockReshuffledPublic(4, True), names, stud).startswith("Too few cards")
    reshuffled = StockReshuffled(parse_cards("2c3c"), parse_cards("2c3c"))
    assert describe(reshuffled, names, find_game("N5D")) == "The stock ran out: the discards are reshuffled."
    translation.deactivate()


@pytest.mark.parametrize("code", ["F7S", "N5D"])
def test_the_table_page_renders_a_hand_for_each_player_without_another_players_down_cards(code: str) -> None:
    from django.utils import translation

    from tables import rendering

    table_id = open_table(code, 4)
    rng = random.Random(5)
    play_hand(table_id, rng, seed=4)
    service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=helpers.seed_bytes(9))
    )
    for _ in range(6):  # a few decisions into the hand (stud: past the bring-in, up cards out)
        loaded = service.load(table_id)
        if not loaded.facts.in_hand:
            break
        service.handle(
            table_id,
            lambda loaded, at: loaded.rules.bot_command(loaded.state, min(loaded.facts.to_act), rng, at),
        )
    loaded = service.load(table_id)
    hand = loaded.state.hand
    assert hand is not None
    for seat, player in enumerate(PLAYERS[:4]):
        with translation.override("en"):
            html = rendering.fragments(loaded, player, 0)
        own = hand.down[seat]
        others = [c for s, cards in enumerate(hand.down) if s != seat for c in cards]
        assert all(f'data-card="{card}"' in html for card in own)
        assert not any(f'data-card="{card}"' in html for card in others)
        this_hand = html[html.rindex("Hand 2:") :]  # the log of the last hand's cards may name these cards
        assert not any(f"receives {card}" in this_hand for card in others)
        assert ("Ante 1 · Bring-in 2 · Bets 10/20" in html) == (code == "F7S")
        assert ("Blinds 5/10" in html) == (code == "N5D")
        up = [c for cards in hand.up for c in cards]
        assert all(f'data-card="{card}"' in html for card in up)  # stud's up cards: everyone sees them
