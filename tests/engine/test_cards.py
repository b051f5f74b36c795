"""Tests for engine.cards: PHH notation, card codes, suit orders (IT-SUIT, G-DRAW-1), decks (IT-DECK-1)."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import (
    UNKNOWN_CARD,
    Card,
    Deck,
    InvalidCard,
    InvalidDeck,
    Rank,
    Suit,
    format_cards,
    parse_card,
    parse_card_or_unknown,
    parse_cards,
    parse_cards_or_unknown,
)

RANK_LETTERS = "23456789TJQKA"
SUIT_LETTERS = "cdhs"
ALL_TEXTS = [rank + suit for rank in RANK_LETTERS for suit in SUIT_LETTERS]

# --------------------------------------------------------------------------------------------------------
# PHH notation
# --------------------------------------------------------------------------------------------------------


def test_all_52_cards_round_trip_through_phh_text() -> None:
    assert len(ALL_TEXTS) == 52
    cards = [parse_card(text) for text in ALL_TEXTS]
    assert len(set(cards)) == 52
    for text, card in zip(ALL_TEXTS, cards, strict=True):
        assert str(card) == text
        assert Card.parse(text) == card
        assert card.rank == Rank.from_symbol(text[0])
        assert card.suit == Suit(text[1])
    assert format_cards(cards) == "".join(ALL_TEXTS)
    assert parse_cards(format_cards(cards)) == tuple(cards)


def test_parse_card_gives_rank_and_suit() -> None:
    assert parse_card("Ah") == Card(Rank.ACE, Suit.HEARTS)
    assert parse_card("Tc") == Card(Rank.TEN, Suit.CLUBS)
    assert parse_card("2s") == Card(Rank.TWO, Suit.SPADES)


@pytest.mark.parametrize("text", ["AhKs", "Ah Ks", "Ah,Ks", " Ah ,  Ks ", "Ah\tKs", "Ah, Ks"])
def test_parse_cards_accepts_concatenated_spaced_and_comma_separated_lists(text: str) -> None:
    assert parse_cards(text) == (Card(Rank.ACE, Suit.HEARTS), Card(Rank.KING, Suit.SPADES))


def test_parse_cards_of_empty_text_is_empty() -> None:
    assert parse_cards("") == ()
    assert parse_cards("   ") == ()
    assert parse_cards_or_unknown("") == ()


def test_parse_cards_keeps_the_order_given() -> None:
    assert format_cards(parse_cards("2c Ah Td 9s")) == "2cAhTd9s"
    assert format_cards(parse_cards("AhKsQdJcTh9s")) == "AhKsQdJcTh9s"


def test_unknown_card_is_none_only_where_allowed() -> None:
    assert UNKNOWN_CARD == "??"
    assert parse_card_or_unknown("??") is None
    assert parse_card_or_unknown("Ah") == Card(Rank.ACE, Suit.HEARTS)
    assert parse_cards_or_unknown("Ah????Ks") == (
        Card(Rank.ACE, Suit.HEARTS),
        None,
        None,
        Card(Rank.KING, Suit.SPADES),
    )
    assert parse_cards_or_unknown("?? ??") == (None, None)


def test_parse_card_refuses_the_unknown_card() -> None:
    with pytest.raises(InvalidCard, match=r"'\?\?' \(unknown card\) is not allowed here"):
        parse_card("??")


def test_parse_cards_refuses_the_unknown_card() -> None:
    with pytest.raises(InvalidCard, match=r"unknown card\) is not allowed"):
        parse_cards("Ah??")
    with pytest.raises(InvalidCard, match=r"unknown card"):
        parse_cards("?? Ks")


def test_format_cards_writes_unknown_cards_as_question_marks() -> None:
    assert format_cards([Card(Rank.ACE, Suit.HEARTS), None, Card(Rank.TEN, Suit.CLUBS)]) == "Ah??Tc"
    assert format_cards([None, None]) == "????"
    assert format_cards([]) == ""


@given(st.lists(st.one_of(st.none(), st.sampled_from(ALL_TEXTS)), max_size=20))
def test_unknown_cards_round_trip(texts: list[str | None]) -> None:
    # known cards must be distinct for the list to parse; keep the first occurrence of each
    seen: set[str] = set()
    kept: list[str | None] = []
    for text in texts:
        if text is None or text not in seen:
            kept.append(text)
            if text is not None:
                seen.add(text)
    cards = [None if text is None else parse_card(text) for text in kept]
    written = format_cards(cards)
    assert written == "".join("??" if text is None else text for text in kept)
    assert parse_cards_or_unknown(written) == tuple(cards)


# --------------------------------------------------------------------------------------------------------
# Error messages
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "A", "AhK", "Ahh", "A h"])
def test_wrong_length_is_refused_with_the_expected_shape(text: str) -> None:
    with pytest.raises(InvalidCard, match=r"is not a card: a card is a rank and a suit, like 'Ah' or 'Tc'"):
        parse_card(text)


def test_one_as_rank_is_refused_with_a_hint_that_ten_is_t() -> None:
    with pytest.raises(
        InvalidCard, match=r"'1h' is not a card: rank '1' is not one of 23456789TJQKA \(ten is 'T'\)"
    ):
        parse_card("1h")


def test_ten_written_10_is_refused() -> None:
    with pytest.raises(InvalidCard, match=r"'10h' is not a card"):
        parse_card("10h")
    with pytest.raises(InvalidCard, match=r"'10h' is not a list of cards: ten is 'T', not '10'"):
        parse_cards("10h")
    with pytest.raises(InvalidCard, match=r"'Ah 10h' is not a list of cards: ten is 'T'"):
        parse_cards("Ah 10h")


def test_ten_written_10_gets_the_hint_that_ten_is_t() -> None:
    with pytest.raises(InvalidCard, match=r"ten is 'T'"):
        parse_card("10h")


@pytest.mark.parametrize(("text", "rank"), [("Xh", "X"), ("1s", "1"), ("0d", "0"), ("ah", "a"), ("kd", "k")])
def test_bad_rank_is_named_in_the_message(text: str, rank: str) -> None:
    with pytest.raises(
        InvalidCard, match=rf"'{text}' is not a card: rank '{rank}' is not one of 23456789TJQKA"
    ):
        parse_card(text)


def test_lowercase_rank_is_refused() -> None:
    with pytest.raises(InvalidCard, match=r"rank 'a' is not one of 23456789TJQKA"):
        parse_card("ah")
    with pytest.raises(InvalidCard, match=r"rank 't'"):
        parse_cards("Ks th")


@pytest.mark.parametrize(("text", "suit"), [("Ax", "x"), ("AH", "H"), ("Kz", "z"), ("T?", "?")])
def test_bad_suit_is_named_in_the_message(text: str, suit: str) -> None:
    message = f"'{text}' is not a card: suit '{suit}' is not one of c d h s"
    with pytest.raises(InvalidCard, match=re.escape(message)):
        parse_card(text)


def test_repeated_card_is_refused() -> None:
    with pytest.raises(InvalidCard, match=r"'AhKsAh': card Ah is listed twice"):
        parse_cards("AhKsAh")
    with pytest.raises(InvalidCard, match=r"a card is listed twice"):
        parse_cards_or_unknown("Ah??Ah")


def test_unknown_cards_may_repeat() -> None:
    assert parse_cards_or_unknown("????Ah") == (None, None, Card(Rank.ACE, Suit.HEARTS))


def test_odd_piece_in_a_list_is_refused() -> None:
    with pytest.raises(InvalidCard, match=r"'AhK' has an odd number of characters"):
        parse_cards("Qs AhK")


def test_rank_from_symbol() -> None:
    assert [Rank.from_symbol(symbol) for symbol in RANK_LETTERS] == list(Rank)
    assert [rank.symbol for rank in Rank] == list(RANK_LETTERS)
    for bad in ("10", "1", "t", "", "AA"):
        with pytest.raises(InvalidCard, match=r"is not a rank: use one of 2 3 4 5 6 7 8 9 T J Q K A"):
            Rank.from_symbol(bad)


# --------------------------------------------------------------------------------------------------------
# Card codes and suit orders
# --------------------------------------------------------------------------------------------------------

ITALIAN_SUIT_ORDER = {"s": 0, "c": 1, "d": 2, "h": 3}  # IT-SUIT: ♥ > ♦ > ♣ > ♠


def test_card_code_is_four_times_rank_minus_two_plus_italian_suit_order() -> None:
    for text in ALL_TEXTS:
        card = parse_card(text)
        expected = 4 * (RANK_LETTERS.index(text[0])) + ITALIAN_SUIT_ORDER[text[1]]
        assert card.code == expected, text
    assert parse_card("2s").code == 0
    assert parse_card("2h").code == 3
    assert parse_card("3s").code == 4
    assert parse_card("Ah").code == 51


def test_codes_are_dense_and_from_code_is_the_inverse() -> None:
    cards = [parse_card(text) for text in ALL_TEXTS]
    assert sorted(card.code for card in cards) == list(range(52))
    for card in cards:
        assert Card.from_code(card.code) == card
    for code in range(52):
        assert Card.from_code(code).code == code


def test_codes_sort_by_rank_then_italian_suit() -> None:
    ordered = [Card.from_code(code) for code in range(8)]
    assert format_cards(ordered) == "2s2c2d2h3s3c3d3h"


@pytest.mark.parametrize("code", [-1, 52, 100, -52])
def test_from_code_outside_range_is_refused(code: int) -> None:
    with pytest.raises(InvalidCard, match=rf"card code {code} is outside 0\.\.51"):
        Card.from_code(code)


def test_italian_suit_order_hearts_diamonds_clubs_spades_it_suit() -> None:
    """IT-SUIT: ♥ Cuori > ♦ Quadri > ♣ Fiori > ♠ Picche."""
    ranked = sorted(Suit, key=lambda suit: suit.italian_order, reverse=True)
    assert ranked == [Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS, Suit.SPADES]
    assert [suit.italian_order for suit in ranked] == [3, 2, 1, 0]
    assert [suit.italian_name for suit in ranked] == ["cuori", "quadri", "fiori", "picche"]
    assert [suit.symbol for suit in ranked] == ["♥", "♦", "♣", "♠"]


def test_international_suit_order_spades_hearts_diamonds_clubs_g_draw_1() -> None:
    """G-DRAW-1: ♠ > ♥ > ♦ > ♣ in international games."""
    ranked = sorted(Suit, key=lambda suit: suit.international_order, reverse=True)
    assert ranked == [Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS]
    assert [suit.international_order for suit in ranked] == [3, 2, 1, 0]
    assert [suit.english_name for suit in ranked] == ["spades", "hearts", "diamonds", "clubs"]


def test_g_draw_1_first_button_tie_on_rank_is_broken_by_the_games_suit_order() -> None:
    kings = parse_cards("KsKhKdKc")
    italian_best = max(kings, key=lambda card: (card.rank, card.suit.italian_order))
    international_best = max(kings, key=lambda card: (card.rank, card.suit.international_order))
    assert str(italian_best) == "Kh"
    assert str(international_best) == "Ks"


# --------------------------------------------------------------------------------------------------------
# Decks
# --------------------------------------------------------------------------------------------------------

CANONICAL_SUITS = "cdhs"


@pytest.mark.parametrize("players", range(2, 10))
def test_it_deck_1_italian_deck_by_number_of_players(players: int) -> None:
    deck = Deck.italian(players)
    lowest = 11 - players
    assert len(deck) == 4 * (15 - lowest) == len(deck.cards)
    assert deck.lowest_rank == Rank(lowest)
    assert min(card.rank for card in deck.cards) == lowest
    assert max(card.rank for card in deck.cards) == Rank.ACE
    assert len(set(deck.cards)) == len(deck.cards)
    assert deck.ranks == tuple(Rank(value) for value in range(lowest, 15))
    expected = "".join(rank + suit for rank in RANK_LETTERS[lowest - 2 :] for suit in CANONICAL_SUITS)
    assert format_cards(deck.cards) == expected


@pytest.mark.parametrize(("players", "size"), [(2, 24), (3, 28), (4, 32), (5, 36), (6, 40), (9, 52)])
def test_it_deck_1_deck_sizes_from_the_rule(players: int, size: int) -> None:
    assert len(Deck.italian(players)) == size


def test_it_deck_1_four_players_play_from_the_seven() -> None:
    deck = Deck.italian(4)
    assert format_cards(deck.cards[:8]) == "7c7d7h7s8c8d8h8s"
    assert format_cards(deck.cards[-4:]) == "AcAdAhAs"
    assert deck.name == "italian-4p-32"


def test_canonical_order_is_ascending_rank_then_suits_c_d_h_s() -> None:
    for deck in (Deck.standard(), Deck.italian(2), Deck.italian(6)):
        keys = [(card.rank, CANONICAL_SUITS.index(card.suit.value)) for card in deck.cards]
        assert all(a < b for a, b in pairwise(keys))


@pytest.mark.parametrize("players", [1, 10, 0, -1, "4", True, 4.0, None])
def test_it_deck_1_italian_deck_refuses_other_player_counts(players: object) -> None:
    with pytest.raises(InvalidDeck, match=r"played by 2 to 9 players \(rule IT-DECK-1\)"):
        Deck.italian(players)  # type: ignore[arg-type]


def test_italian_deck_error_names_the_value() -> None:
    with pytest.raises(InvalidDeck, match=r"not 10$"):
        Deck.italian(10)
    with pytest.raises(InvalidDeck, match=r"not '4'$"):
        Deck.italian("4")  # type: ignore[arg-type]


def test_standard_deck_has_all_52_cards() -> None:
    deck = Deck.standard()
    assert len(deck) == 52
    assert format_cards(deck.cards) == "".join(
        rank + suit for rank in RANK_LETTERS for suit in CANONICAL_SUITS
    )
    assert deck.lowest_rank == Rank.TWO
    assert set(deck.cards) == {parse_card(text) for text in ALL_TEXTS}
    assert Deck.italian(9).cards == deck.cards


def test_card_in_deck() -> None:
    four = Deck.italian(4)
    assert parse_card("Ah") in four
    assert parse_card("7c") in four
    assert parse_card("6h") not in four
    assert parse_card("2s") not in four
    assert parse_card("6h") in Deck.italian(5)
    assert parse_card("2s") in Deck.standard()
    assert "Ah" not in four


def test_with_cards_accepts_a_permutation() -> None:
    deck = Deck.italian(4)
    reordered = deck.with_cards(reversed(deck.cards))
    assert reordered.cards == tuple(reversed(deck.cards))
    assert reordered.lowest_rank == deck.lowest_rank
    assert reordered.name == deck.name
    assert deck.cards[0] == parse_card("7c")  # the original is unchanged


@given(st.permutations(Deck.italian(3).cards))
def test_with_cards_accepts_any_permutation(cards: list[Card]) -> None:
    deck = Deck.italian(3)
    assert deck.with_cards(cards).cards == tuple(cards)


def test_with_cards_rejects_a_non_permutation() -> None:
    deck = Deck.italian(4)
    cards = list(deck.cards)
    for bad in (
        cards[:-1],  # a card missing
        [*cards, cards[0]],  # a card twice
        [*cards[:-1], cards[0]],  # right length, one card twice and one missing
        [*cards[:-1], parse_card("6h")],  # a card from outside the deck
        [],
    ):
        with pytest.raises(InvalidDeck, match=r"the cards given are not a permutation of this deck"):
            deck.with_cards(bad)
