"""Texas Hold'em and Omaha on the core: the rules G-*, TH-1, OM-1, T-SITOUT-1, T-ELIM-1 hand by hand.

Seats are 0-based; with the first button forced on seat ``b`` the blinds are the next seats dealt in.
Deck strings give the top of the stock in dealing order: two (Omaha: four) cards per seat from the left of
the button, then burn + flop, burn + turn, burn + river (TH-1).
"""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.core import ForcedBets
from engine.core.errors import ActionNotAllowed, BadAmount, BadCards, NotYourTurn, TimeoutTooEarly
from engine.core.model import (
    BoardDealt,
    CardsDealt,
    DealBoard,
    DealFromTop,
    ForcedBetPosted,
    HandEnded,
    HandShown,
    HandStarted,
    PlayerEliminated,
    PlayerSatOut,
    PlayerTimedOut,
    PotAwarded,
    RemovePlayer,
    ShowdownStarted,
    TimeBankUsed,
    TimeoutExpired,
    UncalledBetReturned,
)
from engine.core.rules import top_deal
from tests.engine.core.helpers import deck, of, table

# seats 0, 1, 2 receive AsAh, KsKh, QsQh; the board 2d 7c 9h 4s Jd makes no straight or flush
THREE_PAIRS = "As Ah Ks Kh Qs Qh 3c 2d 7c 9h 3d 4s 3h Jd"


def test_three_way_all_in_makes_a_main_pot_and_a_side_pot_and_returns_the_uncalled_bet() -> None:
    """G-POT-1 (each all-in makes a pot only its contributors win), G-SHOW-2 (the uncalled 100 goes back),
    G-SHOW-1 / TDA 16 (all hands face up before the board is run out), TH-1 (burns)."""
    t = table("NT", [100, 200, 300])
    t.start(THREE_PAIRS, button=2)  # small blind seat 0, big blind seat 1, seat 2 first to act
    assert t.to_act == 2
    t.act(2, "raise", 300)
    t.act(0, "call")
    events = t.act(1, "call")
    shown = [i for i, e in enumerate(events) if isinstance(e, HandShown)]
    boards = [i for i, e in enumerate(events) if isinstance(e, BoardDealt)]
    assert len(shown) == 3 and max(shown) < min(boards)  # face up before the run-out
    assert [e.burn for e in of(events, BoardDealt)] == [
        parse_cards("3c"),
        parse_cards("3d"),
        parse_cards("3h"),
    ]
    assert of(events, UncalledBetReturned) == [UncalledBetReturned(2, 100)]
    pots = of(events, PotAwarded)
    assert [(p.amount, p.eligible, p.shares) for p in pots] == [
        (300, (0, 1, 2), ((0, 300),)),
        (200, (1, 2), ((1, 200),)),
    ]
    assert t.stacks() == [300, 200, 100]
    assert [e.seat for e in of(t.events, PlayerEliminated)] == []
    assert t.replayed() == t.state


def test_a_split_pot_gives_the_odd_chip_to_the_first_winner_left_of_the_button() -> None:
    """G-POT-2: the board plays (a royal flush), 25 chips split 13 / 12, the odd chip to seat 1, the first
    winner left of the button (seat 2); the folded small blind's 5 chips are dead money."""
    t = table("NT", [100, 100, 100])
    t.start("2c 3d 4c 5d 6c 7d 8h Ts Js Qs 8c Ks 9h As", button=2)
    t.act(2, "call")
    t.act(0, "fold")
    t.act(1, "check")
    for _ in range(3):
        t.act(1, "check")
        t.act(2, "check")
    pot = of(t.events, PotAwarded)[-1]
    assert (pot.amount, pot.shares) == (25, ((1, 13), (2, 12)))
    assert t.stacks() == [95, 103, 102]


