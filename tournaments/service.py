"""The sit-and-go service (issue 17, one tournament model): a sit-and-go is a one-table multi-table tournament
that starts when full, decided by :mod:`engine.tournament.mtt` through :mod:`tournaments.mtt` on the stream
``mtt-<id>``. This module only builds its configuration and names the multi-table service's functions the
sit-and-go pages, the demo and the tests call; there is no second decider. A sit-and-go created before the
one model (stream ``tournament-<id>``) loads and goes on through the same functions
(:func:`tournaments.mtt.stream_id`, :func:`tournaments.mtt.load_legacy`).

Refusals raise :class:`~engine.tournament.mtt.TournamentError` (HTTP 400) or :class:`TournamentNotFound`
(404); nothing is appended then.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.tournament import mtt as decider
from engine.tournament.mtt import MttConfig, MttState
from engine.tournament.sitgo import TournamentConfig, mtt_config
from tournaments import mtt
from tournaments.mtt import (
    TournamentNotFound,
    game_code,
    pause,
    register,
    resume,
    start,
    stream_id,
    table_config,
    table_hand_settings,
    tick,
    unregister,
)

__all__ = [
    "TournamentNotFound", "config", "create", "game_code", "load", "pause", "register", "resume", "start",
    "stream_id", "table_config", "table_hand_settings", "tick", "unregister",
]  # fmt: skip


def config(given: TournamentConfig | MttConfig) -> MttConfig:
    """The multi-table configuration of a sit-and-go (:func:`engine.tournament.mtt.sit_and_go_config`):
    ``given`` as a multi-table configuration, or in the former sit-and-go shape (:class:`TournamentConfig`:
    ``seats``, levels, clocks, ``auto_start``; :func:`engine.tournament.sitgo.mtt_config`)."""
    if isinstance(given, TournamentConfig):
        return mtt_config(given)
    return decider.sit_and_go_config(given)


def create(given: TournamentConfig | MttConfig, actor: str, players: Sequence[str] | None = None) -> int:
    """Create a sit-and-go (director) and register ``players`` (e.g. bots); one that they fill starts at
    once when it starts when full (``auto_start``). Returns its id. Raises
    :class:`~engine.tournament.mtt.TournamentError` (e.g. :class:`~engine.tournament.mtt.
    TournamentConfigRefused` naming the refused field)."""
    return mtt.create(config(given), actor, list(players or ()))


def load(tournament_id: int) -> tuple[int, MttState]:
    """``(version, state)`` of the tournament (multi-table decider's state). Raises
    :class:`TournamentNotFound`."""
    version, state, _extra = mtt.load(tournament_id)
    return version, state
