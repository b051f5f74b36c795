"""Poker all'italiana up to and including the opening round: deck (IT-DECK-1), invito (IT-ANTE-1), blind
opening (IT-BUIO-1..3), opening (IT-OPEN-1..5), raises (IT-RAISE-1) and limits (IT-LIMIT-1..3), with the
labels and ranges that ``legal_actions`` offers in these phases.

Every test is given / when / then and names its rule. Unless a test says otherwise the table is pot limit,
invito 10, tournament, and the first hand's button is the last seat, so seat 0 speaks first (PHH ``p1``).
"""

from __future__ import annotations

import copy
import random
import re

import pytest

from engine.cards import Card, Deck, Rank, Suit, parse_cards
from engine.italian import dealer_command, decide
from engine.italian.errors import (
    ActionNotAllowed,
    BadAmount,
    BadCards,
    IllegalAction,
    NotYourTurn,
    OpeningRequirementNotMet,
    ParolNotAllowed,
)
from engine.italian.legal import ActionKind, LegalAction, legal_actions
from engine.italian.model import (
    BetOrRaise,
    BetPlaced,
    BlindBetPlaced,
    BlindDeclined,
    Called,
    CardsDealt,
    Checked,
    CheckOrCall,
    Command,
    DealCards,
    DeclineBlind,
    Discard,
    Fold,
    HandEnded,
    HandResult,
    HandStarted,
    Limit,
    MuckHand,
    Phase,
    PhaseStarted,
    PotAwarded,
    Raised,
    SayParol,
    SitOut,
    StartHand,
    TableState,
    TurnStarted,
    UncalledBetReturned,
)
from tests.engine.italian.helpers import chips_total, deal, events_of, run, stacks, start, table

# Four players (deck 7..A, IT-DECK-1): seat 0 holds jacks, seat 1 queens, seats 2 and 3 cannot open.
FOUR = {0: "JhJd7c8s9c", 1: "QhQsKd8d7d", 2: "Ah9dTs7s8h", 3: "KcTc9h7hAd"}
# Three players (deck 8..A): nobody holds a pair.
NO_PAIRS_3 = ("AhKdQc9s8h", "AcKsTd9h8d", "KhQsJc9d8s")


# --- helpers ------------------------------------------------------------------------------------------------


def refuse(state: TableState, command: Command, error: type[IllegalAction], match: str) -> IllegalAction:
    """``command`` is refused with ``error`` whose Italian message contains ``match`` (literal text), and
    the state is untouched."""
    before = copy.deepcopy(state)
    with pytest.raises(error, match=re.escape(match)) as info:
        decide(state, command)
    assert state == before
    return info.value


def offered(state: TableState, seat: int) -> list[tuple[str, int, int]]:
    """``(label, minimum, maximum)`` of every action ``seat`` is offered."""
    return [(action.label, action.minimum, action.maximum) for action in legal_actions(state, seat)]


def begin(state: TableState, *hands: str, **start_options: object) -> TableState:
    """Start a hand, say *dai carte* to any blind offer, and deal ``hands`` in dealing order (the first
    string to the first player dealt in, left of the dealer)."""
    state = run(state, StartHand(**start_options))  # type: ignore[arg-type]
    while state.hand is not None and state.hand.phase is Phase.BLIND and state.hand.to_act is not None:
        state = run(state, DeclineBlind(state.hand.to_act))
    assert state.hand is not None
    order = [seat for seat in state.hand.dealt if seat not in state.hand.folded]
    return deal(state, dict(zip(order, hands, strict=True)))


def to_deal(state: TableState) -> TableState:
    """Start a hand and decline the blind offers: the dealer is to deal."""
    state = run(state, StartHand())
    while state.hand is not None and state.hand.phase is Phase.BLIND and state.hand.to_act is not None:
        state = run(state, DeclineBlind(state.hand.to_act))
    return state


def everyone_passes(state: TableState) -> TableState:
    """Every player passes the word in the opening round (nobody opens)."""
    while state.hand is not None and state.hand.phase is Phase.OPENING:
        assert state.hand.to_act is not None
        state = run(state, CheckOrCall(state.hand.to_act))
    return state


def cards_of(*ranks_and_suits: tuple[int, Suit]) -> tuple[Card, ...]:
    return tuple(Card(Rank(rank), suit) for rank, suit in ranks_and_suits)


def blinds(stacks_: list[int], *amounts: int) -> TableState:
    """A table whose first players left of the dealer make the blind bets ``amounts``; the next offer (if
    any) is declined. The dealer is to deal."""
    state = start(table(stacks_), {}, blind=True)
    for amount in amounts:
        assert state.hand is not None and state.hand.to_act is not None
        state = run(state, BetOrRaise(state.hand.to_act, amount))
    assert state.hand is not None
    if state.hand.phase is Phase.BLIND and state.hand.to_act is not None:
        state = run(state, DeclineBlind(state.hand.to_act))
    return state


# --- IT-DECK-1 ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8])
def test_it_deck_1_stock_lowest_rank_follows_players_dealt_in(players: int) -> None:
    """IT-DECK-1: lowest rank = 11 - n; a card below it is refused (BadCards), the lowest itself is dealt.
    (7 and 8 players: the Decision extends the formula; the seats are a table option.)"""
    # given a table of n players at the deal
    state = to_deal(table([1000] * players))
    lowest = 11 - players
    assert state.hand is not None
    # then the stock is the deck for n players
    assert state.hand.lowest_rank == lowest
    assert min(card.rank for card in state.hand.stock) == lowest
    assert len(state.hand.stock) == 4 * (15 - lowest) == len(Deck.italian(players))
    # when a card below the lowest rank is dealt, then it is refused
    below = cards_of(
        (lowest - 1, Suit.HEARTS), (14, Suit.HEARTS), (13, Suit.HEARTS), (12, Suit.HEARTS), (11, Suit.HEARTS)
    )
    refuse(state, DealCards(0, below), BadCards, f"{below[0]} non è nel mazzo.")
    # when five cards of the deck including the lowest rank are dealt, then they are accepted
    good = cards_of(
        (lowest, Suit.HEARTS), (14, Suit.HEARTS), (13, Suit.HEARTS), (12, Suit.HEARTS), (11, Suit.HEARTS)
    )
    assert events_of(state, DealCards(0, good))[0] == CardsDealt(0, good)


def test_it_deck_1_nine_players_use_the_whole_deck() -> None:
    """IT-DECK-1 Decision: with 9 players the lowest rank is 2: the stock is all 52 cards."""
    state = to_deal(table([1000] * 9))
    assert state.hand is not None and state.hand.lowest_rank == 2
    assert sorted(card.code for card in state.hand.stock) == list(range(52))


def test_it_deck_1_and_it_ante_1_sitting_out_players_are_not_counted_in_the_deck() -> None:
    """IT-DECK-1 / IT-ANTE-1: in a tournament, 5 seated with 2 sitting out post the invito but only 3 are
    dealt in, so the deck is 8..A (a 7 is refused), not 6..A."""
    # given five players, seats 1 and 3 sitting out, tournament
    state = run(table([1000] * 5), SitOut(1), SitOut(3))
    # when the hand starts
    events = events_of(state, StartHand())
    started = events[0]
    assert isinstance(started, HandStarted)
    # then everyone posts the invito but only seats 0, 2, 4 are dealt in
    assert started.antes == ((0, 10), (1, 10), (2, 10), (3, 10), (4, 10))
    assert started.dealt == (0, 2, 4)
    state = to_deal(state)
    assert state.hand is not None and state.hand.lowest_rank == 8
    assert len(state.hand.stock) == 28
    seven = parse_cards("7hAhKhQhJh")
    refuse(state, DealCards(0, seven), BadCards, "7h non è nel mazzo.")
    assert events_of(state, DealCards(0, parse_cards("8hAhKhQhJh")))[0] == CardsDealt(
        0, parse_cards("8hAhKhQhJh")
    )


def test_it_deck_1_a_supplied_deck_must_hold_the_deck_for_the_players_dealt_in() -> None:
    """IT-DECK-1: a shuffled deck for 3 players (8..A) is refused for a hand of 4 (which needs 7..A);
    the 4-player deck is accepted and is the stock."""
    # given four players
    state = table([1000] * 4)
    # when the service supplies the 3-player deck, then it is refused
    refuse(state, StartHand(deck=Deck.italian(3).cards), BadCards, "Il mazzo non è valido.")
    # when it supplies the 4-player deck, then the stock is those 32 cards
    state = run(state, StartHand(deck=Deck.italian(4).cards))
    while state.hand is not None and state.hand.phase is Phase.BLIND and state.hand.to_act is not None:
        state = run(state, DeclineBlind(state.hand.to_act))
    assert state.hand is not None
    assert state.hand.stock == Deck.italian(4).cards


# --- IT-ANTE-1 ----------------------------------------------------------------------------------------------


