"""Seven card stud on the shared core (``N7S`` ``P7S`` ``F7S``): bring-in and complete, best visible hand,
the open pair, stock exhaustion and the community card, the odd chip, short all-ins, time-outs and views
(rules ST-1, G-ACT-2, G-LIMIT-1, G-POT-2)."""

from __future__ import annotations

import random

import pytest

from engine.core import ForcedBets, ForcedBetsRefused, find_game
from engine.core.errors import ActionNotAllowed, BadAmount
from engine.core.model import (
    BoardDealt,
    CardsDealt,
    ForcedBetPosted,
    HandShown,
    PotAwarded,
    StockReshuffled,
    TimeoutExpired,
)
from engine.core.view import CardsDealtHidden, StockReshuffledPublic, public_event
from engine.games.stud_rules import reshuffle_order
from tests.engine.studdraw_support import STUD_FL, STUD_NL, Table, cards, play_random

# --- registry and forced bets ---------------------------------------------------------------------------


def test_st_1_registry_codes_names_and_seats() -> None:
    for code, short in (("N7S", "Stud NL"), ("P7S", "Stud PL"), ("F7S", "Stud FL")):
        game = find_game(code)
        assert game.short_name == short
        assert (game.min_seats, game.max_seats) == (2, 8)
        assert game.family.value == "stud"
        assert {"bring_in", "complete"} <= set(game.actions)
    game = find_game("F7S")
    with pytest.raises(ValueError, match="2 to 8 seats"):
        game.table_config(seats=9, tournament=False, forced=STUD_FL, action_time_ms=1, time_bank_ms=0)


@pytest.mark.parametrize(
    ("forced", "field"),
    [
        (ForcedBets(bring_in=2, small_bet=10), "ante"),
        (ForcedBets(ante=1, small_bet=10), "bring_in"),
        (ForcedBets(ante=1, bring_in=2), "small_bet"),
        (ForcedBets(ante=1, bring_in=10, small_bet=10), "bring_in"),
        (ForcedBets(ante=1, bring_in=2, small_bet=10, big_blind=10), "big_blind"),
        (ForcedBets(ante=1, bring_in=2, small_bet=10, big_bet=5), "big_bet"),
    ],
)
def test_st_1_check_forced_bets_needs_ante_bring_in_and_small_bet(forced: ForcedBets, field: str) -> None:
    with pytest.raises(ForcedBetsRefused) as refused:
        find_game("F7S").check_forced_bets(forced)
    assert refused.value.field == field


def test_st_1_no_limit_stud_has_no_big_bet() -> None:
    find_game("N7S").check_forced_bets(STUD_NL)
    with pytest.raises(ForcedBetsRefused) as refused:
        find_game("N7S").check_forced_bets(STUD_FL)
    assert refused.value.field == "big_bet"


# --- 3rd street: antes, bring-in, complete --------------------------------------------------------------


def third_street(code: str = "F7S", seats: int = 3, doors: tuple[str, ...] = ("2d", "2c", "9s")) -> Table:
    """Seats 0.. dealt from the button's left (button = last seat); seat ``i``'s door card is ``doors[i]``."""
    table = Table(code, seats, STUD_FL if code == "F7S" else STUD_NL)
    table.start(button=seats - 1)
    downs = iter(("AhAd", "KhKd", "QhQd", "JcJd", "3h3s", "4h4s", "6h6s", "8h8s"))
    for seat, door in enumerate(doors):
        table.deal(seat, next(downs) + door)
    return table


def test_st_1_every_player_antes_before_the_deal() -> None:
    table = Table("F7S", 3, STUD_FL)
    events = table.start(button=2)
    antes = [e for e in events if isinstance(e, ForcedBetPosted)]
    assert [(e.seat, e.kind, e.amount, e.live) for e in antes] == [
        (seat, "ante", 1, False) for seat in range(3)
    ]
    assert table.stacks_now() == [999, 999, 999]


