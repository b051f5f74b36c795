"""A whole sit-and-go on the live service: 6 bots play to a winner with Celery timers, the timekeeper's
clock and the tournament process manager, then the projections are checked against the log."""

from __future__ import annotations

import json
import time
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from engine.tournament.sitgo import Level, TournamentConfig
from eventstore.store import RecordedEvent, read_stream
from tables import access
from tables import service as tables
from tables.models import Table
from tests.service_harness import LiveService, wait_for
from tests.tournaments.helpers import assert_chain_heads_shown, user
from tournaments import service
from tournaments.models import Tournament
from tournaments.views import bots

SEATS = 6
STACK = 300
TOTAL = SEATS * STACK
TIMEOUT = 120  # seconds for the whole tournament


def fast_config() -> TournamentConfig:
    """Levels of 1.5 s: the invito climbs to 500 within seconds, so the tournament ends quickly."""
    levels = (Level(10, 1500), Level(30, 1500), Level(80, 1500), Level(200, 1500), Level(500, 60000))
    return TournamentConfig("Fast", seats=SEATS, starting_stack=STACK, levels=levels, action_time_ms=5000,
                            time_bank_ms=0)  # fmt: skip


def call(name: str, *args: str) -> str:
    """Run a management command; it must exit with 0 (``verify_projections`` exits 1 on a difference)."""
    out, err = StringIO(), StringIO()
    try:
        call_command(name, *args, stdout=out, stderr=err)
    except SystemExit as exit_:
        code = exit_.code or 0
        assert code == 0, f"{name} exited {code}:\n{out.getvalue()}\n{err.getvalue()}"
    return out.getvalue()


def progress(tournament_id: int) -> str:
    """The tournament and table rows, for failure messages."""
    tournament = Tournament.objects.filter(id=tournament_id).values().first()
    table = Table.objects.filter(tournament_id=tournament_id).values().first()
    return f"tournament: {tournament}\ntable: {table}"


def check_positions(finished: list[RecordedEvent], players: set[str]) -> dict[str, int]:
    """T-ELIM-1: every player has one position; players busting in the same hand with the same starting stack
    share the best of their places (``shared``); otherwise places are 1..6. Returns ``{player: position}``."""
    positions = {e.data["player"]: e.data["position"] for e in finished}
    assert len(finished) == len(players) and set(positions) == players, finished
    counts = Counter(positions.values())
    for event in finished:
        assert event.data["shared"] == counts[event.data["position"]], event.data
    for event in finished:  # a shared place is shared by busts of one hand
        same = [e for e in finished if e.data["position"] == event.data["position"]]
        assert {e.data["hand_key"] for e in same} == {event.data["hand_key"]}, same
    ordered = sorted(positions.values())
    # competition ranking: a place shared by k players is followed by the place k further on
    assert ordered == [ordered.index(p) + 1 for p in ordered], ordered
    if all(c == 1 for c in counts.values()):
        assert ordered == list(range(1, SEATS + 1))
    return positions


@pytest.mark.slow
@pytest.mark.timers
@pytest.mark.django_db(transaction=True)
def test_six_bots_play_a_sit_and_go_to_a_winner(live_service: LiveService) -> None:
    began = time.monotonic()
    players = bots(SEATS)
    tournament_id = service.create(fast_config(), "dir", players)  # full: starts at once (auto_start)
    assert Tournament.objects.get(id=tournament_id).status == "running"

    def finished() -> bool:
        if live_service.errors.records:  # a failing service would never finish: stop waiting
            return True
        return Tournament.objects.filter(id=tournament_id, status="finished").exists()

    wait_for(finished, TIMEOUT, "the sit-and-go to finish", interval=0.2,
             details=lambda: progress(tournament_id) + "\n" + live_service.errors.text())  # fmt: skip
    elapsed = time.monotonic() - began
    live_service.assert_no_errors()

    tournament = Tournament.objects.get(id=tournament_id)
    table_id = tournament.table_id
    assert table_id is not None
    t_events = read_stream(service.stream_id(tournament_id))
    table_events = read_stream(tables.stream_id(table_id))

    # finishing positions (T-ELIM-1) and the winner
    finished_events = [e for e in t_events if e.type == "PlayerFinished"]
    positions = check_positions(finished_events, set(players))
    winner = tournament.winner
    assert winner in players and positions[winner] == 1
    assert sorted(tournament.finished, key=lambda f: f[1]) == sorted(
        ([p, n] for p, n in positions.items()), key=lambda f: f[1]
    )
    assert [e.data["winner"] for e in t_events if e.type == "TournamentFinished"] == [winner]
    assert tournament.remaining == []  # [winner] would do too; the projection empties it at the end

    # the winner holds every chip, in the projection and in the engine state
    table = Table.objects.get(id=table_id)
    stacks = {seat["player"]: seat["stack"] for seat in table.seats if seat}
    assert stacks[winner] == TOTAL, stacks
    assert sum(stacks.values()) == TOTAL, stacks
    tables.forget_cache()
    loaded = tables.load(table_id)
    engine_stacks = {o.player: o.stack for o in loaded.state.seats if o is not None}
    assert engine_stacks == stacks

    # chips are conserved at every hand end: stacks + what carries to the next hand
    hands = [e for e in table_events if e.type == "HandEnded"]
    assert hands
    for hand in hands:
        in_play = sum(chips for _, chips in hand.data["stacks"]) + hand.data["carried"]
        assert in_play == TOTAL, (hand.version, hand.data)

    # the results page publishes the chain heads of the tournament's stream and its table's (issue 23 §3)
    page = Client()
    page.force_login(user("guarda", access.PLAYER))
    results = page.get(f"/tournaments/{tournament_id}/")
    assert results.status_code == 200
    assert_chain_heads_shown(
        results.content.decode(), [service.stream_id(tournament_id), tables.stream_id(table_id)]
    )

    # the table is closed, after the last hand
    assert table.status == "closed" and loaded.closed
    assert table_events[-1].type == "TableClosed"
    assert [e.type for e in table_events].count("TableClosed") == 1

    # the clock advanced the level at least once (the timekeeper's tournament clock)
    levels = [e.data["level"] for e in t_events if e.type == "LevelStarted"]
    assert levels[0] == 0 and max(levels) >= 1, levels
    assert levels == sorted(levels)

    # one tournament model (issue 17): a one-table MTT on mtt-<id>, every hand recorded (RecordHand), its
    # chips conserved after every transaction of its stream (verify_all's tournament folding)
    assert service.stream_id(tournament_id) == f"mtt-{tournament_id}" and tournament.kind == "sitgo"
    recorded = [e.data["hand_key"] for e in t_events if e.type == "HandRecorded"]
    assert len(recorded) == len(set(recorded)) == len(hands)
    report = json.loads(call("verify_all", "--json"))
    assert report["ok"], report["failures"][:5]

    # the projections equal the log, also after a rebuild
    assert "identical to the log" in call("verify_projections")
    call("rebuild_projections")
    assert "identical to the log" in call("verify_projections")
    assert Tournament.objects.get(id=tournament_id).status == "finished"

    print(f"\nsit-and-go: {len(hands)} hands, levels up to {max(levels) + 1}, winner {winner}, "
          f"finished in {elapsed:.1f} s (queue {live_service.queue})")  # fmt: skip