def test_it_ante_1_tournament_sitting_out_player_posts_and_forfeits_the_invito() -> None:
    """IT-ANTE-1: in a tournament the sitting-out player posts the invito, is not dealt in, and the invito
    goes to the winner of the pot."""
    # given four players, seat 2 sitting out, tournament
    state = run(table([1000] * 4, tournament=True), SitOut(2))
    # when the hand starts
    state = begin(state, "JhJd9c8sAh", "QhQcTs9d8d", "KdKs8h9hTc")
    assert state.hand is not None
    # then four invitos are in the pot and seat 2 holds no cards
    assert stacks(state) == [990, 990, 990, 990]
    assert state.hand.dealt == (0, 1, 3)
    assert state.hand.down[2] == ()
    assert state.hand.to_act == 0
    # when seat 0 opens for 10 and the others fold
    state = run(state, BetOrRaise(0, 10), Fold(1))
    events = events_of(state, Fold(3))
    # then seat 0 wins the 40 of invitos, seat 2's included, and his bet comes back
    assert UncalledBetReturned(0, 10) in events
    assert PotAwarded(0, 40, (0,), ((0, 40),)) in events
    state = run(state, Fold(3))
    assert stacks(state) == [1030, 990, 990, 990]


def test_it_ante_1_cash_game_sitting_out_player_posts_nothing() -> None:
    """IT-ANTE-1 (tournaments only): with tournament=False a sitting-out player posts no invito."""
    # given four players, seat 2 sitting out, not a tournament
    state = run(table([1000] * 4, tournament=False), SitOut(2))
    # when the hand starts
    started = events_of(state, StartHand())[0]
    # then only the three players dealt in post
    assert isinstance(started, HandStarted)
    assert started.antes == ((0, 10), (1, 10), (3, 10))
    assert started.dealt == (0, 1, 3)
    state = begin(state, "JhJd9c8sAh", "QhQcTs9d8d", "KdKs8h9hTc")
    assert stacks(state) == [990, 990, 1000, 990]
    assert state.hand is not None and state.hand.lowest_rank == 8  # three dealt in: 8..A (IT-DECK-1)


@pytest.mark.parametrize("tournament", [True, False])
def test_it_ante_1_player_short_of_the_invito_is_all_in_for_what_they_have(tournament: bool) -> None:
    """IT-ANTE-1: a player with 4 chips and an invito of 10 posts 4 and is all-in."""
    # given seat 1 with 4 chips
    state = table([1000, 4, 1000], tournament=tournament)
    # when the hand starts
    started = events_of(state, StartHand())[0]
    # then seat 1 posts 4 chips and is left with none, still dealt in
    assert isinstance(started, HandStarted)
    assert started.antes == ((0, 10), (1, 4), (2, 10))
    assert started.dealt == (0, 1, 2)
    state = run(state, StartHand())
    assert stacks(state) == [990, 0, 990]
    assert state.hand is not None and state.hand.contributed == (10, 4, 10)


# --- IT-BUIO-1 ----------------------------------------------------------------------------------------------


def test_it_buio_1_buio_is_the_pot_exactly() -> None:
    """IT-BUIO-1: the player left of the dealer is offered BUIO for the pot (40 with four invitos of 10);
    30 and 41 are refused with BadAmount."""
    # given four players before the deal
    state = start(table([1000] * 4), {}, blind=True)
    assert state.hand is not None and state.hand.phase is Phase.BLIND and state.hand.to_act == 0
    # then seat 0 is offered BUIO 40 or DAI CARTE
    assert legal_actions(state, 0) == (
        LegalAction(ActionKind.BLIND_BET, "BUIO", 40, 40),
        LegalAction(ActionKind.DECLINE_BLIND, "DAI CARTE"),
    )
    # when other amounts are bet blind, then they are refused
    refuse(state, BetOrRaise(0, 30), BadAmount, "Il buio è di 40 chips.")
    refuse(state, BetOrRaise(0, 41), BadAmount, "Il buio è di 40 chips.")
    # when the pot is bet blind, then it is the buio
    events = events_of(state, BetOrRaise(0, 40))
    assert events[0] == BlindBetPlaced(0, 40, 1)
    assert events[1] == TurnStarted(1, 30_000, 60_000, False)


def test_it_buio_1_controbuio_doubles_and_over_doubles_again_at_most_three() -> None:
    """IT-BUIO-1: controbuio = 2 x buio, over = 2 x controbuio; after three blind bets the deal starts and
    the fourth player left of the dealer is offered nothing."""
    # given five players and a buio of 50
    state = run(start(table([1000] * 5), {}, blind=True), BetOrRaise(0, 50))
    # then seat 1 is offered CONTROBUIO 100 only
    assert offered(state, 1) == [("CONTROBUIO", 100, 100), ("DAI CARTE", 0, 0)]
    refuse(state, BetOrRaise(1, 99), BadAmount, "Il controbuio è di 100 chips.")
    refuse(state, BetOrRaise(1, 150), BadAmount, "Il controbuio è di 100 chips.")
    state = run(state, BetOrRaise(1, 100))
    # then seat 2 is offered OVER 200 only
    assert offered(state, 2) == [("OVER", 200, 200), ("DAI CARTE", 0, 0)]
    refuse(state, BetOrRaise(2, 100), BadAmount, "è di 200 chips.")
    refuse(state, BetOrRaise(2, 201), BadAmount, "è di 200 chips.")
    # when seat 2 bets the over
    events = events_of(state, BetOrRaise(2, 200))
    # then it is the third and last blind bet: the dealer deals, seat 3 is not asked
    assert events == (BlindBetPlaced(2, 200, 3), PhaseStarted(Phase.DEAL, 4, ()))
    state = run(state, BetOrRaise(2, 200))
    assert state.hand is not None and state.hand.to_act is None
    assert legal_actions(state, 3) == ()
    assert stacks(state) == [940, 890, 790, 990, 990]


def test_it_buio_1_offers_go_to_the_first_three_players_left_of_the_dealer() -> None:
    """IT-BUIO-1: with the button on seat 1 of 4, buio is offered to seat 2, controbuio to seat 3, over to
    seat 0; nobody else may bet blind (NotYourTurn)."""
    # given the button on seat 1
    state = start(table([1000] * 4), {}, button=1, blind=True)
    assert state.hand is not None
    # then only seat 2 is offered the buio
    assert state.hand.to_act == 2
    for seat in (0, 1, 3):
        assert legal_actions(state, seat) == ()
        refuse(state, BetOrRaise(seat, 40), NotYourTurn, "Non è il tuo turno.")
    state = run(state, BetOrRaise(2, 40))
    assert state.hand is not None and state.hand.to_act == 3
    assert offered(state, 3)[0] == ("CONTROBUIO", 80, 80)
    state = run(state, BetOrRaise(3, 80))
    assert state.hand is not None and state.hand.to_act == 0
    assert offered(state, 0)[0] == ("OVER", 160, 160)


def test_it_buio_1_and_it_ante_1_sitting_out_player_left_of_the_dealer_is_skipped() -> None:
    """IT-BUIO-1 / IT-ANTE-1: seat 0 (left of the dealer) sits out in a tournament: he posts the invito but is
    not dealt in, so the buio goes to seat 1, the first player dealt in, for the pot of 40 (his forfeited
    invito included); the controbuio to seat 2."""
    # given seat 0 sitting out, button on seat 3
    state = start(run(table([1000] * 4), SitOut(0)), {}, blind=True)
    assert state.hand is not None and state.hand.dealt == (1, 2, 3)
    # then
    assert state.hand.to_act == 1
    assert offered(state, 1) == [("BUIO", 40, 40), ("DAI CARTE", 0, 0)]
    state = run(state, BetOrRaise(1, 40))
    assert state.hand is not None and state.hand.to_act == 2
    assert offered(state, 2) == [("CONTROBUIO", 80, 80), ("DAI CARTE", 0, 0)]


def test_it_buio_1_dai_carte_by_the_first_player_ends_the_sequence() -> None:
    """IT-BUIO-1: if the player left of the dealer says DAI CARTE nobody else is offered a blind bet."""
    # given four players before the deal
    state = start(table([1000] * 4), {}, blind=True)
    # when seat 0 declines
    events = events_of(state, DeclineBlind(0))
    # then the deal starts at once
    assert events == (BlindDeclined(0), PhaseStarted(Phase.DEAL, 3, ()))
    state = run(state, DeclineBlind(0))
    assert state.hand is not None and state.hand.to_act is None
    refuse(state, BetOrRaise(1, 40), NotYourTurn, "Non è il tuo turno.")
    refuse(state, DeclineBlind(1), NotYourTurn, "Non è il tuo turno.")


def test_it_buio_1_dai_carte_after_the_buio_ends_the_sequence() -> None:
    """IT-BUIO-1: a DAI CARTE by the second player ends the sequence; the third is offered no over."""
    # given a buio of 40
    state = run(start(table([1000] * 4), {}, blind=True), BetOrRaise(0, 40))
    # when seat 1 declines the controbuio
    events = events_of(state, DeclineBlind(1))
    # then the deal starts
    assert events == (BlindDeclined(1), PhaseStarted(Phase.DEAL, 3, ()))
    state = run(state, DeclineBlind(1))
    assert legal_actions(state, 2) == ()
    refuse(state, BetOrRaise(2, 80), NotYourTurn, "Non è il tuo turno.")


