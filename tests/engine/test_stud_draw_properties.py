"""Properties of seven card stud and five card draw over random bot hands (hypothesis): the right seat
opens every stud betting round (ST-1: the bring-in, then the best visible hand), and no card is ever in
two places — the stock, a hand, the board, the burnt or discarded cards — through draws and reshuffles
(FD-1, ST-1)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card
from engine.core.model import CoreHand, CoreState, StreetStarted, TurnStarted
from engine.core.rules import in_hand
from tests.engine.studdraw_support import DRAW, STUD_FL, STUD_NL, Table

SUITS = "cdhs"  # ♣ < ♦ < ♥ < ♠ (ST-1)


def shown_value(cards: tuple[Card, ...]) -> tuple[int, ...]:
    """A plain reading of ST-1's visible hand: (count, rank) groups, the largest groups first."""
    counts: dict[int, int] = {}
    for card in cards:
        counts[card.rank] = counts.get(card.rank, 0) + 1
    groups = sorted(((n, rank) for rank, n in counts.items()), reverse=True)
    pattern = [n for n, _ in groups]
    category = {(4,): 4, (3,): 3, (2, 2): 2, (2,): 1}.get(tuple(p for p in pattern if p > 1), 0)
    return (category, *(rank for _, rank in groups))


def expected_opener(state: CoreState, hand: CoreHand) -> int:
    """ST-1 read plainly: the lowest door card (3rd street, suits ♣ < ♦ < ♥ < ♠) or the best visible hand
    (ties: the first from the button's left), among the players still in; if that player has no chips
    left, the next one to the left who has."""
    n = len(state.seats)
    players = [s for s in ((hand.button + i) % n for i in range(1, n + 1)) if s in in_hand(hand)]
    if hand.street == 0:
        first = min(players, key=lambda s: (hand.up[s][0].rank, SUITS.index(hand.up[s][0].suit.value)))
    else:
        values = [shown_value(hand.up[s]) for s in players]
        first = players[values.index(max(values))]
    for step in range(n):
        seat = (first + step) % n
        occupant = state.seats[seat]
        if seat in players and occupant is not None and occupant.stack > 0:
            return seat
    raise AssertionError("nobody can act")


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["F7S", "N7S"]), st.integers(2, 8), st.integers(0, 10**6))
def test_st_1_the_right_seat_opens_every_betting_round(code: str, players: int, seed: int) -> None:
    rng = random.Random(seed)
    table = Table(
        code, players, STUD_FL if code == "F7S" else STUD_NL, stacks=[rng.randrange(5, 200)] * players
    )
    opened = 0
    for _ in range(6):
        if not table.game.can_start_hand(table.state):
            break
        table.do(
            table.game.start_command(
                table.state,
                lambda deck: tuple(rng.sample(deck.cards, 52)),
                at=0,
                forced=None,
                button=None,
                hand_id="",
                commitment="",
                algorithm="",
            )
        )
        street_open = True
        while table.state.hand is not None:
            command = table.game.dealer_command(table.state, 0)
            if command is None:
                seat = next(iter(table.game.to_act(table.state)))
                command = table.game.bot_command(table.state, seat, rng, 0)
            before = table.state
            events = table.do(command)
            for index, event in enumerate(events):
                if isinstance(event, StreetStarted):
                    street_open = True
                elif isinstance(event, TurnStarted) and street_open:
                    street_open = False
                    state = before
                    for earlier in events[:index]:
                        state = table.game.evolve(state, earlier)
                    hand = state.hand
                    assert hand is not None
                    if not hand.showdown:
                        assert event.seat == expected_opener(state, hand), (code, hand.street)
                        opened += 1
    assert opened > 0


def assert_every_card_in_one_place(hand: CoreHand) -> None:
    held: list[Card] = [c for cards in (*hand.down, *hand.up) for c in cards]
    live = [*hand.stock, *held, *hand.board]
    assert len(live) == len(set(live)), "a card is in two places"
    out = {c for cards in hand.discards for c in cards} | set(hand.burned)
    assert set(live) | out == set(hand.deck), "a card went missing"


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["N5D", "F5D", "F7S"]), st.integers(2, 8), st.integers(0, 10**6))
def test_fd_1_st_1_no_card_is_ever_in_two_places(code: str, players: int, seed: int) -> None:
    rng = random.Random(seed)
    players = min(players, 6) if code.endswith("5D") else players
    forced = DRAW if code.endswith("5D") else STUD_FL
    table = Table(code, players, forced, stacks=[300] * players)
    for _ in range(5):
        if not table.game.can_start_hand(table.state):
            break
        table.do(
            table.game.start_command(
                table.state,
                lambda deck: tuple(rng.sample(deck.cards, 52)),
                at=0,
                forced=None,
                button=None,
                hand_id="",
                commitment="",
                algorithm="",
            )
        )
        while table.state.hand is not None:
            assert_every_card_in_one_place(table.state.hand)
            command = table.game.dealer_command(table.state, 0)
            if command is None:
                seat = next(iter(table.game.to_act(table.state)))
                command = table.game.bot_command(table.state, seat, rng, 0)
            table.do(command)
    assert table.replayed() == table.state
