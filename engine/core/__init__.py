"""The engine that every game shares (issue 16): the game protocol and its registry (:mod:`engine.core.game`).

Outside ``engine/`` a game is reached only through :func:`find_game`.
"""

from engine.core.forced import ForcedBets, ForcedBetsRefused
from engine.core.game import Game, GameFamily, UnknownGame, find_game, games, register

__all__ = [
    "ForcedBets",
    "ForcedBetsRefused",
    "Game",
    "GameFamily",
    "UnknownGame",
    "find_game",
    "games",
    "register",
]
