"""Texas Hold'em in the registry: ``NT`` ``PT`` ``FT`` (rule TH-1), specs of the shared core.

2–10 players, two hole cards, a burn before the flop (three cards), the turn and the river (one each);
blinds (G-BLIND-1, heads-up G-BLIND-2), antes and the big-blind ante (G-ANTE-1), an optional straddle;
best five of seven (TH-1). Fixed limit: small bet preflop and on the flop, big bet on the turn and river
(G-LIMIT-1).
"""

from __future__ import annotations

from engine.core.game import register
from engine.core.generic import CoreGame, blind_game_fields
from engine.core.spec import Evaluation, GameSpec, Opener, Street, Structure

__all__ = ["FT", "HOLDEM_STREETS", "NT", "PT", "board_game_streets", "holdem_spec"]


def board_game_streets(hole: int) -> tuple[Street, ...]:
    """Preflop (``hole`` down cards, opener left of the big blind), flop, turn, river (burns, TH-1)."""
    return (
        Street("Preflop", hole_down=hole, opener=Opener.LEFT_OF_BIG_BLIND),
        Street("Flop", board=3, burn=True),
        Street("Turn", board=1, burn=True, big_bet=True),
        Street("River", board=1, burn=True, big_bet=True),
    )


HOLDEM_STREETS = board_game_streets(2)

_NAMES = {
    Structure.NO_LIMIT: ("No-limit Texas Hold'em", "NLHE"),
    Structure.POT_LIMIT: ("Pot-limit Texas Hold'em", "PLHE"),
    Structure.FIXED_LIMIT: ("Fixed-limit Texas Hold'em", "FLHE"),
}


def holdem_spec(structure: Structure) -> GameSpec:
    """Texas Hold'em at ``structure`` (TH-1)."""
    name, short = _NAMES[structure]
    return GameSpec(
        code=f"{structure.value[0]}T",
        name=name,
        short_name=short,
        family="holdem",
        streets=HOLDEM_STREETS,
        structure=structure,
        forced_fields=blind_game_fields(structure),
        min_seats=2,
        max_seats=10,
        evaluation=Evaluation.BEST_FIVE,
    )


NT = register(CoreGame(holdem_spec(Structure.NO_LIMIT)))
PT = register(CoreGame(holdem_spec(Structure.POT_LIMIT)))
FT = register(CoreGame(holdem_spec(Structure.FIXED_LIMIT)))
