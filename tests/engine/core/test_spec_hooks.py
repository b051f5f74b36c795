"""The core's hooks added for poker all'italiana (issue 16) and Telesina (issue 19), played on a test spec:
``winners_hook`` (a pot's winners among the shown hands; whether a hand must be shown, G-SHOW-1) and
``refusal_hook`` (the core's refusals in the game's own classes and language); and poker all'italiana's own
hooks (IT-RANK-4)."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from engine.cards import Rank, parse_cards
from engine.core import find_game
from engine.core.errors import SeatError
from engine.core.generic import CoreGame
from engine.core.model import (
    BetPlaced,
    HandEnded,
    HandMucked,
    HandShown,
    MuckHand,
    PotAwarded,
    Raised,
    SeatPlayer,
)
from engine.core.rules import hand_value
from engine.evaluation import MinimalBeatsRoyal
from engine.games.italian import errors as italian_errors
from engine.games.italian import hooks as italian_hooks
from engine.games.italian import model as italian_model
from engine.games.italian.model import Limit
from engine.games.italian.spec import SPECS, STREETS, pot_winners
from tests.engine.core.helpers import BLINDS, Table

HOLDEM = find_game("NT")
assert isinstance(HOLDEM, CoreGame)


def lowest_wins(state: Any, hand: Any, seats: tuple[int, ...]) -> tuple[int, ...]:
    """A ``winners_hook``: the lowest hold'em hand wins (a ranking the core's own value does not give)."""
    values = {seat: hand_value(HOLDEM.spec, hand, seat) for seat in seats}
    low = min(values.values())
    return tuple(seat for seat in seats if values[seat] == low)


LOWBALL = CoreGame(replace(HOLDEM.spec, code="TLW", winners_hook=lowest_wins))


def lowball_table(game: CoreGame = LOWBALL) -> Table:
    config = game.table_config(seats=3, tournament=True, forced=BLINDS, action_time_ms=1000, time_bank_ms=0)
    t = Table(game, game.initial_state(config))
    t.initial = t.state
    for seat in range(3):
        t.apply(game.seat_command(seat, f"p{seat}", 100, 0))
    return t


def check_down(t: Table) -> None:
    """Button 2: seat 2 calls, the small blind calls, the big blind checks; then everyone checks."""
    t.act(2, "call")
    t.act(0, "call")
    t.act(1, "check")
    for _ in range(3):
        for seat in (0, 1, 2):
            t.act(seat, "check")


def test_the_winners_hook_decides_who_wins_a_pot() -> None:
    """Seats 0, 1, 2 hold aces, kings, queens: under the hook the queens win the 30 chips; each hand
    shown is among the winners against those shown before it, so all three are shown (G-SHOW-1)."""
    t = lowball_table()
    t.start("As Ah Ks Kh Qs Qh 3c 2d 7c 9h 3d 4s 3h Jd", button=2)
    check_down(t)
    assert [e.seat for e in t.events if isinstance(e, HandShown)] == [0, 1, 2]
    assert [(p.amount, p.shares) for p in t.events if isinstance(p, PotAwarded)] == [(30, ((2, 30),))]
    assert t.stacks() == [90, 90, 120]
    assert t.replayed() == t.state


def test_a_hand_that_the_winners_hook_beats_is_not_shown_automatically() -> None:
    """Seat 0 shows queens first; the aces and the kings lose to them under the hook, so each of those
    players chooses (here: mucks) instead of being shown (G-SHOW-1 with the hook)."""
    t = lowball_table()
    t.start("Qs Qh As Ah Ks Kh 3c 2d 7c 9h 3d 4s 3h Jd", button=2)
    check_down(t)
    assert [e.seat for e in t.events if isinstance(e, HandShown)] == [0]
    assert t.to_act == 1
    t.apply(MuckHand(1, t.at))
    assert t.to_act == 2
    t.apply(MuckHand(2, t.at))
    assert [e.seat for e in t.events if isinstance(e, HandMucked)] == [1, 2]
    assert t.stacks() == [120, 90, 90]


def test_without_a_refusal_hook_the_core_refuses_in_english_with_the_italian_message_beside() -> None:
    t = lowball_table()
    with pytest.raises(SeatError) as refused:
        t.apply(SeatPlayer(0, "p9", 100))
    assert (str(refused.value), refused.value.italian) == ("seat 0 is taken", "Il posto 0 è occupato.")


def test_the_refusal_hook_raises_the_games_own_refusal() -> None:
    """Poker all'italiana's hook: the Italian class of the same name, Italian first, the core's English."""
    game = CoreGame(replace(LOWBALL.spec, code="TLX", refusal_hook=italian_errors.from_core))
    t = lowball_table(game)
    with pytest.raises(italian_errors.SeatError) as refused:
        t.apply(SeatPlayer(0, "p9", 100))
    assert (str(refused.value), refused.value.english) == ("Il posto 0 è occupato.", "seat 0 is taken")
    with pytest.raises(italian_errors.SeatError):
        t.apply(SeatPlayer(7, "p9", 100))  # no seat 7: refused the same way, the state unchanged
    assert t.state == t.replayed()


