"""Helpers of the cashier tests: players with a ledger, a cash table (not a tournament's) of any betting game,
hands played by the game's bot through the table service."""

from __future__ import annotations

import random
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from cashier import cash_tables
from engine.core import ForcedBets
from tables import access
from tables import service as tables
from tests.tables import helpers

FORCED = {
    "NT": ForcedBets(small_blind=5, big_blind=10),
    "F7S": ForcedBets(ante=1, bring_in=2, small_bet=10, big_bet=20),
    "PIT": ForcedBets(invito=10),
}


def player(name: str, groups: tuple[str, ...] = (access.PLAYER,)) -> Any:
    user = get_user_model().objects.create(username=name, password="!")
    for group in groups:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def cash_table(code: str = "NT", seats: int = 6, minimum: int = 1, maximum: int = 10**6) -> int:
    """An empty cash table of ``code`` (ring-game rules, ``tournament=False``, and its record: buy-ins from
    ``minimum`` to ``maximum``), opened as the operator does (:func:`cashier.cash_tables.open_cash_table`)."""
    return cash_tables.open_cash_table(
        name=f"cash {code}",
        game=code,
        stakes=FORCED[code],
        seats=seats,
        min_buy_in=minimum,
        max_buy_in=maximum,
        actor="direttore",
    )


def play_hand(table_id: int, rng: random.Random, seed: int) -> None:
    """One hand started with the service's shuffle and played to its end by the game's bot."""
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


def chips_at(table_id: int) -> int:
    facts = tables.load(table_id).facts
    return sum(s.stack for s in facts.seats if s is not None) + facts.carried


def stack_of(table_id: int, name: str) -> int | None:
    loaded = tables.load(table_id)
    seat = loaded.seat_of(name)
    if seat is None:
        return None
    occupant = loaded.facts.seats[seat]
    assert occupant is not None
    return occupant.stack
