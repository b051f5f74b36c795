"""Poker all'italiana from the cambio onwards: given/when/then tests of the decider, citing the rules.

Rules (``../shared/rules/RULES.md``): IT-CAMBIO-1..3 (the draw), IT-BET-1 (final betting round),
IT-PAROL-1..4 (parol, the parol hand, adeguamento), IT-SHOW-1 and IT-RANK-4 (showdown, side pots),
IT-SIT-1 / IT-TIME-1 (timeouts, sit-out, time bank), T-ELIM-1 (eliminations) and what each viewer may see
(``engine.italian.view``). Where the digest is silent, ``docs/rules-decisions.md`` is followed.

Tables are built with the shared helpers: ``NAMES[i]`` sits at seat ``i``; every command is at ``at=0``
unless a test is about time, so a turn's deadline is the command's time + 30 000 ms and the time bank
60 000 ms (the :class:`TableConfig` defaults).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import fields, is_dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck, Rank, format_cards, parse_cards
from engine.evaluation import MinimalBeatsRoyal
from engine.italian import dealer_command, decide, evolve, next_deal
from engine.italian.bot import play_hand
from engine.italian.errors import (
    ActionNotAllowed,
    BadAmount,
    BadCards,
    NoHandInProgress,
    NotEnoughPlayers,
    NotYourTurn,
    OpeningRequirementNotMet,
    ParolNotAllowed,
    TimeoutTooEarly,
)
from engine.italian.legal import ActionKind, LegalAction, legal_actions
from engine.italian.model import (
    AdeguamentoDeclined,
    AdeguamentoPaid,
    BetOrRaise,
    BetPlaced,
    BlindDeclined,
    Called,
    CardsDealt,
    Checked,
    CheckOrCall,
    DealCards,
    Discard,
    Discarded,
    DiscardsReshuffled,
    Event,
    Fold,
    Folded,
    HandEnded,
    HandMucked,
    HandResult,
    HandShown,
    HandStarted,
    Limit,
    MuckHand,
    ParolSaid,
    Partecipate,
    Phase,
    PhaseStarted,
    PlayerEliminated,
    PlayerReturned,
    PlayerSatOut,
    PlayerTimedOut,
    PotAwarded,
    Raised,
    RemovePlayer,
    ReturnToPlay,
    SayParol,
    SeatPlayer,
    ShowHand,
    SitOut,
    StartHand,
    TableConfig,
    TableState,
    TimeBankUsed,
    TimeoutExpired,
    TurnStarted,
    UncalledBetReturned,
)
from engine.italian.view import CardsDealtHidden, DiscardedHidden, PotView, public_event, view
from engine.shuffle import derive_seed, shuffle
from tests.engine.italian.helpers import chips_total, deal, events_of, run, serve, stacks, start, table

# --- fixtures of the file -------------------------------------------------------------------------------


def C(text: str) -> tuple[Card, ...]:
    """Cards in PHH notation."""
    return parse_cards(text)


def by_code(cards: Iterable[Card]) -> list[Card]:
    return sorted(cards, key=lambda card: card.code)


T0 = 30_000  # the deadline of a turn started by a command at 0 ms
BANK = 60_000

# Four players (deck 7..A, 32 cards). Button 3: seat 0 speaks first.
#   seat 0: pair of jacks (opens), seat 1: pair of queens,
#   seat 2: A-7-8-9-10 = the scala minima of this deck, seat 3: ace high.
H4 = {0: "JhJd7c8s9c", 1: "QhQsKd8d7d", 2: "Ah9dTs7s8h", 3: "KcTc9h7hAd"}
STOCK4 = "8c9sTdThJcJsQcQdKhKsAcAs"  # what is left after H4, top first (the canonical order)
# The same hands turned one seat (button 1: seat 2 speaks first and holds the jacks).
H4_B1 = {2: H4[0], 3: H4[1], 0: H4[2], 1: H4[3]}


def turn(seat: int, deadline: int = T0, bank: int = BANK, chips: bool = False) -> TurnStarted:
    return TurnStarted(seat, deadline, bank, chips)


def four_in_cambio(player_stacks: tuple[int, ...] = (1000, 1000, 1000, 1000)) -> TableState:
    """Button 3, H4; seat 0 opens 40 (= the pot), everyone calls: pot 200, cambio, seat 0 to change."""
    state = start(table(list(player_stacks)), H4, button=3)
    return run(state, BetOrRaise(0, 40), CheckOrCall(1), CheckOrCall(2), CheckOrCall(3))


def serve_command(state: TableState) -> DealCards:
    """What the dealer gives now, from the top of the stock (IT-CAMBIO-2)."""
    command = dealer_command(state)
    assert command is not None
    return command


def all_servito(state: TableState) -> TableState:
    """Every player still to change in the cambio stands pat (servito)."""
    while state.hand is not None and state.hand.phase is Phase.CAMBIO and state.hand.to_act is not None:
        state = run(state, Discard(state.hand.to_act))
    return state


def cards_in(value: Any) -> set[Card]:
    """Every :class:`Card` inside a (nested) dataclass / tuple value."""
    found: set[Card] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Card):
            found.add(item)
        elif isinstance(item, tuple | list | frozenset | set):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif is_dataclass(item) and not isinstance(item, type):
            stack.extend(getattr(item, f.name) for f in fields(item))
    return found


# --- IT-CAMBIO-1: who changes, in which order, how many --------------------------------------------------


def test_it_cambio_1_cambio_starts_left_of_the_dealer_and_servito_deals_nothing() -> None:
    # given: button 1, seat 2 opened 40 and seats 3 and 0 called
    state = start(table([1000] * 4), H4_B1, button=1)
    state = run(state, BetOrRaise(2, 40), CheckOrCall(3), CheckOrCall(0))
    # when: the dealer (seat 1) calls, closing the opening round
    events = events_of(state, CheckOrCall(1))
    # then: the cambio begins with the player on the dealer's left (seat 2), not with the opener's order
    assert events == (Called(1, 40, False), PhaseStarted(Phase.CAMBIO, 1, ()), turn(2))
    state = run(state, CheckOrCall(1))
    assert legal_actions(state, 2) == (
        LegalAction(ActionKind.DISCARD, "CAMBIO", 1, 4),
        LegalAction(ActionKind.DISCARD, "SERVITO", 0, 0),
    )
    assert legal_actions(state, 3) == ()
    # servito (no cards): nothing to deal, the next player changes at once
    assert events_of(state, Discard(2)) == (Discarded(2, ()), turn(3))
    state = run(state, Discard(2), Discard(3), Discard(0))
    assert next_deal(state) is None
    # the dealer changes last; then the final round starts with the opener (IT-BET-1)
    assert events_of(state, Discard(1)) == (Discarded(1, ()), PhaseStarted(Phase.FINAL, 1, ()), turn(2))


def test_it_cambio_1_the_dealer_gives_as_many_cards_as_were_discarded() -> None:
    # given: the cambio, seat 0 to change
    state = four_in_cambio()
    # when: seat 0 changes three cards
    events = events_of(state, Discard(0, C("7c8s9c")))
    # then: nobody is asked to act; the dealer owes seat 0 three cards, from the top of the stock
    assert events == (Discarded(0, C("7c8s9c")),)
    state = run(state, Discard(0, C("7c8s9c")))
    assert state.hand is not None and state.hand.to_act is None
    assert state.hand.down[0] == C("JhJd")
    assert next_deal(state) == (0, 3)
    assert dealer_command(state) == DealCards(0, C("8c9sTd"))
    assert events_of(state, DealCards(0, C("8c9sTd"))) == (CardsDealt(0, C("8c9sTd")), turn(1))
    state = run(state, DealCards(0, C("8c9sTd")))
    assert state.hand is not None and state.hand.down[0] == C("JhJd8c9sTd")
    assert state.hand.stock == C(STOCK4)[3:]


def test_it_cambio_1_an_all_in_player_changes_cards_too() -> None:
    # given: seat 1 called all-in in the opening round (50 chips: 10 invito + 40)
    state = start(table([1000, 50, 1000, 1000]), H4, button=3)
    state = run(state, BetOrRaise(0, 40))
    assert events_of(state, CheckOrCall(1))[0] == Called(1, 40, True)
    state = run(state, CheckOrCall(1), Fold(2), Fold(3))
    # when: seat 0 stands pat
    events = events_of(state, Discard(0))
    # then: the all-in player is asked to change
    assert events == (Discarded(0, ()), turn(1))
    state = run(state, Discard(0), Discard(1, C("Kd8d7d")))
    assert next_deal(state) == (1, 3)


@pytest.mark.parametrize(
    ("cards", "error", "message"),
    [
        (C("JhJd7c8s9c"), BadCards, "al massimo 4"),  # five cards: at most four
        (C("Qh"), BadCards, "solo carte tue"),  # another player's card
        (C("Ac"), BadCards, "solo carte tue"),  # a card of the stock
        ((C("7c")[0], C("7c")[0]), BadCards, "solo carte tue"),  # the same card twice
    ],
)
def test_it_cambio_1_discards_outside_the_rules_are_refused(
    cards: tuple[Card, ...], error: type[Exception], message: str
) -> None:
    # given: the cambio, seat 0 to change
    state = four_in_cambio()
    # when / then: refused, with an Italian message
    with pytest.raises(error, match=message):
        decide(state, Discard(0, cards))


def test_it_cambio_1_discard_out_of_turn_and_in_a_betting_round_are_refused() -> None:
    state = four_in_cambio()
    with pytest.raises(NotYourTurn, match="Non è il tuo turno"):
        decide(state, Discard(1, C("Kd")))
    # while the dealer owes seat 0 its cards nobody is to act
    state = run(state, Discard(0, C("7c")))
    with pytest.raises(NotYourTurn):
        decide(state, Discard(1, C("Kd")))
    # in a betting round a discard is not an action
    opening = start(table([1000] * 4), H4, button=3)
    with pytest.raises(ActionNotAllowed, match="non è possibile in questa fase"):
        decide(opening, Discard(0, C("7c")))


def test_it_cambio_1_deals_to_the_wrong_seat_or_size_or_from_outside_the_stock_are_refused() -> None:
    # given: seat 0 changed three cards and is owed three
    state = run(four_in_cambio(), Discard(0, C("7c8s9c")))
    with pytest.raises(BadCards, match="Ora le carte vanno a il posto 0"):
        decide(state, DealCards(1, C("8c9sTd")))
    with pytest.raises(BadCards, match="Vanno date 3 carte"):
        decide(state, DealCards(0, C("8c9s")))
    with pytest.raises(BadCards, match="Qh non è nel mazzo"):
        decide(state, DealCards(0, C("8c9sQh")))  # Qh is seat 1's
    with pytest.raises(BadCards, match="7c non è nel mazzo"):
        decide(state, DealCards(0, C("8c9s7c")))  # seat 0's own discard
    # any three cards of the stock are accepted (a hand history need not deal from the top)
    assert events_of(state, DealCards(0, C("AcAsKh")))[0] == CardsDealt(0, C("AcAsKh"))


# --- IT-CAMBIO-2: the fourth card comes last -------------------------------------------------------------


def test_it_cambio_2_a_four_card_change_gets_three_cards_now_and_the_fourth_after_everybody() -> None:
    # given: the cambio, four players in
    state = four_in_cambio()
    # when: seat 0 changes four cards
    state = run(state, Discard(0, C("Jd7c8s9c")))
    # then: the dealer gives three at once (min(4, 3)), not four
    assert next_deal(state) == (0, 3)
    with pytest.raises(BadCards, match="Vanno date 3 carte"):
        decide(state, DealCards(0, C("8c9sTdTh")))
    assert events_of(state, DealCards(0, C("8c9sTd"))) == (CardsDealt(0, C("8c9sTd")), turn(1))
    state = run(state, DealCards(0, C("8c9sTd")))
    # the others change and are served in full
    state = run(state, Discard(1, C("8d7d")))
    assert next_deal(state) == (1, 2)
    assert events_of(state, serve_command(state)) == (CardsDealt(1, C("ThJc")), turn(2))
    state = run(state, serve_command(state), Discard(2))
    state = run(state, Discard(3, C("7h")))
    assert next_deal(state) == (3, 1)
    # when: the last player is served
    events = events_of(state, DealCards(3, C("Js")))
    # then: nobody is asked to act: seat 0's fourth card is due
    assert events == (CardsDealt(3, C("Js")),)
    state = run(state, DealCards(3, C("Js")))
    assert next_deal(state) == (0, 1)
    assert state.hand is not None and len(state.hand.down[0]) == 4
    assert events_of(state, DealCards(0, C("Qc"))) == (
        CardsDealt(0, C("Qc")),
        PhaseStarted(Phase.FINAL, 3, ()),
        turn(0),
    )
    state = run(state, DealCards(0, C("Qc")))
    assert state.hand is not None and state.hand.down[0] == C("Jh8c9sTdQc")


def test_it_cambio_2_two_four_card_changers_get_the_fourth_cards_in_seat_order_from_dealers_left() -> None:
    # given: button 1 (order 2, 3, 0, 1), everyone called seat 2's opening
    state = start(table([1000] * 4), H4_B1, button=1)
    state = run(state, BetOrRaise(2, 40), CheckOrCall(3), CheckOrCall(0), CheckOrCall(1))
    # when: seat 2 stands pat and seats 3, 0 and 1 change four cards each
    dealt: list[tuple[int, int]] = []
    for seat, discards in ((2, ""), (3, "QsKd8d7d"), (0, "9dTs7s8h"), (1, "Tc9h7hAd")):
        state = run(state, Discard(seat, C(discards)))
        while (due := next_deal(state)) is not None:
            dealt.append(due)
            state = run(state, serve_command(state))
    # then: three cards each right away, then the fourth cards 3, 0, 1 — seat order from the dealer's left
    assert dealt == [(3, 3), (0, 3), (1, 3), (3, 1), (0, 1), (1, 1)]
    hand = state.hand
    assert hand is not None and hand.phase is Phase.FINAL
    assert hand.down[3] == C("Qh8c9sTdKs")
    assert hand.down[0] == C("AhThJcJsAc")
    assert hand.down[1] == C("KcQcQdKhAs")
    assert hand.stock == ()


def test_it_cambio_2_fourth_card_waits_for_a_player_who_declares_after() -> None:
    # given: seat 0 changed four cards and got three
    state = run(four_in_cambio(), Discard(0, C("Jd7c8s9c")))
    state = run(state, serve_command(state))
    # when: the next players have not declared yet
    # then: the dealer waits for them (it is seat 1's turn, not a deal)
    assert state.hand is not None and state.hand.to_act == 1
    assert next_deal(state) is None
    assert dealer_command(state) is None
    with pytest.raises(ActionNotAllowed, match="Non è il momento di distribuire"):
        decide(state, DealCards(0, C("Th")))


# --- IT-CAMBIO-3: the stock runs out with six players ------------------------------------------------------

# Six players: deck 5..A (40 cards), 30 dealt, 10 in the stock.
H6 = {
    0: "JhJd5c6c7c",
    1: "5d6d7d9cTc",
    2: "5h6h7h9dTd",
    3: "5s6s7s9hTh",
    4: "8c8d9sTsQc",
    5: "8h8sQdQhQs",
}
STOCK6 = "JcJsKcKdKhKsAcAdAhAs"
D6 = {0: "Jd5c6c7c", 1: "5d6d7d9c", 2: "5h6h7h9d", 3: "5s6s7s9h", 4: "8d9sTsQc", 5: "8h8sQdQh"}


def six_in_cambio() -> TableState:
    """Button 5; seat 0 opens 10 and the five others call; the cambio starts with seat 0."""
    state = start(table([1000] * 6), H6, button=5)
    state = run(state, BetOrRaise(0, 10), *(CheckOrCall(seat) for seat in range(1, 6)))
    assert state.hand is not None and state.hand.phase is Phase.CAMBIO
    return state


def six_to_the_split() -> TableState:
    """Seats 0-2 changed four cards and got three each; seat 3 changed four: one card is left."""
    state = six_in_cambio()
    for seat in range(4):
        state = run(state, Discard(seat, C(D6[seat])))
        if seat < 3:
            state = run(state, serve_command(state))
    return state


def test_it_cambio_3_the_stock_holds_ten_cards_with_six_players() -> None:
    state = six_in_cambio()
    assert state.hand is not None
    assert state.hand.lowest_rank == Rank.FIVE
    assert state.hand.stock == C(STOCK6)


def test_it_cambio_3_the_batch_is_split_and_the_served_players_discards_are_reshuffled() -> None:
    # given: 3 + 3 + 3 cards were given from the stock of 10, and seat 3 changed four cards
    state = six_to_the_split()
    assert state.hand is not None and state.hand.stock == C("As")
    # then: the dealer first gives the rest of the stock
    assert next_deal(state) == (3, 1)
    assert dealer_command(state) == DealCards(3, C("As"))
    # when: it is given
    events = events_of(state, DealCards(3, C("As")))
    # then: the discards of the players already served (0, 1, 2) — not seat 3's — become the stock
    assert len(events) == 2
    assert events[0] == CardsDealt(3, C("As"))
    reshuffled = events[1]
    assert isinstance(reshuffled, DiscardsReshuffled)
    assert by_code(reshuffled.stock) == by_code(C(D6[0] + D6[1] + D6[2]))
    assert not set(reshuffled.stock) & set(C(D6[3]))
    state = run(state, DealCards(3, C("As")))
    assert state.hand is not None and state.hand.stock == reshuffled.stock
    # the rest of the batch comes from the new stock
    assert next_deal(state) == (3, 2)
    assert dealer_command(state) == DealCards(3, reshuffled.stock[:2])
    with pytest.raises(BadCards, match="non è nel mazzo"):
        decide(state, DealCards(3, C("5s6s")))  # seat 3's own discards are not in the new stock
    with pytest.raises(BadCards, match="non è nel mazzo"):
        decide(state, DealCards(3, C("JhJc")))  # Jh is in seat 0's hand, Jc was given to seat 0
    state = run(state, serve_command(state))
    assert state.hand is not None and state.hand.down[3] == C("ThAs") + reshuffled.stock[:2]
    assert state.hand.to_act == 4


def test_it_cambio_3_the_reshuffled_order_is_deterministic() -> None:
    # given: the same state twice, built independently
    first, second = six_to_the_split(), six_to_the_split()
    # when: the same deal is decided
    events_a = events_of(first, DealCards(3, C("As")))
    events_b = events_of(second, DealCards(3, C("As")))
    # then: the same events, and an auditor can recompute the order from the hand's deck
    assert events_a == events_b == events_of(first, DealCards(3, C("As")))
    reshuffled = events_a[1]
    assert isinstance(reshuffled, DiscardsReshuffled)
    digest = hashlib.sha256(format_cards(Deck.standard().cards).encode()).digest()
    pile = by_code(C(D6[0] + D6[1] + D6[2]))
    assert reshuffled.stock == shuffle(pile, derive_seed(digest, "cambio-reshuffle-1"))


def test_it_cambio_3_a_second_reshuffle_for_the_fourth_cards_and_every_card_stays_unique() -> None:
    # given: the split batch of seat 3 completed from the first reshuffle (12 cards)
    state = six_to_the_split()
    state = run(state, serve_command(state))
    state = run(state, serve_command(state))
    # when: seats 4 and 5 change four cards each and the fourth cards are dealt from the dealer's left
    for seat in (4, 5):
        state = run(state, Discard(seat, C(D6[seat])))
        state = run(state, serve_command(state))
    assert state.hand is not None and len(state.hand.stock) == 4
    events: list[Event] = []
    for seat in range(4):
        assert next_deal(state) == (seat, 1)
        command = serve_command(state)
        events.extend(events_of(state, command))
        state = run(state, command)
    # then: the stock ran out before seat 4's fourth card: the discards of everyone served since the
    # first reshuffle (seats 3 and 5), never seat 4's, form the second stock
    second = events[-1]
    assert isinstance(second, DiscardsReshuffled)
    assert by_code(second.stock) == by_code(C(D6[3] + D6[5]))
    state = run(state, serve_command(state))
    state = run(state, serve_command(state))
    hand = state.hand
    assert hand is not None and hand.phase is Phase.FINAL and hand.reshuffles == 2
    assert all(len(hand.down[seat]) == 5 for seat in range(6))
    held = [card for seat in range(6) for card in hand.down[seat]]
    assert len(set(held)) == 30
    # every card of the 40 is either held, in the stock, or a discard not yet reshuffled (seat 4's)
    assert set(held) | set(hand.stock) | set(C(D6[4])) == set(Deck.italian(6).cards)
    assert len(held) + len(hand.stock) + 4 == 40


# --- IT-BET-1: who speaks first in the final round ----------------------------------------------------------


def test_it_bet_1_the_last_raiser_of_the_opening_round_speaks_first() -> None:
    # given: seat 0 opened 40, seat 1 raised to 80, seat 0 called
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40), BetOrRaise(1, 80), Fold(2), Fold(3), CheckOrCall(0), Discard(0))
    # when: the cambio ends
    events = events_of(state, Discard(1))
    # then: seat 1, the raiser, speaks first (not seat 0, the first left of the dealer)
    assert events == (Discarded(1, ()), PhaseStarted(Phase.FINAL, 0, ()), turn(1))


def test_it_bet_1_an_all_in_last_raiser_is_skipped_for_the_next_player_who_can_act() -> None:
    # given: seat 1 (90 chips) raised all-in to 80; seats 2 and 0 called
    state = start(table([1000, 90, 1000, 1000]), H4, button=3)
    state = run(state, BetOrRaise(0, 40))
    assert events_of(state, BetOrRaise(1, 80))[0] == Raised(1, 80, True, True)
    state = run(state, BetOrRaise(1, 80), CheckOrCall(2), Fold(3), CheckOrCall(0))
    state = run(state, Discard(0), Discard(1))
    # when: the cambio ends
    events = events_of(state, Discard(2))
    # then: the player after the all-in raiser who can act speaks first
    assert events == (Discarded(2, ()), PhaseStarted(Phase.FINAL, 1, ()), turn(2))


def test_it_bet_1_nobody_bet_it_open_5_the_first_player_left_of_the_dealer_who_can_act_speaks() -> None:
    # given: seat 0 went all-in posting the invito (10 chips) and nobody opened (IT-OPEN-5)
    state = start(table([10, 1000, 1000, 1000]), H4, button=3)
    assert state.hand is not None and state.hand.to_act == 1  # the all-in player does not speak
    state = run(state, CheckOrCall(1), CheckOrCall(2))
    events = events_of(state, CheckOrCall(3))
    assert events == (Checked(3), PhaseStarted(Phase.CAMBIO, 3, ()), turn(0))  # the hand goes on
    state = run(state, CheckOrCall(3), Discard(0), Discard(1), Discard(2))
    # when: the cambio ends
    events = events_of(state, Discard(3))
    # then: seat 1 speaks first (seat 0, left of the dealer, is all-in)
    assert events == (Discarded(3, ()), PhaseStarted(Phase.FINAL, 3, ()), turn(1))


def test_it_bet_1_with_one_player_able_to_act_the_final_round_is_skipped() -> None:
    # given: seat 1 called all-in; seats 2 and 3 folded
    state = start(table([1000, 50, 1000, 1000]), H4, button=3)
    state = run(state, BetOrRaise(0, 40), CheckOrCall(1), Fold(2), Fold(3), Discard(0))
    # when: the cambio ends
    events = events_of(state, Discard(1))
    # then: straight to the showdown: seat 0 shows first (left of the dealer), seat 1's queens beat it
    assert events == (
        Discarded(1, ()),
        PhaseStarted(Phase.SHOWDOWN, 3, (0, 1)),
        HandShown(0, C(H4[0]), "Coppia di J"),
        HandShown(1, C(H4[1]), "Coppia di Q"),
        PotAwarded(0, 120, (0, 1), ((1, 120),)),
        HandEnded(
            1,
            HandResult.AWARDED,
            ((0, 950), (1, 120), (2, 990), (3, 990)),
            0,
            Rank.JACK,
            (),
            0,
            ((0, 50), (1, 50), (2, 10), (3, 10)),
        ),
    )


# --- IT-PAROL-1..3: parol and the parol hand -------------------------------------------------------------


def four_to_parol(
    player_stacks: tuple[int, ...] = (500, 500, 500, 500), parol_hand_invito: bool = False
) -> TableState:
    """Button 3, H4: seat 0 opens 20, seat 1 calls, seats 2 and 3 fold; both stand pat; final round, seat 0
    to speak. Contributions: 30, 30, 10, 10; pot 80."""
    state = start(table(list(player_stacks), parol_hand_invito=parol_hand_invito), H4, button=3)
    state = run(state, BetOrRaise(0, 20), CheckOrCall(1), Fold(2), Fold(3), Discard(0), Discard(1))
    assert state.hand is not None and state.hand.phase is Phase.FINAL and state.hand.to_act == 0
    return state


def test_it_parol_1_parol_is_refused_outside_the_final_round() -> None:
    state = start(table([1000] * 4), H4, button=3)
    assert all(action.kind is not ActionKind.PAROL for action in legal_actions(state, 0))
    with pytest.raises(ParolNotAllowed, match="solo nell'ultima fase di puntata"):
        decide(state, SayParol(0))


def test_it_parol_2_everyone_says_parol_the_pot_is_not_awarded_and_carries() -> None:
    # given: the final round, nobody checked or bet
    state = four_to_parol()
    assert LegalAction(ActionKind.PAROL, "PAROL") in legal_actions(state, 0)
    assert events_of(state, SayParol(0)) == (ParolSaid(0), turn(1))
    state = run(state, SayParol(0))
    assert LegalAction(ActionKind.PAROL, "PAROL") in legal_actions(state, 1)
    # when: the last player says parol
    events = events_of(state, SayParol(1))
    # then: no pot is awarded; the 80 chips carry to a parol hand
    assert events == (
        ParolSaid(1),
        HandEnded(
            1,
            HandResult.PAROL,
            ((0, 470), (1, 470), (2, 490), (3, 490)),
            80,
            Rank.KING,
            (0, 1),
            30,
            ((0, 30), (1, 30), (2, 10), (3, 10)),
        ),
    )
    state = run(state, SayParol(1))
    assert state.carried == 80 and state.hand is None
    assert chips_total(state) == 2000


def test_it_parol_3_the_parol_hand_no_invito_kings_min_bet_the_pot_no_blind_offer() -> None:
    # given: seats 0 and 1 said parol; seats 2 and 3 had folded (10 chips in each)
    state = run(four_to_parol(), SayParol(0), SayParol(1))
    # when: the next hand starts
    events = events_of(state, StartHand())
    # then: no invito, opening kings, minimum bet = the pot, the folded players are asked to adeguarsi
    started = events[0]
    assert isinstance(started, HandStarted)
    assert (started.button, started.dealt, started.antes, started.carried) == (0, (1, 2, 3, 0), (), 80)
    assert (started.opening, started.parol_hand, started.min_bet) == (Rank.KING, True, 80)
    assert started.adeguamento == ((2, 20), (3, 20))
    assert events[1:] == (PhaseStarted(Phase.ADEGUAMENTO, 0, ()), turn(2))
    state = run(state, StartHand(), Fold(2))
    # when: the last one declines too
    events = events_of(state, Fold(3))
    # then: no blind offer (IT-BUIO-1: never in a parol hand): straight to the deal
    assert events == (
        AdeguamentoDeclined(3, False),
        PhaseStarted(Phase.BLIND, 0, ()),
        PhaseStarted(Phase.DEAL, 0, ()),
    )
    state = run(state, Fold(3))
    assert stacks(state) == [470, 470, 490, 490]
    assert state.hand is not None and state.hand.min_bet == 80
    assert next_deal(state) == (1, 5)
    # two players dealt in: the deck is 9..A
    state = deal(state, {1: "QhQdAc9dTs", 0: "KhKdJcTh9c"})
    assert state.hand is not None and state.hand.lowest_rank == Rank.NINE
    # a pair of queens may not open a parol hand; the minimum bet is the pot (80, also the PL maximum)
    assert legal_actions(state, 1) == (
        LegalAction(ActionKind.FOLD, "PASSO"),
        LegalAction(ActionKind.CHECK, "BUSSO"),
    )
    with pytest.raises(OpeningRequirementNotMet, match="coppia di re"):
        decide(state, BetOrRaise(1, 80))
    state = run(state, CheckOrCall(1))
    assert LegalAction(ActionKind.BET, "PUNTO", 80, 80) in legal_actions(state, 0)
    with pytest.raises(BadAmount, match="tra 80 e 80"):
        decide(state, BetOrRaise(0, 40))
    assert events_of(state, BetOrRaise(0, 80))[0] == BetPlaced(0, 80, False)


def test_it_parol_3_option_parol_hand_invito_the_parol_players_post_it() -> None:
    assert TableConfig().parol_hand_invito is False  # the default: no invito in a parol hand
    # given: the option parol_hand_invito
    state = run(four_to_parol(parol_hand_invito=True), SayParol(0), SayParol(1))
    # when: the parol hand starts
    started = events_of(state, StartHand())[0]
    # then: the parol players post the invito; the minimum opening bet is the whole pot, invitos included
    assert isinstance(started, HandStarted)
    assert started.antes == ((0, 10), (1, 10))
    assert started.min_bet == 100
    state = run(state, StartHand())
    # and whoever adeguates pays the difference plus the invito
    assert legal_actions(state, 2)[0] == LegalAction(ActionKind.PARTECIPATE, "PARTECIPO", 30, 30)
    # (the difference joins the carried parol pot; the invito is a contribution like the others')
    assert events_of(state, Partecipate(2))[0] == AdeguamentoPaid(2, 20, invito=10)


def test_it_parol_1_a_busso_cancels_the_parol_and_the_pot_is_awarded() -> None:
    # given: seat 0 said parol
    state = run(four_to_parol(), SayParol(0))
    # when: seat 1 checks (busso)
    events = events_of(state, CheckOrCall(1))
    # then: the pot goes to the showdown (from the dealer's left: nobody bet) and is awarded
    assert events[:4] == (
        Checked(1),
        PhaseStarted(Phase.SHOWDOWN, 3, (0, 1)),
        HandShown(0, C(H4[0]), "Coppia di J"),
        HandShown(1, C(H4[1]), "Coppia di Q"),
    )
    assert events[4] == PotAwarded(0, 80, (0, 1), ((1, 80),))
    ended = events[5]
    assert isinstance(ended, HandEnded) and ended.result is HandResult.AWARDED and ended.carried == 0
    state = run(state, CheckOrCall(1))
    assert stacks(state) == [470, 550, 490, 490]
    assert state.parol_players == () and state.opening is Rank.JACK


def test_it_parol_1_after_a_busso_parol_is_refused() -> None:
    # given: three players in the final round; seat 0 checked
    state = start(table([500] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 20), CheckOrCall(1), CheckOrCall(2), Fold(3))
    state = all_servito(state)
    state = run(state, CheckOrCall(0))
    # then: parol is no longer possible
    assert all(action.kind is not ActionKind.PAROL for action in legal_actions(state, 1))
    with pytest.raises(ParolNotAllowed, match="qualcuno ha bussato o puntato"):
        decide(state, SayParol(1))


def test_it_parol_1_a_bet_cancels_the_parol_and_the_parol_players_must_answer() -> None:
    # given: three players in the final round; seats 0 and 1 said parol
    state = start(table([500] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 20), CheckOrCall(1), CheckOrCall(2), Fold(3))
    state = all_servito(state)
    state = run(state, SayParol(0), SayParol(1))
    # when: seat 2 bets
    events = events_of(state, BetOrRaise(2, 50))
    # then: the parol players must call, raise or fold; parol is gone
    assert events == (BetPlaced(2, 50, False), turn(0, chips=True))
    state = run(state, BetOrRaise(2, 50))
    assert [action.label for action in legal_actions(state, 0)] == ["PASSO", "VEDO", "RILANCIO"]
    with pytest.raises(ParolNotAllowed):
        decide(state, SayParol(0))
    # seat 0 folds, seat 1 calls: showdown from the bettor (seat 2: the scala minima) and an award
    state = run(state, Fold(0))
    events = events_of(state, CheckOrCall(1))
    assert events[:3] == (
        Called(1, 50, False),
        PhaseStarted(Phase.SHOWDOWN, 3, (2, 1)),
        HandShown(2, C(H4[2]), "Scala minima"),
    )
    state = run(state, CheckOrCall(1))
    assert state.hand is not None and state.hand.to_act == 1  # the queens do not beat the straight
    state = run(state, MuckHand(1))
    assert state.hand is None
    assert stacks(state) == [470, 420, 620, 490]
    assert chips_total(state) == 2000


def test_it_parol_1_parol_is_refused_with_an_all_in_player() -> None:
    # given: seat 1 called all-in; seats 0 and 2 are in the final round with chips
    state = start(table([1000, 50, 1000, 1000]), H4, button=3)
    state = run(state, BetOrRaise(0, 40), CheckOrCall(1), CheckOrCall(2), Fold(3))
    state = all_servito(state)
    assert state.hand is not None and state.hand.phase is Phase.FINAL and state.hand.to_act == 0
    # then: no parol (there is a side pot to come as well)
    assert [action.label for action in legal_actions(state, 0)] == ["PASSO", "BUSSO", "PUNTO"]
    with pytest.raises(ParolNotAllowed, match="all-in"):
        decide(state, SayParol(0))


# --- IT-PAROL-4: adeguamento -------------------------------------------------------------------------------


def parol_hand_started(player_stacks: tuple[int, ...] = (500, 500, 500, 500)) -> TableState:
    """The parol of :func:`four_to_parol` (stake 30; seats 2 and 3 put in 10) and the next hand started."""
    state = run(four_to_parol(player_stacks), SayParol(0), SayParol(1))
    return run(state, StartHand())


def test_it_parol_4_partecipo_pays_the_difference_and_passo_sits_the_hand_out() -> None:
    # given: the parol hand, seat 2 asked first (left of the new dealer, seat 0, after seat 1 who stayed)
    state = parol_hand_started()
    assert state.hand is not None and state.hand.phase is Phase.ADEGUAMENTO
    assert legal_actions(state, 2) == (
        LegalAction(ActionKind.PARTECIPATE, "PARTECIPO", 20, 20),
        LegalAction(ActionKind.FOLD, "PASSO"),
    )
    # when: seat 2 says partecipo
    events = events_of(state, Partecipate(2))
    # then: it pays 30 - 10 = 20, and the pot and the minimum opening bet grow by 20
    assert events == (AdeguamentoPaid(2, 20), turn(3))
    state = run(state, Partecipate(2))
    assert state.hand is not None and state.hand.min_bet == 100
    assert view(state, None).pot == 100
    # when: seat 3 says passo
    events = events_of(state, Fold(3))
    assert events == (
        AdeguamentoDeclined(3, False),
        PhaseStarted(Phase.BLIND, 0, ()),
        PhaseStarted(Phase.DEAL, 0, ()),
    )
    state = run(state, Fold(3))
    # then: seat 3 sits the hand out: three players are dealt in (deck 8..A)
    assert stacks(state) == [470, 470, 470, 490]
    state = deal(state, {1: "KhKdAcAdQs", 2: "QhQdJcJd9s", 0: "8h9hTh8c9c"})
    hand = state.hand
    assert hand is not None and hand.lowest_rank == Rank.EIGHT and 3 in hand.folded
    assert hand.to_act == 1
    assert LegalAction(ActionKind.BET, "PUNTO", 100, 100) in legal_actions(state, 1)
    with pytest.raises(NotYourTurn):
        decide(state, CheckOrCall(3))


def test_it_parol_4_every_adeguamento_grows_the_pot_and_the_minimum_bet() -> None:
    state = parol_hand_started()
    state = run(state, Partecipate(2))
    assert events_of(state, Partecipate(3))[:2] == (
        AdeguamentoPaid(3, 20),
        PhaseStarted(Phase.BLIND, 0, ()),
    )
    state = run(state, Partecipate(3))
    assert state.hand is not None and state.hand.min_bet == 120 and state.hand.dealt == (1, 2, 3, 0)
    assert stacks(state) == [470, 470, 470, 470]
    assert chips_total(state) == 2000


def test_it_parol_4_a_player_without_enough_chips_is_declined_automatically() -> None:
    # given: seat 2 has 15 chips: 5 left after the invito of the parol's hand, it owes 20
    state = run(four_to_parol((500, 500, 15, 500)), SayParol(0), SayParol(1))
    # when: the parol hand starts
    events = events_of(state, StartHand())
    # then: seat 2 is left out without being asked; seat 3 is asked
    assert events[1:] == (
        PhaseStarted(Phase.ADEGUAMENTO, 0, ()),
        AdeguamentoDeclined(2, True),
        turn(3),
    )
    state = run(state, StartHand())
    with pytest.raises(NotYourTurn):
        decide(state, Partecipate(2))


def test_it_parol_4_a_sitting_out_player_is_declined_automatically() -> None:
    # given: seat 3 went into sit-out after the parol
    state = run(four_to_parol(), SayParol(0), SayParol(1), SitOut(3), StartHand())
    # when: seat 2 pays its adeguamento
    events = events_of(state, Partecipate(2))
    # then: seat 3 is not asked; the passo is its default answer (automatic=False: not a lack of chips)
    assert events[:3] == (
        AdeguamentoPaid(2, 20),
        AdeguamentoDeclined(3, False),
        PhaseStarted(Phase.BLIND, 0, ()),
    )


def test_it_parol_3_kings_stay_required_until_the_pot_is_awarded() -> None:
    # given: a parol hand that nobody opens (the folded players declined the adeguamento)
    state = run(parol_hand_started(), Fold(2), Fold(3))
    state = deal(state, {1: "QhQdAcAdAs", 0: "KhJdJcTdTs"})
    state = run(state, CheckOrCall(1))
    ended = events_of(state, CheckOrCall(0))[-1]
    assert isinstance(ended, HandEnded)
    assert (ended.result, ended.carried, ended.next_opening) == (HandResult.NOT_OPENED, 80, Rank.KING)
    state = run(state, CheckOrCall(0))
    # when: the next hand starts (an ordinary unopened-pot hand: docs/rules-decisions.md)
    started = events_of(state, StartHand())[0]
    # then: kings are still required; the invito is posted again and the pot carried
    assert isinstance(started, HandStarted)
    assert (started.opening, started.parol_hand, started.carried) == (Rank.KING, False, 80)
    assert started.antes == ((2, 10), (3, 10), (0, 10), (1, 10))
    state = run(state, StartHand())
    assert state.hand is not None and state.hand.phase is Phase.DEAL  # no blind offer with kings
    state = deal(state, {2: "KhKdAcAdQs", 3: "7h8h9hJcJd", 0: "QhQdJhJsTh", 1: "7c8c9cTcQc"})
    with pytest.raises(OpeningRequirementNotMet):
        decide(run(state, CheckOrCall(2)), BetOrRaise(3, 10))
    # when: the pot is awarded (seat 2 opens, everyone folds)
    state = run(state, BetOrRaise(2, 40), Fold(3), Fold(0))
    ended = events_of(state, Fold(1))[-1]
    # then: back to jacks
    assert isinstance(ended, HandEnded)
    assert (ended.result, ended.next_opening, ended.uncontested_winner) == (HandResult.AWARDED, Rank.JACK, 2)
    state = run(state, Fold(1))
    assert stacks(state) == [460, 460, 600, 480]


def test_it_parol_shared_scenario_it04_played_through_commands() -> None:
    # given: shared/scenarios/italian/it04_parol.phhs — Anna (0), Bruno (1), Carla (2); Carla deals
    state = start(table([500, 500, 500]), {0: "JhJd9c8sAh", 1: "QhQcTs9d8d", 2: "KdKs8h9hTc"}, button=2)
    state = run(state, BetOrRaise(0, 10), CheckOrCall(1), CheckOrCall(2))
    state = run(state, Discard(0, C("9c8s")))
    state = serve(state, 0, "Jc8c")
    state = run(state, Discard(1, C("Ts9d8d")))
    state = serve(state, 1, "Qd9sTh")
    state = run(state, Discard(2, C("8h9hTc")))
    state = serve(state, 2, "KhJsTd")
    state = run(state, SayParol(0), SayParol(1), SayParol(2))
    # then (hand 1): finishing stacks 480 each, 60 carried
    assert stacks(state) == [480, 480, 480]
    assert state.carried == 60
    # hand 2: Anna deals; no invito, min bet 60, kings, parol hand, no adeguamento
    started = events_of(state, StartHand())[0]
    assert isinstance(started, HandStarted)
    assert (started.button, started.dealt, started.antes, started.carried) == (0, (1, 2, 0), (), 60)
    assert (started.min_bet, started.opening, started.parol_hand, started.adeguamento) == (
        60,
        Rank.KING,
        True,
        (),
    )
    state = start(state, {1: "AhAd9c8sTc", 2: "KhKdQsJs9d", 0: "QhQdJcTh8h"})
    with pytest.raises(BadAmount):
        decide(state, BetOrRaise(1, 40))  # "p1 cbr 40 # !illegal"
    state = run(state, BetOrRaise(1, 60), CheckOrCall(2), Fold(0))
    state = run(state, Discard(1, C("9c8sTc")))
    state = serve(state, 1, "AcAs8d")
    state = run(state, Discard(2, C("QsJs9d")))
    state = serve(state, 2, "KcKs9s")
    state = run(state, BetOrRaise(1, 180))
    events = events_of(state, CheckOrCall(2))
    # the bettor shows first; Carla's four kings do not beat the aces: she chooses
    assert events[-2:] == (HandShown(1, C("AhAdAcAs8d"), "Poker di A"), turn(2))
    state = run(state, CheckOrCall(2), MuckHand(2))
    # then: finishing stacks Bruno 780, Carla 240, Anna 480
    assert stacks(state) == [480, 780, 240]
    assert state.carried == 0 and state.opening is Rank.JACK


# --- IT-SHOW-1: the showdown --------------------------------------------------------------------------------


def four_at_showdown_after_a_bet() -> TableState:
    """Four players in; final round: seat 0 checks, seat 1 bets 10, everyone calls. Pot 240."""
    state = all_servito(four_in_cambio())
    return run(state, CheckOrCall(0), BetOrRaise(1, 10), CheckOrCall(2), CheckOrCall(3))


def test_it_show_1_showdown_from_the_last_bettor_forced_shows_and_choices() -> None:
    # given: seat 1 made the last bet of the final round
    state = four_at_showdown_after_a_bet()
    # when: the last caller calls
    events = events_of(state, CheckOrCall(0))
    # then: seat 1 shows first, automatically; seat 2 beats the queens and shows automatically;
    # seat 3 (ace high) must choose
    assert events == (
        Called(0, 10, False),
        PhaseStarted(Phase.SHOWDOWN, 3, (1, 2, 3, 0)),
        HandShown(1, C(H4[1]), "Coppia di Q"),
        HandShown(2, C(H4[2]), "Scala minima"),
        turn(3),
    )
    state = run(state, CheckOrCall(0))
    assert legal_actions(state, 3) == (
        LegalAction(ActionKind.SHOW, "MOSTRO"),
        LegalAction(ActionKind.MUCK, "NASCONDO"),
    )
    assert legal_actions(state, 0) == ()
    with pytest.raises(NotYourTurn):
        decide(state, ShowHand(0))
    # when: seat 3 hides; seat 0 (jacks) must choose too and shows
    assert events_of(state, MuckHand(3)) == (HandMucked(3), turn(0))
    state = run(state, MuckHand(3))
    events = events_of(state, ShowHand(0))
    # then: the straight takes the pot (the hidden hand no longer contends it)
    assert events[:2] == (HandShown(0, C(H4[0]), "Coppia di J"), PotAwarded(0, 240, (0, 1, 2), ((2, 240),)))
    state = run(state, ShowHand(0))
    assert stacks(state) == [940, 940, 1180, 940]


def test_it_show_1_without_a_final_bet_the_showdown_starts_left_of_the_dealer() -> None:
    state = all_servito(four_in_cambio())
    state = run(state, CheckOrCall(0), CheckOrCall(1), CheckOrCall(2))
    events = events_of(state, CheckOrCall(3))
    assert events == (
        Checked(3),
        PhaseStarted(Phase.SHOWDOWN, 3, (0, 1, 2, 3)),
        HandShown(0, C(H4[0]), "Coppia di J"),
        HandShown(1, C(H4[1]), "Coppia di Q"),
        HandShown(2, C(H4[2]), "Scala minima"),
        turn(3),
    )


def test_it_show_1_a_player_who_went_all_in_raising_always_shows() -> None:
    # given: seat 1 (queens, 90 chips) raised all-in to 80 in the opening round; seats 2 and 0 called;
    # in the final round seat 2 bets 10 and seat 0 calls
    state = start(table([1000, 90, 1000, 1000]), H4, button=3)
    state = run(state, BetOrRaise(0, 40), BetOrRaise(1, 80), CheckOrCall(2), Fold(3), CheckOrCall(0))
    state = all_servito(state)
    state = run(state, BetOrRaise(2, 10), CheckOrCall(0))
    # seat 2 (the straight) showed first; seat 0's jacks do not beat it: a choice
    assert state.hand is not None and state.hand.showdown_order == (2, 0, 1)
    assert state.hand.to_act == 0
    # when: seat 0 hides
    events = events_of(state, MuckHand(0))
    # then: seat 1's queens do not beat the straight either, but the all-in raiser shows anyway
    assert events[:2] == (HandMucked(0), HandShown(1, C(H4[1]), "Coppia di Q"))
    assert events[2:4] == (
        PotAwarded(0, 280, (1, 2), ((2, 280),)),
        PotAwarded(1, 20, (2,), ((2, 20),)),
    )
    # T-ELIM-1: seat 1 has no chips left
    assert events[-1] == PlayerEliminated(1, "Bruno", 1, 90)
    state = run(state, MuckHand(0))
    assert stacks(state) == [900, 0, 1200, 990]
    assert state.seats[1] is None


def test_it_show_1_side_pots_each_pot_to_the_best_shown_hand_among_its_players() -> None:
    # given (no limit, 3 players, deck 8..A): Carla (seat 2) opens 300, Anna (60 chips, trips) and Bruno
    # (160 chips, king high) call all-in; the dealer is Bruno (seat 1)
    hands = {2: "KdKsJcJhQc", 0: "AhAdAc9s8h", 1: "KhQd9c8sTh"}
    state = start(table([60, 160, 1000], limit=Limit.NO_LIMIT), hands, button=1)
    state = run(state, BetOrRaise(2, 300))
    assert events_of(state, CheckOrCall(0))[0] == Called(0, 50, True)
    state = run(state, CheckOrCall(0))
    assert events_of(state, CheckOrCall(1))[0] == Called(1, 150, True)
    state = run(state, CheckOrCall(1), Discard(2), Discard(0))
    # when: the cambio ends (only Carla could bet: no final round)
    events = events_of(state, Discard(1))
    # then: Carla shows (left of the dealer), Anna's trips beat her and show; Bruno, who beats nobody in
    # either pot he is in, may hide
    assert events == (
        Discarded(1, ()),
        PhaseStarted(Phase.SHOWDOWN, 1, (2, 0, 1)),
        HandShown(2, C(hands[2]), "Doppia coppia di K e J"),
        HandShown(0, C(hands[0]), "Tris di A"),
        turn(1),
    )
    state = run(state, Discard(1))
    assert view(state, None).pots == (PotView(180, (0, 1, 2)), PotView(200, (1, 2)))
    events = events_of(state, MuckHand(1))
    # then: the main pot (3 x 60) to Anna, the side pot (2 x 100) to Carla, her excess 150 returned
    assert events[:4] == (
        HandMucked(1),
        UncalledBetReturned(2, 150),
        PotAwarded(0, 180, (0, 2), ((0, 180),)),
        PotAwarded(1, 200, (2,), ((2, 200),)),
    )
    assert events[-1] == PlayerEliminated(1, "Bruno", 1, 160)
    # had Bruno shown, he would have contended both pots, and lost both
    shown = events_of(state, ShowHand(1))
    assert shown[2:4] == (
        PotAwarded(0, 180, (0, 1, 2), ((0, 180),)),
        PotAwarded(1, 200, (1, 2), ((2, 200),)),
    )
    state = run(state, MuckHand(1))
    assert stacks(state) == [180, 0, 1040]


def test_it_show_1_side_pots_a_short_all_in_caller_who_beats_the_side_pot_shows() -> None:
    # given: the same pots, but Bruno is the one left of the dealer (button 0): order Bruno, Carla, Anna
    hands = {1: "KhQd9c8sTh", 2: "KdKsJcJhQc", 0: "AhAdAc9s8h"}
    state = start(table([60, 160, 1000], limit=Limit.NO_LIMIT), hands, button=0)
    state = run(state, CheckOrCall(1), BetOrRaise(2, 300), CheckOrCall(0), CheckOrCall(1))
    state = all_servito(state)
    # then: everyone shows automatically: Bruno first, Carla beats him, Anna beats both in the main pot
    assert state.hand is None
    assert stacks(state) == [180, 0, 1040]


def test_it_rank_4_minimal_spade_straight_flush_beats_the_royal_of_hearts_at_the_showdown() -> None:
    hands = {0: "AhKhQhJhTh", 1: "As7s8s9sTs", 2: "7c8d9dJcKd", 3: "7d8c9hQcKc"}
    # given: the royal of hearts bets in the final round, the minimal spade straight flush calls
    state = start(table([1000] * 4), hands, button=3)
    state = run(state, BetOrRaise(0, 40), CheckOrCall(1), Fold(2), Fold(3), Discard(0), Discard(1))
    state = run(state, BetOrRaise(0, 10))
    # when: the showdown
    events = events_of(state, CheckOrCall(1))
    # then: the spades beat the royal (and so are shown automatically) and take the pot
    assert events[1:5] == (
        PhaseStarted(Phase.SHOWDOWN, 3, (0, 1)),
        HandShown(0, C(hands[0]), "Scala reale massima a cuori"),
        HandShown(1, C(hands[1]), "Scala reale minima a picche"),
        PotAwarded(0, 140, (0, 1), ((1, 140),)),
    )
    state = run(state, CheckOrCall(1))
    assert stacks(state) == [940, 1080, 990, 990]


def test_it_rank_4_option_off_the_royal_wins() -> None:
    hands = {0: "AhKhQhJhTh", 1: "As7s8s9sTs", 2: "7c8d9dJcKd", 3: "7d8c9hQcKc"}
    state = start(table([1000] * 4, minimal_beats_royal=MinimalBeatsRoyal.OFF), hands, button=3)
    state = run(state, BetOrRaise(0, 40), CheckOrCall(1), Fold(2), Fold(3), Discard(0), Discard(1))
    state = run(state, BetOrRaise(0, 10), CheckOrCall(1))
    # the spades do not beat the royal: seat 1 chooses
    assert state.hand is not None and state.hand.to_act == 1
    events = events_of(state, ShowHand(1))
    assert events[:2] == (
        HandShown(1, C(hands[1]), "Scala reale minima a picche"),
        PotAwarded(0, 140, (0, 1), ((0, 140),)),
    )
    state = run(state, ShowHand(1))
    assert stacks(state) == [1080, 940, 990, 990]


def test_it_rank_4_the_spades_win_even_against_a_higher_straight_flush_in_the_same_pot() -> None:
    # given: royal of hearts (seat 0), minimal spade straight flush (seat 1), K-high straight flush of
    # diamonds (seat 2) all call to the showdown; seat 0 bet last
    hands = {0: "AhKhQhJhTh", 1: "As7s8s9sTs", 2: "KdQdJdTd9d", 3: "7d8c9hQcKc"}
    state = start(table([1000] * 4), hands, button=3)
    state = run(state, BetOrRaise(0, 40), CheckOrCall(1), CheckOrCall(2), Fold(3))
    state = all_servito(state)
    state = run(state, BetOrRaise(0, 10), CheckOrCall(1))
    events = events_of(state, CheckOrCall(2))
    # then: the royal is the best hand, so the spades take the pot; the diamonds beat nobody: a choice
    assert events[1:] == (
        PhaseStarted(Phase.SHOWDOWN, 3, (0, 1, 2)),
        HandShown(0, C(hands[0]), "Scala reale massima a cuori"),
        HandShown(1, C(hands[1]), "Scala reale minima a picche"),
        turn(2),
    )
    state = run(state, CheckOrCall(2), ShowHand(2))
    assert stacks(state) == [940, 1130, 940, 990]


def test_it_show_1_an_uncontested_winner_shows_nothing_but_may_show_afterwards() -> None:
    # given: seat 0 opened 40 and seats 1 and 2 folded
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40), Fold(1), Fold(2))
    # when: the last player folds
    events = events_of(state, Fold(3))
    # then: the bet is returned, the pot awarded, no hand shown
    assert events[:3] == (
        Folded(3),
        UncalledBetReturned(0, 40),
        PotAwarded(0, 40, (0,), ((0, 40),)),
    )
    assert not any(isinstance(event, HandShown) for event in events)
    ended = events[3]
    assert isinstance(ended, HandEnded) and ended.uncontested_winner == 0
    state = run(state, Fold(3))
    assert stacks(state) == [1030, 990, 990, 990]
    # the winner may press MOSTRO; nobody else may
    assert legal_actions(state, 0) == (LegalAction(ActionKind.SHOW, "MOSTRO"),)
    assert legal_actions(state, 1) == ()
    with pytest.raises(NoHandInProgress):
        decide(state, ShowHand(1))
    # when: the winner shows
    events = events_of(state, ShowHand(0))
    # then: everyone sees the five cards, once
    assert events == (HandShown(0, C(H4[0]), ""),)
    state = run(state, ShowHand(0))
    assert legal_actions(state, 0) == ()
    with pytest.raises(NoHandInProgress):
        decide(state, ShowHand(0))


def test_it_show_1_the_uncontested_winner_may_no_longer_show_once_the_next_hand_starts() -> None:
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40), Fold(1), Fold(2), Fold(3), StartHand())
    assert all(action.kind is not ActionKind.SHOW for action in legal_actions(state, 0))
    with pytest.raises(NotYourTurn):
        decide(state, ShowHand(0))


@pytest.mark.parametrize("leave", ["removed", "eliminated"])
def test_it_show_1_the_uncontested_winner_who_leaves_takes_the_right_to_show_along(leave: str) -> None:
    """Issue 15: a player seated where the uncontested winner sat (a move between hands) was offered MOSTRO
    and, pressing it, published the winner's hidden cards as their own."""
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40), Fold(1), Fold(2), Fold(3))
    assert legal_actions(state, 0) == (LegalAction(ActionKind.SHOW, "MOSTRO"),)
    winner = state.seats[0]
    assert winner is not None
    if leave == "removed":
        state = run(state, RemovePlayer(0))
    else:  # the same seat emptied by an elimination event (evolve is total: any order of the log)
        state = evolve(state, PlayerEliminated(0, winner.player, 1, 1000))
    state = run(state, SeatPlayer(0, "nuovo", 1000))
    assert legal_actions(state, 0) == ()
    with pytest.raises(NoHandInProgress):
        decide(state, ShowHand(0))
    assert state.last_cards == ()


