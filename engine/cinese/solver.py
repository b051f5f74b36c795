"""The poker cinese solver (rule CN-TIME-1): the arrangement and the stakes the engine chooses for a player
whose time runs out, and the "suggest" a page offers.

**Objective.** Expected victory points won in this game, plus the worth of the tokens kept for the games
left in the match:

    E = Σ_r [ a_r(k_r) · s_r + b_r(k_r) ]  −  ā · Σ_r s_r     (ā = 1/n when games follow this one, else 0)

where ``k_r`` is the value of the hand on row ``r`` (:meth:`StandardEvaluator.key`), ``s_r`` the token
staked on it, ``a_r(k)`` the probability that a hand of value ``k`` takes back its own token on row ``r``
(best alone or tied best: CN-4, both variants), ``b_r(k)`` the expected value of the opponents' tokens it
takes (best alone: every opponent's token; in the cascade, the token of the lone player directly below,
CN-4's decision), and ``ā · s`` what a token is worth if kept: in a later game each of ``n`` players takes
back a token on a row with probability ``1/n`` on average (a symmetric prior). Without games after this
one every remaining token must be staked, and the term is a constant (``ā = 0``).

**Estimating a_r and b_r (Monte Carlo, seed as data).** ``samples`` times, the unseen cards (the deck less
the player's) are shuffled with :func:`engine.shuffle.shuffle` under a seed derived from ``seed`` (so the
engine stays deterministic: the same data give the same answer), each opponent gets the game's number of
cards and arranges them with the *opponent model*: the best of ``trials`` random splits into the game's
row sizes, rows ordered by value (a split scored by the sum of its row categories; a cheap stand-in for
a real player, documented in docs/rules-decisions.md). Each opponent is assumed to stake the mean of their
unused tokens (public: staked tokens are revealed). For every row the opponents' best values per sample
are sorted once; ``a_r`` and ``b_r`` are then step functions of ``k`` read by bisection (``O(log samples)``).

**Exact arrangement search.** Every legal split is considered (CN-2: rows of 5, 5, 5 or 5, 5, 3, first ≥
second ≥ third, every card used). Hand values of every 5- and 3-card subset are computed once and cached
by card mask. Given the three row values, the best stakes have a closed form (rearrangement inequality:
rows with a positive coefficient ``c_r = a_r − ā`` take the largest unused tokens in order of ``c_r``, rows
with a negative one the smallest), and ``E`` is non-decreasing in each row value (``a_r``, ``b_r`` are
monotone and stakes are non-negative). So the search takes first rows in decreasing value and stops as soon
as ``E(k_1, k_1, min(k_1, t))`` — an upper bound of every split whose first row is worth ``k_1``, since the
rows below are worth no more (the ordering rule) and the third no more than ``t``, the best third row the
hand can make (a 3-card row with four players) — cannot beat the best split found (branch and bound; the
pruning by the ordering rule of the task, issue 20; in the cascade ``b_r`` is not monotone, and the bound
takes its maximum instead). Rows two and three are enumerated exhaustively under each first row, split
pairs out of order skipped. The result is exact for the objective; ties are broken by the first split found
(deterministic order).

Sources: the rules are Dario De Toffoli's *Poker cinese* (seed 001); the method is the textbook branch and
bound over a separable monotone objective (Land & Doig 1960) with Monte Carlo estimation of the opponents'
distribution, as used by open-face Chinese poker solvers.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from engine.cards import Card, Deck
from engine.evaluation.standard import standard_evaluator
from engine.shuffle import derive_seed, shuffle

__all__ = [
    "Estimate",
    "Solution",
    "best_stakes",
    "estimate",
    "objective",
    "row_sizes",
    "solve",
    "solve_with",
]

_CATEGORY_SHIFT = 20


def row_sizes(players: int) -> tuple[int, int, int]:
    """The sizes of the three rows (CN-1, CN-2): 5, 5, 3 with four players, else 5, 5, 5."""
    return (5, 5, 3) if players == 4 else (5, 5, 5)


@dataclass(frozen=True, slots=True)
class Estimate:
    """The Monte Carlo estimate a solve uses (see the module doc).

    ``best``: per row, the sorted best opponent value of each sample; ``start``/``start_sum`` and
    ``end``/``end_sum``: per row, the sorted thresholds where an opponent's token starts/stops being won and
    the prefix sums of the token values (the step function ``b_r``); ``samples``; ``keep``: ``ā``;
    ``tokens``: the player's unused tokens, sorted ascending."""

    best: tuple[tuple[int, ...], ...]
    start: tuple[tuple[int, ...], ...]
    start_sum: tuple[tuple[float, ...], ...]
    end: tuple[tuple[int, ...], ...]
    end_sum: tuple[tuple[float, ...], ...]
    samples: int
    keep: float
    tokens: tuple[int, ...]
    cascade: bool = False
    b_max: tuple[float, ...] = (0.0, 0.0, 0.0)

    def a(self, row: int, key: int) -> float:
        """Probability that a hand of value ``key`` on ``row`` takes back its own token."""
        return bisect_right(self.best[row], key) / self.samples

    def b(self, row: int, key: int) -> float:
        """Expected value of the opponents' tokens a hand of value ``key`` on ``row`` takes."""
        starts = self.start_sum[row][bisect_left(self.start[row], key)]
        ends = self.end_sum[row][bisect_right(self.end[row], key)]
        return (starts - ends) / self.samples


