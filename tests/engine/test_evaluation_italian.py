"""Italian hand ranking: rules IT-DECK-1, IT-SUIT, IT-RANK-1..4.

The fast key is checked against ``reference_key``, a deliberately plain transcription of IT-RANK-1..3
(tuples, one branch per category), on random hands of every deck.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck, Rank, parse_cards
from engine.evaluation import (
    Category,
    InvalidHand,
    MinimalBeatsRoyal,
    best_italian_hand,
    evaluate_italian,
    italian_evaluator,
    italian_pot_winners,
)

SUIT = {"h": 3, "d": 2, "c": 1, "s": 0}  # IT-SUIT: cuori > quadri > fiori > picche


def reference_key(cards: tuple[Card, ...], lowest: int) -> tuple[object, ...]:
    """IT-RANK-1..3 read literally: (category, tie-breaks…, decision: made cards' suits high to low)."""
    ranks = sorted((int(c.rank) for c in cards), reverse=True)
    counts = Counter(ranks)
    suit_of: dict[int, list[int]] = {}
    for c in cards:
        suit_of.setdefault(int(c.rank), []).append(SUIT[c.suit.value])
    for suits in suit_of.values():
        suits.sort(reverse=True)
    flush = len({c.suit for c in cards}) == 1
    top = 0
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            top = ranks[0]
        elif sorted(ranks) == [lowest, lowest + 1, lowest + 2, lowest + 3, 14]:
            top = lowest + 3  # scala minima: the ace sits below the lowest rank
    by_count = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    singles = [r for r in ranks if counts[r] == 1]
    made = sorted((r for r in counts if counts[r] > 1), reverse=True)
    made_suits = tuple(s for r in made for s in suit_of[r])
    kicker_suits = tuple(suit_of[r][0] for r in singles)
    if top and flush:
        return (8, top, SUIT[cards[0].suit.value])
    if 4 in counts.values():
        return (7, by_count[0], by_count[1], kicker_suits, made_suits)
    if flush:
        return (6, SUIT[cards[0].suit.value], tuple(ranks))
    if sorted(counts.values()) == [2, 3]:
        return (5, by_count[0], by_count[1], made_suits)
    if top:
        order = sorted(cards, key=lambda c: 1 if (c.rank == 14 and top != 14) else int(c.rank), reverse=True)
        return (4, top, tuple(SUIT[c.suit.value] for c in order))
    if 3 in counts.values():
        return (3, by_count[0], tuple(singles), kicker_suits, made_suits)
    if list(counts.values()).count(2) == 2:
        return (2, made[0], made[1], singles[0], kicker_suits, made_suits)
    if 2 in counts.values():
        return (1, by_count[0], tuple(singles), kicker_suits, made_suits)
    return (0, tuple(ranks), tuple(suit_of[r][0] for r in ranks))


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def cmp_ref(a: tuple[Card, ...], b: tuple[Card, ...], lowest: int) -> int:
    ka, kb = reference_key(a, lowest), reference_key(b, lowest)
    return (ka > kb) - (ka < kb)


def ev(text: str, players: int = 4):  # type: ignore[no-untyped-def]
    return evaluate_italian(text, Deck.italian(players))


@st.composite
def deck_and_hands(
    draw: st.DrawFn, count: int = 2, shared: bool = True
) -> tuple[Deck, list[tuple[Card, ...]]]:
    """A random Italian deck and ``count`` 5-card hands from it (overlapping if ``shared``)."""
    deck = Deck.italian(draw(st.integers(2, 9)))
    if shared:
        hands = [tuple(draw(st.permutations(deck.cards))[:5]) for _ in range(count)]
    else:
        order = draw(st.permutations(deck.cards))
        hands = [tuple(order[5 * i : 5 * i + 5]) for i in range(count)]
    return deck, hands


# --- IT-RANK-1: category order -------------------------------------------------------------------------


def test_it_rank_1_category_order_flush_above_full_house() -> None:
    hands = [
        "AhKdJc9s8h",  # high card
        "JhJd9c8s7h",  # pair
        "JhJd9c9s7h",  # two pair
        "JhJdJc9s7h",  # three of a kind
        "KcQhJsTd9h",  # straight
        "JhJdJc8s8c",  # full house
        "AdKdJd9d8d",  # flush
        "QhQdQcQs7c",  # four of a kind
        "KhQhJhTh9h",  # straight flush
    ]
    values = [ev(h) for h in hands]
    assert [v.category for v in values] == [
        Category.HIGH_CARD,
        Category.PAIR,
        Category.TWO_PAIR,
        Category.THREE_OF_A_KIND,
        Category.STRAIGHT,
        Category.FULL_HOUSE,
        Category.FLUSH,
        Category.FOUR_OF_A_KIND,
        Category.STRAIGHT_FLUSH,
    ]
    assert all(weaker < stronger for weaker, stronger in pairwise(values))


def test_it_rank_1_lowest_flush_beats_highest_full_house() -> None:
    assert ev("9s8s7sTsQs") > ev("AhAdAcKsKc")


# --- IT-RANK-2: straights --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 10))
def test_it_rank_2_scala_minima_for_every_deck(players: int) -> None:
    deck = Deck.italian(players)
    low = int(deck.lowest_rank)

    def sym(rank: int) -> str:
        return Rank(rank).symbol

    minima = evaluate_italian(f"Ac{sym(low)}d{sym(low + 1)}h{sym(low + 2)}s{sym(low + 3)}c", deck)
    next_up = evaluate_italian(
        f"{sym(low)}d{sym(low + 1)}h{sym(low + 2)}s{sym(low + 3)}c{sym(low + 4)}d", deck
    )
    assert minima.category is Category.STRAIGHT
    assert minima.label_it == "Scala minima"
    assert minima.cards[-1].rank == Rank.ACE  # the ace plays low: least significant card
    assert minima < next_up
    assert minima > evaluate_italian("AhAdAsKcQc", deck)  # still a straight: above three of a kind


def test_it_rank_2_minima_is_the_lowest_straight_and_massima_the_highest() -> None:
    minima, next_up, massima = ev("Ah7c8d9sTh"), ev("7c8d9sThJc"), ev("TcJdQsKhAh")
    assert minima < next_up < massima
    assert (minima.label_it, massima.label_it) == ("Scala minima", "Scala massima")
    assert minima.category is massima.category is Category.STRAIGHT


def test_it_rank_2_no_wrap_around() -> None:
    assert ev("KhAd7c8s9h").category is Category.HIGH_CARD
    assert ev("QhKdAc7s8h").category is Category.HIGH_CARD


def test_it_rank_2_a2345_only_when_the_deck_holds_the_twos() -> None:
    wheel = evaluate_italian("Ah2c3d4s5h", Deck.italian(9))
    assert wheel.category is Category.STRAIGHT and wheel.label_it == "Scala minima"
    with pytest.raises(InvalidHand, match="not in the deck in play"):
        evaluate_italian("Ah2c3d4s5h", Deck.italian(5))


def test_it_rank_2_five_players_a6789_beats_three_kings() -> None:
    assert ev("Ah6c7d8s9h", 5) > ev("KhKdKc9s7c", 5)


def test_it_rank_2_straight_needs_two_suits_else_it_is_a_straight_flush() -> None:
    same_suit = ev("Ah7h8h9hTh")
    assert same_suit.category is Category.STRAIGHT_FLUSH
    assert same_suit.label_it == "Scala reale minima a cuori"


# --- IT-RANK-3: ties ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("better", "worse", "why"),
    [
        ("AhKsTd8c7c", "AdKhTs8d7s", "high card: suits from the top card down"),
        ("AsKsTd8c7c", "AhQhTs8d7s", "high card: all ranks before any suit"),
        ("KhJcTdTc7s", "KcJhTsTh7d", "pair: kicker suits from the highest kicker"),
        ("KsQcTdTc7s", "KhJhTsTh7d", "pair: kicker ranks before kicker suits"),
        ("AsAc9d8c7s", "KhKd9s8s7h", "pair: pair rank first"),
        ("QcQs9d9c8h", "QhQd9h9s8s", "two pair: kicker suit"),
        ("QcQs9d9c8h", "QhQd8h8s9s", "two pair: low pair before kicker"),
        ("8h8d8cKsQc", "8s8h8dKhJh", "three of a kind: kickers as high card"),
        ("KhQcJsTd9h", "KcQhJsTd9s", "straight: suit of the top card"),
        ("KcQhJsTd9h", "KcQdJsTd9h", "straight: then the next card's suit"),
        ("Ah7c8d9sTh", "Ac7d8h9hTs", "two scala minima: suits from the ten down"),
        ("Ac7d8h9hTh", "Ah7c8d9sTs", "scala minima: the ace's suit counts last"),
        ("8h8d8cKsKc", "7h7d7cAhAd", "full house: trips rank first"),
        ("KhQhTh9h8h", "AsKsJs9s8s", "flush: suit before ranks (seed 000)"),
        ("AhQhTh9h8h", "KhQhTh9h8h", "flush: same suit, then ranks"),
        ("QhQdQcQs8c", "JhJdJcJsAh", "four of a kind: quad rank"),
        ("KhQhJhTh9h", "KdQdJdTd9d", "straight flush: top card then suit"),
        ("8s9sTsJsQs", "7h8h9hThJh", "straight flush: top card before suit"),
    ],
)
def test_it_rank_3_tie_breaks(better: str, worse: str, why: str) -> None:
    assert ev(better) > ev(worse), why