def test_it_show_1_the_uncontested_winners_cards_are_not_published_in_the_events() -> None:
    # given: seat 0 wins uncontested
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40), Fold(1), Fold(2))
    ended = events_of(state, Fold(3))[-1]
    assert isinstance(ended, HandEnded)
    # then: the other players and spectators do not receive its cards ("shows nothing", IT-SHOW-1)
    for viewer in (1, 2, 3, None):
        assert cards_in(public_event(ended, viewer)) == set()


# --- IT-SIT-1: timeouts and sit-out -------------------------------------------------------------------------


def test_it_sit_1_a_timeout_before_the_deadline_is_refused() -> None:
    state = start(table([1000] * 4), H4, button=3)
    assert state.hand is not None and state.hand.deadline == T0
    with pytest.raises(TimeoutTooEarly, match="non è ancora scaduto"):
        decide(state, TimeoutExpired(0, at=T0 - 1))
    with pytest.raises(NotYourTurn):
        decide(state, TimeoutExpired(1, at=T0))


def test_it_sit_1_a_timeout_in_a_betting_round_checks_if_possible_and_sits_the_player_out() -> None:
    # given: seat 0 to act, nothing to call
    state = start(table([1000] * 4), H4, button=3)
    # when: its time runs out (no chips required: no time bank)
    events = events_of(state, TimeoutExpired(0, at=T0))
    # then: busso for it, and it goes into sit-out
    assert events == (PlayerTimedOut(0), PlayerSatOut(0), Checked(0), turn(1, deadline=2 * T0))
    state = run(state, TimeoutExpired(0, at=T0))
    assert state.seats[0] is not None and state.seats[0].sitting_out
    # when: seat 1 opens and the others call: seat 0, sitting out, is asked for chips
    state = run(state, BetOrRaise(1, 40), CheckOrCall(2))
    events = events_of(state, CheckOrCall(3))
    # then: it folds automatically, without a turn
    assert events == (
        Called(3, 40, False),
        turn(0, chips=True),
        Folded(0),
        PhaseStarted(Phase.CAMBIO, 3, ()),
        turn(1),
    )


