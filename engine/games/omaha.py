"""Omaha High in the registry: ``NO`` ``PO`` ``FO`` (rule OM-1), specs of the shared core.

As Texas Hold'em (TH-1: blinds, burns, flop, turn, river, 2–10 players) with four hole cards, and the
hand made of exactly two hole cards and three board cards (OM-1).
"""

from __future__ import annotations

from engine.core.game import register
from engine.core.generic import CoreGame, blind_game_fields
from engine.core.spec import Evaluation, GameSpec, Structure
from engine.games.holdem import board_game_streets

__all__ = ["FO", "NO", "PO", "omaha_spec"]

_NAMES = {
    Structure.NO_LIMIT: ("No-limit Omaha", "NLO"),
    Structure.POT_LIMIT: ("Pot-limit Omaha", "PLO"),
    Structure.FIXED_LIMIT: ("Fixed-limit Omaha", "FLO"),
}


def omaha_spec(structure: Structure) -> GameSpec:
    """Omaha High at ``structure`` (OM-1)."""
    name, short = _NAMES[structure]
    return GameSpec(
        code=f"{structure.value[0]}O",
        name=name,
        short_name=short,
        family="holdem",
        streets=board_game_streets(4),
        structure=structure,
        forced_fields=blind_game_fields(structure),
        min_seats=2,
        max_seats=10,
        evaluation=Evaluation.OMAHA,
    )


NO = register(CoreGame(omaha_spec(Structure.NO_LIMIT)))
PO = register(CoreGame(omaha_spec(Structure.POT_LIMIT)))
FO = register(CoreGame(omaha_spec(Structure.FIXED_LIMIT)))
