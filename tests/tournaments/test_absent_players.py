"""Issue 15, defect 4: a sit-and-go whose players never act reaches its winner on the live service.

Two persons (not bots) register for a 2-seat sit-and-go and never act. Their first turns time out (IT-SIT-1:
*dai carte*, then sit-out and check), and from then on everybody with chips sits out. The table used to
stall: the start task asked for a hand the engine refused (``NotEnoughPlayers``), logging an ERROR traceback
every second. Now T-SITOUT-1 deals the absent players in (``docs/rules-decisions.md``, "Invito and
sit-out") and the hands play by themselves until one player has every chip.
"""

from __future__ import annotations

import time
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command

from engine.tournament.sitgo import Level, TournamentConfig
from eventstore.store import read_stream
from tables import access
from tables import service as tables
from tests.service_harness import LiveService, wait_for
from tests.tournaments.test_sitgo_service import progress
from tournaments import service
from tournaments.models import Tournament

STACK = 300
PLAYERS = ("assente-1", "assente-2")


def absent_config() -> TournamentConfig:
    """Fast levels (the invito climbs from 10 to 150 in 4 s) and a 300 ms action time, no time bank."""
    levels = (Level(10, 1000), Level(20, 1000), Level(40, 1000), Level(80, 1000), Level(150, 60_000))
    return TournamentConfig("Assenti", seats=2, starting_stack=STACK, levels=levels, action_time_ms=300,
                            time_bank_ms=0, auto_start=True)  # fmt: skip


@pytest.mark.timers
@pytest.mark.django_db(transaction=True)
def test_two_players_who_never_act_reach_a_winner(live_service: LiveService) -> None:
    group, _ = Group.objects.get_or_create(name=access.PLAYER)
    for name in PLAYERS:
        get_user_model().objects.create_user(name).groups.add(group)
    began = time.monotonic()
    tournament_id = service.create(absent_config(), "direttore", list(PLAYERS))  # full: it starts
    assert Tournament.objects.get(id=tournament_id).status == "running"

    def finished() -> bool:
        if live_service.errors.records:  # the stall logged an ERROR every second: stop at the first
            return True
        return Tournament.objects.filter(id=tournament_id, status="finished").exists()

    wait_for(finished, 60, "the sit-and-go of absent players to finish", interval=0.2,
             details=lambda: progress(tournament_id))  # fmt: skip
    elapsed = time.monotonic() - began
    live_service.assert_no_errors()

    tournament = Tournament.objects.get(id=tournament_id)
    assert tournament.status == "finished" and tournament.winner in PLAYERS
    table_id = tournament.table_id
    assert table_id is not None
    events = read_stream(tables.stream_id(table_id))
    types = [e.type for e in events]
    # nobody acted: every action of the players is the engine's (timeouts, then their sit-out defaults)
    assert {e.metadata["actor"] for e in events} <= {"system", "direttore"}
    assert "PlayerSatOut" in types and "PlayerReturned" not in types
    # every hand dealt both players in, also those where both sat out (T-SITOUT-1)
    started = [e for e in events if e.type == "HandStarted"]
    assert started and all(sorted(e.data["dealt"]) == [0, 1] for e in started)
    # chips are conserved at every hand end, and the winner holds them all
    hands = [e for e in events if e.type == "HandEnded"]
    for hand in hands:
        assert sum(chips for _, chips in hand.data["stacks"]) + hand.data["carried"] == 2 * STACK, hand.data
    loaded = tables.load(table_id)
    assert {o.player: o.stack for o in loaded.state.seats if o is not None} == {tournament.winner: 2 * STACK}
    assert loaded.closed
    # the auditors' checks pass: shuffles, chips per hand, the PHH replay of every hand
    out = StringIO()
    call_command("verify_all", "--stream", tables.stream_id(table_id), stdout=out, stderr=StringIO())
    assert out.getvalue().rstrip().endswith(": OK"), out.getvalue()
    print(f"\nabsent sit-and-go: {len(hands)} hands, winner {tournament.winner}, {elapsed:.1f} s")