def test_it_sit_1_a_timeout_facing_a_bet_waits_for_the_time_bank_then_folds() -> None:
    # given: seat 0 opened at 1000 ms: seat 1 must put chips in, deadline 31 000, bank 60 000
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40, at=1_000))
    assert state.hand is not None and state.hand.deadline == 31_000 and state.hand.chips_required
    # when / then: the timeout waits for deadline + bank
    for too_early in (31_000, 90_999):
        with pytest.raises(TimeoutTooEarly):
            decide(state, TimeoutExpired(1, at=too_early))
    events = events_of(state, TimeoutExpired(1, at=91_000))
    assert events == (
        PlayerTimedOut(1),
        TimeBankUsed(1, BANK),
        PlayerSatOut(1),
        Folded(1),
        turn(2, deadline=121_000, chips=True),
    )
    state = run(state, TimeoutExpired(1, at=91_000))
    assert state.seats[1] is not None and state.seats[1].time_bank == 0


def test_it_sit_1_sitting_out_on_ones_turn_takes_the_automatic_action_at_once() -> None:
    state = start(table([1000] * 4), H4, button=3)
    assert events_of(state, SitOut(0)) == (PlayerSatOut(0), Checked(0), turn(1))
    state = run(state, CheckOrCall(0), BetOrRaise(1, 40))
    assert events_of(state, SitOut(2)) == (PlayerSatOut(2), Folded(2), turn(3, chips=True))


