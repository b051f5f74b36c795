"""The PHH replay's fast path (issue 16, rule XX-HH-1): :class:`engine.core.rules.InPlaceRun` applies a
hand's commands to one state changed in place, and must give exactly the events and states of the core's
``apply`` command by command (rules G-*, ST-1, FD-1), never changing the state it started from; and
:func:`engine.core.history.replay_hand`, which takes that path and replays command by command again when a
command is refused, must report what the command-by-command replay reports, on real files and on files
with an action dropped, changed or added."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import CoreGame, CoreState, ForcedBets, find_game, rules
from engine.core.errors import IllegalAction
from engine.core.fast import street_due
from engine.core.game import UnknownGame
from engine.core.history import UnsupportedHistory, _replay, _Run, _Spoilt, replay_hand, replay_standard
from engine.core.model import DealCards, SeatPlayer, StartHand, StockReshuffled
from engine.core.rules import InPlaceRun
from engine.phh import HandHistory, load_histories, parse_standard_action

DATA = Path(__file__).resolve().parent.parent.parent / "data" / "phh"
CODES = ("NT", "FT", "PO", "F5D", "N7S", "F7S")
FORCED = {
    "holdem": ForcedBets(small_blind=5, big_blind=10),
    "draw": ForcedBets(small_blind=5, big_blind=10),
    "stud": ForcedBets(ante=1, bring_in=2, small_bet=5, big_bet=10),
    "stud NL/PL": ForcedBets(ante=1, bring_in=2, small_bet=5),
}


def snapshot(state: CoreState) -> tuple[dict[str, Any], dict[str, Any] | None]:
    return dict(vars(state)), None if state.hand is None else dict(vars(state.hand))


def seated(code: str, seed: int) -> tuple[CoreGame, random.Random, CoreState]:
    """``code``'s game with 2–6 players seated (stacks 20–300) by a random generator seeded ``seed``."""
    game = find_game(code)
    assert isinstance(game, CoreGame)
    rng = random.Random(seed)
    seats = rng.randint(2, min(game.max_seats, 6))
    family = "holdem" if code.endswith(("T", "O")) else "draw" if "5D" in code else "stud"
    if family == "stud" and code != "F7S":
        family = "stud NL/PL"
    config = game.table_config(
        seats=seats, tournament=False, forced=FORCED[family], action_time_ms=100, time_bank_ms=0
    )
    state = game.initial_state(config)
    for seat in range(seats):
        state, _ = game.apply(state, SeatPlayer(seat, f"p{seat}", rng.randint(20, 300)))
    return game, rng, state


@pytest.mark.parametrize("code", CODES)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_a_run_in_place_gives_apply_s_events_and_states(code: str, seed: int) -> None:
    game, rng, state = seated(code, seed)
    start, first = state, snapshot(state)
    run = InPlaceRun(game.spec, state)
    at = 0
    for _ in range(3):
        if not game.can_start_hand(state):
            break
        at += 1000
        command: Any = game.start_command(
            state,
            lambda deck: tuple(rng.sample(deck.cards, len(deck.cards))),
            at=at,
            forced=None,
            button=None,
            hand_id="",
            commitment="",
            algorithm="",
        )
        for _step in range(500):
            state, events = game.apply(state, command)
            assert tuple(run.apply(command)) == events, f"{command!r}: not apply's events"
            assert run.state == state, f"{command!r}: not apply's state"
            hand = state.hand
            if hand is None:
                break
            command = game.dealer_command(state, at)
            if command is None:
                assert hand.to_act is not None
                command = game.bot_command(state, hand.to_act, rng, at)
    assert snapshot(start) == first  # the state the run started from is unchanged


def test_a_refused_command_raises_the_decider_s_refusal() -> None:
    game = find_game("NT")
    assert isinstance(game, CoreGame)
    config = game.table_config(
        seats=2, tournament=False, forced=FORCED["holdem"], action_time_ms=100, time_bank_ms=0
    )
    run = InPlaceRun(game.spec, game.initial_state(config))
    run.apply(SeatPlayer(0, "a", 100))
    with pytest.raises(IllegalAction, match="already seated"):
        run.apply(SeatPlayer(1, "a", 100))