def test_it_buio_1_over_refused_without_enough_chips() -> None:
    """IT-BUIO-1 "each only if the player has the chips": seat 2 with 100 chips (90 after the invito)
    cannot cover an over of 160: no OVER is offered, a blind bet is refused, the deal starts.

    Interpretation: the engine does not give the turn to a player who has nothing to decide, so seat 2 is
    not asked at all (no DAI CARTE button either)."""
    # given a buio of 40 and a controbuio of 80, seat 2 holding 90 after the invito
    state = start(table([1000, 1000, 100, 1000]), {}, blind=True)
    state = run(state, BetOrRaise(0, 40))
    events = events_of(state, BetOrRaise(1, 80))
    # then no over is offered: the deal starts
    assert events == (BlindBetPlaced(1, 80, 2), PhaseStarted(Phase.DEAL, 3, ()))
    state = run(state, BetOrRaise(1, 80))
    assert not any(action.kind is ActionKind.BLIND_BET for action in legal_actions(state, 2))
    assert legal_actions(state, 2) == ()
    refuse(state, BetOrRaise(2, 160), NotYourTurn, "Non è il tuo turno.")
    refuse(state, BetOrRaise(2, 90), NotYourTurn, "Non è il tuo turno.")


def test_it_buio_1_over_offered_with_exactly_enough_chips() -> None:
    """IT-BUIO-1: a player whose stack after the invito is exactly the over (160) may bet it (all-in)."""
    # given seat 2 with 170 chips (160 after the invito)
    state = start(table([1000, 1000, 170, 1000]), {}, blind=True)
    state = run(state, BetOrRaise(0, 40), BetOrRaise(1, 80))
    # then the over is offered and accepted
    assert offered(state, 2) == [("OVER", 160, 160), ("DAI CARTE", 0, 0)]
    state = run(state, BetOrRaise(2, 160))
    assert stacks(state) == [950, 910, 0, 990]


def test_it_buio_1_controbuio_refused_without_enough_chips() -> None:
    """IT-BUIO-1: seat 1 with 79 chips after the invito cannot cover the controbuio of 80: the deal
    starts after the buio."""
    # given seat 1 with 89 chips
    state = start(table([1000, 89, 1000, 1000]), {}, blind=True)
    # when seat 0 bets the buio
    events = events_of(state, BetOrRaise(0, 40))
    # then nobody is offered a controbuio
    assert events == (BlindBetPlaced(0, 40, 1), PhaseStarted(Phase.DEAL, 3, ()))


def test_it_buio_1_no_blind_offer_when_the_requirement_is_queens_or_kings() -> None:
    """IT-BUIO-1 / IT-OPEN-2: after unopened hands (requirement Q, then K) nobody is offered a blind bet;
    once a pot is awarded (requirement J) the buio is offered again."""
    # given three players and a hand that nobody opens
    state = everyone_passes(begin(table([500] * 3, invito=5), *NO_PAIRS_3))
    for requirement in (Rank.QUEEN, Rank.KING):
        assert state.opening is requirement
        # when the next hand starts
        events = events_of(state, StartHand())
        # then it goes straight from the invito to the deal
        assert [type(e) for e in events] == [HandStarted, PhaseStarted, PhaseStarted]
        assert [e.phase for e in events[1:]] == [Phase.BLIND, Phase.DEAL]  # type: ignore[union-attr]
        state = everyone_passes(begin(state, *NO_PAIRS_3))
    # when a kings hand is won
    state = begin(state, "KhKdQc9s8h", "AcKsTd9h8d", "AhQsJc9d8s")
    assert state.hand is not None and state.hand.opening is Rank.KING
    first = state.hand.to_act
    assert first is not None
    state = run(state, BetOrRaise(first, 5))
    while state.hand is not None:
        assert state.hand.to_act is not None
        state = run(state, Fold(state.hand.to_act))
    # then the requirement is jacks again and the buio is offered
    assert state.opening is Rank.JACK
    state = run(state, StartHand())
    assert state.hand is not None and state.hand.phase is Phase.BLIND
    assert offered(state, state.hand.to_act) == [("BUIO", 15, 15), ("DAI CARTE", 0, 0)]  # type: ignore[arg-type]


def _parol_hand(limit: Limit = Limit.POT_LIMIT) -> TableState:
    """Scenario it04 hand 1: three players, jacks opened for 10, everyone calls, serves, says parol."""
    state = begin(table([500] * 3, limit=limit), "JhJd9c8sAh", "QhQcTs9d8d", "KdKs8h9hTc")
    state = run(state, BetOrRaise(0, 10), CheckOrCall(1), CheckOrCall(2))
    state = run(state, Discard(0), Discard(1), Discard(2), SayParol(0), SayParol(1), SayParol(2))
    assert state.hand is None and state.carried == 60 and state.parol_players == (0, 1, 2)
    return state


def test_it_buio_1_no_blind_offer_in_a_parol_hand() -> None:
    """IT-BUIO-1 / IT-PAROL-3: the hand after a parol offers no blind bet."""
    # given a parol
    state = _parol_hand()
    # when the parol hand starts
    events = events_of(state, StartHand())
    # then it goes straight to the deal, nobody is asked
    assert not any(isinstance(e, TurnStarted) for e in events)
    assert [e.phase for e in events if isinstance(e, PhaseStarted)] == [Phase.BLIND, Phase.DEAL]
    state = run(state, StartHand())
    assert state.hand is not None and state.hand.parol_hand
    assert state.hand.phase is Phase.DEAL and state.hand.to_act is None
    refuse(state, BetOrRaise(1, 60), NotYourTurn, "Non è il tuo turno.")


# --- IT-BUIO-2 ----------------------------------------------------------------------------------------------

IT03 = {0: "7h7dKcQs9h", 1: "AsKsQdJc8h", 2: "ThTdTc8s8c", 3: "AhAd9c9dJs"}


def _after_controbuio() -> TableState:
    """Scenario it03: buio 40 by seat 0, controbuio 80 by seat 1, seat 2 says dai carte, cards dealt."""
    return deal(blinds([1000] * 4, 40, 80), IT03)


def test_it_buio_2_after_the_deal_the_others_may_only_call_or_fold() -> None:
    """IT-BUIO-2: after the deal the player left of the last blind bettor may call or fold; a raise is
    refused with ActionNotAllowed whose English message cites IT-BUIO-2."""
    # given a controbuio of 80 by seat 1, cards dealt
    state = _after_controbuio()
    assert state.hand is not None and state.hand.phase is Phase.OPENING
    # then seat 2 (left of seat 1) speaks first and may only call 80 or fold
    assert state.hand.to_act == 2
    assert legal_actions(state, 2) == (
        LegalAction(ActionKind.FOLD, "PASSO"),
        LegalAction(ActionKind.CALL, "VEDO", 80, 80),
    )
    # when he raises (even with three tens), then it is refused
    error = refuse(
        state, BetOrRaise(2, 160), ActionNotAllowed, "Dopo un'apertura al buio si può solo vedere o passare."
    )
    assert "IT-BUIO-2" in error.english
    refuse(state, BetOrRaise(2, 81), ActionNotAllowed, "Dopo un'apertura al buio")


def test_it_buio_2_earlier_blind_bettor_calls_the_difference_and_may_not_raise() -> None:
    """IT-BUIO-2: the buio bettor (40 in) facing the controbuio (80) calls the difference, 40."""
    # given the controbuio and seat 2 calling, seat 3 folding
    state = run(_after_controbuio(), CheckOrCall(2), Fold(3))
    assert state.hand is not None and state.hand.to_act == 0
    # then seat 0 may call 40 or fold, not raise
    assert offered(state, 0) == [("PASSO", 0, 0), ("VEDO", 40, 40)]
    refuse(state, BetOrRaise(0, 160), ActionNotAllowed, "Dopo un'apertura al buio")
    # when seat 0 calls
    assert events_of(state, CheckOrCall(0))[0] == Called(0, 40, False)
    state = run(state, CheckOrCall(0))
    assert stacks(state) == [910, 910, 910, 990]


def test_it_buio_2_nobody_calls_the_buio_the_buio_bettor_wins_the_invitos() -> None:
    """IT-BUIO-2 / G-SHOW-2: nobody calls a buio of 40: the buio comes back and the bettor wins the 40 of
    invitos."""
    # given a buio of 40 by seat 0, cards dealt
    state = deal(blinds([1000] * 4, 40), FOUR)
    assert state.hand is not None and state.hand.to_act == 1
    # when everybody folds
    state = run(state, Fold(1), Fold(2))
    events = events_of(state, Fold(3))
    # then seat 0 takes the pot without showing, his buio returned
    assert events[1:3] == (UncalledBetReturned(0, 40), PotAwarded(0, 40, (0,), ((0, 40),)))
    ended = events[-1]
    assert isinstance(ended, HandEnded) and ended.result is HandResult.AWARDED
    assert ended.uncontested_winner == 0
    state = run(state, Fold(3))
    assert stacks(state) == [1030, 990, 990, 990]


def test_it_buio_2_nobody_calls_the_controbuio_its_excess_is_returned() -> None:
    """IT-BUIO-2: nobody calls the controbuio (the buio bettor folds too): seat 1 wins, the 40 above the
    buio come back (scenario it03 numbers)."""
    # given buio 40, controbuio 80, cards dealt
    state = run(_after_controbuio(), Fold(2), Fold(3))
    # when the buio bettor folds too
    events = events_of(state, Fold(0))
    # then the controbuio bettor wins 120 (invitos 40 + buio 40 + the 40 he matched)
    assert UncalledBetReturned(1, 40) in events
    assert PotAwarded(0, 120, (1,), ((1, 120),)) in events
    state = run(state, Fold(0))
    assert stacks(state) == [950, 1070, 990, 990]
    assert state.opening is Rank.JACK and state.carried == 0