def test_it_sit_1_a_sitting_out_player_checks_automatically_when_possible() -> None:
    # given: seats 0 and 1 in the cambio; seat 1 leaves for a moment (sit-out)
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40), CheckOrCall(1), Fold(2), Fold(3))
    assert events_of(state, SitOut(1)) == (PlayerSatOut(1),)
    state = run(state, SitOut(1))
    # when: seat 0 stands pat: seat 1's cambio is servito; then seat 0 checks in the final round
    assert events_of(state, Discard(0)) == (
        Discarded(0, ()),
        turn(1),
        Discarded(1, ()),
        PhaseStarted(Phase.FINAL, 3, ()),
        turn(0),
    )
    state = run(state, Discard(0))
    events = events_of(state, CheckOrCall(0))
    # then: seat 1 checks automatically and, beating the jacks, still shows and wins at the showdown
    assert events[:6] == (
        Checked(0),
        turn(1),
        Checked(1),
        PhaseStarted(Phase.SHOWDOWN, 3, (0, 1)),
        HandShown(0, C(H4[0]), "Coppia di J"),
        HandShown(1, C(H4[1]), "Coppia di Q"),
    )
    state = run(state, CheckOrCall(0))
    assert stacks(state) == [950, 1070, 990, 990]


def test_it_sit_1_a_sitting_out_player_folds_when_chips_are_required() -> None:
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40), CheckOrCall(1), Fold(2), Fold(3), SitOut(1), Discard(0))
    # when: seat 0 bets in the final round
    events = events_of(state, BetOrRaise(0, 10))
    # then: seat 1 folds automatically and seat 0 wins uncontested
    assert events[:5] == (
        BetPlaced(0, 10, False),
        turn(1, chips=True),
        Folded(1),
        UncalledBetReturned(0, 10),
        PotAwarded(0, 120, (0,), ((0, 120),)),
    )


