"""The pure rules of five card draw's draw (engine.games.draw_rules): discards of 0–5 own cards, stand pat,
replacements from the stock and the reshuffle of the discards when it runs out (rule FD-1)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck, parse_cards
from engine.games.draw_rules import BadDiscard, check_discard, replace_cards, reshuffle_order, reshuffle_pile
from engine.shuffle import shuffle

DECK = shuffle(Deck.standard().cards, bytes(32))


def test_fd_1_discard_checks_the_players_cards() -> None:
    hand = parse_cards("AsKsQsJs2c")
    assert check_discard(hand, parse_cards("2c")) == parse_cards("2c")
    assert check_discard(hand, ()) == ()  # stand pat
    assert check_discard(hand, hand) == hand  # all five
    with pytest.raises(BadDiscard, match="3c is not one of"):
        check_discard(hand, parse_cards("3c"))
    with pytest.raises(BadDiscard, match="twice"):
        check_discard(hand, (Card.parse("2c"), Card.parse("2c")))
    with pytest.raises(BadDiscard, match="at most 5"):
        check_discard(parse_cards("AsKsQsJs2c3c"), parse_cards("AsKsQsJs2c3c"))


def test_fd_1_replacements_come_from_the_top_of_the_stock() -> None:
    stock = DECK[30:]
    served = replace_cards(DECK, stock, (), DECK[:3])
    assert served.dealt == stock[:3]
    assert served.stock == stock[3:]
    assert served.pile == DECK[:3]
    assert not served.reshuffled


def test_fd_1_stand_pat_deals_nothing() -> None:
    stock = DECK[30:]
    served = replace_cards(DECK, stock, DECK[:2], ())
    assert served.dealt == () and served.stock == stock and served.pile == DECK[:2]


def test_fd_1_short_stock_reshuffles_the_discards_but_not_the_players_own() -> None:
    stock = DECK[50:]  # two cards left
    pile = DECK[40:48]  # discards of the players already served
    own = DECK[:4]
    served = replace_cards(DECK, stock, pile, own)
    assert served.reshuffled
    assert served.dealt[:2] == stock
    new_stock = reshuffle_order(DECK, pile, 1)
    assert served.dealt[2:] == new_stock[:2]
    assert served.stock == new_stock[2:]
    assert not set(served.dealt) & set(own)
    assert served.pile == own


def test_fd_1_reshuffle_short_even_after_the_pile() -> None:
    with pytest.raises(BadDiscard, match="not enough cards"):
        replace_cards(DECK, DECK[51:], DECK[40:41], DECK[:5])


def test_fd_1_reshuffle_is_derived_from_the_deck() -> None:
    other = shuffle(Deck.standard().cards, b"\x01" * 32)
    assert reshuffle_order(DECK, DECK[:9], 1) == reshuffle_order(DECK, reversed(DECK[:9]), 1)
    assert reshuffle_order(DECK, DECK[:9], 1) != reshuffle_order(other, DECK[:9], 1)
    assert reshuffle_order(DECK, DECK[:9], 1) != reshuffle_order(DECK, DECK[:9], 2)


@settings(max_examples=100, deadline=None)
@given(st.permutations(range(52)), st.lists(st.integers(0, 5), min_size=2, max_size=6))
def test_fd_1_six_players_draw_without_ever_dealing_a_card_twice(perm: list[int], wants: list[int]) -> None:
    """Up to six players (FD-1 decision) each change 0–5 cards: every card is in exactly one place
    (a hand, the stock or the pile) after each player is served; nobody gets back their own discards."""
    deck = tuple(Deck.standard().cards[i] for i in perm)
    players = len(wants)
    hands = [list(deck[5 * p : 5 * p + 5]) for p in range(players)]
    stock = deck[5 * players :]
    pile: tuple[Card, ...] = ()
    k = 1
    for hand, wanted in zip(hands, wants, strict=True):
        discard = check_discard(hand, hand[:wanted])
        served = replace_cards(deck, stock, pile, discard, k=k)
        k += served.reshuffled
        assert len(served.dealt) == wanted
        assert not set(served.dealt) & set(discard)
        del hand[:wanted]
        hand.extend(served.dealt)
        stock, pile = served.stock, served.pile
        everywhere = [c for h in hands for c in h] + list(stock) + list(pile)
        assert sorted(c.code for c in everywhere) == list(range(52))


def test_fd_1_the_pile_is_the_other_players_discards_and_the_burns_not_in_play() -> None:
    discards = (parse_cards("2c3c"), parse_cards("4d5d6d"), (), parse_cards("7h"))
    burned = parse_cards("Ks")
    assert reshuffle_pile(discards, burned, 1, ()) == parse_cards("2c3c7hKs")
    assert reshuffle_pile(discards, burned, 0, parse_cards("4d7h")) == parse_cards("5d6dKs")  # back in play
    assert reshuffle_pile(((), ()), (), 0, ()) == ()
