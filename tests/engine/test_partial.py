"""Tests for engine.evaluation.partial: Telesina's best visible hand and first speaker (TL-ACT-1), with
suits in the Italian order (IT-SUIT) and ties broken as in IT-RANK-3."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck, Rank, Suit, parse_cards
from engine.evaluation.common import Category, HandValue, InvalidHand
from engine.evaluation.italian import best_italian_hand, evaluate_italian
from engine.evaluation.partial import evaluate_visible, first_to_speak

DECK4 = Deck.italian(4)  # 7..A, 32 cards
DECK9 = Deck.italian(9)  # 2..A, 52 cards


def visible(text: str, deck: Deck = DECK4) -> HandValue:
    return evaluate_visible(text, deck)


def assert_order(*texts: str, deck: Deck = DECK4) -> None:
    """The visible hands, given from worst to best, have strictly increasing values."""
    values = [visible(text, deck) for text in texts]
    for worse, better in pairwise(values):
        assert worse < better, (worse.label_en, better.label_en)
        assert not better < worse
        assert worse.key != better.key


# --------------------------------------------------------------------------------------------------------
# Categories with fewer than five cards
# --------------------------------------------------------------------------------------------------------


def test_tl_act_1_category_order_high_pair_two_pair_trips_quads() -> None:
    """high card < pair < two pair < three of a kind < four of a kind (two pair does NOT beat trips)."""
    assert_order("AhKdQcJs", "7s7c", "8s8c7s7c", "7h7d7c", "7h7d7c7s")
    assert_order("AhAdKhKd", "7h7d7c")
    assert_order("AhAdAc", "7h7d7c7s")


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("Ah", Category.HIGH_CARD),
        ("AhKd", Category.HIGH_CARD),
        ("AhKdQc", Category.HIGH_CARD),
        ("AhKdQcJs", Category.HIGH_CARD),
        ("KhKd", Category.PAIR),
        ("KhKd7s", Category.PAIR),
        ("KhKd7s8c", Category.PAIR),
        ("KhKd9h9d", Category.TWO_PAIR),
        ("8h8d8c", Category.THREE_OF_A_KIND),
        ("8h8d8cAs", Category.THREE_OF_A_KIND),
        ("QhQdQcQs", Category.FOUR_OF_A_KIND),
    ],
)
def test_tl_act_1_categories_of_partial_hands(text: str, category: Category) -> None:
    assert visible(text).category is category


def test_tl_act_1_pair_beats_any_high_cards() -> None:
    for high in ("Ah", "AhKh", "AhKhQh", "AhKhQhJh", "AsKdQcJh"):
        assert visible("7s7c") > visible(high), high
    assert visible("2s2c", DECK9) > visible("AhKhQhJh", DECK9)  # the lowest pair of the 52-card deck


def test_tl_act_1_four_suited_cards_in_sequence_are_just_high_cards() -> None:
    """No straights and no flushes with fewer than five cards."""
    run = visible("7h8h9hTh")
    assert run.category is Category.HIGH_CARD
    assert run.label_it == "Carta alta: 10"
    assert visible("7s7c") > run
    assert visible("JcAs") > run  # the ace high beats the ten high
    assert visible("AhKhQhJh").category is Category.HIGH_CARD
    assert visible("8h9dTcJs").category is Category.HIGH_CARD


def test_tl_act_1_high_cards_compare_ranks_first_from_the_highest_card() -> None:
    assert_order("Kh7h", "Ks8c")  # K-8 beats K-7 whatever the suits
    assert_order("KhQhJhTh", "As")  # one ace beats four lower cards
    assert_order("Ah9h8h", "Ac9sTs")  # A-T-9 beats A-9-8


def test_tl_act_1_high_cards_then_suits_from_the_highest_card_down() -> None:
    """IT-SUIT: ♥ > ♦ > ♣ > ♠; the highest card's suit decides first."""
    assert_order("As", "Ac", "Ad", "Ah")
    assert_order("Ad9h", "Ah9s")  # A♥ beats A♦ even though 9♠ is below 9♥
    assert_order("KsQd8h", "KsQh8h", "KcQs8s")
    assert_order("Kh9s", "Kh9c", "Kh9d", "Kh9h")


