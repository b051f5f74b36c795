"""Tournaments of every game on the live service (issue 17): ``manage.py simulate_tournament --game CODE``
plays a bot tournament of at least three tables to a winner and prints its JSON summary with its checks;
a mixed-game tournament (NIT → PIT → FIT, one level each) changes its tables' game between hands
(``TableGameChanged``) at the first hand of each level (T-LEVEL-1), chips conserved across the changes.
Bad input to the command is refused on stderr with exit status ≠ 0."""

from __future__ import annotations

import io
import itertools
import json

import pytest
from django.core.management import CommandError, call_command

from engine.core import ForcedBets, find_game
from engine.tournament.sitgo import Level, TournamentConfig
from eventstore.store import read_stream
from tables import service as tables
from tables.models import Table
from tests.service_harness import LiveService, wait_for
from tournaments import mtt, service
from tournaments.models import Tournament
from tournaments.views import bots

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timers, pytest.mark.slow]


@pytest.fixture
def game_speed() -> dict[str, float]:
    return {"MAZZIERE_BOT_THINK": 0.0, "MAZZIERE_NEXT_HAND_DELAY": 0.0}


def simulate_command(*arguments: str) -> dict:
    """``manage.py simulate_tournament`` with the service already running (the live_service fixture)."""
    out = io.StringIO()
    call_command(
        "simulate_tournament",
        *arguments,
        "--external-workers",
        "--fast-clock",
        stdout=out,
        stderr=io.StringIO(),
    )
    return json.loads(out.getvalue())


def assert_won_and_checked(result: dict, players: int) -> None:
    assert result["finished"] and result["players"] == players and result["tables"] >= 3, result
    assert len(result["finishing_order"]) == players and result["finishing_order"][0]["position"] == 1
    assert result["chips_conserved"] is True and result["projections_verified"] is True, result
    assert result["every_player_placed_once"] and result["prizes_sum_to_pool"]
    assert result["hands_played"] > 0 and result["events_appended"] > 0


def test_simulate_tournament_game_nit_plays_three_tables_to_a_winner(live_service: LiveService) -> None:
    """``--game NIT``: poker all'italiana, no limit, over three 5-seat tables (T-SEAT-1, T-BAL-1/2)."""
    result = simulate_command("--players", "13", "--seats", "5", "--game", "NIT", "--level-seconds", "4")
    assert_won_and_checked(result, 13)
    assert result["run"]["game"] == "NIT" and result["game"] == "NIT"
    tournament = mtt.load(result["tournament_id"])[1]
    assert tournament.config is not None and tournament.config.game == "NIT"
    ids = Table.objects.filter(tournament_id=result["tournament_id"]).values_list("id", flat=True)
    opened = [read_stream(f"table-{table_id}")[0] for table_id in ids]
    assert {event.data["game"] for event in opened} == {"NIT"}
    live_service.assert_no_errors()


