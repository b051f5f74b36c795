"""Issue 23 §2: timer-versus-action races, each with exactly one effect (``tests/races.py``; figures in
``docs/reliability.md``, "Issue 23: races"; ``make soak-races`` runs 10,000).

Four kinds, against the real PostgreSQL, each race released by a barrier after both sides loaded the table:

- **deadline**: a heads-up no-limit hold'em table whose action time is 1 ms; when the deadline of the
  player to act has passed, the timekeeper's read (:func:`tables.timers.expired`) finds it, then the
  player's action (:func:`tables.service.act`, with its command id and expected version) races the timeout
  task that :func:`tables.timers.fire_timeout` queues (``tables.tasks.timeout``, run as the worker runs
  it). Exactly one of them appends.
- **sockets**: the player to act has two sockets open on the real Channels consumer
  (``WebsocketCommunicator``) and both send at once: the same command (same command id), the same action
  with two command ids, or two different actions. Exactly one effect; both sockets answered, neither
  closed.
- **api**: the same three variants over ``POST /api/tables/{id}/act/`` from two clients of the player on
  two threads: 200 for the winner (and both for a repeated command id), 409 for the loser, never a 5xx.
- **director**: a two-table hold'em tournament; a director's pause or resume, or move of a player
  (:mod:`tournaments.mtt`), races the action of the player to act (and, when it ends the hand, the process
  manager's recording of it). Exactly one effect on each stream; every player at one table; the
  tournament's chips conserved.

Effects are counted from the log (:func:`tests.races.effects`: transactions that appended), not from what
the callers were told.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import re
import time
import uuid
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter

from config.routing import websocket_urlpatterns
from engine.core import ForcedBets, find_game
from eventstore import store
from tables import service, tasks, timers
from tests.races import WAIT, Racers, Tally, effects, race_count, report
from tests.tables.helpers import WebsocketCommunicator

pytestmark = pytest.mark.django_db(transaction=True)

STACK = 1_000
BLINDS = ForcedBets(small_blind=5, big_blind=10)
SHARE = {"deadline": 0.35, "sockets": 0.25, "api": 0.1, "director": 0.3}
"""Each kind's share of the races (``make test``: 100 in all, ``make soak-races``: 10,000)."""
TOTAL = race_count(100)
Key = tuple[int, int]


def kinds_of(loaded: service.Loaded, seat: int) -> set[str]:
    return {str(getattr(a.kind, "value", a.kind)) for a in loaded.rules.legal_actions(loaded.state, seat)}


def choose(loaded: service.Loaded, seat: int, rng: random.Random) -> str:
    """A player's action at ``seat``: check when they may, else call or (one time in four) fold."""
    kinds = kinds_of(loaded, seat)
    if "show" in kinds:  # the showdown
        return "show" if rng.random() < 0.5 else "muck"
    if "check" in kinds:
        return "check"
    if "call" in kinds and rng.random() < 0.75:
        return "call"
    return "fold"


def heads_up(action_time_ms: int, players: tuple[str, str] = ("anna", "bruno")) -> int:
    game = find_game("NT")
    config = game.table_config(
        seats=2, tournament=True, forced=BLINDS, action_time_ms=action_time_ms, time_bank_ms=0
    )
    seats = [(seat, name, STACK) for seat, name in enumerate(players)]
    return service.open_table("Gara", config, seats, game="NT").table_id


def chips_at(loaded: service.Loaded) -> int:
    facts = loaded.facts
    return sum(o.stack for o in facts.seats if o is not None) + facts.carried


def ready_hand(table_id: int, total: int, tally: Tally, action_time_ms: int) -> int:
    """The table in a hand with somebody to act: between hands, chips checked, the players sitting out
    come back and the next hand starts; a table where somebody went broke is replaced by a new one.
    Returns the table's id."""
    loaded = service.load(table_id)
    if loaded.facts.in_hand and loaded.facts.to_act:
        return table_id
    tally.chips(chips_at(loaded) == total, f"table {table_id}: {chips_at(loaded)} of {total}")
    for occupant in loaded.facts.seats:
        if occupant is not None and occupant.sitting_out:
            loaded = service.act(table_id, occupant.player, "return", expected_version=loaded.version).loaded
    if any(o is None or o.stack == 0 for o in loaded.facts.seats):
        table_id = heads_up(action_time_ms, tuple(o.player for o in loaded.facts.seats if o))  # type: ignore[arg-type]
    service.handle(table_id, lambda current, at: service.start_command(current, at, None))
    return table_id