def test_from_core_refuses_a_refusal_without_an_italian_message() -> None:
    with pytest.raises(ValueError, match="no Italian refusal"):
        italian_errors.from_core(SeatError("seat 9 does not exist"))


def hand_of(cards: dict[int, str], lowest: int = 7) -> SimpleNamespace:
    """The hand's values a ``winners_hook`` reads: ``down`` (the cards by seat), ``lowest_rank`` (deck)."""
    return SimpleNamespace(lowest_rank=lowest, down={seat: parse_cards(t) for seat, t in cards.items()})


def table_with(option: MinimalBeatsRoyal) -> SimpleNamespace:
    return SimpleNamespace(config=SimpleNamespace(minimal_beats_royal=option))


def test_italian_pot_winners_it_rank_4_the_minimal_spade_straight_flush_beats_only_the_heart_royal() -> None:
    """IT-RANK-4 on a 4-player deck (7 to ace): A♠7♠8♠9♠10♠ beats A♥K♥Q♥J♥10♥ (unless the table's option
    turns it off) and loses to the royal of spades, as ranked otherwise."""
    hand = hand_of({0: "Ah Kh Qh Jh Th", 1: "As 7s 8s 9s Ts", 2: "Ad Kd Qd Jd Td"})
    on = table_with(MinimalBeatsRoyal.SPADES_VS_HEARTS)
    assert pot_winners(on, hand, (0, 1)) == (1,)
    assert pot_winners(on, hand, (1, 0)) == (1,)
    assert pot_winners(table_with(MinimalBeatsRoyal.OFF), hand, (0, 1)) == (0,)
    assert pot_winners(on, hand, (1, 2)) == (2,)  # the diamond royal is no heart royal: ranked as usual


def test_the_italian_specs_carry_the_hooks_and_the_rules_data() -> None:
    for limit, spec in SPECS.items():
        assert spec.code == f"{limit.value[0]}IT"
        assert spec.limit == limit.value
        assert spec.winners_hook is pot_winners
        assert spec.refusal_hook is italian_errors.from_core
        assert (spec.max_seats, spec.draw_limit, spec.streets) == (9, 4, STREETS)  # IT-DECK-1, IT-CAMBIO-1
        assert spec.opener_hook is italian_hooks.opener  # IT-BUIO-3, IT-BET-1
        assert spec.answer_hook is italian_hooks.answering  # IT-BUIO-2
        assert spec.must_show_hook is italian_hooks.all_in_raiser_shows  # IT-SHOW-1
        assert spec.bet_event_hook is italian_hooks.bet_event  # IT-RAISE-1's reopens
        assert spec.hand_ended_hook is italian_hooks.hand_ended
        assert spec.deck_hook is italian_hooks.deck  # IT-DECK-1
        assert spec.supply_hook is italian_hooks.supply  # IT-CAMBIO-3
    assert SPECS[Limit.NO_LIMIT].name == find_game("NIT").name


