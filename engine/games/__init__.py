"""Every game of the engine, registered by variant code on import (:func:`engine.core.game.register`).

Each module of this package registers its games; :func:`engine.core.find_game` imports this package the
first time a game is asked for.
"""

from engine.games import (
    holdem,  # noqa: F401  (NT, PT, FT: Texas Hold'em)
    italian,  # noqa: F401  (NIT, PIT, FIT: poker all'italiana)
    omaha,  # noqa: F401  (NO, PO, FO: Omaha High)
)
