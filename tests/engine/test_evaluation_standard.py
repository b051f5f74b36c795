"""Standard high ranking (TH-1, OM-1, FD-1, ST-1, CN-1, CN-2), with a differential test against treys and
phevaluator (reference libraries installed only for tests)."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from phevaluator import evaluate_cards as phe_evaluate
from treys import Card as TreysCard
from treys import Evaluator as TreysEvaluator

from engine.cards import Deck
from engine.evaluation import (
    Category,
    InvalidHand,
    evaluate_omaha,
    evaluate_standard,
    standard_evaluator,
    standard_winners,
)

HANDS_PER_SIZE = 100_000
SEED = 20261120


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


@pytest.fixture(scope="module")
def random_hands() -> dict[int, list[list[str]]]:
    """100,000 random hands of each size 5, 6, 7 from a fixed seed, as PHH card strings."""
    rng = random.Random(SEED)
    deck = [str(card) for card in Deck.standard().cards]
    return {size: [rng.sample(deck, size) for _ in range(HANDS_PER_SIZE)] for size in (5, 6, 7)}


@pytest.mark.parametrize("size", [5, 6, 7])
def test_differential_against_treys_and_phevaluator(
    random_hands: dict[int, list[list[str]]], size: int
) -> None:
    """Every consecutive pair of 100,000 random hands is ordered the same way by all three evaluators
    (treys and phevaluator rank 1 = best, so their order is reversed)."""
    codes = {str(card): card.code for card in Deck.standard().cards}
    key = standard_evaluator().key
    treys = TreysEvaluator()
    hands = random_hands[size]
    ours = [key([codes[c] for c in hand]) for hand in hands]
    theirs_phe = [phe_evaluate(*hand) for hand in hands]
    treys_hands = [[TreysCard.new(c) for c in hand] for hand in hands]
    theirs_treys = [treys.evaluate(h[:2], h[2:]) for h in treys_hands]
    disagreements = [
        (hands[i], hands[i + 1])
        for i, ((a, b), (pa, pb), (ta, tb)) in enumerate(
            zip(pairwise(ours), pairwise(theirs_phe), pairwise(theirs_treys), strict=True)
        )
        if not sign(a - b) == sign(pb - pa) == sign(tb - ta)
    ]
    assert disagreements == []
    assert len(ours) == HANDS_PER_SIZE


def test_fast_paths_agree_with_the_rich_api(random_hands: dict[int, list[list[str]]]) -> None:
    evaluator = standard_evaluator()
    codes = {str(card): card.code for card in Deck.standard().cards}
    for hand in random_hands[7][:2000]:
        value = evaluate_standard("".join(hand))
        c = [codes[x] for x in hand]
        assert value.key == evaluator.key7(*c) == evaluator.key(c)
        assert evaluator.key5(*(card.code for card in value.cards)) == value.key  # the five used
    for hand in random_hands[5][:2000]:
        assert evaluate_standard("".join(hand)).key == evaluator.key5(*(codes[x] for x in hand))


def test_category_order_full_house_beats_flush() -> None:
    order = [
        "AhKdJc9s8h",
        "JhJd9c8s7h",
        "JhJd9c9s7h",
        "JhJdJc9s7h",
        "KcQhJsTd9h",
        "AdKdJd9d8d",
        "JhJdJc8s8c",
        "QhQdQcQs7c",
        "KhQhJhTh9h",
    ]
    values = [evaluate_standard(h) for h in order]
    assert [v.category for v in values] == list(Category)
    assert all(a < b for a, b in pairwise(values))


def test_suits_never_count() -> None:
    assert evaluate_standard("KhQhTh9h8h").key == evaluate_standard("KsQsTs9s8s").key
    assert evaluate_standard("AhKsTd8c7c").key == evaluate_standard("AdKhTs8d7s").key


def test_wheel_is_the_lowest_straight() -> None:
    wheel = evaluate_standard("Ah2c3d4s5h")
    assert wheel.category is Category.STRAIGHT
    assert wheel < evaluate_standard("2c3d4s5h6d")
    assert wheel > evaluate_standard("AhAdAcKsQd")
    assert [str(c) for c in wheel.cards][-1] == "Ah"
    assert wheel.label_en == "Five-high straight (minimal)"


def test_best_five_of_seven_finds_the_straight_flush_inside_a_bigger_flush() -> None:
    value = evaluate_standard("9h8h7h6h5h2hAh")
    assert value.category is Category.STRAIGHT_FLUSH
    assert value.label_en == "Nine-high straight flush in hearts"
    assert sorted(str(c) for c in value.cards) == sorted(["9h", "8h", "7h", "6h", "5h"])


def test_best_five_of_seven_full_house_over_flush() -> None:
    value = evaluate_standard("KhKdKc2h2d9h7h")
    assert value.category is Category.FULL_HOUSE
    assert value.label_it == "Full di K"


def test_six_cards() -> None:
    assert evaluate_standard("AhAdKcKs2c2d").label_en == "Two pair, aces and kings"


# --- CN-2: 3-card hands -------------------------------------------------------------------------------------


def test_cn_2_three_card_categories_and_cross_size_comparison() -> None:
    trips = evaluate_standard("AhAdAc")
    assert trips.category is Category.THREE_OF_A_KIND
    assert trips > evaluate_standard("KhKdKcQsJs")  # higher trips rank
    assert trips < evaluate_standard("2c3d4s5h6d")  # any straight
    pair = evaluate_standard("AhAdKc")
    assert pair < evaluate_standard("AsAcKdQh2s")  # a present kicker beats a missing one
    assert pair > evaluate_standard("AsAcQdJh9s")  # but the king kicker is compared first
    assert evaluate_standard("AhKd9c") > evaluate_standard("AsKc8d7h6s")
    assert evaluate_standard("AhKd9c") < evaluate_standard("AsKc9d7h6s")


def test_cn_2_three_card_labels() -> None:
    assert evaluate_standard("7h7d7c").label_it == "Tris di 7"
    assert evaluate_standard("QhQd2c").label_it == "Coppia di Q"
    assert evaluate_standard("AhJd2c").label_it == "Carta alta: A"


# --- OM-1: Omaha -------------------------------------------------------------------------------------------


def test_om_1_exactly_two_hole_cards() -> None:
    # four hearts on the board and one in hand is no flush in Omaha
    value = evaluate_omaha("Ah2c3d4s", "KhQhJh9h5c")
    assert value.category is not Category.FLUSH
    # a single ace in hand with four board... the board's pair plus two hole cards
    assert evaluate_omaha("AhAd7c2s", "AcKs9h4d3c").category is Category.THREE_OF_A_KIND
    # four of a kind on the board can't be used with a single hole card
    assert evaluate_omaha("2h3d4c5s", "KhKdKcKs9h").category is Category.THREE_OF_A_KIND


def test_om_1_flush_with_two_suited_hole_cards() -> None:
    value = evaluate_omaha("AhTh2c3d", "KhQh9h5c4s")
    assert value.category is Category.FLUSH
    assert {str(c) for c in value.cards} == {"Ah", "Th", "Kh", "Qh", "9h"}


def test_omaha_input_errors() -> None:
    with pytest.raises(InvalidHand, match="3 to 5 board cards"):
        evaluate_omaha("AhTh2c3d", "KhQh")
    with pytest.raises(InvalidHand, match="repeated"):
        evaluate_omaha("AhTh2c3d", "AhQh9h")


# --- winners and split pots ---------------------------------------------------------------------------------


def test_winners_with_a_split() -> None:
    board = "AhKdQc7s2d"
    hands = [evaluate_standard(hole + board) for hole in ("JhTh", "JdTs", "AsAc", "9h9d")]
    assert standard_winners(hands) == (0, 1)  # two broadway straights split, over trips of aces
    assert standard_winners(hands[2:]) == (0,)


@pytest.mark.parametrize(
    ("cards", "message"), [("AhKh", "3, 5, 6, 7 cards, not 2"), ("AhKhQhJ", "odd number")]
)
def test_invalid_standard_hands(cards: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_standard(cards)


def test_winners_refuse_italian_values() -> None:
    from engine.evaluation import evaluate_italian

    with pytest.raises(InvalidHand, match="standard hands"):
        standard_winners([evaluate_italian("AhKhQhJhTh", Deck.italian(4))])
