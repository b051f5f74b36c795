"""Poker all'italiana (rules IT-*), kept importable as ``engine.italian``: it lives in
:mod:`engine.games.italian` since issue 16 (``rules`` the decider, ``model`` the values, ``errors`` the
refusals, ``legal``, ``view``, ``bot``); these modules re-export it for the code and tests that import it
here. Nothing outside ``engine/`` imports either (``tables``/``tournaments`` use the registry).
"""

from engine.games.italian.rules import (
    apply,
    bet_range,
    dealer_command,
    decide,
    evolve,
    initial_state,
    next_deal,
    replay_events,
)

__all__ = [
    "apply",
    "bet_range",
    "dealer_command",
    "decide",
    "evolve",
    "initial_state",
    "next_deal",
    "replay_events",
]
