"""``manage.py simulate_tournament --game PTL`` (and NTL, FTL; issue 19): a Telesina tournament of bots on the
live service to a winner, its tables playing the layout and distribution mode chosen (``--layout``,
``--distribution``: the bots turn a card up when the mode asks, TL-DEAL-2), chips conserved, projections
verified, ``verify_all`` clean over every Telesina hand."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from eventstore.store import read_stream
from tables.models import Table
from tests.service_harness import LiveService
from tests.tournaments.test_games import simulate_command

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timers, pytest.mark.slow]


@pytest.fixture
def game_speed() -> dict[str, float]:
    return {"MAZZIERE_BOT_THINK": 0.0, "MAZZIERE_NEXT_HAND_DELAY": 0.0}


def assert_won(result: dict, players: int) -> None:
    assert result["finished"] and result["players"] == players, result
    assert len(result["finishing_order"]) == players and result["finishing_order"][0]["position"] == 1
    assert result["chips_conserved"] is True and result["projections_verified"] is True, result
    assert result["every_player_placed_once"] and result["prizes_sum_to_pool"]
    assert result["hands_played"] > 0


@pytest.mark.parametrize(
    ("game", "layout", "distribution"),
    [("PTL", "due", "sempre"), ("NTL", "", ""), ("FTL", "croce", "primo_giro")],
)
def test_simulate_tournament_plays_telesina_to_a_winner(
    live_service: LiveService, game: str, layout: str, distribution: str
) -> None:
    options = (("--layout", layout) if layout else ()) + (
        ("--distribution", distribution) if distribution else ()
    )
    result = simulate_command(
        "--players", "5", "--seats", "3", "--game", game, "--level-seconds", "3", *options
    )
    assert_won(result, 5)
    assert result["run"]["game"] == game and result["game"] == game
    played: set[tuple[str, str]] = set()
    turned = 0
    for table in Table.objects.filter(tournament_id=result["tournament_id"]):
        for event in read_stream(f"table-{table.id}"):
            if event.type == "HandStarted":
                options_played = dict(map(tuple, event.data["options"]))
                played.add((options_played["layout"], options_played["distribution"]))
            turned += event.type == "CardTurnedUp"
    assert played == {(layout or "croce", distribution or "mai")}
    assert (turned > 0) == (distribution in ("sempre", "primo_giro"))
    out = io.StringIO()
    call_command("verify_all", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["ok"] and report["hands"] == result["hands_played"], report["failures"][:3]
    live_service.assert_no_errors()


def test_simulate_tournament_refuses_a_layout_that_does_not_fit() -> None:
    with pytest.raises(CommandError, match="--layout"):
        call_command(
            "simulate_tournament", "--players", "4", "--game", "PTL", "--seats", "6", "--layout", "bogus",
            stdout=io.StringIO(),
        )  # fmt: skip
