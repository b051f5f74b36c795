"""Telesina on the core (issue 19): rules TL-1, TL-DEAL-1, TL-DEAL-2, TL-VELE-1, TL-ACT-1, TL-CAP-1,
IT-DECK-1, IT-RANK-4, as scenario hands (``tests/data/telesina/*.phh``, see
:mod:`tests.engine.telesina_scenarios`) and direct checks of the game's refusals, views and options."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from engine.cards import Card, Deck, parse_cards
from engine.core import ForcedBets, ForcedBetsRefused, find_game
from engine.core.errors import ActionNotAllowed, BadCards, IllegalAction
from engine.core.history import replay_hand, replay_standard
from engine.core.model import (
    BetOrRaise,
    CardTurnedUp,
    CheckOrCall,
    HandShown,
    PotAwarded,
    StartHand,
    TimeoutExpired,
    TurnUp,
)
from engine.games.telesina import LAYOUTS, LayoutRefused, OptionRefused, seat_best_hand
from engine.phh import load_histories, loads_histories
from engine.replay import main as replay_main
from tests.engine.telesina_scenarios import DATA, SCENARIOS, Scenario, deck_for, phh_text, play

BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}


# --- the scenario hands ------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_tl_scenario_hands_end_with_their_stacks(scenario: Scenario) -> None:
    """TL-VELE-1 (every layout), TL-DEAL-2 (every distribution mode): the hand-checked finishing stacks."""
    played = play(scenario)
    assert tuple(o.stack for o in played.state.seats) == scenario.stacks
    assert sum(scenario.stacks) == sum(scenario.starting)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_tl_scenario_files_replay_and_match_a_fresh_export(scenario: Scenario) -> None:
    """The PHH files (XX-HH-1 with Telesina's extension) replay to their finishing stacks, and the engine
    still writes them byte for byte."""
    path = DATA / f"{scenario.name}.phh"
    (history,) = load_histories(path)
    assert history.finishing_stacks == scenario.stacks
    assert replay_hand(history) is None
    assert replay_standard(history).stacks == scenario.stacks
    assert path.read_text() == phh_text(scenario)
    assert replay_main([str(path)]) == 0


def test_tl_act_1_first_speakers_of_the_croce_hand() -> None:
    """TL-ACT-1 with vele: p2 (queens showing) speaks first in the four dealing rounds; after A+C (Ah, Ac)
    p1's aces and kings beat p2's aces and queens; after B+D (Th, Ad) p2 shows tens full (its B-E-D
    combination), and still after E."""
    assert play(BY_NAME["croce"]).speakers == [1, 1, 1, 1, 0, 1, 1]


def test_tl_act_1_suits_then_high_cards_and_an_all_in_opener() -> None:
    """TL-ACT-1 in the PHH scenarios: Jh before Jd (p2 first), then p1's queen, king, ace; and a best visible
    hand all-in on the invito passes the word to the next player on its left who can act (p3)."""
    assert play(BY_NAME["act_suits"]).speakers == [1, 0, 0, 0]
    assert play(BY_NAME["act_all_in"]).speakers == [2, 2, 2, 2]


def test_tl_vele_1_one_combination_only() -> None:
    """TL-VELE-1: with croce, Ah (A) and Th (B) are never in one combination, so p1 cannot make the heart
    flush both would give: it counts two pair and p2's full house wins (the split-layout scenarios: croce,
    H, piramide, ascensore)."""
    for name in ("croce", "h", "piramide", "ascensore"):
        played = play(BY_NAME[name])
        labels = {e.seat: e.label for e in played.events if isinstance(e, HandShown)}
        assert not labels[0].startswith("Flush"), (name, labels)
        assert labels[1].startswith("Full house"), (name, labels)
        pots = [e for e in played.events if isinstance(e, PotAwarded)]
        assert [share for pot in pots for share in pot.shares] == [(1, 60)]


def test_tl_vele_1_the_board_holds_only_turned_vele_in_turning_order() -> None:
    """Unturned vele are never dealt: after each croce step the board grows by the step (A+C, B+D, E)."""
    played = play(BY_NAME["croce"])
    boards = [len(e.cards) for e in played.events if type(e).__name__ == "BoardDealt"]
    assert boards == [2, 2, 1]
    assert LAYOUTS["croce"].order == "ACBDE"


# --- distribution modes (TL-DEAL-2) ----------------------------------------------------------------------


def _table(code: str = "NTL", players: int = 2, stacks: int = 100, **options: str) -> tuple[Any, Any]:
    game = find_game(code)
    config = game.table_config(
        seats=players,
        tournament=False,
        forced=ForcedBets(invito=10),
        action_time_ms=1000,
        time_bank_ms=0,
        **options,
    )
    state = game.initial_state(config)
    for seat in range(players):
        state, _ = game.apply(state, game.seat_command(seat, f"p{seat + 1}", stacks, 0))
    return game, state


def _dealt(game: Any, state: Any) -> Any:
    while (command := game.dealer_command(state, 0)) is not None:
        state, _ = game.apply(state, command)
    return state


def test_tl_deal_2_sempre_asks_each_player_which_hidden_card_goes_up() -> None:
    """TL-DEAL-2 ``sempre``: both round-1 cards come down; the seat to act may only turn one up (index 0 or
    1), a bet is refused with the reason, an index outside is refused, the state unchanged."""
    scenario = BY_NAME["sempre"]
    game, state = _table(layout="una", distribution="sempre")
    state, _ = game.apply(state, StartHand(deck_for(scenario), 0, None, 1, "x"))
    state = _dealt(game, state)
    assert state.hand.down[0] == parse_cards("9hJh") and state.hand.up[0] == ()
    assert [(a.kind, a.minimum, a.maximum) for a in game.legal_actions(state, 0)] == [("turn_up", 0, 1)]
    with pytest.raises(ActionNotAllowed, match="TL-DEAL-2"):
        game.apply(state, BetOrRaise(0, 10, 1))
    with pytest.raises(BadCards, match="index 0 to 1"):
        game.apply(state, TurnUp(0, 2, 1))
    with pytest.raises(ActionNotAllowed):
        game.apply(state, game.player_command(state, 0, "turn_up", None, (Card.parse("Qs"),), 1))
    after, events = game.apply(state, game.player_command(state, 0, "turn_up", None, (Card.parse("9h"),), 1))
    assert events[0] == CardTurnedUp(0, Card.parse("9h"))
    assert after.hand.up[0] == (Card.parse("9h"),) and after.hand.down[0] == (Card.parse("Jh"),)


def test_tl_deal_2_the_time_out_turns_up_the_card_dealt_last() -> None:
    """Decision (docs/rules-decisions.md): the time-out turns up the hidden card dealt last, says so
    (``automatic``), and sits the player out (IT-SIT-1)."""
    played = play(BY_NAME["sempre"])
    turned = [e for e in played.events if isinstance(e, CardTurnedUp) and e.seat == 1]
    assert [(str(e.card), e.automatic) for e in turned] == [
        ("Qd", True),
        ("Qc", True),
        ("Ts", True),
        ("Td", True),
    ]


def test_tl_deal_2_mai_deals_one_down_one_up() -> None:
    """TL-DEAL-1 / ``mai``: round 1 deals one card down and one up, later rounds one up; nobody chooses."""
    game, state = _table(layout="none", distribution="mai")
    state, _ = game.apply(state, StartHand(deck_for(BY_NAME["none"]), 0, None, 1, "x"))
    state = _dealt(game, state)
    assert state.hand.down[0] == (Card.parse("9h"),) and state.hand.up[0] == (Card.parse("Jh"),)
    assert all(a.kind != "turn_up" for a in game.legal_actions(state, 1))


def test_tl_deal_2_libera_the_dealer_chooses_at_the_start() -> None:
    """``libera`` (TL-DEAL-2, TL-VELE-1): the dealer's choice comes with the hand's start; without one the
    defaults (croce, mai) hold; a choice at a table with fixed options is refused, nothing changed."""
    game, state = _table(layout="libera", distribution="libera")
    deck = Deck.italian(2).cards
    chosen = (("distribution", "sempre"), ("layout", "piramide"))
    started, _ = game.apply(state, StartHand(deck, 0, None, 1, "x", options=chosen))
    assert dict(started.hand.options)["layout"] == "piramide"
    assert dict(started.hand.options)["distribution"] == "sempre"
    default, _ = game.apply(state, StartHand(deck, 0, None, 1, "x"))
    assert dict(default.hand.options)["layout"] == "croce"
    game, fixed = _table(layout="una")
    with pytest.raises(OptionRefused, match="only at a libera table"):
        game.apply(fixed, StartHand(deck, 0, None, 1, "x", options=(("layout", "croce"),)))
    with pytest.raises(OptionRefused, match="unknown vele layout"):
        game.apply(state, StartHand(deck, 0, None, 1, "x", options=(("layout", "stella"),)))


# --- the layout cap (TL-CAP-1) ---------------------------------------------------------------------------


def test_tl_cap_1_a_layout_that_does_not_fit_is_refused_at_the_table() -> None:
    """TL-CAP-1: 5n + vele ≤ deck size. Ascensore (9 vele) fits 7 players (35 + 9 = 44 cards of 44) but not
    8 (40 + 9 = 49 > 48); H and piramide (7) fit 9 players (45 + 7 = 52)."""
    game = find_game("PTL")

    def config(seats: int, layout: str) -> Any:
        return game.table_config(
            seats=seats,
            tournament=True,
            forced=ForcedBets(invito=10),
            action_time_ms=1000,
            time_bank_ms=0,
            layout=layout,
        )

    assert dict(config(7, "ascensore").options)["layout"] == "ascensore"
    with pytest.raises(LayoutRefused, match=r"8 players × 5 cards \+ 9 vele = 49 cards.*has 48.*TL-CAP-1"):
        config(8, "ascensore")
    assert config(9, "h") and config(9, "piramide")
    with pytest.raises(LayoutRefused):
        game.initial_state(replace(config(7, "ascensore"), seats=8))


def test_tl_cap_1_the_dealers_choice_is_checked_for_the_players_dealt_in() -> None:
    """At a libera table of 9 seats, the dealer may choose ascensore with 7 players dealt in, not with 8."""
    game, state = _table(players=8, layout="libera")
    with pytest.raises(LayoutRefused, match="TL-CAP-1"):
        game.apply(state, StartHand((), 0, None, 7, "x", options=(("layout", "ascensore"),)))
    game, state = _table(players=7, layout="libera")
    started, _ = game.apply(state, StartHand((), 0, None, 6, "x", options=(("layout", "ascensore"),)))
    assert len(started.hand.deck) == 44


# --- deck, forced bets -------------------------------------------------------------------------------------


def test_it_deck_1_the_deck_follows_the_players_dealt_in() -> None:
    """IT-DECK-1: 3 players → 28 cards from the eights; a 52-card deck is refused."""
    game, state = _table(players=3)
    started, _ = game.apply(state, StartHand((), 0, None, 2, "x"))
    assert len(started.hand.deck) == 28 and min(card.rank for card in started.hand.deck) == 8
    with pytest.raises(BadCards, match="28-card deck"):
        game.apply(state, StartHand(Deck.standard().cards, 0, None, 2, "x"))
    command = game.start_command(
        state,
        lambda deck: deck.cards,
        at=0,
        forced=None,
        button=None,
        hand_id="",
        commitment="",
        algorithm="",
    )
    assert len(command.deck) == 28


def test_tl_1_the_invito_is_the_only_forced_bet() -> None:
    """TL-1 / IT-ANTE-1: every player posts the invito; blinds are refused, an invito is required."""
    game = find_game("NTL")
    with pytest.raises(ForcedBetsRefused, match="no big blind"):
        game.check_forced_bets(ForcedBets(small_blind=5, big_blind=10))
    with pytest.raises(ForcedBetsRefused, match="needs an invito"):
        game.check_forced_bets(ForcedBets())
    game, state = _table(players=3)
    started, events = game.apply(state, StartHand((), 0, None, 2, "x"))
    assert [(e.seat, e.amount) for e in events if type(e).__name__ == "ForcedBetPosted"] == [
        (0, 10),
        (1, 10),
        (2, 10),
    ]
    assert game.facts(started).forced_bet == 10


# --- first to speak (TL-ACT-1) -----------------------------------------------------------------------------


def _hand_with(own: tuple[str, ...], layout: str = "none") -> Scenario:
    return Scenario("x", "NTL", layout, "mai", own, {}, (), (), starting=(100,) * len(own))


def test_tl_act_1_suits_order_equal_ranks() -> None:
    """TL-ACT-1: Jh up beats Jd up (IT-SUIT: hearts first), whatever the seat order; two different visible
    hands never tie (the suits decide), so the seat-order tie rule never has to apply."""
    for own in (("9c Jd Ts 9d Ks", "Qc Jh Th Ac As"), ("Qc Jh Th Ac As", "9c Jd Ts 9d Ks")):
        game, state = _table(players=2)
        state, _ = game.apply(state, StartHand(deck_for(_hand_with(own)), 0, None, 1, "x"))
        state = _dealt(game, state)
        hearts = 1 if own[1].split()[1] == "Jh" else 0
        assert state.hand.to_act == hearts


def test_tl_act_1_an_all_in_first_speaker_passes_the_word_left() -> None:
    """TL-ACT-1's decision: the best visible hand is all-in (it went all-in posting the invito): the next
    player to its left who can act speaks first."""
    game = find_game("NTL")
    config = game.table_config(
        seats=3, tournament=False, forced=ForcedBets(invito=10), action_time_ms=1000, time_bank_ms=0
    )
    state = game.initial_state(config)
    for seat, stack in enumerate((100, 10, 100)):
        state, _ = game.apply(state, game.seat_command(seat, f"p{seat + 1}", stack, 0))
    own = ("9c Jd Ts 9d Ks", "Qc Ah Th Ac As", "9h Kd Tc Js Qs")  # p2 shows the ace of hearts
    state, _ = game.apply(state, StartHand(deck_for(_hand_with(own)), 0, None, 2, "x"))
    state = _dealt(game, state)
    assert state.seats[1].stack == 0
    assert state.hand.to_act == 2


# --- showdown: one combination, straight flushes, IT-RANK-4 --------------------------------------------


def test_tl_vele_1_between_straight_flushes_the_higher_suit_counts() -> None:
    """TL-VELE-1's decision: a player who can make the K-high heart straight flush and the A-high spade one
    counts the hearts (higher suit first, then the top card)."""
    game, state = _table(layout="croce")
    own = ("Jh Qh Kh Js Qs", "9c 9d Tc Td Jc")
    vele = {"A": "9h", "C": "Th", "E": "Ts", "B": "Ks", "D": "As"}
    state, _ = game.apply(
        state, StartHand(deck_for(replace(_hand_with(own, "croce"), vele=vele)), 0, None, 1, "x")
    )
    while state.hand is not None and len(state.hand.board) < 5:
        state = _dealt(game, state)
        if state.hand.to_act is not None:
            state, _ = game.apply(state, CheckOrCall(state.hand.to_act, 0))
    hand = state.hand
    _, five = seat_best_hand(hand, 0)
    assert sorted(map(str, five)) == sorted(["9h", "Th", "Jh", "Qh", "Kh"])


def _showdown(code: str, own: tuple[str, ...], **options: str) -> list[Any]:
    game, state = _table(code, layout="none", **options)
    state, events = game.apply(state, StartHand(deck_for(_hand_with(own)), 0, None, 1, "x"))
    log = list(events)
    while state.hand is not None:
        command = game.dealer_command(state, 0)
        if command is None:
            seat = state.hand.to_act
            kinds = [a.kind for a in game.legal_actions(state, seat)]
            command = game.player_command(state, seat, "show" if "show" in kinds else "check", None, (), 0)
        state, events = game.apply(state, command)
        log.extend(events)
    return log


def test_it_rank_4_the_minimal_spade_straight_flush_beats_the_royal_hearts() -> None:
    """IT-RANK-4 (winners_hook): A♠9♠10♠J♠Q♠ (the minimal straight flush of a 24-card deck) wins against
    A♥K♥Q♥J♥10♥; with the option ``off`` the royal wins."""
    own = ("Ah Kh Qh Jh Th", "As 9s Ts Js Qs")
    events = _showdown("NTL", own)
    pots = [e for e in events if isinstance(e, PotAwarded)]
    assert pots[0].shares == ((1, 20),)
    # G-SHOW-1 with the cycle: the spade hand beats the royal shown first, so it is shown without asking
    after = [type(e).__name__ for e in events[[type(e).__name__ for e in events].index("ShowdownStarted") :]]
    assert after[:3] == ["ShowdownStarted", "HandShown", "HandShown"]
    pots = [e for e in _showdown("NTL", own, minimal_beats_royal="off") if isinstance(e, PotAwarded)]
    assert pots[0].shares == ((0, 20),)


# --- views and bad input ---------------------------------------------------------------------------------


def test_tl_views_hide_down_cards_and_show_turned_vele() -> None:
    """A player sees their own down card, not the other's; everyone sees up cards and turned vele."""
    game, state = _table(layout="una")
    state, _ = game.apply(state, StartHand(deck_for(BY_NAME["una"]), 0, None, 1, "x"))
    state = _dealt(game, state)
    mine = game.view(state, 0)
    assert mine.seats[0].down == (Card.parse("9h"),) and mine.seats[1].down == (None,)
    assert mine.seats[1].up == (Card.parse("Qd"),) and mine.board == ()
    assert game.view(state, None).seats[0].down == (None,)


