"""Timers carry ``(table, version)``: a late timer does nothing, an early one appends nothing and is
rescheduled, a due one times the player out (IT-SIT-1)."""

from __future__ import annotations

import time

import pytest

from engine.italian.model import TableConfig
from eventstore.store import read_stream
from tables import service, tasks, timers
from tests.tables.helpers import events, open_three, start_hand, to_act

pytestmark = pytest.mark.django_db

QUICK = TableConfig(seats=3, action_time_ms=1, time_bank_ms=0)


def test_timer_after_the_player_acted_does_nothing(players, table) -> None:
    version = service.load(table).version
    _, player = to_act(table)
    service.act(table, player, "decline_blind", expected_version=version)
    after = events(table)
    assert tasks.run_timeout(table, version) is False
    assert events(table) == after
    assert service.load(table).state.hand.phase.value == "opening"  # DAI CARTE: the cards were dealt


def test_timer_before_the_deadline_appends_nothing_and_is_rescheduled(monkeypatch, players, table) -> None:
    loaded = service.load(table)
    rescheduled: list[service.Loaded] = []
    monkeypatch.setattr(timers, "schedule", rescheduled.append)
    before = events(table)
    assert tasks.run_timeout(table, loaded.version) is False  # TimeoutTooEarly: no exception escapes
    assert events(table) == before
    assert [r.version for r in rescheduled] == [loaded.version]  # the timer is queued again for later


def test_timer_after_the_deadline_times_the_player_out(players) -> None:
    table = open_three(config=QUICK)
    loaded = start_hand(table)
    seat, _ = to_act(table)
    time.sleep(0.01)
    before = events(table)
    assert tasks.run_timeout(table, loaded.version) is True
    appended = read_stream(service.stream_id(table), before)
    assert [e.data for e in appended if e.type == "PlayerTimedOut"] == [{"seat": seat}]
    assert {e.metadata["actor"] for e in appended} == {"system"}
    assert "BlindDeclined" in [e.type for e in appended]  # out of time in the blind round: DAI CARTE
    assert service.load(table).state.hand.phase.value == "opening"
    # the same timer delivered twice acts once
    after = events(table)
    assert tasks.run_timeout(table, loaded.version) is False
    assert events(table) == after


def test_timer_in_a_betting_round_sits_the_player_out(players) -> None:
    table = open_three(config=QUICK)
    start_hand(table)
    loaded = service.load(table)
    while loaded.state.hand.phase.value == "blind":  # everyone lets the time run out: DAI CARTE
        time.sleep(0.005)
        assert tasks.run_timeout(table, loaded.version) is True
        loaded = service.load(table)
    seat, _ = to_act(table)
    time.sleep(0.005)
    before = events(table)
    assert tasks.run_timeout(table, loaded.version) is True
    types = [e.type for e in read_stream(service.stream_id(table), before)]
    assert types[:2] == ["PlayerTimedOut", "PlayerSatOut"]
    assert service.load(table).state.seats[seat].sitting_out


def test_start_hand_task_runs_once_per_version(players) -> None:
    table = open_three()
    version = service.load(table).version
    assert tasks.run_start_hand(table, version) is True
    loaded = service.load(table)
    assert loaded.state.hand is not None and loaded.state.hand_number == 1
    after = events(table)
    assert tasks.run_start_hand(table, version) is False  # stale: the hand already started
    assert tasks.run_start_hand(table, loaded.version) is False  # a hand is running: nothing to start
    assert events(table) == after


# --- issue 15, defect 4: the start task and the sweep agree with the engine ---------------------------------


def test_bug_a_start_the_engine_refuses_is_not_tried(players, caplog) -> None:
    """A ring table where everyone sits out: the engine deals no hand (two players present are needed,
    IT-ANTE-1), but ``can_start`` counted players with chips, so the start task (and the sweep, every
    second) tried it and logged the refusal with its traceback. Now ``can_start`` asks the engine."""
    table = open_three(config=TableConfig(seats=3, tournament=False))
    for player in ("anna", "bruno", "carla"):
        service.act(table, player, "sit_out")
    loaded = service.load(table)
    assert not timers.can_start(loaded)
    before = events(table)
    with caplog.at_level("DEBUG", logger="mazziere"):
        for _ in range(3):  # the sweep's rounds
            assert tasks.run_start_hand(table, loaded.version) is False
    assert events(table) == before
    assert [r for r in caplog.records if r.levelname == "ERROR"] == []
    # one player back: still nobody to play against; two back: the hand starts
    service.act(table, "anna", "return")
    assert not timers.can_start(service.load(table))
    service.act(table, "bruno", "return")
    loaded = service.load(table)
    assert timers.can_start(loaded)
    assert tasks.run_start_hand(table, loaded.version) is True
    assert sorted(service.load(table).state.hand.dealt) == [0, 1]  # carla sits out: not dealt in


def test_a_refused_start_is_logged_once_not_at_every_sweep(players, caplog) -> None:
    """The timekeeper tries an overdue job again every second; its refusal is logged once at a table version
    (with the traceback), the next ones at DEBUG. The refusal used here: a start naming an empty seat for the
    button (the engine's ``SeatError``), through the runner the start task uses."""
    from engine.italian.model import StartHand

    seated = [(0, "anna", 500), (1, "bruno", 500)]
    loaded = service.open_table("T", TableConfig(seats=3), seated)
    table = loaded.table_id
    with caplog.at_level("DEBUG", logger="mazziere"):
        for _ in range(5):
            refused_start = lambda _, at: StartHand((), at, None, 2)  # noqa: E731
            assert tasks._run(table, loaded.version, refused_start, "start") is False
    refused = [r for r in caplog.records if r.levelname == "ERROR"]
    assert len(refused) == 1, [r.getMessage() for r in refused]
    assert len([r for r in caplog.records if "refused again" in r.getMessage()]) == 4
    assert "start at table" in refused[0].getMessage() and refused[0].exc_info is not None
    assert "Il posto 2 è vuoto" in str(refused[0].exc_info[1])


def test_the_first_hand_starts_when_the_drawn_button_seat_was_emptied(players) -> None:
    """G-DRAW-1 drew seat 1 for the button, then its player left before the first hand (moved by the
    tournament): the button goes to the next seat with chips (G-BTN-1) instead of every start being refused
    forever (the table stalled)."""
    from engine.italian.model import RemovePlayer

    seated = [(seat, name, 500) for seat, name in enumerate(("anna", "bruno", "carla"))]
    loaded = service.open_table("T", TableConfig(seats=3), seated, first_button=1)
    service.handle(loaded.table_id, lambda loaded, at: RemovePlayer(1, at))
    assert tasks.run_start_hand(loaded.table_id, service.load(loaded.table_id).version)
    hand = service.load(loaded.table_id).state.hand
    assert hand is not None and hand.button == 2
