"""Two requests at the same table version at once, on their own connections: exactly one wins (200), the
other is refused as stale (409) and the log holds exactly one action."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction

from engine.italian.model import TableConfig
from eventstore.models import ProcessedCommand
from eventstore.store import read_stream
from tables import service, tasks
from tables.models import HandSeed
from tests.tables.helpers import body, events, open_three, start_hand, to_act

pytestmark = pytest.mark.django_db(transaction=True)
WAIT = 10  # seconds: a bound for every wait, so that a failure never hangs the run


def meet_once(barrier: threading.Barrier, original: Callable[..., Any]) -> Callable[..., Any]:
    """``original``, but each thread's first call waits for the other thread at ``barrier`` before it
    runs: both requests have loaded the same version before either appends."""
    seen = threading.local()

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not getattr(seen, "met", False):
            seen.met = True
            barrier.wait()
        return original(*args, **kwargs)

    return wrapper


def in_threads(*targets: Callable[[], Any]) -> list[Any]:
    """Run ``targets`` at once, each on its own thread and Django connection; their results (or errors)."""
    results: list[Any] = [None] * len(targets)

    def run(index: int, target: Callable[[], Any]) -> None:
        try:
            results[index] = target()
        except BaseException as error:
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, t), daemon=True) for i, t in enumerate(targets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
        assert not thread.is_alive(), "a request hung"
    return results


def test_two_clients_acting_at_the_same_version(monkeypatch, api_as, players, table) -> None:
    loaded = service.load(table)
    _, player = to_act(table)
    before = events(table)
    # the player to act presses DAI CARTE on two devices at once
    first, second = body("decline_blind", loaded.version), body("decline_blind", loaded.version)
    clients = api_as(players[player]), api_as(players[player])
    both_loaded = threading.Barrier(2, timeout=WAIT)
    monkeypatch.setattr(service, "player_command", meet_once(both_loaded, service.player_command))

    def post(client: Any, request: dict[str, Any]) -> Callable[[], Any]:
        return lambda: client.post(f"/api/tables/{table}/act/", request, format="json")

    responses = in_threads(post(clients[0], first), post(clients[1], second))
    assert not [r for r in responses if isinstance(r, BaseException)], responses
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 409]
    won = next(r for r in responses if r.status_code == 200)
    lost = next(r for r in responses if r.status_code == 409)
    assert "Ricarica" in lost.json()["detail"]

    winner_id = first["command_id"] if responses[0] is won else second["command_id"]
    loser_id = second["command_id"] if winner_id == first["command_id"] else first["command_id"]
    appended = read_stream(service.stream_id(table), before)
    assert appended, "the winner appended nothing"
    assert [e.type for e in appended].count("BlindDeclined") == 1
    assert {e.metadata["command_id"] for e in appended} == {winner_id}
    assert {e.metadata["actor"] for e in appended} == {player}
    assert won.json()["version"] == appended[-1].version == events(table)
    assert ProcessedCommand.objects.filter(command_id=winner_id).exists()
    assert not ProcessedCommand.objects.filter(command_id=loser_id).exists()  # a 409 is not remembered
    assert service.load(table).state.hand.phase.value == "opening"  # DAI CARTE once: the cards were dealt


def test_player_and_timer_at_the_same_version(monkeypatch, players) -> None:
    """The timer fires while the player acts: one of them wins, the other changes nothing."""
    table = open_three(config=TableConfig(seats=3, action_time_ms=1, time_bank_ms=0))
    loaded = start_hand(table)
    _, player = to_act(table)
    time.sleep(0.01)  # the deadline has passed: the timeout is due
    before = events(table)
    monkeypatch.setattr(service, "load", meet_once(threading.Barrier(2, timeout=WAIT), service.load))

    def player_acts() -> str:
        try:
            service.act(table, player, "decline_blind", expected_version=loaded.version)
        except service.StaleVersion:
            return "stale"
        return "acted"

    acted, timed_out = in_threads(player_acts, lambda: tasks.run_timeout(table, loaded.version))
    assert not isinstance(acted, BaseException), acted
    assert not isinstance(timed_out, BaseException), timed_out
    assert (acted, timed_out) in (("acted", False), ("stale", True))
    appended = read_stream(service.stream_id(table), before)
    actors = {e.metadata["actor"] for e in appended}
    types = [e.type for e in appended]
    if acted == "acted":
        assert actors == {player} and "PlayerTimedOut" not in types
    else:
        assert actors == {"system"} and types.count("PlayerTimedOut") == 1
    assert events(table) == appended[-1].version


def test_a_late_command_ending_a_hand_already_ended_logs_no_missing_seed(caplog) -> None:
    """Issue 23 §2 (the socket races found it): two commands that would each end the hand at the same
    version, the loser in another web process whose cache still holds the table at that version. The
    winner revealed the seed and deleted its row; the loser used to find no row, log the ERROR "no seed to
    reveal (the hand stays unverifiable)" for a hand that is verifiable, then be refused by the append.
    Now it is refused as stale at once, with nothing logged and nothing appended."""
    from engine.core import ForcedBets, find_game

    game = find_game("NT")
    config = game.table_config(
        seats=2,
        tournament=True,
        forced=ForcedBets(small_blind=5, big_blind=10),
        action_time_ms=30_000,
        time_bank_ms=0,
    )
    table = service.open_table("T", config, [(0, "anna", 500), (1, "bruno", 500)], game="NT").table_id
    loaded = service.handle(
        table, lambda current, at: service.start_command(current, at, None, seed=bytes(32))
    ).loaded
    seat = min(loaded.facts.to_act)
    occupant = loaded.facts.seats[seat]
    assert occupant is not None
    won = service.act(table, occupant.player, "fold", expected_version=loaded.version)  # the hand ends
    assert "SeedRevealed" in [type(e).__name__ for e in won.events]
    before = events(table)
    service.forget_cache()
    service._cache_put(loaded)  # the other process's cache: the table before the fold
    with caplog.at_level("ERROR"), pytest.raises(service.StaleVersion):
        service.act(table, occupant.player, "fold", expected_version=loaded.version)
    assert events(table) == before
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == []


def test_a_start_racing_a_start_of_the_same_hand_raises_no_integrity_error() -> None:
    """Issue 23 (a suite run, Telesina tournament at full speed): two timers started the same hand of one
    table version; the loser's seed insert met the winner's committed row and raised ``IntegrityError``
    (logged as an ERROR by the task) instead of going on to refuse as stale at the append, because the row
    was gone again (a short hand already revealed) by ``update_or_create``'s second read. The timing is made
    exact here: another connection commits the winner's row just before this start's insert and deletes it
    just before any later statement on the seeds. Now the seed is one ``INSERT … ON CONFLICT`` statement:
    the start goes on, and the row holds the seed its command commits to."""
    import psycopg

    table = open_three()
    loaded = service.load(table)
    number = loaded.hand_number + 1
    params = connection.get_connection_params()
    other = psycopg.connect(
        **{k: v for k, v in params.items() if k in ("dbname", "host", "port", "user", "password")},
        autocommit=True,
    )
    winner = {"inserted": False, "deleted": False}

    def interleave(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        if "tables_handseed" in sql and sql.lstrip().startswith("INSERT") and not winner["inserted"]:
            other.execute(
                "INSERT INTO tables_handseed (table_id, hand_number, seed) VALUES (%s, %s, %s)",
                [table, number, b"\x01" * 32],
            )
            winner["inserted"] = True
        elif "tables_handseed" in sql and winner["inserted"] and not winner["deleted"]:
            other.execute("DELETE FROM tables_handseed WHERE table_id = %s", [table])
            winner["deleted"] = True
        return execute(sql, params, many, context)

    try:
        with connection.execute_wrapper(interleave), transaction.atomic():
            command = service.start_command(loaded, service.now_ms(), None)
        assert winner["inserted"]
        [seed] = HandSeed.objects.filter(table_id=table, hand_number=number).values_list("seed", flat=True)
        assert hashlib.sha256(bytes(seed)).hexdigest() == command.commitment
    finally:
        other.close()