@dataclass(frozen=True, slots=True)
class Solution:
    """The solver's answer: ``rows`` (first, second, third; each sorted best card first), ``stakes`` (one
    token value per row) and ``value`` (the objective :func:`objective` of that choice)."""

    rows: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    stakes: tuple[int, int, int]
    value: float


def _seed_bytes(seed: str | bytes) -> bytes:
    if isinstance(seed, bytes) and len(seed) == 32:
        return seed
    data = seed if isinstance(seed, bytes) else seed.encode("utf-8")
    return hashlib.sha256(b"mazziere-cinese-solver:" + data).digest()


def _category_sum(keys: Iterable[int]) -> int:
    return sum(key >> _CATEGORY_SHIFT for key in keys)


def _model_rows(cards: Sequence[int], sizes: tuple[int, int, int], order: Sequence[int]) -> tuple[int, ...]:
    """One opponent's rows (values, first ≥ second, third last) from a split of ``cards`` in ``order``."""
    key = standard_evaluator().key
    first = key([cards[i] for i in order[:5]])
    second = key([cards[i] for i in order[5:10]])
    third = key([cards[i] for i in order[10 : 10 + sizes[2]]])
    if sizes[2] == 5:
        first, second, third = sorted((first, second, third), reverse=True)
    elif second > first:
        first, second = second, first
    return first, second, third


def estimate(
    cards: Sequence[Card],
    tokens: Sequence[int],
    opponents: Sequence[Sequence[int]],
    *,
    games_after: int,
    cascade: bool,
    seed: str | bytes,
    samples: int = 48,
    trials: int = 6,
    known: Iterable[Card] = (),
) -> Estimate:
    """The Monte Carlo estimate for a player holding ``cards`` with unused ``tokens``, against one entry of
    ``opponents`` per opponent (that opponent's unused token values). ``known``: other cards the player
    knows are not in the opponents' hands. ``seed``: any text or bytes (data: same seed, same estimate).
    Raises ``ValueError`` for fewer than one or more than three opponents, or too few unseen cards."""
    players = len(opponents) + 1
    if not 2 <= players <= 4:
        raise ValueError(f"poker cinese is played by 2 to 4 players (CN-1), not {players}")
    sizes = row_sizes(players)
    dealt = sum(sizes)
    mine = {card.code for card in cards} | {card.code for card in known}
    unseen = [card.code for card in Deck.standard().cards if card.code not in mine]
    if len(unseen) < dealt * len(opponents):
        raise ValueError("not enough unseen cards for the opponents' hands")
    stakes = [sum(t) / len(t) if t else 0.0 for t in opponents]
    root = _seed_bytes(seed)
    best: list[list[int]] = [[], [], []]
    start: list[list[tuple[int, float]]] = [[], [], []]
    end: list[list[tuple[int, float]]] = [[], [], []]
    split_orders = list(range(dealt))
    for sample in range(samples):
        order = shuffle(unseen, derive_seed(root, f"sample-{sample}"))
        hands: list[tuple[int, ...]] = []
        for index in range(len(opponents)):
            held = order[index * dealt : (index + 1) * dealt]
            chosen: tuple[int, ...] = ()
            score = -1
            for trial in range(trials):
                perm = shuffle(split_orders, derive_seed(root, f"split-{sample}-{index}-{trial}"))
                rows = _model_rows(held, sizes, perm)
                total = _category_sum(rows)
                if total > score:
                    chosen, score = rows, total
            hands.append(chosen)
        for row in range(3):
            values = [hand[row] for hand in hands]
            top = max(values)
            best[row].append(top)
            if not cascade:
                # best alone (k > top): every opponent's token
                start[row].append((top, sum(stakes)))
                continue
            # cascade (CN-4 decision): the lone opponent directly below a lone player passes their token up
            for index, value in enumerate(values):
                if values.count(value) != 1:
                    continue
                above = [v for v in values if v > value]
                start[row].append((value, stakes[index]))
                if above:
                    end[row].append((min(above), stakes[index]))
    return Estimate(
        best=tuple(tuple(sorted(b)) for b in best),
        start=tuple(tuple(k for k, _ in sorted(s)) for s in start),
        start_sum=tuple(_suffix_sums(sorted(s)) for s in start),
        end=tuple(tuple(k for k, _ in sorted(e)) for e in end),
        end_sum=tuple(_suffix_sums(sorted(e)) for e in end),
        samples=samples,
        keep=1.0 / players if games_after > 0 else 0.0,
        tokens=tuple(sorted(tokens)),
        cascade=cascade,
        b_max=tuple(_step_max(sorted(start[row]), sorted(end[row])) / samples for row in range(3)),
    )