def test_tl_act_1_same_pair_kicker_rank_decides_first() -> None:
    assert_order("KhKd8s", "KcKs9s")


def test_tl_act_1_same_pair_and_kicker_kicker_suit_decides_before_pair_suits() -> None:
    assert_order("KhKd9d", "KcKs9h")
    assert_order("KhKdAs9h", "KcKsAc9s")  # highest kicker's suit first


def test_tl_act_1_same_pair_without_kickers_pair_suits_decide() -> None:
    assert_order("KdKc", "KhKs")  # the K♥ is the best card of the made pair
    assert_order("KhKs7d", "KdKc7h")  # with a kicker, the kicker suit comes before the pair suits


def test_tl_act_1_two_pair_and_trips_ties() -> None:
    assert_order("KhKd8h8d", "KcKs9c9s")  # higher low pair
    assert_order("KcKs9c9s", "KhKd9h9d")  # same ranks: suits of the high pair first
    assert_order("8h8d8cAh", "9s9c9dTs")  # trips rank before kicker
    assert_order("8h8d8sKs", "8c8d8sKh")  # same trips rank and kicker rank: kicker suit first
    assert_order("8d8c8s", "8h8c8s")  # no kicker: the suits of the trips


def test_tl_act_1_a_present_card_beats_a_missing_one() -> None:
    """Module doc: a partial hand compares with another of any size "a present card beating a missing one"."""
    assert_order("KhKd", "KcKs7s")  # same pair, a 7 kicker (the lowest rank in play) beats no kicker
    assert_order("Kh", "Ks7s")
    assert_order("AhKh", "AsKs7s")
    assert_order("8h8d8c", "8s8c8d7s")
    assert_order("2h2d", "2c2s3s", deck=DECK9)


def test_tl_act_1_rank_beats_card_count() -> None:
    assert_order("KsQsJs9s", "Ah")
    assert_order("QhQdAsKs", "KcKs")


# --------------------------------------------------------------------------------------------------------
# Five or more cards: the Italian ranking
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["7h8h9hThJh", "7h8h9hThAs", "AhKdQcJs9h", "KhKd9h9d7c", "8h8d8c8sAh", "7h9hJhKhQh", "9h9d9cKsKh"],
)
def test_tl_act_1_five_visible_cards_use_the_italian_evaluation(text: str) -> None:
    mine, expected = visible(text), evaluate_italian(text, DECK4)
    assert (mine.key, mine.category, mine.cards, mine.label_it) == (
        expected.key,
        expected.category,
        expected.cards,
        expected.label_it,
    )


def test_tl_act_1_five_visible_cards_do_make_straights_and_flushes() -> None:
    assert visible("7h8d9hThJh").category is Category.STRAIGHT
    assert visible("Ah7c8d9sTc").label_it == "Scala minima"
    assert visible("7h9hJhKhQh").category is Category.FLUSH
    assert visible("7h8d9hThJh") > visible("AhAdAcKs")


def test_tl_act_1_more_than_five_visible_cards_use_the_best_five() -> None:
    text = "7h8h9hThJhAsAd"
    mine, expected = visible(text), best_italian_hand(text, DECK4)
    assert mine.key == expected.key
    assert mine.label_it == "Scala reale a cuori al J"


# --------------------------------------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "label_it", "label_en"),
    [
        ("KhKd", "Coppia di K", "Pair of kings"),
        ("Kh7sKd", "Coppia di K", "Pair of kings"),
        ("Ah", "Carta alta: A", "Ace high"),
        ("9sAhKd", "Carta alta: A", "Ace high"),
        ("ThTd", "Coppia di 10", "Pair of tens"),
        ("8h8d8c", "Tris di 8", "Three eights"),
        ("KhKd9h9d", "Doppia coppia di K e 9", "Two pair, kings and nines"),
        ("9h9dKhKd", "Doppia coppia di K e 9", "Two pair, kings and nines"),
        ("QhQdQcQs", "Poker di Q", "Four queens"),
    ],
)
def test_tl_act_1_labels(text: str, label_it: str, label_en: str) -> None:
    value = visible(text)
    assert value.label_it == label_it
    assert value.label_en == label_en
    assert str(value) == label_en


