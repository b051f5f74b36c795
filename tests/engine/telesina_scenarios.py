"""Telesina scenario hands (issue 19): explicit cards and actions, played through the registered game and
kept as PHH files in ``tests/data/telesina/`` (regenerate with ``python -m tests.engine.telesina_scenarios``
after a deliberate change; the tests compare the files with a fresh export and replay them).

Every scenario deals from a deck built from the cards each player gets (down card first, then the up
cards in dealing order) and the vele by layout letter, so the hands are readable here and in the files.
Two players on the 24-card deck (IT-DECK-1: 9 to ace) unless a scenario says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.cards import Card, Deck, parse_cards
from engine.core import ForcedBets, find_game
from engine.core.model import BetOrRaise, CheckOrCall, Fold, ShowHand, StartHand, TimeoutExpired, TurnUp
from engine.games.telesina import LAYOUTS
from engine.phh import format_history

DATA = Path(__file__).resolve().parent.parent / "data" / "telesina"

# p1 counts two pair (kings and nines) of its own; p2 a full house (queens over tens)
P1 = "9h Jh Kh 9c Kc"
P2 = "Qs Qd Qc Ts Td"


@dataclass(frozen=True)
class Scenario:
    """``own``: each player's five cards in dealing order (the down card first under ``mai``; under
    ``primo_giro`` / ``sempre`` the cards as dealt, two down in round 1); ``vele``: letter → card;
    ``actions``: ``(seat, verb, amount)`` in the order the rules ask (``verb``: ``check``, ``call``, ``bet``,
    ``fold``, ``turn_up`` with the card index, ``timeout``); checks left out are filled in by :func:`play`
    only when ``auto_check``. ``stacks``: the finishing stacks by seat (hand-checked)."""

    name: str
    code: str
    layout: str
    distribution: str
    own: tuple[str, ...]
    vele: dict[str, str]
    actions: tuple[tuple[int, str, int], ...]
    stacks: tuple[int, ...]
    starting: tuple[int, ...] = (100, 100)
    rule: str = ""
    auto_check: bool = True
    options: tuple[tuple[str, str], ...] = ()
    winners: tuple[int, ...] = field(default=())


def deck_for(scenario: Scenario) -> tuple[Card, ...]:
    """The stock in dealing order: round 1 (two cards a player), rounds 2–4 (one each), then the vele in
    turning order, then every other card of the deck."""
    players = len(scenario.own)
    own = [parse_cards(cards.replace(" ", "")) for cards in scenario.own]
    order: list[Card] = []
    for cards in own:
        order.extend(cards[:2])
    for round_ in range(2, 5):
        order.extend(cards[round_] for cards in own)
    for letter in LAYOUTS[scenario.layout].order:
        order.append(Card.parse(scenario.vele[letter]))
    deck = Deck.italian(players).cards
    assert len(set(order)) == len(order) and set(order) <= set(deck), scenario.name
    return (*order, *(card for card in deck if card not in order))


@dataclass
class Played:
    state: Any
    before: Any
    events: list[Any]
    speakers: list[int]


def play(scenario: Scenario) -> Played:
    """Play ``scenario``: asserts each listed action is the seat to act's, deals when the dealer is due,
    and (``auto_check``) checks for a seat the script does not name while checking is free."""
    game = find_game(scenario.code)
    players = len(scenario.own)
    config = game.table_config(
        seats=players,
        tournament=False,
        forced=ForcedBets(invito=10),
        action_time_ms=1000,
        time_bank_ms=0,
        layout=scenario.layout,
        distribution=scenario.distribution,
        **dict(scenario.options),
    )
    state = game.initial_state(config)
    for seat, stack in enumerate(scenario.starting):
        state, _ = game.apply(state, game.seat_command(seat, f"p{seat + 1}", stack, 0))
    before = state
    state, produced = game.apply(state, StartHand(deck_for(scenario), 0, None, players - 1, scenario.name))
    events = list(produced)
    script = list(scenario.actions)
    speakers: list[int] = []
    at = 0
    while state.hand is not None:
        deal = game.dealer_command(state, at)
        if deal is not None:
            state, produced = game.apply(state, deal)
            events.extend(produced)
            continue
        hand = state.hand
        seat = hand.to_act
        assert seat is not None, scenario.name
        if hand.betting and hand.acted_at[seat] < 0 and all(a < 0 for a in hand.acted_at):
            speakers.append(seat)  # the first speaker of a betting round
        at += 10
        choosing = hand.turning_up and not hand.betting  # TL-DEAL-2: a turn-up, not a bet
        if script and script[0][0] == seat and (script[0][1] in ("turn_up", "timeout")) == choosing:
            _, verb, amount = script.pop(0)
            command: Any
            if verb in ("check", "call"):
                command = CheckOrCall(seat, at)
            elif verb == "bet":
                command = BetOrRaise(seat, amount, at)
            elif verb == "fold":
                command = Fold(seat, at)
            elif verb == "turn_up":
                command = TurnUp(seat, amount, at)
            elif verb == "timeout":
                at = max(at, hand.deadline)
                command = TimeoutExpired(seat, at)
            else:
                raise AssertionError(verb)
        elif hand.showdown:
            command = ShowHand(seat, at)  # a losing hand asked to show or muck shows (G-SHOW-1)
        else:
            assert scenario.auto_check and hand.betting, (scenario.name, seat, script[:1])
            assert hand.round_bets[seat] >= hand.current_bet, (scenario.name, "a bet is open", seat)
            command = CheckOrCall(seat, at)
        state, produced = game.apply(state, command)
        events.extend(produced)
    assert not script, (scenario.name, "left over", script)
    return Played(state, before, events, speakers)


def phh_text(scenario: Scenario) -> str:
    played = play(scenario)
    game = find_game(scenario.code)
    return format_history([game.export_hand(played.before, played.events)])


_SPLIT = {
    # X = Ah and Y = Th never share a combination: p1 would make a heart flush with both (beating p2's
    # full house, IT-RANK-1), but counts one combination (TL-VELE-1) and loses; no combination gives p2 a
    # fourth ten or p1 anything above queens full
    "croce": {"A": "Ah", "B": "Th", "C": "Ac", "D": "Ad", "E": "Jc"},
    "h": {"A": "Ah", "F": "Th", "B": "Jc", "C": "Jd", "D": "Ac", "E": "9d", "G": "Js"},
    "piramide": {"A": "Ah", "E": "Th", "B": "Jc", "C": "9d", "D": "Ac", "F": "Jd", "G": "9s"},
    "ascensore": {
        "A": "Ah",
        "B": "Th",
        "E": "Jc",
        "F": "Ac",
        "G": "9d",
        "C": "Jd",
        "H": "9s",
        "D": "Js",
        "I": "Tc",
    },
}

SCENARIOS: tuple[Scenario, ...] = (
    # TL-VELE-1 "none": own five cards only; p2's full house beats p1's two pair. p2 bets 20 in round 2.
    Scenario(
        "none",
        "NTL",
        "none",
        "mai",
        (P1, P2),
        {},
        ((1, "bet", 20), (0, "call", 0)),
        (70, 130),
        rule="TL-VELE-1",
    ),
    # una: the vela Kd gives p1 kings full of nines, over p2's queens full (IT-RANK-3)
    Scenario(
        "una",
        "NTL",
        "una",
        "mai",
        (P1, P2),
        {"A": "Kd"},
        ((1, "bet", 20), (0, "call", 0)),
        (130, 70),
        rule="TL-VELE-1",
    ),
    # due: Ah and Th complete p1's heart flush, which beats a full house (IT-RANK-1)
    Scenario("due", "PTL", "due", "mai", (P1, P2), {"A": "Ah", "B": "Th"}, (), (110, 90), rule="TL-VELE-1"),
    # tre: turned A, C, B; the flush needs A and B
    Scenario(
        "tre",
        "FTL",
        "tre",
        "mai",
        (P1, P2),
        {"A": "Ah", "B": "Th", "C": "Jc"},
        (),
        (110, 90),
        rule="TL-VELE-1",
    ),
    *(
        Scenario(
            name,
            "NTL",
            name,
            "mai",
            (P1, P2),
            vele,
            ((1, "bet", 20), (0, "call", 0)),
            (70, 130),
            rule="TL-VELE-1",
        )
        for name, vele in _SPLIT.items()
    ),
    # primo_giro: round 1 deals two down; p1 turns up its second card (Jh), p2 its first (Qs)
    Scenario(
        "primo_giro",
        "NTL",
        "una",
        "primo_giro",
        (P1, P2),
        {"A": "Kd"},
        ((0, "turn_up", 1), (1, "turn_up", 0)),
        (110, 90),
        rule="TL-DEAL-2",
    ),
    # sempre: every new card comes down; p1 keeps 9h hidden, p2 times out every time: the card dealt
    # last goes up (automatic), and the time-out sits p2 out (IT-SIT-1): it then checks when free
    Scenario(
        "sempre",
        "NTL",
        "una",
        "sempre",
        (P1, P2),
        {"A": "Kd"},
        ((0, "turn_up", 1), (1, "timeout", 0), (0, "turn_up", 1), (0, "turn_up", 1), (0, "turn_up", 1)),
        (110, 90),
        rule="TL-DEAL-2",
    ),
    # TL-ACT-1: Jh up speaks before Jd up (suits, IT-SUIT), then p1's higher cards speak first; p2's
    # pair of tens wins (no vele)
    Scenario(
        "act_suits",
        "NTL",
        "none",
        "mai",
        ("9c Jd Qs Ks Ad", "Tc Jh 9h Th Qc"),
        {},
        (),
        (90, 110),
        rule="TL-ACT-1",
    ),
    # TL-ACT-1's decision: p2 (the best visible hand every round) is all-in on the invito, so p3, the next
    # player on its left who can act, speaks first; p3's straight wins the only pot (3 players, 28 cards)
    Scenario(
        "act_all_in",
        "NTL",
        "none",
        "mai",
        ("9c Jd Ts 9d Ks", "Qc Ah Th Ac As", "9h Kd Tc Js Qs"),
        {},
        (),
        (90, 0, 120),
        starting=(100, 10, 100),
        rule="TL-ACT-1",
    ),
)
"""The scenarios kept as PHH files (one per layout, per distribution mode, and for TL-ACT-1)."""


def write() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for scenario in SCENARIOS:
        (DATA / f"{scenario.name}.phh").write_text(phh_text(scenario))


if __name__ == "__main__":
    write()