def test_heads_up_the_button_posts_the_small_blind_acts_first_preflop_and_last_after() -> None:
    """G-BLIND-2."""
    t = table("NT", [100, 100])
    events = t.start(button=0)
    posted = [(e.seat, e.kind, e.amount) for e in of(events, ForcedBetPosted)]
    assert posted == [(0, "small_blind", 5), (1, "big_blind", 10)]
    assert t.to_act == 0
    t.act(0, "call")
    assert t.to_act == 1  # the big blind's option
    t.act(1, "check")
    assert t.hand.street == 1 and t.to_act == 1  # after the flop the button speaks last
    t.act(1, "check")
    assert t.to_act == 0
    t.act(0, "bet", 10)
    t.act(1, "fold")
    assert of(t.events, HandEnded)[-1].uncontested_winner == 0
    events = t.start(button=None)
    started = of(events, HandStarted)[0]
    assert (started.button, started.small_blind, started.big_blind) == (1, 1, 0)
    assert t.to_act == 1


def test_the_first_round_starts_left_of_the_big_blind_who_may_check_when_nobody_raised() -> None:
    """G-ACT-1, G-BLIND-1: four players, button 0: small blind 1, big blind 2, seat 3 first."""
    t = table("NT", [100, 100, 100, 100])
    t.start(button=0)
    order = []
    for action in ("call", "call", "call"):
        order.append(t.to_act)
        t.act(t.to_act, action)  # type: ignore[arg-type]
    assert order == [3, 0, 1]
    assert t.to_act == 2 and [k[0] for k in t.kinds(2)] == ["fold", "check", "raise", "raise"]
    t.act(2, "check")
    assert t.hand.street == 1 and t.to_act == 1  # after the flop: the first player left of the button


def test_the_minimum_raise_is_the_last_full_raise_and_pot_limit_caps_at_the_pot_after_calling() -> None:
    """G-ACT-2 (raise by at least the last bet or raise increment), G-LIMIT-1 (PL: current bet + the pot
    after calling)."""
    t = table("NT", [1000, 1000, 1000])
    t.start(button=2)
    assert t.kinds(2)[2] == ("raise", "Raise", 20, 999)
    t.act(2, "raise", 50)  # a raise of 40
    assert t.kinds(0)[2][2] == 90  # 50 + 40
    p = table("PT", [1000, 1000, 1000])
    p.start(button=2)
    assert p.kinds(2)[2][2:] == (20, 35)  # 10 + (15 in the pot + 10 to call)
    p.act(2, "raise", 35)
    assert p.kinds(0)[2][2:] == (60, 115)  # 35 + (50 + 30 to call)
    with pytest.raises(BadAmount):
        p.act(0, "raise", 116)


def test_a_short_all_in_raise_does_not_reopen_the_betting_to_players_who_already_acted() -> None:
    """G-ACT-2: seat 2 raises to 100, seat 0 calls, the big blind goes all-in for 150 (a raise of 50, short
    of the 90 of the last full raise): seats 2 and 0 may only call or fold."""
    t = table("NT", [150, 1000, 1000])
    t.start(button=1)  # small blind seat 2, big blind seat 0 (150 chips), seat 1 first
    t.act(1, "raise", 100)
    t.act(2, "call")
    raised = t.act(0, "raise", 150)
    assert raised[0].full is False  # type: ignore[union-attr]
    assert [k[0] for k in t.kinds(1)] == ["fold", "call"]
    with pytest.raises(ActionNotAllowed):
        t.act(1, "raise", 300)
    t.act(1, "call")
    assert [k[0] for k in t.kinds(2)] == ["fold", "call"]
    t.act(2, "call")
    assert t.hand.street == 1 and t.hand.contributed == (150, 150, 150)


def test_a_player_who_has_not_acted_may_raise_over_a_short_all_in() -> None:
    """G-ACT-2: the short all-in does not close the betting for a player still to act."""
    t = table("NT", [1000, 150, 1000, 1000])
    t.start(button=0)  # small blind 1 (150 chips), big blind 2, seat 3 first
    t.act(3, "raise", 100)
    t.act(0, "call")
    t.act(1, "raise", 150)  # all-in, short
    assert [k[0] for k in t.kinds(2)] == ["fold", "call", "raise", "raise"]
    assert t.kinds(2)[2][2] == 240  # 150 + the full raise of 90


