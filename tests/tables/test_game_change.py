"""A table of a mixed-game tournament changes game between hands (issue 17, ``tables.service.change_game``):
``TableGameChanged`` then the new game's seating with the same stacks; the fold, a reload and a snapshot
give the new game; hands are numbered on (seeds, hand ids); the page renders the new game's log; a change
during a hand or at a closed table is refused and appends nothing."""

from __future__ import annotations

import random

import pytest

from audit import shuffles as audit
from engine.core import ForcedBets, find_game
from eventstore.store import read_stream
from tables import rendering, service
from tables.models import HandSeed, Table
from tests.tables import helpers

pytestmark = pytest.mark.django_db

PLAYERS = ("anna", "bruno", "carla")


def config(code: str, forced: ForcedBets) -> object:
    return find_game(code).table_config(
        seats=4, tournament=True, forced=forced, action_time_ms=30_000, time_bank_ms=0
    )


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


def test_a_table_changes_from_holdem_to_poker_all_italiana_between_hands() -> None:
    seated = [(seat, player, 500) for seat, player in enumerate(PLAYERS)]
    opened = service.open_table(
        "Misto", config("NT", ForcedBets(small_blind=5, big_blind=10)), seated, game="NT"
    )
    table_id = opened.table_id
    rng = random.Random(7)
    seed = 1
    while service.load(table_id).hand_number < 2 or service.load(table_id).facts.carried:
        play_hand(table_id, rng, seed)
        seed += 1
    before = service.load(table_id)
    stacks = {o.player: o.stack for o in before.facts.seats if o is not None and o.stack > 0}
    played = before.hand_number
    after = service.change_game(
        table_id, "PIT", config("PIT", ForcedBets(invito=10)), expected_version=before.version
    )
    assert after.game == "PIT" and after.hands_before == played and after.hand_number == played
    assert {o.player: o.stack for o in after.facts.seats if o is not None} == stacks
    events = read_stream(service.stream_id(table_id))
    changed = next(e for e in events if e.type == "TableGameChanged")
    assert changed.data["from_game"] == "NT" and changed.data["game"] == "PIT"
    assert changed.data["hands_before"] == played
    # the fold of the log, and a load from the snapshot, give the same table
    service.forget_cache()
    assert service.load(table_id, cached=False) == after
    assert service.fold(None, events, table_id) == after
    # hands go on numbered after the hold'em ones, with their own seeds
    while service.load(table_id).facts.hand_number == 0 or service.load(table_id).facts.carried:
        play_hand(table_id, rng, seed)
        seed += 1
    loaded = service.load(table_id)
    assert loaded.hand_number == played + loaded.facts.hand_number
    assert Table.objects.get(id=table_id).hand_number == loaded.hand_number
    assert not HandSeed.objects.filter(table_id=table_id).exists()  # every seed revealed
    assert audit.verify_table_stream(read_stream(service.stream_id(table_id))) == []
    # the page renders the new game's log (the old game's events are not read as the new game's)
    html = rendering.fragments(loaded, "anna", 0)
    assert "Nuovo livello: si gioca a Poker all" in html  # the default language
    # the header counts the table's hands across games: not "Hand 1" again after the change
    page = rendering.table_html(loaded, "anna")
    assert f"Mano {loaded.hand_number} " in page and loaded.hand_number > loaded.facts.hand_number


def test_no_change_during_a_hand_or_at_a_closed_table() -> None:
    table_id = service.open_table(
        "Misto",
        config("PIT", ForcedBets(invito=10)),
        [(s, p, 500) for s, p in enumerate(PLAYERS)],
        game="PIT",
    ).table_id
    service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=helpers.seed_bytes(1))
    )
    version = service.load(table_id).version
    with pytest.raises(service.BadRequest):
        service.change_game(table_id, "NT", config("NT", ForcedBets(small_blind=5, big_blind=10)))
    assert service.load(table_id).version == version
    with pytest.raises(service.StaleVersion):
        service.change_game(
            table_id, "FIT", config("FIT", ForcedBets(invito=10)), expected_version=version - 1
        )


def test_a_player_sitting_out_stays_out_after_the_change() -> None:
    # a player away from the table is not brought back by the next game of a mixed table or a giro pazzo:
    # the sit-out carries over (T-SITOUT-1), the others play on; the player's own return ends it
    table_id = service.open_table(
        "Misto",
        config("NT", ForcedBets(small_blind=5, big_blind=10)),
        [(s, p, 500) for s, p in enumerate(PLAYERS)],
        game="NT",
    ).table_id
    service.act(table_id, "bruno", "sit_out")
    before = service.load(table_id)
    assert [o.sitting_out for o in before.facts.seats if o is not None] == [False, True, False]
    after = service.change_game(
        table_id, "PIT", config("PIT", ForcedBets(invito=10)), expected_version=before.version
    )
    assert [o.sitting_out for o in after.facts.seats if o is not None] == [False, True, False]
    service.forget_cache()
    assert service.fold(None, read_stream(service.stream_id(table_id)), table_id) == after
    service.act(table_id, "bruno", "return")
    assert not any(o.sitting_out for o in service.load(table_id).facts.seats if o is not None)
