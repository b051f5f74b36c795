"""A bot soak of cash (ring) tables through the real service (``manage.py simulate_cash``, issue 21).

:func:`play` opens N cash tables of mixed games (:func:`open_cash_table`: ``tournament=False`` table
configurations of any game of the registry that plays for chips), gives bot accounts an opening grant on
their ledger (:func:`cashier.service.grant`), and drives the tables **in this process, one move at a time**
(no Celery, no timers: ``MAZZIERE_TIMERS=off``), round robin over the tables, as the timers would:

- in a hand: the bot to act makes the game's bot move (``Game.bot_command`` with the run's
  ``random.Random(seed)``);
- between hands, once per hand: each seated bot may stand up and cash out (:func:`cashier.service.cash_out`),
  top up within the table's maximum (:func:`cashier.service.top_up`, CASH-TOPUP-1) or, busted, either top up
  or leave; free seats are taken by bots buying in between the table's minimum and maximum
  (:func:`cashier.service.buy_in`), at least two players always; then a bot owing a blind posts it
  (CASH-1, CASH-2: ring bots post rather than wait for the big blind), then the hand starts with a seed drawn
  from the run's generator (:func:`tables.service.start_command`).

Every random choice comes from ``random.Random(seed)``: two runs of the same seed with a ``hands`` cap make
the same moves (the wall-clock ``seconds`` stop is the exception). A bot coming back to a table it left during
the run brings at least the chips it left with (the club rule of issue 21; the maximum is lifted to that).
At the end the hands running are played out and every bot cashes out, then ``manage.py verify_all`` runs over
the whole log: hash chains, shuffles, every hand's chips and replay to the recorded finishing stacks (the
hands exported to PHH, ``audit.hands``), ledgers, the cashier's whole-log check (the chips on the balances
plus the chips at the cash tables equal the operator's grants) and the projections rebuilt from the log.

Amounts are chips (int); seats are 0-based.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import platform
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from cashier import cash_tables, service
from cashier.ledger import LedgerRefused
from engine.core import UnknownGame, find_game, is_betting
from engine.tournament.structure import forced_at
from eventstore.machine import cpu_model
from eventstore.models import Event
from tables import access
from tables import service as tables
from tables.games import refusals

DEFAULT_GAMES = ("NT", "FT", "PO", "F5D", "F7S", "PIT", "PTL")
"""The games of the tables, in turn (table 1 the first): no-limit and fixed-limit hold'em, pot-limit Omaha,
five-card draw, seven-card stud, poker all'italiana and Telesina (pot limit)."""
STAKE = 10
"""The headline forced bet of every table (chips): the big blind, stud's small bet, the invito
(:func:`engine.tournament.structure.forced_at`)."""
MIN_BUY_IN, MAX_BUY_IN = 50, 100
"""The buy-in limits, in :data:`STAKE` units: 500 to 1,000 chips."""
SEATS = 6
"""Seats per table (fewer when the game seats fewer)."""
GRANT = 1_000_000
"""Each bot's opening grant (chips): enough for many buy-ins at several tables."""
BOTS_PER_SEAT = 1.5
"""Bots per seat in play: a pool larger than the seats, so that some wait and join later."""
P_LEAVE, P_TOP_UP, P_JOIN, P_BUSTED_LEAVES = 0.04, 0.06, 0.3, 0.5
"""Between hands: the chance that a seated bot stands up and cashes out, that one below the maximum tops up,
that a free seat is taken (once per hand and table), that a busted bot leaves rather than tops up."""
MOVES_PER_HAND = 1_000
"""A hand that takes more moves than this is stuck: the run stops with an error."""


class SimulationError(RuntimeError):
    """The run could not go on (a table that never starts or never ends a hand): a bug to report."""


@dataclass(frozen=True, slots=True)
class CashTable:
    """An open cash table of the run: its id, game code, seats, and buy-in limits (chips)."""

    table_id: int
    game: str
    seats: int
    minimum: int
    maximum: int


def open_cash_table(code: str, number: int, stake: int = STAKE, seats: int = SEATS) -> CashTable:
    """Open an empty cash table (ring rules, ``tournament=False``: CASH-1, CASH-2, CASH-4, and its record with
    the buy-in limits: :func:`cashier.cash_tables.open_cash_table`) of the game ``code`` at ``stake``
    (:data:`STAKE`), with ``seats`` seats (at most the game's), buy-ins from :data:`MIN_BUY_IN` to
    :data:`MAX_BUY_IN` times the stake. Raises :class:`engine.core.UnknownGame`."""
    game = find_game(code)
    seats = min(seats, game.max_seats)
    table_id = cash_tables.open_cash_table(
        name=f"Cash {number} {game.short_name} {stake}",
        game=code,
        stakes=forced_at(game, stake, 1),
        seats=seats,
        min_buy_in=MIN_BUY_IN * stake,
        max_buy_in=MAX_BUY_IN * stake,
        action_time_ms=30_000,
        actor="simulator",
    )
    return CashTable(table_id, code, seats, MIN_BUY_IN * stake, MAX_BUY_IN * stake)


