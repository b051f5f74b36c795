"""A game as data: :class:`GameSpec` lists its streets, forced bets, betting structure and showdown.

Modelled on PokerKit's ``games.py`` (a game is a list of streets with a betting structure) and on our own
``engine/italian`` (frozen values, rule ids). One generic decider (:mod:`engine.core.rules`) plays every
spec; hold'em and Omaha (TH-1, OM-1) are specs in :mod:`engine.games.holdem` and :mod:`engine.games.omaha`.

**A street** (:class:`Street`) deals cards, then has a betting round:

- ``hole_down`` / ``hole_up``: cards each player still in the hand receives face down / face up (stud's
  door card is ``hole_up=1``); ``board``: community cards; ``burn``: a card is burnt before the street's
  first card (TH-1). Each seat's cards of a street come from the top of the stock in one deal
  (a ``CardsDealt`` event), seat by seat from the left of the button, as PHH records them; the live
  dealer deals a whole street with :class:`engine.core.model.DealFromTop`, a replay names the cards
  (:class:`~engine.core.model.DealCards`, :class:`~engine.core.model.DealBoard`).
- ``draw``: the street begins with a draw (five card draw, FD-1) — see "extension points".
- ``opener``: who speaks first (:class:`Opener`): left of the button, left of the last blind (the big
  blind, or the straddle), the bring-in (lowest up card, ST-1) or the best visible hand (ST-1).
- ``big_bet``: fixed limit uses the big bet on this street (G-LIMIT-1; stud's 5th–7th street).

**Betting structure** (:class:`Structure`): no limit, pot limit (G-LIMIT-1: at most the current bet + the
pot after calling), fixed limit (small bet / big bet, one bet and three raises; the cap stays heads-up in
tournaments, G-LIMIT-1, and is lifted in ring games when two players start the round, CASH-3).

**Extension points** for five card draw and seven card stud (another engineer adds them as specs):

- :attr:`GameSpec.opener_hook` ``(state, hand, street) -> seat``: the seat *before* the first speaker of a
  street's betting round (the decider starts the turn order just after it). Set it for ``Opener.BRING_IN``
  and ``Opener.BEST_VISIBLE`` (stud), whose rules need up cards; ``None`` uses the built-in openers.
- :attr:`GameSpec.forced_hook` ``(state, hand) -> ((seat, kind, amount, dead), ...)``: the forced bets
  of a hand in posting order (default: antes, big-blind ante, blinds, straddle; G-BLIND-1, G-ANTE-1).
  Stud posts antes here and its bring-in is a betting-round action (``raise_hook`` / ``legal_hook``). A
  hand history may name every post instead (:attr:`engine.core.model.StartHand.posts`).
- :attr:`GameSpec.raise_hook` ``(state, hand, seat) -> (min_to, max_to) | None``: replaces the generic
  raise rule (e.g. the stud bring-in/complete, FL open pair on 4th street: ``big_bet_hook``).
- :attr:`GameSpec.big_bet_hook` ``(state, hand) -> bool``: whether the big bet applies now (stud's open
  pair on 4th street, ST-1); default: the street's ``big_bet``.
- :attr:`GameSpec.value_hook` ``(hole, up, board) -> int``: the showdown value (higher wins; default:
  best five of the player's cards and the board, or Omaha's 2 + 3, by ``evaluation``).
- :attr:`GameSpec.winners_hook` ``(state, hand, seats) -> seats``: the winners of a pot among ``seats``,
  the shown hands contesting it (in the order given; the winners keep it). For rankings that no single
  value orders: poker all'italiana's IT-RANK-4 (the minimal spade straight flush beats only the heart
  royal, a cycle), Telesina's shared-card hands. Also whether a hand must be shown at the showdown
  (G-SHOW-1: it is among the winners against the rivals shown in one of its pots). ``None``: the highest
  :func:`engine.core.rules.hand_value` wins, equal values split.
- :attr:`GameSpec.odd_chip_hook` ``(state, hand, winners) -> winners``: odd-chip order (G-POT-2: left of
  the button by default; stud: high card by suit).
- :attr:`GameSpec.deal_hook` ``(state, hand) -> (seat, down, up, burn) | None``: what the dealer deals now
  (``seat`` ``-1``: board cards), replacing the built-in plan of :func:`engine.core.rules.next_deal`
  while no player is to act (stud's community card when the stock runs short, ST-1; the draw reshuffle).
- :attr:`GameSpec.legal_hook` ``(state, hand, seat, actions) -> actions``: adjusts the legal actions the
  core computed (labels such as "Bring-in" / "Complete", extra options); what it lists must be what
  ``decide`` accepts (the conformance suite checks it).
- Telesina (TL-*) adds, each ``None`` by default and changing nothing for the other games:
  :attr:`GameSpec.options_hook` ``(table options, dealer's options or None, players dealt in) -> the
  hand's options`` (checks them, raising an :class:`~engine.core.errors.IllegalAction` subclass; the
  result is in :class:`~engine.core.model.HandStarted`); :attr:`GameSpec.deck_hook` ``(players dealt in)
  -> the deck's cards`` (default the 52-card deck; IT-DECK-1); :attr:`GameSpec.streets_hook` ``(hand) ->
  number of streets this hand plays`` (a prefix of ``streets``: the vele steps of the hand's layout);
  :attr:`GameSpec.turn_up_hook` ``(state, hand) -> bool``: after this street's deal each player still in
  turns one face-down card up (:class:`~engine.core.model.TurnUp`, TL-DEAL-2) before the betting round;
  :attr:`GameSpec.seat_value_hook` / :attr:`GameSpec.seat_label_hook` ``(hand, seat)``: the showdown
  value and English label of a seat's hand when they depend on the hand's options (the vele
  combinations, TL-VELE-1), replacing ``value_hook`` and the built-in label.
- :attr:`GameSpec.refusal_hook` ``(refusal) -> exception``: the exception the game raises for one of the
  core's refusals (:class:`engine.core.errors.IllegalAction`, English ``str()`` with its Italian
  ``italian``): poker all'italiana raises its own class of the same name, Italian first
  (:func:`engine.games.italian.errors.from_core`). ``None``: the core's refusal as it is.
- Poker all'italiana (issue 16) adds, each ``None`` by default and changing nothing for the other games:
  ``Opener.GAME``, a street whose first speaker is the game's rule (:attr:`GameSpec.opener_hook`: the
  opening round after a blind opening, IT-BUIO-3, and the final round, IT-BET-1);
  :attr:`GameSpec.answer_hook` ``(state, hand) -> seat | None``: the seat that answers last in the betting
  round now, after every other seat that must act, whatever its place (IT-BUIO-2: the last blind bettor
  until he has answered; :func:`engine.core.rules.next_better`); :attr:`GameSpec.must_show_hook`
  ``(state, hand, seat) -> bool``: the seat's hand is shown at the showdown whatever was shown before
  (IT-SHOW-1: the all-in raiser; :func:`engine.core.rules.must_show`); :attr:`GameSpec.bet_event_hook`
  ``(seat, to, all_in, raising, full) -> event``: the game's own event for a bet (``raising`` false) or a
  raise (``full``: it reopens the betting), poker all'italiana's ``BetPlaced`` / ``Raised`` with
  ``reopens``; :attr:`GameSpec.full_hook` ``(state, hand, to) -> bool``: whether a bet or raise **to**
  ``to`` (within ``raise_hook``'s range) is full, reopening the betting to the players who already acted
  (:func:`engine.core.rules.bet_or_raise`; IT-RAISE-1: every first bet, and a raise to at least double the
  bet, every raise in fixed limit; ``None``: G-ACT-2's minimum raise); :attr:`GameSpec.hand_ended_hook`
  ``(hand, stacks, contributions, uncontested, outcome) -> event``: the game's own ``HandEnded``
  (:func:`engine.core.rules.hand_ended`; ``outcome``: what the game passed to it, ``None`` for a hand
  awarded by the core: poker all'italiana's result, carried pot, next requirement and parol players).
- Draw streets (``Street.draw``, FD-1) are played by the core: from the button's left each player in turn
  discards 0 to :attr:`GameSpec.draw_limit` down cards (:class:`engine.core.model.Discard`; none: stand
  pat; the time-out stands pat) and the dealer deals the replacements (``next_deal``) before the next
  player draws; then the street's betting round.
- :attr:`GameSpec.supply_hook` ``(state, hand, due) -> StockReshuffled | None``: called when the dealer
  must deal ``due`` (:func:`engine.core.rules.next_deal`); returns the reshuffle of discards or burnt cards
  when the stock is short (FD-1's draw, ST-1's 7th street with its community card), else ``None``.
- Stud (ST-1): up cards are ``Street.hole_up``; the bring-in is a first-round action
  (:class:`engine.core.model.BringIn`) of the seat given by ``opener_hook``; completing it is a bet to the
  minimum bet; a community card replaces 7th street's cards when ``supply_hook`` says so
  (:attr:`engine.core.model.CoreHand.community`).
  A fixed-limit bet is full when it reaches the next multiple of the bet, so completing the bring-in is a
  full bet (as is a completion to the small bet in NL and PL: :func:`engine.core.rules.standard_bet_range`).

Everything is precomputed per spec (street tuples, the evaluator): the decider does no per-hand set-up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from engine.cards import Card

__all__ = ["Evaluation", "GameSpec", "Opener", "Street", "Structure"]


class Structure(Enum):
    """Betting structure (G-LIMIT-1); the value is PHH's letter pair."""

    NO_LIMIT = "NL"
    POT_LIMIT = "PL"
    FIXED_LIMIT = "FL"


