"""``manage.py simulate_cash`` (issue 21): a short bot soak of cash tables of mixed games ends with chips
conserved and the projections verified (``verify_all``), every kind of transfer made; bad arguments exit ≠ 0
with one line; and the hands of cash tables export to PHH with the players' names, seats, stakes and
currency, each hand starting from the stacks at its start (after top-ups) and replaying to the stacks the
table recorded."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from audit import export
from cashier import simulation
from engine.phh import loads_histories
from engine.replay import replay_histories
from eventstore.store import read_stream
from tables import service as tables

pytestmark = pytest.mark.django_db


def test_a_short_soak_conserves_chips_and_makes_every_transfer() -> None:
    out = io.StringIO()
    call_command(
        "simulate_cash",
        *("--tables", "3", "--seconds", "60", "--seed", "7", "--hands", "18", "--games", "NT,PIT,F7S"),
        stdout=out,
    )
    result = json.loads(out.getvalue())
    assert result["chips_conserved"] is True and result["projections_verified"] is True
    assert result["verified"] is True and result["failures"] == []
    assert result["stopped_by"] == "hands" and result["hands_played"] >= 18
    assert result["tables"] == 3 and result["games"] == {"F7S": 1, "NT": 1, "PIT": 1}
    assert result["events_appended"] > result["hands_played"] * 10
    transfers = result["transfers"]
    assert all(transfers[kind] > 0 for kind in ("buy_ins", "top_ups", "cash_outs", "final_cash_outs"))
    verification = result["verification"]
    assert verification["hands"] == result["hands_played"]
    # everyone cashed out at the end: every chip granted is back on a balance or in an Italian pot carried
    assert (
        verification["chips_on_balances"] + verification["chips_at_cash_tables"]
        == (verification["chips_granted_net"])
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--tables", "0", "--seconds", "5"], "--tables must be between 1 and 200"),
        (["--tables", "2", "--seconds", "0"], "--seconds must be more than 0"),
        (["--tables", "2", "--seconds", "5", "--games", "NT,XYZ"], "unknown game 'XYZ'"),
        (["--tables", "2", "--seconds", "5", "--games", "CN"], "CN is not played for chips"),
        (["--tables", "2", "--seconds", "5", "--hands", "0"], "--hands must be at least 1"),
    ],
)
def test_bad_arguments_exit_with_one_line_and_open_nothing(arguments: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message.replace("'", ".")):
        call_command("simulate_cash", *arguments, stdout=io.StringIO())
    assert not read_stream("table-1")


def _stacks_by_hand(table_id: int) -> dict[str, tuple[dict[str, int], dict[str, int]]]:
    """Each finished hand's id → (the players' stacks when it started, when it ended), from folding the
    table's stream: the truth the PHH export must agree with."""
    found: dict[str, tuple[dict[str, int], dict[str, int]]] = {}
    loaded = None
    start: tuple[str, dict[str, int]] | None = None
    for event in read_stream(tables.stream_id(table_id)):
        before = loaded
        loaded = tables.fold(loaded, [event], table_id)
        if event.type == "HandStarted" and before is not None:
            start = (str(event.data.get("hand_id", "")), _stacks(before))
        elif event.type == "HandEnded" and start is not None:
            found[start[0]] = (start[1], _stacks(loaded))
            start = None
    return found


def _stacks(loaded: Any) -> dict[str, int]:
    return {o.player: o.stack for o in loaded.facts.seats if o is not None}


def test_cash_hands_export_to_phh_with_names_seats_stakes_and_replay_to_the_same_stacks() -> None:
    """Issue 21, hand histories: the hands of simulated cash tables (hold'em, poker all'italiana, stud) as a
    ``.phhs`` each (``audit.export``): each hand names its players and their seats (1-based) and the table's
    stakes, ``currency = "XXX"`` (play chips), starts from the stacks the players had when it started
    (top-ups between hands included: some hand starts from more than its player finished the hand before
    with) and replays to the stacks the table recorded."""
    played = simulation.play(3, 60, seed=11, games=("NT", "PIT", "F7S"), hands=18)
    assert played.transfers["top_ups"] > 0
    topped_up = 0
    texts = {}
    for table in played.tables:
        text = texts[table.game] = export.table_phhs(table.table_id)
        histories = loads_histories(text, phhs=True)
        assert replay_histories(histories) is None  # every hand replays to its finishing stacks
        assert text.count('currency = "XXX"') == len(histories)
        truth = _stacks_by_hand(table.table_id)
        assert len(histories) == len(truth) >= 4
        last: dict[str, int] = {}
        for history in histories:
            assert history.players and all(name.startswith("bot-cash-s11-") for name in history.players)
            assert history.seats and all(1 <= seat <= table.seats for seat in history.seats)
            assert history.seat_count == table.seats and history.table == tables.stream_id(table.table_id)
            assert dict(history.metadata)["currency"] == "XXX"
            started, ended = truth[history.hand_id]
            starting = dict(zip(history.players, history.starting_stacks, strict=True))
            assert starting == {p: started[p] for p in history.players}
            assert history.finishing_stacks is not None
            finishing = dict(zip(history.players, history.finishing_stacks, strict=True))
            assert finishing == {p: ended[p] for p in history.players}
            topped_up += sum(1 for p, stack in starting.items() if p in last and stack > last[p])
            last.update(finishing)
    assert topped_up > 0  # a top-up between hands shows in the next hand's starting stacks
    assert "blinds_or_straddles = [5, 10" in texts["NT"] and "min_bet = 10" in texts["NT"]
    text = texts["PIT"]
    assert 'variant = "PIT"' in text and "tournament = false" in text and "invito = 10" in text
    text = texts["F7S"]
    assert "bring_in = 3" in text and "small_bet = 10" in text and "antes = [2, 2" in text
