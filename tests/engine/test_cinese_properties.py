"""Properties of poker cinese (issue 20), with hypothesis: tokens are conserved (every staked token is won by
someone or discarded, CN-4, both payouts; a match's points never exceed what was staked), and the solver's
arrangement is always legal (CN-2, CN-3) and never worse, by its own objective, than any arrangement a
random search finds (CN-TIME-1)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck
from engine.cinese import rules
from engine.cinese.model import DEFAULT_TOKENS, Arrangement, RowWon, StartGame, Submit
from engine.cinese.solver import best_stakes, estimate, objective, row_sizes, solve_with
from tests.engine.cinese_support import table


def random_legal(
    cards: list[Card], sizes: tuple[int, int, int], rng: random.Random
) -> tuple[tuple[Card, ...], ...]:
    """A random split of ``cards`` into rows of ``sizes``, rows ordered by value (legal when the 3-card row
    is not above a 5-card one; ``()`` otherwise)."""
    shuffled = rng.sample(cards, len(cards))
    a, b, _ = sizes
    rows = [tuple(shuffled[:a]), tuple(shuffled[a : a + b]), tuple(shuffled[a + b :])]
    if sizes[2] == 5:
        rows.sort(key=rules.row_key, reverse=True)
    elif rules.row_key(rows[1]) > rules.row_key(rows[0]):
        rows[0], rows[1] = rows[1], rows[0]
    if not rules.row_key(rows[0]) >= rules.row_key(rows[1]) >= rules.row_key(rows[2]):
        return ()
    return tuple(rows)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4), cascade=st.booleans())
def test_tokens_are_conserved_over_a_match(seed: int, players: int, cascade: bool) -> None:
    rng = random.Random(seed)
    state = table(players, cascade=cascade)
    staked_total = 0
    for game in range(3):
        deck = tuple(rng.sample(Deck.standard().cards, 52))
        state, _ = rules.apply(state, StartGame(deck, game * 1000, f"g{game}"))
        hand, match = state.hand, state.match
        assert hand is not None and match is not None
        stakes_by_seat = {}
        for seat in hand.dealt:
            rows: tuple[tuple[Card, ...], ...] = ()
            while not rows:
                rows = random_legal(list(hand.cards[seat]), row_sizes(players), rng)
            stakes = tuple(rng.sample(list(match.unused[seat]), 3))
            stakes_by_seat[seat] = stakes
            state, events = rules.apply(state, Submit(seat, Arrangement(rows, stakes), game * 1000 + 1))
        for row in (e for e in events if isinstance(e, RowWon)):
            taken = Counter(t for _, tokens in row.won for t in tokens) + Counter(row.discarded)
            assert taken == Counter(stakes_by_seat[seat][row.row] for seat in stakes_by_seat)
        staked_total += sum(sum(s) for s in stakes_by_seat.values())
    ended = state.last_match
    assert state.match is None and ended is not None
    assert sum(points for _, points in ended.totals) <= staked_total == players * sum(DEFAULT_TOKENS)
    assert sorted(seat for group in ended.ranking for seat in group) == list(range(players))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 4),
    cascade=st.booleans(),
    games_after=st.integers(0, 2),
)
def test_the_solver_is_legal_and_never_worse_than_a_random_search(
    seed: int, players: int, cascade: bool, games_after: int
) -> None:
    rng = random.Random(seed)
    tokens = tuple(sorted(rng.sample(list(DEFAULT_TOKENS), 3 * (games_after + 1))))
    opponents = [
        tuple(sorted(rng.sample(list(DEFAULT_TOKENS), 3 * (games_after + 1)))) for _ in range(players - 1)
    ]
    state = table(players, cascade=cascade)
    state, _ = rules.apply(state, StartGame(tuple(rng.sample(Deck.standard().cards, 52)), 0, "g"))
    hand = state.hand
    assert hand is not None and state.match is not None
    cards = hand.cards[0]
    est = estimate(
        cards, tokens, opponents, games_after=games_after, cascade=cascade, seed=str(seed), samples=12
    )
    solution = solve_with(est, cards)
    # legal: the decider accepts it for a player holding these tokens
    unused = list(state.match.unused)
    unused[0] = tokens
    holding = replace(state, match=replace(state.match, unused=tuple(unused)))
    rules.check_arrangement(holding, 0, Arrangement(solution.rows, solution.stakes))
    keys = [rules.row_key(row) for row in solution.rows]
    assert abs(objective(est, keys, solution.stakes) - solution.value) < 1e-9
    for _ in range(300):
        rows = random_legal(list(cards), row_sizes(players), rng)
        if not rows:
            continue
        keys = [rules.row_key(row) for row in rows]
        stakes = tuple(rng.sample(list(tokens), 3))
        assert objective(est, keys, stakes) <= solution.value + 1e-9
        coefficients = [est.a(r, keys[r]) - est.keep for r in range(3)]
        assert objective(est, keys, best_stakes(coefficients, est.tokens)) <= solution.value + 1e-9