def test_tl_refusals_change_nothing() -> None:
    """Bad input: a named IllegalAction with the reason, the state unchanged."""
    game, state = _table()
    state, _ = game.apply(state, StartHand((), 0, None, 1, "x"))
    state = _dealt(game, state)
    before = state
    with pytest.raises(IllegalAction, match="no card is to be turned up"):
        game.apply(state, TurnUp(state.hand.to_act, 0))
    with pytest.raises(IllegalAction):
        game.apply(state, TimeoutExpired(state.hand.to_act, 1))
    assert state is before
    with pytest.raises(OptionRefused, match="unknown Telesina table option"):
        game.initial_state(replace(state.config, options=(("colour", "red"),)))


def test_tl_phh_reads_the_turn_up_action_and_refuses_a_bad_one() -> None:
    """The PHH extension: ``pN tu CARD`` (one card) is read; ``tu`` without a card is malformed."""
    text = (DATA / "sempre.phh").read_text()
    (history,) = loads_histories(text)
    assert [a.text for a in history.actions if a.verb == "tu"][:2] == ["p1 tu Jh", "p2 tu Qd # automatic"]
    from engine.phh import MalformedHistory

    with pytest.raises(MalformedHistory, match="'tu' takes the one card"):
        loads_histories(text.replace('"p1 tu Jh"', '"p1 tu"'))
    bad = text.replace('"p1 tu Jh"', '"p1 tu Kd"')
    difference = replay_hand(loads_histories(bad)[0])
    assert difference is not None and difference.action == 3


