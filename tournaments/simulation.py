"""A whole multi-table tournament of bots through the real service (``manage.py simulate_tournament``).

:func:`simulate` creates the bots (users of the groups *player* and *bot*), a tournament, starts it and waits
until it is won, while the service's background parts run: a Celery worker (bot moves, timeouts, next hands),
beat (tournament clocks, the deadline sweep) and the subscribers (process manager, broadcaster) — as
processes (``make run``) or as threads (:mod:`config.inprocess`, what the command starts). Then it checks the
log: chips conserved after every recorded hand, every player placed once, prizes summing to the pool, and the
projections rebuilt from the log equal to the live ones.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from engine.codec import from_data
from engine.tournament import mtt as decider
from engine.tournament.mtt import Level, MttConfig
from engine.tournament.sitgo import Status
from eventstore import projections
from eventstore.models import Event
from tables import access
from tables.models import Table
from tournaments import mtt
from tournaments.models import Tournament

FAST_INVITI = (10, 20, 30, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1200, 1600, 2400)


def bots(count: int, tag: str) -> list[str]:
    """``count`` bot accounts ``bot-<tag>-<n>`` (created once, no usable password)."""
    user_model = get_user_model()
    names = [f"bot-{tag}-{n}" for n in range(1, count + 1)]
    existing = set(user_model.objects.filter(username__in=names).values_list("username", flat=True))
    fresh = [user_model(username=name) for name in names if name not in existing]
    for user in fresh:
        user.set_unusable_password()
    user_model.objects.bulk_create(fresh)
    users = list(user_model.objects.filter(username__in=names))
    for group_name in (access.PLAYER, access.BOT):
        group, _ = Group.objects.get_or_create(name=group_name)
        group.user_set.add(*users)
    return names


def config_for(
    players: int,
    seed: int,
    fast_clock: bool,
    seats: int = 6,
    starting_stack: int = 1_000,
    level_ms: int = 20_000,
) -> MttConfig:
    """The simulated tournament: ``fast_clock`` levels of ``level_ms`` (else the turbo preset)."""
    levels = (
        tuple(Level(invito, level_ms) for invito in FAST_INVITI)
        if fast_clock
        else decider.structure_preset("turbo", starting_stack)
    )
    return MttConfig(
        name=f"Simulazione {players} giocatori (seme {seed})",
        seats=seats,
        starting_stack=starting_stack,
        levels=levels,
        action_time_ms=30_000,
        time_bank_ms=30_000,
    )


def simulate(
    players: int,
    seed: int,
    fast_clock: bool = True,
    seats: int = 6,
    timeout_s: float = 3600.0,
    progress: Callable[[int, int], None] | None = None,
    starting_stack: int = 1_000,
    level_ms: int = 20_000,
) -> dict[str, Any]:
    """Run a tournament of ``players`` bots to its end; returns the summary (see the module docstring).
    Raises ``TimeoutError`` if it is not won within ``timeout_s``."""
    started = time.monotonic()
    tag = f"s{seed}"
    names = bots(players, tag)
    config = config_for(players, seed, fast_clock, seats, starting_stack, level_ms)
    tournament_id = mtt.create(config, "simulator", names)
    before = Event.objects.count()
    mtt.start(tournament_id, "simulator", seed=hashlib.sha256(f"mazziere-{seed}".encode()).digest())
    while True:
        row = Tournament.objects.get(id=tournament_id)
        if progress is not None:
            progress(players - len(row.remaining), players)
        if row.status == Status.FINISHED.value:
            break
        if time.monotonic() - started > timeout_s:
            raise TimeoutError(f"tournament {tournament_id} not finished after {timeout_s:.0f} s")
        time.sleep(0.5)
    wall = time.monotonic() - started
    return summary(tournament_id, wall, Event.objects.count() - before)


def chips_conserved(tournament_id: int) -> bool:
    """After every transaction that wrote to the tournament's stream (a recorded hand with its eliminations
    and moves, a director's action...), the chips of the players still in (the stacks their tables reported,
    players in transit included) plus the chips the tables carry in the middle equal the chips issued
    (entries × starting stack ± the director's adjustments). A lost or created chip fails."""
    state = decider.MttState()
    transaction_id = None
    for recorded in Event.objects.filter(stream_id=mtt.stream_id(tournament_id)).order_by("version"):
        if recorded.tx_id != transaction_id and not _balanced(state):
            return False
        transaction_id = recorded.tx_id
        cls = mtt.EVENTS.get(recorded.type)
        if cls is not None:
            state = decider.evolve(state, from_data(cls, recorded.data))
    return _balanced(state)


def _balanced(state: decider.MttState) -> bool:
    if state.status is Status.REGISTERING:
        return True
    return decider.chips_in_play(state) == decider.chips_issued(state)


def placed_once(state: decider.MttState) -> bool:
    """Every entry finished once, at positions 1..N, where k players sharing a position p (T-ELIM-1:
    equal stacks busting in one hand) cover p..p+k-1."""
    players = [finish.player for finish in state.finish_log]
    counts = Counter(finish.position for finish in state.finish_log)
    covered = sorted(p + i for p, k in counts.items() for i in range(k))
    shared_ok = all(finish.shared == counts[finish.position] for finish in state.finish_log)
    return shared_ok and covered == list(range(1, len(players) + 1)) and len(set(players)) == len(players)


def summary(tournament_id: int, wall_seconds: float, events_appended: int) -> dict[str, Any]:
    _, state, _ = mtt.load(tournament_id)
    table_ids = list(Table.objects.filter(tournament_id=tournament_id).values_list("id", flat=True))
    hands = Event.objects.filter(stream_id__in=[f"table-{t}" for t in table_ids], type="HandEnded").count()
    order = sorted(state.finished, key=lambda result: result[1])
    problems: list[str] = []
    for projection in projections.registered():
        problems += projections.differences(projections.computed(projection), projection.current())
    return {
        "tournament_id": tournament_id,
        "players": len(state.entries),
        "tables": len(table_ids),
        "finishing_order": [{"player": p, "position": pos, "prize": prize} for p, pos, prize in order],
        "payouts": list(state.payouts),
        "prize_pool": state.prize_pool,
        "prizes_sum_to_pool": sum(prize for *_, prize in state.finished) == state.prize_pool,
        "every_player_placed_once": placed_once(state),
        "hands_played": hands,
        "events_appended": events_appended,
        "wall_time_s": round(wall_seconds, 1),
        "chips_conserved": chips_conserved(tournament_id),
        "projections_verified": not problems,
        "projection_problems": problems[:20],
    }
