"""Hand evaluation: one module per ranking, sharing :mod:`engine.evaluation.common`.

- :mod:`~engine.evaluation.italian` — poker all'italiana (IT-RANK-1..4), per deck.
- :mod:`~engine.evaluation.standard` — international games and poker cinese (best of 5–7, Omaha, 3-card).
- :mod:`~engine.evaluation.partial` — Telesina's visible hands (TL-ACT-1).
- :mod:`~engine.evaluation.opening` — opening requirements (IT-OPEN-1..3).
- ``python -m engine.evaluation FILE...`` checks ranking vector files (:mod:`~engine.evaluation.vectors`).
"""

from engine.evaluation.common import Category, HandValue, InvalidHand, Ranking
from engine.evaluation.italian import (
    ItalianEvaluator,
    MinimalBeatsRoyal,
    best_italian_hand,
    evaluate_italian,
    italian_evaluator,
    italian_pot_winners,
)
from engine.evaluation.opening import has_open_ended_straight_flush_draw, meets_opening
from engine.evaluation.partial import evaluate_visible, first_to_speak
from engine.evaluation.standard import (
    StandardEvaluator,
    evaluate_omaha,
    evaluate_standard,
    standard_evaluator,
    standard_winners,
)

__all__ = [
    "Category",
    "HandValue",
    "InvalidHand",
    "ItalianEvaluator",
    "MinimalBeatsRoyal",
    "Ranking",
    "StandardEvaluator",
    "best_italian_hand",
    "evaluate_italian",
    "evaluate_omaha",
    "evaluate_standard",
    "evaluate_visible",
    "first_to_speak",
    "has_open_ended_straight_flush_draw",
    "italian_evaluator",
    "italian_pot_winners",
    "meets_opening",
    "standard_evaluator",
    "standard_winners",
]
