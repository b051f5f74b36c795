"""The decider's own pot split (``engine.core.rules._pots``, no validation, for speed) gives exactly what
``engine.pots.build_pots`` gives (G-POT-1, G-SHOW-2, G-ANTE-1's dead money)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.core.model import CoreConfig, CoreHand, CoreState
from engine.core.rules import _pots
from engine.pots import build_pots


@given(
    contributions=st.lists(st.integers(0, 60), min_size=2, max_size=8),
    folded_mask=st.lists(st.booleans(), min_size=8, max_size=8),
    dead=st.integers(0, 30),
)
def test_the_fast_pots_are_build_pots(contributions: list[int], folded_mask: list[bool], dead: int) -> None:
    n = len(contributions)
    folded = frozenset(s for s in range(n) if folded_mask[s])
    if len(folded) == n:
        folded = frozenset(range(1, n))
    hand = CoreHand(
        number=1, hand_id="", button=0, small_blind=1, big_blind=2, dealt=tuple(range(n)),
        forced=CoreConfig().forced, deck=(), stock=(), down=((),) * n, up=((),) * n,
        contributed=tuple(contributions), round_bets=(0,) * n, acted_at=(-1,) * n,
        starting_stacks=(0,) * n, folded=folded, dead=dead,
    )  # fmt: skip
    state = CoreState(CoreConfig(seats=n), (None,) * n, CoreConfig().forced)
    live = [s for s in range(n) if s not in folded]
    layout = build_pots(dict(enumerate(contributions)), folded=folded, all_in=live, dead_money=dead)
    returned, pots = _pots(hand, state, folded)
    assert tuple(returned) == layout.returned
    assert [(p.amount, p.eligible) for p in layout.pots] == pots