def test_it_rank_3_decision_made_cards_suits_when_kickers_are_shared() -> None:
    """Decision (docs/rules-decisions.md): still tied → suits of the made cards, highest rank first."""
    # pair of kings with the same kickers (shared in Telesina): the pair's best suit decides
    assert ev("KhKs9s8s7s") > ev("KdKc9s8s7s")
    # full house 8-8-8 K-K with shared eights: the kings (higher rank) are compared first
    assert ev("8h8d8sKhKd") > ev("8h8d8cKcKs")


def test_it_rank_3_different_hands_never_tie_exhaustively_up_to_32_cards() -> None:
    """Two different 5-card hands never tie (every key distinct), checked on all hands of 24–32 cards."""
    for players in (2, 3, 4):
        deck = Deck.italian(players)
        key5 = italian_evaluator(deck).key5
        codes = [card.code for card in deck.cards]
        keys = {key5(*five) for five in combinations(codes, 5)}
        assert len(keys) == len(list(combinations(codes, 5))), players


@settings(max_examples=3000)
@given(deck_and_hands())
def test_it_rank_fast_key_agrees_with_the_reference_reading(
    data: tuple[Deck, list[tuple[Card, ...]]],
) -> None:
    deck, (a, b) = data
    fast = sign(evaluate_italian(a, deck).key - evaluate_italian(b, deck).key)
    assert fast == cmp_ref(a, b, int(deck.lowest_rank)), (a, b)


