"""The lean path of the frequent commands (``engine.core.fast``: check or call, fold, bet or raise, the deal
of a street, a replay's named deals of a player's cards or of the board) against the general path (each
command's handler, then the loop after it), over random hands of every registered betting game that the
core decides: the same events and the same state for every accepted command, the same named refusal with
the same message for every refused one (rules G-ACT-1, G-ACT-2, G-LIMIT-1, ST-1, TH-1, FD-1), through
``apply`` and through a replay's ``InPlaceRun``.

The commands mix the bot's legal choices with refusals (out of turn, amounts out of range or of the wrong
type, a check or fold when the bring-in is due, a deal during the betting, named deals of the wrong seat or
count, of cards out of the stock or named twice, with a burn too many, as a list or as texts), the
dealer's deals as one command or named as a replay sends them (the top of the stock, or cards from
anywhere in it), late actions that use the time bank, sit-outs (the next player acts automatically) and
time-outs; small stacks bring all-ins, short all-ins and, with eight stud players, the community card. At
ring tables of the blind games the players who sat out come back owing the blinds they missed and mostly
post them (CASH-2): a live posted big blind in the betting round."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import (
    CoreGame,
    CoreState,
    ForcedBets,
    ForcedBetsRefused,
    find_game,
    games,
    is_betting,
    rules,
)
from engine.core.errors import IllegalAction
from engine.core.model import (
    BetOrRaise,
    BringIn,
    CheckOrCall,
    DealBoard,
    DealCards,
    DealFromTop,
    Fold,
    ReturnToPlay,
    SeatPlayer,
    SitOut,
    TimeoutExpired,
    TurnUp,
)

GAMES = [
    game
    for game in games()
    if isinstance(game, CoreGame)
    and is_betting(game)
    and game.applies_core_rules
    and game.spec.refusal_hook is None
]

_FORCED = (
    ForcedBets(small_blind=5, big_blind=10),
    ForcedBets(small_blind=5, big_blind=10, ante=2),
    ForcedBets(invito=10),
    ForcedBets(ante=2, bring_in=5, small_bet=10, big_bet=20),
    ForcedBets(ante=1, bring_in=2, small_bet=5),
    ForcedBets(ante=5),
)


def test_the_lean_path_covers_the_core_games() -> None:
    assert rules._LEAN, "the lean path is registered"
    codes = {game.code for game in GAMES}
    assert {"NT", "FT", "PO", "F7S", "N7S", "F5D"} <= codes


@contextmanager
def general_path() -> Iterator[None]:
    """``apply`` and ``InPlaceRun`` without the lean path (its table emptied for the block)."""
    saved = dict(rules._LEAN)
    rules._LEAN.clear()
    try:
        yield
    finally:
        rules._LEAN.update(saved)


def outcome(game: CoreGame, state: CoreState, command: Any) -> tuple[Any, ...]:
    before = (dict(vars(state)), None if state.hand is None else dict(vars(state.hand)))
    try:
        after, events = game.apply(state, command)
    except IllegalAction as refusal:
        result: tuple[Any, ...] = ("refused", type(refusal), refusal.args)
    else:
        result = ("accepted", events, after)
    assert (dict(vars(state)), None if state.hand is None else dict(vars(state.hand))) == before
    return result


def both(game: CoreGame, state: CoreState, command: Any) -> CoreState:
    """``command`` through both paths (the same outcome asserted); the state after it."""
    with general_path():
        general = outcome(game, state, command)
    lean = outcome(game, state, command)
    assert lean == general, f"{game.code}: {command!r} differs on the lean path"
    return lean[2] if lean[0] == "accepted" else state


def forced_for(game: CoreGame, rng: random.Random) -> ForcedBets:
    fitting = []
    for forced in _FORCED:
        try:
            game.check_forced_bets(forced)
        except ForcedBetsRefused:
            continue
        fitting.append(forced)
    assert fitting, game.code
    return rng.choice(fitting)


def odd_commands(game: CoreGame, state: CoreState, seat: int, rng: random.Random, at: int) -> list[Any]:
    """Commands that are mostly refused (or unusual) now."""
    hand = state.hand
    assert hand is not None
    seats = len(state.seats)
    other = (seat + rng.randrange(1, seats)) % seats
    late = hand.deadline + rng.choice((1, 10, 10_000))
    amount = rng.choice(
        (0, 1, hand.current_bet, hand.current_bet + 1, hand.current_bet + 5, 10**9, -5, "20", True, 2.5)
    )
    return [
        rng.choice((Fold(other, at), CheckOrCall(other, at), BetOrRaise(other, 20, at), DealFromTop(at))),
        BetOrRaise(seat, amount, at),  # type: ignore[arg-type]
        rng.choice((Fold(seat, late), CheckOrCall(seat, late), BringIn(seat, at), Fold(seat, at))),
        CheckOrCall(seat, at),
        Fold(seat, at),
        DealFromTop(at),
    ]


def named_deal(game: CoreGame, state: CoreState, rng: random.Random, at: int) -> Any:
    """The deal due as a replay sends it (``DealCards`` / ``DealBoard`` naming its cards): the top of the
    stock, or cards from anywhere in it (the burn too), or ``DealFromTop`` when the stock is short."""
    hand = state.hand
    due = rules.next_deal(game.spec, state)
    assert hand is not None and due is not None
    if rng.random() < 0.4:
        return rules.top_deal(game.spec, state, at)
    seat, count, up, burn = due
    stock = list(hand.stock)
    burnt = 1 if burn and rng.random() < 0.7 else 0
    if len(stock) < count + up + burnt:
        return DealFromTop(at)
    picked = rng.sample(stock, count + up + burnt)
    cards, burn_cards = tuple(picked[burnt:]), tuple(picked[:burnt])
    return DealBoard(cards, burn_cards, at) if seat < 0 else DealCards(seat, cards, burn_cards, at)


def odd_deals(game: CoreGame, state: CoreState, rng: random.Random, at: int) -> list[Any]:
    """Named deals that are mostly refused: the wrong seat or count, cards out of the stock or named twice,
    a burn too many, a list for a tuple, a board when a player's cards are due (and the reverse)."""
    hand = state.hand
    assert hand is not None
    stock = hand.stock
    seats = len(state.seats)
    due = rules.next_deal(game.spec, state)
    seat, count, up, _burn = due if due is not None else (rng.randrange(seats), 2, 0, False)
    need = max(1, count + up)
    top = tuple(stock[:need])
    outside = tuple(card for card in game.deck(seats).cards if card not in stock)[:need]
    twice = (top[0],) * need if top else ()
    deals: list[Any] = []
    for cards in (top, outside, twice, top[:-1], tuple(stock[: need + 1])):
        deals.append(DealCards(seat if seat >= 0 else rng.randrange(seats), cards, (), at))
        deals.append(DealBoard(cards, (), at))
    deals.append(DealCards((seat + 1) % seats if seat >= 0 else 0, top, (), at))
    deals.append(DealCards(max(seat, 0), top, tuple(stock[need : need + 2]), at))
    deals.append(DealCards(max(seat, 0), list(top), (), at))  # type: ignore[arg-type]
    deals.append(DealBoard(list(top), (), at))  # type: ignore[arg-type]
    texts = tuple(str(card) for card in top)  # not cards
    deals.append(DealCards(max(seat, 0), texts, (), at))  # type: ignore[arg-type]
    deals.append(DealBoard(texts, (), at))  # type: ignore[arg-type]
    return rng.sample(deals, 4)


