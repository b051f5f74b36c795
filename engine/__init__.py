"""Mazziere's rules engine: pure Python, no Django, no randomness, no clock, no I/O.

Modules: :mod:`engine.cards` (cards and decks), :mod:`engine.shuffle` (deterministic shuffles),
:mod:`engine.evaluation` (hand rankings: Italian, standard, partial visible hands, opening requirements),
:mod:`engine.pots` (main and side pots, split shares).

The games register themselves in :mod:`engine.core.game`'s registry when :mod:`engine.games` is imported,
which this package does first: whoever imports any part of the engine finds every game with
:func:`engine.core.find_game`, and the registry imports no game (no import circle between the protocol and
the games that implement it).
"""

import engine.games  # noqa: F401  (registers every game: engine.core.find_game finds them)