def test_the_uncalled_bet_is_returned_and_the_winner_need_not_show() -> None:
    """G-SHOW-2."""
    t = table("NT", [100, 100])
    t.start(button=0)
    t.act(0, "raise", 30)
    events = t.act(1, "fold")
    assert of(events, UncalledBetReturned) == [UncalledBetReturned(0, 20)]
    assert of(events, HandShown) == []
    assert of(events, PotAwarded)[0].shares == ((0, 20),)
    assert t.stacks() == [110, 90]


def test_fixed_limit_caps_a_round_at_one_bet_and_three_raises_heads_up_too_in_tournaments() -> None:
    """G-LIMIT-1: small bet = the big blind preflop and on the flop, big bet = twice on the turn and river;
    the big blind is the bet, three raises follow; a tournament keeps the cap heads-up, a ring game lifts
    it when two players start the round (CASH-3)."""
    t = table("FT", [1000, 1000, 1000])
    t.start(button=0)
    assert t.kinds(t.to_act)[2] == ("raise", "Raise", 20, 20)  # type: ignore[arg-type]
    for to in (20, 30, 40):
        t.act(t.to_act, "raise", to)  # type: ignore[arg-type]
    assert [k[0] for k in t.kinds(t.to_act)] == ["fold", "call"]  # type: ignore[arg-type]
    for _ in range(2):
        t.act(t.to_act, "call")  # type: ignore[arg-type]
    assert t.hand.street == 1
    for _ in range(3):
        t.act(t.to_act, "check")  # type: ignore[arg-type]
    assert t.hand.street == 2
    assert t.kinds(t.to_act)[2][2:] == (20, 20)  # type: ignore[arg-type]  # the big bet on the turn
    for heads_up_tournament, capped in ((True, True), (False, False)):
        h = table("FT", [1000, 1000], tournament=heads_up_tournament)
        h.start(button=0)
        for to in (20, 30, 40):
            h.act(h.to_act, "raise", to)  # type: ignore[arg-type]
        can_raise = any(k[0] == "raise" for k in h.kinds(h.to_act))  # type: ignore[arg-type]
        assert can_raise is not capped


def test_the_big_blind_ante_is_dead_money_in_the_main_pot() -> None:
    """G-ANTE-1: the big blind posts the table's ante before the blind (short: the ante first), as dead
    money: with 15 chips he posts the ante of 10 and is all-in for 5 of the blind, and wins from each
    player only the 5 he matched plus the dead ante; the others' extra 5 each make a side pot."""
    forced = ForcedBets(small_blind=5, big_blind=10, big_blind_ante=10)
    t = table("NT", [1000, 15, 1000], forced=forced)
    # seat 1 (big blind) gets aces; seats 0 and 2 kings and queens
    t.start("Ks Kh As Ah Qs Qh 3c 2d 7c 9h 3d 4s 3h Jd", button=2)
    posted = [(e.seat, e.kind, e.amount, e.dead) for e in of(t.events, ForcedBetPosted)]
    assert posted == [
        (1, "big_blind_ante", 10, True),
        (0, "small_blind", 5, False),
        (1, "big_blind", 5, False),
    ]
    assert t.to_act == 2 and t.kinds(2)[1] == ("call", "Call", 10, 10)  # the full big blind is the bet
    t.act(2, "call")
    t.act(0, "call")
    for _ in range(3):
        t.act(0, "check")
        t.act(2, "check")
    t.act(2, "muck")  # queens: beaten by the kings shown in the side pot and the aces in the main pot
    pots = [(p.amount, p.eligible, p.shares) for p in of(t.events, PotAwarded)]
    assert pots == [(25, (0, 1), ((1, 25),)), (10, (0,), ((0, 10),))]  # a mucked hand is not eligible
    assert t.stacks() == [1000, 25, 990]