def odd_turn_ups(state: CoreState, seat: int, rng: random.Random, at: int) -> list[Any]:
    """Turn-ups (TL-DEAL-2) that are mostly refused: another seat's, an index out of range or of the wrong
    type, a late one (the time bank when facing a bet: never during the turn-up, so accepted), and a
    turn-up during the betting."""
    hand = state.hand
    assert hand is not None
    seats = len(state.seats)
    other = (seat + rng.randrange(1, seats)) % seats
    held = len(hand.down[seat])
    index = rng.choice((-1, held, held + 3, True, "0", 0.0))
    return [
        TurnUp(other, 0, at),
        TurnUp(seat, index, at),  # type: ignore[arg-type]
        TurnUp(seat, rng.randrange(max(held, 1)), hand.deadline + 10),
        TurnUp(seat, 0, at),
    ]


def one_table(game: CoreGame, seed: int, **options: str) -> None:
    rng = random.Random(seed)
    seats = rng.randint(2, game.max_seats)
    if options.get("layout") == "ascensore":  # its vele do not fit a full table's deck (TL-CAP-1)
        seats = min(seats, 7)
    config = game.table_config(
        seats=seats,
        tournament=rng.random() < 0.5,
        forced=forced_for(game, rng),
        action_time_ms=100,
        time_bank_ms=rng.choice((0, 50)),
        **options,
    )
    state = game.initial_state(config)
    for seat in range(seats):
        state = both(game, state, SeatPlayer(seat, f"p{seat}", rng.choice((rng.randint(3, 60), 300))))
    at = 0
    for _ in range(4):
        for seat, occupant in enumerate(state.seats):  # ring tables: bots owing a blind post it (CASH-2)
            if occupant is not None and occupant.sitting_out and rng.random() < 0.5:
                state = both(game, state, ReturnToPlay(seat, at))
            choices = game.legal_actions(state, seat) if occupant is not None else ()
            if state.hand is None and choices and rng.random() < 0.7:
                state = both(game, state, choices[0].command(seat, at=at))
        if not game.can_start_hand(state):
            break
        at += 1000
        start = game.start_command(
            state,
            lambda deck: tuple(rng.sample(deck.cards, len(deck.cards))),
            at=at,
            forced=None,
            button=None,
            hand_id="",
            commitment="",
            algorithm="",
        )
        first = state
        state = both(game, state, start)
        accepted = [start]
        for _step in range(600):
            hand = state.hand
            if hand is None:
                break
            command: Any = game.dealer_command(state, at)
            if rng.random() < 0.2:
                for odd in odd_deals(game, state, rng, at):
                    both(game, state, odd)
            if command is not None and rng.random() < 0.6:
                command = named_deal(game, state, rng, at)
            if command is None:
                seat = hand.to_act
                assert seat is not None
                if rng.random() < 0.3:
                    for odd in odd_commands(game, state, seat, rng, at):
                        both(game, state, odd)
                    if options:  # Telesina: turn-ups, refused during the betting (TL-DEAL-2)
                        for odd in odd_turn_ups(state, seat, rng, at):
                            both(game, state, odd)
                roll = rng.random()
                occupant = state.seats[seat]
                assert occupant is not None
                if roll < 0.03:
                    bank = occupant.time_bank if hand.chips_required else 0
                    command = TimeoutExpired(seat, hand.deadline + bank)
                elif roll < 0.05:
                    command = SitOut(seat, at)
                elif roll < 0.08:
                    absent = [s for s, o in enumerate(state.seats) if o is not None and o.sitting_out]
                    command = (
                        ReturnToPlay(absent[0], at) if absent else game.bot_command(state, seat, rng, at)
                    )
                else:
                    late = roll > 0.95  # after the deadline: the time bank when facing a bet
                    command = game.bot_command(state, seat, rng, hand.deadline + 20 if late else at)
            after = both(game, state, command)
            if after is state:
                continue
            accepted.append(command)
            state = after
        else:
            raise AssertionError("the hand does not end")
        in_place_alike(game, first, accepted)


