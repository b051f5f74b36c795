"""The pure rules of seven card stud (engine.games.stud_rules): bring-in by the lowest door card with
ties by suit, the best visible hand opener, the open pair, the 7th-street supply when the stock runs out,
and the odd chip by high card by suit (rules ST-1, G-POT-2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck, parse_cards
from engine.evaluation import evaluate_standard
from engine.games.stud_rules import (
    StockExhausted,
    bring_in_seat,
    has_open_pair,
    odd_chip_order,
    opener_seat,
    reshuffle_order,
    seventh_street_supply,
    visible_value,
)
from engine.shuffle import shuffle

DECK = Deck.standard().cards


def card(text: str) -> Card:
    return Card.parse(text)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


# --- bring-in (ST-1) ------------------------------------------------------------------------------------


def test_st_1_bring_in_is_the_lowest_door_card() -> None:
    assert bring_in_seat({0: card("9h"), 1: card("3s"), 2: card("Kd"), 3: card("4c")}) == 1


def test_st_1_bring_in_ace_is_high() -> None:
    assert bring_in_seat({0: card("Ac"), 1: card("Kd")}) == 1


@pytest.mark.parametrize(
    ("doors", "expected"),
    [
        ({0: "2d", 1: "2c"}, 1),  # clubs lowest
        ({0: "2d", 1: "2h", 2: "2s"}, 0),  # diamonds < hearts < spades
        ({3: "5s", 5: "5h"}, 5),  # hearts < spades
        ({0: "7c", 1: "7d", 2: "7h", 3: "7s"}, 0),
        ({0: "7s", 1: "7h", 2: "7d", 3: "7c"}, 3),
    ],
)
def test_st_1_bring_in_tie_broken_by_suit_clubs_diamonds_hearts_spades(
    doors: dict[int, str], expected: int
) -> None:
    assert bring_in_seat({seat: card(text) for seat, text in doors.items()}) == expected


def test_st_1_bring_in_needs_a_door_card() -> None:
    with pytest.raises(ValueError, match="ST-1"):
        bring_in_seat({})


# --- best visible hand (ST-1) ---------------------------------------------------------------------------


def test_st_1_visible_hand_order_high_pair_two_pair_trips_quads() -> None:
    order = [
        "A",
        "AK",
        "AKQJ",
        "22",
        "22A",
        "AA",
        "AAK",
        "2233",
        "AA22",
        "AAKK",
        "222",
        "222A",
        "AAA",
        "2222",
    ]
    suits = "cdhs"
    values = [visible_value(tuple(card(r + suits[i]) for i, r in enumerate(text))) for text in order]
    assert values == sorted(values)
    assert len(set(values)) == len(values)


def test_st_1_visible_hand_straights_and_flushes_do_not_count() -> None:
    assert visible_value(cards("5h6h7h8h")) < visible_value(cards("2c2d"))
    assert visible_value(cards("5h6h7h8h")) < visible_value(cards("9c6d4s3h"))


def test_st_1_visible_hand_suits_never_count() -> None:
    assert visible_value(cards("AsKs")) == visible_value(cards("AcKd"))


def test_st_1_visible_hand_size() -> None:
    with pytest.raises(ValueError, match="1 to 4"):
        visible_value(())
    with pytest.raises(ValueError, match="1 to 4"):
        visible_value(cards("2c3c4c5c6c"))


def test_st_1_opener_is_the_best_visible_hand() -> None:
    up = {0: cards("AsKh"), 1: cards("5c5d"), 2: cards("QhQs"), 3: cards("7d2c")}
    assert opener_seat(up, button=3) == 2


def test_st_1_opener_tie_goes_to_the_first_left_of_the_dealer() -> None:
    up = {0: cards("AsKh"), 2: cards("AcKd"), 4: cards("AdKs"), 5: cards("2c3d")}
    assert opener_seat(up, button=0) == 2
    assert opener_seat(up, button=1) == 2
    assert opener_seat(up, button=2) == 4
    assert opener_seat(up, button=4) == 0
    assert opener_seat(up, button=5) == 0


def test_st_1_opener_with_different_numbers_of_up_cards_is_impossible_but_defined() -> None:
    # a present kicker beats a missing one
    assert opener_seat({0: cards("Ac"), 1: cards("AdKc")}, button=1) == 1


# --- open pair (ST-1, FL) -------------------------------------------------------------------------------


def test_st_1_open_pair_on_fourth_street() -> None:
    assert has_open_pair([cards("AsKh"), cards("7c7d")])
    assert not has_open_pair([cards("AsKh"), cards("7c8d")])
    assert not has_open_pair([])


# --- stock exhaustion (ST-1) ----------------------------------------------------------------------------


def _deal_to_seventh(players: int) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
    """A shuffled deck dealt to 6th street, burning before 4th, 5th and 6th: (deck, stock, burned)."""
    deck = shuffle(DECK, bytes(32))
    position = 3 * players  # 3rd street: 2 down + 1 up each
    burned = []
    for _ in range(3):  # 4th, 5th, 6th street
        burned.append(deck[position])
        position += 1 + players
    return deck, deck[position:], tuple(burned)


def test_st_1_seventh_street_with_enough_cards_burns_and_deals() -> None:
    deck, stock, burned = _deal_to_seventh(6)
    supply = seventh_street_supply(deck, stock, burned, 6)
    assert supply.stock == stock and supply.burn
    assert not supply.reshuffled and not supply.community


def test_st_1_seventh_street_never_burns_a_card_a_player_needs() -> None:
    deck, stock, burned = _deal_to_seventh(7)
    assert len(stock) == 7  # 52 - 21 - 3 * 8: seven cards, no burn
    supply = seventh_street_supply(deck, stock, burned, 7)
    assert supply.stock == stock and not supply.burn
    assert not supply.reshuffled and not supply.community


def test_st_1_seventh_street_short_stock_reshuffles_the_burnt_cards() -> None:
    deck, stock, burned = _deal_to_seventh(7)
    supply = seventh_street_supply(deck, stock[:5], burned, 7)
    assert supply.reshuffled and not supply.community and supply.burn  # 8 cards for 7 players
    assert sorted(c.code for c in supply.stock) == sorted(c.code for c in stock[:5] + burned)
    assert supply.stock == reshuffle_order(deck, stock[:5] + burned, 1)
    assert supply.stock != reshuffle_order(deck, stock[:5] + burned, 2)
    assert not seventh_street_supply(deck, stock[:4], burned, 7).burn  # exactly 7 after the reshuffle


def test_st_1_eight_players_on_seventh_street_get_a_community_card() -> None:
    deck, stock, burned = _deal_to_seventh(8)
    assert len(stock) == 1
    supply = seventh_street_supply(deck, stock, burned, 8)
    assert supply.community and supply.reshuffled and supply.burn
    assert len(supply.stock) == 4


def test_st_1_seventh_street_without_any_card() -> None:
    with pytest.raises(StockExhausted, match="ST-1"):
        seventh_street_supply(DECK, (), (), 3)


def test_st_1_reshuffle_is_derived_from_the_deck() -> None:
    deck = shuffle(DECK, bytes(32))
    other = shuffle(DECK, bytes(31) + b"\x01")
    pile = deck[:10]
    assert reshuffle_order(deck, pile, 1) == reshuffle_order(deck, reversed(pile), 1)
    assert reshuffle_order(deck, pile, 1) != reshuffle_order(other, pile, 1)
    assert reshuffle_order(deck, pile, 1) != reshuffle_order(deck, pile, 2)


# --- odd chip (G-POT-2) ---------------------------------------------------------------------------------


def test_g_pot_2_stud_odd_chip_to_the_high_card_by_suit() -> None:
    # both make the same straight; seat 0's top card is the K♦, seat 1's the K♠
    hands = {0: evaluate_standard("Kd Qs Jh Tc 9c 2d 3d"), 1: evaluate_standard("Ks Qc Jd Th 9s 2c 4h")}
    assert hands[0].key == hands[1].key
    assert odd_chip_order({seat: value.cards for seat, value in hands.items()}) == (1, 0)


def test_g_pot_2_stud_odd_chip_uses_the_cards_of_the_hand_not_the_unused_ones() -> None:
    # the same pair of aces with K Q J kickers: the high card of each hand is its best ace, A♠ > A♥
    hands = {0: evaluate_standard("As Ac Kd Qd Jd 2c 3c"), 1: evaluate_standard("Ah Ad Ks Qs Js 4c 5c")}
    assert hands[0].key == hands[1].key
    assert odd_chip_order({seat: value.cards for seat, value in hands.items()}) == (0, 1)


@settings(max_examples=50, deadline=None)
@given(st.permutations(range(52)))
def test_g_pot_2_stud_odd_chip_order_lists_every_seat_once(perm: list[int]) -> None:
    deck = [DECK[i] for i in perm]
    hands = {seat: deck[5 * seat : 5 * seat + 5] for seat in range(8)}
    order = odd_chip_order(hands)
    assert sorted(order) == list(range(8))
    tops = [max(c.rank * 4 + c.suit.international_order for c in hands[seat]) for seat in order]
    assert tops == sorted(tops, reverse=True)


@settings(max_examples=200, deadline=None)
@given(st.permutations(range(52)), st.integers(2, 8), st.integers(1, 4), st.integers(0, 7))
def test_st_1_opener_is_the_first_best_visible_hand_left_of_the_button(
    perm: list[int], players: int, up: int, button: int
) -> None:
    """Against a plain reading of ST-1: the seats in order from the button's left, the first one holding
    the best visible value."""
    from engine.pots import seats_left_of_button

    deck = [DECK[i] for i in perm]
    seats = list(range(0, 2 * players, 2))  # some empty seats between
    hands = {seat: tuple(deck[up * i : up * i + up]) for i, seat in enumerate(seats)}
    order = seats_left_of_button(seats, button)
    values = [visible_value(hands[seat]) for seat in order]
    assert opener_seat(hands, button) == order[values.index(max(values))]
