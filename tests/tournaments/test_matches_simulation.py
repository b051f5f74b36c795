"""``manage.py simulate_tournament --game CN`` on the live service (issue 20): a tournament of poker cinese
matches of bots, played by the real worker (the bots submit the solver's arrangements), the process manager
recording each table's ``MatchEnded``; the JSON summary with the final ranking and its checks
(``projections_verified`` true)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from eventstore.store import read_stream
from tables.models import Table
from tests.service_harness import LiveService
from tournaments.models import Tournament

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timers, pytest.mark.slow]


@pytest.fixture
def game_speed() -> dict[str, float]:
    return {"MAZZIERE_BOT_THINK": 0.0, "MAZZIERE_NEXT_HAND_DELAY": 0.0}


def simulate(*arguments: str) -> dict:
    out = io.StringIO()
    call_command("simulate_tournament", *arguments, "--external-workers", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def test_simulate_tournament_game_cn_knockout(live_service: LiveService) -> None:
    result = simulate("--game", "CN", "--players", "7", "--seats", "3", "--timeout", "600")
    assert result["finished"] and result["game"] == "CN" and result["format"] == "knockout", result
    assert result["projections_verified"] is True, result["projection_problems"]
    assert result["every_player_placed_once"] and result["one_winner"] and result["every_match_recorded"]
    ranking = result["final_ranking"]
    assert len(ranking) == 7 and ranking[0]["position"] == 1 and result["winner"] == ranking[0]["player"]
    # 7 at 3 seats: 3 tables (3, 2, 2), then 3 players at one table: two rounds, four matches
    assert result["rounds_played"] == 2 and result["matches_played"] == 4, result
    assert result["games_played"] == 3 * 4 + result["extra_games"]
    tables = Table.objects.filter(tournament_id=result["tournament_id"])
    assert {read_stream(f"table-{t.id}")[0].data["game"] for t in tables} == {"CN"}
    assert Tournament.objects.get(id=result["tournament_id"]).kind == "matches"
    live_service.assert_no_errors()


def test_simulate_tournament_game_cn_points(live_service: LiveService) -> None:
    result = simulate(
        "--game", "CN", "--players", "5", "--format", "points", "--rounds", "2", "--timeout", "600"
    )
    assert result["finished"] and result["format"] == "points" and result["rounds_played"] == 2, result
    assert result["projections_verified"] is True and result["every_player_placed_once"]
    assert result["one_winner"] is None and result["extra_games"] == 0
    assert result["matches_played"] == 2 * 2  # 5 at 4 seats: tables of 3 and 2, two rounds
    live_service.assert_no_errors()


def test_simulate_tournament_game_cn_refuses_bad_seats() -> None:
    with pytest.raises(CommandError, match="--seats must be between 2 and 4"):
        call_command("simulate_tournament", "--game", "CN", "--players", "4", "--seats", "5")
