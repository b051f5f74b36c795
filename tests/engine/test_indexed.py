"""The event fields the service reads in SQL (``engine/core/indexed.py``): every registered game's events have
them with their declared types, and a query asking for an undeclared one is refused."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from engine.codec import to_data
from engine.core import games
from engine.core.indexed import INDEXED_FIELDS, UndeclaredField, fields, undeclared


@pytest.mark.parametrize("game", games(), ids=lambda game: game.code)
def test_every_game_logs_the_declared_fields(game) -> None:  # type: ignore[no-untyped-def]
    assert undeclared(game.events) == []
    # the hand boundaries and the seating are what the auditors' index reads: every game logs them
    assert {"HandStarted", "HandEnded", "PlayerSeated"} <= set(game.events)


@dataclass(frozen=True, slots=True)
class HandStarted:
    number: int
    button: int


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    seat: str  # the wrong type
    player: str


def test_a_missing_or_mistyped_field_is_named() -> None:
    problems = undeclared({"HandStarted": HandStarted, "PlayerSeated": PlayerSeated})
    assert problems == ["HandStarted.dealt: missing", "PlayerSeated.seat: <class 'str'>, not int"]


def test_a_declared_field_keeps_its_name_in_the_stored_json() -> None:
    # SQL reads data->'player': the codec stores a dataclass field under its own name
    assert to_data(PlayerSeated("2", "anna")) == {"seat": "2", "player": "anna"}


def test_a_query_may_read_only_declared_fields() -> None:
    assert fields("PlayerSeated", ["seat", "player"]) == ("seat", "player")
    with pytest.raises(UndeclaredField, match=r"HandStarted\.deck"):
        fields("HandStarted", ["deck"])  # the deck is never read in SQL
    with pytest.raises(UndeclaredField):
        fields("BetPlaced", ["amount"])
    assert "deck" not in INDEXED_FIELDS["HandStarted"]