def test_it_buio_2_nobody_calls_the_over() -> None:
    """IT-BUIO-2: buio 40, controbuio 80, over 160, nobody calls: seat 2 gets back 80 and wins 240."""
    # given the three blind bets, cards dealt
    state = deal(blinds([1000] * 4, 40, 80, 160), FOUR)
    assert state.hand is not None and state.hand.to_act == 3
    assert offered(state, 3) == [("PASSO", 0, 0), ("VEDO", 160, 160)]
    state = run(state, Fold(3))
    assert offered(state, 0) == [("PASSO", 0, 0), ("VEDO", 120, 120)]
    state = run(state, Fold(0))
    assert offered(state, 1) == [("PASSO", 0, 0), ("VEDO", 80, 80)]
    # when the last one folds
    events = events_of(state, Fold(1))
    # then
    assert UncalledBetReturned(2, 80) in events
    assert PotAwarded(0, 240, (2,), ((2, 240),)) in events
    state = run(state, Fold(1))
    assert stacks(state) == [950, 910, 1150, 990]


def test_it_buio_2_nobody_calls_an_all_in_over() -> None:
    """IT-BUIO-2: seat 2 bets the over of 160 with his last chips; nobody calls: he gets back the 80 nobody
    matched and wins 240."""
    # given seat 2 with 170 chips, three blind bets, cards dealt
    state = deal(blinds([1000, 1000, 170, 1000], 40, 80, 160), FOUR)
    assert stacks(state) == [950, 910, 0, 990]
    # when everybody folds
    state = run(state, Fold(3), Fold(0))
    events = events_of(state, Fold(1))
    # then
    assert UncalledBetReturned(2, 80) in events
    assert PotAwarded(0, 240, (2,), ((2, 240),)) in events
    state = run(state, Fold(1))
    assert stacks(state) == [950, 910, 320, 990]


def test_it_buio_2_all_in_over_called_needs_no_va_bene() -> None:
    """IT-BUIO-2: when the last blind bettor is all-in there is nothing for him to answer: once everyone
    called, the cambio starts."""
    state = deal(blinds([1000, 1000, 170, 1000], 40, 80, 160), FOUR)
    state = run(state, CheckOrCall(3), CheckOrCall(0))
    events = events_of(state, CheckOrCall(1))
    assert events == (
        Called(1, 80, False),
        PhaseStarted(Phase.CAMBIO, 3, ()),
        TurnStarted(0, 30_000, 60_000, False),
    )


def test_it_buio_2_when_called_the_last_blind_bettor_may_raise_or_say_va_bene() -> None:
    """IT-BUIO-2: once someone called, the last blind bettor is offered VA BENE or RILANCIO (pot limit:
    80 + 280 = 360) even without a pair (no requirement after a blind opening)."""
    # given the controbuio called by seat 2 and by the buio bettor, seat 3 folded
    state = run(_after_controbuio(), CheckOrCall(2), Fold(3), CheckOrCall(0))
    assert state.hand is not None and state.hand.to_act == 1
    # then seat 1 (ace high) may say va bene or raise
    assert legal_actions(state, 1) == (
        LegalAction(ActionKind.FOLD, "PASSO"),
        LegalAction(ActionKind.CHECK, "VA BENE"),
        LegalAction(ActionKind.RAISE, "RILANCIO", 81, 360),
    )
    refuse(state, BetOrRaise(1, 361), BadAmount, "La puntata deve essere tra 81 e 360.")
    # when he raises to 160 (double: reopens)
    assert events_of(state, BetOrRaise(1, 160))[0] == Raised(1, 160, False, True)
    state = run(state, BetOrRaise(1, 160))
    # then the others may call, re-raise or fold as normal
    assert state.hand is not None and state.hand.to_act == 2
    assert offered(state, 2) == [("PASSO", 0, 0), ("VEDO", 80, 80), ("RILANCIO", 161, 160 + 360)]
    state = run(state, BetOrRaise(2, 320))
    assert offered(state, 0) == [("PASSO", 0, 0), ("VEDO", 240, 240), ("RILANCIO", 321, 320 + 600)]


def test_it_buio_2_va_bene_starts_the_cambio() -> None:
    """IT-BUIO-2 / IT-CAMBIO-1: after VA BENE the cambio starts from the dealer's left."""
    # given the controbuio called by seats 2 and 0
    state = run(_after_controbuio(), CheckOrCall(2), Fold(3), CheckOrCall(0))
    # when seat 1 says va bene
    events = events_of(state, CheckOrCall(1))
    # then the cambio begins with seat 0
    assert events == (
        Checked(1),
        PhaseStarted(Phase.CAMBIO, 3, ()),
        TurnStarted(0, 30_000, 60_000, False),
    )
    state = run(state, CheckOrCall(1))
    assert stacks(state) == [910, 910, 910, 990]
    assert chips_total(state) == 4000


def test_it_buio_2_the_only_caller_may_be_the_earlier_blind_bettor() -> None:
    """IT-BUIO-2: if only the buio bettor calls the controbuio, the controbuio bettor still answers."""
    # given controbuio, seats 2 and 3 fold
    state = run(_after_controbuio(), Fold(2), Fold(3), CheckOrCall(0))
    # then seat 1 is asked for va bene or a raise
    assert state.hand is not None and state.hand.to_act == 1
    assert [label for label, _, _ in offered(state, 1)] == ["PASSO", "VA BENE", "RILANCIO"]


# --- IT-BUIO-3 ----------------------------------------------------------------------------------------------


def _serve_all(state: TableState) -> TableState:
    while state.hand is not None and state.hand.phase is Phase.CAMBIO:
        assert state.hand.to_act is not None
        state = run(state, Discard(state.hand.to_act))
    return state


def test_it_buio_3_player_left_of_the_buio_bettor_speaks_first_in_the_final_round() -> None:
    """IT-BUIO-3: after a buio by seat 0 (called, va bene), seat 1 speaks first after the cambio, whereas
    after a normal opening by seat 0 the opener speaks first (IT-BET-1)."""
    # given a buio by seat 0 called by everyone, va bene
    state = deal(blinds([1000] * 4, 40), FOUR)
    state = run(state, CheckOrCall(1), CheckOrCall(2), CheckOrCall(3), CheckOrCall(0))
    # when everyone serves
    state = _serve_all(state)
    # then seat 1 speaks first
    assert state.hand is not None and state.hand.phase is Phase.FINAL
    assert state.hand.to_act == 1
    # contrast: a normal opening by seat 0
    normal = run(start(table([1000] * 4), FOUR), BetOrRaise(0, 10), *(CheckOrCall(s) for s in (1, 2, 3)))
    normal = _serve_all(normal)
    assert normal.hand is not None and normal.hand.to_act == 0


def test_it_buio_3_controbuio_first_speaker_skips_folded_players() -> None:
    """IT-BUIO-3: last blind bettor seat 1; seat 2 (on his left) folded, so seat 3 speaks first."""
    # given controbuio by seat 1; seat 2 folds, seats 3 and 0 call, va bene
    state = run(_after_controbuio(), Fold(2), CheckOrCall(3), CheckOrCall(0), CheckOrCall(1))
    state = _serve_all(state)
    # then seat 3 speaks first
    assert state.hand is not None and state.hand.phase is Phase.FINAL and state.hand.to_act == 3


def test_it_buio_3_overrides_the_last_raiser_of_the_opening_round() -> None:
    """IT-BUIO-3 overrides IT-BET-1: buio by seat 0, who then raises; seat 3 re-raises last; still seat 1,
    on the buio bettor's left, speaks first after the cambio."""
    # given a buio called by everyone, a raise by the buio bettor, a re-raise by seat 3, all called
    state = deal(blinds([1000] * 4, 40), FOUR)
    state = run(state, CheckOrCall(1), CheckOrCall(2), CheckOrCall(3), BetOrRaise(0, 80))
    state = run(state, CheckOrCall(1), CheckOrCall(2), BetOrRaise(3, 160))
    state = run(state, CheckOrCall(0), CheckOrCall(1), CheckOrCall(2))
    assert state.hand is not None and state.hand.phase is Phase.CAMBIO
    # when everyone serves
    state = _serve_all(state)
    # then seat 1 speaks first (IT-BET-1 alone would give seat 3)
    assert state.hand is not None and state.hand.to_act == 1
    assert stacks(state) == [830, 830, 830, 830]


# --- IT-OPEN-1 / IT-OPEN-3 ----------------------------------------------------------------------------------


def test_it_open_1_opening_requires_a_pair_of_jacks() -> None:
    """IT-OPEN-1: a pair of tens may not open (OpeningRequirementNotMet, "...coppia di jack."), jacks may."""
    # given seat 0 holding tens, seat 1 jacks (four players)
    state = start(table([1000] * 4), {0: "TsTc9h8d7c", 1: "JhJdAc9c8c", 2: "Ah9dQs7s8h", 3: "KcKd9s7hAd"})
    # then seat 0 is offered no PUNTO and his bet is refused
    assert legal_actions(state, 0) == (
        LegalAction(ActionKind.FOLD, "PASSO"),
        LegalAction(ActionKind.CHECK, "BUSSO"),
    )
    error = refuse(
        state, BetOrRaise(0, 10), OpeningRequirementNotMet, "Per aprire serve almeno una coppia di jack."
    )
    assert str(error) == "Per aprire serve almeno una coppia di jack."
    assert "jacks" in error.english
    # when seat 0 passes the word, then seat 1 may open with jacks
    state = run(state, CheckOrCall(0))
    assert offered(state, 1) == [("PASSO", 0, 0), ("BUSSO", 0, 0), ("PUNTO", 10, 40)]
    assert events_of(state, BetOrRaise(1, 10))[0] == BetPlaced(1, 10, False)


