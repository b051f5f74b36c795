"""Building blocks for Italian decider tests: tables, hands dealt with chosen cards, applying commands."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.cards import parse_cards
from engine.italian import decide, evolve, initial_state
from engine.italian.model import (
    Command,
    DealCards,
    DeclineBlind,
    Event,
    Limit,
    StartHand,
    TableConfig,
    TableState,
)

NAMES = ("Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "Gina", "Ugo", "Vera")


def table(
    stacks: Sequence[int],
    limit: Limit = Limit.POT_LIMIT,
    invito: int = 10,
    seats: int | None = None,
    **options: object,
) -> TableState:
    """A table with players ``NAMES[i]`` at seats ``0..len(stacks)-1`` holding ``stacks``."""
    config = TableConfig(seats=seats or len(stacks), limit=limit, invito=invito, **options)  # type: ignore[arg-type]
    return initial_state(config, [(i, NAMES[i], stack) for i, stack in enumerate(stacks)])


def run(state: TableState, *commands: Command) -> TableState:
    """Apply commands in order (an illegal one raises)."""
    for command in commands:
        for event in decide(state, command):
            state = evolve(state, event)
    return state


def events_of(state: TableState, command: Command) -> tuple[Event, ...]:
    return decide(state, command)


def deal(state: TableState, hands: dict[int, str]) -> TableState:
    """Deal the initial five cards: ``hands`` maps each seat dealt in to its cards (PHH text), dealt in the
    decider's order (from the dealer's left)."""
    while state.hand is not None and state.hand.to_act is None and state.hand.phase.value == "deal":
        hand = state.hand
        seat = next(s for s in hand.dealt if s not in hand.folded and len(hand.down[s]) < 5)
        state = run(state, DealCards(seat, parse_cards(hands[seat])))
    return state


def start(
    state: TableState, hands: dict[int, str], button: int | None = None, blind: bool = False, **kw: object
) -> TableState:
    """Start a hand (button forced if given); unless ``blind``, say *dai carte* to a blind offer; then deal
    ``hands``. With ``blind=True`` the hand stops at the blind offer (deal later with :func:`deal`)."""
    state = run(state, StartHand(button=button, **kw))  # type: ignore[arg-type]
    if blind:
        return state
    while state.hand is not None and state.hand.phase.value == "blind" and state.hand.to_act is not None:
        state = run(state, DeclineBlind(state.hand.to_act))
    return deal(state, hands)


def stacks(state: TableState) -> list[int]:
    return [s.stack if s is not None else 0 for s in state.seats]


def serve(state: TableState, seat: int, cards: str) -> TableState:
    """The dealer gives ``cards`` to ``seat`` (a cambio batch)."""
    return run(state, DealCards(seat, parse_cards(cards)))


def chips_total(state: TableState) -> int:
    """Every chip at the table: stacks, the hand's contributions and carried chips."""
    total = sum(stacks(state)) + state.carried
    if state.hand is not None:
        total += sum(state.hand.contributed) + state.hand.dead
    return total


def seats_in(state: TableState) -> Iterable[int]:
    assert state.hand is not None
    return [s for s in state.hand.dealt if s not in state.hand.folded]