@settings(max_examples=500)
@given(deck_and_hands(count=3))
def test_it_rank_total_order_antisymmetric_and_transitive(data: tuple[Deck, list[tuple[Card, ...]]]) -> None:
    deck, hands = data
    a, b, c = (evaluate_italian(h, deck) for h in hands)
    assert (a < b) == (b > a)
    assert (a <= b) or (b <= a)
    if a <= b and b <= c:
        assert a <= c
    if set(hands[0]) != set(hands[1]):
        assert a.key != b.key


@settings(max_examples=500)
@given(deck_and_hands(count=2, shared=False))
def test_it_rank_disjoint_hands_never_tie(data: tuple[Deck, list[tuple[Card, ...]]]) -> None:
    deck, (a, b) = data
    assert evaluate_italian(a, deck).key != evaluate_italian(b, deck).key


def test_key_does_not_depend_on_card_order() -> None:
    deck = Deck.italian(4)
    cards = parse_cards("Ah7c8d9sTh")
    keys = {evaluate_italian(p, deck).key for p in [cards, cards[::-1], cards[2:] + cards[:2]]}
    assert len(keys) == 1


# --- best of more cards, IT-RANK-4 and the result value ---------------------------------------------------


def test_best_italian_hand_picks_the_best_five() -> None:
    best = best_italian_hand("KhQhTh9h8hAsAd", Deck.italian(4))
    assert best.category is Category.FLUSH  # a flush beats the pair of aces and any full-house-free five
    assert {str(c) for c in best.cards} == {"Kh", "Qh", "Th", "9h", "8h"}


def test_it_rank_4_minimal_spade_straight_flush_beats_royal_hearts() -> None:
    deck = Deck.italian(4)
    hands = [evaluate_italian(h, deck) for h in ["AhKhQhJhTh", "As7s8s9sTs", "KdKcKs7c7d"]]
    assert italian_pot_winners(hands) == (1,)
    assert italian_pot_winners(hands, MinimalBeatsRoyal.OFF) == (0,)


