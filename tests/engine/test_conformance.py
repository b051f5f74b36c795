"""The conformance suite: every registered game (``engine.core.games()``, the Italian ones and every game
added later) keeps the protocol's promises over random bot hands (issue 16).

- chips are conserved between hands (``sum(stacks) + carried``) — rule G-POT-1 and the uncalled bet G-SHOW-2;
- exactly the right seats act: the seats of ``to_act`` have legal actions, the others none;
- the fold of the recorded events from the initial state equals the live state (event sourcing);
- every listed legal action is accepted, a sample of unlisted ones (amounts just outside the range, another
  seat acting) is refused with the game's ``illegal_action`` and the state unchanged (the betting-only
  checks — forced bets, a fold by another seat — are skipped for a game declaring no betting,
  :func:`engine.core.is_betting`: poker cinese, whose ``to_act`` is every seat still to submit);
- no view shows a seated player another player's hidden card, nor does the public log;
- every event round-trips through the codec and is in the game's ``events`` mapping, and so does the state
  between hands (the service's snapshots).
"""

from __future__ import annotations

import random
from enum import Enum
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import Card
from engine.codec import from_data, to_data
from engine.core import ForcedBets, ForcedBetsRefused, Game, games, is_betting

GAMES = games()

_FORCED_CANDIDATES = (
    ForcedBets(small_blind=5, big_blind=10),
    ForcedBets(invito=10),
    ForcedBets(ante=2, bring_in=5, small_bet=10, big_bet=20),
    ForcedBets(ante=2, bring_in=5, small_bet=10),  # no-limit and pot-limit stud have no big bet
    ForcedBets(ante=5),
)


def forced_for(game: Game) -> ForcedBets:
    """The first of a few usual forced-bet sets that ``game`` accepts; none for a game without betting
    (poker cinese, ``is_betting`` false: tokens, not chips)."""
    if not is_betting(game):
        return ForcedBets()
    for forced in _FORCED_CANDIDATES:
        try:
            game.check_forced_bets(forced)
        except ForcedBetsRefused:
            continue
        return forced
    raise AssertionError(f"no forced bets fit {game.code}")


def kind_of(action: Any) -> str:
    kind = action.kind
    return str(kind.value if isinstance(kind, Enum) else kind)


def new_table(game: Game, players: int, stacks: list[int], tournament: bool) -> Any:
    seats = max(players, game.min_seats)
    config = game.table_config(
        seats=seats, tournament=tournament, forced=forced_for(game), action_time_ms=1000, time_bank_ms=0
    )
    state = game.initial_state(config)
    events: list[Any] = []
    for seat in range(players):
        state, produced = game.apply(state, game.seat_command(seat, f"p{seat}", stacks[seat], 0))
        events.extend(produced)
    return state, events


def own_cards(view: Any, seat: int) -> tuple[Card | None, ...]:
    return tuple(view.seats[seat].cards)


def check_views(game: Game, state: Any) -> None:
    """A seated viewer sees of every other seat exactly what a spectator sees, and a spectator sees no
    face-down card of a hand not shown."""
    spectator = game.view(state, None)
    for seat, seen in enumerate(spectator.seats):
        if seen is None or seen.shown:
            continue
        up = set(getattr(seen, "up", ()))
        assert all(card is None or card in up for card in seen.cards), (game.code, seat, seen)
    for viewer, occupant in enumerate(state.seats):
        if occupant is None:
            continue
        mine = game.view(state, viewer)
        for seat, seen in enumerate(mine.seats):
            if seat != viewer:
                assert seen == spectator.seats[seat], (game.code, viewer, seat)


def cards_in(data: Any, found: set[str]) -> None:
    if isinstance(data, str):
        if len(data) == 2:
            try:
                Card.parse(data)
            except ValueError:
                return
            found.add(data)
    elif isinstance(data, list):
        for item in data:
            cards_in(item, found)
    elif isinstance(data, dict):
        for item in data.values():
            cards_in(item, found)


def check_public_log(game: Game, events: list[Any], state: Any) -> None:
    """The log as a seated player receives it names no card that player may not know: their own, the
    face-up ones (board, up cards) and the hands shown."""
    now = game.facts(state).seating
    for viewer_seat, name in enumerate(now):
        if name is None:
            continue
        allowed: set[str] = set()
        for event in events:
            kind = type(event).__name__
            data = to_data(event)
            if kind in ("CardsDealt", "Discarded") and data["seat"] == viewer_seat:
                cards_in({k: v for k, v in data.items() if k != "burn"}, allowed)
            elif kind == "CardsDealt":
                cards_in(data.get("up", []), allowed)
            elif kind in ("BoardDealt", "HandShown"):
                cards_in(data.get("cards", []), allowed)
            elif kind == "CardTurnedUp":  # Telesina (TL-DEAL-2): a hidden card turned face up
                cards_in(data.get("card", ""), allowed)
        seen: set[str] = set()
        for entry in game.public_log(events, now, name):
            cards_in(to_data(entry.event), seen)
        assert seen <= allowed, (game.code, name, sorted(seen - allowed))


