"""Poker cinese's own table options through the registry (issue 20 follow-ups): ``cascade`` and ``games``,
passed by name as ``Game.table_options`` (what a tournament of matches sets for its tables)."""

from __future__ import annotations

import pytest

from engine.core import ForcedBets, find_game


def config(**options: str) -> object:
    return find_game("CN").table_config(
        seats=3, tournament=True, forced=ForcedBets(), action_time_ms=60_000, time_bank_ms=0, **options
    )


def test_the_options_and_their_defaults() -> None:
    game = find_game("CN")
    assert dict(game.table_options) == {"cascade": ("no", "yes"), "games": ("3", "1")}
    default = config()
    assert (default.cascade, default.games, default.seats) == (False, 3, 3)  # type: ignore[attr-defined]
    extra = config(cascade="yes", games="1")
    assert (extra.cascade, extra.games) == (True, 1)  # type: ignore[attr-defined]


@pytest.mark.parametrize("options", [{"cascade": "true"}, {"games": "2"}, {"games": ""}])
def test_a_value_the_game_does_not_take_is_refused(options: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="poker cinese: option"):
        config(**options)
