"""A tournament table where every player sits out (issue 15, defect 4; T-SITOUT-1, IT-SIT-1, IT-ANTE-1).

``docs/rules-decisions.md``, "Invito and sit-out": when nobody present would be dealt in, every player with
chips is dealt in and posts (T-SITOUT-1) and the engine plays their turns (IT-SIT-1: *dai carte*, check, else
fold; *servito* in the cambio; at the showdown the first hand is shown and the others that win something,
the rest hide; *passo* on the adeguamento). Such a hand needs nobody: after :class:`StartHand` only the
dealer acts. The property: a table of 2–9 absent players reaches one player with chips in a bounded number
of hands, with every chip accounted for at every hand.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import Deck
from engine.italian import apply, dealer_command, decide
from engine.italian.bot import bot_command
from engine.italian.errors import NotEnoughPlayers
from engine.italian.game import can_start_hand
from engine.italian.model import (
    AdeguamentoDeclined,
    BetOrRaise,
    CheckOrCall,
    Command,
    DeclineBlind,
    Discard,
    Event,
    Fold,
    HandEnded,
    HandResult,
    HandShown,
    HandStarted,
    Limit,
    PlayerEliminated,
    PotAwarded,
    SayParol,
    SitOut,
    StartHand,
    TableState,
)
from engine.phh import HandHistory, export_hand
from engine.replay import replay_histories
from engine.shuffle import derive_seed, shuffle
from tests.engine.italian.helpers import deal, run, stacks, table

# hands after which the table must have a winner. Termination is certain only with probability 1: a short
# stack that keeps winning its all-in doubles up and the drain starts again. With the invito doubling every
# 1-20 hands (a tournament's levels) 300 random tables needed at most 105 hands (median 38); with a constant
# invito and stacks of at most 20 invitos, 400 tables needed at most 238 (median 43). The bounds leave a
# wide margin over those (docs/reliability.md, "Processes and timers").
MAX_HANDS_WITH_LEVELS = 600
MAX_HANDS_CONSTANT_INVITO = 2000


def chips(state: TableState) -> int:
    """Stacks and the pot carried to the next hand (between hands nothing else holds chips)."""
    assert state.hand is None
    return sum(stacks(state)) + state.carried


def with_chips(state: TableState) -> int:
    return sum(1 for o in state.seats if o is not None and o.stack > 0)


def play_absent_hand(state: TableState, command: StartHand) -> tuple[TableState, list[Event]]:
    """Start a hand and let only the dealer act: a hand of absent players needs nobody else."""
    state, events = apply(state, command)
    produced = list(events)
    while (dealing := dealer_command(state)) is not None:
        state, more = apply(state, dealing)
        produced.extend(more)
    assert state.hand is None, f"the hand waits for seat {state.hand.to_act} ({state.hand.phase})"
    return state, produced


def all_sit_out(state: TableState) -> TableState:
    for seat, occupant in enumerate(state.seats):
        if occupant is not None and not occupant.sitting_out:
            state = run(state, SitOut(seat))
    return state


# --- the decision, case by case -----------------------------------------------------------------------------


def test_bug_every_player_sitting_out_stalled_the_table() -> None:
    """The issue: two players who never act are both in sit-out after their first timeouts, and the next
    hand was refused (``NotEnoughPlayers``), so the tournament never ended. Now both are dealt in, post the
    invito and check: nobody opens, the pot carries and the requirement rises (IT-OPEN-2)."""
    state = all_sit_out(table([1000, 1000]))
    assert can_start_hand(state)
    state, events = play_absent_hand(state, StartHand())
    started = events[0]
    assert isinstance(started, HandStarted) and started.dealt == (0, 1)
    assert started.antes == ((0, 10), (1, 10))
    ended = events[-1]
    assert isinstance(ended, HandEnded) and ended.result is HandResult.NOT_OPENED
    assert ended.carried == 20 and stacks(state) == [990, 990]
    assert not any(isinstance(e, BetOrRaise) for e in events)


def test_one_present_player_still_takes_the_forfeited_invitos() -> None:
    """Unchanged (IT-ANTE-1): with one player present the absent ones are not dealt in."""
    state = run(table([1000, 1000, 1000]), SitOut(1), SitOut(2))
    state, events = play_absent_hand(state, StartHand())
    started = events[0]
    assert isinstance(started, HandStarted) and started.dealt == (0,)
    ended = events[-1]
    assert isinstance(ended, HandEnded) and ended.uncontested_winner == 0
    assert stacks(state) == [1020, 990, 990]


def test_outside_tournaments_absent_players_are_not_dealt_in() -> None:
    """A ring game needs two players present (IT-ANTE-1 applies to tournaments only)."""
    state = all_sit_out(table([1000, 1000], tournament=False))
    assert not can_start_hand(state)
    with pytest.raises(NotEnoughPlayers):
        decide(state, StartHand())


def test_can_start_hand_agrees_with_start_hand() -> None:
    """``can_start_hand`` is what the service asks before a start (``tables.timers.can_start``)."""
    cases = [
        table([1000, 1000]),
        all_sit_out(table([1000, 1000])),
        all_sit_out(table([1000, 1000], tournament=False)),
        run(table([1000, 1000], tournament=False), SitOut(1)),
        table([1000], seats=3),
        all_sit_out(table([1000], seats=3)),
    ]
    for state in cases:
        try:
            decide(state, StartHand())
        except NotEnoughPlayers:
            accepted = False
        else:
            accepted = True
        assert can_start_hand(state) is accepted, stacks(state)
    assert not can_start_hand(run(table([1000, 1000]), StartHand()))  # a hand is in progress


def test_a_player_all_in_on_the_invito_takes_the_absent_hand_to_the_showdown() -> None:
    """IT-OPEN-5: nobody opens but a player is all-in on the invito: cambio (*servito*) and showdown. The
    first hand in the showdown order is shown (IT-SHOW-1), so a pot never goes without a shown hand."""
    state = all_sit_out(table([1000, 10, 1000]))
    state, events = play_absent_hand(state, StartHand())
    ended = events[-1] if isinstance(events[-1], HandEnded) else events[-2]
    assert isinstance(ended, HandEnded) and ended.result is HandResult.AWARDED
    assert any(isinstance(e, HandShown) for e in events)
    awards = [e for e in events if isinstance(e, PotAwarded)]
    assert awards and all(e.shares for e in awards)
    assert sum(stacks(state)) == 2010 and state.carried == 0


def test_absent_parol_players_are_dealt_the_parol_hand() -> None:
    """Both players said parol, then both went away. The parol hand (IT-PAROL-3) used to be refused (no
    parol player present). Now both are dealt in; nobody opens with kings, so the pot carries to an ordinary
    hand (invito posted again, IT-OPEN-2) — the piatto di parol is never lost."""
    state = table([1000, 1000])
    state = run(state, StartHand(), DeclineBlind(0))
    state = deal(state, {0: "JhJdAc9cTc", 1: "QhKdTs9dKs"})
    state = run(state, BetOrRaise(0, 10), CheckOrCall(1), Discard(0), Discard(1), SayParol(0), SayParol(1))
    assert state.hand is None and state.parol_players == (0, 1)
    state = all_sit_out(state)
    pot = state.carried
    state, events = play_absent_hand(state, StartHand())
    started = events[0]
    assert isinstance(started, HandStarted) and started.parol_hand and set(started.dealt) == {0, 1}
    assert started.antes == ()  # no invito in a parol hand (IT-PAROL-3)
    ended = events[-1]
    assert isinstance(ended, HandEnded) and ended.result is HandResult.NOT_OPENED and ended.carried == pot
    assert state.parol_players == ()
    state, events = play_absent_hand(state, StartHand())
    started = events[0]
    assert isinstance(started, HandStarted) and not started.parol_hand and started.antes == ((0, 10), (1, 10))


def test_an_absent_player_owing_the_adeguamento_says_passo() -> None:
    """Three players: Anna and Bruno said parol, Carla had folded to Anna's bet; then all three went away.
    The parol players are dealt in and Carla's adeguamento is her default *passo* (IT-PAROL-4, IT-SIT-1)."""
    state = table([1000, 1000, 1000])
    state = run(state, StartHand(button=2), DeclineBlind(0))
    state = deal(state, {0: "JhJdAc9cTc", 1: "QhKdTs9dKs", 2: "8h8d9hQcQs"})
    state = run(state, BetOrRaise(0, 10), CheckOrCall(1), Fold(2), Discard(0), Discard(1))
    state = run(state, SayParol(0), SayParol(1))
    assert state.hand is None and state.parol_players == (0, 1)
    state = all_sit_out(state)
    state, events = play_absent_hand(state, StartHand())
    started = events[0]
    assert isinstance(started, HandStarted) and started.parol_hand
    assert set(started.dealt) == {0, 1, 2} and started.adeguamento == ((2, 10),)
    assert AdeguamentoDeclined(2, automatic=False) in events
    assert sum(stacks(state)) + state.carried == 3000


