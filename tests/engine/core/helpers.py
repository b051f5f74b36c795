"""Plain helpers of the core games' rule tests: a table with chosen stacks, a hand with a chosen deck, actions
by seat, the events recorded (``Table.events``) and folded again to check the live state."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card, Deck, parse_cards
from engine.core import ForcedBets, find_game
from engine.core.generic import CoreGame
from engine.core.model import CoreHand, CoreState, Event, StartHand

BLINDS = ForcedBets(small_blind=5, big_blind=10)


def deck(top: str) -> tuple[Card, ...]:
    """The 52-card deck with ``top`` (PHH text) first, in that order, then the other cards in order."""
    first = parse_cards(top)
    return (*first, *(card for card in Deck.standard().cards if card not in first))


@dataclass
class Table:
    """A core game's table, its state and every event so far."""

    game: CoreGame
    state: CoreState
    events: list[Event] = field(default_factory=list)
    initial: CoreState | None = None
    at: int = 0

    def apply(self, command: Any) -> tuple[Event, ...]:
        self.state, produced = self.game.apply(self.state, command)
        self.events.extend(produced)
        return produced

    def start(
        self, top: str = "", button: int | None = None, forced: ForcedBets | None = None
    ) -> list[Event]:
        """Start a hand with ``deck(top)`` and deal everything the dealer deals now; the events."""
        mark = len(self.events)
        self.at += 1000
        self.apply(StartHand(deck(top), self.at, forced, button, "h"))
        self.deal()
        return self.events[mark:]

    def deal(self) -> None:
        while (command := self.game.dealer_command(self.state, self.at)) is not None:
            self.apply(command)

    def act(self, seat: int, action: str, amount: int | None = None, at: int | None = None) -> list[Event]:
        """``seat``'s action (``fold check call bet raise show muck sit_out return``), then the deals."""
        mark = len(self.events)
        self.at = self.at + 1 if at is None else at
        self.apply(self.game.player_command(self.state, seat, action, amount, (), self.at))
        self.deal()
        return self.events[mark:]

    @property
    def hand(self) -> CoreHand:
        assert self.state.hand is not None
        return self.state.hand

    @property
    def to_act(self) -> int | None:
        hand = self.state.hand
        return None if hand is None else hand.to_act

    def stacks(self) -> list[int | None]:
        return [None if o is None else o.stack for o in self.state.seats]

    def kinds(self, seat: int) -> list[tuple[str, str, int, int]]:
        return [(a.kind, a.label, a.minimum, a.maximum) for a in self.game.legal_actions(self.state, seat)]

    def replayed(self) -> CoreState:
        assert self.initial is not None
        state = self.initial
        for event in self.events:
            state = self.game.evolve(state, event)
        return state


def table(
    code: str,
    stacks: list[int | None],
    forced: ForcedBets = BLINDS,
    tournament: bool = True,
    action_time_ms: int = 1000,
    time_bank_ms: int = 0,
) -> Table:
    """A table of ``code`` with one seat per entry of ``stacks`` (``None``: empty), players ``p0``, ``p1``…"""
    game = find_game(code)
    assert isinstance(game, CoreGame)
    config = game.table_config(
        seats=max(2, len(stacks)),
        tournament=tournament,
        forced=forced,
        action_time_ms=action_time_ms,
        time_bank_ms=time_bank_ms,
    )
    result = Table(game, game.initial_state(config))
    result.initial = result.state
    for seat, stack in enumerate(stacks):
        if stack is not None:
            result.apply(game.seat_command(seat, f"p{seat}", stack, 0))
    return result


def of(events: list[Event], kind: type) -> list[Any]:
    """The events of one class."""
    return [event for event in events if isinstance(event, kind)]