def _step_max(starts: Sequence[tuple[int, float]], ends: Sequence[tuple[int, float]]) -> float:
    """The maximum of the step function ``Σ starts below k − Σ ends at or below k`` over every ``k``."""
    points = sorted([(k, 1, v) for k, v in starts] + [(k, 0, -v) for k, v in ends])
    level = best = 0.0
    for _, _, delta in points:  # at equal keys ends (0) come before starts (1): the value just above
        level += delta
        best = max(best, level)
    return best


def _suffix_sums(pairs: Sequence[tuple[int, float]]) -> tuple[float, ...]:
    """``out[i]``: the total of the values of ``pairs[:i]`` (so ``out[bisect(...)]`` sums those below)."""
    out = [0.0]
    for _, value in pairs:
        out.append(out[-1] + value)
    return tuple(out)


def best_stakes(coefficients: Sequence[float], tokens: Sequence[int]) -> tuple[int, ...]:
    """The stakes maximizing ``Σ c_r · s_r`` with one distinct token per row from ``tokens`` (sorted
    ascending): positive coefficients take the largest tokens (largest coefficient first), the others the
    smallest (most negative first). Raises ``ValueError`` with fewer tokens than rows."""
    rows = len(coefficients)
    if len(tokens) < rows:
        raise ValueError(f"{rows} tokens are needed, only {len(tokens)} are unused")
    ordered = sorted(range(rows), key=lambda r: -coefficients[r])
    positive = [r for r in ordered if coefficients[r] > 0]
    rest = [r for r in ordered if coefficients[r] <= 0]
    stakes = [0] * rows
    for i, r in enumerate(positive):
        stakes[r] = tokens[len(tokens) - 1 - i]
    for i, r in enumerate(reversed(rest)):
        stakes[r] = tokens[i]
    return tuple(stakes)


def objective(est: Estimate, keys: Sequence[int], stakes: Sequence[int]) -> float:
    """``E`` of the module doc for row values ``keys`` and ``stakes``."""
    total = 0.0
    for row in range(3):
        total += (est.a(row, keys[row]) - est.keep) * stakes[row] + est.b(row, keys[row])
    return total


def _bound(est: Estimate, k1: int, third_cap: int) -> float:
    """An upper bound of ``E`` over every split whose first row is worth ``k1``: the rows below are worth no
    more (CN-2), and the third no more than ``third_cap`` (the best third row the hand can make at all).
    Non-increasing in ``k1``. ``b_r`` is monotone in the standard payout; the cascade's is not (a lone
    player directly below may be missing higher up), so there its maximum over all values is used."""
    caps = (k1, k1, min(k1, third_cap))
    coefficients = [est.a(row, caps[row]) - est.keep for row in range(3)]
    stakes = best_stakes(coefficients, est.tokens)
    total = sum(c * s for c, s in zip(coefficients, stakes, strict=True))
    for row in range(3):
        total += est.b_max[row] if est.cascade else est.b(row, caps[row])
    return total