# --- deadline: the action and its timeout at the same instant -------------------------------------------


def test_an_action_and_its_deadline_at_the_same_instant(caplog: pytest.LogCaptureFixture) -> None:
    count = max(1, round(TOTAL * SHARE["deadline"]))
    tally = Tally("deadline")
    rng = random.Random(23)
    racers = Racers(2)
    started = time.monotonic()
    table_id = heads_up(1)
    try:
        for _ in range(count):
            table_id = ready_hand(table_id, 2 * STACK, tally, 1)
            loaded = service.load(table_id)
            seat = min(loaded.facts.to_act)
            occupant = loaded.facts.seats[seat]
            assert occupant is not None and loaded.facts.deadline_ms is not None
            while service.now_ms() <= loaded.facts.deadline_ms:  # the deadline passes (1 ms)
                time.sleep(0.001)
            key = (table_id, loaded.version)
            assert key in timers.expired(), "the timekeeper's read misses an expired deadline"
            action = choose(loaded, seat, rng)

            def player(action: str = action, who: str = occupant.player, key: Key = key) -> str:
                try:
                    service.act(key[0], who, action, expected_version=key[1], command_id=str(uuid.uuid4()))
                except service.StaleVersion:
                    return "stale"
                return "acted"

            def timer(key: Key = key) -> str:  # what the worker does with fire_timeout's message
                return "timed out" if tasks.run_timeout(*key) else "obsolete"

            results = racers.race(player, timer)
            for result in results:
                if isinstance(result, BaseException):
                    tally.error(result)
            applied = effects(service.stream_id(table_id), key[1])
            tally.count(" / ".join(str(r) for r in results), len(applied))
            if applied and results[0] == "acted":
                assert "PlayerTimedOut" not in applied[0]
            if applied and results[1] == "timed out":
                assert applied[0][0] == "PlayerTimedOut"
    finally:
        racers.close()
    tally.logged(caplog.records)
    report(tally, time.monotonic() - started)
    assert tally.clean, tally
    assert tally.outcomes["acted / obsolete"] and tally.outcomes["stale / timed out"], tally.outcomes


# --- sockets: two sockets of the same player send at once ----------------------------------------------

ERROR = re.compile(r'<div class="error" role="alert">(.*?)</div>', re.S)
VARIANTS = ("same command", "two command ids", "two actions")


def answer_of(html: str) -> str:
    """What a socket was answered: ``"table"`` (fragments of the table after the action) or the refusal's
    text."""
    found = ERROR.search(html)
    if found:
        return "refused: " + found.group(1).strip()[:60]
    return "table" if 'id="table"' in html else "other: " + html[:60]


def other_action(loaded: service.Loaded, seat: int, first: str) -> str:
    """An action legal at ``seat`` other than ``first`` (fold against a check or call, muck against show)."""
    kinds = kinds_of(loaded, seat) - {first, "sit_out", "bet", "raise"}
    for choice in ("fold", "muck", "show", "check", "call"):
        if choice in kinds:
            return choice
    return first