# --- the hooks poker all'italiana's turn order, showdown, bets and end of a hand go through (issue 16) ----


def _button_answers_last(state: Any, hand: Any) -> int | None:
    """An ``answer_hook``: before the flop, the button (seat 2) answers last until he has acted."""
    return 2 if hand.street == 0 and hand.acted_at[2] < 0 else None


def test_the_answer_hook_seat_acts_after_everyone_else() -> None:
    """Button 2, blinds 0 and 1: the button would speak first before the flop; under the hook (IT-BUIO-2's
    shape: one seat answers last) the blinds act first, then the button, and the flop follows."""
    game = CoreGame(replace(HOLDEM.spec, code="TAN", answer_hook=_button_answers_last))
    t = lowball_table(game)
    t.start("As Ah Ks Kh Qs Qh 3c 2d 7c 9h 3d 4s 3h Jd", button=2)
    assert t.to_act == 0
    t.act(0, "call")
    assert t.to_act == 1
    t.act(1, "check")
    assert t.to_act == 2
    t.act(2, "call")
    assert (t.hand.street, t.to_act) == (1, 0)  # the flop: the usual order again
    assert t.replayed() == t.state


def test_next_better_passes_over_the_answering_seat_until_everyone_else_is_done() -> None:
    """The core's turn order with an answering seat (:func:`engine.core.rules.next_better`): it is passed
    over while another seat must act; it is due last only if another seat with chips could answer it."""
    from engine.core.rules import next_better

    seats = (SimpleNamespace(stack=10), SimpleNamespace(stack=10), SimpleNamespace(stack=0))
    state = SimpleNamespace(seats=seats)
    hand = SimpleNamespace(folded=frozenset(), current_bet=4, round_bets=(4, 0, 4))
    assert next_better(state, hand, 2, lambda s: s == 0, answering=0) == 1
    done = SimpleNamespace(folded=frozenset(), current_bet=4, round_bets=(4, 4, 4))
    assert next_better(state, done, 2, lambda s: s != 0, answering=0) == 0
    assert next_better(state, done, 2, lambda s: s != 0, answering=None) == 0  # not acted yet
    assert next_better(state, done, 2, lambda s: True, answering=None) is None
    alone = SimpleNamespace(folded=frozenset({1}), current_bet=4, round_bets=(4, 0, 4))
    assert next_better(state, alone, 2, lambda s: s != 0, answering=0) is None  # nobody to answer him


def test_the_must_show_hook_shows_a_hand_the_shown_hands_beat() -> None:
    """As in the test above, seat 0 shows queens first; the hook (IT-SHOW-1's all-in raiser) makes seat 1
    show his aces at once although the queens beat them under the winners hook; seat 2 chooses."""
    game = CoreGame(replace(LOWBALL.spec, code="TMS", must_show_hook=lambda state, hand, seat: seat == 1))
    t = lowball_table(game)
    t.start("Qs Qh As Ah Ks Kh 3c 2d 7c 9h 3d 4s 3h Jd", button=2)
    check_down(t)
    assert [e.seat for e in t.events if isinstance(e, HandShown)] == [0, 1]
    assert t.to_act == 2


def test_the_bet_event_hook_gives_the_games_events_for_bets_and_raises() -> None:
    """The core's bets and raises go through the hook with ``(seat, to, all_in, raising, full)``."""
    calls: list[tuple[int, int, bool, bool, bool]] = []

    def events(seat: int, to: int, all_in: bool, raising: bool, full: bool) -> Any:
        calls.append((seat, to, all_in, raising, full))
        return (Raised if raising else BetPlaced)(seat, to, all_in, full)

    game = CoreGame(replace(HOLDEM.spec, code="TBE", bet_event_hook=events))
    t = lowball_table(game)
    t.start("As Ah Ks Kh Qs Qh 3c 2d 7c 9h 3d 4s 3h Jd", button=2)
    t.act(2, "raise", 30)
    t.act(0, "fold")
    t.act(1, "call")
    t.act(1, "bet", 100 - 30)
    assert calls == [(2, 30, False, True, True), (1, 70, True, False, True)]
    assert t.replayed() == t.state


