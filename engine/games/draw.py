"""Five card draw (high) in the registry: ``N5D`` ``P5D`` ``F5D`` (rule FD-1), specs of the shared core.

2–6 players (FD-1 says 2–5; the project's **Decision**: up to 6). Blinds (G-BLIND-1, heads-up G-BLIND-2)
and antes (G-ANTE-1); five cards down; a betting round opened left of the big blind; the draw: each
player still in the hand, in turn from the button's left, discards 0 to 5 cards (none: *stands pat*)
and is dealt the replacements at once (the dealer burns before the first); a betting round opened left
of the button; the showdown, best five cards. When the stock runs out the discards of the players
already served are reshuffled into a new stock, never with the player's own discards
(:mod:`engine.games.draw_rules`). Fixed limit: small bet before the draw, big bet after (G-LIMIT-1).
PHH has no code for the game: ours follow its pattern.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

from engine.cards import Card
from engine.core.game import register
from engine.core.generic import CoreGame, blind_game_fields
from engine.core.model import Command, CoreHand, CoreState, Discard, StockReshuffled
from engine.core.spec import Evaluation, GameSpec, Opener, Street, Structure
from engine.games import draw_rules

__all__ = ["DRAW_STREETS", "F5D", "N5D", "P5D", "DrawGame", "draw_spec"]

DRAW_STREETS = (
    Street("Before the draw", hole_down=5, opener=Opener.LEFT_OF_BIG_BLIND),
    Street("Draw", draw=True, burn=True, big_bet=True),
)
"""FD-1's streets: five down and a betting round; the draw, then a betting round."""

_NAMES = {
    Structure.NO_LIMIT: ("No-limit Five Card Draw", "5CD NL"),
    Structure.POT_LIMIT: ("Pot-limit Five Card Draw", "5CD PL"),
    Structure.FIXED_LIMIT: ("Fixed-limit Five Card Draw", "5CD FL"),
}


def _supply(state: CoreState, hand: CoreHand, due: tuple[int, int, int, bool]) -> StockReshuffled | None:
    """FD-1: the stock cannot give ``due``'s seat its replacements → the discards of the players already
    served and the burnt cards (those not already back in play) are reshuffled under what is left of the
    stock (:func:`draw_rules.reshuffle_order`). The seat's own discards are never in the pile."""
    seat, down, up, _ = due
    if seat < 0 or len(hand.stock) >= down + up:
        return None
    in_play = [*hand.stock, *(card for cards in (*hand.down, *hand.up) for card in cards)]
    pile = draw_rules.reshuffle_pile(hand.discards, hand.burned, seat, in_play)
    if not pile:
        return None
    new = draw_rules.reshuffle_order(hand.deck, pile, hand.reshuffles + 1)
    return StockReshuffled(pile, (*hand.stock, *new))


def draw_spec(structure: Structure) -> GameSpec:
    """Five card draw at ``structure`` (FD-1)."""
    name, short = _NAMES[structure]
    return GameSpec(
        code=f"{structure.value[0]}5D",
        name=name,
        short_name=short,
        family="draw",
        streets=DRAW_STREETS,
        structure=structure,
        forced_fields=blind_game_fields(structure),
        min_seats=2,
        max_seats=6,
        evaluation=Evaluation.BEST_FIVE,
        supply_hook=_supply,
    )


_GLOSSES: Mapping[str, str] = MappingProxyType(
    {
        **{
            word: word.lower() for word in ("Fold", "Check", "Call", "Bet", "Raise", "All-in", "Show", "Muck")
        },
        "Draw": "draw",
        "Stand": "stand pat",
    }
)


class DrawGame(CoreGame):
    """Five card draw (FD-1) on the core. Actions (:meth:`player_command`): the core's, ``discard`` with
    ``cards`` (the cards to change; none: stand pat) and ``stand_pat``."""

    __slots__ = ()

    glosses = _GLOSSES

    def __init__(self, spec: GameSpec) -> None:
        super().__init__(spec)
        self.actions = (*self.actions, "stand_pat")

    def player_command(
        self, state: CoreState, seat: int, action: str, amount: int | None, cards: Sequence[Card], at: int
    ) -> Command:
        """As :meth:`CoreGame.player_command`, with ``discard`` (``cards``) and ``stand_pat`` (FD-1)."""
        if action == "stand_pat":
            return Discard(seat, (), at)
        if action == "discard":
            return Discard(seat, tuple(cards), at)
        return super().player_command(state, seat, action, amount, cards, at)

    def reshuffle_order(self, deck: tuple[Card, ...], pile: Iterable[Card], k: int) -> tuple[Card, ...]:
        """The stock of the ``k``-th reshuffle of a hand (FD-1): :func:`draw_rules.reshuffle_order`."""
        return draw_rules.reshuffle_order(deck, pile, k)


N5D = register(DrawGame(draw_spec(Structure.NO_LIMIT)))
P5D = register(DrawGame(draw_spec(Structure.POT_LIMIT)))
F5D = register(DrawGame(draw_spec(Structure.FIXED_LIMIT)))
