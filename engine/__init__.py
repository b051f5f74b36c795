"""Mazziere's rules engine: pure Python, no Django, no randomness, no clock, no I/O.

Modules: :mod:`engine.cards` (cards and decks), :mod:`engine.shuffle` (deterministic shuffles),
:mod:`engine.evaluation` (hand rankings: Italian, standard, partial visible hands, opening requirements),
:mod:`engine.pots` (main and side pots, split shares).
"""
