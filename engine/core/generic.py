"""One class, :class:`CoreGame`, implements the whole game protocol (:class:`engine.core.game.Game`) for any
:class:`engine.core.spec.GameSpec`: hold'em and Omaha (and later draw and stud) are specs registered as
``CoreGame(spec)`` in ``engine/games``.

The decider is :mod:`engine.core.rules`, the views and legal actions :mod:`engine.core.view`, the bot
:mod:`engine.core.bot`. Refusals are :class:`engine.core.errors.IllegalAction` subclasses (English).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from engine.cards import Card, Deck
from engine.codec import registry
from engine.core import rules
from engine.core.bot import bot_command
from engine.core.errors import ActionNotAllowed, IllegalAction, NotEnoughPlayers, TimeoutTooEarly
from engine.core.forced import ForcedBets, ForcedBetsRefused
from engine.core.game import Chooser, GameFamily, SeatFacts, TableFacts
from engine.core.history import export_hand as export_phh
from engine.core.model import (
    AddChips,
    BetOrRaise,
    CheckOrCall,
    Command,
    CoreConfig,
    CoreState,
    DealFromTop,
    Discard,
    Event,
    Fold,
    MuckHand,
    PostBlind,
    RemovePlayer,
    ReturnToPlay,
    RevealSeed,
    SeatPlayer,
    ShowHand,
    SitOut,
    StartHand,
    TimeoutExpired,
    TurnUp,
    WaitForBigBlind,
)
from engine.core.spec import GameSpec, Structure
from engine.core.view import CoreView, LegalAction, legal_actions, public_log, view

__all__ = ["ACTIONS", "RING_ACTIONS", "CoreGame", "SeatedGame"]

ACTIONS: tuple[str, ...] = ("fold", "check", "call", "bet", "raise", "show", "muck", "sit_out", "return")
"""The action names a player sends (API and socket), those of poker all'italiana that apply."""
RING_ACTIONS: tuple[str, ...] = ("post_blind", "wait_big_blind")
"""The blind games' ring choices (CASH-1, CASH-2): :class:`PostBlind`, :class:`WaitForBigBlind`."""

_AMOUNT = frozenset({"bet", "raise"})
_SIMPLE: Mapping[str, Callable[[int, int], Command]] = MappingProxyType(
    {
        "fold": Fold,
        "check": CheckOrCall,
        "call": CheckOrCall,
        "show": ShowHand,
        "muck": MuckHand,
        "sit_out": SitOut,
        "return": ReturnToPlay,
        "post_blind": PostBlind,
        "wait_big_blind": WaitForBigBlind,
    }
)
_EVENTS: Mapping[str, type] = MappingProxyType(registry(Event))
_GLOSSES: Mapping[str, str] = MappingProxyType(
    {
        word: word
        for word in ("Fold", "Check", "Call", "Bet", "Raise", "All-in", "Show", "Muck", "Draw", "Stand")
    }
)
"""The first word of each button label and its gloss: the labels are English already (identity)."""
_FIELDS_OF_BLIND_GAMES = frozenset({"ante", "big_blind_ante", "small_blind", "big_blind", "straddle"})