def test_uniform_antes_count_in_the_pots_like_bets() -> None:
    """G-ANTE-1: a player all-in on the ante wins from each player what he put in."""
    forced = ForcedBets(small_blind=5, big_blind=10, ante=5)
    t = table("NT", [1000, 1000, 3], forced=forced)
    t.start("Ks Kh As Ah Qs Qh 3c 2d 7c 9h 3d 4s 3h Jd", button=0)  # seat 2 (all-in on the ante) has aces
    assert t.hand.contributed == (5, 10, 3)
    t.act(0, "call")
    t.act(1, "check")
    for _ in range(3):
        t.act(1, "check")
        t.act(0, "check")
    t.act(0, "muck")  # queens lose to the aces (main pot) and the kings (side pot)
    pots = [(p.amount, p.eligible, p.shares) for p in of(t.events, PotAwarded)]
    assert pots == [(9, (1, 2), ((2, 9),)), (24, (1,), ((1, 24),))]
    assert t.stacks() == [985, 1009, 9]


def test_a_straddle_is_a_third_blind_left_of_the_big_blind_who_speaks_last() -> None:
    """The straddle (ForcedBets.straddle): posted left of the big blind, the first round starts left of
    it, the minimum raise doubles it, and it has the option."""
    t = table("NT", [1000, 1000, 1000, 1000], forced=ForcedBets(small_blind=5, big_blind=10, straddle=20))
    t.start(button=0)
    assert [(e.seat, e.kind) for e in of(t.events, ForcedBetPosted)][-1] == (3, "straddle")
    assert t.to_act == 0 and t.kinds(0)[1:3] == [("call", "Call", 20, 20), ("raise", "Raise", 40, 999)]
    t.act(0, "call")
    t.act(1, "call")
    t.act(2, "call")
    assert t.to_act == 3 and t.kinds(3)[1][0] == "check"


def test_tournaments_use_a_dead_button_when_a_player_leaves() -> None:
    """G-BTN-1 (TDA 32): the big blind moves one player a hand; when the small blind of the last hand has
    left, the button stays on that empty seat."""
    t = table("NT", [100, 100, 100, 100])
    t.start(button=0)
    assert (t.hand.button, t.hand.small_blind, t.hand.big_blind) == (0, 1, 2)
    t.act(3, "fold")
    t.act(0, "fold")
    t.act(1, "fold")
    t.apply(RemovePlayer(1))
    started = of(t.start(), HandStarted)[0]
    assert (started.button, started.small_blind, started.big_blind) == (1, 2, 3)
    assert t.state.seats[1] is None and started.dealt == (2, 3, 0)
    assert t.to_act == 0
    t.act(0, "fold")
    t.act(2, "fold")
    started = of(t.start(), HandStarted)[0]
    assert (started.button, started.small_blind, started.big_blind) == (2, 3, 0)


def test_ring_games_use_the_dead_button_too() -> None:
    """CASH-4 (issue 21): in ring games as in tournaments the big blind moves one player; the small blind
    is on the last big blind's seat and the button where the last small blind was (here: empty)."""
    t = table("NT", [100, 100, 100, 100], tournament=False)
    t.start(button=0)
    for seat in (3, 0, 1):
        t.act(seat, "fold")
    t.apply(RemovePlayer(1))
    started = of(t.start(), HandStarted)[0]
    assert (started.button, started.small_blind, started.big_blind) == (1, 2, 3)


def test_time_out_checks_when_free_and_folds_facing_a_bet_using_the_time_bank() -> None:
    """Every player's time-out: check if free, else fold, after the action time and — facing a bet — the
    time bank; the player then sits out and is dealt in and played automatically (T-SITOUT-1)."""
    t = table("NT", [100, 100, 100], action_time_ms=1000, time_bank_ms=5000)
    t.start(button=0)  # seat 1 small blind, seat 2 big blind, seat 0 first
    deadline = t.hand.deadline
    with pytest.raises(TimeoutTooEarly):
        t.apply(TimeoutExpired(0, deadline + 4999))
    assert t.game.facts(t.state).deadline_ms == deadline + 5000
    events = t.apply(TimeoutExpired(0, deadline + 5000))
    assert [type(e) for e in events[:4]] == [PlayerTimedOut, TimeBankUsed, PlayerSatOut, type(events[3])]
    assert type(events[3]).__name__ == "Folded"
    t.act(1, "call")
    deadline = t.hand.deadline
    assert t.game.facts(t.state).deadline_ms == deadline  # checking is free: no time bank
    events = t.apply(TimeoutExpired(2, deadline))
    assert type(events[-1]).__name__ in ("BoardDealt", "TurnStarted", "StreetStarted")
    assert any(type(e).__name__ == "Checked" for e in events)
    t.deal()
    with pytest.raises(NotYourTurn):
        t.apply(TimeoutExpired(0, t.hand.deadline))


