"""How the service reaches a game (issue 16): only through the registry, :func:`engine.core.find_game`.

A table knows its game's variant code (``TableOpened.game``, :attr:`tables.service.Loaded.game`); everything
game-specific the service does goes through that game's protocol members (:class:`engine.core.Game`).
Nothing here imports a game's package.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.codec import to_data
from engine.core import Game, UnknownGame, find_game, games

__all__ = ["find_game", "game_for_config", "legacy_code", "refusals", "too_early"]

_LEGACY = {"NL": "NIT", "PL": "PIT", "FL": "FIT"}


def legacy_code(config: Mapping[str, Any]) -> str:
    """The game of a table stream written before issue 16, whose ``TableOpened`` (or snapshot) names none:
    every table was poker all'italiana then, at its configuration's ``limit`` (``"NL"`` → ``NIT``, ``"PL"``
    → ``PIT``, ``"FL"`` → ``FIT``; a configuration without one had the default, pot limit)."""
    return _LEGACY.get(str(config.get("limit", "PL")), "PIT")


def game_for_config(config: Any) -> Game:
    """The registered game a table configuration belongs to, for a caller that names none: the game whose
    :attr:`~engine.core.Game.config_type` is the configuration's type and whose ``limit`` is the
    configuration's (JSON) ``limit``. Raises :class:`engine.core.UnknownGame` when no game matches."""
    data = to_data(config)
    limit = data.get("limit") if isinstance(data, dict) else None
    for game in games():
        if game.config_type is type(config) and game.limit == limit:
            return game
    raise UnknownGame(f"{type(config).__name__}(limit={limit!r})", (game.code for game in games()))


def refusals() -> tuple[type[Exception], ...]:
    """The refusal base class of every registered game (:attr:`~engine.core.Game.illegal_action`): a rule
    refusing a command, an HTTP 400 or a socket error message."""
    return tuple(dict.fromkeys(game.illegal_action for game in games()))


def too_early() -> tuple[type[Exception], ...]:
    """Every registered game's refusal of a timeout before its deadline (:attr:`~engine.core.Game.too_early`):
    the timer is scheduled again."""
    return tuple(dict.fromkeys(game.too_early for game in games()))