def test_tl_act_1_cards_listed_most_significant_first() -> None:
    assert "".join(map(str, visible("7sKhAdKc").cards)) == "KhKcAd7s"
    assert "".join(map(str, visible("9s9hKhKd").cards)) == "KhKd9h9s"


# --------------------------------------------------------------------------------------------------------
# first_to_speak
# --------------------------------------------------------------------------------------------------------


def test_tl_act_1_first_to_speak_is_the_best_visible_hand() -> None:
    hands = [parse_cards("7h8h"), parse_cards("KdKs"), parse_cards("AhQc"), parse_cards("9h9d")]
    assert first_to_speak(hands, DECK4) == 1
    assert first_to_speak([parse_cards("Ts"), parse_cards("Th"), parse_cards("Td")], DECK4) == 1


def test_tl_act_1_first_to_speak_accepts_text_and_mixed_sizes() -> None:
    assert first_to_speak(["7h", "AsKs", "Ac"], DECK4) == 1  # type: ignore[list-item]
    assert first_to_speak([parse_cards("AhKhQhJh"), parse_cards("7c7d")], DECK4) == 1
    assert first_to_speak([parse_cards("AhAdAcAs"), parse_cards("7h8h9hThJh")], DECK4) == 1
    assert first_to_speak([parse_cards("7h8h9hThJh"), parse_cards("AhAdAcAs")], DECK4) == 0


def test_tl_act_1_first_to_speak_ties_go_to_the_lowest_index() -> None:
    same = parse_cards("KhKd7s")
    assert first_to_speak([parse_cards("Qh"), same, same], DECK4) == 1
    assert first_to_speak([same, same], DECK4) == 0


def test_first_to_speak_errors() -> None:
    with pytest.raises(InvalidHand, match=r"nobody to speak"):
        first_to_speak([], DECK4)
    with pytest.raises(InvalidHand, match=r"a visible hand needs at least one card"):
        first_to_speak([parse_cards("Ah"), ()], DECK4)


# --------------------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------------------


def test_no_visible_cards_is_refused() -> None:
    with pytest.raises(InvalidHand, match=r"a visible hand needs at least one card"):
        evaluate_visible((), DECK4)
    with pytest.raises(InvalidHand, match=r"at least one card"):
        evaluate_visible("", DECK4)


def test_repeated_visible_card_is_refused() -> None:
    king = Card(Rank.KING, Suit.HEARTS)
    with pytest.raises(InvalidHand, match=r"a card is repeated in KhKh"):
        evaluate_visible((king, king), DECK4)
    with pytest.raises(InvalidHand, match=r"a card is repeated"):
        evaluate_visible((king, *parse_cards("QhJhTh9h"), king), DECK4)


def test_visible_card_outside_the_deck_is_refused() -> None:
    six = Card(Rank.SIX, Suit.HEARTS)
    with pytest.raises(InvalidHand, match=r"6h is not in the deck in play \(32 cards, rule IT-DECK-1\)"):
        evaluate_visible((six,), DECK4)
    with pytest.raises(InvalidHand, match=r"6h is not in the deck in play"):
        evaluate_visible((six, *parse_cards("AhKhQhJh")), DECK4)
    assert evaluate_visible((six,), Deck.italian(5)).label_it == "Carta alta: 6"


# --------------------------------------------------------------------------------------------------------
# Properties, with an independent reference order for partial hands
# --------------------------------------------------------------------------------------------------------

ITALIAN_SUIT = {"h": 3, "d": 2, "c": 1, "s": 0}