def test_absent_players_are_dealt_in_post_and_fold_and_an_all_absent_table_still_plays() -> None:
    """T-SITOUT-1: in a tournament a sitting-out player is dealt in, posts, and is played automatically
    (check if free, else fold); a table where everyone sits out plays its hands to the end. Outside
    tournaments a sitting-out player is not dealt in."""
    t = table("NT", [100, 100, 100])
    t.act(0, "sit_out")
    t.start(button=2)  # seat 0 posts the small blind while absent
    assert of(t.events, ForcedBetPosted)[0].seat == 0 and 0 in t.hand.dealt
    t.act(2, "call")
    assert 0 in t.hand.folded and t.to_act == 1
    for seat in (1, 2):
        if t.state.seats[seat] is not None and not t.state.seats[seat].sitting_out:  # type: ignore[union-attr]
            t.act(seat, "sit_out")
    t.deal()
    assert t.state.hand is None  # the absent players checked the hand down
    t.start()
    assert t.state.hand is None and of(t.events, HandEnded)[-1].number == 2
    ring = table("NT", [100, 100, 100], tournament=False)
    ring.act(0, "sit_out")
    ring.start(button=2)
    assert ring.hand.dealt == (1, 2)


def test_busted_players_are_eliminated_in_tournaments_only() -> None:
    """T-ELIM-1."""
    for tournament in (True, False):
        t = table("NT", [100, 50], tournament=tournament)
        t.start("As Ah Ks Kh 3c 2d 7c 9h 3d 4s 3h Jd", button=1)  # seat 0 (big blind) has aces
        t.act(1, "raise", 50)
        t.act(0, "call")
        eliminated = of(t.events, PlayerEliminated)
        if tournament:
            assert [(e.seat, e.player, e.hand, e.starting_stack) for e in eliminated] == [(1, "p1", 1, 50)]
            assert t.state.seats[1] is None
        else:
            assert eliminated == [] and t.stacks() == [150, 0]


def test_the_dealer_burns_and_deals_from_the_top_and_any_card_of_the_stock_is_accepted() -> None:
    """TH-1: cards leave the stock from the top, a card burnt before the flop, turn and river; a deal naming
    other cards of the stock (a replay) is accepted, a card not in the stock refused."""
    t = table("NT", [100, 100])
    t.start("As Ah Ks Kh 3c 2d 7c 9h", button=0)
    dealt = [(e.seat, e.down) for e in of(t.events, CardsDealt)]
    assert dealt == [(1, parse_cards("As Ah")), (0, parse_cards("Ks Kh"))]
    t.act(0, "call")
    t.act(1, "check")
    assert of(t.events, BoardDealt)[0] == BoardDealt(parse_cards("2d 7c 9h"), parse_cards("3c"))
    t.act(1, "check")
    t.apply(t.game.player_command(t.state, 0, "check", None, (), t.at))  # no automatic deal
    stock = t.hand.stock
    assert t.game.dealer_command(t.state, 0) == DealFromTop(0)
    assert top_deal(t.game.spec, t.state) == DealBoard(stock[1:2], stock[:1], 0)
    with pytest.raises(BadCards):
        t.apply(DealBoard(parse_cards("As")))  # dealt already
    with pytest.raises(BadCards):
        t.apply(DealBoard(parse_cards("Tc Td")))  # one card on the turn
    t.apply(DealBoard(parse_cards("Tc")))
    assert t.hand.board[-1] == parse_cards("Tc")[0] and len(t.hand.stock) == 52 - 4 - 4 - 1


