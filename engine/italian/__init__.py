"""Poker all'italiana (rules IT-*): the pure decider.

Functions here; the values (config, commands, events, state) are in :mod:`engine.italian.model`, the
refusals in :mod:`engine.italian.errors`.
"""

from engine.italian.game import (
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
