"""Every game of the engine, registered by variant code on import (:func:`engine.core.game.register`).

Each module of this package registers its games; :func:`engine.core.find_game` imports this package the
first time a game is asked for.
"""

from engine.games import italian  # noqa: F401  (NIT, PIT, FIT: poker all'italiana)
