"""A whole multi-table tournament on the live service (issue 5): 60 bots on 6-seat tables play to a winner
through Celery, the process manager and the tables; the checks of ``manage.py simulate_tournament`` hold."""

from __future__ import annotations

import pytest
from django.conf import settings

from eventstore.store import read_stream
from tests.service_harness import LiveService
from tournaments import mtt
from tournaments.simulation import simulate

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timers, pytest.mark.slow]


@pytest.fixture
def game_speed() -> dict[str, float]:
    return {"MAZZIERE_BOT_THINK": 0.0, "MAZZIERE_NEXT_HAND_DELAY": 0.0}


def test_sixty_bots_play_a_multi_table_tournament_to_the_end(live_service: LiveService) -> None:
    """T-SEAT-1, T-BAL-1/2, T-ELIM-1, T-PAY-1: positions 1..60 once each, chips conserved after every
    recorded hand across the tables, payouts summing to the pool, projections equal to the log."""
    assert settings.MAZZIERE_TIMERS == "celery"
    result = simulate(60, seed=5, fast_clock=True, timeout_s=600, starting_stack=300, level_ms=4_000)
    assert result["players"] == 60 and result["tables"] == 10
    order = result["finishing_order"]
    assert len(order) == 60 and len({r["player"] for r in order}) == 60  # every player placed once
    assert result["every_player_placed_once"]  # positions 1..60, ties (T-ELIM-1) counted as shared
    assert [r["position"] for r in order][:1] == [1]
    assert result["chips_conserved"], result
    assert result["prizes_sum_to_pool"] and sum(result["payouts"]) == result["prize_pool"]
    assert result["projections_verified"], result["projection_problems"]
    events = read_stream(mtt.stream_id(result["tournament_id"]))
    kinds = {e.type for e in events}
    assert {"PlayerMoved", "TableBroken", "FinalTableReached", "TournamentFinished"} <= kinds
    live_service.assert_no_errors()