def two_requests(
    loaded: service.Loaded, variant: str, rng: random.Random
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """The seat to act's occupant and the two requests its two connections send at once for ``variant``
    (one of :data:`VARIANTS`): the same command twice, the same action under two command ids, or two
    different actions."""
    seat = min(loaded.facts.to_act)
    occupant = loaded.facts.seats[seat]
    assert occupant is not None
    action = choose(loaded, seat, rng)
    first = {"command_id": str(uuid.uuid4()), "expected_version": loaded.version, "action": action}
    second = dict(first)
    if variant != "same command":
        second["command_id"] = str(uuid.uuid4())
    if variant == "two actions":
        second["action"] = other_action(loaded, seat, action)
    return occupant, first, second


def players_in_group(*names: str) -> dict[str, Any]:
    from django.contrib.auth.models import Group, User

    from tables import access

    group = Group.objects.get_or_create(name=access.PLAYER)[0]
    users = {}
    for name in names:
        users[name] = User.objects.create_user(name, password=name)
        users[name].groups.add(group)
    return users


async def open_socket(table_id: int, user: Any) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/tables/{table_id}/")
    communicator.scope["user"] = user
    accepted, code = await communicator.connect(timeout=WAIT)
    assert accepted, code
    await communicator.receive_from(timeout=WAIT)  # the table as it is
    return communicator


@pytest.mark.asyncio
async def test_two_sockets_of_the_same_player_send_at_once(caplog: pytest.LogCaptureFixture) -> None:
    count = max(1, round(TOTAL * SHARE["sockets"]))
    tally = Tally("sockets")
    rng = random.Random(17)
    db = database_sync_to_async
    users = await db(players_in_group)("anna", "bruno")
    started = time.monotonic()
    table_id = await db(heads_up)(30_000)
    sockets: dict[str, list[WebsocketCommunicator]] = {}
    connected_to = 0
    try:
        for index in range(count):
            table_id = await db(ready_hand)(table_id, 2 * STACK, tally, 30_000)
            if table_id != connected_to:  # a new table: both players open two sockets there
                for pair in sockets.values():
                    for communicator in pair:
                        await communicator.disconnect()
                sockets = {
                    name: [await open_socket(table_id, user), await open_socket(table_id, user)]
                    for name, user in users.items()
                }
                connected_to = table_id
            loaded = await db(service.load)(table_id)
            variant = VARIANTS[index % len(VARIANTS)]
            occupant, first, second = two_requests(loaded, variant, rng)
            one, two = sockets[occupant.player]
            await asyncio.gather(
                one.send_to(text_data=json.dumps(first)), two.send_to(text_data=json.dumps(second))
            )
            answers = await asyncio.gather(
                one.receive_from(timeout=WAIT), two.receive_from(timeout=WAIT), return_exceptions=True
            )
            said = []
            for answer in answers:
                if isinstance(answer, BaseException):
                    tally.error(f"{variant}: unanswered ({answer!r})")
                    said.append("unanswered")
                else:
                    said.append(answer_of(answer))
            if any(s.startswith("other") for s in said):
                tally.error(f"{variant}: {said}")
            applied = await db(effects)(service.stream_id(table_id), loaded.version)
            tally.count(f"{variant}: {' / '.join(sorted(said))}", len(applied))
            # the repeated command id answers with the table
            if variant == "same command" and applied and said != ["table", "table"]:
                tally.error(f"{variant}: {said}")
    finally:
        for pair in sockets.values():
            for communicator in pair:
                await communicator.disconnect()
    tally.logged(caplog.records)
    report(tally, time.monotonic() - started)
    assert tally.clean, tally


# --- api: two requests of the same player at once (two devices, the REST API) --------------------------


def test_two_requests_of_the_same_player_at_once(caplog: pytest.LogCaptureFixture) -> None:
    """The same three variants as the sockets, over ``POST /api/tables/{id}/act/`` from two clients of the
    same player on two threads: 200 for the winner (and for a repeated command id, the first answer), 409
    for the loser, never a 5xx; exactly one effect."""
    from rest_framework.test import APIClient

    count = max(1, round(TOTAL * SHARE["api"]))
    tally = Tally("api")
    rng = random.Random(29)
    users = players_in_group("anna", "bruno")
    clients: dict[str, list[APIClient]] = {}
    for name, user in users.items():
        clients[name] = [APIClient(), APIClient()]
        for client in clients[name]:
            client.force_login(user)
    racers = Racers(2)
    started = time.monotonic()
    table_id = heads_up(30_000)
    try:
        for index in range(count):
            table_id = ready_hand(table_id, 2 * STACK, tally, 30_000)
            loaded = service.load(table_id)
            variant = VARIANTS[index % len(VARIANTS)]
            occupant, first, second = two_requests(loaded, variant, rng)
            url = f"/api/tables/{table_id}/act/"
            one, two = clients[occupant.player]
            results = racers.race(
                functools.partial(one.post, url, first, format="json"),
                functools.partial(two.post, url, second, format="json"),
            )
            statuses = []
            for result in results:
                if isinstance(result, BaseException):
                    tally.error(f"{variant}: {result!r}")
                    statuses.append(0)
                else:
                    statuses.append(result.status_code)
            if any(status >= 500 or status not in (200, 409) for status in statuses):
                tally.error(f"{variant}: statuses {statuses}")
            expected = [200, 200] if variant == "same command" else [200, 409]
            if sorted(statuses) != expected:
                tally.error(f"{variant}: statuses {statuses}, not {expected}")
            applied = effects(service.stream_id(table_id), loaded.version)
            tally.count(f"{variant}: {' / '.join(map(str, sorted(statuses)))}", len(applied), detail=applied)
    finally:
        racers.close()
    tally.logged(caplog.records)
    report(tally, time.monotonic() - started)
    assert tally.clean, tally


# --- director: a pause, a resume or a move races a player's action -------------------------------------

PLAYERS = ("p1", "p2", "p3", "p4", "p5")
DIRECTOR = "diego"


def tournament() -> int:
    """Five players on two tables of three seats (3 + 2), no-limit hold'em, one long level, deep stacks."""
    from engine.tournament.mtt import Level, MttConfig
    from tournaments import mtt

    levels = (Level(10, 3_600_000, forced=BLINDS),)
    config = MttConfig(
        "Gara", seats=3, starting_stack=STACK, levels=levels, game="NT", hand_for_hand=False,
        action_time_ms=30_000, time_bank_ms=0,
    )  # fmt: skip
    tournament_id = mtt.create(config, DIRECTOR, list(PLAYERS))
    mtt.start(tournament_id, DIRECTOR, seed=bytes(32))
    return tournament_id


def act_and_record(tournament_id: int, table_id: int, who: str, action: str, version: int) -> str:
    """The player's action and, when it ends the hand, the process manager's recording of it
    (:func:`tournaments.mtt.record_hand`, what :mod:`tournaments.manager` does on ``HandEnded``)."""
    from tournaments import mtt

    try:
        outcome = service.act(table_id, who, action, expected_version=version, command_id=str(uuid.uuid4()))
    except service.StaleVersion:
        return "stale"
    ended = [e for e in outcome.recorded if e.type == "HandEnded"]
    for event in ended:
        mtt.record_hand(tournament_id, table_id, event)
    return "acted, hand recorded" if ended else "acted"


def tournament_tables(tournament_id: int) -> list[int]:
    from tables.models import Table

    rows = Table.objects.filter(tournament_id=tournament_id).exclude(status="closed")
    return sorted(rows.values_list("id", flat=True))


def a_hand_running(tournament_id: int, rng: random.Random, tally: Tally) -> int | None:
    """A table of the tournament in a hand with somebody to act (starting hands where the tournament lets
    them start, as the table's start task does); ``None`` when none can (the tournament is over)."""
    from tournaments import mtt

    for _ in range(20):
        tables = tournament_tables(tournament_id)
        running = [t for t in tables if service.load(t).facts.in_hand]
        if running:
            return rng.choice(running)
        _, state, _ = mtt.load(tournament_id)
        if state.status.value == "paused":
            mtt.resume(tournament_id, DIRECTOR)
        if state.status.value == "finished":
            return None
        check_chips(tournament_id, tally)
        for table_id in tables:
            tasks.run_start_hand(table_id, service.load(table_id).version)
    raise AssertionError(f"no hand starts in tournament {tournament_id}")


def check_chips(tournament_id: int, tally: Tally) -> None:
    """The tournament's chips (T-ELIM-1's stacks as recorded) equal the chips issued, and every player sits
    at exactly one table."""
    from engine.tournament import mtt as decider
    from tournaments import mtt

    _, state, _ = mtt.load(tournament_id)
    in_play, issued = decider.chips_in_play(state), decider.chips_issued(state)
    tally.chips(
        in_play == issued == len(PLAYERS) * STACK, f"tournament {tournament_id}: {in_play} of {issued}"
    )
    seated: list[str] = []
    for table_id in tournament_tables(tournament_id):
        seated += [o.player for o in service.load(table_id).facts.seats if o is not None]
    if (
        not state.pending_arrivals
        and not state.pending_departures
        and sorted(seated) != sorted(p for p, chips in state.chips if chips > 0)
    ):
        tally.error(f"seated {sorted(seated)}, in play {state.chips}")


def finish_hand(tournament_id: int, table_id: int, rng: random.Random) -> None:
    """Play the table's hand to its end (checks and calls), recording it as the process manager does."""
    for _ in range(200):
        loaded = service.load(table_id)
        if not loaded.facts.in_hand:
            return
        seat = min(loaded.facts.to_act)
        occupant = loaded.facts.seats[seat]
        assert occupant is not None
        action = choose(loaded, seat, random.Random(0)) if rng.random() < 0.9 else "check"
        if action == "fold" or action not in kinds_of(loaded, seat):
            action = "call" if "call" in kinds_of(loaded, seat) else choose(loaded, seat, rng)
        act_and_record(tournament_id, table_id, occupant.player, action, loaded.version)
    raise AssertionError(f"table {table_id}: the hand does not end")


def move_for(tournament_id: int, table_id: int) -> tuple[str, int, int] | None:
    """A director's move out of ``table_id`` (the larger table) to a free seat of the other table:
    ``(player, to table, to seat)``, or ``None`` when none keeps the tables balanced."""
    from tournaments import mtt

    _, state, _ = mtt.load(tournament_id)
    if state.move_requests or state.pending_arrivals or state.pending_departures:
        return None
    here = next((t for t in state.tables if t.table_id == table_id), None)
    there = next((t for t in state.tables if t.table_id != table_id), None)
    if here is None or there is None or here.count <= there.count:
        return None
    free = [seat for seat, p in enumerate(there.seats) if p is None]
    player = next((p for p in here.seats if p is not None), None)
    if not free or player is None:
        return None
    return player, there.table_id, free[0]


def direct(kind: str, tournament_id: int, move: tuple[str, int, int] | None) -> str:
    """The director's command: ``"pause"``, ``"resume"`` or ``"move"`` (``move``: player, table, seat)."""
    from tournaments import mtt

    if kind == "pause":
        mtt.pause(tournament_id, DIRECTOR, "gara")
    elif kind == "resume":
        mtt.resume(tournament_id, DIRECTOR)
    else:
        assert move is not None
        mtt.move_player(tournament_id, *move, DIRECTOR, "gara")
    return {"pause": "paused", "resume": "resumed"}.get(kind, "moved")


def test_a_director_pausing_or_moving_races_an_action(caplog: pytest.LogCaptureFixture) -> None:
    from engine.tournament.mtt import table_of
    from tournaments import mtt

    count = max(1, round(TOTAL * SHARE["director"]))
    tally = Tally("director")
    rng = random.Random(5)
    racers = Racers(2)
    started = time.monotonic()
    tournament_id = tournament()
    try:
        for index in range(count):
            table_id = a_hand_running(tournament_id, rng, tally)
            if table_id is None:
                tournament_id = tournament()
                continue
            loaded = service.load(table_id)
            seat = min(loaded.facts.to_act)
            occupant = loaded.facts.seats[seat]
            assert occupant is not None
            action = choose(loaded, seat, rng)
            t_version, state, _ = mtt.load(tournament_id)
            move = move_for(tournament_id, table_id) if index % 2 else None
            if move is not None:
                kind = "move"
                director = functools.partial(direct, "move", tournament_id, move)
            else:
                kind = "resume" if state.status.value == "paused" else "pause"
                director = functools.partial(direct, kind, tournament_id, None)
            player = functools.partial(
                act_and_record, tournament_id, table_id, occupant.player, action, loaded.version
            )
            results = racers.race(player, director)
            for result in results:
                if isinstance(result, BaseException):
                    tally.error(f"{kind}: {result!r}")
            applied = effects(service.stream_id(table_id), loaded.version, but="manager")
            tally.count(f"{kind}: {results[0]} / {results[1]}", len(applied), detail=applied)
            director_events = [
                e.type
                for e in store.read_stream(mtt.stream_id(tournament_id), t_version)
                if e.type in ("ClockPaused", "ClockResumed", "MoveRequested")
                or (e.type == "PlayerMoved" and e.data.get("reason") == "gara")
            ]
            # a move is requested (its table is in a hand), then carried out when the hand is recorded:
            # one move, in two steps; both may fall in this race (the action ended the hand)
            once = director_events in (["MoveRequested"], ["PlayerMoved"], ["MoveRequested", "PlayerMoved"])
            if (kind == "move" and not once) or (kind != "move" and len(director_events) != 1):
                tally.error(f"{kind}: the director's command took effect {director_events}")
            if move is not None:  # the move is carried out once the hand ends, exactly once
                finish_hand(tournament_id, table_id, rng)
                _, after, _ = mtt.load(tournament_id)
                moved = [
                    e
                    for e in store.read_stream(mtt.stream_id(tournament_id), t_version)
                    if e.type == "PlayerMoved" and e.data["player"] == move[0]
                ]
                where = table_of(after, move[0])
                if len(moved) != 1 or where is None or where[0] != move[1]:
                    tally.error(f"move of {move[0]}: {len(moved)} moves, now at {where}")
                check_chips(tournament_id, tally)
    finally:
        racers.close()
    tally.logged(caplog.records)
    report(tally, time.monotonic() - started)
    assert tally.clean, tally
    assert {"pause", "resume", "move"} <= {o.split(":")[0] for o in tally.outcomes}, tally.outcomes