REAL = [
    pytest.param(hand, id=f"{path.relative_to(DATA)}#{number}")
    for path in sorted(p for p in DATA.rglob("*") if p.suffix in (".phh", ".phhs"))
    for number, hand in enumerate(load_histories(path), 1)
]


def outcome(history: HandHistory, fast: bool) -> tuple[Any, ...]:
    """What a replay reports and what its run noted (the hand's end, pots won, shows, cards held)."""
    runs: list[_Run] = []
    try:
        difference = _replay(history, 1, runs, fast=fast)
    except UnsupportedHistory as error:
        return ("unsupported", str(error))
    except _Spoilt as error:  # the fast path met a refusal (replay_hand then replays command by command)
        return ("raised", type(error).__name__)
    run = runs[0] if runs else None
    noted = None if run is None else (run.ended, run.won, run.shown, run.returned, run.held)
    return difference, noted


def playable(history: HandHistory) -> bool:
    try:
        find_game(history.variant)
    except UnknownGame:
        return False
    return True


@pytest.mark.parametrize("hand", REAL)
def test_real_files_replay_the_same_on_the_fast_path(hand: HandHistory) -> None:
    if not playable(hand):
        pytest.skip(f"{hand.variant} is not registered")
    fast = outcome(hand, fast=True)
    assert fast == outcome(hand, fast=False)
    assert fast[0] is None  # and no refusal: the fast path went to the end


PLAYABLE = [param.values[0] for param in REAL if playable(param.values[0])]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.integers(0, len(PLAYABLE) - 1),
    where=st.integers(0, 200),
    change=st.sampled_from(("drop", "cbr", "fold", "check", "swap")),
    amount=st.integers(1, 5000),
)
def test_a_changed_file_reports_the_same_difference(which: int, where: int, change: str, amount: int) -> None:
    """An action dropped, two swapped, or a bet, fold or check put in: the replay (fast path, then command
    by command on a refusal) reports exactly the command-by-command replay's difference and outcome."""
    hand = PLAYABLE[which]
    actions = list(hand.actions)
    i = where % len(actions)
    actor = next((a.actor for a in actions[i:] if a.actor is not None), 0)
    if change == "drop":
        del actions[i]
    elif change == "swap" and i + 1 < len(actions):
        actions[i], actions[i + 1] = actions[i + 1], actions[i]
    else:
        text = {"cbr": f"p{actor + 1} cbr {amount}", "fold": f"p{actor + 1} f", "check": f"p{actor + 1} cc"}
        if change in text:
            parsed = parse_standard_action(text[change], hand.player_count)
            if parsed.amount is not None:
                parsed = replace(parsed, amount=amount)
            actions.insert(i, parsed)
    changed = replace(hand, actions=tuple(actions))
    slow = outcome(changed, fast=False)
    fast = outcome(changed, fast=True)
    assert fast == slow or fast == ("raised", "_Spoilt")  # a refusal on the fast path: replayed again
    try:
        reported = replay_hand(changed)
    except UnsupportedHistory as error:
        assert slow == ("unsupported", str(error))
        return
    assert reported == slow[0]
    replayed = replay_standard(changed)
    assert replayed.difference == slow[0]


def _named_deals(rng: random.Random, state: CoreState, due: list[tuple[int, int, int]]) -> list[Any]:
    """Named deals of the street's next seats (cards from the stock), one of them now and then wrong: a
    seat out of order, a card too many or too few, a card named twice or not in the stock, a burn, a
    list."""
    hand = state.hand
    assert hand is not None
    stock = list(hand.stock)
    rng.shuffle(stock)
    deals: list[Any] = []
    for seat, down, up in due[: rng.randint(1, len(due))]:
        cards = tuple(stock[: down + up])
        del stock[: down + up]
        deals.append(DealCards(seat, cards))
    if rng.random() < 0.5:
        i = rng.randrange(len(deals))
        deal = deals[i]
        held = [c for cards in hand.down for c in cards] + list(hand.board) + list(hand.burned)
        wrong = rng.choice(["seat", "more", "fewer", "twice", "gone", "burn", "list", "extra"])
        if wrong == "seat":
            deal = DealCards((deal.seat + 1) % len(state.seats), deal.cards)
        elif wrong == "more" and stock:
            deal = DealCards(deal.seat, (*deal.cards, stock[0]))
        elif wrong == "fewer":
            deal = DealCards(deal.seat, deal.cards[1:])
        elif wrong == "twice" and i > 0:
            deal = DealCards(deal.seat, (deals[0].cards[0], *deal.cards[1:]))
        elif wrong == "gone" and held:
            deal = DealCards(deal.seat, (rng.choice(held), *deal.cards[1:]))
        elif wrong == "burn" and stock:
            deal = DealCards(deal.seat, deal.cards, (stock[-1],))
        elif wrong == "list":
            deal = DealCards(deal.seat, list(deal.cards))  # type: ignore[arg-type]
        elif wrong == "extra" and stock:
            deals.append(DealCards((deal.seat + 1) % len(state.seats), (stock[-1],)))
        deals[i] = deal
    return deals


