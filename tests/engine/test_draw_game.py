"""Five card draw on the shared core (``N5D`` ``P5D`` ``F5D``): blinds, the draw in turn (discard 0–5 or
stand pat), replacements, the reshuffle of the discards when the stock runs out, short all-ins, time-outs
and views (rules FD-1, G-BLIND-2, G-ACT-2, G-LIMIT-1)."""

from __future__ import annotations

import random

import pytest

from engine.core import ForcedBets, ForcedBetsRefused, find_game
from engine.core.errors import ActionNotAllowed, BadCards, NotYourTurn
from engine.core.model import CardsDealt, Discarded, StockReshuffled, TimeoutExpired
from engine.core.view import CardsDealtHidden, DiscardedHidden, StockReshuffledPublic, public_event
from engine.games.draw_rules import replace_cards, reshuffle_order
from tests.engine.studdraw_support import DRAW, Table, cards, play_random

# --- registry -------------------------------------------------------------------------------------------


def test_fd_1_registry_codes_names_and_up_to_six_seats() -> None:
    for code, short in (("N5D", "5CD NL"), ("P5D", "5CD PL"), ("F5D", "5CD FL")):
        game = find_game(code)
        assert game.short_name == short
        assert (game.min_seats, game.max_seats) == (2, 6)
        assert game.family.value == "draw"
        assert {"discard", "stand_pat"} <= set(game.actions)
        game.table_config(seats=6, tournament=False, forced=DRAW, action_time_ms=1, time_bank_ms=0)
        with pytest.raises(ValueError, match="2 to 6 seats"):
            game.table_config(seats=7, tournament=False, forced=DRAW, action_time_ms=1, time_bank_ms=0)


def test_fd_1_forced_bets_are_blinds() -> None:
    with pytest.raises(ForcedBetsRefused) as refused:
        find_game("N5D").check_forced_bets(ForcedBets(ante=1, bring_in=2, small_bet=10))
    assert refused.value.field == "bring_in"
    with pytest.raises(ForcedBetsRefused) as refused:
        find_game("N5D").check_forced_bets(ForcedBets(ante=1))
    assert refused.value.field == "big_blind"


# --- the draw -------------------------------------------------------------------------------------------

HANDS = ("AsKsQsJs2c", "3c3d3h9s8d", "7h7s5c5d4h")


def to_the_draw(code: str = "N5D", seats: int = 3) -> Table:
    """Button seat ``seats - 1``; seat ``i`` holds ``HANDS[i]``; everyone calls the big blind."""
    table = Table(code, seats, DRAW)
    table.start(button=seats - 1)
    for seat in range(seats):
        table.deal(seat, HANDS[seat])
    while table.hand.street == 0:
        kinds = [k[0] for k in table.kinds()]
        table.act(table.to_act, "check" if "check" in kinds else "call")
    return table


def test_fd_1_every_player_draws_in_turn_from_the_buttons_left() -> None:
    table = to_the_draw()
    assert table.to_act == 0
    assert table.kinds() == [("discard", "Draw", 1, 5), ("discard", "Stand pat", 0, 0)]
    for action in ("check", "fold"):
        with pytest.raises(ActionNotAllowed, match="discard"):
            table.act(0, action)
    with pytest.raises(ActionNotAllowed, match="discard"):
        table.act(0, "bet", 10)
    with pytest.raises(NotYourTurn):
        table.act(1, "discard", text="9s8d")
    table.act(0, "discard", text="2c")
    (dealt,) = [e for e in table.dealer() if isinstance(e, CardsDealt)]
    assert (dealt.seat, len(dealt.down), len(dealt.burn)) == (0, 1, 1)  # the burn before the first card
    assert table.to_act == 1
    table.act(1, "discard", text="9s8d")
    (dealt,) = [e for e in table.dealer() if isinstance(e, CardsDealt)]
    assert (dealt.seat, len(dealt.down), len(dealt.burn)) == (1, 2, 0)
    table.act(2, "stand_pat")
    assert table.dealer() == ()
    assert [len(cards) for cards in table.hand.down] == [5, 5, 5]
    assert table.hand.down[2] == cards(HANDS[2])  # stood pat
    assert table.to_act == 0  # the betting after the draw starts left of the button (FD-1)
    assert [k[0] for k in table.kinds()] == ["fold", "check", "bet", "bet"]