def test_st_1_bring_in_tie_broken_by_suit_and_bring_in_seat_cannot_check_or_fold() -> None:
    table = third_street(doors=("2d", "2c", "9s"))
    assert table.to_act == 1  # 2♣ < 2♦
    assert table.kinds() == [("bring_in", "Bring-in", 2, 2), ("complete", "Complete", 10, 10)]
    before = table.state
    for action in ("check", "fold", "call"):
        with pytest.raises(ActionNotAllowed, match="ST-1"):
            table.act(1, action)
    assert table.state is before
    events = table.act(1, "bring_in")
    assert events[0] == ForcedBetPosted(1, "bring_in", 2, False, True)
    assert table.to_act == 2
    assert table.kinds() == [("fold", "Fold", 0, 0), ("call", "Call", 2, 2), ("complete", "Complete", 10, 10)]


def test_st_1_bring_in_ties_spades_highest() -> None:
    table = third_street(seats=4, doors=("5s", "5h", "5d", "Kc"))
    assert table.to_act == 2  # 5♦ < 5♥ < 5♠


def test_st_1_completion_reopens_the_betting_to_the_bring_in_and_its_callers() -> None:
    table = third_street(seats=4, doors=("9d", "2c", "Ts", "Jh"))
    table.act(1, "bring_in")
    table.act(2, "call")  # calls the bring-in only
    table.act(3, "complete", 10)
    table.act(0, "call")
    assert table.to_act == 1
    assert ("raise", "Raise", 20, 20) in table.kinds()  # a completion is a full bet
    table.act(1, "call")
    assert table.to_act == 2
    assert ("raise", "Raise", 20, 20) in table.kinds()
    table.act(2, "call")
    assert table.hand.street == 1  # everyone matched 10: 4th street


def test_st_1_bring_in_player_may_complete_at_once() -> None:
    table = third_street()
    table.act(1, "complete", 10)
    assert table.hand.current_bet == 10 and table.hand.raises == 1
    assert table.to_act == 2
    assert ("raise", "Raise", 20, 20) in table.kinds()


def test_st_1_everyone_calls_the_bring_in_and_the_round_ends_without_an_option() -> None:
    table = third_street()
    table.act(1, "bring_in")
    table.act(2, "call")
    table.act(0, "call")
    assert table.hand.street == 1  # the bring-in has no option, unlike a big blind
    assert table.hand.contributed == (3, 3, 3)


def test_st_1_no_limit_completion_is_the_small_bet_then_any_amount() -> None:
    table = third_street("N7S")
    table.act(1, "bring_in")
    assert table.kinds() == [
        ("fold", "Fold", 0, 0),
        ("call", "Call", 2, 2),
        ("complete", "Complete", 10, 998),
        ("complete", "All-in", 999, 999),
    ]
    with pytest.raises(BadAmount):
        table.act(2, "complete", 9)
    table.act(2, "complete", 40)
    assert table.kinds()[2] == ("raise", "Raise", 78, 998)  # the increment of 38 counts from the bring-in


# --- later streets: best visible hand, open pair --------------------------------------------------------


def to_fourth(table: Table) -> None:
    table.act(table.to_act, "bring_in")
    while table.hand.street == 0:
        table.act(table.to_act, "call")


def test_st_1_fourth_street_opener_is_the_best_visible_hand() -> None:
    table = third_street(seats=4, doors=("9d", "2c", "Ts", "Jh"))
    to_fourth(table)
    for seat, card in ((0, "3c"), (1, "Kc"), (2, "4h"), (3, "5s")):  # burns are optional in a replay
        table.deal(seat, card)
    assert table.to_act == 1  # K-2 beats J-5, T-4, 9-3


def test_st_1_best_visible_hand_tie_goes_to_the_first_left_of_the_dealer() -> None:
    table = third_street(seats=4, doors=("9d", "2c", "Ks", "Kc"))
    to_fourth(table)
    for seat, card in ((0, "3c"), (1, "5d"), (2, "7h"), (3, "7s")):
        table.deal(seat, card)
    assert table.to_act == 2  # K-7 twice: seat 2 is nearer the dealer's (seat 3) left


def test_st_1_pair_showing_beats_high_cards() -> None:
    table = third_street(seats=4, doors=("3d", "2c", "As", "Ks"))
    to_fourth(table)
    for seat, card in ((0, "3c"), (1, "5d"), (2, "Qc"), (3, "Qs")):
        table.deal(seat, card)
    assert table.to_act == 0  # 3-3 beats A-Q