def test_it_sit_1_an_all_in_sitting_out_player_stays_in_every_pot_covered() -> None:
    # given: seat 1 (queens) called all-in for 50, then sat out; seat 2 (ace high) called
    hands = {0: H4[0], 1: H4[1], 2: H4[3], 3: H4[2]}
    state = start(table([1000, 50, 1000, 1000]), hands, button=3)
    state = run(state, BetOrRaise(0, 40), CheckOrCall(1), CheckOrCall(2), Fold(3), SitOut(1))
    # when: the cambio (seat 1's is servito) and a final round between seats 0 and 2
    events = events_of(state, Discard(0))
    assert events == (Discarded(0, ()), turn(1), Discarded(1, ()), turn(2))
    state = run(state, Discard(0), Discard(2), BetOrRaise(0, 10))
    events = events_of(state, CheckOrCall(2))
    # then: seat 1 is not folded: it shows (it beats the jacks) and wins the main pot
    assert events[1:4] == (
        PhaseStarted(Phase.SHOWDOWN, 3, (0, 1, 2)),
        HandShown(0, C(hands[0]), "Coppia di J"),
        HandShown(1, C(hands[1]), "Coppia di Q"),
    )
    state = run(state, CheckOrCall(2), MuckHand(2))
    assert stacks(state) == [960, 160, 940, 990]


