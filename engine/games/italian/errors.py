"""Refusals of the Italian decider: every one is an :class:`IllegalAction` subclass whose message (``str``)
is Italian, for the player, with ``english`` for logs and English-speaking clients. A refused command
changes nothing."""

from __future__ import annotations

__all__ = [
    "ActionNotAllowed",
    "BadAmount",
    "BadCards",
    "ChipsDuringHand",
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
    "from_core",
]


class IllegalAction(Exception):
    """A command the rules refuse. ``str(error)`` is Italian; ``error.english`` is English."""

    def __init__(self, italian: str, english: str) -> None:
        super().__init__(italian)
        self.italian = italian
        self.english = english


class NotYourTurn(IllegalAction):
    """The seat is not the one to act (or nobody is to act)."""


class ActionNotAllowed(IllegalAction):
    """This kind of action is not possible now (wrong phase, a check facing a bet, a raise not reopened…)."""


class BadAmount(IllegalAction):
    """A bet or raise outside the legal range (limit, minimum, stack)."""


class OpeningRequirementNotMet(IllegalAction):
    """Opening without the required hand (IT-OPEN-1..3)."""


class ParolNotAllowed(IllegalAction):
    """Parol outside the final round, with an all-in player or side pots, or after it was cancelled."""


class BadCards(IllegalAction):
    """Cards that are not the player's, not in the stock, or the wrong number."""


class NoHandInProgress(IllegalAction):
    """A hand action with no hand running, or a table action while a hand runs."""


class ChipsDuringHand(NoHandInProgress):
    """Chips added to a stack while a hand runs (CASH-TOPUP-1: a top-up only between hands)."""


class NotEnoughPlayers(IllegalAction):
    """Fewer than two players can be dealt in."""


class SeatError(IllegalAction):
    """An empty, occupied or non-existent seat."""


class TimeoutTooEarly(IllegalAction):
    """A timeout before the deadline (a late or duplicate timer)."""


class SeedMismatch(IllegalAction):
    """A revealed seed that is not 64 lowercase hex digits or whose ``sha256`` is not the hand's commitment;
    also a :class:`~engine.games.italian.model.StartHand` commitment that is not 64 lowercase hex digits."""


class NothingToReveal(IllegalAction):
    """A seed revealed for a hand without a commitment, or revealed a second time."""


def from_core(refusal: Exception) -> IllegalAction:
    """The Italian refusal of one of the core's (:class:`engine.core.errors.IllegalAction`): the class of
    the same name here, Italian ``str()`` and the core's English (``refusal_hook`` of
    :mod:`engine.games.italian.spec`). Raises ``ValueError`` for a refusal without an Italian message."""
    italian = getattr(refusal, "italian", "")
    kind = _BY_NAME.get(type(refusal).__name__)
    if not italian or kind is None:
        raise ValueError(f"no Italian refusal for {type(refusal).__name__}: {refusal}")
    return kind(italian, getattr(refusal, "english", str(refusal)))


_BY_NAME: dict[str, type[IllegalAction]] = {
    kind.__name__: kind
    for kind in (
        ActionNotAllowed,
        BadAmount,
        BadCards,
        ChipsDuringHand,
        NoHandInProgress,
        NotEnoughPlayers,
        NotYourTurn,
        NothingToReveal,
        SeatError,
        SeedMismatch,
        TimeoutTooEarly,
    )
}