class SeatedGame:
    """What every game of the registry does the same way (:class:`CoreGame`, poker all'italiana's
    :class:`engine.games.italian.game.ItalianGame`): one seat to act at a time (``state.hand.to_act``), the
    table commands (the core's :class:`SeatPlayer`, :class:`RemovePlayer`, :class:`AddChips`,
    :class:`RevealSeed`, :class:`TimeoutExpired`), the seats and the deadline the service reads
    (:meth:`seat_facts`, :meth:`deadline`). ``state``: any table state with ``seats`` (``SeatState | None``
    per seat) and ``hand`` (``None`` between hands, else with ``to_act``, ``deadline`` in ms and
    ``chips_required``)."""

    __slots__ = ()

    code: str
    name: str
    table_options: Mapping[str, tuple[str, ...]] = MappingProxyType({})

    def __repr__(self) -> str:
        return f"<game {self.code}: {self.name}>"

    def to_act(self, state: Any) -> frozenset[int]:
        hand = state.hand
        return frozenset() if hand is None or hand.to_act is None else frozenset((hand.to_act,))

    def seat_command(self, seat: int, player: str, stack: int, at: int) -> SeatPlayer:
        return SeatPlayer(seat, player, stack, at)

    def remove_command(self, seat: int, at: int) -> RemovePlayer:
        return RemovePlayer(seat, at)

    def add_chips_command(self, seat: int, chips: int, at: int) -> AddChips:
        return AddChips(seat, chips, at)

    def reveal_command(self, seed: str, at: int) -> RevealSeed:
        return RevealSeed(seed, at)

    def timeout_command(self, state: Any, at: int) -> TimeoutExpired | None:
        """:class:`TimeoutExpired` for the seat to act (``None``: nobody is); its ``decide`` refuses it before
        the deadline (:attr:`too_early`)."""
        hand = state.hand
        if hand is None or hand.to_act is None:
            return None
        return TimeoutExpired(hand.to_act, at)

    @staticmethod
    def seat_facts(state: Any) -> tuple[SeatFacts | None, ...]:
        """Each seat as the service sees it (``None``: empty)."""
        return tuple(
            None if o is None else SeatFacts(o.player, o.stack, o.sitting_out, o.time_bank)
            for o in state.seats
        )

    @staticmethod
    def deadline(state: Any) -> int | None:
        """When the time of the seat to act runs out (epoch ms), its time bank included when chips are
        required (IT-TIME-1, G-TIME-1); ``None``: nobody to act."""
        hand = state.hand
        if hand is None or hand.to_act is None:
            return None
        occupant = state.seats[hand.to_act]
        bank = occupant.time_bank if occupant is not None and hand.chips_required else 0
        deadline: int = hand.deadline + bank
        return deadline