def test_st_1_fixed_limit_open_pair_allows_the_big_bet_on_fourth_street() -> None:
    table = third_street(seats=3, doors=("9d", "2c", "Ts"))
    to_fourth(table)
    table.dealer()
    hand = table.hand
    pair = any(len({c.rank for c in hand.up[s]}) == 1 for s in range(3))
    if not pair:  # the stock is the deck in order: 2h 2s 3c 3d… seat 0 gets the 2♠ after the 2♥ burn
        raise AssertionError(hand.up)
    opener = table.to_act
    assert table.kinds(opener)[-2:] == [("bet", "Bet", 10, 10), ("bet", "Bet", 20, 20)]
    with pytest.raises(BadAmount):
        table.act(opener, "bet", 15)
    table.act(opener, "bet", 20)
    assert table.kinds()[-1] == ("raise", "Raise", 40, 40)  # after a big bet, raises are big


def test_st_1_fixed_limit_open_pair_small_bet_may_be_raised_small_or_big() -> None:
    table = third_street(seats=3, doors=("9d", "2c", "Ts"))
    to_fourth(table)
    table.dealer()
    table.act(table.to_act, "bet", 10)
    assert table.kinds()[-2:] == [("raise", "Raise", 20, 20), ("raise", "Raise", 30, 30)]  # by 10 or 20


def test_st_1_fixed_limit_fourth_street_without_open_pair_is_the_small_bet() -> None:
    table = third_street(seats=3, doors=("9d", "2c", "Ts"))
    to_fourth(table)
    for seat, card in ((0, "3c"), (1, "5d"), (2, "7h")):
        table.deal(seat, card)
    assert table.kinds()[-1] == ("bet", "Bet", 10, 10)
    table.act(table.to_act, "check")
    table.act(table.to_act, "check")
    table.act(table.to_act, "check")
    for seat, card in ((0, "4c"), (1, "6d"), (2, "8h")):
        table.deal(seat, card)
    assert table.kinds()[-1] == ("bet", "Bet", 20, 20)  # 5th street: the big bet


# --- stock exhaustion (ST-1) ----------------------------------------------------------------------------


def call_down(table: Table, until_street: int = 99) -> None:
    """Everyone checks or calls (the bring-in brings in), the dealer dealing, up to ``until_street``."""
    while table.state.hand is not None and not table.hand.showdown and table.hand.street < until_street:
        if table.game.dealer_command(table.state, 0) is not None:
            table.dealer()
            continue
        kinds = [k[0] for k in table.kinds()]
        table.act(table.to_act, next(k for k in ("bring_in", "check", "call") if k in kinds))


def test_st_1_eight_players_to_seventh_street_share_a_community_card() -> None:
    table = Table("F7S", 8, STUD_FL)
    deck = tuple(random.Random(7).sample(find_game("F7S").deck(8).cards, 52))
    table.start(button=7, deck=deck)
    call_down(table, until_street=4)
    (reshuffled,) = [e for e in table.events if isinstance(e, StockReshuffled)]
    burned = tuple(c for e in table.events if isinstance(e, CardsDealt) for c in e.burn)
    dealt = {c for e in table.events if isinstance(e, CardsDealt) for c in e.down + e.up}
    assert len(burned) == 3 and len(dealt) == 48  # 24 + 3 × (1 burn + 8)
    (left,) = [c for c in deck if c not in dealt and c not in burned]
    assert reshuffled.community
    assert sorted(c.code for c in reshuffled.pile) == sorted(c.code for c in (left, *burned))
    assert reshuffled.stock == reshuffle_order(deck, (left, *burned), 1)
    assert public_event(reshuffled, 0) == StockReshuffledPublic(4, True)  # which cards stays secret
    events = table.dealer()
    assert not any(isinstance(e, CardsDealt) for e in events)
    (board,) = [e for e in events if isinstance(e, BoardDealt)]
    assert board.burn == reshuffled.stock[:1] and board.cards == reshuffled.stock[1:2]  # 3 to spare: burn
    assert table.hand.board == board.cards
    assert table.hand.street == 4 and table.to_act in range(8)
    call_down(table)
    shown = [e for e in table.events if isinstance(e, HandShown)]
    assert shown and all(len(e.cards) == 2 for e in shown)  # two down cards, the 7th is the board's
    assert table.chips() == 8_000
    assert table.replayed() == table.state