def test_it_sit_1_timeouts_outside_betting_rounds_take_the_default_action() -> None:
    # cambio: servito
    state = four_in_cambio()
    assert events_of(state, TimeoutExpired(0, at=T0)) == (
        PlayerTimedOut(0),
        Discarded(0, ()),
        turn(1, deadline=2 * T0),
    )
    # showdown: nascondo
    state = run(four_at_showdown_after_a_bet(), CheckOrCall(0))
    assert state.hand is not None and state.hand.to_act == 3
    assert events_of(state, TimeoutExpired(3, at=T0)) == (
        PlayerTimedOut(3),
        HandMucked(3),
        turn(0, deadline=2 * T0),
    )
    # blind offer: dai carte
    state = start(table([1000] * 4), H4, button=3, blind=True)
    assert state.hand is not None and state.hand.phase is Phase.BLIND and state.hand.to_act == 0
    assert events_of(state, TimeoutExpired(0, at=T0)) == (
        PlayerTimedOut(0),
        BlindDeclined(0),
        PhaseStarted(Phase.DEAL, 3, ()),
    )
    # adeguamento: passo, recorded as the player's answer (automatic=False), like a timeout fold, so that
    # a hand history writes it and a replay can follow it
    state = parol_hand_started()
    assert events_of(state, TimeoutExpired(2, at=T0))[:2] == (
        PlayerTimedOut(2),
        AdeguamentoDeclined(2, False),
    )