@pytest.mark.parametrize(
    ("unopened", "hand", "others", "word"),
    [
        (0, "ThTd9c8sAh", ("AcKsTc9h8d", "KhQsJc9d8c"), "jack"),
        (1, "JhJdAc9c8c", ("AhKsTc9h8d", "KhQsJc9d8s"), "donne"),
        (2, "QhQd9c8sAh", ("AcKsTc9h8d", "KhJsJc9d8c"), "re"),
    ],
)
def test_it_open_1_2_refusal_message_names_the_requirement(
    unopened: int, hand: str, others: tuple[str, str], word: str
) -> None:
    """IT-OPEN-1 / IT-OPEN-2: the refusal says which pair is needed: jack, donne, re."""
    # given three players and ``unopened`` hands that nobody opened
    state = table([500] * 3, invito=5)
    for _ in range(unopened):
        state = everyone_passes(begin(state, *NO_PAIRS_3))
    # when the first to speak opens with a pair one below the requirement
    state = begin(state, hand, *others)
    assert state.hand is not None and state.hand.to_act is not None
    seat = state.hand.to_act
    # then it is refused with the exact Italian message
    error = refuse(state, BetOrRaise(seat, 5), OpeningRequirementNotMet, "Per aprire serve")
    assert str(error) == f"Per aprire serve almeno una coppia di {word}."
    assert [label for label, _, _ in offered(state, seat)] == ["PASSO", "BUSSO"]


def test_it_open_1_opening_is_optional() -> None:
    """IT-OPEN-1: a player who could open (jacks) may pass the word; the next player opens."""
    # given seat 0 with jacks, seat 1 with queens
    state = start(table([1000] * 4), FOUR)
    # when seat 0 passes the word
    events = events_of(state, CheckOrCall(0))
    # then it is a check and seat 1 is to speak
    assert events == (Checked(0), TurnStarted(1, 30_000, 60_000, False))
    state = run(state, CheckOrCall(0))
    assert events_of(state, BetOrRaise(1, 20))[0] == BetPlaced(1, 20, False)
    state = run(state, BetOrRaise(1, 20))
    # and the player who passed may still call or raise when it comes back to him
    state = run(state, Fold(2), Fold(3))
    assert offered(state, 0) == [("PASSO", 0, 0), ("VEDO", 20, 20), ("RILANCIO", 21, 20 + 60)]


def test_it_open_3_open_ended_straight_flush_draw_may_open() -> None:
    """IT-OPEN-3: 8-9-10-J of hearts with 32 cards (7 and Q complete it) opens without a pair; J-Q-K-A of
    diamonds (only the 10 completes it) does not."""
    # given four players: seat 0 with 8h9hThJh + As, seat 1 with JdQdKdAd + 7c
    state = start(table([1000] * 4), {0: "8h9hThJhAs", 1: "QdKdAdJd7c", 2: "Ac9dTs7s8c", 3: "KcTc9c7hQs"})
    # then seat 0 is offered PUNTO and opens
    assert offered(state, 0) == [("PASSO", 0, 0), ("BUSSO", 0, 0), ("PUNTO", 10, 40)]
    state2 = run(state, CheckOrCall(0))
    # seat 1: J-Q-K-A of diamonds cannot open
    assert offered(state2, 1) == [("PASSO", 0, 0), ("BUSSO", 0, 0)]
    refuse(state2, BetOrRaise(1, 10), OpeningRequirementNotMet, "Per aprire serve almeno una coppia di jack.")
    assert events_of(state, BetOrRaise(0, 40))[0] == BetPlaced(0, 40, False)


def test_it_open_3_straight_flush_draw_opens_even_when_kings_are_required() -> None:
    """IT-OPEN-3 "may always open": 9-10-J-Q of hearts (deck 8..A) opens a kings hand."""
    # given two unopened hands: kings are required
    state = table([500] * 3, invito=5)
    for _ in range(2):
        state = everyone_passes(begin(state, *NO_PAIRS_3))
    assert state.opening is Rank.KING
    # when the first to speak holds the draw
    state = begin(state, "9hThJhQhAs", "AcKsTc9c8d", "KhQsJc9d8s")
    assert state.hand is not None and state.hand.to_act is not None
    seat = state.hand.to_act
    # then he may open
    assert offered(state, seat) == [("PASSO", 0, 0), ("BUSSO", 0, 0), ("PUNTO", 5, 45)]  # pot 30 + 15
    assert events_of(state, BetOrRaise(seat, 5))[0] == BetPlaced(seat, 5, False)


# --- IT-OPEN-2 ----------------------------------------------------------------------------------------------


def test_it_open_2_unopened_hands_escalate_j_q_k_k_and_return_to_j() -> None:
    """IT-OPEN-2: nobody opens four hands in a row: each ends NOT_OPENED, the pot carries, the invito is
    posted again and the button moves; the requirement goes J -> Q -> K -> K; after a pot is awarded it is
    J again."""
    # given three players with 500, invito 5
    state = table([500] * 3, invito=5)
    expected = [  # (requirement this hand, button, carried before the antes, stacks after the antes)
        (Rank.JACK, 2, 0, [495] * 3),
        (Rank.QUEEN, 0, 15, [490] * 3),
        (Rank.KING, 1, 30, [485] * 3),
        (Rank.KING, 2, 45, [480] * 3),
    ]
    for number, (requirement, button, carried, after_antes) in enumerate(expected, start=1):
        # when the hand is dealt
        state = begin(state, *NO_PAIRS_3)
        hand = state.hand
        assert hand is not None
        assert (hand.opening, hand.button, hand.dead, stacks(state)) == (
            requirement,
            button,
            carried,
            after_antes,
        )
        assert hand.contributed == (5, 5, 5) and hand.min_bet == 5
        # and everybody passes the word
        first, second, last = (button + 1) % 3, (button + 2) % 3, button
        assert hand.to_act == first
        state = run(state, CheckOrCall(first), CheckOrCall(second))
        events = events_of(state, CheckOrCall(last))
        # then the hand ends unopened and the pot carries
        ended = events[-1]
        assert isinstance(ended, HandEnded)
        assert ended.number == number
        assert ended.result is HandResult.NOT_OPENED
        assert ended.carried == carried + 15
        assert ended.next_opening is (Rank.QUEEN if requirement is Rank.JACK else Rank.KING)
        assert not any(isinstance(e, PotAwarded) for e in events)
        state = run(state, CheckOrCall(last))
        assert state.hand is None and state.carried == carried + 15 and state.button == button
    # when the fifth hand (kings) is opened by seat 1 and won uncontested
    state = begin(state, "KcKsTd9h8d", "AcQsJc9d8s", "AhKdQc9s8h")
    assert state.hand is not None and state.hand.opening is Rank.KING and state.hand.button == 0
    assert state.hand.dead == 60 and state.hand.to_act == 1
    state = run(state, BetOrRaise(1, 5), Fold(2))
    events = events_of(state, Fold(0))
    # then the pot of 75 is awarded and the requirement is back to jacks
    assert PotAwarded(0, 75, (1,), ((1, 75),)) in events
    ended = events[-1]
    assert isinstance(ended, HandEnded) and ended.result is HandResult.AWARDED
    assert ended.next_opening is Rank.JACK and ended.carried == 0
    state = run(state, Fold(0))
    assert stacks(state) == [475, 550, 475]
    assert (state.opening, state.carried) == (Rank.JACK, 0)


def test_it_open_2_queens_hand_pot_limit_includes_the_carried_pot() -> None:
    """IT-OPEN-2 / IT-LIMIT-2: in the queens hand of scenario it02 the pot is 15 carried + 15 invitos, so
    the opener may bet 5..30; jacks are refused."""
    # given scenario it02 hand 1 unopened
    state = everyone_passes(begin(table([500] * 3, invito=5), "AhKdQc9s8h", "AcKsTd9h8d", "KhQsJc9d8s"))
    # when hand 2 is dealt (button seat 0)
    state = begin(state, "JhJdAc9c8c", "QhQdKcTs8s", "AhAs9dTc8d")
    assert state.hand is not None and state.hand.to_act == 1
    # then jacks may not open, queens may up to the pot
    refuse(state, BetOrRaise(1, 20), OpeningRequirementNotMet, "Per aprire serve almeno una coppia di donne.")
    state = run(state, CheckOrCall(1))
    assert offered(state, 2) == [("PASSO", 0, 0), ("BUSSO", 0, 0), ("PUNTO", 5, 30)]
    state = run(state, BetOrRaise(2, 20))
    # and the raise goes up to 20 + (30 + 20) = 70 (scenario it02)
    assert offered(state, 0) == [("PASSO", 0, 0), ("VEDO", 20, 20), ("RILANCIO", 21, 70)]
    refuse(state, BetOrRaise(0, 71), BadAmount, "La puntata deve essere tra 21 e 70.")


