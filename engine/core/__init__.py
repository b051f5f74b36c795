"""The engine that every game shares (issue 16): the game protocol and its registry (:mod:`engine.core.game`),
and the generic game that plays any :class:`GameSpec` (:class:`CoreGame`).

- :mod:`engine.core.spec`: a game as data (streets, opener, betting structure, hooks: the extension points
  for draw and stud are documented there);
- :mod:`engine.core.model`: the core games' configuration, commands, events and state;
- :mod:`engine.core.payout`: showdown order, pots and their award, shared with poker all'italiana;
  :mod:`engine.core.reshuffle`: the order of a reshuffled stock (draw, stud, cambio);
- :mod:`engine.core.rules`: the decider (``apply``/``evolve``), :mod:`engine.core.view` legal actions,
  views and the public log, :mod:`engine.core.bot` the bot, :mod:`engine.core.generic` the protocol.

Outside ``engine/`` a game is reached only through :func:`find_game`.
"""

from engine.core import fast as _fast  # noqa: F401  (registers the decider's lean path)
from engine.core.forced import ForcedBets, ForcedBetsRefused
from engine.core.game import Game, GameFamily, UnknownGame, find_game, games, is_betting, register
from engine.core.generic import CoreGame
from engine.core.model import CoreConfig, CoreHand, CoreState
from engine.core.spec import Evaluation, GameSpec, Opener, Street, Structure

__all__ = [
    "CoreConfig",
    "CoreGame",
    "CoreHand",
    "CoreState",
    "Evaluation",
    "ForcedBets",
    "ForcedBetsRefused",
    "Game",
    "GameFamily",
    "GameSpec",
    "Opener",
    "Street",
    "Structure",
    "UnknownGame",
    "find_game",
    "games",
    "is_betting",
    "register",
]
