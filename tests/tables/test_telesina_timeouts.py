"""Telesina's turn-up time-out at the service (issue 19, TL-DEAL-2): when a player lets the time run out on
"which card do you turn up", the table's timer turns up the card dealt last, records it as automatic, and
sits the player out (IT-SIT-1); a sitting-out player's card is turned the same way, so the hand goes on
(a tournament of bots never stalls on a turn-up: ``simulate_tournament --distribution sempre``)."""

from __future__ import annotations

import time

import pytest

from engine.core import ForcedBets, find_game
from eventstore.store import read_stream
from tables import service, tasks
from tests.tables.test_table_families import start

pytestmark = pytest.mark.django_db

NAMES = ("anna", "bruno")


def test_the_turn_up_time_out_turns_the_card_dealt_last_and_sits_the_player_out(players: dict) -> None:
    config = find_game("PTL").table_config(
        seats=2, tournament=True, forced=ForcedBets(invito=10), action_time_ms=1, time_bank_ms=0,
        layout="una", distribution="sempre",
    )  # fmt: skip
    table_id = service.open_table(
        "T", config, [(seat, name, 1000) for seat, name in enumerate(NAMES)], game="PTL", first_button=0
    ).table_id
    loaded = start(table_id)
    hand = loaded.state.hand
    assert hand is not None and hand.turning_up
    (seat,) = loaded.rules.to_act(loaded.state)
    newest = hand.down[seat][-1]
    time.sleep(0.01)
    before = len(read_stream(service.stream_id(table_id)))
    assert tasks.run_timeout(table_id, loaded.version) is True
    appended = read_stream(service.stream_id(table_id), before)
    types = [event.type for event in appended]
    assert types[:3] == ["PlayerTimedOut", "PlayerSatOut", "CardTurnedUp"], types
    turned = appended[2].data
    assert turned["seat"] == seat and turned["automatic"] is True and turned["card"] == str(newest)
    loaded = service.load(table_id)
    assert loaded.state.seats[seat].sitting_out
    assert newest in loaded.state.hand.up[seat]
    # the same timer twice acts once
    after = len(read_stream(service.stream_id(table_id)))
    assert tasks.run_timeout(table_id, loaded.version - 1) is False
    assert len(read_stream(service.stream_id(table_id))) == after