def test_omaha_uses_exactly_two_hole_cards_and_three_board_cards() -> None:
    """OM-1: with Th in hand on a board of Ah Kh Qh Jh 5c, seat 1 has no royal flush (one hole card), only
    ace high; seat 0's pair of fives in hand makes three fives and wins."""
    t = table("NO", [100, 100])
    t.start("5d 5s 8c 9c Th 2c 3d 4s 6d Ah Kh Qh 6h Jh 6s 5c", button=1)
    t.act(1, "call")
    t.act(0, "check")
    for _ in range(3):
        t.act(0, "check")
        t.act(1, "check")
    assert t.to_act == 1  # beaten: seat 1 may muck
    t.act(1, "show")
    shown = {e.seat: e.label for e in of(t.events, HandShown)}
    assert shown[0] == "Three fives" and shown[1] == "Ace high"
    assert "flush" not in shown.get(1, "").lower()
    assert of(t.events, PotAwarded)[0].shares == ((0, 20),)
    assert t.stacks() == [110, 90]


def test_the_showdown_starts_with_the_last_aggressor_and_a_beaten_hand_may_be_mucked() -> None:
    """G-SHOW-1: seat 2 bet on the river and was called: it shows first; seat 0 (beaten) may muck."""
    t = table("NT", [100, 100, 100])
    t.start(THREE_PAIRS.replace("As Ah Ks Kh Qs Qh", "Qs Qh Ks Kh As Ah"), button=2)
    t.act(2, "call")
    t.act(0, "call")
    t.act(1, "check")
    for _ in range(2):
        for seat in (0, 1, 2):
            t.act(seat, "check")
    t.act(0, "check")
    t.act(1, "check")
    t.act(2, "bet", 20)
    t.act(0, "call")
    t.act(1, "call")
    started = of(t.events, ShowdownStarted)[0]
    assert started.order == (2, 0, 1)
    assert [e.seat for e in of(t.events, HandShown)] == [2]
    assert t.to_act == 0 and [k[0] for k in t.kinds(0)] == ["show", "muck"]
    t.act(0, "muck")
    assert t.to_act == 1
    t.act(1, "show")
    assert of(t.events, PotAwarded)[0].shares == ((2, 90),)
    assert t.replayed() == t.state


def test_forced_bets_that_do_not_fit_hold_em_are_refused_by_field() -> None:
    """check_forced_bets: no bring-in or invito in hold'em, a big blind needed, small blind ≤ big blind; FL's
    small and big bets default to the big blind and twice it (G-LIMIT-1)."""
    from engine.core import ForcedBetsRefused, find_game

    game = find_game("NT")
    for forced, field in (
        (ForcedBets(small_blind=5, big_blind=10, bring_in=2), "bring_in"),
        (ForcedBets(invito=10), "invito"),
        (ForcedBets(small_blind=5), "big_blind"),
        (ForcedBets(small_blind=20, big_blind=10), "small_blind"),
        (ForcedBets(small_blind=5, big_blind=10, small_bet=10), "small_bet"),
    ):
        with pytest.raises(ForcedBetsRefused) as refused:
            game.check_forced_bets(forced)
        assert refused.value.field == field
    find_game("FT").check_forced_bets(ForcedBets(small_blind=5, big_blind=10, small_bet=10, big_bet=20))
    assert find_game("NT").facts(table("NT", [10, 10]).state).forced_bet == 10


def test_the_deck_must_be_the_whole_standard_deck() -> None:
    t = table("NT", [100, 100])
    from engine.core.model import StartHand

    with pytest.raises(BadCards):
        t.apply(StartHand(deck("")[:51]))
    assert t.state.hand is None


@pytest.mark.parametrize(("second_all_in", "reopened"), [(220, True), (180, False)])
def test_short_all_ins_that_add_up_to_a_full_raise_reopen_the_betting(
    second_all_in: int, reopened: bool
) -> None:
    """G-ACT-2 (TDA 43): seat 3 raises to 100 (a raise of 90); two short all-ins follow (150, then
    ``second_all_in``): seat 3 may raise again only if the bet rose by a full raise (90) since it acted."""
    t = table("NT", [150, second_all_in, 1000, 1000])
    t.start(button=0)  # small blind 1, big blind 2, seat 3 first
    t.act(3, "raise", 100)
    t.act(0, "raise", 150)
    t.act(1, "raise", second_all_in)
    assert any(k[0] == "raise" for k in t.kinds(2))  # the big blind has not acted
    t.act(2, "call")
    assert any(k[0] == "raise" for k in t.kinds(3)) is reopened