def reference_order(cards: tuple[Card, ...]) -> tuple[object, ...]:
    """TL-ACT-1 / IT-RANK-3 for 1-4 cards, written from the rules: category; group ranks (by size, then
    rank; a present card beats a missing one); kicker suits from the highest kicker down; then the suits
    of the grouped cards, group by group, highest suit first."""
    counts = Counter(card.rank for card in cards)
    shape = sorted(counts.values(), reverse=True)
    if shape[0] == 4:
        strength = 4
    elif shape[0] == 3:
        strength = 3
    elif shape[:2] == [2, 2]:
        strength = 2
    else:
        strength = 1 if shape[0] == 2 else 0
    groups = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    kickers = sorted((card for card in cards if counts[card.rank] == 1), key=lambda card: -card.rank)
    grouped = tuple(
        tuple(sorted((ITALIAN_SUIT[card.suit.value] for card in cards if card.rank == rank), reverse=True))
        for rank in groups
        if counts[rank] > 1
    )
    return (
        strength,
        tuple(int(rank) for rank in groups),
        tuple(ITALIAN_SUIT[card.suit.value] for card in kickers),
        grouped,
    )


def test_reference_order_agrees_with_the_worked_examples() -> None:
    assert reference_order(parse_cards("KcKs9h")) > reference_order(parse_cards("KhKd9d"))
    assert reference_order(parse_cards("KcKs7s")) > reference_order(parse_cards("KhKd"))
    assert reference_order(parse_cards("7h7d7c")) > reference_order(parse_cards("AhAdKhKd"))


@st.composite
def disjoint_visible_hands(
    draw: st.DrawFn, same_size: bool
) -> tuple[Deck, tuple[Card, ...], tuple[Card, ...]]:
    deck = Deck.italian(draw(st.integers(min_value=2, max_value=9)))
    size_a = draw(st.integers(min_value=1, max_value=4))
    size_b = size_a if same_size else draw(st.integers(min_value=1, max_value=4))
    # half the time draw from the cards of at most three ranks, so that pairs, trips, quads and hands of
    # equal ranks (decided by suits) show up often
    ranks = draw(st.lists(st.sampled_from(deck.ranks), min_size=1, max_size=3, unique=True))
    narrow = [card for card in deck.cards if card.rank in ranks]
    use_narrow = draw(st.booleans()) and len(narrow) >= size_a + size_b
    pool = narrow if use_narrow else list(deck.cards)
    size = size_a + size_b
    cards = draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True))
    return deck, tuple(cards[:size_a]), tuple(cards[size_a:])


@settings(max_examples=400)
@given(disjoint_visible_hands(same_size=True))
def test_tl_act_1_disjoint_hands_of_equal_size_never_tie_and_compare_antisymmetrically(
    hands: tuple[Deck, tuple[Card, ...], tuple[Card, ...]],
) -> None:
    deck, a, b = hands
    assert len(a) == len(b)
    value_a, value_b = evaluate_visible(a, deck), evaluate_visible(b, deck)
    assert value_a.key != value_b.key
    assert (value_a < value_b) != (value_b < value_a)
    assert (value_a > value_b) == (value_b < value_a)
    assert (value_a <= value_b) == (not value_a > value_b)
    assert first_to_speak([a, b], deck) == (0 if value_a > value_b else 1)


@settings(max_examples=400)
@given(disjoint_visible_hands(same_size=False))
def test_tl_act_1_partial_order_agrees_with_the_reference(
    hands: tuple[Deck, tuple[Card, ...], tuple[Card, ...]],
) -> None:
    deck, a, b = hands
    value_a, value_b = evaluate_visible(a, deck), evaluate_visible(b, deck)
    assert (value_a > value_b) == (reference_order(a) > reference_order(b))
    assert (value_a < value_b) == (reference_order(a) < reference_order(b))


@given(st.data())
def test_tl_act_1_value_ignores_the_order_of_the_visible_cards(data: st.DataObject) -> None:
    deck = Deck.italian(data.draw(st.integers(min_value=2, max_value=9)))
    cards = data.draw(st.lists(st.sampled_from(deck.cards), min_size=1, max_size=6, unique=True))
    shuffled = data.draw(st.permutations(cards))
    assert evaluate_visible(cards, deck).key == evaluate_visible(shuffled, deck).key


@given(st.data())
def test_tl_act_1_five_cards_equal_the_italian_evaluation(data: st.DataObject) -> None:
    deck = Deck.italian(data.draw(st.integers(min_value=2, max_value=9)))
    cards = data.draw(st.lists(st.sampled_from(deck.cards), min_size=5, max_size=5, unique=True))
    assert evaluate_visible(cards, deck).key == evaluate_italian(cards, deck).key