def test_st_1_seven_players_on_seventh_street_get_a_card_each_without_a_burn() -> None:
    table = Table("F7S", 7, STUD_FL)
    table.start(button=6, deck=tuple(random.Random(3).sample(find_game("F7S").deck(7).cards, 52)))
    call_down(table, until_street=4)
    assert len(table.hand.stock) == 7 and not table.hand.reshuffles
    events = table.dealer()
    dealt = [e for e in events if isinstance(e, CardsDealt)]
    assert len(dealt) == 7 and all(not e.burn and len(e.down) == 1 for e in dealt)
    assert not table.hand.stock and not table.hand.reshuffles


# --- odd chip (G-POT-2) ---------------------------------------------------------------------------------


def test_g_pot_2_stud_odd_chip_goes_to_the_high_card_by_suit() -> None:
    # seats 0 and 1 make the same king-high straight; seat 1's holds the K♠, seat 0's the K♦; left of the
    # button (seat 2) the odd chip would go to seat 0
    table = Table("F7S", 3, STUD_FL)
    table.start(button=2)
    table.deal(0, "9c Td 3h")
    table.deal(1, "9d Tc 3s")
    table.deal(2, "4c 4d 2c")
    assert table.to_act == 2
    table.act(2, "bring_in")
    table.act(0, "call")
    table.act(1, "call")  # 3 antes + 3 × 2 = 9 chips
    for seat, card in ((0, "Jh"), (1, "Js"), (2, "5h")):
        table.deal(seat, card)
    assert table.to_act == 0  # J-3 twice: seat 0 is first left of the button
    table.act(0, "check")
    table.act(1, "check")
    table.act(2, "fold")
    for street in (("Qc", "Qd"), ("Kd", "Ks"), ("6c", "6d")):
        for seat, card in enumerate(street):
            table.deal(seat, card)
        table.act(table.to_act, "check")
        table.act(table.to_act, "check")
    (award,) = [e for e in table.events if isinstance(e, PotAwarded)]
    assert award.amount == 9
    assert award.shares == ((1, 5), (0, 4))
    assert table.stacks_now() == [1_001, 1_002, 997]


# --- short all-in, time-outs, views ---------------------------------------------------------------------


def test_g_act_2_stud_short_all_in_raise_leaves_call_or_fold() -> None:
    table = Table("N7S", 3, STUD_NL, stacks=[1_000, 1_000, 26])
    table.start(button=2)
    table.deal(0, "AhKh9d")
    table.deal(1, "AsKs2c")
    table.deal(2, "QhQsTs")
    table.act(1, "bring_in")  # 2
    table.act(2, "call")  # 2
    table.act(0, "complete", 10)
    table.act(1, "call")
    table.act(2, "raise", 25)  # all-in: 15 more, a full raise of 10 is to 20 → full
    assert table.hand.raises == 2
    table3 = Table("N7S", 3, STUD_NL, stacks=[1_000, 1_000, 16])
    table3.start(button=2)
    table3.deal(0, "AhKh9d")
    table3.deal(1, "AsKs2c")
    table3.deal(2, "QhQsTs")
    table3.act(1, "bring_in")
    table3.act(2, "call")
    table3.act(0, "complete", 10)
    table3.act(1, "call")
    assert ("raise", "All-in", 15, 15) in table3.kinds()
    table3.act(2, "raise", 15)  # all-in 5 over 10: short of a full raise
    assert table3.to_act == 0
    assert [k[0] for k in table3.kinds()] == ["fold", "call"]  # cannot re-raise
    table3.act(0, "call")
    assert [k[0] for k in table3.kinds()] == ["fold", "call"]
    table3.act(1, "call")
    assert table3.hand.street == 1