@cache
def _subsets(n: int, size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(combinations(range(n), size))


@cache
def _subset_masks(n: int, size: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """``(bit mask, positions)`` of every ``size``-subset of ``n`` positions."""
    return tuple((sum(1 << i for i in combo), combo) for combo in combinations(range(n), size))


def solve_with(est: Estimate, cards: Sequence[Card]) -> Solution:
    """The exact search of the module doc for ``cards`` (13 or 15) under ``est``. Raises ``ValueError``
    for another number of cards."""
    n = len(cards)
    if n not in (13, 15):
        raise ValueError(f"a poker cinese hand has 13 or 15 cards, not {n}")
    third = n - 10
    codes = [card.code for card in cards]
    bits = [1 << i for i in range(n)]
    evaluator = standard_evaluator()
    key, key5 = evaluator.key, evaluator.key5
    values: dict[int, int] = {}
    for mask, (p1, p2, p3, p4, p5) in _subset_masks(n, 5):
        values[mask] = key5(codes[p1], codes[p2], codes[p3], codes[p4], codes[p5])
    firsts = sorted(((k, m) for m, k in values.items()), key=lambda pair: (-pair[0], pair[1]))
    third_cap = firsts[0][0]
    if third == 3:
        third_cap = 0
        for mask, combo in _subset_masks(n, 3):
            three = values[mask] = key([codes[i] for i in combo])
            third_cap = max(third_cap, three)
    full = (1 << n) - 1
    keep = est.keep
    tokens = est.tokens
    if len(tokens) < 3:
        raise ValueError(f"3 tokens are needed, only {len(tokens)} are unused")
    top1, top2, top3 = tokens[-1], tokens[-2], tokens[-3]
    low1, low2, low3 = tokens[0], tokens[1], tokens[2]
    rows_a: list[dict[int, tuple[float, float]]] = [{}, {}, {}]

    def features(row: int, k: int) -> tuple[float, float]:
        """``(a_r(k) - ā, b_r(k))``, cached by value."""
        found = rows_a[row].get(k)
        if found is None:
            found = rows_a[row][k] = (est.a(row, k) - keep, est.b(row, k))
        return found

    best_value = float("-inf")
    best: tuple[int, int, int] = (0, 0, 0)
    pairs = _subsets(n - 5, 5)
    for k1, m1 in firsts:
        if best_value >= _bound(est, k1, third_cap):
            break
        c1, b1 = features(0, k1)
        rest = full ^ m1
        rest_bits = [b for b in bits if rest & b]
        for combo in pairs:
            m2 = rest_bits[combo[0]] | rest_bits[combo[1]] | rest_bits[combo[2]]
            m2 |= rest_bits[combo[3]] | rest_bits[combo[4]]
            k2 = values[m2]
            if k2 > k1:
                continue
            k3 = values[rest ^ m2]
            if k3 > k2:
                continue
            c2, b2 = features(1, k2)
            c3, b3 = features(2, k3)
            # the best stakes' worth in closed form (best_stakes): sort the coefficients, largest first
            x, y, z = c1, c2, c3
            if x < y:
                x, y = y, x
            if y < z:
                y, z = z, y
                if x < y:
                    x, y = y, x
            if z > 0:
                worth = x * top1 + y * top2 + z * top3
            elif y > 0:
                worth = x * top1 + y * top2 + z * low1
            elif x > 0:
                worth = x * top1 + y * low2 + z * low1
            else:
                worth = x * low3 + y * low2 + z * low1
            value = worth + b1 + b2 + b3
            if value > best_value:
                best_value = value
                best = (m1, m2, rest ^ m2)
    m1, m2, m3 = best
    keys = (values[m1], values[m2], values[m3])
    stakes = best_stakes([est.a(r, keys[r]) - keep for r in range(3)], tokens)
    best_value = objective(est, keys, stakes)

    def row(mask: int) -> tuple[Card, ...]:
        return tuple(sorted((cards[i] for i in range(n) if mask >> i & 1), key=lambda c: -c.code))

    return Solution((row(m1), row(m2), row(m3)), (stakes[0], stakes[1], stakes[2]), best_value)


def solve(
    cards: Sequence[Card],
    tokens: Sequence[int],
    opponents: Sequence[Sequence[int]],
    *,
    games_after: int,
    cascade: bool = False,
    seed: str | bytes = "",
    samples: int = 48,
) -> Solution:
    """The solver's arrangement and stakes (CN-TIME-1) for ``cards`` (15, or 13 with four players), the
    player's unused ``tokens``, the opponents' unused tokens (one sequence per opponent), the number of
    games of the match after this one, the cascade variant, and the Monte Carlo ``seed`` (data). The page's
    "suggest" button calls this with the player's own state. Raises ``ValueError`` for a hand or token set
    that cannot be arranged."""
    est = estimate(
        cards, tokens, opponents, games_after=games_after, cascade=cascade, seed=seed, samples=samples
    )
    return solve_with(est, cards)
