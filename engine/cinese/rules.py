"""Poker cinese's decider: ``apply(state, command) -> (state, events)`` and the total ``evolve`` (rules CN-1 …
CN-5, CN-TIME-1).

- A game deals 15 cards to each player of the match (13 with four, CN-1), seat by seat from the top of the
  deck; every dealt seat is to act at once until it submits (:func:`to_act`).
- :func:`check_arrangement` refuses a bad arrangement with a named :class:`~engine.cinese.model.CineseError`
  (CN-2, CN-3); a player may submit again (a change) until the last player submits or the time runs out.
- When the last player submits, or at the time-out (the solver arranges for the others, CN-TIME-1), every
  arrangement is shown and the rows are paid one by one (:func:`pay_row`, CN-4); the third game ends the
  match (:func:`ranking`, CN-5).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from engine.cards import Card, Deck
from engine.cinese.model import (
    GAMES_PER_MATCH,
    Arrangement,
    ArrangementSubmitted,
    BadRowSizes,
    CardNotHeld,
    CardsDealt,
    CardUsedTwice,
    CineseConfig,
    CineseError,
    CineseHand,
    CineseState,
    Command,
    Event,
    GameInProgress,
    HandEnded,
    HandShown,
    HandStarted,
    MatchEnded,
    MatchStarted,
    MatchState,
    NoGameRunning,
    NotDealtIn,
    NotEnoughPlayers,
    RowsOutOfOrder,
    RowWon,
    SeatProblem,
    SeedProblem,
    StartGame,
    Submit,
    TimeIsUp,
    TimeNotUp,
    TokenNotHeld,
    TokenStakedTwice,
    TokenUnknown,
)
from engine.cinese.solver import estimate, row_sizes, solve_with
from engine.core.model import (
    PlayerRemoved,
    PlayerSeated,
    RemovePlayer,
    RevealSeed,
    SeatPlayer,
    SeatState,
    SeedRevealed,
    TimeoutExpired,
)
from engine.evaluation.standard import standard_evaluator

__all__ = [
    "apply",
    "cards_per_player",
    "check_arrangement",
    "evolve",
    "initial_state",
    "pay_row",
    "players_for_next_game",
    "ranking",
    "row_key",
    "solver_arrangement",
    "to_act",
]

_ROW_NAMES = ("first", "second", "third")


def initial_state(config: CineseConfig) -> CineseState:
    """An empty table. Raises ``ValueError`` for seats outside 2–4, an empty or non-0–4 token set with fewer
    than nine tokens (three games of three stakes, CN-3), a negative time or fewer than one sample."""
    if not 2 <= config.seats <= 4:
        raise ValueError(f"a poker cinese table has 2 to 4 seats (CN-1), not {config.seats}")
    if len(config.tokens) != 3 * GAMES_PER_MATCH or any(
        isinstance(t, bool) or not isinstance(t, int) or not 0 <= t <= 4 for t in config.tokens
    ):
        raise ValueError("the token set is nine tokens of values 0 to 4 (CN-3)")
    if config.action_time_ms < 0 or config.time_bank_ms < 0:
        raise ValueError("times cannot be negative")
    if config.samples < 1:
        raise ValueError("the solver needs at least one Monte Carlo sample")
    if isinstance(config.games, bool) or config.games not in (1, GAMES_PER_MATCH):
        raise ValueError("a match is three games (CN-5), or one (a knockout's extra game)")
    return CineseState(config=config, seats=(None,) * config.seats)


def cards_per_player(players: int) -> int:
    """15 cards each, 13 with four players (CN-1)."""
    return 13 if players == 4 else 15


def row_key(cards: Sequence[Card]) -> int:
    """A row's poker value (larger is better; CN-1, CN-2: a 3-card row compares with 5-card ones by
    category, then ranks, a present kicker beating a missing one)."""
    return standard_evaluator().key([card.code for card in cards])


def players_for_next_game(state: CineseState) -> tuple[int, ...]:
    """The seats the next game deals: the match's players still seated, or, between matches, every seated
    player not sitting out (at most four)."""
    seated = [s for s, o in enumerate(state.seats) if o is not None and not o.sitting_out]
    if state.match is not None:
        return tuple(s for s in state.match.seats if s in seated)
    return tuple(seated[:4])


def to_act(state: CineseState) -> frozenset[int]:
    """Every dealt seat that has not submitted (players act at the same time)."""
    hand = state.hand
    if hand is None:
        return frozenset()
    return frozenset(seat for seat in hand.dealt if hand.submitted[seat] is None)


def check_arrangement(state: CineseState, seat: int, arrangement: Arrangement) -> None:
    """Refuse ``arrangement`` for ``seat`` with the fault named (CN-2, CN-3), in this order: wrong sizes
    (:class:`BadRowSizes`), a card used twice (:class:`CardUsedTwice`), a card not held
    (:class:`CardNotHeld`), rows out of order (:class:`RowsOutOfOrder`), not one known token value per row
    (:class:`TokenUnknown`), a token the player no longer has (:class:`TokenNotHeld`), a token staked more
    times than held (:class:`TokenStakedTwice`)."""
    hand, match = state.hand, state.match
    if hand is None or match is None:
        raise NoGameRunning("no game is running")
    if not 0 <= seat < len(state.seats) or seat not in hand.dealt:
        raise NotDealtIn(f"seat {seat} has no cards in this game")
    rows = arrangement.rows
    sizes = row_sizes(len(hand.dealt))
    if len(rows) != 3 or tuple(len(row) for row in rows) != sizes:
        got = ", ".join(str(len(row)) for row in rows) or "none"
        want = ", ".join(str(size) for size in sizes)
        raise BadRowSizes(f"the three rows must have {want} cards (CN-2), not {got}")
    every = [card for row in rows for card in row]
    if not all(isinstance(card, Card) for card in every):
        raise CardNotHeld("a row holds something that is not a card")
    counts = Counter(every)
    twice = sorted((card for card, n in counts.items() if n > 1), key=lambda c: c.code)
    if twice:
        raise CardUsedTwice(f"{twice[0]} is used twice (every dealt card once, CN-2)")
    held = set(hand.cards[seat])
    missing = [card for card in every if card not in held]
    if missing:
        raise CardNotHeld(f"{missing[0]} is not one of your cards (CN-2)")
    keys = [row_key(row) for row in rows]
    for upper in range(2):
        if keys[upper] < keys[upper + 1]:
            raise RowsOutOfOrder(
                f"the {_ROW_NAMES[upper]} hand must be worth at least the {_ROW_NAMES[upper + 1]} (CN-2)"
            )
    stakes = arrangement.stakes
    known = set(state.config.tokens)
    if len(stakes) != 3 or any(isinstance(s, bool) or not isinstance(s, int) for s in stakes):
        raise TokenUnknown("stake exactly one token on each of the three hands (CN-3)")
    for stake in stakes:
        if stake not in known:
            raise TokenUnknown(
                f"there is no token of value {stake} (the set is {sorted(state.config.tokens)})"
            )
    unused = Counter(match.unused[seat])
    for value, n in sorted(Counter(stakes).items()):
        if unused[value] == 0:
            raise TokenNotHeld(f"you have no unused token of value {value}: it was staked already (CN-3)")
        if n > unused[value]:
            raise TokenStakedTwice(
                f"the token of value {value} is staked {n} times but you have {unused[value]} left (CN-3)"
            )


def solver_arrangement(state: CineseState, seat: int, seed: str) -> Arrangement:
    """The solver's arrangement and stakes for ``seat`` in the game running (CN-TIME-1), its Monte Carlo
    seeded by ``seed`` (data). Raises :class:`NoGameRunning` or :class:`NotDealtIn`."""
    hand, match = state.hand, state.match
    if hand is None or match is None:
        raise NoGameRunning("no game is running")
    if seat not in hand.dealt:
        raise NotDealtIn(f"seat {seat} has no cards in this game")
    opponents = [match.unused[s] for s in hand.dealt if s != seat]
    est = estimate(
        hand.cards[seat],
        match.unused[seat],
        opponents,
        games_after=state.config.games - 1 - match.games,
        cascade=state.config.cascade,
        seed=seed,
        samples=state.config.samples,
    )
    solution = solve_with(est, hand.cards[seat])
    return Arrangement(solution.rows, solution.stakes)


def pay_row(row: int, keys: Sequence[tuple[int, int]], stakes: dict[int, int], cascade: bool) -> RowWon:
    """Pay row ``row`` (CN-4): ``keys`` are ``(seat, value)`` pairs, ``stakes`` each seat's token there.

    Standard: the best alone takes every token; tied best each take back their own, the rest is discarded.
    Cascade (variant, with CN-4's decision for ties): the first place (one seat or several tied) takes back
    their own; a token passes up only from a lone seat to a lone seat on the place directly above; every
    other token is discarded."""
    values = sorted({value for _, value in keys}, reverse=True)
    places = tuple(tuple(sorted(seat for seat, v in keys if v == value)) for value in values)
    won: dict[int, list[int]] = {seat: [] for seat, _ in keys}
    discarded: list[int] = []
    first = places[0]
    if not cascade:
        if len(first) == 1:
            won[first[0]] = sorted(stakes[seat] for seat, _ in keys)
        else:
            for seat in first:
                won[seat] = [stakes[seat]]
            discarded = sorted(stakes[seat] for seat, _ in keys if seat not in first)
    else:
        for seat in first:
            won[seat].append(stakes[seat])
        for index in range(1, len(places)):
            group, above = places[index], places[index - 1]
            if len(group) == 1 and len(above) == 1:
                won[above[0]].append(stakes[group[0]])
            else:
                discarded.extend(stakes[seat] for seat in group)
        discarded.sort()
    return RowWon(
        row=row,
        places=places,
        won=tuple((seat, tuple(sorted(won[seat]))) for seat, _ in sorted(keys)),
        discarded=tuple(discarded),
    )


def ranking(
    totals: dict[int, int], rows_won: dict[int, int], last: dict[int, int]
) -> tuple[tuple[int, ...], ...]:
    """Places of a match (CN-5 and its decision): higher total, then more rows won, then more points in the
    last game; seats equal on all three share a place (one group)."""

    def score(seat: int) -> tuple[int, int, int]:
        return (totals[seat], rows_won[seat], last[seat])

    ordered = sorted(totals, key=lambda seat: (tuple(-x for x in score(seat)), seat))
    groups: list[list[int]] = []
    for seat in ordered:
        if groups and score(groups[-1][0]) == score(seat):
            groups[-1].append(seat)
        else:
            groups.append([seat])
    return tuple(tuple(group) for group in groups)


# --- the decider -----------------------------------------------------------------------------------------


class _Builder:
    """The events of one command, folded as they are emitted."""

    __slots__ = ("events", "state")

    def __init__(self, state: CineseState) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def apply(state: CineseState, command: Command) -> tuple[CineseState, tuple[Event, ...]]:
    """The state after ``command`` and its events. Raises a :class:`CineseError` (state unchanged)."""
    b = _Builder(state)
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise CineseError(f"poker cinese does not take {type(command).__name__}")
    handler(b, command)
    return b.state, tuple(b.events)


def _on_seat(b: _Builder, c: SeatPlayer) -> None:
    state = b.state
    if state.hand is not None:
        raise GameInProgress("players sit down between games")
    if not 0 <= c.seat < len(state.seats):
        raise SeatProblem(f"there is no seat {c.seat}")
    if state.seats[c.seat] is not None:
        raise SeatProblem(f"seat {c.seat} is taken")
    if not c.player or any(o is not None and o.player == c.player for o in state.seats):
        raise SeatProblem(f"{c.player!r} is already seated or not a name")
    if isinstance(c.stack, bool) or not isinstance(c.stack, int) or c.stack < 0:
        raise SeatProblem("the stack is a whole number of chips, zero or more")
    b.emit(PlayerSeated(c.seat, c.player, c.stack))


def _on_remove(b: _Builder, c: RemovePlayer) -> None:
    state = b.state
    if state.hand is not None:
        raise GameInProgress("players leave between games")
    if not 0 <= c.seat < len(state.seats) or state.seats[c.seat] is None:
        raise SeatProblem(f"seat {c.seat} is empty")
    occupant = state.seats[c.seat]
    assert occupant is not None
    b.emit(PlayerRemoved(c.seat, occupant.player, occupant.stack))
    match = b.state.match
    if match is not None and c.seat in match.seats and len(players_for_next_game(b.state)) < 2:
        _end_match(b)  # a match left with one player ends (documented in docs/rules-decisions.md)


def _on_reveal(b: _Builder, c: RevealSeed) -> None:
    state = b.state
    if state.hand is not None:
        raise GameInProgress("the seed is revealed only after the game has ended")
    if not state.commitment:
        raise SeedProblem("the last game has no seed commitment")
    if state.seed_revealed:
        raise SeedProblem(f"the seed of game {state.hand_number} was already revealed")
    if not _is_hex(c.seed):
        raise SeedProblem("the seed must be 64 lowercase hex digits (32 bytes)")
    digest = hashlib.sha256(bytes.fromhex(c.seed)).hexdigest()
    if digest != state.commitment:
        raise SeedProblem(f"the seed does not match game {state.hand_number}'s commitment")
    b.emit(SeedRevealed(state.hand_number, c.seed))


def _is_hex(text: object) -> bool:
    return isinstance(text, str) and len(text) == 64 and all(ch in "0123456789abcdef" for ch in text)


def _on_start(b: _Builder, c: StartGame) -> None:
    state = b.state
    if state.hand is not None:
        raise GameInProgress("a game is running")
    seats = players_for_next_game(state)
    if len(seats) < 2:
        raise NotEnoughPlayers("poker cinese needs 2 to 4 players (CN-1)")
    deck = tuple(c.deck)
    if sorted(card.code for card in deck) != list(range(52)) or not all(isinstance(x, Card) for x in deck):
        raise CineseError("the deck must hold every card of the 52-card deck exactly once (CN-1)")
    if c.commitment and not _is_hex(c.commitment):
        raise SeedProblem("the seed commitment must be 64 lowercase hex digits")
    if state.match is None:
        b.emit(MatchStarted(state.matches + 1, seats, state.config.tokens, state.config.cascade, c.at))
    match = b.state.match
    assert match is not None
    count = cards_per_player(len(seats))
    b.emit(
        HandStarted(
            number=state.hand_number + 1,
            hand_id=c.hand_id,
            match=match.number,
            game=match.games + 1,
            dealt=seats,
            cards=count,
            deck=deck,
            deadline=c.at + state.config.action_time_ms,
            at=c.at,
            commitment=c.commitment,
            shuffle_algorithm=c.shuffle_algorithm,
        )
    )
    for index, seat in enumerate(seats):
        b.emit(CardsDealt(seat, deck[index * count : (index + 1) * count]))


def _on_submit(b: _Builder, c: Submit) -> None:
    state = b.state
    hand = state.hand
    if hand is None:
        raise NoGameRunning("no game is running")
    if c.at > hand.deadline:
        raise TimeIsUp("the time to arrange is over: the solver arranges for you (CN-TIME-1)")
    check_arrangement(state, c.seat, c.arrangement)
    rows = tuple(tuple(row) for row in c.arrangement.rows)
    b.emit(ArrangementSubmitted(c.seat, Arrangement(rows, tuple(c.arrangement.stakes)), False, c.at))
    if not to_act(b.state):
        _reveal(b)


def _on_timeout(b: _Builder, c: TimeoutExpired) -> None:
    state = b.state
    hand = state.hand
    if hand is None:
        raise NoGameRunning("no game is running")
    if c.at < hand.deadline:
        raise TimeNotUp(f"the time runs out at {hand.deadline}, not {c.at}")
    for seat in sorted(to_act(state)):
        seed = f"{hand.hand_id}/{hand.number}/{seat}/{state.commitment}"
        arrangement = solver_arrangement(b.state, seat, seed)
        b.emit(ArrangementSubmitted(seat, arrangement, True, c.at))
    _reveal(b)


def _reveal(b: _Builder) -> None:
    hand = b.state.hand
    assert hand is not None
    arrangements: dict[int, Arrangement] = {}
    for seat in hand.dealt:
        arrangement = hand.submitted[seat]
        assert arrangement is not None
        arrangements[seat] = arrangement
        b.emit(HandShown(seat, tuple(card for row in arrangement.rows for card in row), arrangement))
    points = {seat: 0 for seat in hand.dealt}
    for row in range(3):
        keys = [(seat, row_key(arrangements[seat].rows[row])) for seat in hand.dealt]
        stakes = {seat: arrangements[seat].stakes[row] for seat in hand.dealt}
        result = pay_row(row, keys, stakes, b.state.config.cascade)
        for seat, tokens in result.won:
            points[seat] += sum(tokens)
        b.emit(result)
    match = b.state.match
    assert match is not None
    if match.games + 1 >= b.state.config.games:  # the last game ends the match, inside the game's events
        _end_match(b, points)
    b.emit(HandEnded(hand.number, tuple(sorted(points.items()))))


def _end_match(b: _Builder, game_points: dict[int, int] | None = None) -> None:
    """Emit :class:`MatchEnded` (CN-5); ``game_points``: the points of the game just played when it is the
    last one (else the last finished game's)."""
    match = b.state.match
    assert match is not None
    seats = [s for s in match.seats if b.state.seats[s] is not None] or list(match.seats)
    totals = {s: match.points[s] for s in seats}
    rows = {s: match.rows_won[s] for s in seats}
    last = {s: (game_points or {}).get(s, 0) if game_points is not None else match.last[s] for s in seats}
    b.emit(
        MatchEnded(
            match.number,
            tuple(sorted(totals.items())),
            tuple(sorted(rows.items())),
            ranking(totals, rows, last),
        )
    )


_HANDLERS: dict[type, Callable[[_Builder, object], None]] = {
    SeatPlayer: _on_seat,  # type: ignore[dict-item]
    RemovePlayer: _on_remove,  # type: ignore[dict-item]
    RevealSeed: _on_reveal,  # type: ignore[dict-item]
    StartGame: _on_start,  # type: ignore[dict-item]
    Submit: _on_submit,  # type: ignore[dict-item]
    TimeoutExpired: _on_timeout,  # type: ignore[dict-item]
}


# --- evolve ------------------------------------------------------------------------------------------------


def evolve(state: CineseState, event: Event) -> CineseState:
    """Apply one event (total: never validates)."""
    n = len(state.seats)
    if isinstance(event, PlayerSeated):
        seats = list(state.seats)
        seats[event.seat] = SeatState(event.player, event.stack)
        return replace(state, seats=tuple(seats))
    if isinstance(event, PlayerRemoved):
        seats = list(state.seats)
        seats[event.seat] = None
        return replace(state, seats=tuple(seats))
    if isinstance(event, MatchStarted):
        tokens = tuple(sorted(event.tokens))
        new_match = MatchState(
            number=event.number,
            seats=event.seats,
            games=0,
            unused=tuple(tokens if s in event.seats else () for s in range(n)),
            points=(0,) * n,
            rows_won=(0,) * n,
            last=(0,) * n,
        )
        return replace(state, match=new_match, matches=event.number, last_match=None)
    if isinstance(event, HandStarted):
        started = CineseHand(
            number=event.number,
            hand_id=event.hand_id,
            dealt=event.dealt,
            cards=((),) * n,
            submitted=(None,) * n,
            automatic=(False,) * n,
            deck=event.deck,
            deadline=event.deadline,
            at=event.at,
        )
        return replace(
            state,
            hand=started,
            hand_number=event.number,
            commitment=event.commitment,
            seed_revealed=False,
            revealed=(),
            results=(),
        )
    if isinstance(event, CardsDealt):
        hand = state.hand
        assert hand is not None
        cards = list(hand.cards)
        cards[event.seat] = event.down
        return replace(state, hand=replace(hand, cards=tuple(cards)))
    if isinstance(event, ArrangementSubmitted):
        hand = state.hand
        assert hand is not None
        submitted = list(hand.submitted)
        submitted[event.seat] = event.arrangement
        automatic = list(hand.automatic)
        automatic[event.seat] = event.automatic
        return replace(state, hand=replace(hand, submitted=tuple(submitted), automatic=tuple(automatic)))
    if isinstance(event, HandShown):
        match = state.match
        if match is not None:
            unused = list((Counter(match.unused[event.seat]) - Counter(event.arrangement.stakes)).elements())
            unused_now = list(match.unused)
            unused_now[event.seat] = tuple(sorted(unused))
            match = replace(match, unused=tuple(unused_now))
        return replace(state, match=match, revealed=(*state.revealed, (event.seat, event.arrangement)))
    if isinstance(event, RowWon):
        match = state.match
        if match is not None:
            points = list(match.points)
            for seat, tokens in event.won:
                points[seat] += sum(tokens)
            rows_won = list(match.rows_won)
            for seat in event.places[0]:
                rows_won[seat] += 1
            match = replace(match, points=tuple(points), rows_won=tuple(rows_won))
        return replace(state, match=match, results=(*state.results, event))
    if isinstance(event, HandEnded):
        match = state.match
        if match is not None:
            last = [0] * n
            for seat, value in event.points:
                last[seat] = value
            match = replace(match, games=match.games + 1, last=tuple(last))
        return replace(state, hand=None, match=match)
    if isinstance(event, MatchEnded):
        return replace(state, match=None, last_match=event)
    if isinstance(event, SeedRevealed):
        return replace(state, seed_revealed=True)
    return state


def deal_deck(deal: Callable[[Deck], tuple[Card, ...]]) -> tuple[Card, ...]:
    """The 52-card deck in dealing order from the service's ``deal``."""
    return deal(Deck.standard())