def test_a_mixed_game_tournament_changes_game_at_each_level(live_service: LiveService) -> None:
    """Mixed games, T-LEVEL-1: the levels rotate NIT → PIT → FIT; each table changes game between hands at
    the first hand of a level of another game (``TableGameChanged`` then the new game's seating, stacks
    kept), its hands numbered on; chips conserved and projections rebuilt equal across the changes."""
    # 1-second levels: the service plays such a tournament to its end in a few seconds, and with 3-second
    # levels it once ended inside the first level, no table having changed game (seen in the full suite)
    result = simulate_command(
        "--players", "12", "--seats", "4", "--rotation", "NIT,PIT,FIT", "--level-seconds", "1"
    )
    assert_won_and_checked(result, 12)
    changes = []
    for table in Table.objects.filter(tournament_id=result["tournament_id"]):
        events = read_stream(f"table-{table.id}")
        games = [events[0].data["game"]]
        numbers = []
        for index, event in enumerate(events):
            if event.type == "TableGameChanged":
                assert event.data["from_game"] == games[-1] != event.data["game"]
                assert event.data["hands_before"] == len(numbers)
                # the new game seats the players with their stacks in the same append
                assert events[index + 1].metadata["at"] == event.metadata["at"]
                games.append(event.data["game"])
                changes.append(event)
            if event.type == "HandStarted":
                numbers.append(event.data.get("number"))
        for a, b in itertools.pairwise(games):
            assert (a, b) in {("NIT", "PIT"), ("PIT", "FIT"), ("FIT", "NIT"), ("NIT", "FIT"), ("PIT", "NIT"),
                              ("FIT", "PIT")}  # fmt: skip
    assert changes, "no table changed game"
    assert {find_game(e.data["game"]).code for e in changes} >= {"PIT"}
    # the auditors' checks read each game's events with that game: shuffles, card flow, every hand replayed
    out = io.StringIO()
    call_command("verify_all", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["ok"] and report["hands"] == result["hands_played"], report["failures"][:3]
    live_service.assert_no_errors()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("--game", "XYZ"), "unknown game 'XYZ'"),
        (("--game", "NIT", "--seats", "7"), "between 2 and 6"),
        (("--rotation", "NIT,QQ"), "unknown game 'QQ'"),
    ],
)
def test_simulate_tournament_refuses_bad_input(arguments: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("simulate_tournament", "--players", "4", *arguments, stdout=io.StringIO())


def test_simulate_tournament_game_nt_plays_a_holdem_tournament_to_a_winner(live_service: LiveService) -> None:
    """``--game NT``: no-limit hold'em over three 6-seat tables, blinds and a big-blind ante by level
    (G-BLIND-1, G-ANTE-1), blind-game balancing (T-BAL-1), chips conserved at every recorded hand."""
    result = simulate_command("--players", "16", "--seats", "6", "--game", "NT", "--level-seconds", "3")
    assert_won_and_checked(result, 16)
    assert result["game"] == "NT" and result["forced_bets"]["big_blind"] > 0
    ids = Table.objects.filter(tournament_id=result["tournament_id"]).values_list("id", flat=True)
    assert {read_stream(f"table-{table_id}")[0].data["game"] for table_id in ids} == {"NT"}
    events = read_stream(mtt.stream_id(result["tournament_id"]))
    levels = [e.data for e in events if e.type == "LevelStarted"]
    first = levels[0]
    assert first["game"] == "NT" and first["forced"]["big_blind"] == 2 * first["forced"]["small_blind"]
    live_service.assert_no_errors()


def test_a_mixed_tournament_of_italian_poker_and_holdem(live_service: LiveService) -> None:
    """Mixed games across families: NIT → NT levels; a table changes between poker all'italiana (invito)
    and hold'em (blinds) between hands, stacks kept, to a winner."""
    # 1-second levels, as the NIT,PIT,FIT rotation above: with 3 s a fast field (no-limit all-ins at four
    # seats) sometimes had its winner before the first level changed the game (2 failures in 3 runs here)
    result = simulate_command(
        "--players", "12", "--seats", "4", "--rotation", "NIT,NT", "--level-seconds", "1"
    )
    assert_won_and_checked(result, 12)
    kinds = set()
    for table_id in Table.objects.filter(tournament_id=result["tournament_id"]).values_list("id", flat=True):
        kinds |= {(e.data["from_game"], e.data["game"]) for e in read_stream(f"table-{table_id}")
                  if e.type == "TableGameChanged"}  # fmt: skip
    assert ("NIT", "NT") in kinds, kinds
    live_service.assert_no_errors()


def _where(tournament_id: int) -> str:
    """Where a sit-and-go that did not finish stands: its row, its table's facts and last events."""
    tournament = Tournament.objects.get(id=tournament_id)
    if tournament.table_id is None:
        return f"tournament {tournament_id}: {tournament.status}, no table"
    loaded = tables.load(tournament.table_id, cached=False)
    tail = read_stream(f"table-{tournament.table_id}")[-8:]
    return (
        f"tournament {tournament_id}: {tournament.status}; table {tournament.table_id} v{loaded.version} "
        f"game {loaded.game}, facts {loaded.facts}\nlast events: "
        + "; ".join(f"v{e.version} {e.type} {e.data}" for e in tail)
    )


@pytest.mark.parametrize("mixed", [False, True], ids=["NT", "PIT then NT"])
def test_a_holdem_sit_and_go_plays_to_a_winner(live_service: LiveService, mixed: bool) -> None:
    """A sit-and-go of no-limit hold'em (or poker all'italiana then hold'em: a mixed sit-and-go), six bots,
    blinds rising by level: the winner holds every chip, the table's game as the levels say, projections
    identical to the log."""
    first = (
        Level(10, 1500, ForcedBets(invito=10), "PIT") if mixed else Level(10, 1500, ForcedBets(5, 0, 5, 10))
    )
    levels = (
        first,
        *(
            Level(bb, 1500, ForcedBets(small_blind=bb // 2, big_blind=bb, big_blind_ante=bb))
            for bb in (40, 100)
        ),
        Level(300, 60_000, ForcedBets(small_blind=150, big_blind=300, big_blind_ante=300)),
    )
    config = TournamentConfig("SNG", seats=6, starting_stack=300, levels=levels, action_time_ms=5000,
                              time_bank_ms=0, game="NT")  # fmt: skip
    tournament_id = service.create(config, "capo", bots(6))
    wait_for(
        lambda: (
            bool(live_service.errors.records)
            or Tournament.objects.filter(id=tournament_id, status="finished").exists()
        ),
        120,
        "the sit-and-go to finish",
        interval=0.2,
        details=lambda: _where(tournament_id),
    )
    live_service.assert_no_errors()
    tournament = Tournament.objects.get(id=tournament_id)
    assert tournament.table_id is not None
    events = read_stream(f"table-{tournament.table_id}")
    assert events[0].data["game"] == ("PIT" if mixed else "NT")
    changes = [(e.data["from_game"], e.data["game"]) for e in events if e.type == "TableGameChanged"]
    assert changes == ([("PIT", "NT")] if mixed else [])
    loaded = tables.load(tournament.table_id)
    assert loaded.game == "NT"
    stacks = {o.player: o.stack for o in loaded.facts.seats if o is not None}
    assert stacks == {tournament.winner: 6 * 300}
    for hand in (e for e in events if e.type == "HandEnded"):
        assert sum(chips for _, chips in hand.data["stacks"]) + hand.data.get("carried", 0) == 6 * 300
    out = io.StringIO()
    call_command("verify_projections", stdout=out)
    assert "identical to the log" in out.getvalue()