def check_games(codes: Sequence[str]) -> tuple[str, ...]:
    """The codes, upper case, each a registered game that plays for chips. Raises ``ValueError`` with a line
    for the user."""
    checked = []
    for code in codes:
        code = code.strip().upper()
        try:
            game = find_game(code)
        except UnknownGame as error:  # its message lists the registered games
            raise ValueError(str(error)) from None
        if not is_betting(game):
            raise ValueError(f"{code} is not played for chips: no cash table")
        checked.append(code)
    if not checked:
        raise ValueError("no game given")
    return tuple(checked)


def bots(count: int, tag: str) -> dict[str, Any]:
    """``count`` bot accounts ``bot-<tag>-<n>`` (groups *player* and *bot*, no usable password; created once)
    by name: :func:`tables.access.bot_accounts`."""
    return access.bot_accounts(count, tag)


@dataclass
class Played:
    """What :func:`play` did: the tables, the transfers by kind, the hands ended, the events appended (every
    stream) and the seconds of setup and play."""

    tables: list[CashTable]
    transfers: Counter[str] = field(default_factory=Counter)
    hands: int = 0
    moves: int = 0
    events_before: int = 0
    events_at_start: int = 0
    events_at_end: int = 0
    setup_s: float = 0.0
    play_s: float = 0.0
    stopped_by: str = ""


class Run:
    """The run's state besides the log: the generator, the bots, which table each bot left with how much."""

    def __init__(self, rng: random.Random, users: dict[str, Any], played: Played) -> None:
        self.rng = rng
        self.users = users
        self.names = sorted(users)
        self.played = played
        self.left_with: dict[tuple[str, int], int] = {}
        self.managed: dict[int, int] = {}  # table id → the hand number its between-hands turn was taken at

    # --- transfers ------------------------------------------------------------------------------------------

    def buy_in(self, table: CashTable, seat: int, name: str, amount: int) -> bool:
        back_with = self.left_with.get((name, table.table_id), 0)
        if back_with > amount:  # back at a table it left: at least what it left with (CASH-RETURN-1)
            amount = back_with
        try:  # the limits are the table's record's (cashier.cash_tables), checked by the service
            service.buy_in(self.users[name], table.table_id, seat, amount)
        except (LedgerRefused, *refusals()):
            self.played.transfers["refused"] += 1
            return False
        self.played.transfers["buy_ins"] += 1
        return True

    def top_up(self, table: CashTable, name: str, amount: int) -> None:
        try:
            service.top_up(self.users[name], table.table_id, amount)
        except (LedgerRefused, *refusals()):
            self.played.transfers["refused"] += 1
            return
        self.played.transfers["top_ups"] += 1

    def cash_out(self, table: CashTable, name: str, kind: str = "cash_outs") -> None:
        try:
            receipt = service.cash_out(self.users[name], table.table_id)
        except (LedgerRefused, *refusals()):
            self.played.transfers["refused"] += 1
            return
        self.left_with[(name, table.table_id)] = receipt.amount
        self.played.transfers[kind] += 1

    # --- a table's moves ------------------------------------------------------------------------------------

    def between_hands(self, table: CashTable, loaded: tables.Loaded) -> None:
        """The players' turn between two hands: leave, top up, join (see the module doc)."""
        rng = self.rng
        for occupant in loaded.facts.seats:
            if occupant is None:
                continue
            if occupant.stack == 0:
                if rng.random() < P_BUSTED_LEAVES:
                    self.cash_out(table, occupant.player)
                else:
                    self.top_up(table, occupant.player, rng.randint(table.minimum, table.maximum))
            elif rng.random() < P_LEAVE:
                self.cash_out(table, occupant.player)
            elif occupant.stack < table.maximum and rng.random() < P_TOP_UP:
                self.top_up(table, occupant.player, rng.randint(1, table.maximum - occupant.stack))
        self.join(table, force=False)

    def join(self, table: CashTable, force: bool) -> bool:
        """Free seats taken (a waiting bot, a random seat, a random buy-in within the limits): until two
        players have chips, then one more with :data:`P_JOIN` (or for sure when ``force``: the table could not
        start a hand). Whether a bot sat down."""
        loaded = tables.load(table.table_id)
        seated = {o.player for o in loaded.facts.seats if o is not None}
        free = [s for s, o in enumerate(loaded.facts.seats) if o is None]
        funded = sum(1 for o in loaded.facts.seats if o is not None and o.stack > 0)
        joined = False
        while free and (funded < 2 or force or self.rng.random() < P_JOIN):
            waiting = [name for name in self.names if name not in seated]
            if not waiting:
                break
            name = self.rng.choice(waiting)
            seat = free.pop(self.rng.randrange(len(free)))
            if self.buy_in(table, seat, name, self.rng.randint(table.minimum, table.maximum)):
                seated.add(name)
                funded += 1
                joined = True
            if not force and funded >= 2:
                break
            force = False
        return joined

    def move(self, table: CashTable) -> bool:
        """One move of ``table``: a bot's action in a hand, or between hands the players' turn (once per
        hand), a blind posted, or the next hand started. Whether a hand ended with it."""
        loaded = tables.load(table.table_id)
        facts = loaded.facts
        self.played.moves += 1
        if facts.in_hand:
            seat = min(facts.to_act)
            outcome = tables.handle(
                table.table_id,
                lambda ld, at: ld.rules.bot_command(ld.state, seat, self.rng, at),
                actor="simulator",
            )
            ended = any(type(e).__name__ == "HandEnded" for e in outcome.events)
            if ended:
                self.played.hands += 1
            return ended
        if self.managed.get(table.table_id) != loaded.hand_number:
            self.managed[table.table_id] = loaded.hand_number
            self.between_hands(table, loaded)
            return False
        owing = _owing(loaded)
        if owing is not None:  # CASH-1, CASH-2: the bot posts what it owes before the hand starts
            tables.handle(
                table.table_id,
                lambda ld, at: ld.rules.bot_command(ld.state, owing, self.rng, at),
                actor="simulator",
            )
            return False
        if loaded.rules.can_start_hand(loaded.state):
            seed = self.rng.randbytes(32)
            tables.handle(
                table.table_id,
                lambda ld, at: tables.start_command(ld, at, None, seed=seed),
                actor="simulator",
            )
            return False
        if not self.join(table, force=True):
            self._refill(table, loaded)
        return False

    def _refill(self, table: CashTable, loaded: tables.Loaded) -> None:
        """No hand can start and no seat is free: the busted bots top up (else the table would stop)."""
        for occupant in loaded.facts.seats:
            if occupant is not None and occupant.stack == 0:
                self.top_up(table, occupant.player, table.minimum)
        again = tables.load(table.table_id)
        if not again.rules.can_start_hand(again.state) and not again.facts.in_hand:
            raise SimulationError(f"table {table.table_id} ({table.game}) cannot start a hand")


