"""Every game of the engine, registered by variant code on import (:func:`engine.core.game.register`).

Each module of this package registers its games; the ``engine`` package imports this one first, so that
:func:`engine.core.find_game` finds every game while the registry itself imports none (no import circle).
"""

from engine.games import (
    cinese,  # noqa: F401  (CN: poker cinese)
    draw,  # noqa: F401  (N5D, P5D, F5D: Five Card Draw)
    holdem,  # noqa: F401  (NT, PT, FT: Texas Hold'em)
    omaha,  # noqa: F401  (NO, PO, FO: Omaha High)
    stud,  # noqa: F401  (N7S, P7S, F7S: Seven Card Stud)
    telesina,  # noqa: F401  (NTL, PTL, FTL: Telesina)
)
from engine.games.italian import game  # noqa: F401  (NIT, PIT, FIT: poker all'italiana)