def test_fd_1_bad_discards_are_refused_and_change_nothing() -> None:
    table = to_the_draw()
    before = table.state
    for text, message in (("3c", "your own"), ("AsKsQsJs2c3c", "at most 5")):
        with pytest.raises(BadCards, match=message):
            table.act(0, "discard", text=text)
    with pytest.raises(BadCards, match="your own"):
        table.do(table.game.player_command(table.state, 0, "discard", None, cards("As") * 2, 0))
    assert table.state is before


def test_fd_1_discarding_all_five_cards() -> None:
    table = to_the_draw()
    table.act(0, "discard", text=HANDS[0])
    table.dealer()
    table.act(1, "stand_pat")
    table.act(2, "stand_pat")
    assert not set(table.hand.down[0]) & set(cards(HANDS[0]))
    assert len(table.hand.down[0]) == 5


def test_fd_1_heads_up_button_posts_small_blind_and_acts_first_before_the_draw_last_after() -> None:
    table = Table("N5D", 2, DRAW)
    table.start(button=1)
    assert table.hand.contributed == (10, 5)  # G-BLIND-2: the button (seat 1) posts the small blind
    table.deal(0, HANDS[0])
    table.deal(1, HANDS[1])
    assert table.to_act == 1
    table.act(1, "call")
    table.act(0, "check")
    assert table.to_act == 0  # the draw starts left of the button
    table.act(0, "stand_pat")
    table.act(1, "stand_pat")
    assert table.to_act == 0  # the big blind speaks first after the draw, the button last


def test_fd_1_draw_views_hide_the_discards_and_the_replacements() -> None:
    table = to_the_draw()
    table.act(0, "discard", text="2c")
    table.dealer()
    table.act(1, "discard", text="9s8d")
    table.dealer()
    table.act(2, "stand_pat")
    discarded = next(e for e in table.events if isinstance(e, Discarded) and e.seat == 1)
    assert public_event(discarded, 0) == DiscardedHidden(1, 2)
    assert public_event(discarded, 1) == discarded
    replaced = next(e for e in table.events if isinstance(e, CardsDealt) and e.seat == 1 and len(e.down) == 2)
    assert public_event(replaced, 0) == CardsDealtHidden(1, 2, (), 0)
    view = table.game.view(table.state, 0)
    assert view.seats[1].down == (None,) * 5 and view.seats[1].discarded == 2
    assert table.game.view(table.state, 1).seats[1].down == table.hand.down[1]


def test_fd_1_time_out_at_the_draw_stands_pat() -> None:
    table = to_the_draw()
    events = table.do(TimeoutExpired(0, 5_000))
    assert Discarded(0, ()) in events
    assert table.hand.down[0] == cards(HANDS[0])
    assert table.to_act == 1


# --- the reshuffle (FD-1) -------------------------------------------------------------------------------


