"""Poker all'italiana in the registry: ``NIT``, ``PIT``, ``FIT`` (rules IT-*), a game per limit (IT-LIMIT-1).

An adapter over :mod:`engine.games.italian.rules`, which stays the decider: every member of
:class:`engine.core.game.Game` is a function of the package, or the data the service used to hard-code (the
action names of the API, the phase names and label glosses of the table page). The three games differ only
in the limit of the table configuration they build (:meth:`ItalianGame.table_config`); each plays whatever
configuration it is given, exactly as :func:`engine.games.italian.rules.initial_state` does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from engine.cards import Card, Deck
from engine.codec import registry
from engine.core.forced import ForcedBets, ForcedBetsRefused
from engine.core.game import Chooser, GameFamily, TableFacts, register
from engine.core.generic import SeatedGame
from engine.games.italian import rules as _game
from engine.games.italian.bot import bot_command as _bot_command
from engine.games.italian.errors import ActionNotAllowed, IllegalAction, TimeoutTooEarly
from engine.games.italian.legal import LegalAction, legal_actions
from engine.games.italian.model import (
    BetOrRaise,
    CheckOrCall,
    Command,
    DeclineBlind,
    Discard,
    Event,
    Fold,
    HandStarted,
    Limit,
    MuckHand,
    Partecipate,
    Phase,
    ReturnToPlay,
    SayParol,
    ShowHand,
    SitOut,
    StartHand,
    TableConfig,
    TableState,
)
from engine.games.italian.spec import spec_for
from engine.games.italian.view import TableView, public_log, view
from engine.phh import HandHistory
from engine.phh import export_hand as _export_hand

__all__ = ["ACTIONS", "FIT", "NIT", "PIT", "ItalianGame", "deck_players"]

ACTIONS: tuple[str, ...] = (
    "fold",
    "check",
    "call",
    "bet",
    "raise",
    "parol",
    "blind_bet",
    "decline_blind",
    "partecipate",
    "discard",
    "show",
    "muck",
    "sit_out",
    "return",
)
"""The action names a player sends (API and socket), as the service accepted them before issue 16."""

_AMOUNT = frozenset({"bet", "raise", "blind_bet"})

_SIMPLE: Mapping[str, Callable[[int, int], Command]] = MappingProxyType(
    {
        "fold": Fold,
        "check": CheckOrCall,
        "call": CheckOrCall,
        "parol": SayParol,
        "decline_blind": DeclineBlind,
        "partecipate": Partecipate,
        "show": ShowHand,
        "muck": MuckHand,
        "sit_out": SitOut,
        "return": ReturnToPlay,
    }
)

PHASE_NAMES: Mapping[str, str] = MappingProxyType(
    {
        Phase.ADEGUAMENTO.value: "Adeguamento",
        Phase.BLIND.value: "Apertura al buio",
        Phase.DEAL.value: "Distribuzione",
        Phase.OPENING.value: "Apertura",
        Phase.CAMBIO.value: "Cambio",
        Phase.FINAL.value: "Ultimo giro di puntate",
        Phase.SHOWDOWN.value: "Showdown",
    }
)
"""The name of each phase (IT-FLOW-1) on the table page, by :class:`Phase` value."""

GLOSSES: Mapping[str, str] = MappingProxyType(
    {
        "PASSO": "fold",
        "BUSSO": "check",
        "PAROL": "parol",
        "PUNTO": "bet",
        "RILANCIO": "raise",
        "VEDO": "call",
        "RESTO": "all-in",
        "VA BENE": "no raise",
        "BUIO": "blind",
        "CONTROBUIO": "re-blind",
        "OVER": "over",
        "DAI CARTE": "deal",
        "MOSTRO": "show",
        "NASCONDO": "hide",
        "PARTECIPO": "join",
        "CAMBIO": "draw",
        "SERVITO": "stand pat",
    }
)
"""The English gloss of the first word of each Italian button label (seed 000, "Pulsanti")."""

_EVENTS: Mapping[str, type] = MappingProxyType(registry(Event))


def deck_players(dealt: int) -> int:
    """The number of players whose Italian deck (IT-DECK-1) is shuffled for a hand dealing ``dealt`` seats
    (2 to 9; a tournament hand may deal one player when the others sit out)."""
    return max(2, min(dealt, 9))


class ItalianGame(SeatedGame):
    """Poker all'italiana at one limit (``NIT``, ``PIT``, ``FIT``): see :class:`engine.core.game.Game`.

    Chips are ``int``, seats 0-based, times epoch milliseconds; refusals are
    :class:`engine.games.italian.errors.IllegalAction` subclasses (Italian ``str()``, English ``english``).
    """

    __slots__ = ("_limit", "code", "limit", "name", "short_name")

    family = GameFamily.ITALIAN
    min_seats = 2
    max_seats = 9  # IT-DECK-1 has a deck for 2 to 9 players
    actions = ACTIONS
    events = _EVENTS
    config_type: type = TableConfig
    state_type: type = TableState
    phase_names = PHASE_NAMES
    glosses = GLOSSES
    amount_actions = _AMOUNT
    illegal_action: type[Exception] = IllegalAction
    too_early: type[Exception] = TimeoutTooEarly

    def __init__(self, limit: Limit) -> None:
        spec = spec_for(limit)  # the registry's code and names are the spec's
        self._limit = limit
        self.limit: str = limit.value
        self.code: str = spec.code
        self.name: str = spec.name
        self.short_name: str = spec.short_name

    # --- the decider -----------------------------------------------------------------------------------

    def deck(self, players: int) -> Deck:
        """The Italian deck for ``players`` dealt in (IT-DECK-1, clamped to 2–9 by :func:`deck_players`)."""
        return Deck.italian(deck_players(players))

    def initial_state(self, config: TableConfig) -> TableState:
        return _game.initial_state(config)

    def decide(self, state: TableState, command: Command) -> tuple[Event, ...]:
        return _game.decide(state, command)

    def apply(self, state: TableState, command: Command) -> tuple[TableState, tuple[Event, ...]]:
        return _game.apply(state, command)

    def evolve(self, state: TableState, event: Event) -> TableState:
        return _game.evolve(state, event)

    def legal_actions(self, state: TableState, seat: int) -> tuple[LegalAction, ...]:
        return legal_actions(state, seat)

    def player_command(
        self, state: TableState, seat: int, action: str, amount: int | None, cards: Sequence[Card], at: int
    ) -> Command:
        """The command for ``action`` (one of :data:`ACTIONS`). Raises :class:`ActionNotAllowed` for an
        unknown action or a bet without ``amount``; whether the action is allowed now is ``decide``'s."""
        if action in _AMOUNT:
            if amount is None:
                raise ActionNotAllowed(
                    "Serve un importo (amount) per puntare o rilanciare.",
                    "An amount is needed to bet or raise.",
                )
            return BetOrRaise(seat, amount, at)
        if action == "discard":
            return Discard(seat, tuple(cards), at)
        simple = _SIMPLE.get(action)
        if simple is None:
            raise ActionNotAllowed(
                f"Azione sconosciuta {action!r}: una di {', '.join(ACTIONS)}.",
                f"Unknown action {action!r}: one of {', '.join(ACTIONS)}.",
            )
        return simple(seat, at)

    def dealer_command(self, state: TableState, at: int) -> Command | None:
        return _game.dealer_command(state, at)

    def bot_command(self, state: TableState, seat: int, rng: Chooser, at: int) -> Command:
        return _bot_command(state, seat, rng, at)

    def view(self, state: TableState, viewer: int | None = None, reveal: bool = False) -> TableView:
        return view(state, viewer, reveal)

    def public_log(
        self, events: Sequence[Any], now: tuple[str | None, ...], viewer: str | None, reveal: bool = False
    ) -> tuple[Any, ...]:
        return tuple(public_log(events, now, viewer, reveal))

    # --- for the service -------------------------------------------------------------------------------

    def facts(self, state: TableState) -> TableFacts:
        hand = state.hand
        invito = hand.forced.invito if hand is not None else state.invito
        return TableFacts(
            hand_number=state.hand_number,
            button=state.button,
            in_hand=hand is not None,
            to_act=self.to_act(state),
            deadline_ms=self.deadline(state),
            forced_bet=invito,
            seats=self.seat_facts(state),
            carried=state.carried,
            reveal_due=hand is None and bool(state.commitment) and not state.seed_revealed,
            forced=ForcedBets(invito=invito),
        )

    def check_forced_bets(self, forced: ForcedBets) -> None:
        """Poker all'italiana's only forced bet is the invito (IT-ANTE-1): it must be set, nothing else."""
        for name in sorted(forced.used() - {"invito"}):
            words = name.replace("_", " ")
            raise ForcedBetsRefused(name, f"{self.name} has no {words}: its forced bet is the invito")
        if not forced.invito:
            raise ForcedBetsRefused("invito", f"{self.name} needs an invito (IT-ANTE-1)")

    def table_config(
        self, *, seats: int, tournament: bool, forced: ForcedBets, action_time_ms: int, time_bank_ms: int
    ) -> TableConfig:
        self.check_forced_bets(forced)
        return TableConfig(
            seats=seats,
            limit=self._limit,
            tournament=tournament,
            invito=forced.invito,
            action_time_ms=action_time_ms,
            time_bank_ms=time_bank_ms,
        )

    def can_start_hand(self, state: TableState) -> bool:
        return _game.can_start_hand(state)

    def start_command(
        self,
        state: TableState,
        deal: Callable[[Deck], tuple[Card, ...]],
        *,
        at: int,
        forced: ForcedBets | None,
        button: int | None,
        hand_id: str,
        commitment: str,
        algorithm: str,
    ) -> StartHand:
        """A :class:`StartHand` whose deck is ``deal`` of the Italian deck for the seats the hand deals in
        (IT-DECK-1: a trial start without cards tells how many). Raises ``IllegalAction`` (e.g.
        ``NotEnoughPlayers``) when no hand can start."""
        forced_bet = None if forced is None else forced.invito
        probe = _game.apply(state, StartHand((), at, forced_bet, button, ""))[1]
        started = next(e for e in probe if isinstance(e, HandStarted))
        deck = deal(self.deck(len(started.dealt)))
        return StartHand(
            deck, at, forced_bet, button, hand_id, commitment=commitment, shuffle_algorithm=algorithm
        )

    def reshuffle_order(self, deck: tuple[Card, ...], pile: Iterable[Card], k: int) -> tuple[Card, ...]:
        return _game.reshuffle_order(deck, pile, k)

    def export_hand(self, before: TableState, events: Sequence[Event]) -> HandHistory:
        """The hand in PHH with our Italian extension (``docs/hand-history-format.md``)."""
        return _export_hand(before, events)


NIT = register(ItalianGame(Limit.NO_LIMIT))
PIT = register(ItalianGame(Limit.POT_LIMIT))
FIT = register(ItalianGame(Limit.FIXED_LIMIT))