# --- IT-OPEN-4 ----------------------------------------------------------------------------------------------


def test_it_open_4_minimum_opening_bet_is_the_invito() -> None:
    """IT-OPEN-4: with an invito of 10 the opening bet is 10..40 (pot limit); 9 is refused."""
    # given seat 0 with jacks
    state = start(table([1000] * 4), FOUR)
    # then
    assert offered(state, 0) == [("PASSO", 0, 0), ("BUSSO", 0, 0), ("PUNTO", 10, 40)]
    refuse(state, BetOrRaise(0, 9), BadAmount, "La puntata deve essere tra 10 e 40.")
    refuse(state, BetOrRaise(0, 0), BadAmount, "La puntata deve essere tra 10 e 40.")
    assert events_of(state, BetOrRaise(0, 10))[0] == BetPlaced(0, 10, False)


def test_it_open_4_minimum_opening_bet_follows_the_levels_invito() -> None:
    """IT-OPEN-4: the invito of the level (StartHand invito=25) is the minimum opening bet."""
    # given a hand started with an invito of 25 (no-limit)
    state = table([1000] * 4, limit=Limit.NO_LIMIT)
    state = begin(state, FOUR[0], FOUR[1], FOUR[2], FOUR[3], invito=25)
    # then
    assert stacks(state) == [975] * 4
    assert offered(state, 0) == [("PASSO", 0, 0), ("BUSSO", 0, 0), ("PUNTO", 25, 974), ("RESTO", 975, 975)]
    refuse(state, BetOrRaise(0, 24), BadAmount, "La puntata deve essere tra 25 e 975.")


def test_it_open_4_and_it_parol_3_parol_hand_minimum_opening_bet_is_the_pot() -> None:
    """IT-OPEN-4 / IT-PAROL-3: in the parol hand of scenario it04 the pot is 60: opening 40 is refused,
    60 accepted (pot limit: 60..60); kings are required."""
    # given the parol hand of it04
    state = begin(_parol_hand(), "AhAd9c8sTc", "KhKdQsJs9d", "QhQdJcTh8h")
    assert state.hand is not None and state.hand.parol_hand and state.hand.min_bet == 60
    assert state.hand.opening is Rank.KING and state.hand.to_act == 1
    # then
    assert offered(state, 1) == [("PASSO", 0, 0), ("BUSSO", 0, 0), ("PUNTO", 60, 60)]
    refuse(state, BetOrRaise(1, 40), BadAmount, "La puntata deve essere tra 60 e 60.")
    assert events_of(state, BetOrRaise(1, 60))[0] == BetPlaced(1, 60, False)


def test_it_open_4_parol_hand_minimum_no_limit() -> None:
    """IT-OPEN-4: no limit, parol hand: the opening bet ranges from the pot (60) to the whole stack."""
    state = begin(_parol_hand(Limit.NO_LIMIT), "AhAd9c8sTc", "KhKdQsJs9d", "QhQdJcTh8h")
    assert offered(state, 1) == [("PASSO", 0, 0), ("BUSSO", 0, 0), ("PUNTO", 60, 479), ("RESTO", 480, 480)]
    refuse(state, BetOrRaise(1, 59), BadAmount, "La puntata deve essere tra 60 e 480.")


# --- IT-OPEN-5 ----------------------------------------------------------------------------------------------

OPEN5 = ("AhAdAcKhKd", "QhQdQc9h8d", "JhJdTcTh9s")


def test_it_open_5_all_in_on_the_invito_nobody_opens_the_hand_goes_on() -> None:
    """IT-OPEN-5: seat 0 is all-in for 6 on the invito of 10; nobody with chips opens; the hand goes to the
    cambio with all three, then to the final round and the showdown. Seat 0 wins only the main pot he
    covered (3 x 6 = 18); the side pot (4 + 4 + 20 + 20 = 48) goes to seat 1."""
    # given seat 0 with 6 chips
    state = begin(table([6, 1000, 1000]), *OPEN5)
    assert stacks(state) == [0, 990, 990]
    assert state.hand is not None and state.hand.to_act == 1
    # when nobody opens (seat 1 has trips and passes the word anyway)
    state = run(state, CheckOrCall(1))
    events = events_of(state, CheckOrCall(2))
    # then no NOT_OPENED: the cambio starts with every player who posted, from the dealer's left
    assert not any(isinstance(e, HandEnded) for e in events)
    assert events[1:] == (PhaseStarted(Phase.CAMBIO, 2, ()), TurnStarted(0, 30_000, 60_000, False))
    state = run(state, CheckOrCall(2), Discard(0), Discard(1), Discard(2))
    # then the final round starts left of the dealer with the first player who can act (IT-BET-1)
    assert state.hand is not None and state.hand.phase is Phase.FINAL and state.hand.to_act == 1
    state = run(state, BetOrRaise(1, 20), CheckOrCall(2))
    assert state.hand is not None and state.hand.phase is Phase.SHOWDOWN
    # when seat 2 (two pair, beaten by seat 1's trips) mucks
    events = events_of(state, MuckHand(2))
    # then seat 0's full house takes the main pot only
    assert PotAwarded(0, 18, (0, 1), ((0, 18),)) in events
    assert PotAwarded(1, 48, (1,), ((1, 48),)) in events
    state = run(state, MuckHand(2))
    assert stacks(state) == [18, 1018, 970]


def test_it_open_5_stack_equal_to_the_invito_is_all_in_and_the_hand_goes_to_the_showdown() -> None:
    """IT-OPEN-5: seat 0 holds exactly the invito (10): all-in; nobody opens; cambio; everyone checks the
    final round; seat 0 wins the whole pot of 30, which he covered."""
    # given seat 0 with 10 chips
    state = begin(table([10, 1000, 1000]), *OPEN5)
    assert stacks(state) == [0, 990, 990]
    # when nobody opens, everybody serves and checks
    state = run(state, CheckOrCall(1), CheckOrCall(2))
    assert state.hand is not None and state.hand.phase is Phase.CAMBIO
    state = run(state, Discard(0), Discard(1), Discard(2))
    refuse(state, SayParol(1), ParolNotAllowed, "Parol non consentito con un giocatore all-in.")
    state = run(state, CheckOrCall(1), CheckOrCall(2))
    # then the showdown starts left of the dealer: seat 0 shows and wins; the others need not show
    assert state.hand is not None and state.hand.phase is Phase.SHOWDOWN
    assert state.hand.to_act == 1
    state = run(state, MuckHand(1))
    assert state.hand is not None and state.hand.to_act == 2
    events = events_of(state, MuckHand(2))
    assert PotAwarded(0, 30, (0,), ((0, 30),)) in events
    state = run(state, MuckHand(2))
    assert stacks(state) == [30, 990, 990]


# --- IT-RAISE-1 ---------------------------------------------------------------------------------------------


def test_it_raise_1_minimum_raise_is_one_chip_above_the_bet() -> None:
    """IT-RAISE-1: any amount above the last bet is a raise: facing 20, raise-to 21 is legal, 20 is not."""
    # given no limit, seat 0 opened for 20
    state = run(start(table([1000] * 4, limit=Limit.NO_LIMIT), FOUR), BetOrRaise(0, 20))
    # then
    assert offered(state, 1) == [
        ("PASSO", 0, 0),
        ("VEDO", 20, 20),
        ("RILANCIO", 21, 989),
        ("RESTO", 990, 990),
    ]
    refuse(state, BetOrRaise(1, 20), BadAmount, "La puntata deve essere tra 21 e 990.")
    assert events_of(state, BetOrRaise(1, 21))[0] == Raised(1, 21, False, False)


@pytest.mark.parametrize(("to", "reopens"), [(39, False), (40, True), (41, True)])
def test_it_raise_1_a_raise_reopens_only_if_at_least_double(to: int, reopens: bool) -> None:
    """IT-RAISE-1: facing a bet of 20, a raise to 40 (double) reopens the betting; to 39 it does not."""
    # given seat 0 opened for 20 (no limit)
    state = run(start(table([1000] * 4, limit=Limit.NO_LIMIT), FOUR), BetOrRaise(0, 20))
    # when seat 1 raises
    assert events_of(state, BetOrRaise(1, to))[0] == Raised(1, to, False, reopens)
    state = run(state, BetOrRaise(1, to), CheckOrCall(2), CheckOrCall(3))
    # then the opener may (or may not) raise again
    labels = [label for label, _, _ in offered(state, 0)]
    if reopens:
        assert labels == ["PASSO", "VEDO", "RILANCIO", "RESTO"]
    else:
        assert labels == ["PASSO", "VEDO"]
        refuse(state, BetOrRaise(0, 2 * to), ActionNotAllowed, "Non puoi rilanciare ora.")