def test_it_sit_1_sono_tornato_ends_the_sit_out() -> None:
    # given: seat 0 timed out and sits out
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, TimeoutExpired(0, at=T0))
    with pytest.raises(ActionNotAllowed, match="Sei già in sit-out"):
        decide(state, SitOut(0))
    # when: "sono tornato"
    assert events_of(state, ReturnToPlay(0)) == (PlayerReturned(0),)
    state = run(state, ReturnToPlay(0))
    assert state.seats[0] is not None and not state.seats[0].sitting_out
    with pytest.raises(ActionNotAllowed, match="Non sei in sit-out"):
        decide(state, ReturnToPlay(0))
    # then: facing a bet it is asked again instead of folding
    state = run(state, BetOrRaise(1, 40), CheckOrCall(2))
    events = events_of(state, CheckOrCall(3))
    assert events == (Called(3, 40, False), turn(0, chips=True))


# --- IT-TIME-1: the time bank -------------------------------------------------------------------------------


def test_it_time_1_turns_say_whether_chips_are_required() -> None:
    state = start(table([1000] * 4), H4, button=3)
    assert events_of(state, CheckOrCall(0)) == (Checked(0), turn(1, chips=False))
    assert events_of(state, BetOrRaise(0, 40)) == (BetPlaced(0, 40, False), turn(1, chips=True))


def test_it_time_1_a_late_check_does_not_use_the_time_bank() -> None:
    state = start(table([1000] * 4), H4, button=3)
    events = events_of(state, CheckOrCall(0, at=45_000))
    assert events == (Checked(0), turn(1, deadline=75_000))
    state = run(state, CheckOrCall(0, at=45_000))
    assert state.seats[0] is not None and state.seats[0].time_bank == BANK


def test_it_time_1_a_late_call_uses_the_overrun_and_the_bank_is_not_regenerated() -> None:
    # given: seat 0 opens at 0; seat 1 must decide by 30 000
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40))
    # when: seat 1 calls at 42 000
    events = events_of(state, CheckOrCall(1, at=42_000))
    # then: 12 000 ms of the bank are used
    assert events == (TimeBankUsed(1, 12_000), Called(1, 40, False), turn(2, deadline=72_000, chips=True))
    state = run(state, CheckOrCall(1, at=42_000), Fold(2, at=42_000), Fold(3, at=42_000))
    state = run(state, Discard(0, at=42_000), Discard(1, at=42_000))
    # the next turn needing chips offers what is left
    events = events_of(state, BetOrRaise(0, 10, at=50_000))
    assert events == (BetPlaced(0, 10, False), turn(1, deadline=80_000, bank=48_000, chips=True))
    state = run(state, BetOrRaise(0, 10, at=50_000))
    # and the timeout now waits for the smaller bank
    with pytest.raises(TimeoutTooEarly):
        decide(state, TimeoutExpired(1, at=127_999))
    assert events_of(state, TimeoutExpired(1, at=128_000))[:2] == (PlayerTimedOut(1), TimeBankUsed(1, 48_000))
    state = run(state, CheckOrCall(1, at=88_000))  # 8 000 more
    assert state.seats[1] is not None and state.seats[1].time_bank == 40_000
    # when: a new hand starts, the bank is still 40 000 (not regenerated)
    state = run(state, StartHand())
    assert state.seats[1] is not None and state.seats[1].time_bank == 40_000


