"""What the lobby, the dashboard and the clock screen show of a tournament's game and forced bets (issue
17): "NLHE 400/800 ante 800", "Stud FL 1k/2k, ante 200, bring-in 300", "Italiana PL, invito 25"
(:func:`engine.tournament.structure.describe`), read from a :class:`~tournaments.models.Tournament` row's
configuration (JSON) and current level.

A configuration written before issue 17 names no game and its levels only an invito: it reads as poker
all'italiana at its limit with that invito (:func:`engine.tournament.structure.legacy_game`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import ForcedBets, ForcedBetsRefused, GameFamily, UnknownGame, find_game
from engine.tournament.structure import describe, legacy_game


def tournament_game(config: Mapping[str, Any]) -> str:
    """The variant code of a tournament's configuration (JSON)."""
    return str(config.get("game") or legacy_game(str(config.get("limit", "PL"))))


def level_forced(config: Mapping[str, Any], level: Mapping[str, Any]) -> tuple[str, ForcedBets]:
    """``(variant code, forced bets)`` of one level (JSON) of ``config``."""
    code = str(level.get("game") or tournament_game(config))
    forced = level.get("forced")
    if isinstance(forced, Mapping) and forced:
        return code, ForcedBets.from_dict(dict(forced))
    return code, ForcedBets(invito=int(level.get("invito") or 0))


def level_label(config: Mapping[str, Any], level: Mapping[str, Any]) -> str:
    """The label of one level (JSON): the game's short name and its forced bets."""
    try:
        code, forced = level_forced(config, level)
        return describe(find_game(code), forced)
    except (UnknownGame, ForcedBetsRefused, TypeError, ValueError):
        return ""


def playing_level(config: Mapping[str, Any], index: int) -> Mapping[str, Any] | None:
    """The level (JSON) whose forced bets apply at level ``index`` (a break keeps the previous level's),
    ``None`` before the start."""
    levels = list(config.get("levels") or [])
    if not levels or index < 0:
        return None
    for level in reversed(levels[: min(index, len(levels) - 1) + 1]):
        if not level.get("is_break"):
            return dict(level)
    return None


def current_label(config: Mapping[str, Any], index: int) -> str:
    """The label of the forced bets in play at level ``index`` (before the start: the first level's)."""
    level = playing_level(config, max(index, 0))
    return level_label(config, level) if level is not None else ""


def level_is_italian(config: Mapping[str, Any], level: Mapping[str, Any]) -> bool:
    """Whether ``level`` (JSON) plays poker all'italiana (a clock shows its invito as before issue 17)."""
    try:
        return find_game(level_forced(config, level)[0]).family is GameFamily.ITALIAN
    except (UnknownGame, ForcedBetsRefused, TypeError, ValueError):
        return True


def is_italian(config: Mapping[str, Any], index: int) -> bool:
    """Whether level ``index`` plays poker all'italiana (before the start: the first level)."""
    level = playing_level(config, max(index, 0))
    return True if level is None else level_is_italian(config, level)


def variant_label(config: Mapping[str, Any]) -> str:
    """The game table options a tournament's tables play (issue 19), as the pages name them: Telesina's
    vele layout and *distribuzione carta coperta* (TL-VELE-1, TL-DEAL-2), e.g. "croce (cross) · carta
    coperta: mai (one down, the rest up)"; ``""`` when no game of the tournament has such options. An option
    the configuration leaves ``""`` (every tournament created before) is the game's default (the first value
    of ``Game.table_options``)."""
    from tables.rendering import DISTRIBUTION_NAMES, LAYOUT_NAMES  # the table page's names

    names = {"layout": LAYOUT_NAMES, "distribution": DISTRIBUTION_NAMES}
    code = tournament_game(config)
    codes = [code, *(str(level.get("game")) for level in config.get("levels") or [] if level.get("game"))]
    parts: list[str] = []
    for name in ("layout", "distribution"):
        for other in codes:
            try:
                values = find_game(other).table_options.get(name)
            except UnknownGame:
                continue
            if values:
                value = str(config.get(name) or values[0])
                parts.append(str(names[name].get(value, value)))
                break
    return " · ".join(parts)