def test_it_raise_1_short_raise_does_not_reopen_to_players_who_already_acted() -> None:
    """IT-RAISE-1: A opens 20, B calls, C raises to 30 (less than double): D, who had not acted, may still
    raise; A and B may only call or fold."""
    # given
    state = run(start(table([1000] * 4, limit=Limit.NO_LIMIT), FOUR), BetOrRaise(0, 20), CheckOrCall(1))
    # when seat 2 raises short
    assert events_of(state, BetOrRaise(2, 30))[0] == Raised(2, 30, False, False)
    state = run(state, BetOrRaise(2, 30))
    # then seat 3 (not acted) may raise from 31
    assert offered(state, 3) == [
        ("PASSO", 0, 0),
        ("VEDO", 30, 30),
        ("RILANCIO", 31, 989),
        ("RESTO", 990, 990),
    ]
    state = run(state, CheckOrCall(3))
    # and seats 0 and 1 may only call or fold
    assert legal_actions(state, 0) == (
        LegalAction(ActionKind.FOLD, "PASSO"),
        LegalAction(ActionKind.CALL, "VEDO", 10, 10),
    )
    refuse(state, BetOrRaise(0, 60), ActionNotAllowed, "Non puoi rilanciare ora.")
    refuse(state, BetOrRaise(0, 31), ActionNotAllowed, "Non puoi rilanciare ora.")
    state = run(state, CheckOrCall(0))
    assert offered(state, 1) == [("PASSO", 0, 0), ("VEDO", 10, 10)]
    refuse(state, BetOrRaise(1, 990), ActionNotAllowed, "Non puoi rilanciare ora.")
    # when seat 1 calls, the round is over
    events = events_of(state, CheckOrCall(1))
    assert events[:2] == (Called(1, 10, False), PhaseStarted(Phase.CAMBIO, 3, ()))


def test_it_raise_1_a_full_re_raise_after_a_short_raise_reopens_to_everyone() -> None:
    """IT-RAISE-1: after the short raise to 30, D raises to 60 (double): A may raise again."""
    state = run(start(table([1000] * 4, limit=Limit.NO_LIMIT), FOUR), BetOrRaise(0, 20), CheckOrCall(1))
    state = run(state, BetOrRaise(2, 30))
    assert events_of(state, BetOrRaise(3, 60))[0] == Raised(3, 60, False, True)
    state = run(state, BetOrRaise(3, 60))
    assert offered(state, 0) == [
        ("PASSO", 0, 0),
        ("VEDO", 40, 40),
        ("RILANCIO", 61, 989),
        ("RESTO", 990, 990),
    ]


# --- IT-LIMIT-1 (no limit) ----------------------------------------------------------------------------------


def test_it_limit_1_no_limit_maximum_is_the_whole_stack_resto() -> None:
    """IT-LIMIT-1: no limit, the opening bet goes up to the whole stack; the all-in amount is RESTO; one
    chip more is refused."""
    # given no limit, stacks 990 after the invito
    state = start(table([1000] * 4, limit=Limit.NO_LIMIT), FOUR)
    # then
    assert legal_actions(state, 0) == (
        LegalAction(ActionKind.FOLD, "PASSO"),
        LegalAction(ActionKind.CHECK, "BUSSO"),
        LegalAction(ActionKind.BET, "PUNTO", 10, 989),
        LegalAction(ActionKind.BET, "RESTO", 990, 990),
    )
    refuse(state, BetOrRaise(0, 991), BadAmount, "La puntata deve essere tra 10 e 990.")
    assert events_of(state, BetOrRaise(0, 990))[0] == BetPlaced(0, 990, True)


def test_it_limit_1_call_of_the_whole_stack_is_resto() -> None:
    """IT-LIMIT-1 / IT-BET-1: a player who can only call part of the bet calls all-in: label RESTO with his
    stack, and the call is all-in; he may not raise."""
    # given no limit; seat 1 has 300 (290 after the invito), seat 0 bets 500
    state = start(table([1000, 300, 1000, 1000], limit=Limit.NO_LIMIT), FOUR)
    state = run(state, BetOrRaise(0, 500))
    # then
    assert legal_actions(state, 1) == (
        LegalAction(ActionKind.FOLD, "PASSO"),
        LegalAction(ActionKind.CALL, "RESTO", 290, 290),
    )
    refuse(state, BetOrRaise(1, 600), ActionNotAllowed, "Non puoi rilanciare ora.")
    assert events_of(state, CheckOrCall(1))[0] == Called(1, 290, True)


def test_it_limit_1_raise_up_to_the_stack_shows_rilancio_and_resto() -> None:
    """IT-LIMIT-1: facing 100 with 290 behind, the raise range is 101..289 and RESTO 290."""
    state = start(table([1000, 300, 1000, 1000], limit=Limit.NO_LIMIT), FOUR)
    state = run(state, BetOrRaise(0, 100))
    assert offered(state, 1) == [
        ("PASSO", 0, 0),
        ("VEDO", 100, 100),
        ("RILANCIO", 101, 289),
        ("RESTO", 290, 290),
    ]
    assert events_of(state, BetOrRaise(1, 290))[0] == Raised(1, 290, True, True)


# --- IT-LIMIT-2 (pot limit) ---------------------------------------------------------------------------------

FIVE = {0: "JhJd7c8s9c", 1: "QhQsKd8d7d", 2: "Ah9dTs7s8h", 3: "KcTc9h7hAd", 4: "6h6d6c6sAs"}


def test_it_limit_2_seed_example_pot_100_bet_20_call_20_raise_to_160() -> None:
    """IT-LIMIT-2: pot 100 (five invitos of 20), A bets 20, B calls 20: C may raise to 20 + 140 = 160; 161
    is refused."""
    # given five players, invito 20, pot limit
    state = start(table([1000] * 5, invito=20), FIVE)
    assert state.hand is not None and sum(state.hand.contributed) == 100
    # when A bets 20 and B calls
    state = run(state, BetOrRaise(0, 20), CheckOrCall(1))
    # then C may raise from 21 to 160
    assert offered(state, 2) == [("PASSO", 0, 0), ("VEDO", 20, 20), ("RILANCIO", 21, 160)]
    refuse(state, BetOrRaise(2, 161), BadAmount, "La puntata deve essere tra 21 e 160.")
    assert events_of(state, BetOrRaise(2, 160))[0] == Raised(2, 160, False, True)


def test_it_limit_2_with_no_bet_the_maximum_is_the_pot() -> None:
    """IT-LIMIT-2: with no bet yet the maximum opening bet is the pot (40 with four invitos of 10)."""
    state = start(table([1000] * 4), FOUR)
    assert offered(state, 0)[-1] == ("PUNTO", 10, 40)
    refuse(state, BetOrRaise(0, 41), BadAmount, "La puntata deve essere tra 10 e 40.")
    assert events_of(state, BetOrRaise(0, 40))[0] == BetPlaced(0, 40, False)


def test_it_limit_2_maximum_counts_the_players_own_chips_already_in_the_round() -> None:
    """IT-LIMIT-2: three players, pot 30; A bets 30, B raises to 90, C folds. A may raise to the current bet
    (90) plus everything in the middle before his call — invitos 30 + his own 30 + B's 90 = 150 — i.e.
    to 240 (the usual international pot limit would allow 300)."""
    # given
    state = start(table([1000] * 3), {0: "JhJd9c8sAh", 1: "QhQcTs9d8d", 2: "KdKs8h9hTc"})
    assert offered(state, 0)[-1] == ("PUNTO", 10, 30)
    state = run(state, BetOrRaise(0, 30))
    assert offered(state, 1)[-1] == ("RILANCIO", 31, 90)
    state = run(state, BetOrRaise(1, 90), Fold(2))
    # then
    assert offered(state, 0) == [("PASSO", 0, 0), ("VEDO", 60, 60), ("RILANCIO", 91, 240)]
    refuse(state, BetOrRaise(0, 241), BadAmount, "La puntata deve essere tra 91 e 240.")
    assert events_of(state, BetOrRaise(0, 240))[0] == Raised(0, 240, False, True)


def test_it_limit_2_pot_limit_capped_by_the_stack_is_resto() -> None:
    """IT-LIMIT-2 / IT-LIMIT-1: when the stack is below the pot-limit maximum, the top of the range is the
    stack, labelled RESTO."""
    # given seat 0 with 35 chips (25 after the invito), pot 40
    state = start(table([35, 1000, 1000, 1000]), FOUR)
    assert offered(state, 0) == [("PASSO", 0, 0), ("BUSSO", 0, 0), ("PUNTO", 10, 24), ("RESTO", 25, 25)]
    refuse(state, BetOrRaise(0, 26), BadAmount, "La puntata deve essere tra 10 e 25.")
    assert events_of(state, BetOrRaise(0, 25))[0] == BetPlaced(0, 25, True)


# --- IT-LIMIT-3 (fixed limit) -------------------------------------------------------------------------------


def test_it_limit_3_fixed_limit_bet_and_raise_equal_the_invito() -> None:
    """IT-LIMIT-3: fixed limit, invito 10: the opening bet is exactly 10, each raise exactly 10 more."""
    # given fixed limit
    state = start(table([1000] * 4, limit=Limit.FIXED_LIMIT), FOUR)
    # then
    assert offered(state, 0) == [("PASSO", 0, 0), ("BUSSO", 0, 0), ("PUNTO", 10, 10)]
    refuse(state, BetOrRaise(0, 11), BadAmount, "La puntata deve essere tra 10 e 10.")
    refuse(state, BetOrRaise(0, 9), BadAmount, "La puntata deve essere tra 10 e 10.")
    state = run(state, BetOrRaise(0, 10))
    assert offered(state, 1) == [("PASSO", 0, 0), ("VEDO", 10, 10), ("RILANCIO", 20, 20)]
    refuse(state, BetOrRaise(1, 30), BadAmount, "La puntata deve essere tra 20 e 20.")
    refuse(state, BetOrRaise(1, 15), BadAmount, "La puntata deve essere tra 20 e 20.")