def test_italian_bet_event_hook_builds_its_own_bet_and_raise() -> None:
    assert italian_hooks.bet_event(3, 40, False, False, True) == italian_model.BetPlaced(3, 40, False)
    assert italian_hooks.bet_event(3, 70, True, True, False) == italian_model.Raised(3, 70, True, False)


def test_the_hand_ended_hook_builds_the_end_of_a_hand() -> None:
    """The core gives the hook the stacks, the contributions, the uncontested winner and no outcome."""
    seen: list[tuple[Any, ...]] = []

    def ended(hand: Any, stacks: Any, contributions: Any, uncontested: Any, outcome: Any) -> HandEnded:
        seen.append((stacks, contributions, uncontested, outcome))
        return HandEnded(hand.number, stacks, contributions, uncontested)

    game = CoreGame(replace(HOLDEM.spec, code="THE", hand_ended_hook=ended))
    t = lowball_table(game)
    t.start("As Ah Ks Kh Qs Qh 3c 2d 7c 9h 3d 4s 3h Jd", button=2)
    t.act(2, "fold")
    t.act(0, "fold")
    assert seen == [(((0, 95), (1, 105), (2, 100)), ((0, 5), (1, 5)), 1, None)]
    assert [e for e in t.events if isinstance(e, HandEnded)] == [HandEnded(1, *seen[0][:3])]


def test_italian_hand_ended_hook_records_the_outcome() -> None:
    hand = SimpleNamespace(number=4)
    stacks, contributions = ((0, 90), (1, 110)), ((0, 10), (1, 10))
    assert italian_hooks.hand_ended(hand, stacks, contributions, 1, None) == italian_model.HandEnded(
        4, italian_model.HandResult.AWARDED, stacks, 0, Rank.JACK, (), 0, contributions, 1
    )
    parol = italian_hooks.HandOutcome(italian_model.HandResult.PAROL, 20, Rank.KING, (0, 1), 10)
    assert italian_hooks.hand_ended(hand, stacks, contributions, None, parol) == italian_model.HandEnded(
        4, italian_model.HandResult.PAROL, stacks, 20, Rank.KING, (0, 1), 10, contributions, None
    )


def test_italian_supply_hook_reshuffles_the_other_players_discards_only_when_the_stock_is_empty() -> None:
    """IT-CAMBIO-3: the stock is empty and seat 2 is owed cards: seats 0 and 1's discards not yet back in
    play, never seat 2's own, form the new stock in the hand's reshuffle order; with cards left, nothing."""
    deck = parse_cards("As Ks Qs Js Ts 9s 8s 7s")
    discards = (parse_cards("As Ks"), parse_cards("Qs Js"), parse_cards("Ts"))
    hand = SimpleNamespace(
        stock=(), dealt=(0, 1, 2), discards=discards, reshuffled=frozenset(parse_cards("Js")), deck=deck,
        reshuffles=0,
    )
    event = italian_hooks.supply(None, hand, (2, 1, 0, False))  # type: ignore[arg-type]
    assert isinstance(event, italian_model.DiscardsReshuffled)
    pile = parse_cards("As Ks Qs")
    assert set(event.stock) == set(pile)
    assert event.stock == italian_hooks.reshuffle_order(deck, pile, 1)
    with_stock = SimpleNamespace(**{**vars(hand), "stock": parse_cards("9s")})
    assert italian_hooks.supply(None, with_stock, (2, 1, 0, False)) is None  # type: ignore[arg-type]
    assert len(italian_hooks.deck(4)) == 32  # 7 to ace (IT-DECK-1)