class Opener(Enum):
    """Who speaks first in a street's betting round."""

    LEFT_OF_BUTTON = "left_of_button"  # every round after the first in board and draw games (G-ACT-1)
    LEFT_OF_BIG_BLIND = "left_of_big_blind"  # the first round of blind games (G-ACT-1; after a straddle)
    BRING_IN = "bring_in"  # stud 3rd street: the lowest door card (ST-1): needs GameSpec.opener_hook
    BEST_VISIBLE = "best_visible"  # stud later streets (ST-1): needs GameSpec.opener_hook
    GAME = "game"  # the game's own rule, GameSpec.opener_hook (poker all'italiana: IT-BUIO-3, IT-BET-1)


class Evaluation(Enum):
    """How a showdown hand is valued."""

    BEST_FIVE = "best_five"  # best five of the hole (and up) cards and the board (TH-1, FD-1, ST-1)
    OMAHA = "omaha"  # exactly two hole cards and three board cards (OM-1)


@dataclass(frozen=True, slots=True)
class Street:
    """One street: what it deals, then its betting round (see the module doc)."""

    name: str  # English, what the page shows: "Preflop", "Flop", "3rd street"
    hole_down: int = 0
    hole_up: int = 0
    board: int = 0
    burn: bool = False
    draw: bool = False
    opener: Opener = Opener.LEFT_OF_BUTTON
    big_bet: bool = False

    @property
    def phase(self) -> str:
        """The street's phase value in views and :class:`~engine.core.model.StreetStarted` (lower case)."""
        return self.name.lower().replace(" ", "_")