def _owing(loaded: tables.Loaded) -> int | None:
    """The first seat (a bot's: every player of the run is one) that owes a blind between hands and has not
    chosen to post it (``post_blind`` legal), or ``None``."""
    for seat, occupant in enumerate(loaded.facts.seats):
        if occupant is None or occupant.sitting_out:
            continue
        kinds = {
            str(getattr(a.kind, "value", a.kind)) for a in loaded.rules.legal_actions(loaded.state, seat)
        }
        if "post_blind" in kinds:
            return seat
    return None


def play(
    table_count: int,
    seconds: float,
    seed: int,
    games: Sequence[str] = DEFAULT_GAMES,
    hands: int | None = None,
    progress: Callable[[int], None] | None = None,
    stop: threading.Event | None = None,
) -> Played:
    """Open ``table_count`` cash tables of ``games`` (in turn), seat bots and play until ``seconds`` of wall
    time (from the first hand) have passed, ``hands`` hands have ended (``None``: no cap) or ``stop`` is
    set; then play out the hands running and cash every bot out. ``progress(hands)`` after each hand.
    Raises :class:`SimulationError` (a table that cannot go on)."""
    timers = settings.MAZZIERE_TIMERS
    settings.MAZZIERE_TIMERS = "off"  # this function drives the tables: no timer, no Celery task
    try:
        return _play(table_count, seconds, seed, games, hands, progress, stop)
    finally:
        settings.MAZZIERE_TIMERS = timers


