"""Helpers of the seven card stud and five card draw tests: a table of the core driven by explicit
commands, cards named as a hand history names them (``StartHand`` without a deck: the stock is the deck in
order and each deal names its cards)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card, parse_cards
from engine.core import ForcedBets, find_game
from engine.core.model import CoreState, DealBoard, DealCards, StartHand
from engine.core.rules import evolve
from engine.shuffle import shuffle

STUD_FL = ForcedBets(ante=1, bring_in=2, small_bet=10, big_bet=20)
STUD_NL = ForcedBets(ante=1, bring_in=2, small_bet=10)
DRAW = ForcedBets(small_blind=5, big_blind=10)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


@dataclass
class Table:
    """A core table and every event it logged (``events``), replayed on demand to check ``evolve``."""

    code: str
    seats: int
    forced: ForcedBets
    stacks: Sequence[int] | None = None
    tournament: bool = False
    game: Any = field(init=False)
    state: CoreState = field(init=False)
    initial: CoreState = field(init=False)
    events: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.game = find_game(self.code)
        config = self.game.table_config(
            seats=self.seats,
            tournament=self.tournament,
            forced=self.forced,
            action_time_ms=1_000,
            time_bank_ms=0,
        )
        self.state = self.initial = self.game.initial_state(config)
        stacks = self.stacks or [1_000] * self.seats
        for seat, stack in enumerate(stacks):
            self.do(self.game.seat_command(seat, f"p{seat}", stack, 0))

    def do(self, command: Any) -> tuple[Any, ...]:
        self.state, events = self.game.apply(self.state, command)
        self.events.extend(events)
        return events

    def start(self, button: int | None = None, deck: tuple[Card, ...] = ()) -> tuple[Any, ...]:
        return self.do(StartHand(deck, 0, None, button))

    def deal(self, seat: int, text: str) -> tuple[Any, ...]:
        return self.do(DealCards(seat, cards(text)))

    def board(self, text: str) -> tuple[Any, ...]:
        return self.do(DealBoard(cards(text)))

    def act(self, seat: int, action: str, amount: int | None = None, text: str = "") -> tuple[Any, ...]:
        return self.do(self.game.player_command(self.state, seat, action, amount, cards(text), 0))

    def dealer(self) -> tuple[Any, ...]:
        """Everything the dealer deals now from the stock, until a player must act."""
        events: list[Any] = []
        while (command := self.game.dealer_command(self.state, 0)) is not None:
            events.extend(self.do(command))
        return tuple(events)

    @property
    def hand(self) -> Any:
        return self.state.hand

    @property
    def to_act(self) -> int:
        (seat,) = self.game.to_act(self.state)
        return int(seat)

    def kinds(self, seat: int | None = None) -> list[tuple[str, str, int, int]]:
        seat = self.to_act if seat is None else seat
        return [(a.kind, a.label, a.minimum, a.maximum) for a in self.game.legal_actions(self.state, seat)]

    def stacks_now(self) -> list[int]:
        return [0 if o is None else o.stack for o in self.state.seats]

    def chips(self) -> int:
        hand = self.state.hand
        middle = 0 if hand is None else hand.dead + sum(hand.contributed)
        return sum(self.stacks_now()) + middle

    def replayed(self) -> CoreState:
        state = self.initial
        for event in self.events:
            state = evolve(state, event)
        return state


def play_random(table: Table, hands: int, rng: random.Random) -> None:
    """``hands`` hands of the game's bot, the dealer dealing from shuffled decks; chips are conserved
    after every command."""
    total = table.chips()
    for number in range(hands):
        if not table.game.can_start_hand(table.state):
            return
        table.do(
            table.game.start_command(
                table.state,
                lambda deck: shuffle(deck.cards, rng.randbytes(32)),
                at=0,
                forced=None,
                button=None,
                hand_id=str(number),
                commitment="",
                algorithm="",
            )
        )
        while table.state.hand is not None:
            command = table.game.dealer_command(table.state, 0)
            if command is None:
                seat = next(iter(table.game.to_act(table.state)))
                command = table.game.bot_command(table.state, seat, rng, 0)
            table.do(command)
            assert table.chips() == total
