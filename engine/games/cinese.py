"""Poker cinese in the registry: ``CN`` (seed 001, rules CN-1 … CN-5, CN-TIME-1; issue 20).

2–4 players, the 52-card deck, 15 cards each (13 with four); three rows arranged at the same time with a
token staked on each; three games a match. The game lives in :mod:`engine.cinese`.
"""

from __future__ import annotations

from engine.cinese.game import CineseGame
from engine.core.game import register

__all__ = ["CN"]

CN = register(CineseGame())
