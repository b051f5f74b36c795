"""Ring (cash) table rules of the core games (issue 21): CASH-1 (joining), CASH-2 (missed blinds ML / MS,
posted dead or live, or waiting for the big blind), CASH-4 (the dead button in ring games, 3 → 2 players,
a busted player keeps the seat), CASH-3 (the fixed-limit cap lifted heads-up), and the entry rule of the
ante games (a new player is dealt in at the next hand, posting the ante). Tournament tables keep their rules
(T-SITOUT-1, G-BTN-1, G-LIMIT-1)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.codec import from_data, to_data
from engine.core import ForcedBets, find_game
from engine.core.errors import ActionNotAllowed, NotARingTable, NothingOwed
from engine.core.model import (
    BlindMissed,
    BlindPostingChosen,
    ForcedBetPosted,
    HandStarted,
    PlayerEliminated,
    PostBlind,
    RemovePlayer,
    ReturnToPlay,
    SeatPlayer,
    SitOut,
    WaitForBigBlind,
)
from tests.engine.core.helpers import Table, of, table


def finish(t: Table) -> None:
    """Play the hand out: check when free, else fold (the big blind wins when everyone folds to it)."""
    while t.state.hand is not None:
        seat = t.to_act
        assert seat is not None
        kinds = {a.kind for a in t.game.legal_actions(t.state, seat)}
        action = next(k for k in ("check", "fold", "show", "muck") if k in kinds)
        t.act(seat, action)


def started(events: list[Any]) -> HandStarted:
    (hand,) = of(events, HandStarted)
    return hand


def posts(events: list[Any]) -> list[tuple[int, str, int, bool, bool]]:
    return [(e.seat, e.kind, e.amount, e.dead, e.live) for e in of(events, ForcedBetPosted)]


def ring(stacks: list[int | None], code: str = "NT", **kwargs: Any) -> Table:
    return table(code, stacks, tournament=False, **kwargs)


def first_hand(t: Table, button: int = 0) -> HandStarted:
    hand = started(t.start(button=button))
    finish(t)
    return hand


# --- CASH-1: joining -------------------------------------------------------------------------------------


def test_cash_1_the_first_hand_deals_everyone_and_a_later_newcomer_is_new() -> None:
    t = ring([100, 100, 100, 100, None, None])
    assert not any(o.new for o in t.state.seats if o is not None)
    hand = first_hand(t)
    assert hand.dealt == (1, 2, 3, 0)
    t.apply(SeatPlayer(4, "p4", 100))
    newcomer = t.state.seats[4]
    assert newcomer is not None and newcomer.new and newcomer.owes
    assert t.game.view(t.state, 4).seats[4].new  # type: ignore[union-attr]


def test_cash_1_left_of_the_big_blind_a_newcomer_waits_by_default() -> None:
    t = ring([100, 100, 100, 100, None, None])
    first_hand(t)  # button 0, blinds 1 and 2
    t.apply(SeatPlayer(4, "p4", 100))
    kinds = [(a.kind, a.minimum) for a in t.game.legal_actions(t.state, 4)]
    assert kinds == [("post_blind", 10), ("wait_big_blind", 0)]
    hand = started(t.start())
    # CASH-4: the big blind moves one player (to 3), the small blind on the last big blind (2), the
    # button where the last small blind was (1); the newcomer waits
    assert (hand.button, hand.small_blind, hand.big_blind) == (1, 2, 3)
    assert 4 not in hand.dealt
    assert t.state.seats[4].new  # type: ignore[union-attr]
    finish(t)
    hand = started(t.start())  # the big blind reaches the newcomer: dealt in, it plays it
    assert hand.big_blind == 4 and 4 in hand.dealt
    assert (4, "big_blind", 10, False, True) in posts(t.events[-20:])
    assert not t.state.seats[4].new  # type: ignore[union-attr]


def test_cash_1_left_of_the_big_blind_a_newcomer_may_post_a_live_big_blind() -> None:
    t = ring([100, 100, 100, 100, None, None])
    first_hand(t)
    t.apply(SeatPlayer(4, "p4", 100))
    produced = t.apply(PostBlind(4, 5))
    assert produced == (BlindPostingChosen(4, True),)
    assert [a.kind for a in t.game.legal_actions(t.state, 4)] == ["wait_big_blind"]
    events = t.start()
    hand = started(events)
    assert (hand.button, hand.small_blind, hand.big_blind) == (1, 2, 3)
    assert hand.dealt == (2, 3, 4, 0, 1)
    assert posts(events) == [
        (2, "small_blind", 5, False, True),
        (3, "big_blind", 10, False, True),
        (4, "posted_big_blind", 10, False, True),
    ]
    # the poster speaks first (left of the big blind); the blind is live: they may check or raise
    assert t.to_act == 4
    assert {a.kind for a in t.game.legal_actions(t.state, 4)} == {"fold", "check", "raise"}
    assert t.stacks()[4] == 90
    seat = t.state.seats[4]
    assert seat is not None and not seat.new and not seat.posting


def test_cash_1_between_the_button_and_the_blinds_a_newcomer_waits_for_the_button_to_pass() -> None:
    t = ring([100, None, 100, None, 100, 100])
    hand = first_hand(t)
    assert (hand.button, hand.small_blind, hand.big_blind) == (0, 2, 4)
    t.apply(SeatPlayer(3, "p3", 100))
    t.apply(PostBlind(3, 1))  # posting does not buy a hand between the button and the small blind
    hand = started(t.start())
    assert (hand.button, hand.small_blind, hand.big_blind) == (2, 4, 5)
    assert 3 not in hand.dealt
    finish(t)
    events = t.start()  # the button passed: the newcomer, left of the big blind, posts and plays
    hand = started(events)
    assert (hand.button, hand.small_blind, hand.big_blind) == (4, 5, 0)
    assert 3 in hand.dealt
    assert (3, "posted_big_blind", 10, False, True) in posts(events)


def test_cash_1_a_newcomer_on_the_button_seat_is_not_dealt_in() -> None:
    t = ring([100, 100, 100, 100, None, None])
    first_hand(t)  # button 0, blinds 1 and 2: the next button is seat 1
    t.apply(RemovePlayer(1, 1))
    t.apply(SeatPlayer(1, "late", 100))
    t.apply(PostBlind(1, 2))
    hand = started(t.start())
    assert (hand.button, hand.small_blind, hand.big_blind) == (1, 2, 3)
    assert 1 not in hand.dealt


def test_cash_1_a_newcomer_in_the_big_blind_position_plays_it() -> None:
    t = ring([100, 100, 100, None, None, None])
    first_hand(t)  # button 0, blinds 1 and 2
    t.apply(SeatPlayer(3, "p3", 100))
    events = t.start()
    hand = started(events)
    assert (hand.button, hand.small_blind, hand.big_blind) == (1, 2, 3)
    assert hand.dealt == (2, 3, 0, 1)
    assert (3, "big_blind", 10, False, True) in posts(events)


def test_cash_1_newcomers_at_a_table_that_cannot_deal_start_it_afresh() -> None:
    t = ring([100, 100, None, None])
    first_hand(t)
    t.apply(RemovePlayer(1, 1))
    t.apply(SeatPlayer(2, "p2", 100))  # one regular and one newcomer: the game starts again
    assert t.game.can_start_hand(t.state)
    hand = started(t.start())
    assert set(hand.dealt) == {0, 2}


# --- CASH-2: missed blinds -----------------------------------------------------------------------------


def sit_out_through_the_blinds() -> Table:
    """Four players; seat 3 sits out after the first hand while the big blind and then the small blind pass
    it (markers ML, then ML+MS), then comes back."""
    t = ring([100, 100, 100, 100])
    first_hand(t)  # button 0, blinds 1 and 2
    t.apply(SitOut(3, 1))
    events = t.start()
    hand = started(events)
    assert (hand.small_blind, hand.big_blind) == (2, 0)  # the big blind passes seat 3
    assert of(events, BlindMissed) == [BlindMissed(3, "big_blind")]
    assert t.game.view(t.state, None).seats[3].markers == "ML"  # type: ignore[union-attr]
    finish(t)
    events = t.start()
    hand = started(events)
    assert (hand.small_blind, hand.big_blind) == (0, 1)  # the small blind passes it too
    assert of(events, BlindMissed) == [BlindMissed(3, "small_blind")]
    finish(t)
    seat = t.state.seats[3]
    assert seat is not None and seat.missed_big and seat.missed_small
    assert t.game.view(t.state, 3).seats[3].markers == "ML+MS"  # type: ignore[union-attr]
    t.apply(ReturnToPlay(3, 1))
    return t


def test_cash_2_missed_blinds_are_posted_the_small_blind_dead_and_the_big_blind_live() -> None:
    t = sit_out_through_the_blinds()
    # last hand: button 2, blinds 0 and 1; the next: button 0, blinds 1 and 2; seat 3 left of the big blind
    assert [(a.kind, a.minimum) for a in t.game.legal_actions(t.state, 3)] == [
        ("post_blind", 15),
        ("wait_big_blind", 0),
    ]
    t.apply(PostBlind(3, 2))
    before = t.stacks()
    events = t.start()
    hand = started(events)
    assert (hand.button, hand.small_blind, hand.big_blind) == (0, 1, 2)
    assert hand.dealt == (1, 2, 3, 0)
    assert posts(events) == [
        (1, "small_blind", 5, False, True),
        (2, "big_blind", 10, False, True),
        (3, "posted_big_blind", 10, False, True),
        (3, "dead_small_blind", 5, True, False),
    ]
    assert t.stacks()[3] == before[3] - 15  # type: ignore[operator]
    assert t.hand.dead == 5 and t.hand.round_bets[3] == 10  # the dead small blind is not their bet
    assert t.game.view(t.state, None).pot == 30
    seat = t.state.seats[3]
    assert seat is not None and not seat.missed_big and not seat.missed_small
    # the live big blind: checked around, the poster has no more to put in; chips conserved
    total = sum(s for s in before if s is not None)
    finish(t)
    assert sum(s for s in t.stacks() if s is not None) == total
    assert t.replayed() == t.state


def test_cash_2_waiting_for_the_big_blind_forgives_the_missed_small_blind() -> None:
    t = sit_out_through_the_blinds()
    events = t.start()  # waiting (the default): not dealt in left of the big blind
    assert 3 not in started(events).dealt
    finish(t)
    events = t.start()
    hand = started(events)
    assert hand.big_blind == 3 and 3 in hand.dealt
    assert [p for p in posts(events) if p[0] == 3] == [(3, "big_blind", 10, False, True)]
    seat = t.state.seats[3]
    assert seat is not None and not seat.missed_big and not seat.missed_small


def test_cash_2_never_more_than_one_marker_of_each_kind() -> None:
    t = ring([100, 100, 100, 100])
    first_hand(t)
    t.apply(SitOut(3, 1))
    missed = []
    for _ in range(6):  # the blinds go round twice
        events = t.start()
        assert 3 not in started(events).dealt
        missed += of(events, BlindMissed)
        finish(t)
    assert missed == [BlindMissed(3, "big_blind"), BlindMissed(3, "small_blind")]


def test_cash_2_waiting_cancels_a_post_and_choices_are_refused_when_nothing_is_owed() -> None:
    t = sit_out_through_the_blinds()
    t.apply(PostBlind(3, 1))
    with pytest.raises(ActionNotAllowed):
        t.apply(PostBlind(3, 2))
    assert t.apply(WaitForBigBlind(3, 3)) == (BlindPostingChosen(3, False),)
    with pytest.raises(ActionNotAllowed):
        t.apply(WaitForBigBlind(3, 4))
    with pytest.raises(NothingOwed):
        t.apply(PostBlind(0, 5))
    assert t.game.legal_actions(t.state, 0) == ()
    assert 3 not in started(t.start()).dealt


def test_cash_2_a_player_who_sits_out_after_the_big_blind_misses_the_small_blind_only() -> None:
    t = ring([100, 100, 100, 100])
    first_hand(t)  # blinds 1 and 2
    t.apply(SitOut(2, 1))  # the small blind is due on seat 2 next: dead, nobody posts it
    events = t.start()
    hand = started(events)
    assert (hand.button, hand.small_blind, hand.big_blind) == (1, 2, 3)
    assert [p[1] for p in posts(events)] == ["big_blind"]
    assert of(events, BlindMissed) == [BlindMissed(2, "small_blind")]
    finish(t)
    t.apply(ReturnToPlay(2, 1))
    t.apply(PostBlind(2, 2))
    events = t.start()  # button 2 (the last small blind's seat): the returning player waits
    hand = started(events)
    assert (hand.button, hand.small_blind, hand.big_blind) == (2, 3, 0)
    assert 2 not in hand.dealt
    finish(t)
    events = t.start()  # the button passed: posts the missed small blind, dead
    assert 2 in started(events).dealt
    assert [p for p in posts(events) if p[0] == 2] == [(2, "dead_small_blind", 5, True, False)]


def test_cash_2_choices_are_for_ring_blind_tables_only() -> None:
    t = table("NT", [100, 100, 100])  # a tournament
    t.start(button=0)
    finish(t)
    t.apply(SitOut(2, 1))
    with pytest.raises(NotARingTable):
        t.apply(PostBlind(2, 2))
    assert t.game.legal_actions(t.state, 2) == ()
    stud = ring([100, 100, 100], "F7S", forced=ForcedBets(ante=2, bring_in=5, small_bet=10, big_bet=20))
    with pytest.raises(NotARingTable):
        stud.apply(WaitForBigBlind(0, 1))


# --- CASH-4: dead button, 3 -> 2, busted players ----------------------------------------------------------


def test_cash_4_the_small_blind_is_dead_when_the_last_big_blind_left() -> None:
    t = ring([100, 100, 100, 100, 100])
    first_hand(t)  # button 0, blinds 1 and 2
    t.apply(RemovePlayer(2, 1))
    events = t.start()
    hand = started(events)
    assert (hand.button, hand.small_blind, hand.big_blind) == (1, 2, 3)
    assert [p[:2] for p in posts(events)] == [(3, "big_blind")]
    assert hand.dealt == (3, 4, 0, 1)
    assert t.to_act == 4


def test_cash_4_the_button_is_dead_when_the_last_small_blind_left() -> None:
    t = ring([100, 100, 100, 100, 100])
    first_hand(t)
    t.apply(RemovePlayer(1, 1))
    events = t.start()
    hand = started(events)
    assert (hand.button, hand.small_blind, hand.big_blind) == (1, 2, 3)
    assert t.state.seats[1] is None  # nobody on the button
    assert [p[:2] for p in posts(events)] == [(2, "small_blind"), (3, "big_blind")]
    assert hand.dealt == (2, 3, 4, 0)


@pytest.mark.parametrize("leaving", [0, 1, 2])
def test_cash_4_from_three_players_to_two_nobody_posts_the_big_blind_twice(leaving: int) -> None:
    """TDA 34: whoever leaves, the big blind moves on; heads-up the other player has button and small
    blind."""
    t = ring([100, 100, 100])
    first_hand(t)  # button 0, blinds 1 and 2
    t.apply(RemovePlayer(leaving, 1))
    bigs = [2]
    for _ in range(4):
        events = t.start()
        hand = started(events)
        assert len(hand.dealt) == 2
        assert hand.big_blind != bigs[-1]
        assert hand.button == hand.small_blind != hand.big_blind
        kinds = {p[0]: p[1] for p in posts(events)}
        assert kinds == {hand.small_blind: "small_blind", hand.big_blind: "big_blind"}
        bigs.append(hand.big_blind)
        finish(t)


def test_cash_4_a_busted_player_keeps_the_seat_and_misses_blinds() -> None:
    t = ring([100, 100, 100, 10])
    # seat 3 (under the gun) calls all-in with 7-2 against the big blind's aces and loses
    t.start("2c3d AsAh 7c2h 4h5s Jc KdQs9c 3s Td 4d 8h", button=0)
    t.act(3, "call")
    t.act(0, "fold")
    t.act(1, "fold")
    finish(t)
    assert t.stacks() == [100, 95, 115, 0]
    assert not of(t.events, PlayerEliminated)
    events = t.start()
    assert of(events, BlindMissed) == [BlindMissed(3, "big_blind")]
    assert 3 not in started(events).dealt
    assert t.state.seats[3] is not None


# --- CASH-3 --------------------------------------------------------------------------------------------


def raises_after_cap(tournament: bool, players: int) -> list[str]:
    stacks: list[int | None] = [500] * players
    t = table("FT", stacks, tournament=tournament)
    t.start(button=0)
    if players == 3:
        t.act(0, "fold")  # three start the round: the cap stays after this fold (CASH-4's reading)
        first = 1
    else:
        first = 0  # heads-up: the button posts the small blind and speaks first (G-BLIND-2)
    seat = first
    for to in (20, 30, 40):  # the big blind is the bet: three raises reach the cap
        t.act(seat, "raise", to)
        seat = 1 - seat if players == 2 else (2 if seat == 1 else 1)
    return [a.kind for a in t.game.legal_actions(t.state, seat)]


def test_cash_3_ring_lifts_the_fixed_limit_cap_heads_up() -> None:
    assert raises_after_cap(tournament=False, players=2) == ["fold", "call", "raise"]


def test_cash_3_tournaments_keep_the_cap_heads_up() -> None:
    assert raises_after_cap(tournament=True, players=2) == ["fold", "call"]


def test_cash_3_a_fold_during_the_round_does_not_lift_the_cap() -> None:
    assert raises_after_cap(tournament=False, players=3) == ["fold", "call"]


def test_cash_3_the_next_round_with_two_players_is_uncapped() -> None:
    t = ring([500, 500, 500], "FT")
    t.start(button=0)
    t.act(0, "fold")
    t.act(1, "call")
    t.act(2, "check")  # the flop, two players in
    assert not t.hand.capped
    seat = 1
    for to in (10, 20, 30, 40):
        t.act(seat, "bet" if to == 10 else "raise", to)
        seat = 3 - seat
    assert [a.kind for a in t.game.legal_actions(t.state, seat)] == ["fold", "call", "raise"]


# --- the ante games' entry ----------------------------------------------------------------------------------


ANTE_GAMES = [
    ("F7S", ForcedBets(ante=2, bring_in=5, small_bet=10, big_bet=20)),
    ("FTL", ForcedBets(invito=10)),
    ("PIT", ForcedBets(invito=10)),
]


@pytest.mark.parametrize(("code", "forced"), ANTE_GAMES, ids=[code for code, _ in ANTE_GAMES])
def test_ante_games_a_newcomer_is_dealt_in_at_the_next_hand_posting_the_ante(
    code: str, forced: ForcedBets
) -> None:
    import random

    game = find_game(code)
    config = game.table_config(seats=5, tournament=False, forced=forced, action_time_ms=1000, time_bank_ms=0)
    state = game.initial_state(config)
    for seat in range(3):
        state, _ = game.apply(state, game.seat_command(seat, f"p{seat}", 500, 0))
    rng = random.Random(7)

    def play_hand(state: Any) -> tuple[Any, list[Any]]:
        start = game.start_command(
            state,
            lambda d: tuple(rng.sample(d.cards, len(d.cards))),
            at=1000,
            forced=None,
            button=None,
            hand_id="h",
            commitment="",
            algorithm="",
        )
        state, events = game.apply(state, start)
        produced = list(events)
        for _ in range(500):
            if not game.facts(state).in_hand:
                return state, produced
            deal = game.dealer_command(state, 1000)
            if deal is None:
                (seat,) = game.to_act(state)
                deal = game.bot_command(state, seat, rng, 1000)
            state, events = game.apply(state, deal)
            produced.extend(events)
        raise AssertionError("the hand does not end")

    state, _ = play_hand(state)
    state, _ = game.apply(state, game.seat_command(4, "late", 500, 0))
    assert game.legal_actions(state, 4) == ()  # no blind to post or wait for
    state, events = play_hand(state)
    (hand,) = [e for e in events if type(e).__name__ == "HandStarted"]
    assert 4 in hand.dealt
    antes = [e for e in events if type(e).__name__ == "ForcedBetPosted" and e.seat == 4]
    if hasattr(hand, "antes"):  # poker all'italiana records the invito in its HandStarted (IT-ANTE-1)
        assert (4, forced.invito) in hand.antes
    else:
        assert [(e.kind, e.amount) for e in antes][:1] == [("ante", forced.ante + forced.invito)]


# --- events ---------------------------------------------------------------------------------------------


def test_ring_events_round_trip_and_are_registered() -> None:
    game = find_game("NT")
    for event in (BlindMissed(3, "small_blind"), BlindPostingChosen(2, True)):
        assert game.events[type(event).__name__] is type(event)
        assert from_data(type(event), to_data(event)) == event
    for command in (PostBlind(1, 5), WaitForBigBlind(1, 6)):
        assert from_data(type(command), to_data(command)) == command
    assert game.player_command(None, 1, "post_blind", None, (), 5) == PostBlind(1, 5)
    assert game.player_command(None, 1, "wait_big_blind", None, (), 6) == WaitForBigBlind(1, 6)


def test_ring_bot_posts_what_it_owes() -> None:
    t = sit_out_through_the_blinds()
    import random

    command = t.game.bot_command(t.state, 3, random.Random(1), 9)
    assert command == PostBlind(3, 9)


# --- hand histories -------------------------------------------------------------------------------------


def test_cash_2_a_hand_with_entries_exports_to_phh_and_replays_to_its_stacks() -> None:
    from engine.core.history import replay_standard
    from engine.phh import format_history, loads_histories

    t = sit_out_through_the_blinds()
    t.apply(PostBlind(3, 2))
    before = t.state
    mark = len(t.events)
    t.start()
    t.act(3, "raise", 30)  # the poster raises; the others call to the end
    while t.state.hand is not None:
        seat = t.to_act
        assert seat is not None
        kinds = {a.kind for a in t.game.legal_actions(t.state, seat)}
        t.act(seat, next(k for k in ("check", "call", "show") if k in kinds))
    history = t.game.export_hand(before, t.events[mark:])
    meta = dict(history.metadata)
    assert meta["_posted_big_blinds"] == [0, 0, 10, 0]  # p1 is the small blind (seat 1), p3 seat 3
    assert meta["_dead_small_blinds"] == [0, 0, 5, 0]
    text = format_history([history])
    (again,) = loads_histories(text)
    result = replay_standard(again)
    assert result.difference is None
    assert result.stacks == history.finishing_stacks
    assert sum(history.finishing_stacks or ()) == sum(history.starting_stacks)