# --- the property -------------------------------------------------------------------------------------------


def prelude(
    state: TableState, rng: random.Random, hands: int, seed: bytes, histories: list[HandHistory]
) -> tuple[TableState, int]:
    """``hands`` hands of bots (all present) before everyone leaves: carried pots, a raised opening
    requirement or a pending parol hand may be left behind. Returns the state and the hands started; each
    hand's history is added to ``histories``."""
    started = 0
    for number in range(hands):
        if with_chips(state) < 2:
            break
        before = state
        deck = shuffle(Deck.standard().cards, derive_seed(seed, f"prelude-{number}"))
        state, events = apply(state, StartHand(deck))
        produced = list(events)
        started += 1
        while state.hand is not None:
            command: Command | None = dealer_command(state)
            if command is None:
                assert state.hand.to_act is not None
                command = bot_command(state, state.hand.to_act, rng)
            state, events = apply(state, command)
            produced.extend(events)
        histories.append(export_hand(before, produced))
    return state, started


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    stack_list=st.lists(st.integers(1, 1000), min_size=2, max_size=9),
    invito=st.sampled_from([5, 10, 25]),
    level_hands=st.one_of(st.none(), st.integers(1, 20)),
    limit=st.sampled_from(list(Limit)),
    prelude_hands=st.integers(0, 3),
    seed=st.binary(min_size=32, max_size=32),
)
def test_absent_players_reach_a_winner_with_every_chip_accounted_for(
    stack_list: list[int],
    invito: int,
    level_hands: int | None,
    limit: Limit,
    prelude_hands: int,
    seed: bytes,
) -> None:
    """T-SITOUT-1 + IT-SIT-1: from any tournament table of 2–9 absent players (after a few hands of bots,
    or from the start), every hand plays by itself (only the dealer acts) and the table reaches a winner
    within the bound; between hands the stacks and the carried pot always hold every chip, every pot
    awarded has a winner, eliminated players leave the seat, and the hands exported as PHH replay
    (XX-HH-1). ``level_hands``: the invito doubles every so many hands (T-LEVEL-1); ``None``: it never
    rises, with stacks of at most 20 invitos."""
    if level_hands is None:
        stack_list = [min(stack, 20 * invito) for stack in stack_list]
        bound = MAX_HANDS_CONSTANT_INVITO
    else:
        bound = MAX_HANDS_WITH_LEVELS
    state = table(stack_list, limit=limit, invito=invito)
    total = sum(stack_list)
    histories: list[HandHistory] = []
    state, hands = prelude(state, random.Random(seed), prelude_hands, seed, histories)
    assert chips(state) == total
    state = all_sit_out(state)
    while with_chips(state) >= 2:
        assert hands < bound, f"no winner after {hands} hands: {stacks(state)} carried {state.carried}"
        assert can_start_hand(state)
        level = 0 if level_hands is None else hands // level_hands
        deck = shuffle(Deck.standard().cards, derive_seed(seed, f"hand-{hands}"))
        before = state
        state, events = play_absent_hand(state, StartHand(deck, invito=invito * 2 ** min(level, 20)))
        histories.append(export_hand(before, events))
        hands += 1
        assert chips(state) == total, events
        assert sum(isinstance(e, HandEnded) for e in events) == 1
        for event in events:
            if isinstance(event, PotAwarded):
                assert event.shares, event  # every pot has a winner
            if isinstance(event, PlayerEliminated):
                assert state.seats[event.seat] is None
    assert with_chips(state) == 1
    assert sum(stacks(state)) == total and state.carried == 0  # the last hand was won: nothing carries
    # the hands as auditors get them (PHH) replay to the same stacks (``verify_all`` does this per hand)
    difference = replay_histories(histories)
    assert difference is None, difference.describe("absent players")