# --- the view a page draws (issue 19, browser) -----------------------------------------------------------


def _croce_states() -> list[Any]:
    """Every state of a checked-down croce hand (TL-VELE-1), dealing when the dealer is due."""
    game, state = _table(layout="croce")
    state, _ = game.apply(state, StartHand(deck_for(BY_NAME["croce"]), 0, None, 1, "x"))
    states = [state]
    while state.hand is not None and not state.hand.showdown:
        command = game.dealer_command(state, 0)
        if command is None:
            command = CheckOrCall(state.hand.to_act, 0)
        state, _ = game.apply(state, command)
        states.append(state)
    return states


def test_tl_vele_1_the_view_draws_the_layout_and_hides_unturned_vele() -> None:
    """TL-VELE-1: the view names the hand's layout and distribution, lists every vela of the croce (A top,
    B left, E centre, D right, C bottom) with its step, a card only once turned (``board`` by turning
    order A+C, B+D, E), the combinations; a player's view never holds the other's down card nor an
    unturned vela, and names the viewer's own hand."""
    game = find_game("NTL")
    states = _croce_states()
    turned_counts = set()
    for state in states:
        hand = state.hand
        if hand is None:
            continue
        for viewer in (0, 1, None):
            seen = game.view(state, viewer)
            assert (seen.layout, seen.distribution, seen.invito) == ("croce", "mai", 10)
            assert seen.combinations == ("AEC", "BED")
            places = {v.letter: (v.row, v.column, v.step) for v in seen.vele}
            assert places == {
                "A": (0, 1, 1), "B": (1, 0, 2), "C": (2, 1, 1), "D": (1, 2, 2), "E": (1, 1, 3),
            }  # fmt: skip
            cards = {v.letter: v.card for v in seen.vele if v.card is not None}
            assert cards == dict(zip("ACBDE", hand.board, strict=False))
            turned_counts.add(len(cards))
            for seat in (0, 1):
                if seat != viewer:
                    assert seen.seats[seat].down == (None,) * len(hand.down[seat])
            if viewer is None:
                assert seen.best_hand == ""
            elif len(hand.down[viewer]) + len(hand.up[viewer]) == 5:
                assert seen.best_hand and seen.best_hand == game.view(state, viewer, reveal=True).best_hand
    assert turned_counts == {0, 2, 4, 5}


def test_tl_vele_1_every_layout_has_a_shape_with_each_letter_once() -> None:
    """Each layout's shape places every letter (one cell, or one column span) and no other."""
    for layout in LAYOUTS.values():
        letters = {x for row in layout.shape for x in row} - {"."}
        assert letters == set(layout.order), layout.name
        for letter in letters:
            rows, columns = layout.place(letter)[2:]
            assert rows >= 1 and columns == 1
    assert LAYOUTS["ascensore"].place("E") == (0, 1, 4, 1)