def test_it_limit_3_fixed_limit_cap_one_bet_and_three_raises() -> None:
    """IT-LIMIT-3: bet 10, raises to 20, 30, 40: the fifth aggressive action is refused and no RILANCIO is
    offered; calling remains."""
    # given fixed limit, bet and three raises
    state = start(table([1000] * 4, limit=Limit.FIXED_LIMIT), FOUR)
    state = run(state, BetOrRaise(0, 10), BetOrRaise(1, 20), BetOrRaise(2, 30))
    assert offered(state, 3)[-1] == ("RILANCIO", 40, 40)
    state = run(state, BetOrRaise(3, 40))
    # then the cap is reached
    assert legal_actions(state, 0) == (
        LegalAction(ActionKind.FOLD, "PASSO"),
        LegalAction(ActionKind.CALL, "VEDO", 30, 30),
    )
    refuse(state, BetOrRaise(0, 50), ActionNotAllowed, "Non puoi rilanciare ora.")
    state = run(state, CheckOrCall(0))
    assert offered(state, 1) == [("PASSO", 0, 0), ("VEDO", 20, 20)]
    refuse(state, BetOrRaise(1, 50), ActionNotAllowed, "Non puoi rilanciare ora.")


def test_it_limit_3_fixed_limit_every_raise_reopens() -> None:
    """IT-LIMIT-3: in fixed limit a raise from 20 to 30 (less than double) reopens: B, who already raised,
    may raise again (the fourth aggressive action), then the cap applies."""
    # given A bets, B raises to 20, C and D call
    state = start(table([1000] * 4, limit=Limit.FIXED_LIMIT), FOUR)
    state = run(state, BetOrRaise(0, 10), BetOrRaise(1, 20), CheckOrCall(2), CheckOrCall(3))
    # when A re-raises to 30
    assert events_of(state, BetOrRaise(0, 30))[0] == Raised(0, 30, False, True)
    state = run(state, BetOrRaise(0, 30))
    # then B may raise again
    assert offered(state, 1) == [("PASSO", 0, 0), ("VEDO", 10, 10), ("RILANCIO", 40, 40)]
    state = run(state, BetOrRaise(1, 40))
    # and after that nobody may
    assert offered(state, 2) == [("PASSO", 0, 0), ("VEDO", 20, 20)]


def test_legal_actions_resto_below_the_minimum_bet() -> None:
    """IT-BET-1 (RESTO) / IT-OPEN-4: a player with 5 chips after the invito cannot bet the minimum of 10;
    he is offered only RESTO 5 (the engine lets a short stack open all-in)."""
    state = start(table([15, 1000, 1000, 1000]), FOUR)
    assert legal_actions(state, 0) == (
        LegalAction(ActionKind.FOLD, "PASSO"),
        LegalAction(ActionKind.CHECK, "BUSSO"),
        LegalAction(ActionKind.BET, "RESTO", 5, 5),
    )
    refuse(state, BetOrRaise(0, 10), BadAmount, "La puntata deve essere tra 5 e 5.")
    assert events_of(state, BetOrRaise(0, 5))[0] == BetPlaced(0, 5, True)


# --- legal_actions against decide ---------------------------------------------------------------------------


def test_legal_actions_check_facing_a_bet_is_a_call() -> None:
    """IT-BET-1: BUSSO is not offered facing a bet; a CheckOrCall then calls (VEDO), never checks."""
    state = run(start(table([1000] * 4), FOUR), BetOrRaise(0, 30))
    assert "BUSSO" not in [label for label, _, _ in offered(state, 1)]
    events = events_of(state, CheckOrCall(1))
    assert events[0] == Called(1, 30, False)
    assert not any(isinstance(e, Checked) for e in events)


def test_legal_actions_nobody_else_is_offered_anything_and_is_refused() -> None:
    """Only the seat to act has actions; the others' commands are refused with NotYourTurn."""
    state = start(table([1000] * 4), FOUR)
    for seat in (1, 2, 3):
        assert legal_actions(state, seat) == ()
        refuse(state, CheckOrCall(seat), NotYourTurn, "Non è il tuo turno.")
        refuse(state, Fold(seat), NotYourTurn, "Non è il tuo turno.")


def test_legal_actions_wrong_phase_actions_are_refused() -> None:
    """In the opening round no blind decline, parol or discard; before the deal no check or fold."""
    state = start(table([1000] * 4), FOUR)
    refuse(state, DeclineBlind(0), ActionNotAllowed, "Questa azione non è possibile in questa fase.")
    refuse(state, SayParol(0), ParolNotAllowed, "Il parol si dichiara solo nell'ultima fase di puntata.")
    refuse(state, Discard(0), ActionNotAllowed, "Questa azione non è possibile in questa fase.")
    blind = start(table([1000] * 4), {}, blind=True)
    refuse(blind, CheckOrCall(0), ActionNotAllowed, "Questa azione non è possibile in questa fase.")
    refuse(blind, Fold(0), ActionNotAllowed, "Questa azione non è possibile in questa fase.")


def _check_offer(state: TableState, seat: int) -> None:
    """Every action offered is accepted (amounts at both ends of each range); amounts just outside the
    offered ranges, and kinds not offered, are refused."""
    actions = legal_actions(state, seat)
    assert actions, "the seat to act must have something to do"
    hand = state.hand
    assert hand is not None
    amounts: list[int] = []
    for action in actions:
        if action.kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.BLIND_BET):
            for amount in {action.minimum, action.maximum}:
                decide(state, action.command(seat, amount))
                amounts.append(amount)
        elif action.kind is not ActionKind.DISCARD:
            events = decide(state, action.command(seat))
            if action.kind is ActionKind.CHECK:
                assert isinstance(events[0], Checked)
            if action.kind is ActionKind.CALL:
                assert events[0] == Called(seat, action.minimum, action.label == "RESTO")
    kinds = {action.kind for action in actions}
    if amounts:
        for outside in (min(amounts) - 1, max(amounts) + 1):
            with pytest.raises(IllegalAction):
                decide(state, BetOrRaise(seat, outside))
    elif hand.phase is Phase.OPENING:
        for amount in {hand.current_bet + 1, hand.round_bets[seat] + stacks(state)[seat], hand.min_bet}:
            with pytest.raises(IllegalAction):
                decide(state, BetOrRaise(seat, amount))
    if hand.phase is Phase.OPENING:
        assert ActionKind.DECLINE_BLIND not in kinds
        with pytest.raises(IllegalAction):
            decide(state, DeclineBlind(seat))
        with pytest.raises(IllegalAction):
            decide(state, SayParol(seat))
        if ActionKind.CHECK not in kinds:
            assert isinstance(decide(state, CheckOrCall(seat))[0], Called)


@pytest.mark.parametrize("limit", list(Limit))
def test_legal_actions_every_offered_action_is_accepted_random_hands(limit: Limit) -> None:
    """Property (seeded random walks through the blind phase, the deal and the opening round, 2-6 players,
    short stacks included): every action legal_actions offers is accepted by decide, amounts just outside
    the ranges are refused, and a seat with no check offered calls."""
    for seed in range(150):
        rng = random.Random(seed)
        players = rng.randint(2, 6)
        chips = [rng.choice([4, 10, 25, 60, 200, 1000]) for _ in range(players)]
        state = table(chips, limit=limit)
        deck = list(Deck.italian(players).cards)
        rng.shuffle(deck)
        state = run(state, StartHand(deck=tuple(deck)))
        steps = 0
        while state.hand is not None and state.hand.phase in (Phase.BLIND, Phase.DEAL, Phase.OPENING):
            steps += 1
            assert steps < 200
            command = dealer_command(state)
            if command is not None:
                state = run(state, command)
                continue
            hand = state.hand
            assert hand is not None
            seat = hand.to_act
            assert seat is not None
            _check_offer(state, seat)
            action = rng.choice(legal_actions(state, seat))
            amount = rng.randint(action.minimum, action.maximum)
            state = run(state, action.command(seat, amount))
        assert chips_total(state) == sum(chips)


# --- refusals change nothing --------------------------------------------------------------------------------


def test_refusals_leave_the_state_untouched_and_the_game_goes_on() -> None:
    """A refused command raises and changes nothing: the state equals a deep copy taken before, and the
    next legal command produces the same events as on a state that never saw the refusals."""
    state = run(start(table([1000] * 4), FOUR), BetOrRaise(0, 20))
    pristine = copy.deepcopy(state)
    refusals: list[tuple[Command, type[IllegalAction]]] = [
        (BetOrRaise(1, 20), BadAmount),
        (BetOrRaise(1, 1000), BadAmount),
        (BetOrRaise(2, 40), NotYourTurn),
        (DeclineBlind(1), ActionNotAllowed),
        (SayParol(1), ParolNotAllowed),
        (DealCards(1, parse_cards("AsKsQsJsTs")), ActionNotAllowed),
        (StartHand(), IllegalAction),
    ]
    for command, error in refusals:
        with pytest.raises(error):
            decide(state, command)
        assert state == pristine
    assert decide(state, CheckOrCall(1)) == decide(pristine, CheckOrCall(1))
