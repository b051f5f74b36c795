"""Tests for engine.evaluation.opening: opening requirements (IT-OPEN-1, IT-OPEN-2), open-ended
straight-flush draws (IT-OPEN-3) with the deck in play (IT-DECK-1) and the scala minima (IT-RANK-2)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck, Rank, Suit, parse_cards
from engine.evaluation.common import Category, InvalidHand
from engine.evaluation.italian import evaluate_italian
from engine.evaluation.opening import (
    OPENING_RANKS,
    has_open_ended_straight_flush_draw,
    meets_opening,
    opening_rank,
)

REQUIREMENTS = ("J", "Q", "K")


def opens_at(hand: str, players: int) -> tuple[bool, bool, bool]:
    """Whether ``hand`` opens at J, Q and K with the deck for ``players``."""
    deck = Deck.italian(players)
    return tuple(meets_opening(hand, requirement, deck) for requirement in REQUIREMENTS)  # type: ignore[return-value]


# --------------------------------------------------------------------------------------------------------
# IT-OPEN-1 / IT-OPEN-2: pairs against the requirement
# --------------------------------------------------------------------------------------------------------


def test_it_open_1_pair_of_jacks_opens_at_jacks_only() -> None:
    assert opens_at("JhJd9c8s7h", 4) == (True, False, False)


def test_it_open_2_pair_of_queens_opens_at_jacks_and_queens() -> None:
    assert opens_at("QsQc9h8d7c", 4) == (True, True, False)


def test_it_open_2_pair_of_kings_opens_at_every_requirement() -> None:
    assert opens_at("KdKc9h8s7d", 4) == (True, True, True)


def test_it_open_2_pair_of_aces_opens_at_every_requirement() -> None:
    assert opens_at("AsAh9c8d7s", 4) == (True, True, True)


@pytest.mark.parametrize("hand", ["TsTc9h8d7c", "7h7dJcQsAh", "9h9d7cJsAd"])
def test_it_open_1_pair_below_jacks_does_not_open(hand: str) -> None:
    assert opens_at(hand, 4) == (False, False, False)


def test_it_open_1_high_card_does_not_open() -> None:
    assert opens_at("AhKd9c8s7h", 4) == (False, False, False)
    assert opens_at("AhKdQcJs9h", 4) == (False, False, False)


def test_it_open_1_two_low_pairs_open_even_at_kings() -> None:
    assert opens_at("8h8d7c7s9h", 4) == (True, True, True)
    assert opens_at("2h2d3c3s9h", 9) == (True, True, True)


@pytest.mark.parametrize(
    ("hand", "players", "category"),
    [
        ("7h7d7cJsQh", 4, Category.THREE_OF_A_KIND),
        ("7c8d9hTsJc", 4, Category.STRAIGHT),
        ("TcJdQhKsAc", 4, Category.STRAIGHT),  # scala massima
        ("Ah7c8d9sTc", 4, Category.STRAIGHT),  # scala minima with 32 cards (IT-RANK-2)
        ("Ac9dThJsQc", 2, Category.STRAIGHT),  # scala minima with 24 cards
        ("Ah2c3d4s5c", 9, Category.STRAIGHT),  # A-2-3-4-5 with the 2s in the deck
        ("7h9hJhKhQh", 4, Category.FLUSH),
        ("9h9d9cKsKh", 4, Category.FULL_HOUSE),
        ("8h8d8c8sAh", 4, Category.FOUR_OF_A_KIND),
        ("7h8h9hThJh", 4, Category.STRAIGHT_FLUSH),
        ("Ah7h8h9hTh", 4, Category.STRAIGHT_FLUSH),
    ],
)
def test_it_open_1_any_hand_better_than_a_pair_opens(hand: str, players: int, category: Category) -> None:
    assert evaluate_italian(hand, Deck.italian(players)).category is category
    assert opens_at(hand, players) == (True, True, True)


def test_it_rank_2_wrap_around_is_not_a_straight_and_does_not_open() -> None:
    """K-A-7-8-9 is not a straight (IT-RANK-2): just a high card."""
    assert evaluate_italian("Kc Ad 7h 8s 9c", Deck.italian(4)).category is Category.HIGH_CARD
    assert opens_at("KcAd7h8s9c", 4) == (False, False, False)


# --------------------------------------------------------------------------------------------------------
# IT-OPEN-3: open-ended straight-flush draws
# --------------------------------------------------------------------------------------------------------


def test_it_open_3_lowest_four_hearts_open_with_four_players() -> None:
    """7h8h9hTh with 7..A: completed by Jh above and by Ah below (the scala minima)."""
    assert opens_at("7h8h9hThKd", 4) == (True, True, True)
    deck = Deck.italian(4)
    assert evaluate_italian("7h8h9hThAh", deck).category is Category.STRAIGHT_FLUSH
    assert evaluate_italian("7h8h9hThJh", deck).category is Category.STRAIGHT_FLUSH


def test_it_open_3_middle_draw_opens() -> None:
    assert opens_at("8h9hThJhAs", 4) == (True, True, True)
    assert opens_at("9dTdJdQd7s", 4) == (True, True, True)


def test_it_open_3_top_draw_is_one_ended() -> None:
    """JhQhKhAh: only Th completes it (no wrap-around)."""
    assert opens_at("JhQhKhAh7c", 4) == (False, False, False)


def test_it_open_3_ace_low_draw_is_one_ended() -> None:
    """Ah7h8h9h with 7..A: only Th completes it (nothing below the ace)."""
    assert opens_at("Ah7h8h9hJc", 4) == (False, False, False)


def test_it_open_3_non_suited_run_does_not_open() -> None:
    assert opens_at("8h9dThJhAs", 4) == (False, False, False)


def test_it_open_3_gapped_draw_does_not_open() -> None:
    assert opens_at("8h9hJhQh7c", 4) == (False, False, False)


def test_it_open_3_nine_players_lowest_draw_opens_with_ace_or_six() -> None:
    assert opens_at("2h3h4h5hKc", 9) == (True, True, True)
    deck = Deck.italian(9)
    assert evaluate_italian("Ah2h3h4h5h", deck).category is Category.STRAIGHT_FLUSH
    assert evaluate_italian("6h2h3h4h5h", deck).category is Category.STRAIGHT_FLUSH


def test_it_open_3_nine_players_ace_two_three_four_is_one_ended() -> None:
    assert opens_at("Ah2h3h4hKc", 9) == (False, False, False)


def test_it_open_3_five_players_six_to_nine_opens_with_the_minima() -> None:
    """With 6..A, 6h7h8h9h is completed by Th and by Ah below the 6 (scala minima)."""
    assert opens_at("6h7h8h9hKc", 5) == (True, True, True)
    assert evaluate_italian("Ah6h7h8h9h", Deck.italian(5)).category is Category.STRAIGHT_FLUSH


def test_it_open_3_nine_players_six_to_nine_opens_with_five_or_ten() -> None:
    assert opens_at("6h7h8h9hKc", 9) == (True, True, True)


def test_it_open_3_five_players_ace_six_seven_eight_is_one_ended() -> None:
    assert opens_at("Ah6h7h8hKc", 5) == (False, False, False)


def test_it_open_3_depends_on_the_deck_in_play() -> None:
    """7h8h9hTh is open-ended with 4 players (A below the 7) and with 9 (6h); J-Q-K-A never is."""
    for players in (4, 5, 6, 9):
        assert opens_at("7h8h9hThKd", players) == (True, True, True), players
        assert opens_at("JsQsKsAs9c", players) == (False, False, False), players


def test_it_open_3_two_players_draws() -> None:
    """With 9..A every draw is paired or a straight; a pair of 9s with 9TJQ suited still opens at K."""
    assert opens_at("9hThJhQh9c", 2) == (True, True, True)
    assert opens_at("ThJhQhKhTc", 2) == (True, True, True)
    assert opens_at("JhQhKhAhJc", 2) == (True, False, False)  # only the pair of jacks counts


def test_it_open_3_ace_ten_jack_queen_with_24_cards_is_not_in_sequence() -> None:
    """With 9..A, A♣10♣J♣Q♣ has two straight-flush outs (9♣ makes the minima A-9-10-J-Q, K♣ the massima),
    but neither sits at an end of four cards in sequence: read literally, IT-OPEN-3 does not apply."""
    deck = Deck.italian(2)
    assert evaluate_italian("Ac9cTcJcQc", deck).category is Category.STRAIGHT_FLUSH
    assert evaluate_italian("AcKcTcJcQc", deck).category is Category.STRAIGHT_FLUSH
    assert not has_open_ended_straight_flush_draw(parse_cards("AcTcJcQc"), deck)
    assert opens_at("AcTcJcQcTd", 2) == (False, False, False)  # pair of tens only


def test_it_open_3_pair_below_the_requirement_plus_draw_opens() -> None:
    assert opens_at("7h8h9hTh7c", 4) == (True, True, True)
    assert opens_at("7h8h9hJh7c", 4) == (False, False, False)  # same pair, gapped draw


def test_it_open_3_draw_in_any_suit() -> None:
    for suit in "cdhs":
        hand = f"8{suit}9{suit}T{suit}J{suit}" + ("As" if suit != "s" else "Ah")
        assert opens_at(hand, 4) == (True, True, True), hand


def test_has_open_ended_straight_flush_draw_directly() -> None:
    deck = Deck.italian(4)
    assert has_open_ended_straight_flush_draw(parse_cards("7h8h9hTh"), deck)
    assert has_open_ended_straight_flush_draw(parse_cards("KsQsJsTs"), deck)
    assert not has_open_ended_straight_flush_draw(parse_cards("KsQsJsAs"), deck)
    assert not has_open_ended_straight_flush_draw(parse_cards("7h8h9h"), deck)
    assert not has_open_ended_straight_flush_draw((), deck)


# --------------------------------------------------------------------------------------------------------
# Requirement and hand validation
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requirement", "rank"),
    [("J", Rank.JACK), ("Q", Rank.QUEEN), ("K", Rank.KING), (Rank.JACK, Rank.JACK), (Rank.KING, Rank.KING)],
)
def test_requirement_as_symbol_or_rank(requirement: str | Rank, rank: Rank) -> None:
    assert opening_rank(requirement) is rank
    assert OPENING_RANKS == (Rank.JACK, Rank.QUEEN, Rank.KING)


def test_requirement_as_rank_opens_like_the_symbol() -> None:
    deck = Deck.italian(4)
    for hand in ("JhJd9c8s7h", "QsQc9h8d7c", "AhKd9c8s7h"):
        for symbol, rank in zip(REQUIREMENTS, OPENING_RANKS, strict=True):
            assert meets_opening(hand, rank, deck) == meets_opening(hand, symbol, deck)


@pytest.mark.parametrize("requirement", ["A", "T", "10", "j", "", "JJ", Rank.ACE, Rank.TEN, Rank.TWO])
def test_other_requirements_are_refused(requirement: str | Rank) -> None:
    with pytest.raises(ValueError, match=r"the opening requirement is a pair of J, Q or K \(IT-OPEN-2\)"):
        opening_rank(requirement)
    with pytest.raises(ValueError, match=r"pair of J, Q or K"):
        meets_opening("JhJd9c8s7h", requirement, Deck.italian(4))


def test_four_cards_are_refused() -> None:
    with pytest.raises(InvalidHand, match=r"an Italian hand has 5 cards, not 4"):
        meets_opening(parse_cards("JhJd9c8s"), "J", Deck.italian(4))


def test_six_cards_are_refused() -> None:
    with pytest.raises(InvalidHand, match=r"an Italian hand has 5 cards, not 6"):
        meets_opening(parse_cards("JhJd9c8s7hAs"), "J", Deck.italian(4))


def test_repeated_card_is_refused() -> None:
    jack = Card(Rank.JACK, Suit.HEARTS)
    hand = (jack, jack, *parse_cards("9c8s7h"))
    with pytest.raises(InvalidHand, match=r"a card is repeated in JhJh9c8s7h"):
        meets_opening(hand, "J", Deck.italian(4))


def test_repeated_card_in_text_is_refused() -> None:
    with pytest.raises(ValueError, match=r"card Jh is listed twice"):
        meets_opening("JhJh9c8s7h", "J", Deck.italian(4))


def test_card_outside_the_deck_is_refused() -> None:
    with pytest.raises(InvalidHand, match=r"6h is not in the deck in play \(lowest rank 7, rule IT-DECK-1\)"):
        meets_opening("JhJd9c8s6h", "J", Deck.italian(4))
    assert meets_opening("JhJd9c8s6h", "J", Deck.italian(5))


# --------------------------------------------------------------------------------------------------------
# Properties, with an independent oracle for IT-OPEN-3
# --------------------------------------------------------------------------------------------------------


def oracle_draw(hand: tuple[Card, ...], deck: Deck) -> bool:
    """IT-OPEN-3 by brute force: four suited cards that one card of the deck completes into a straight flush
    as its top card and another as its bottom card (the ace of a scala minima is the bottom), i.e. four
    cards in sequence completable at both ends. ``HandValue.cards`` lists a straight from the top down, the
    ace last in a scala minima."""
    for four in combinations(hand, 4):
        if len({card.suit for card in four}) != 1:
            continue
        top = bottom = False
        for card in deck.cards:
            if card in four or card.suit is not four[0].suit:
                continue
            value = evaluate_italian((*four, card), deck)
            if value.category is Category.STRAIGHT_FLUSH:
                top = top or value.cards[0] == card
                bottom = bottom or value.cards[-1] == card
        if top and bottom:
            return True
    return False


def oracle_opens(hand: tuple[Card, ...], needed: Rank, deck: Deck) -> bool:
    category = evaluate_italian(hand, deck).category
    if category not in (Category.HIGH_CARD, Category.PAIR):
        return True
    counts = Counter(card.rank for card in hand)
    if category is Category.PAIR and max(counts, key=lambda rank: counts[rank]) >= needed:
        return True
    return oracle_draw(hand, deck)


@pytest.mark.parametrize("players", range(2, 10))
def test_it_open_3_every_four_card_suited_combination_agrees_with_the_oracle(players: int) -> None:
    deck = Deck.italian(players)
    hearts = [card for card in deck.cards if card.suit is Suit.HEARTS]
    found = []
    for four in combinations(hearts, 4):
        expected = oracle_draw(four, deck)
        assert has_open_ended_straight_flush_draw(four, deck) == expected, four
        if expected:
            found.append(min(card.rank for card in four))
    # the runs starting at the lowest rank up to the one ending at the king (ace low and high both count)
    assert sorted(found) == list(range(11 - players, 14 - 3))


@st.composite
def random_hands(draw: st.DrawFn) -> tuple[Deck, tuple[Card, ...]]:
    deck = Deck.italian(draw(st.integers(min_value=2, max_value=9)))
    cards = draw(st.lists(st.sampled_from(deck.cards), min_size=5, max_size=5, unique=True))
    return deck, tuple(cards)


@st.composite
def draw_like_hands(draw: st.DrawFn) -> tuple[Deck, tuple[Card, ...]]:
    """Four cards of one suit inside a window of five consecutive ranks (the ace low or high), plus one."""
    deck = Deck.italian(draw(st.integers(min_value=2, max_value=9)))
    ladder = (Rank.ACE, *deck.ranks)
    start = draw(st.integers(min_value=0, max_value=len(ladder) - 5))
    ranks = draw(st.lists(st.sampled_from(ladder[start : start + 5]), min_size=4, max_size=4, unique=True))
    suit = draw(st.sampled_from(list(Suit)))
    four = [Card(rank, suit) for rank in ranks]
    fifth = draw(st.sampled_from([card for card in deck.cards if card not in four]))
    return deck, (*four, fifth)


hands = st.one_of(random_hands(), draw_like_hands())


@settings(max_examples=300)
@given(hands)
def test_opening_is_monotonic_in_the_requirement(deck_and_hand: tuple[Deck, tuple[Card, ...]]) -> None:
    deck, hand = deck_and_hand
    at_j, at_q, at_k = (meets_opening(hand, requirement, deck) for requirement in REQUIREMENTS)
    if at_k:
        assert at_q
    if at_q:
        assert at_j


@settings(max_examples=300)
@given(hands)
def test_two_pair_or_better_always_opens(deck_and_hand: tuple[Deck, tuple[Card, ...]]) -> None:
    deck, hand = deck_and_hand
    value = evaluate_italian(hand, deck)
    if value.category not in (Category.HIGH_CARD, Category.PAIR):
        assert all(meets_opening(hand, requirement, deck) for requirement in REQUIREMENTS)


@settings(max_examples=300)
@given(hands)
def test_meets_opening_agrees_with_a_brute_force_oracle(deck_and_hand: tuple[Deck, tuple[Card, ...]]) -> None:
    deck, hand = deck_and_hand
    for requirement, needed in zip(REQUIREMENTS, OPENING_RANKS, strict=True):
        assert meets_opening(hand, requirement, deck) == oracle_opens(hand, needed, deck), requirement
    assert has_open_ended_straight_flush_draw(hand, deck) == oracle_draw(hand, deck)


@given(hands)
def test_opening_ignores_the_order_of_the_cards(deck_and_hand: tuple[Deck, tuple[Card, ...]]) -> None:
    deck, hand = deck_and_hand
    for requirement in REQUIREMENTS:
        assert meets_opening(hand, requirement, deck) == meets_opening(hand[::-1], requirement, deck)