# hooks receive the core's state and hand values (engine.core.model): typed Any to keep this module a leaf
OpenerHook = Callable[[Any, Any, int], int]
ForcedHook = Callable[[Any, Any], tuple[tuple[int, str, int, bool], ...]]
RaiseHook = Callable[[Any, Any, int], "tuple[int, int] | None"]
BigBetHook = Callable[[Any, Any], bool]
ValueHook = Callable[[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]], int]
OddChipHook = Callable[[Any, Any, tuple[int, ...]], tuple[int, ...]]
SupplyHook = Callable[[Any, Any, tuple[int, int, int, bool]], Any]
DealHook = Callable[[Any, Any], "tuple[int, int, int, bool] | None"]
LegalHook = Callable[[Any, Any, int, tuple[Any, ...]], tuple[Any, ...]]
WinnersHook = Callable[[Any, Any, tuple[int, ...]], tuple[int, ...]]
OptionsHook = Callable[
    [tuple[tuple[str, str], ...], "tuple[tuple[str, str], ...] | None", int], tuple[tuple[str, str], ...]
]
DeckHook = Callable[[int], tuple[Card, ...]]
HandHook = Callable[[Any], int]
TurnUpHook = Callable[[Any, Any], bool]
SeatValueHook = Callable[[Any, int], int]
SeatLabelHook = Callable[[Any, int], str]
AnswerHook = Callable[[Any, Any], "int | None"]
MustShowHook = Callable[[Any, Any, int], bool]
BetEventHook = Callable[[int, int, bool, bool, bool], Any]
FullHook = Callable[[Any, Any, int], bool]
_Pairs = tuple[tuple[int, int], ...]
HandEndedHook = Callable[[Any, _Pairs, _Pairs, "int | None", Any], Any]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A game of the core: everything :class:`engine.core.CoreGame` needs to play it.

    ``code``/``name``/``short_name``: the registry's (PHH variant code, English name, lobby name).
    ``family``: :class:`engine.core.game.GameFamily` value. ``streets``: in order. ``structure``: NL/PL/FL.
    ``forced_fields``: the :class:`~engine.core.forced.ForcedBets` fields the game may use (others are
    refused); ``blinds``: whether a big blind is required. ``min_seats``/``max_seats``: table sizes.
    ``evaluation``: the showdown rule. Hooks: see the module doc (``None``: the built-in rule).
    """

    code: str
    name: str
    short_name: str
    family: str
    streets: tuple[Street, ...]
    structure: Structure
    forced_fields: frozenset[str]
    blinds: bool = True
    min_seats: int = 2
    max_seats: int = 10
    evaluation: Evaluation = Evaluation.BEST_FIVE
    opener_hook: OpenerHook | None = None
    forced_hook: ForcedHook | None = None
    raise_hook: RaiseHook | None = None
    big_bet_hook: BigBetHook | None = None
    draw_limit: int = 5
    value_hook: ValueHook | None = None
    winners_hook: WinnersHook | None = None
    odd_chip_hook: OddChipHook | None = None
    supply_hook: SupplyHook | None = None
    deal_hook: DealHook | None = None
    legal_hook: LegalHook | None = None
    options_hook: OptionsHook | None = None
    deck_hook: DeckHook | None = None
    streets_hook: HandHook | None = None
    turn_up_hook: TurnUpHook | None = None
    seat_value_hook: SeatValueHook | None = None
    seat_label_hook: SeatLabelHook | None = None
    refusal_hook: Callable[[Exception], Exception] | None = None
    answer_hook: AnswerHook | None = None
    must_show_hook: MustShowHook | None = None
    bet_event_hook: BetEventHook | None = None
    full_hook: FullHook | None = None
    hand_ended_hook: HandEndedHook | None = None

    @property
    def limit(self) -> str:
        """``"NL"``, ``"PL"`` or ``"FL"``."""
        return self.structure.value

    @property
    def hole_cards(self) -> int:
        """Cards (down and up) a player holds once every street is dealt."""
        return sum(s.hole_down + s.hole_up for s in self.streets)
