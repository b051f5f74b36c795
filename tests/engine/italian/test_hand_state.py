"""Poker all'italiana's hand is the core's hand with an Italian extension (issue 16), folded in place.

The decider folds a command's events on its own copy of the table and hand (the core's in-place folds):
the state a caller passes to ``apply`` must never change, and the fold of the events by ``evolve`` must be
the state ``apply`` returns (the golden records check the events, views and legal actions).
"""

from __future__ import annotations

import random

from engine.cards import Deck
from engine.codec import to_data
from engine.core.model import CoreHand
from engine.games.italian.bot import bot_command
from engine.games.italian.model import Command, ItalianHand, StartHand, TableConfig
from engine.games.italian.rules import apply, dealer_command, evolve, initial_state


def test_the_italian_hand_is_a_core_hand_whose_folds_keep_the_caller_s_state() -> None:
    rng = random.Random(16)
    state = initial_state(TableConfig(seats=4), [(seat, f"p{seat}", 300) for seat in range(4)])
    hands = 0
    while hands < 6:
        command: Command = StartHand(deck=tuple(rng.sample(Deck.standard().cards, 52)), at=hands)
        for _ in range(300):
            before = to_data(state)
            after, events = apply(state, command)
            assert to_data(state) == before, f"{command!r} changed the state it was given"
            folded = state
            for event in events:
                folded = evolve(folded, event)
            assert folded == after, f"{command!r}: the fold of the events is not apply's state"
            state = after
            if state.hand is None:
                break
            assert type(state.hand) is ItalianHand and isinstance(state.hand, CoreHand)
            to_act = state.hand.to_act
            command = dealer_command(state) or bot_command(state, -1 if to_act is None else to_act, rng)
        hands += 1
