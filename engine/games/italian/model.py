"""Poker all'italiana: configuration, commands, events and state (rules IT-*, seeds 000 and 002).

Everything here is an immutable value. Seats are 0-based indexes into the table; chips are ``int``;
times are integer milliseconds (``at``: when a command happened, supplied by the caller — the engine has
no clock). Per-seat data is held in tuples indexed by seat.

Italian terms (glossed once here): *invito* — the ante every player posts; *buio / controbuio / over* —
the blind opening before the deal and its two blind re-raises (IT-BUIO-1); *dai carte* — "deal the
cards", declining a blind bet; *apertura* — the opening bet after the deal; *cambio* — the draw;
*servito* — standing pat; *busso* — check; *parol* — a check that, if everyone says it, leaves the pot
unawarded for the next hand (the *piatto di parol*); *adeguamento* — topping up to join a parol hand;
*partecipo* — paying it; *passo* — fold (or declining the adeguamento); *punto / rilancio / vedo* —
bet / raise / call; *resto* — any bet, raise or call that puts the whole stack in; *va bene* — the last
blind bettor's "no raise"; *mostro / nascondo* — show / hide at the showdown; *giro pazzo* — a round of
Telesina hands after a big showdown (TL-GIRO-1, a later issue: see ``TableState.giro_pazzo_hands``).

**The core's vocabulary** (issue 16): every value poker all'italiana shares with the other games, field for
field and by name, is the core's own class (:mod:`engine.core.model`), imported here: the seat
(:class:`SeatState`), the table commands (:class:`SeatPlayer`, :class:`RemovePlayer`, :class:`SitOut`,
:class:`ReturnToPlay` — *sono tornato* —, :class:`TimeoutExpired`, :class:`RevealSeed`), the betting and
showdown commands (:class:`BetOrRaise` — *punto*, apertura, *rilancio*, *resto*, and before the deal the
blind bets *buio*, *controbuio*, *over*; :class:`CheckOrCall` — *busso*, *vedo*, *va bene*;
:class:`Fold` — *passo*, also declining the adeguamento; :class:`Discard` — the cambio, none = *servito*;
:class:`ShowHand` — *mostro*; :class:`MuckHand` — *nascondo*) and the events of the same names
(``PlayerSeated``, ``Checked``, ``Called`` — ``all_in``: *resto* —, ``Folded``, ``Discarded``, ``HandShown``,
``PotAwarded``, ``TurnStarted``, …). Their event type names and JSON shapes are unchanged (the store keeps
them). What only poker all'italiana has (the invito and the opening requirement in :class:`HandStarted`, the
phases, buio, parol, adeguamento, the Italian :class:`HandEnded`, :class:`Raised` with ``reopens``) is
defined below.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engine.cards import Card, Rank
from engine.core.model import (
    AddChips,
    BetOrRaise,
    Called,
    Checked,
    CheckOrCall,
    ChipsAdded,
    CoreHand,
    Discard,
    Discarded,
    Fold,
    Folded,
    HandMucked,
    HandShown,
    MuckHand,
    PlayerEliminated,
    PlayerRemoved,
    PlayerReturned,
    PlayerSatOut,
    PlayerSeated,
    PlayerTimedOut,
    PotAwarded,
    RemovePlayer,
    ReturnToPlay,
    RevealSeed,
    SeatPlayer,
    SeatState,
    SeedRevealed,
    ShowHand,
    SitOut,
    TimeBankUsed,
    TimeoutExpired,
    TurnStarted,
    UncalledBetReturned,
)
from engine.evaluation import MinimalBeatsRoyal

__all__ = [
    "AddChips",
    "AdeguamentoDeclined",
    "AdeguamentoPaid",
    "BetOrRaise",
    "BetPlaced",
    "BlindBetPlaced",
    "BlindDeclined",
    "Called",
    "CardsDealt",
    "CheckOrCall",
    "Checked",
    "ChipsAdded",
    "Command",
    "DealCards",
    "DeclineBlind",
    "Discard",
    "Discarded",
    "DiscardsReshuffled",
    "Event",
    "Fold",
    "Folded",
    "HandEnded",
    "HandMucked",
    "HandResult",
    "HandShown",
    "HandStarted",
    "HandState",
    "ItalianHand",
    "Limit",
    "MuckHand",
    "ParolSaid",
    "Partecipate",
    "Phase",
    "PhaseStarted",
    "PlayerEliminated",
    "PlayerRemoved",
    "PlayerReturned",
    "PlayerSatOut",
    "PlayerSeated",
    "PlayerTimedOut",
    "PotAwarded",
    "Raised",
    "RemovePlayer",
    "ReturnToPlay",
    "RevealSeed",
    "SayParol",
    "SeatPlayer",
    "SeatState",
    "SeedRevealed",
    "ShowHand",
    "SitOut",
    "StartHand",
    "TableConfig",
    "TableState",
    "TimeBankUsed",
    "TimeoutExpired",
    "TurnStarted",
    "UncalledBetReturned",
]

# --- configuration -------------------------------------------------------------------------------------


class Limit(Enum):
    """Betting structure (IT-LIMIT-1): no limit, pot limit (default), fixed limit."""

    NO_LIMIT = "NL"
    POT_LIMIT = "PL"
    FIXED_LIMIT = "FL"


@dataclass(frozen=True, slots=True)
class TableConfig:
    """Table options.

    ``seats``: number of seats (2–9; IT-DECK-1 gives a deck for each). ``limit``: IT-LIMIT-1.
    ``tournament``: sitting-out players still post the invito (IT-ANTE-1) and busted players are eliminated.
    ``invito``: the starting invito (a tournament level raises it through :class:`StartHand`).
    ``action_time_ms`` / ``time_bank_ms``: IT-TIME-1. ``parol_hand_invito``: IT-PAROL-3 option (post the
    invito in a parol hand). ``minimal_beats_royal``: IT-RANK-4 option.
    """

    seats: int = 6
    limit: Limit = Limit.POT_LIMIT
    tournament: bool = True
    invito: int = 10
    action_time_ms: int = 30_000
    time_bank_ms: int = 60_000
    parol_hand_invito: bool = False
    minimal_beats_royal: MinimalBeatsRoyal = MinimalBeatsRoyal.SPADES_VS_HEARTS


class Phase(Enum):
    """Phases of a hand (IT-FLOW-1)."""

    ADEGUAMENTO = "adeguamento"  # IT-PAROL-4, before a parol hand
    BLIND = "blind"  # apertura al buio, IT-BUIO-1
    DEAL = "deal"
    OPENING = "opening"  # apertura, IT-OPEN-1..5 (or the answer to a blind opening, IT-BUIO-2)
    CAMBIO = "cambio"  # IT-CAMBIO-1..3
    FINAL = "final"  # ultima fase di puntata, IT-BET-1
    SHOWDOWN = "showdown"  # IT-SHOW-1


class HandResult(Enum):
    """How a hand ended."""

    AWARDED = "awarded"  # the pot(s) went to a winner (showdown or uncontested)
    NOT_OPENED = "not_opened"  # nobody opened: the pot carries, the requirement rises (IT-OPEN-2)
    PAROL = "parol"  # everyone said parol: the pot carries to a parol hand (IT-PAROL-2)


# --- commands ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartHand:
    """Start the next hand with ``deck`` (the shuffled deck for this hand's number of players).

    ``deck``: every card of the Italian deck for the players dealt in, in dealing order (the service
    shuffles it with :func:`engine.shuffle.shuffle`); may be empty when every card will be supplied by
    :class:`DealCards` commands (hand-history replay). ``invito``: the level's invito, if it changed
    (T-LEVEL-1). ``button``: force the button (the first hand after the draw, G-DRAW-1); otherwise it moves
    one occupied seat left. ``hand_id``: the caller's identifier, echoed in the events.

    Provably fair shuffle (``docs/rules-decisions.md``): ``commitment`` is ``sha256(seed)`` of the 32-byte
    seed that shuffled ``deck``, as 64 lowercase hex digits, and ``shuffle_algorithm`` the name of the
    algorithm (:data:`engine.shuffle.ALGORITHM`); both are recorded publicly in :class:`HandStarted`, and the
    seed is revealed after the hand with :class:`RevealSeed`. Both empty (the default): a hand without a
    commitment (hand-history replay, tests with a chosen deck), nothing to reveal.
    """

    deck: tuple[Card, ...] = ()
    at: int = 0
    invito: int | None = None
    button: int | None = None
    hand_id: str = ""
    commitment: str = ""
    shuffle_algorithm: str = ""


@dataclass(frozen=True, slots=True)
class DealCards:
    """The dealer gives ``cards`` to ``seat``: the initial five, or a cambio batch (IT-CAMBIO-2).

    The cards must be in the stock; a batch may be split in two when the stock runs out (IT-CAMBIO-3).
    :func:`engine.games.italian.rules.dealer_command` builds it from the top of the stock.
    """

    seat: int
    cards: tuple[Card, ...]
    at: int = 0


@dataclass(frozen=True, slots=True)
class SayParol:
    """*Parol* (IT-PAROL-1, PHH extension ``pa``)."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class DeclineBlind:
    """*Dai carte*: decline the blind bet this player is offered (IT-BUIO-1, PHH extension ``dc``)."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class Partecipate:
    """*Partecipo*: pay the adeguamento and play the parol hand (IT-PAROL-4, PHH extension ``pt``)."""

    seat: int
    at: int = 0


Command = (
    SeatPlayer
    | RemovePlayer
    | AddChips
    | StartHand
    | DealCards
    | BetOrRaise
    | CheckOrCall
    | Fold
    | SayParol
    | DeclineBlind
    | Partecipate
    | Discard
    | ShowHand
    | MuckHand
    | TimeoutExpired
    | SitOut
    | ReturnToPlay
    | RevealSeed
)

# --- events ------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A hand began: ``dealt`` are the seats dealt in, in order from the left of the button; ``antes``
    ``(seat, chips)`` the invito posted (sitting-out players' forfeited ones included, IT-ANTE-1);
    ``deck``: the stock in dealing order (secret: never in a player's view). ``commitment``: ``sha256`` of
    the shuffle seed (64 lowercase hex digits, public) and ``shuffle_algorithm`` its algorithm's name; both
    ``""`` for a hand without a commitment (and in events recorded before they existed)."""

    number: int
    hand_id: str
    button: int
    dealt: tuple[int, ...]
    antes: tuple[tuple[int, int], ...]
    carried: int
    opening: Rank
    parol_hand: bool
    min_bet: int
    invito: int
    deck: tuple[Card, ...]
    adeguamento: tuple[tuple[int, int], ...]
    at: int
    commitment: str = ""
    shuffle_algorithm: str = ""


@dataclass(frozen=True, slots=True)
class PhaseStarted:
    """A new phase of the hand. ``anchor``: the seat after which the turn order starts; ``order``: the
    showdown order (IT-SHOW-1), empty for other phases."""

    phase: Phase
    anchor: int
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class AdeguamentoPaid:
    """*Partecipo*: ``amount`` joins the carried parol pot (dead money); ``invito`` is this hand's invito
    when the table posts it in parol hands (IT-PAROL-3 option), a contribution like anyone's."""

    seat: int
    amount: int
    invito: int = 0


@dataclass(frozen=True, slots=True)
class AdeguamentoDeclined:
    """*Passo* on the adeguamento. ``automatic``: left out by the rules for lack of chips (IT-PAROL-4);
    otherwise the player's answer (or the default for a player in sit-out or out of time)."""

    seat: int
    automatic: bool


@dataclass(frozen=True, slots=True)
class BlindBetPlaced:
    """*buio* (stage 1), *controbuio* (2) or *over* (3): ``to`` chips (IT-BUIO-1)."""

    seat: int
    to: int
    stage: int


@dataclass(frozen=True, slots=True)
class BlindDeclined:
    seat: int


@dataclass(frozen=True, slots=True)
class CardsDealt:
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class DiscardsReshuffled:
    """The stock ran out: the served players' discards form the new stock, in this order (IT-CAMBIO-3)."""

    stock: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class BetPlaced:
    """A first bet of the round (apertura in the opening round, *punto* later) **to** ``to`` chips."""

    seat: int
    to: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class Raised:
    """A raise to ``to``; ``reopens`` if at least double the bet raised (IT-RAISE-1)."""

    seat: int
    to: int
    all_in: bool
    reopens: bool


@dataclass(frozen=True, slots=True)
class ParolSaid:
    seat: int


@dataclass(frozen=True, slots=True)
class HandEnded:
    """The hand is over. ``stacks`` ``(seat, chips)`` after it; ``carried``: chips left in the middle for
    the next hand; ``next_opening``: the next requirement; ``parol_stake``: what each parol player put in
    (the adeguamento reference, IT-PAROL-4)."""

    number: int
    result: HandResult
    stacks: tuple[tuple[int, int], ...]
    carried: int
    next_opening: Rank
    parol_players: tuple[int, ...]
    parol_stake: int
    contributions: tuple[tuple[int, int], ...]
    uncontested_winner: int | None = None


Event = (
    PlayerSeated
    | PlayerRemoved
    | ChipsAdded
    | HandStarted
    | PhaseStarted
    | TurnStarted
    | TimeBankUsed
    | AdeguamentoPaid
    | AdeguamentoDeclined
    | BlindBetPlaced
    | BlindDeclined
    | CardsDealt
    | DiscardsReshuffled
    | Checked
    | Called
    | BetPlaced
    | Raised
    | Folded
    | ParolSaid
    | Discarded
    | HandShown
    | HandMucked
    | PlayerTimedOut
    | PlayerSatOut
    | PlayerReturned
    | PotAwarded
    | UncalledBetReturned
    | HandEnded
    | PlayerEliminated
    | SeedRevealed
)

# --- state -------------------------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class ItalianHand(CoreHand):
    """The hand in progress: the core's :class:`~engine.core.model.CoreHand` (its betting and card fields,
    folded in place by the core's handlers) plus what only poker all'italiana has. Per-seat tuples have one
    entry per table seat.

    The shared fields as poker all'italiana uses them: ``down`` each seat's five cards (all face down;
    ``up`` stays empty); ``dead`` the chips carried into the hand (an unopened or parol hand's pot and the
    adeguamento paid, IT-OPEN-2, IT-PAROL-4: dead money in the main pot); ``forced`` holds only the
    ``invito`` (IT-ANTE-1; ``small_blind``/``big_blind`` are ``-1``: no blinds); ``contributed`` the whole
    hand (antes, the invito of a parol hand, bets); ``round_bets``, ``current_bet``, ``acted_at`` (per
    seat the current bet when the seat last acted this round, ``-1``: not yet), ``raises`` (bets + raises
    this round, the FL cap), ``discards``, ``declared`` (the seats that took their cambio),
    ``reshuffles``, ``showdown_order``, ``shown``, ``mucked`` as the core keeps them; ``drawing`` during
    the cambio and ``showdown`` during the showdown, as the core's flags (the phase says it too).

    The Italian extension: ``phase`` (IT-FLOW-1: the adeguamento, buio and deal have no core street);
    ``opening`` the requirement (IT-OPEN-1..3), ``parol_hand``, ``min_bet`` (the minimum opening bet,
    IT-OPEN-4), ``lowest_rank`` of the deck in play (IT-DECK-1); ``reopened_at`` the current bet the
    round's last *full* bet or raise made (``0``: none): a seat whose ``acted_at`` reaches it may not raise
    again (a short raise does not reopen, IT-RAISE-1; exact where the core's ``min_raise``, an increment,
    is not: it stays 0); ``opened``; ``opening_aggressor`` / ``final_aggressor`` (IT-BUIO-3, IT-BET-1,
    IT-SHOW-1; the core's ``aggressor`` stays ``None``); the buio's ``blind_bettors``, ``blind_answered``,
    ``blind_closed`` (IT-BUIO-1/2); ``adeguamento`` ``(seat, owed)`` still to answer (IT-PAROL-4);
    ``reshuffled`` the cards of the cambio's reshuffled stock (IT-CAMBIO-3); ``parol_said``,
    ``parol_broken`` (IT-PAROL-1); ``all_in_raisers`` (IT-SHOW-1).

    Frozen without slots, as :class:`CoreHand`: copied through its ``__dict__`` (:mod:`engine._replace`).
    """

    phase: Phase
    opening: Rank
    parol_hand: bool
    min_bet: int
    lowest_rank: int = 2
    reopened_at: int = 0
    opened: bool = False
    opening_aggressor: int | None = None
    final_aggressor: int | None = None
    blind_bettors: tuple[int, ...] = ()
    blind_answered: bool = False
    blind_closed: bool = False
    adeguamento: tuple[tuple[int, int], ...] = ()
    reshuffled: frozenset[Card] = frozenset()
    parol_said: frozenset[int] = frozenset()
    parol_broken: bool = False
    all_in_raisers: frozenset[int] = frozenset()


HandState = ItalianHand
"""The former name of :class:`ItalianHand` (before it was the core's hand with an extension)."""


@dataclass(frozen=True)
class TableState:
    """A table across hands (frozen without slots, as the core's ``CoreState``: the core's handlers fold
    its hand's events in place on the builder's own copies, :mod:`engine.core.rules`).

    ``seats``: one entry per seat, ``None`` when empty. ``button``: the dealer's seat (-1 before the first
    hand). ``opening``: the next hand's requirement (IT-OPEN-2). ``carried``: chips in the middle from
    unawarded hands (IT-OPEN-2, IT-PAROL-2). ``parol_players`` / ``parol_stake``: after a parol, who stayed
    and what each put in (IT-PAROL-3/4); ``last_contributions``: what every seat put in the last hand.
    ``giro_pazzo_hands``: how many of the next hands are a giro pazzo (TL-GIRO-1; 0 until Telesina
    exists). ``hand``: the hand in progress, if any. ``last_winner``: the uncontested winner who may still
    show (IT-SHOW-1). ``commitment``: the seed commitment of the hand in progress or of the last hand
    (``""``: none); ``seed_revealed``: whether that seed has been revealed (:class:`SeedRevealed`).
    """

    config: TableConfig
    seats: tuple[SeatState | None, ...]
    button: int = -1
    hand_number: int = 0
    invito: int = 0
    opening: Rank = Rank.JACK
    carried: int = 0
    parol_players: tuple[int, ...] = ()
    parol_stake: int = 0
    last_contributions: tuple[tuple[int, int], ...] = ()
    giro_pazzo_hands: int = 0
    hand: ItalianHand | None = None
    last_winner: int | None = None
    last_cards: tuple[Card, ...] = ()
    commitment: str = ""
    seed_revealed: bool = False