def test_a_hand_history_may_name_every_forced_bet() -> None:
    """``StartHand.posts`` (PHH ``antes`` / ``blinds_or_straddles`` per player) replaces the forced bets the
    table's ``ForcedBets`` implies; an unknown kind or a seat not dealt in is refused."""
    from engine.core.model import StartHand

    t = table("NT", [100, 100, 100, 100], forced=ForcedBets(small_blind=1, big_blind=2, straddle=4))
    posts = (
        (1, "ante", 1, False),
        (1, "small_blind", 1, False),
        (2, "big_blind", 2, False),
        (3, "straddle", 4, False),
    )
    with pytest.raises(BadAmount):
        t.apply(StartHand(deck(""), button=0, posts=((7, "ante", 1, False),)))
    with pytest.raises(BadAmount):
        t.apply(StartHand(deck(""), button=0, posts=((1, "bribe", 1, False),)))
    t.apply(StartHand(deck(""), button=0, posts=posts))
    t.deal()
    assert [(e.seat, e.kind, e.amount) for e in of(t.events, ForcedBetPosted)] == [
        (s, k, a) for s, k, a, _ in posts
    ]
    assert t.to_act == 0 and t.hand.contributed == (0, 2, 2, 4)


def test_a_player_back_from_sitting_out_is_dealt_in_again() -> None:
    """Sit-out and return: in a ring game a sitting-out player is not dealt in until they return."""
    t = table("NT", [100, 100, 100], tournament=False)
    t.act(1, "sit_out")
    with pytest.raises(ActionNotAllowed):
        t.act(1, "sit_out")
    t.start(button=0)
    assert t.hand.dealt == (2, 0)
    t.act(0, "fold")
    t.act(1, "return")
    with pytest.raises(ActionNotAllowed):
        t.act(1, "return")
    t.start()
    assert sorted(t.hand.dealt) == [0, 1, 2]
    assert t.replayed() == t.state


def test_a_replay_names_every_card_and_may_omit_the_burns() -> None:
    """As a PHH replay deals: no deck at the start, each seat's cards and the board named (``d dh`` /
    ``d db``), no burn cards; cards already dealt or not in the stock are refused, the wrong number too."""
    from engine.core.model import DealCards, StartHand

    t = table("NT", [200, 200, 200])
    t.apply(StartHand(button=2))
    assert t.game.dealer_command(t.state, 0) is not None  # the dealer would deal from the top
    with pytest.raises(BadCards):
        t.apply(DealCards(1, parse_cards("Ac Kd")))  # seat 0 is first
    t.apply(DealCards(0, parse_cards("Ac Kd")))
    with pytest.raises(BadCards):
        t.apply(DealCards(1, parse_cards("Ac 2d")))  # Ac is dealt
    with pytest.raises(BadCards):
        t.apply(DealCards(1, parse_cards("2d")))  # two cards
    t.apply(DealCards(1, parse_cards("7h 7s")))
    t.apply(DealCards(2, parse_cards("Qc Qd")))

    def do(seat: int, action: str, amount: int | None = None) -> None:  # no automatic deal
        t.apply(t.game.player_command(t.state, seat, action, amount, (), 0))

    do(2, "raise", 30)
    do(0, "call")
    do(1, "call")
    t.apply(DealBoard(parse_cards("7c Kh 2s")))
    for seat in (0, 1, 2):
        do(seat, "check")
    t.apply(DealBoard(parse_cards("3d")))
    do(0, "bet", 50)
    do(1, "raise", 170)  # all-in
    do(2, "fold")
    do(0, "call")  # the hands are turned up (TDA 16), then the river
    t.apply(DealBoard(parse_cards("9h")))
    assert of(t.events, BoardDealt)[-1].burn == ()
    assert t.stacks() == [None, 430, 170]  # three sevens beat a pair of kings; seat 0 is out (T-ELIM-1)
    assert t.replayed() == t.state