@pytest.mark.parametrize("code", CODES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_a_street_dealt_in_one_step_gives_the_deals_events_and_states(code: str, seed: int) -> None:
    """:meth:`InPlaceRun.deal_street` (a replay's ``d dh`` of a street, dealt in one step when they are
    the cards due): the events and state of the deals applied one by one, or their refusal."""
    game, rng, state = seated(code, seed)
    tried = 0
    for at in range(1000, 4000, 1000):
        if not game.can_start_hand(state):
            break
        command: Any = game.start_command(
            state,
            lambda deck: deck.cards,
            at=at,
            forced=None,
            button=None,
            hand_id="",
            commitment="",
            algorithm="",
        )
        state, _ = game.apply(state, command)
        for _step in range(500):
            hand = state.hand
            if hand is None:
                break
            due = street_due(game.spec, state)
            if due:
                tried += 1
                deals = _named_deals(rng, state, due)
                one_by_one: Any = state
                events: list[Any] = []
                try:
                    for deal in deals:
                        one_by_one, dealt = game.apply(one_by_one, deal)
                        events += dealt
                except IllegalAction as refusal:
                    with pytest.raises(type(refusal), match=re.escape(str(refusal))):
                        InPlaceRun(game.spec, state).deal_street(deals)
                else:
                    run = InPlaceRun(game.spec, state)
                    assert run.deal_street(deals) == events
                    assert run.state == one_by_one
                    state = one_by_one
                    continue
            command = game.dealer_command(state, at)
            if command is None:
                assert hand.to_act is not None
                command = game.bot_command(state, hand.to_act, rng, at)
            state, _ = game.apply(state, command)
    assert tried


def test_a_supply_met_in_the_middle_of_a_street_is_the_one_by_one_deals_supply() -> None:
    """A ``supply_hook`` that answers between two deals of a street (the stock ran short: FD-1, ST-1):
    the street dealt in one step emits its answer and deals the rest as the deals one by one do."""
    game = find_game("NT")
    assert isinstance(game, CoreGame)

    def supply(state: Any, hand: Any, due: Any) -> StockReshuffled | None:
        if hand.street_dealt and not hand.reshuffles and due[0] == 2:
            return StockReshuffled((), tuple(reversed(hand.stock)))
        return None

    spec = replace(game.spec, supply_hook=supply)
    config = game.table_config(
        seats=4, tournament=False, forced=FORCED["holdem"], action_time_ms=100, time_bank_ms=0
    )
    state = game.initial_state(config)
    for seat in range(4):
        state, _ = rules.apply(spec, state, SeatPlayer(seat, f"p{seat}", 100))
    state, _ = rules.apply(spec, state, StartHand(button=3, at=5))
    hand = state.hand
    assert hand is not None
    deals = [DealCards(seat, hand.stock[2 * seat + 5 : 2 * seat + 7], at=7) for seat in range(4)]
    one_by_one, events = state, []
    for deal in deals:
        one_by_one, dealt = rules.apply(spec, one_by_one, deal)
        events += dealt
    assert any(isinstance(event, StockReshuffled) for event in events)
    run = InPlaceRun(spec, state)
    assert run.deal_street(deals) == events
    assert run.state == one_by_one
