"""Poker all'italiana's refusals, kept importable here: a re-export of
:mod:`engine.games.italian.errors` (issue 16 moved poker all'italiana into :mod:`engine.games.italian`)."""

from engine.games.italian.errors import (
    ActionNotAllowed,
    BadAmount,
    BadCards,
    IllegalAction,
    NoHandInProgress,
    NotEnoughPlayers,
    NothingToReveal,
    NotYourTurn,
    OpeningRequirementNotMet,
    ParolNotAllowed,
    SeatError,
    SeedMismatch,
    TimeoutTooEarly,
)

__all__ = [
    "ActionNotAllowed",
    "BadAmount",
    "BadCards",
    "IllegalAction",
    "NoHandInProgress",
    "NotEnoughPlayers",
    "NotYourTurn",
    "NothingToReveal",
    "OpeningRequirementNotMet",
    "ParolNotAllowed",
    "SeatError",
    "SeedMismatch",
    "TimeoutTooEarly",
]
