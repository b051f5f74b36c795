"""The core games' configuration, commands, events and state (rules G-*, TH-1, OM-1).

Everything is an immutable value: seats are 0-based indexes, chips ``int``, times epoch milliseconds
(``at``, supplied by the caller: the engine has no clock). Per-seat data are tuples indexed by seat.
The same classes serve every game of the core (hold'em, Omaha, and later draw and stud): a game differs
only by its :class:`engine.core.spec.GameSpec`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

from engine._replace import fast_init
from engine.cards import Card
from engine.core.forced import ForcedBets

__all__ = [
    "AddChips",
    "BetOrRaise",
    "BetPlaced",
    "BlindMissed",
    "BlindPostingChosen",
    "BoardDealt",
    "BringIn",
    "Called",
    "CardTurnedUp",
    "CardsDealt",
    "CardsToTurnUp",
    "CheckOrCall",
    "Checked",
    "ChipsAdded",
    "Command",
    "CoreConfig",
    "CoreHand",
    "CoreState",
    "DealBoard",
    "DealCards",
    "DealFromTop",
    "Discard",
    "Discarded",
    "Event",
    "Fold",
    "Folded",
    "ForcedBetPosted",
    "HandEnded",
    "HandMucked",
    "HandShown",
    "HandStarted",
    "MuckHand",
    "PlayerEliminated",
    "PlayerRemoved",
    "PlayerReturned",
    "PlayerSatOut",
    "PlayerSeated",
    "PlayerTimedOut",
    "PostBlind",
    "PotAwarded",
    "Raised",
    "RemovePlayer",
    "ReturnToPlay",
    "RevealSeed",
    "SeatPlayer",
    "SeatState",
    "SeedRevealed",
    "ShowHand",
    "ShowdownStarted",
    "SitOut",
    "StartHand",
    "StockReshuffled",
    "StreetStarted",
    "TimeBankUsed",
    "TimeoutExpired",
    "TurnStarted",
    "TurnUp",
    "UncalledBetReturned",
    "WaitForBigBlind",
]

_DEFAULT_FORCED = ForcedBets(small_blind=1, big_blind=2)

# --- configuration -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CoreConfig:
    """Table options of a core game (the game itself, hence its betting structure, is the table's code).

    ``seats``: 2–10 (the game's range). ``tournament``: sitting-out players are dealt in and post
    (T-SITOUT-1), busted players are eliminated (T-ELIM-1), the button is dead (G-BTN-1) and the FL cap holds
    heads-up (G-LIMIT-1); ``False``, a ring (cash) table: sitting-out and busted players keep their seats and
    are not dealt in, the blind games' entry rules and dead button (CASH-1, CASH-2, CASH-4:
    :func:`engine.core.rules.ring_entry`), the FL cap lifted heads-up (CASH-3). ``forced``: the starting
    forced bets (a level changes them through :class:`StartHand`). ``action_time_ms`` / ``time_bank_ms``: the
    time to act and the bank used when facing a bet. ``options``: the game's own table options, ``(name,
    value)`` pairs (Telesina's layout of the vele and distribution mode, TL-VELE-1, TL-DEAL-2; checked by the
    game's :attr:`~engine.core.spec.GameSpec.options_hook`); empty for the other games.
    """

    seats: int = 6
    tournament: bool = True
    forced: ForcedBets = _DEFAULT_FORCED
    action_time_ms: int = 30_000
    time_bank_ms: int = 60_000
    options: tuple[tuple[str, str], ...] = ()


# --- commands -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """Seat ``player`` at ``seat`` with ``stack`` chips (between hands)."""

    seat: int
    player: str
    stack: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class RemovePlayer:
    """Remove the player at ``seat`` with their chips (between hands)."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class AddChips:
    """Add ``chips`` (an ``int`` > 0) to the stack of the player at ``seat``, between hands only: a ring
    game's top-up (CASH-TOPUP-1, ``docs/rules-decisions.md``), the chips coming from the player's balance
    (the service's ledger)."""

    seat: int
    chips: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class StartHand:
    """Start the next hand with ``deck``, the shuffled stock in dealing order (every card of the game's
    deck once; empty: the cards will be named by the deal commands, as in a PHH replay, and the stock is
    the deck in order). ``forced``: the level's forced bets (``None``: the table's). ``button``: force
    the button (the first hand, G-DRAW-1); otherwise it moves (G-BTN-1). ``commitment`` and
    ``shuffle_algorithm``: the provably fair shuffle's ``sha256(seed)`` and algorithm name, recorded
    publicly. ``posts``: the forced bets as a hand history records them, ``(seat, kind, chips, dead)`` in
    posting order (kinds of :class:`ForcedBetPosted`; PHH's per-player ``antes`` and
    ``blinds_or_straddles``), posted instead of those ``forced`` implies (``None``). ``options``: the
    dealer's choices for this hand among the game's options (Telesina's ``libera`` layout or distribution,
    TL-VELE-1, TL-DEAL-2; ``None``: the table's), checked by :attr:`GameSpec.options_hook`."""

    deck: tuple[Card, ...] = ()
    at: int = 0
    forced: ForcedBets | None = None
    button: int | None = None
    hand_id: str = ""
    commitment: str = ""
    shuffle_algorithm: str = ""
    posts: tuple[tuple[int, str, int, bool], ...] | None = None
    options: tuple[tuple[str, str], ...] | None = None


@dataclass(frozen=True, slots=True)
class DealCards:
    """The dealer gives ``cards`` to ``seat`` (this street's down cards, then its up cards), burning
    ``burn`` first when the street burns (TH-1). Any cards still in the stock are accepted; the dealer's
    own command takes them from the top (:meth:`engine.core.CoreGame.dealer_command`)."""

    seat: int
    cards: tuple[Card, ...]
    burn: tuple[Card, ...] = ()
    at: int = 0


@dataclass(frozen=True, slots=True)
class DealBoard:
    """The dealer turns ``cards`` face up on the board, burning ``burn`` first (TH-1: before the flop,
    the turn and the river). A replay may omit the burn (PHH records none)."""

    cards: tuple[Card, ...]
    burn: tuple[Card, ...] = ()
    at: int = 0


@dataclass(frozen=True, slots=True)
class DealFromTop:
    """The dealer deals everything due now from the top of the stock, burns included: each seat's cards
    (seat by seat from the button's left) and the board — the live dealer's command
    (:meth:`engine.core.CoreGame.dealer_command`), one command for a whole street. The events are the same
    as :class:`DealCards` / :class:`DealBoard` would give (``CardsDealt``, ``BoardDealt``)."""

    at: int = 0


@dataclass(frozen=True, slots=True)
class BetOrRaise:
    """Bet or raise **to** ``to`` chips in this betting round (PHH ``cbr``)."""

    seat: int
    to: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class BringIn:
    """Stud (ST-1): the lowest door card posts the bring-in (PHH ``pb``); completing instead is a
    :class:`BetOrRaise` to the small bet."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class CheckOrCall:
    """Check, or call the current bet (all-in when short) (PHH ``cc``)."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class Fold:
    """Fold (PHH ``f``)."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class Discard:
    """Draw games (FD-1): change these cards (none: stand pat). Refused by games without a draw."""

    seat: int
    cards: tuple[Card, ...] = ()
    at: int = 0


@dataclass(frozen=True, slots=True)
class TurnUp:
    """Telesina (TL-DEAL-2): turn up the ``index``-th (0-based, in the order dealt) of the seat's face-down
    cards, when the game asks each player to choose which hidden card goes face up. Refused otherwise."""

    seat: int
    index: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class ShowHand:
    """Show the hand at the showdown (PHH ``sm`` with the cards)."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class MuckHand:
    """Muck the hand at the showdown, giving up the pot (PHH ``sm`` without cards)."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class TimeoutExpired:
    """The time of the seat to act (and its time bank when facing a bet) ran out: check if free, else
    fold; at the showdown, muck."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class SitOut:
    """The player leaves the game for now (in a tournament still dealt in, T-SITOUT-1)."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class ReturnToPlay:
    """End the sit-out."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class PostBlind:
    """Ring blind games (CASH-1, CASH-2): the player of ``seat``, new at the table or owing missed blinds
    (markers ML / MS), posts what is owed at the next hand that deals them in outside the blinds: a big
    blind, live (a new player, or ML), and a missed small blind, dead (MS). Between hands or during a hand
    (it takes effect at the next hand's start)."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class WaitForBigBlind:
    """Ring blind games (CASH-1, CASH-2): the player of ``seat`` waits to be dealt in until the big blind
    reaches them (the default of a new player; forgives a missed small blind). Cancels :class:`PostBlind`."""

    seat: int
    at: int = 0


@dataclass(frozen=True, slots=True)
class RevealSeed:
    """Reveal the seed of the hand just ended (64 lowercase hex digits whose ``sha256`` is its commitment)."""

    seed: str
    at: int = 0


Command = (
    SeatPlayer
    | RemovePlayer
    | AddChips
    | StartHand
    | DealCards
    | DealBoard
    | DealFromTop
    | BetOrRaise
    | BringIn
    | CheckOrCall
    | Fold
    | Discard
    | TurnUp
    | ShowHand
    | MuckHand
    | TimeoutExpired
    | SitOut
    | ReturnToPlay
    | PostBlind
    | WaitForBigBlind
    | RevealSeed
)

# --- events ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class PlayerRemoved:
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class ChipsAdded:
    """``chips`` added between hands to the stack of ``player`` at ``seat`` (CASH-TOPUP-1); ``stack``: the
    stack after it."""

    seat: int
    player: str
    chips: int
    stack: int


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A hand began. ``button``: the dealer's seat (may be empty: dead button, G-BTN-1);
    ``small_blind`` / ``big_blind``: the blinds' positions (seats; ``-1``: none; the small blind's seat
    may be empty: dead small blind); ``dealt``: the seats dealt in, clockwise from the button's left;
    ``forced``: the hand's forced bets; ``deck``: the stock in dealing order (secret: never in a player's
    view); ``commitment`` / ``shuffle_algorithm``: public, ``""`` without a commitment; ``options``: the
    hand's game options as resolved (Telesina's layout and distribution mode; ``()`` for other games)."""

    number: int
    hand_id: str
    button: int
    small_blind: int
    big_blind: int
    dealt: tuple[int, ...]
    forced: ForcedBets
    deck: tuple[Card, ...]
    at: int
    commitment: str = ""
    shuffle_algorithm: str = ""
    options: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ForcedBetPosted:
    """``seat`` posted ``amount`` chips of a forced bet ``kind`` (``"ante"``, ``"big_blind_ante"``,
    ``"small_blind"``, ``"big_blind"``, ``"straddle"``, ``"bring_in"``; ring blind games, CASH-1/CASH-2:
    ``"posted_big_blind"`` the live big blind of a new or returning player outside the blinds, and
    ``"dead_small_blind"`` a missed small blind, dead money in the middle), less than due when all-in.
    ``dead``: dead money in the main pot, not the poster's contribution (G-ANTE-1's big-blind ante);
    ``live``: it counts as the poster's bet in the first betting round (blinds, straddle, bring-in; antes
    do not)."""

    seat: int
    kind: str
    amount: int
    dead: bool
    live: bool


@dataclass(frozen=True, slots=True)
class StreetStarted:
    """Street ``street`` (an index of the game's streets) begins: its cards are dealt next, then its
    betting round (bets of the previous round are gathered). ``draw``: the street begins with a draw
    (FD-1): each player in turn discards (or stands pat) and is dealt the replacements."""

    street: int
    draw: bool = False


@dataclass(frozen=True, slots=True)
class CardsDealt:
    """``seat`` received ``down`` cards face down and ``up`` face up; ``burn`` was burnt first."""

    seat: int
    down: tuple[Card, ...]
    up: tuple[Card, ...] = ()
    burn: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class BoardDealt:
    """``cards`` were turned face up on the board; ``burn`` was burnt first (TH-1)."""

    cards: tuple[Card, ...]
    burn: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class StockReshuffled:
    """The stock ran short (FD-1's draw, ST-1's 7th street): ``pile`` (discards, burnt cards, and for stud
    the stock left) was reshuffled and the stock is now ``stock`` (top first; secret, like the deck): the
    old stock's cards not in ``pile``, then ``game.reshuffle_order(deck, pile, k)`` for the hand's ``k``-th
    reshuffle, so that an auditor recomputes it. ``community``: stud's 7th street deals one community
    card face up for all instead of a card to each player (ST-1)."""

    pile: tuple[Card, ...]
    stock: tuple[Card, ...]
    community: bool = False


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """``seat`` must decide by ``deadline`` (ms); ``time_bank`` ms are left, usable if ``chips_required``
    (facing a bet)."""

    seat: int
    deadline: int
    time_bank: int
    chips_required: bool


@dataclass(frozen=True, slots=True)
class TimeBankUsed:
    seat: int
    used: int


@dataclass(frozen=True, slots=True)
class Checked:
    seat: int


@dataclass(frozen=True, slots=True)
class Called:
    """Called ``amount`` more chips (``all_in``: the whole stack)."""

    seat: int
    amount: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class BetPlaced:
    """The first bet of a round, **to** ``to`` chips (``full``: at least the minimum bet; a short all-in
    bet is not a full bet, G-ACT-2)."""

    seat: int
    to: int
    all_in: bool
    full: bool = True


@dataclass(frozen=True, slots=True)
class Raised:
    """A raise **to** ``to`` chips; ``full``: by at least the last full raise (G-ACT-2): a short all-in
    raise is not full and does not reopen the betting to players who already acted."""

    seat: int
    to: int
    all_in: bool
    full: bool


@dataclass(frozen=True, slots=True)
class Folded:
    seat: int


@dataclass(frozen=True, slots=True)
class Discarded:
    """Draw games: ``seat`` changed these cards (``()``: stood pat); others see only how many."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class CardsToTurnUp:
    """Telesina (TL-DEAL-2): before this street's betting round each player still in turns one of their
    face-down cards up (:class:`TurnUp`), in seat order from the dealer's left."""

    street: int


@dataclass(frozen=True, slots=True)
class CardTurnedUp:
    """``seat`` turned ``card`` (one of its face-down cards) face up (TL-DEAL-2); ``automatic``: the
    time-out (or the sit-out) turned up the default, the card dealt last."""

    seat: int
    card: Card
    automatic: bool = False


@dataclass(frozen=True, slots=True)
class ShowdownStarted:
    """The last betting round is over with two or more players in: they show in ``order`` (G-SHOW-1)."""

    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandShown:
    """``seat`` showed ``cards`` (its hole cards), ``label``: the hand in English (G-SHOW-1)."""

    seat: int
    cards: tuple[Card, ...]
    label: str


@dataclass(frozen=True, slots=True)
class HandMucked:
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerTimedOut:
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerSatOut:
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerReturned:
    seat: int


@dataclass(frozen=True, slots=True)
class BlindMissed:
    """Ring blind games (CASH-2, CASH-4): the ``kind`` blind (``"big_blind"``: marker ML,
    ``"small_blind"``: marker MS) passed ``seat`` while its player sat out or had no chips, at the start of
    the hand (emitted right after its :class:`HandStarted`). At most one of each kind is owed."""

    seat: int
    kind: str


@dataclass(frozen=True, slots=True)
class BlindPostingChosen:
    """Ring blind games (CASH-1, CASH-2): the player of ``seat`` chose to post what is owed (``post``:
    :class:`PostBlind`) or to wait for the big blind (:class:`WaitForBigBlind`)."""

    seat: int
    post: bool


@dataclass(frozen=True, slots=True)
class UncalledBetReturned:
    """G-SHOW-2: the part of ``seat``'s bet nobody called, back to its stack."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class PotAwarded:
    """Pot ``index`` (0 = main) of ``amount`` chips, won by ``shares`` ``(seat, chips)`` (G-POT-1/2)."""

    index: int
    amount: int
    eligible: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class HandEnded:
    """The hand is over: ``stacks`` ``(seat, chips)`` after it; ``uncontested_winner`` when everyone else
    folded."""

    number: int
    stacks: tuple[tuple[int, int], ...]
    contributions: tuple[tuple[int, int], ...]
    uncontested_winner: int | None = None


@dataclass(frozen=True, slots=True)
class PlayerEliminated:
    """Tournament: ``seat`` ended hand ``hand`` with no chips (T-ELIM-1); ``starting_stack`` ranks
    simultaneous busts."""

    seat: int
    player: str
    hand: int
    starting_stack: int


@dataclass(frozen=True, slots=True)
class SeedRevealed:
    """The seed of hand ``number`` (64 lowercase hex digits), whose ``sha256`` is its commitment."""

    number: int
    seed: str


Event = (
    PlayerSeated
    | PlayerRemoved
    | ChipsAdded
    | HandStarted
    | ForcedBetPosted
    | StreetStarted
    | CardsDealt
    | BoardDealt
    | StockReshuffled
    | TurnStarted
    | TimeBankUsed
    | Checked
    | Called
    | BetPlaced
    | Raised
    | Folded
    | Discarded
    | CardsToTurnUp
    | CardTurnedUp
    | ShowdownStarted
    | HandShown
    | HandMucked
    | PlayerTimedOut
    | PlayerSatOut
    | PlayerReturned
    | BlindMissed
    | BlindPostingChosen
    | UncalledBetReturned
    | PotAwarded
    | HandEnded
    | PlayerEliminated
    | SeedRevealed
)

# --- state ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SeatState:
    """A seated player: ``stack`` behind (chips not in the middle), sit-out flag, time bank left (ms).

    Ring blind games (CASH-1, CASH-2, CASH-4; always ``False`` in tournaments): ``new`` a player seated
    after the table's first hand, not yet dealt in (owes a big blind, as ML); ``missed_big`` /
    ``missed_small`` the markers ML / MS; ``posting`` the player chose to post what is owed
    (:class:`PostBlind`) rather than wait for the big blind. All cleared when the seat is dealt in."""

    player: str
    stack: int
    sitting_out: bool = False
    time_bank: int = 0
    new: bool = False
    missed_big: bool = False
    missed_small: bool = False
    posting: bool = False

    @property
    def owes(self) -> bool:
        """Whether the player owes a blind to be dealt in outside the big blind (CASH-1, CASH-2)."""
        return self.new or self.missed_big or self.missed_small


@dataclass(frozen=True)
class CoreHand:
    """The hand in progress. Per-seat tuples have one entry per table seat.

    Cards: ``down``/``up`` each seat's hole cards face down / face up; ``board``; ``burned``; ``stock``
    (what is left to deal, top first); ``deck`` the hand's whole stock as started (auditors).
    Betting: ``street`` the street index; ``round_bets`` this round; ``contributed`` the whole hand
    (live antes and bets; not the dead big-blind ante, which is ``dead``); ``current_bet`` the highest
    round bet; ``min_raise`` the last full bet or raise increment (G-ACT-2); ``acted_at`` per seat the
    current bet the seat faced when it last acted this round (``-1``: not acted; a seat that acted may
    raise again only when the bet has since risen by a full raise, G-ACT-2); ``raises`` bets and raises
    this round (the FL cap); ``capped``: the FL cap applies this round (CASH-3). Draw streets:
    ``drawing`` while players discard, ``declared`` the seats that discarded (or stood pat) this street,
    ``discards`` every seat's discarded cards this hand. ``reshuffles``: stocks reshuffled so far
    (:class:`StockReshuffled`); ``community``: the current street deals one community card instead of a
    card to each player (ST-1). ``options``: the hand's game options (:class:`HandStarted`);
    ``turning_up``: players must turn a down card up before the betting round (TL-DEAL-2, Telesina:
    ``declared`` holds who did).

    Frozen without slots on purpose: every event copies the hand, and a ``__dict__`` copies in one step
    (:mod:`engine._replace`).
    """

    number: int
    hand_id: str
    button: int
    small_blind: int
    big_blind: int
    dealt: tuple[int, ...]
    forced: ForcedBets
    deck: tuple[Card, ...]
    stock: tuple[Card, ...]
    down: tuple[tuple[Card, ...], ...]
    up: tuple[tuple[Card, ...], ...]
    contributed: tuple[int, ...]
    round_bets: tuple[int, ...]
    acted_at: tuple[int, ...]
    starting_stacks: tuple[int, ...]
    folded: frozenset[int]
    board: tuple[Card, ...] = ()
    burned: tuple[Card, ...] = ()
    dead: int = 0
    street: int = 0
    street_dealt: bool = False
    drawing: bool = False
    betting: bool = False
    showdown: bool = False
    blind_anchor: int = -1
    to_act: int | None = None
    last_actor: int | None = None
    deadline: int = 0
    chips_required: bool = False
    current_bet: int = 0
    min_raise: int = 0
    raises: int = 0
    capped: bool = True
    aggressor: int | None = None
    discards: tuple[tuple[Card, ...], ...] = ()
    declared: frozenset[int] = frozenset()
    showdown_order: tuple[int, ...] = ()
    shown: tuple[tuple[int, tuple[Card, ...]], ...] = ()
    mucked: frozenset[int] = frozenset()
    reshuffles: int = 0
    community: bool = False
    options: tuple[tuple[str, str], ...] = ()
    turning_up: bool = False


@dataclass(frozen=True)
class CoreState:
    """A table across hands (frozen without slots, as :class:`CoreHand`): ``seats`` (``None``: empty),
    ``button``/``small_blind``/``big_blind`` the
    positions of the last hand (``-1`` before the first; G-BTN-1's dead button moves the big blind one
    player a hand), ``forced`` the table's forced bets (a level's replace them from its hand on),
    ``hand`` the hand in progress, ``commitment``/``seed_revealed`` the last hand's seed commitment."""

    config: CoreConfig
    seats: tuple[SeatState | None, ...]
    forced: ForcedBets
    button: int = -1
    small_blind: int = -1
    big_blind: int = -1
    hand_number: int = 0
    hand: CoreHand | None = None
    commitment: str = ""
    seed_revealed: bool = False


for _cls in (*get_args(Command), *get_args(Event), SeatState):
    fast_init(_cls)  # the same __init__, faster (engine._replace): a few events and a command per decision
del _cls
