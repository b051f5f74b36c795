"""The core's draw street (FD-1), with a test spec (five card draw itself is another module's): from the
button's left each player in turn discards 0–5 down cards or stands pat and is dealt the replacements from
the top of the stock before the next player draws; then the betting round; a time-out stands pat."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.core import CoreGame, GameSpec, Opener, Street, Structure
from engine.core.errors import ActionNotAllowed, BadCards
from engine.core.generic import blind_game_fields
from engine.core.model import CardsDealt, Discard, Discarded, TimeoutExpired
from tests.engine.core.helpers import BLINDS, Table, deck, of

SPEC = GameSpec(
    code="T5D",
    name="Draw street test",
    short_name="5D",
    family="draw",
    streets=(Street("Predraw", hole_down=5, opener=Opener.LEFT_OF_BIG_BLIND), Street("Postdraw", draw=True)),
    structure=Structure.NO_LIMIT,
    forced_fields=blind_game_fields(Structure.NO_LIMIT),
    max_seats=6,
)


def draw_table() -> Table:
    game = CoreGame(SPEC)
    config = game.table_config(seats=3, tournament=True, forced=BLINDS, action_time_ms=1000, time_bank_ms=0)
    t = Table(game, game.initial_state(config))
    t.initial = t.state
    for seat in range(3):
        t.apply(game.seat_command(seat, f"p{seat}", 100, 0))
    return t


def test_players_draw_in_turn_from_the_button_left_and_get_replacements_from_the_top() -> None:
    t = draw_table()
    top = "2c 3c 4c 5c 6c 2d 3d 4d 5d 6d 2h 3h 4h 5h 6h As Ks Qs"
    t.start(top, button=2)  # seats 0 1 2 get the 2-6 of clubs, diamonds, hearts
    assert t.game.actions[-1] == "discard"
    for seat in (2, 0, 1):
        t.act(seat, "call" if seat != 1 else "check")
    assert t.hand.street == 1 and t.to_act == 0
    assert [a.kind for a in t.game.legal_actions(t.state, 0)] == ["discard", "discard"]
    with pytest.raises(ActionNotAllowed):
        t.act(0, "check")  # the draw comes first
    with pytest.raises(BadCards):
        t.apply(Discard(0, parse_cards("2d")))  # not seat 0's card
    t.apply(Discard(0, parse_cards("2c 3c"), t.at))
    t.deal()
    assert of(t.events, CardsDealt)[-1] == CardsDealt(0, parse_cards("As Ks"))
    assert t.to_act == 1
    t.apply(Discard(1, (), t.at))  # stand pat
    t.deal()
    assert t.to_act == 2
    t.apply(TimeoutExpired(2, t.hand.deadline))  # a time-out stands pat
    assert of(t.events, Discarded)[-1] == Discarded(2, ())
    assert t.hand.betting and t.to_act == 0
    assert t.hand.down[0] == parse_cards("4c 5c 6c As Ks")
    assert len(t.hand.stock) == 52 - 17 and t.hand.stock[0] == deck(top)[17]
    assert t.replayed() == t.state