def check_codec(game: Game, events: list[Any]) -> None:
    for event in events:
        assert game.events[type(event).__name__] is type(event)
        assert from_data(type(event), to_data(event)) == event


def refusals(game: Game, state: Any, seat: int, actions: tuple[Any, ...]) -> list[Any]:
    """Unlisted commands: amounts just outside each listed range, and a bet by a seat not to act."""
    commands = []
    for action in actions:
        kind = kind_of(action)
        if kind in game.amount_actions:
            listed = {a.minimum for a in actions if kind_of(a) == kind} | {
                a.maximum for a in actions if kind_of(a) == kind
            }
            for amount in (action.minimum - 1, action.maximum + 1):
                inside = any(a.minimum <= amount <= a.maximum for a in actions if kind_of(a) == kind)
                if not inside and amount not in listed and amount >= 0:
                    commands.append(game.player_command(state, seat, kind, amount, (), 0))
    others = [s for s, o in enumerate(state.seats) if o is not None and s != seat]
    if others and is_betting(game):  # a fold is a betting game's action
        commands.append(game.player_command(state, others[0], "fold", None, (), 0))
    return commands


def accepted(game: Game, state: Any, seat: int, action: Any) -> list[Any]:
    kind = kind_of(action)
    if kind in game.amount_actions:
        return [
            game.player_command(state, seat, kind, amount, (), 0)
            for amount in sorted({action.minimum, action.maximum})
        ]
    cards: tuple[Card, ...] = ()
    if kind == "discard":
        mine = own_cards(game.view(state, seat), seat)
        cards = tuple(card for card in mine if card is not None)[: action.minimum]
    return [game.player_command(state, seat, kind, None, cards, 0)]


def play(
    game: Game, seed: int, players: int, stacks: list[int], hands: int, tournament: bool, thorough: bool
) -> None:
    rng = random.Random(seed)
    state, events = new_table(game, players, stacks, tournament)
    initial = state
    total = sum(stacks[:players])
    at = 0
    for number in range(hands):
        if not game.can_start_hand(state):
            break
        at += 1000

        def deal(deck: Any) -> tuple[Card, ...]:
            return tuple(rng.sample(deck.cards, len(deck.cards)))

        command = game.start_command(
            state, deal, at=at, forced=None, button=None, hand_id=f"h{number}", commitment="", algorithm=""
        )
        state, produced = game.apply(state, command)
        events.extend(produced)
        hand_start = len(events) - len(produced)
        for _ in range(2000):
            deal_command = game.dealer_command(state, at)
            if deal_command is not None:
                state, produced = game.apply(state, deal_command)
                events.extend(produced)
                continue
            to_act = game.to_act(state)
            facts = game.facts(state)
            if not facts.in_hand:
                break
            assert to_act, f"{game.code}: a hand runs with nobody to act and nothing to deal"
            for seat, occupant in enumerate(state.seats):
                legal = game.legal_actions(state, seat)
                if seat in to_act:
                    assert occupant is not None and legal, (game.code, seat)
                else:
                    assert not legal, (game.code, seat, legal)
            seat = min(to_act)
            actions = game.legal_actions(state, seat)
            if thorough:
                for action in actions:
                    for candidate in accepted(game, state, seat, action):
                        game.apply(state, candidate)  # raises if a listed action is refused
                for candidate in refusals(game, state, seat, actions):
                    before = state
                    with pytest.raises(game.illegal_action):
                        game.apply(state, candidate)
                    assert state is before
                check_views(game, state)
            at += 10
            state, produced = game.apply(state, game.bot_command(state, seat, rng, at))
            events.extend(produced)
        else:
            raise AssertionError(f"{game.code}: the hand does not end")
        facts = game.facts(state)
        assert not facts.in_hand
        assert from_data(game.state_type, to_data(state)) == state  # a snapshot reads back
        assert sum(s.stack for s in facts.seats if s is not None) + facts.carried == total
        if thorough:
            check_public_log(game, events[hand_start:], state)
        if facts.reveal_due:  # a hand without a commitment has nothing to reveal
            raise AssertionError("no commitment was given")
    replayed = initial
    for event in events:
        replayed = game.evolve(replayed, event)
    assert replayed == state
    check_codec(game, events)


@pytest.mark.parametrize("game", GAMES, ids=[game.code for game in GAMES])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 6),
    stacks=st.lists(st.integers(30, 600), min_size=6, max_size=6),
    tournament=st.booleans(),
)
def test_random_bot_hands_keep_the_protocol(
    game: Game, seed: int, players: int, stacks: list[int], tournament: bool
) -> None:
    players = min(players, game.max_seats)
    play(game, seed, players, stacks, hands=6, tournament=tournament, thorough=False)


@pytest.mark.parametrize("game", GAMES, ids=[game.code for game in GAMES])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 5))
def test_every_listed_action_is_accepted_and_others_refused(game: Game, seed: int, players: int) -> None:
    players = min(players, game.max_seats)
    play(game, seed, players, [200] * 6, hands=2, tournament=True, thorough=True)
