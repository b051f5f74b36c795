"""The former sit-and-go's stream format (before the one tournament model of issue 17), kept only to read
old ``tournament-<id>`` streams (rules T-SEAT-1, T-LEVEL-1, T-ELIM-1, G-DRAW-1).

A sit-and-go is now a one-table multi-table tournament that starts when full: the multi-table decider
(:mod:`engine.tournament.mtt`, :func:`~engine.tournament.mtt.sit_and_go_config`) decides it, on the
multi-table stream prefix. This module holds no decider: only the former events and their configuration
(:class:`TournamentConfig`, :class:`Level`), as the codec reads them, and their upcast to the multi-table
decider's events: :func:`upcast` (one event, given the multi-table state folded so far), :func:`to_mtt`
(a whole stream) and :func:`mtt_config` (the configuration). ``Status``, ``TournamentError`` and
``TournamentConfigRefused`` are the multi-table decider's, re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card
from engine.core import ForcedBets
from engine.games.italian.model import Limit
from engine.tournament import mtt
from engine.tournament.mtt import Status, TournamentConfigRefused, TournamentError

__all__ = [
    "ClockPaused", "ClockResumed", "Event", "Level", "LevelStarted", "PlayerFinished", "PlayerRegistered",
    "PlayerUnregistered", "Status", "TournamentConfig", "TournamentConfigRefused", "TournamentCreated",
    "TournamentError", "TournamentFinished", "TournamentStarted", "mtt_config", "to_mtt", "upcast",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Level:
    """One level of the structure for ``duration_ms`` (T-LEVEL-1): its ``forced`` bets (issue 17) and
    ``invito``, their headline amount (before issue 17 the only field, the ante of IT-ANTE-1: a level
    with ``forced`` ``None`` is ``ForcedBets(invito=invito)``); ``game``: the level's own variant code
    (mixed games; ``""``: the tournament's)."""

    invito: int
    duration_ms: int
    forced: ForcedBets | None = None
    game: str = ""

    @property
    def forced_bets(self) -> ForcedBets:
        """:attr:`forced`, or for a level written before issue 17 its invito."""
        return self.forced if self.forced is not None else ForcedBets(invito=self.invito)


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A sit-and-go: ``seats`` (2–9, the most players), ``starting_stack`` chips, ``levels`` in order (the
    last one lasts until the end), table options, ``auto_start``: start as soon as every seat is taken."""

    name: str
    seats: int = 6
    limit: Limit = Limit.POT_LIMIT
    starting_stack: int = 1000
    levels: tuple[Level, ...] = (Level(10, 600_000),)
    action_time_ms: int = 30_000
    time_bank_ms: int = 60_000
    auto_start: bool = True
    game: str = ""

    @property
    def game_code(self) -> str:
        """The variant code of the tournament's table: :attr:`game`, or for a sit-and-go created before
        issue 17 poker all'italiana at its limit (``NIT``, ``PIT``, ``FIT``)."""
        return self.game or _LEGACY_GAMES.get(self.limit.value, "PIT")


_LEGACY_GAMES = {"NL": "NIT", "PL": "PIT", "FL": "FIT"}


# --- events --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TournamentCreated:
    config: TournamentConfig
    at: int


@dataclass(frozen=True, slots=True)
class PlayerRegistered:
    player: str
    at: int


@dataclass(frozen=True, slots=True)
class PlayerUnregistered:
    player: str
    at: int


@dataclass(frozen=True, slots=True)
class TournamentStarted:
    """``seating`` ``(seat, player)``; ``draw`` the card each player drew for the button (G-DRAW-1)."""

    table_id: int
    seating: tuple[tuple[int, str], ...]
    draw: tuple[tuple[str, Card], ...]
    button: int
    at: int


@dataclass(frozen=True, slots=True)
class LevelStarted:
    """Level ``level`` (0-based) with ``invito`` runs until ``ends_at`` (``0``: the last level, no end);
    ``forced`` its forced bets and ``game`` its variant code (issue 17; ``None`` / ``""`` before)."""

    level: int
    invito: int
    at: int
    ends_at: int
    forced: ForcedBets | None = None
    game: str = ""


@dataclass(frozen=True, slots=True)
class ClockPaused:
    at: int
    remaining_ms: int


@dataclass(frozen=True, slots=True)
class ClockResumed:
    at: int
    ends_at: int


@dataclass(frozen=True, slots=True)
class PlayerFinished:
    """``player`` finished ``position`` (1 = winner); ``shared``: how many players share it (T-ELIM-1)."""

    player: str
    position: int
    hand_key: str
    shared: int
    at: int


@dataclass(frozen=True, slots=True)
class TournamentFinished:
    winner: str
    at: int


Event = (
    TournamentCreated | PlayerRegistered | PlayerUnregistered | TournamentStarted | LevelStarted
    | ClockPaused | ClockResumed | PlayerFinished | TournamentFinished
)  # fmt: skip

# --- the one tournament model (issue 17): this decider's streams read as the multi-table decider's ------


def mtt_config(config: TournamentConfig) -> mtt.MttConfig:
    """The multi-table configuration of a sit-and-go written by this decider: one table of ``seats``,
    ``max_players`` = ``seats``, no late registration, re-entry or hand-for-hand, no buy-in (sit-and-gos
    had no prize pool), the same levels (each ``Level`` field kept), limit, game, clocks and ``auto_start``
    (:func:`engine.tournament.mtt.sit_and_go_config`)."""
    levels = tuple(
        mtt.Level(level.invito, level.duration_ms, False, level.forced, level.game) for level in config.levels
    )
    return mtt.sit_and_go_config(
        mtt.MttConfig(
            config.name,
            config.seats,
            config.limit,
            config.starting_stack,
            levels,
            buy_in=0,
            action_time_ms=config.action_time_ms,
            time_bank_ms=config.time_bank_ms,
            game=config.game,
            auto_start=config.auto_start,
        )
    )


def upcast(state: mtt.MttState, event: Event) -> tuple[mtt.Event, ...]:
    """The multi-table decider's events for one event of this decider, given the multi-table ``state``
    folded so far from the same stream (pure; the stream's upcaster, :func:`to_mtt`).

    ``TournamentStarted`` becomes the start of one table (its seating in the stream's seat order, so
    ``remaining`` reads as before; its button; an empty prize pool) and ``FinalTableReached`` (the
    multi-table decider emits it for one table); ``PlayerFinished`` carries prize 0 and the player's table
    and seat; ``TournamentFinished`` the results, best first. A sit-and-go stream records no stacks (they
    are in its table's stream): the folded :attr:`~engine.tournament.mtt.MttState.chips` stay the starting
    stacks."""
    if isinstance(event, TournamentCreated):
        return (mtt.TournamentCreated(mtt_config(event.config), event.at),)
    if isinstance(event, PlayerRegistered):
        return (mtt.PlayerRegistered(event.player, 1, event.at),)
    if isinstance(event, PlayerUnregistered):
        return (mtt.PlayerUnregistered(event.player, event.at),)
    if isinstance(event, TournamentStarted):
        table_id = event.table_id
        seating = tuple((player, table_id, seat) for seat, player in event.seating)
        return (
            mtt.TournamentStarted(seating, ((table_id, event.button),), event.draw, 0, (), event.at),
            mtt.FinalTableReached(table_id, event.at),
        )
    if isinstance(event, LevelStarted):
        return (
            mtt.LevelStarted(
                event.level, event.invito, event.ends_at, False, event.at, event.forced, event.game
            ),
        )
    if isinstance(event, ClockPaused):
        return (mtt.ClockPaused(event.remaining_ms, "", event.at),)
    if isinstance(event, ClockResumed):
        return (mtt.ClockResumed(event.ends_at, "", event.at),)
    if isinstance(event, PlayerFinished):
        table_id, seat = mtt.table_of(state, event.player) or (state.final_table, -1)
        return (
            mtt.PlayerFinished(
                event.player, event.position, event.hand_key, event.shared, 0, table_id, seat, False, event.at
            ),
        )
    if isinstance(event, TournamentFinished):
        results = tuple(sorted(state.finished, key=lambda result: result[1]))
        return (mtt.TournamentFinished(event.winner, results, event.at),)
    return ()


def to_mtt(events: tuple[Event, ...] | list[Event]) -> tuple[mtt.Event, ...]:
    """The multi-table decider's events for a whole sit-and-go stream of this decider (:func:`upcast`
    of each event, in order)."""
    state = mtt.MttState()
    out: list[mtt.Event] = []
    for event in events:
        for upcasted in upcast(state, event):
            state = mtt.evolve(state, upcasted)
            out.append(upcasted)
    return tuple(out)
