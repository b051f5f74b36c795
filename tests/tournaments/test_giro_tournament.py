"""A tournament with the giro pazzo option (issue 19, TL-GIRO-1) on the live service: bots play poker
all'italiana to a winner; big showdowns start giri pazzi (Telesina, the bots' tables choosing at once for
them, recorded as automatic); chips are conserved, every hand of a giro has exactly one choice, the table
goes back to its game after each giro, and ``verify_all`` is clean (replay of every hand, Telesina's
included, hash chains, shuffles)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from eventstore.store import read_stream
from tables import service
from tables.models import Table
from tests.service_harness import LiveService
from tournaments.simulation import simulate

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timers, pytest.mark.slow]


@pytest.fixture
def game_speed() -> dict[str, float]:
    return {"MAZZIERE_BOT_THINK": 0.0, "MAZZIERE_NEXT_HAND_DELAY": 0.0}


def test_an_italian_tournament_with_the_giro_pazzo_plays_to_a_winner(live_service: LiveService) -> None:
    result = simulate(
        8, seed=3, fast_clock=True, seats=4, timeout_s=900, starting_stack=400, level_ms=6_000, game="PIT",
        giro_pazzo=True,
    )  # fmt: skip
    assert result["finished"] and result["every_player_placed_once"], result
    assert result["chips_conserved"] and result["prizes_sum_to_pool"], result
    assert result["projections_verified"], result["projection_problems"]
    giro = result["giro_pazzo"]
    assert giro["started"] >= 1, giro
    assert giro["choices"] >= giro["hands"] >= giro["ended"], giro
    for table_id in Table.objects.filter(tournament_id=result["tournament_id"]).values_list("id", flat=True):
        recorded = read_stream(service.stream_id(table_id))
        opened = recorded[0]
        assert opened.data.get("giro_pazzo") is True
        chosen = 0
        for event in recorded:  # exactly one choice before each giro hand, the table's, automatic
            if event.type == "VariantChosen":
                chosen += 1
                assert event.metadata.get("automatic") == "giro" and event.data["automatic"]
            if event.type == "GiroHandStarted":
                assert chosen == 1, table_id
                chosen = 0
        changes = [e for e in recorded if e.type == "TableGameChanged"]
        assert all(e.data["game"] == ("PTL" if e.data.get("giro") else "PIT") for e in changes)
    out = io.StringIO()
    call_command("verify_all", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["ok"], report["failures"][:5]
    print(f"\ngiro tournament: {result['hands_played']} hands, giro {giro}, {result['wall_time_s']} s")