def in_place_alike(game: CoreGame, first: CoreState, commands: list[Any]) -> None:
    """A replay's run of the hand's accepted commands gives the same events and state on both paths."""

    def run() -> tuple[list[Any], CoreState]:
        runner = rules.InPlaceRun(game.spec, first)
        events = [runner.apply(command) for command in commands]
        return events, runner.state

    with general_path():
        general = run()
    assert run() == general, f"{game.code}: the replay's run differs on the lean path"


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.code)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_lean_and_general_paths_agree(game: CoreGame, seed: int) -> None:
    one_table(game, seed)


_TELESINA = [
    {"layout": layout, "distribution": distribution}
    for layout in ("croce", "ascensore", "none")
    for distribution in ("mai", "primo_giro", "sempre")
]


@pytest.mark.parametrize("options", _TELESINA, ids=lambda o: f"{o['layout']}-{o['distribution']}")
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_lean_and_general_paths_agree_in_telesina(options: dict[str, str], seed: int) -> None:
    """Telesina's seat-by-seat deals (its ``deal_hook``, TL-DEAL-1), its vele (TL-VELE-1) and the turn-ups
    of every distribution mode (TL-DEAL-2: ``TurnUp``, ``CardTurnedUp``, the automatic turn-up of a player
    sitting out or out of time) give the same events, states and refusals on both paths."""
    one_table(find_game("PTL"), seed, **options)  # type: ignore[arg-type]
