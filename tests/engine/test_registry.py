"""The registry of games (issue 16): games found by variant code, a named error for an unknown one."""

from __future__ import annotations

import pytest

from engine.core import UnknownGame, find_game, games


def test_an_unknown_code_is_a_named_value_error_listing_the_known_codes() -> None:
    with pytest.raises(UnknownGame) as caught:
        find_game("XYZ")
    assert isinstance(caught.value, ValueError)
    assert caught.value.code == "XYZ"
    assert caught.value.known == tuple(game.code for game in games())
    assert "unknown game 'XYZ'" in str(caught.value)


@pytest.mark.parametrize("code", [None, 3, ""])
def test_a_code_that_is_not_a_string_is_unknown(code: object) -> None:
    with pytest.raises(UnknownGame):
        find_game(code)  # type: ignore[arg-type]


def test_every_registered_game_is_found_by_its_code() -> None:
    for game in games():
        assert find_game(game.code) is game