def test_fd_1_six_players_changing_five_reshuffle_the_discards_but_not_their_own() -> None:
    table = Table("N5D", 6, DRAW)
    deck = tuple(random.Random(11).sample(find_game("N5D").deck(6).cards, 52))
    table.start(button=5, deck=deck)
    table.dealer()
    while table.hand.street == 0:
        kinds = [k[0] for k in table.kinds()]
        table.act(table.to_act, "check" if "check" in kinds else "call")
    assert len(table.hand.stock) == 22
    discards = {}
    served = {}
    stocks = {}
    for seat in range(6):
        assert table.to_act == seat
        discards[seat] = table.hand.down[seat]
        stocks[seat] = table.hand.stock
        served[seat] = table.act(seat, "discard", text="".join(map(str, discards[seat]))) + table.dealer()
    # 22 cards: the burn and 5 for each of seats 0-3 leave 1 for seat 4, who gets 4 more from the pile
    reshuffles = {s: [e for e in served[s] if isinstance(e, StockReshuffled)] for s in range(6)}
    assert [len(reshuffles[s]) for s in range(6)] == [0, 0, 0, 0, 1, 0]
    (reshuffle,) = reshuffles[4]
    (dealt,) = [e for e in served[4] if isinstance(e, CardsDealt)]
    burn = next(e for e in served[0] if isinstance(e, CardsDealt)).burn
    assert len(burn) == 1
    own = set(discards[4])
    # the pile: the discards of the players already served and the burn, never seat 4's own
    assert set(reshuffle.pile) == {c for seat in (0, 1, 2, 3) for c in discards[seat]} | set(burn)
    assert not own & set(reshuffle.pile)
    new = reshuffle_order(deck, reshuffle.pile, 1)
    assert reshuffle.stock == (deck[-1], *new)  # the stock's last card, then the reshuffled discards
    assert dealt.down == (deck[-1], *new[:4])
    assert not set(dealt.down) & own  # nobody is dealt back the cards they just threw
    # the engine serves seat 4 as the pure rule does (draw_rules.replace_cards)
    assert dealt.down == replace_cards(deck, stocks[4], reshuffle.pile, discards[4]).dealt
    held = [c for hand in table.hand.down for c in hand]
    assert len(held) == len(set(held)) == 30
    assert public_event(reshuffle, 0) == StockReshuffledPublic(len(reshuffle.pile), False)
    assert table.replayed() == table.state


# --- betting --------------------------------------------------------------------------------------------


def test_g_act_2_draw_short_all_in_raise_does_not_reopen_the_betting() -> None:
    table = Table("N5D", 3, DRAW, stacks=[1_000, 1_000, 150])
    table.start(button=2)
    for seat in range(3):
        table.deal(seat, HANDS[seat])
    table.act(2, "call")
    table.act(0, "call")
    table.act(1, "check")
    for seat in range(3):
        table.act(seat, "stand_pat")
    table.act(0, "bet", 100)
    table.act(1, "call")
    table.act(2, "raise", 140)  # all-in, 40 over 100: short of a full raise (to 200)
    assert table.to_act == 0
    assert [k[0] for k in table.kinds()] == ["fold", "call"]
    table.act(0, "call")
    assert [k[0] for k in table.kinds()] == ["fold", "call"]
    table.act(1, "call")
    assert table.state.hand is None or table.hand.showdown
    assert table.chips() == 2_150


def test_fd_1_fixed_limit_small_bet_before_the_draw_big_bet_after() -> None:
    table = Table("F5D", 3, DRAW)
    table.start(button=2)
    for seat in range(3):
        table.deal(seat, HANDS[seat])
    assert table.kinds()[-1] == ("raise", "Raise", 20, 20)
    table.act(2, "call")
    table.act(0, "call")
    table.act(1, "check")
    for seat in range(3):
        table.act(seat, "stand_pat")
    assert table.kinds()[-1] == ("bet", "Bet", 20, 20)


def test_fd_1_timeout_in_the_betting_checks_or_folds() -> None:
    table = Table("N5D", 3, DRAW)
    table.start(button=2)
    for seat in range(3):
        table.deal(seat, HANDS[seat])
    events = table.do(TimeoutExpired(2, 5_000))
    assert any(type(e).__name__ == "Folded" and e.seat == 2 for e in events)


# --- random play ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["N5D", "P5D", "F5D"])
@pytest.mark.parametrize("seats", [2, 4, 6])
def test_fd_1_random_bot_hands_conserve_chips_and_replay(code: str, seats: int) -> None:
    table = Table(code, seats, DRAW, stacks=[300] * seats)
    play_random(table, 60, random.Random(seats))
    assert table.replayed() == table.state
    assert any(isinstance(e, Discarded) and e.cards for e in table.events)