def test_it_rank_4_applies_only_against_the_royal_of_hearts() -> None:
    deck = Deck.italian(4)
    royal_diamonds = [evaluate_italian(h, deck) for h in ["AdKdQdJdTd", "As7s8s9sTs"]]
    assert italian_pot_winners(royal_diamonds) == (0,)
    minimal_hearts = [evaluate_italian(h, deck) for h in ["AsKsQsJsTs", "Ah7h8h9hTh"]]
    assert italian_pot_winners(minimal_hearts) == (0,)


def test_it_rank_4_minimal_spades_depends_on_the_deck() -> None:
    deck = Deck.italian(6)  # lowest rank 5: the minimal spade straight flush is A-5-6-7-8
    hands = [evaluate_italian(h, deck) for h in ["AhKhQhJhTh", "As5s6s7s8s"]]
    assert italian_pot_winners(hands) == (1,)


def test_pot_winners_errors() -> None:
    with pytest.raises(InvalidHand, match="at least one contender"):
        italian_pot_winners([])
    mixed = [ev("AhKhQhJhTh", 4), ev("AhKhQhJhTh", 5)]
    with pytest.raises(InvalidHand, match="same deck"):
        italian_pot_winners(mixed)


@pytest.mark.parametrize(
    ("hand", "players", "label_it", "label_en"),
    [
        ("KhQhTh9h8h", 4, "Colore a cuori al K", "King-high flush in hearts"),
        ("AsKsJs9s8s", 4, "Colore a picche all'A", "Ace-high flush in spades"),
        ("Ah7c8d9sTh", 4, "Scala minima", "Ten-high straight (minimal)"),
        ("JhJsJc8s8c", 4, "Full di J", "Full house, jacks full of eights"),
        ("AhKdJc9s8h", 4, "Carta alta: A", "Ace high"),
        ("JhJd9c8s7h", 4, "Coppia di J", "Pair of jacks"),
        ("TcTd9c9s7h", 4, "Doppia coppia di 10 e 9", "Two pair, tens and nines"),
        ("8h8d8cKsQc", 4, "Tris di 8", "Three eights"),
        ("KcQhJsTd9h", 4, "Scala al K", "King-high straight"),
        ("TcJdQsKhAh", 4, "Scala massima", "Ace-high straight"),
        ("QhQdQcQs7c", 4, "Poker di Q", "Four queens"),
        ("KhQhJhTh9h", 4, "Scala reale a cuori al K", "King-high straight flush in hearts"),
        ("AhKhQhJhTh", 4, "Scala reale massima a cuori", "Royal flush in hearts"),
        ("As7s8s9sTs", 4, "Scala reale minima a picche", "Ten-high straight flush in spades (minimal)"),
        ("6h6d6c6s8c", 6, "Poker di 6", "Four sixes"),
    ],
)
def test_labels_in_italian_and_english(hand: str, players: int, label_it: str, label_en: str) -> None:
    value = ev(hand, players)
    assert (value.label_it, value.label_en) == (label_it, label_en)


def test_cards_used_are_in_significance_order() -> None:
    assert [str(c) for c in ev("7h8c8d8hKs").cards] == ["8h", "8d", "8c", "Ks", "7h"]
    assert [str(c) for c in ev("Ah7c8d9sTh").cards] == ["Th", "9s", "8d", "7c", "Ah"]


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        ("AhKhQhJh", "5 cards, not 4"),
        ("AhKhQhJhThTc", "5 cards, not 6"),
        ("6hKhQhJhTh", "6h is not in the deck in play"),
    ],
)
def test_invalid_hands_are_refused(cards: str, message: str) -> None:
    with pytest.raises(InvalidHand, match=message):
        ev(cards)


def test_repeated_card_is_refused() -> None:
    card = parse_cards("Ah")[0]
    with pytest.raises(InvalidHand, match="repeated"):
        italian_evaluator(Deck.italian(4)).evaluate([card, card, *parse_cards("KhQhJh")])


def test_values_of_different_decks_do_not_compare() -> None:
    with pytest.raises(TypeError, match="different rankings or decks"):
        _ = ev("AhKhQhJhTh", 4) < ev("AhKhQhJhTh", 5)
