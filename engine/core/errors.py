"""Refusals of the core decider: every one is an :class:`IllegalAction` (a ``ValueError``) whose message is
English (``str()`` and ``english``, the attribute the service and the Italian errors share), with its Italian
translation (``italian``) where the core has one. A refused command changes nothing.

A game whose refusals speak another language or are other classes converts the core's through
:attr:`engine.core.spec.GameSpec.refusal_hook` (poker all'italiana: its own classes of the same names,
``str()`` Italian)."""

from __future__ import annotations

__all__ = [
    "ActionNotAllowed",
    "BadAmount",
    "BadCards",
    "ChipsDuringHand",
    "IllegalAction",
    "NoHandInProgress",
    "NotARingTable",
    "NotEnoughPlayers",
    "NotYourTurn",
    "NothingOwed",
    "NothingToReveal",
    "SeatError",
    "SeedMismatch",
    "TimeoutTooEarly",
]


class IllegalAction(ValueError):
    """A command the rules refuse. ``str(error)`` and ``error.english``: the English message;
    ``error.italian``: the Italian one (``""`` when the core has none)."""

    def __init__(self, message: str, italian: str = "") -> None:
        super().__init__(message)
        self.english = message
        self.italian = italian


class NotYourTurn(IllegalAction):
    """The seat is not the one to act (or nobody is to act)."""


class ActionNotAllowed(IllegalAction):
    """This action is not possible now (a check facing a bet, a raise the betting does not reopen for, a
    draw in a game without one, an unknown command or action)."""


class BadAmount(IllegalAction):
    """A bet or raise outside the legal range (minimum, limit, stack), or a seat without chips."""


class BadCards(IllegalAction):
    """Cards that are not in the stock, not the player's, repeated, or the wrong number; a bad deck."""


class NoHandInProgress(IllegalAction):
    """A hand action with no hand running, or a table action (seat, remove, start) while a hand runs."""


class ChipsDuringHand(NoHandInProgress):
    """Chips added to a stack while a hand runs (CASH-TOPUP-1: a top-up only between hands)."""


class NotEnoughPlayers(IllegalAction):
    """Fewer than two players can be dealt in."""


class SeatError(IllegalAction):
    """An empty, occupied or non-existent seat, or a player already seated."""


class TimeoutTooEarly(IllegalAction):
    """A timeout before the deadline (a late or duplicate timer)."""


class SeedMismatch(IllegalAction):
    """A seed or commitment that is not 64 lowercase hex digits, or a seed whose ``sha256`` is not the hand's
    commitment."""


class NothingToReveal(IllegalAction):
    """A seed revealed for a hand without a commitment, or a second time."""


class NotARingTable(IllegalAction):
    """A ring-game choice (:class:`~engine.core.model.PostBlind`, :class:`~engine.core.model.WaitForBigBlind`)
    at a tournament table or in a game without blinds (CASH-1, CASH-2 are the rules of ring blind games)."""


class NothingOwed(IllegalAction):
    """A ring-game choice by a player who owes no blind (CASH-1, CASH-2), or the choice already made."""
