"""Poker all'italiana's decider, kept importable here: a re-export of
:mod:`engine.games.italian.rules` (issue 16 moved poker all'italiana into :mod:`engine.games.italian`)."""

from engine.games.italian.rules import (
    apply,
    bet_range,
    can_start_hand,
    dealer_command,
    decide,
    evolve,
    initial_state,
    may_bet_for_opening,
    next_deal,
    replay_events,
    reshuffle_order,
)

__all__ = [
    "apply",
    "bet_range",
    "can_start_hand",
    "dealer_command",
    "decide",
    "evolve",
    "initial_state",
    "may_bet_for_opening",
    "next_deal",
    "replay_events",
    "reshuffle_order",
]
