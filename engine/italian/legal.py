"""Poker all'italiana's legal actions, kept importable here: a re-export of
:mod:`engine.games.italian.legal` (issue 16 moved poker all'italiana into :mod:`engine.games.italian`)."""

from engine.games.italian.legal import (
    ActionKind,
    LegalAction,
    legal_actions,
)

__all__ = [
    "ActionKind",
    "LegalAction",
    "legal_actions",
]