def _play(
    table_count: int,
    seconds: float,
    seed: int,
    games: Sequence[str],
    hands: int | None,
    progress: Callable[[int], None] | None,
    stop: threading.Event | None,
) -> Played:
    started = time.monotonic()
    played = Played(tables=[], events_before=Event.objects.count())
    rng = random.Random(seed)
    seats = sum(min(SEATS, find_game(games[i % len(games)]).max_seats) for i in range(table_count))
    users = bots(max(4, round(seats * BOTS_PER_SEAT)), f"cash-s{seed}")
    for user in users.values():
        ledger = service.load(int(user.pk))
        if not ledger.granted:
            service.grant(user, GRANT, "simulate_cash", "simulator")
        elif ledger.balance < GRANT // 2:  # a bot of an earlier run with the same seed
            service.credit(user, GRANT - ledger.balance, "simulate_cash", "simulator")
    run = Run(rng, users, played)
    for number in range(1, table_count + 1):
        table = open_cash_table(games[(number - 1) % len(games)], number)
        played.tables.append(table)
        run.join(table, force=False)
    played.events_at_start = Event.objects.count()
    playing = time.monotonic()
    played.setup_s = round(playing - started, 1)

    def over() -> str:
        if hands is not None and played.hands >= hands:
            return "hands"
        if time.monotonic() - playing >= seconds:
            return "seconds"
        if stop is not None and stop.is_set():
            return "stop"
        return ""

    moves_without_hand = 0
    while not played.stopped_by:
        for table in played.tables:
            if run.move(table):
                moves_without_hand = 0
                if progress is not None:
                    progress(played.hands)
            else:
                moves_without_hand += 1
            played.stopped_by = over()
            if played.stopped_by:
                break
        if moves_without_hand > MOVES_PER_HAND * len(played.tables):
            raise SimulationError("no hand ended in the last moves of every table")
    finish(run)
    played.play_s = round(time.monotonic() - playing, 1)
    played.events_at_end = Event.objects.count()
    return played


def finish(run: Run) -> None:
    """Play out the hands running, then every bot at the run's tables cashes out (``final_cash_outs``)."""
    for table in run.played.tables:
        for _ in range(MOVES_PER_HAND):
            loaded = tables.load(table.table_id)
            if not loaded.facts.in_hand:
                break
            run.move(table)
        else:
            raise SimulationError(f"the hand at table {table.table_id} ({table.game}) does not end")
        for occupant in tables.load(table.table_id).facts.seats:
            if occupant is not None:
                run.cash_out(table, occupant.player, "final_cash_outs")


def verify() -> dict[str, Any]:
    """``manage.py verify_all --json`` over the whole log: its report (``ok``, the counts, ``failures``)."""
    out = io.StringIO()
    with contextlib.suppress(CommandError):  # failures: the report printed before says which
        call_command("verify_all", "--json", stdout=out, stderr=io.StringIO())
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


CHIP_CHECKS = frozenset({"hand", "replay", "ledger", "cashier", "chain", "shuffle"})
"""``verify_all``'s checks whose failure means chips not accounted for (a hand's chips or replay, a ledger's
invariant, the cashier's whole-log check) or a log that proves nothing (a broken chain, a bad shuffle)."""
PROJECTION_CHECKS = frozenset({"projection", "snapshot"})


def summary(
    played: Played, seed: int, seconds: float, report: dict[str, Any], checks_s: float
) -> dict[str, Any]:
    """The JSON summary of a run (``manage.py simulate_cash``; see ``docs/operations.md``)."""
    failures = report.get("failures", [])
    checks = Counter(str(f["check"]) for f in failures)
    during = played.events_at_end - played.events_at_start
    games = Counter(table.game for table in played.tables)
    transfers = {
        kind: played.transfers[kind]
        for kind in ("buy_ins", "top_ups", "cash_outs", "final_cash_outs", "refused")
    }
    return {
        "seed": seed,
        "seconds": seconds,
        "stopped_by": played.stopped_by,
        "tables": len(played.tables),
        "games": dict(sorted(games.items())),
        "stake": STAKE,
        "buy_in": {"minimum": MIN_BUY_IN * STAKE, "maximum": MAX_BUY_IN * STAKE},
        "hands_played": played.hands,
        "moves": played.moves,
        "events_appended": played.events_at_end - played.events_before,
        "setup_s": played.setup_s,
        "play_s": played.play_s,
        "events_per_s": round(during / played.play_s, 1) if played.play_s else None,
        "hands_per_s": round(played.hands / played.play_s, 2) if played.play_s else None,
        "transfers": transfers,
        "chips_conserved": not (checks.keys() & CHIP_CHECKS),
        "projections_verified": not (checks.keys() & PROJECTION_CHECKS),
        "verified": bool(report.get("ok")),
        "verification": {
            key: report.get(key)
            for key in (
                "events",
                "hands",
                "ledgers",
                "chips_on_balances",
                "chips_at_cash_tables",
                "chips_granted_net",
            )
        },
        "failures": failures[:20],
        "checks_s": round(checks_s, 1),
    }


def machine() -> dict[str, Any]:
    """The machine and the database the run used, and the load average at the end (other processes
    included)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        postgres = cursor.fetchone()[0]
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "postgresql": postgres,
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
    }
