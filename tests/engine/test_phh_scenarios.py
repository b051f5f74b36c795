"""Scenario hands of the international games, written here in standard PHH (issue 16):
``tests/data/phh_scenarios`` — three players all in with two side pots (G-POT-1), a split pot with an odd
chip (G-POT-2), the fixed-limit cap (G-LIMIT-1), a short all-in that does not reopen the betting (G-ACT-2),
heads-up blinds and an uncalled bet (G-BLIND-2, G-SHOW-2), the pot-limit maximum in Omaha (G-LIMIT-1,
OM-1), the stud bring-in tie broken by suit and its completion (ST-1). Each replays through its game to the
finishing stacks written in it (actions marked ``# !illegal`` must be refused), and PokerKit, given the same
file without the refused actions, reaches the same stacks: an oracle that nobody here wrote."""

from __future__ import annotations

import warnings
from decimal import Decimal
from pathlib import Path

import pytest

from engine.core.history import replay_standard
from engine.phh import load_histories

pokerkit = pytest.importorskip("pokerkit")

SCENARIOS = sorted((Path(__file__).resolve().parent.parent / "data" / "phh_scenarios").glob("*.phh"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_replays_to_its_finishing_stacks(path: Path) -> None:
    (hand,) = load_histories(path)
    result = replay_standard(hand)
    assert result.difference is None, result.difference.describe(str(path))
    assert hand.finishing_stacks is not None and result.stacks == hand.finishing_stacks


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_pokerkit_agrees_without_the_refused_actions(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    text = "\n".join(line for line in lines if "# !illegal" not in line) + "\n"
    (hand,) = load_histories(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        states = list(pokerkit.HandHistory.loads(text))
    assert tuple(int(Decimal(v)) for v in states[-1].stacks) == hand.finishing_stacks


def test_every_scenario_of_the_issue_is_here() -> None:
    names = {path.stem for path in SCENARIOS}
    assert {
        "nt_three_way_all_in_two_side_pots",
        "nt_split_pot_odd_chip",
        "ft_cap",
        "nt_short_all_in_does_not_reopen",
        "nt_heads_up_uncalled_bet",
        "po_pot_limit",
        "f7s_bring_in_tie_by_suit_and_complete",
    } <= names