class CoreGame(SeatedGame):
    """A game of the core, played from its :class:`GameSpec` (see :class:`engine.core.game.Game`).

    Chips are ``int``, seats 0-based, times epoch milliseconds.
    """

    __slots__ = (
        "actions",
        "code",
        "family",
        "limit",
        "max_seats",
        "min_seats",
        "name",
        "phase_names",
        "short_name",
        "spec",
    )

    events = _EVENTS
    config_type: type = CoreConfig
    state_type: type = CoreState
    glosses = _GLOSSES
    amount_actions = _AMOUNT
    illegal_action: type[Exception] = IllegalAction
    too_early: type[Exception] = TimeoutTooEarly

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        self.code: str = spec.code
        self.name: str = spec.name
        self.short_name: str = spec.short_name
        self.family = GameFamily(spec.family)
        self.limit: str = spec.limit
        self.min_seats: int = spec.min_seats
        self.max_seats: int = spec.max_seats
        names = {street.phase: street.name for street in spec.streets}
        names["showdown"] = "Showdown"
        self.phase_names: Mapping[str, str] = MappingProxyType(names)
        drawing = any(street.draw for street in spec.streets)
        self.actions: tuple[str, ...] = (
            ACTIONS
            + (RING_ACTIONS if spec.blinds else ())
            + (("discard",) if drawing else ())
            + (("turn_up",) if spec.turn_up_hook else ())
        )

    # --- the decider -----------------------------------------------------------------------------------

    def deck(self, players: int) -> Deck:
        """The 52-card deck (every core game so far)."""
        return Deck.standard()

    def initial_state(self, config: CoreConfig) -> CoreState:
        """An empty table. Raises ``ValueError`` (:class:`ForcedBetsRefused` for the forced bets)."""
        self.check_forced_bets(config.forced)
        return rules.initial_state(self.spec, config)

    def decide(self, state: CoreState, command: Command) -> tuple[Event, ...]:
        return rules.apply(self.spec, state, command)[1]

    def apply(self, state: CoreState, command: Command) -> tuple[CoreState, tuple[Event, ...]]:
        return rules.apply(self.spec, state, command)

    @property
    def applies_core_rules(self) -> bool:
        """Whether this game's :meth:`apply` is the core's own (:func:`engine.core.rules.apply` of its spec,
        not overridden), so that a replay may run a hand's commands in place
        (:class:`engine.core.rules.InPlaceRun`, :mod:`engine.core.history`)."""
        return type(self).apply is CoreGame.apply

    def evolve(self, state: CoreState, event: Event) -> CoreState:
        return rules.evolve(state, event)

    def legal_actions(self, state: CoreState, seat: int) -> tuple[LegalAction, ...]:
        return legal_actions(self.spec, state, seat)

    def player_command(
        self, state: CoreState, seat: int, action: str, amount: int | None, cards: Sequence[Card], at: int
    ) -> Command:
        """The command for ``action`` (one of :data:`ACTIONS`; ``discard`` in draw games). Raises
        :class:`ActionNotAllowed` for an unknown action or a bet without ``amount``."""
        if action in _AMOUNT:
            if amount is None:
                raise ActionNotAllowed("an amount is needed to bet or raise")
            return BetOrRaise(seat, amount, at)
        if action == "discard" and "discard" in self.actions:
            return Discard(seat, tuple(cards), at)
        if action == "turn_up" and "turn_up" in self.actions:
            return _turn_up(state, seat, amount, cards, at)
        simple = _SIMPLE.get(action) if action in self.actions else None
        if simple is None:
            raise ActionNotAllowed(f"unknown action {action!r}: one of {', '.join(self.actions)}")
        return simple(seat, at)

    def dealer_command(self, state: CoreState, at: int) -> DealFromTop | None:
        """:class:`DealFromTop` when cards are due (one command deals a whole street from the top of the
        stock), else ``None``. :func:`engine.core.rules.top_deal` gives the single deals instead."""
        return rules.dealer_command(self.spec, state, at)

    def bot_command(self, state: CoreState, seat: int, rng: Chooser, at: int) -> Command:
        return bot_command(self.spec, state, seat, rng, at)

    def view(self, state: CoreState, viewer: int | None = None, reveal: bool = False) -> CoreView:
        return view(self.spec, state, viewer, reveal)

    def public_log(
        self, events: Sequence[Any], now: tuple[str | None, ...], viewer: str | None, reveal: bool = False
    ) -> tuple[Any, ...]:
        return public_log(events, now, viewer, reveal)

    # --- for the service -------------------------------------------------------------------------------

    def facts(self, state: CoreState) -> TableFacts:
        hand = state.hand
        forced = hand.forced if hand is not None else state.forced
        return TableFacts(
            hand_number=state.hand_number,
            button=state.button,
            in_hand=hand is not None,
            to_act=self.to_act(state),
            deadline_ms=self.deadline(state),
            forced_bet=(
                forced.big_blind
                if self.spec.blinds
                else (forced.small_bet or forced.big_blind or forced.invito)
            ),
            seats=self.seat_facts(state),
            carried=0,
            reveal_due=hand is None and bool(state.commitment) and not state.seed_revealed,
            forced=forced,
            big_blind=state.big_blind,
        )

    def check_forced_bets(self, forced: ForcedBets) -> None:
        """Blind games (TH-1, OM-1, FD-1): a big blind is required; ante, big-blind ante, small blind and
        straddle may be set (small blind ≤ big blind ≤ straddle); no bring-in or invito. Fixed limit may set
        the small and big bets (``small_bet ≤ big_bet``; by default the big blind and twice it, G-LIMIT-1);
        no limit and pot limit have none (the spec's ``forced_fields`` refuses them). Raises
        :class:`ForcedBetsRefused` naming the field."""
        if not isinstance(forced, ForcedBets):
            raise ForcedBetsRefused("big_blind", "the forced bets must be a ForcedBets")
        allowed = set(self.spec.forced_fields)
        for name in sorted(forced.used() - allowed):
            words = name.replace("_", " ")
            raise ForcedBetsRefused(name, f"{self.name} has no {words}")
        if self.spec.blinds:
            if not forced.big_blind:
                raise ForcedBetsRefused("big_blind", f"{self.name} needs a big blind (G-BLIND-1)")
            if forced.small_blind > forced.big_blind:
                raise ForcedBetsRefused("small_blind", "the small blind cannot exceed the big blind")
            if forced.straddle and forced.straddle < forced.big_blind:
                raise ForcedBetsRefused("straddle", "the straddle must be at least the big blind")
        if forced.small_bet and forced.big_bet and forced.big_bet < forced.small_bet:
            raise ForcedBetsRefused("big_bet", "the big bet cannot be less than the small bet")

    def table_config(
        self, *, seats: int, tournament: bool, forced: ForcedBets, action_time_ms: int, time_bank_ms: int
    ) -> CoreConfig:
        self.check_forced_bets(forced)
        if not self.min_seats <= seats <= self.max_seats:
            raise ValueError(
                f"a {self.name} table has {self.min_seats} to {self.max_seats} seats, not {seats}"
            )
        return CoreConfig(
            seats=seats,
            tournament=tournament,
            forced=forced,
            action_time_ms=action_time_ms,
            time_bank_ms=time_bank_ms,
        )

    def can_start_hand(self, state: CoreState) -> bool:
        return rules.can_start_hand(state)

    def start_command(
        self,
        state: CoreState,
        deal: Callable[[Deck], tuple[Card, ...]],
        *,
        at: int,
        forced: ForcedBets | None,
        button: int | None,
        hand_id: str,
        commitment: str,
        algorithm: str,
    ) -> StartHand:
        """A :class:`StartHand` with the 52-card deck shuffled by ``deal``. A level's ``forced`` bets are
        checked (:class:`ForcedBetsRefused`); an invito alone (the service's level of an Italian table) is
        not a hold'em level and leaves the table's forced bets. Raises :class:`NotEnoughPlayers` when
        fewer than two players can be dealt in."""
        if not rules.can_start_hand(state):
            raise NotEnoughPlayers("at least two players with chips are needed")
        if forced is not None and forced.used() <= {"invito"}:
            forced = None
        if forced is not None:
            self.check_forced_bets(forced)
        deck = deal(self.deck(len(rules.dealt_seats(state, button))))
        return StartHand(
            deck, at, forced, button, hand_id, commitment=commitment, shuffle_algorithm=algorithm
        )

    def reshuffle_order(self, deck: tuple[Card, ...], pile: Iterable[Card], k: int) -> tuple[Card, ...]:
        """No reshuffle in board games: the pile sorted by :attr:`Card.code`."""
        return tuple(sorted(pile, key=lambda card: card.code))

    def export_hand(self, before: CoreState, events: Sequence[Event]) -> Any:
        return export_phh(before, events, self.code)  # engine/core/history.py (issue 16, XX-HH-1)


def _turn_up(state: CoreState, seat: int, index: int | None, cards: Sequence[Card], at: int) -> TurnUp:
    """TL-DEAL-2's :class:`TurnUp`: the card named (``cards``, one) or its index among the seat's face-down
    cards (``amount``). Raises :class:`ActionNotAllowed` for neither, or a card the seat does not hold
    face down."""
    if cards:
        hand = state.hand
        down = () if hand is None or not 0 <= seat < len(hand.down) else hand.down[seat]
        if len(cards) != 1 or cards[0] not in down:
            raise ActionNotAllowed("name one of your face-down cards to turn up")
        return TurnUp(seat, down.index(cards[0]), at)
    if index is None:
        raise ActionNotAllowed("name the face-down card to turn up (or its index)")
    return TurnUp(seat, index, at)


def blind_game_fields(structure: Structure) -> frozenset[str]:
    """The forced-bet fields a blind game uses: antes, blinds, straddle (and FL's small and big bets)."""
    if structure is Structure.FIXED_LIMIT:
        return _FIELDS_OF_BLIND_GAMES | {"small_bet", "big_bet"}
    return _FIELDS_OF_BLIND_GAMES