def test_st_1_timeout_of_the_bring_in_posts_the_bring_in() -> None:
    table = third_street()
    events = table.do(TimeoutExpired(1, 1_000))
    assert ForcedBetPosted(1, "bring_in", 2, False, True) in events
    assert table.to_act == 2
    events = table.do(TimeoutExpired(2, 2_000))
    assert any(type(e).__name__ == "Folded" and e.seat == 2 for e in events)


def test_st_1_timeout_checks_when_free() -> None:
    table = third_street()
    to_fourth(table)
    table.dealer()
    seat = table.to_act
    events = table.do(TimeoutExpired(seat, 10_000))
    assert any(type(e).__name__ == "Checked" and e.seat == seat for e in events)


def test_st_1_views_up_cards_for_everyone_down_cards_for_their_owner() -> None:
    table = third_street()
    game = table.game
    own = game.view(table.state, 0)
    other = game.view(table.state, 1)
    spectator = game.view(table.state, None)
    assert own.seats[0].down == cards("AhAd") and own.seats[0].up == cards("2d")
    assert other.seats[0].down == (None, None) and other.seats[0].up == cards("2d")
    assert spectator.seats[1].down == (None, None) and spectator.seats[1].up == cards("2c")
    assert own.small_blind == own.big_blind == -1
    dealt = next(e for e in table.events if isinstance(e, CardsDealt) and e.seat == 0)
    assert public_event(dealt, 1) == CardsDealtHidden(0, 2, cards("2d"), 0)


# --- random play ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["N7S", "P7S", "F7S"])
@pytest.mark.parametrize("seats", [2, 5, 8])
def test_st_1_random_bot_hands_conserve_chips_and_replay(code: str, seats: int) -> None:
    table = Table(code, seats, STUD_FL if code == "F7S" else STUD_NL, stacks=[300] * seats)
    play_random(table, 60, random.Random(seats))
    assert table.replayed() == table.state


def test_st_1_all_in_on_the_ante_the_next_player_to_the_left_brings_in() -> None:
    table = Table("F7S", 3, STUD_FL, stacks=[1, 1_000, 1_000])
    table.start(button=2)
    table.deal(0, "AhAd2c")  # the lowest door card, all-in on the ante
    table.deal(1, "KhKd9s")
    table.deal(2, "QhQd5d")
    assert table.stacks_now()[0] == 0
    assert table.to_act == 1
    assert [k[0] for k in table.kinds()] == ["bring_in", "complete"]


def test_st_1_best_visible_hand_all_in_the_next_player_to_the_left_speaks() -> None:
    table = Table("N7S", 3, STUD_NL, stacks=[1_000, 1_000, 13])
    table.start(button=2)
    table.deal(0, "AhAd9c")
    table.deal(1, "KhKd2c")
    table.deal(2, "QhQdAs")
    table.act(1, "bring_in")
    table.act(2, "complete", 12)  # all-in
    table.act(0, "call")
    table.act(1, "call")
    for seat, card in ((0, "3c"), (1, "5d"), (2, "Ac")):
        table.deal(seat, card)
    assert table.stacks_now()[2] == 0  # seat 2 shows the pair of aces but cannot act
    assert table.to_act == 0


def test_g_limit_1_stud_fixed_limit_cap_counts_the_completion_as_the_bet() -> None:
    table = third_street()
    table.act(1, "bring_in")
    table.act(2, "complete", 10)  # the bet
    table.act(0, "raise", 20)
    table.act(1, "raise", 30)
    table.act(2, "raise", 40)  # the third raise: capped
    assert table.to_act == 0
    assert [k[0] for k in table.kinds()] == ["fold", "call"]


def test_g_limit_1_pot_limit_stud_completes_to_the_small_bet_at_least() -> None:
    table = Table("P7S", 3, STUD_NL)
    table.start(button=2)
    table.deal(0, "AhAd9c")
    table.deal(1, "KhKd2c")
    table.deal(2, "QhQd5d")
    table.act(1, "bring_in")
    table.act(2, "complete", 10)
    # pot after calling: 3 antes + 2 + 10 + 10 = 25; raise to at most 10 + 25
    assert table.kinds()[-1] == ("raise", "Raise", 20, 35)