def test_it_time_1_a_late_fold_facing_a_bet_uses_the_time_bank() -> None:
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40))
    events = events_of(state, Fold(1, at=42_000))
    assert events[:2] == (TimeBankUsed(1, 12_000), Folded(1))


# --- T-ELIM-1: eliminations ---------------------------------------------------------------------------------


def test_t_elim_1_players_busting_in_the_same_hand_are_eliminated_with_their_starting_stacks() -> None:
    # given (no limit): Anna (60) and Bruno (160) call Carla's 300 all-in; Carla holds the best hand
    hands = {2: "AhAdAc9s8h", 0: "KdKsJcJhQc", 1: "KhQd9c8sTh"}
    state = start(table([60, 160, 1000], limit=Limit.NO_LIMIT), hands, button=1)
    state = run(state, BetOrRaise(2, 300), CheckOrCall(0), CheckOrCall(1), Discard(2), Discard(0))
    # when: the hand ends (the all-in callers, beaten, hide their hands)
    state = run(state, Discard(1), MuckHand(0))
    events = events_of(state, MuckHand(1))
    # then: both are eliminated, in seat order, with the stacks they started the hand with
    assert events[-2:] == (PlayerEliminated(0, "Anna", 1, 60), PlayerEliminated(1, "Bruno", 1, 160))
    state = run(state, MuckHand(1))
    assert state.seats[0] is None and state.seats[1] is None
    assert stacks(state) == [0, 0, 1220]
    with pytest.raises(NotEnoughPlayers):
        decide(state, StartHand())


def test_t_elim_1_outside_tournaments_nobody_is_eliminated() -> None:
    hands = {2: "AhAdAc9s8h", 0: "KdKsJcJhQc", 1: "KhQd9c8sTh"}
    state = start(table([60, 160, 1000], limit=Limit.NO_LIMIT, tournament=False), hands, button=1)
    state = run(state, BetOrRaise(2, 300), CheckOrCall(0), CheckOrCall(1), Discard(2), Discard(0))
    state = run(state, Discard(1), MuckHand(0))
    events = events_of(state, MuckHand(1))
    assert isinstance(events[-1], HandEnded)
    assert not any(isinstance(event, PlayerEliminated) for event in events)
    state = run(state, MuckHand(1))
    assert state.hand is None
    assert [(occupant.player, occupant.stack) for occupant in state.seats if occupant is not None] == [
        ("Anna", 0),
        ("Bruno", 0),
        ("Carla", 1220),
    ]


# --- view and public_event: what each viewer may see ------------------------------------------------------


def seen_cards(state: TableState, viewer: int | None, seat: int) -> tuple[Card | None, ...]:
    seat_view = view(state, viewer).seats[seat]
    assert seat_view is not None
    return seat_view.cards


def test_view_a_seated_player_sees_their_own_cards_only() -> None:
    state = start(table([1000] * 4), H4, button=3)
    state = run(state, BetOrRaise(0, 40))
    seen = view(state, 1)
    assert seen.viewer == 1
    assert seen.seats[1] is not None and seen.seats[1].cards == C(H4[1])
    for other in (0, 2, 3):
        seat_view = seen.seats[other]
        assert seat_view is not None and seat_view.cards == (None,) * 5
    # everything public: stacks, bets, contributions, pot, turn, legal options of the viewer
    seat0 = seen.seats[0]
    assert seat0 is not None and (seat0.stack, seat0.bet, seat0.contributed) == (950, 40, 50)
    assert (seen.pot, seen.current_bet, seen.to_act, seen.stock, seen.stock_cards) == (80, 40, 1, 12, ())
    assert [action.label for action in seen.legal] == ["PASSO", "VEDO", "RILANCIO"]
    assert view(state, 2).legal == ()


def test_view_a_spectator_sees_no_hidden_card_and_an_auditor_sees_everything() -> None:
    state = start(table([1000] * 4), H4, button=3)
    spectator = view(state, None)
    assert all(seat is not None and seat.cards == (None,) * 5 for seat in spectator.seats)
    assert spectator.legal == () and spectator.stock_cards == ()
    auditor = view(state, None, reveal=True)
    assert [seat.cards for seat in auditor.seats if seat is not None] == [C(H4[s]) for s in range(4)]
    assert auditor.stock_cards == C(STOCK4)


def test_view_discards_counts_are_public_the_discarded_cards_are_not() -> None:
    state = run(four_in_cambio(), Discard(0, C("7c8s9c")))
    state = run(state, serve_command(state), Discard(1, C("Kd8d7d")))
    own = view(state, 0).seats[0]
    assert own is not None and (own.discarded, own.discards) == (3, C("7c8s9c"))
    assert own.cards == C("JhJd8c9sTd")
    for viewer in (1, 2, None):
        other = view(state, viewer).seats[0]
        assert other is not None and (other.discarded, other.discards) == (3, ())
        assert other.cards == (None,) * 5
    # seat 1 discarded but was not served yet: it holds two cards, everyone sees the number
    seat1 = view(state, 2).seats[1]
    assert seat1 is not None and (seat1.discarded, seat1.cards) == (3, (None, None))
    assert seen_cards(state, 1, 1) == C("QhQs")


def test_view_shown_hands_are_public_at_the_showdown() -> None:
    # given: the showdown waits for seat 3; seats 1 and 2 have shown
    state = run(four_at_showdown_after_a_bet(), CheckOrCall(0))
    for viewer in (0, 3, None):
        seen = view(state, viewer)
        assert seen.seats[1] is not None and seen.seats[1].cards == C(H4[1]) and seen.seats[1].shown
        assert seen.seats[2] is not None and seen.seats[2].cards == C(H4[2])
    # seat 0 has not shown yet
    assert seen_cards(state, 3, 0) == (None,) * 5
    assert seen_cards(state, 3, 3) == C(H4[3])
    # a mucked hand stays hidden
    state = run(state, MuckHand(3))
    assert seen_cards(state, 0, 3) == (None,) * 5
    assert seen_cards(state, 3, 3) == C(H4[3])


def test_public_event_hides_other_players_cards_the_deck_and_the_reshuffled_stock() -> None:
    started = events_of(table([1000] * 4), StartHand(button=3))[0]
    assert isinstance(started, HandStarted) and len(started.deck) == 52
    assert public_event(started, 0) == public_event(started, None)
    hidden_start = public_event(started, 0)
    assert isinstance(hidden_start, HandStarted) and hidden_start.deck == ()
    assert public_event(started, 0, reveal=True) == started
    dealt = CardsDealt(0, C(H4[0]))
    assert public_event(dealt, 0) == dealt
    assert public_event(dealt, 1) == CardsDealtHidden(0, 5)
    assert public_event(dealt, None) == CardsDealtHidden(0, 5)
    discarded = Discarded(2, C("7s8h"))
    assert public_event(discarded, 2) == discarded
    assert public_event(discarded, 3) == DiscardedHidden(2, 2)
    assert public_event(Discarded(2, ()), 3) == DiscardedHidden(2, 0)
    assert public_event(DiscardsReshuffled(C("7s8h")), 1) == DiscardsReshuffled(())
    assert public_event(DiscardsReshuffled(C("7s8h")), 1, reveal=True) == DiscardsReshuffled(C("7s8h"))
    shown = HandShown(1, C(H4[1]), "Coppia di Q")
    assert public_event(shown, 0) == shown


# --- property: random bot hands never leak another player's hidden cards ----------------------------------


def _check_views(state: TableState) -> None:
    hand = state.hand
    seated = [seat for seat, occupant in enumerate(state.seats) if occupant is not None]
    shown: set[Card] = {card for _, cards in hand.shown for card in cards} if hand is not None else set()
    viewers: list[int | None] = [*seated, None]
    for viewer in viewers:
        known = set(shown)
        if hand is not None and viewer is not None:
            known |= set(hand.down[viewer]) | set(hand.discards[viewer])
        leaked = cards_in(view(state, viewer)) - known
        assert not leaked, f"viewer {viewer} sees {format_cards(by_code(leaked))}"


def _check_events(events: tuple[Event, ...], seats: list[int]) -> None:
    for viewer in [*seats, None]:
        known: set[Card] = set()
        for event in events:
            if isinstance(event, HandStarted):
                known = set()
            public = public_event(event, viewer)
            if isinstance(public, CardsDealt | Discarded | HandShown):
                if viewer is None or public.seat != viewer:
                    assert isinstance(public, HandShown), f"{viewer} receives {public}"
                known |= set(public.cards)
                continue
            assert cards_in(public) <= known, f"viewer {viewer} receives {public}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    player_stacks=st.lists(st.integers(min_value=15, max_value=400), min_size=2, max_size=6),
)
def test_view_random_bot_hands_never_show_another_players_hidden_cards(
    seed: int, player_stacks: list[int]
) -> None:
    rng = random.Random(seed)
    state = table(player_stacks)
    for number in range(5):
        if sum(1 for occupant in state.seats if occupant is not None and occupant.stack > 0) < 2:
            break
        deck = shuffle(Deck.standard().cards, hashlib.sha256(f"{seed}/{number}".encode()).digest())
        before = state
        played = play_hand(state, deck, rng)
        seats = [seat for seat, occupant in enumerate(before.seats) if occupant is not None]
        replayed = before
        for event in played.events:
            replayed = evolve(replayed, event)
            _check_views(replayed)
        _check_events(played.events, seats)
        assert replayed == played.after
        state = played.after
        assert chips_total(state) == sum(player_stacks)
