"""Standard PHH for the core games (issue 16, rule XX-HH-1): replay a :class:`engine.phh.HandHistory`
through the game's decider, and export a hand the decider played.

**Replay** (:func:`replay_hand`): the game is ``find_game(variant)``; the table has one seat per player,
``p1`` at seat 0 … ``pN`` (the button) at seat N-1 (PHH's order: ``p1`` is left of the button; heads-up the
blinds are reversed, so ``p1`` posts the big blind and the button the small blind, as our G-BLIND-2); the
forced bets come from the file, each player's posted as its arrays say (:func:`forced_bets`,
:attr:`StartHand.posts`); the hand starts with no deck, so that every deal
names the file's cards. Each action becomes the game's command: ``d dh`` → :class:`DealCards`, ``d db`` →
:class:`DealBoard`, ``cbr`` → :class:`BetOrRaise` (to), ``cc`` → :class:`CheckOrCall`, ``f`` → :class:`Fold`,
``sd`` → :class:`Discard`, ``pb`` → :class:`BringIn`, ``sm`` → :class:`ShowHand` / :class:`MuckHand`. Amounts
are whole chips: the file's amounts × ``10**decimals`` (:attr:`HandHistory.decimals`), so cents replay
exactly in ``int``. At the end the stacks must be the file's ``finishing_stacks`` (and, for a file that
gives ``winnings`` only, the same players must win, each at least the file's winnings: sites rake pots).

What PHH leaves implicit, and how the replay supplies it:

- **Unknown cards** ``????`` are dealt from the stock: cards the file never names, and for a player who
  reaches the showdown the weakest such cards against the file's final board, so that a hand whose cards
  are unknown never wins a pot a known hand contests (XX-HH-1, as PokerKit settles such files).
- **Shows** are taken in the file's order whatever it is (XX-HH-1): a show the engine already made (all-in,
  TDA 16, or a hand the rules turn up, G-SHOW-1) is checked against the file's cards; a show written before
  the rest of the board waits until the engine asks for it. When the engine asks a player to show or muck
  and the file says nothing, a hand with known cards is shown and an unknown one mucked.
- A ``sm`` after the hand is over (a winner showing) changes nothing.
- A player the file skips (real files forget a fold) checks when free, else folds, as PokerKit repairs
  such files.
- **Draws** (FD-1): a file that writes every discard first and every replacement after (as PHH's files
  and PokerKit do) has each such deal moved to just after its player's discard; a deal the dealer is not
  due for yet is held back until it is. Unknown discarded cards (``sd ????``) are cards of the player's
  hand.

**Export** (:func:`export_hand`): the events of one hand → a standard :class:`HandHistory` (``p1`` the
first player dealt left of the button, forced bets as PHH arrays, every deal, bet and show; a draw as every
discard then every replacement, and the hands turned up at an all-in after the rest of the deal, with every
card held, so that PokerKit replays them: tests/engine/test_phh_real.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from operator import attrgetter
from typing import Any

from engine.cards import Card, Deck, format_cards
from engine.core.errors import IllegalAction
from engine.core.fast import street_due
from engine.core.forced import ForcedBets, ForcedBetsRefused
from engine.core.game import UnknownGame, find_game
from engine.core.model import (
    BetOrRaise,
    BetPlaced,
    BoardDealt,
    BringIn,
    Called,
    CardsDealt,
    CardTurnedUp,
    Checked,
    CheckOrCall,
    Command,
    CoreHand,
    CoreState,
    DealBoard,
    DealCards,
    Discard,
    Discarded,
    Event,
    Fold,
    Folded,
    ForcedBetPosted,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    MuckHand,
    PlayerSeated,
    PotAwarded,
    Raised,
    SeatPlayer,
    ShowHand,
    StartHand,
    StockReshuffled,
    StreetStarted,
    TurnStarted,
    TurnUp,
    UncalledBetReturned,
)
from engine.core.rules import InPlaceRun, seat_players
from engine.core.spec import Evaluation, GameSpec
from engine.evaluation.standard import standard_evaluator
from engine.phh import Action, Difference, HandHistory, format_amount, parse_standard_action

__all__ = [
    "ENTRY_KEYS",
    "HandReplay",
    "UnsupportedHistory",
    "export_hand",
    "forced_bets",
    "replay_hand",
    "replay_standard",
]


class UnsupportedHistory(ValueError):
    """A standard file this engine cannot play as written (forced bets our games do not have, a variant
    that is not registered). ``str()``: why."""


# --- forced bets ----------------------------------------------------------------------------------------


Post = tuple[int, str, int, bool]
"""A forced bet as :class:`StartHand` takes it: ``(seat, kind, chips, dead)``."""


def forced_bets(history: HandHistory) -> tuple[ForcedBets, tuple[Post, ...]]:
    """The forced bets of a standard hand: the table's :class:`ForcedBets` and every player's post, as
    :attr:`StartHand.posts` takes them (PHH order: ``p1`` is seat 0, left of the button).

    Heads-up PHH reverses the arrays (index ``i`` is ``p(N-i)``: ``[small, big]`` means ``p1`` posts the big
    blind, the button the small one, as our G-BLIND-2). ``antes``: equal → everyone's ante; one player's
    alone (the big blind's or the button's) → dead money for the table (G-ANTE-1's big-blind ante); unequal →
    each player's own. ``blinds_or_straddles``: index 0 the small blind, 1 the big blind, the others
    straddles; a single one is the big blind (a dead small blind, G-BTN-1: ``[big, 0, …]`` puts it on ``p1``);
    with ``p1`` posting nothing, a smaller blind then one equal to ``min_bet`` (fixed limit: ``small_bet``)
    are the small and the big blind of players dealt in between the button and the small blind (G-BTN-1,
    ``[0, 0, 25, 50, …]``: our export; PokerKit would read straddles). ``bring_in``, ``small_bet``,
    ``big_bet`` as given (fixed limit); a no-limit or pot-limit stud hand's ``min_bet`` is its small bet
    (ST-1). Raises :class:`UnsupportedHistory` for a no-limit ``min_bet`` other than the big blind (our
    minimum bet is the big blind, G-ACT-2) and for amounts a game refuses."""
    n = history.player_count

    def seat(index: int) -> int:
        return n - 1 - index if n == 2 else index

    posts: list[Post] = []
    antes = history.antes
    anted = [i for i, a in enumerate(antes) if a]
    ante = big_blind_ante = 0
    if len(anted) == 1 and n > 1:
        big_blind_ante = antes[anted[0]]
        posts.append((seat(anted[0]), "big_blind_ante", big_blind_ante, True))
    elif anted:
        ante = max(antes)
        posts.extend((seat(i), "ante", antes[i], False) for i in sorted(anted, key=seat))
    blinds = history.blinds_or_straddles
    blinded = [i for i, b in enumerate(blinds) if b]
    small = big = straddle = 0
    fixed = history.variant.startswith("F")
    # the big blind's amount: no-limit and pot-limit name it min_bet; fixed limit's is its small bet
    headline = (history.small_bet or 0) if fixed else history.min_bet
    if len(blinded) >= 2 and blinded[0] > 0 and blinds[blinded[0]] < blinds[blinded[1]] == headline:
        # players dealt in between the button and the small blind (G-BTN-1: a table refilled after it was
        # short, players moved in by balancing): the first blind is the small one, the next the big one
        small, big = blinds[blinded[0]], blinds[blinded[1]]
        posts.append((seat(blinded[0]), "small_blind", small, False))
        posts.append((seat(blinded[1]), "big_blind", big, False))
        for i in blinded[2:]:
            straddle = max(straddle, blinds[i])
            posts.append((seat(i), "straddle", blinds[i], False))
    elif len(blinded) == 1:
        big = blinds[blinded[0]]
        posts.append((seat(blinded[0]), "big_blind", big, False))
    elif blinded:
        for i in blinded:
            if i == 0:
                small = blinds[0]
                posts.append((seat(0), "small_blind", small, False))
            elif i == 1:
                big = blinds[1]
                posts.append((seat(1), "big_blind", big, False))
            else:
                straddle = max(straddle, blinds[i])
                posts.append((seat(i), "straddle", blinds[i], False))
    if blinds and not fixed and history.min_bet and history.min_bet != big:
        raise UnsupportedHistory(f"min_bet {history.min_bet} is not the big blind {big}")
    try:
        forced = ForcedBets(
            ante=ante,
            big_blind_ante=big_blind_ante,
            small_blind=small,
            big_blind=big,
            straddle=straddle,
            bring_in=history.bring_in or 0,
            # stud's minimum bet is its small bet in every limit (ST-1): PHH's min_bet when not fixed
            small_bet=(history.small_bet or 0) if fixed else (history.min_bet if history.bring_in else 0),
            big_bet=(history.big_bet or 0) if fixed else 0,
        )
    except ForcedBetsRefused as error:
        raise UnsupportedHistory(str(error)) from None
    meta = dict(history.metadata)
    scale = 10**history.decimals
    entered = [meta.get(key) for key, _, _ in ENTRY_KEYS]
    # CASH-1, CASH-2: a ring player's entry outside the blinds, in dealing order (when the file has any)
    for i in range(n) if entered.count(None) < len(entered) else ():
        for values, (key, kind, dead) in zip(entered, ENTRY_KEYS, strict=True):
            if values is None:
                continue
            if not isinstance(values, list) or len(values) != n:
                raise UnsupportedHistory(f"{key} must list one amount per player")
            amount = values[i]
            if not isinstance(amount, int) or isinstance(amount, bool) or amount < 0:
                raise UnsupportedHistory(f"{key} must hold whole amounts >= 0, not {amount!r}")
            if amount:
                posts.append((seat(i), kind, amount * scale, dead))
    return forced, tuple(posts)


ENTRY_KEYS = (
    ("_posted_big_blinds", "posted_big_blind", False),
    ("_dead_small_blinds", "dead_small_blind", True),
)
"""A ring game's entries outside the blinds (CASH-1, CASH-2) in a PHH file, user-defined keys (PHH has no
field for them): ``(file key, ForcedBetPosted kind, dead)``, one amount per player (``p1`` first, in the
file's units): the live big blind a new or returning player posts, and the missed small blind posted dead."""


_CODE = attrgetter("code")
_ILLEGAL = attrgetter("illegal")
_VERB = attrgetter("verb")

TELESINA_KEYS = (
    ("vele", "layout"),
    ("carta_coperta", "distribution"),
    ("minimal_beats_royal", "minimal_beats_royal"),
)
"""Telesina's hand options in a PHH file (TL-VELE-1, TL-DEAL-2, IT-RANK-4): ``(file key, option name)``."""


def _invito_game(spec: GameSpec | None) -> bool:
    """A game whose only forced bet is the invito (Telesina, IT-ANTE-1): PHH's antes are the invito."""
    return spec is not None and spec.forced_fields == frozenset({"invito"})


def game_options(history: HandHistory) -> tuple[tuple[str, str], ...]:
    """The game options a file records (Telesina's ``vele``, ``carta_coperta``, ``minimal_beats_royal``
    metadata keys), as :attr:`CoreConfig.options` takes them."""
    meta = dict(history.metadata)
    return tuple((name, str(meta[key])) for key, name in TELESINA_KEYS if key in meta)


# --- unknown cards ----------------------------------------------------------------------------------------


def _value(
    spec: GameSpec | None,
    hole: Sequence[Card],
    board: Sequence[Card],
    hand: CoreHand | None = None,
    seat: int = -1,
) -> int | None:
    """The showdown value of ``hole`` with ``board`` (higher wins), ``None`` when it cannot be valued yet.
    A game whose value depends on the hand's options (``seat_value_hook``: Telesina's vele combinations,
    TL-VELE-1) is valued on the running ``hand`` with ``seat`` holding ``hole`` and the board ``board``."""
    if spec is not None and spec.seat_value_hook is not None:
        if hand is None or not 0 <= seat < len(hand.down):
            return None
        empty: tuple[Card, ...] = ()
        holding = tuple(tuple(hole) if s == seat else empty for s in range(len(hand.down)))
        return spec.seat_value_hook(
            replace(hand, down=holding, up=tuple(empty for _ in holding), board=tuple(board)), seat
        )
    if spec is not None and spec.value_hook is not None:
        return spec.value_hook(tuple(hole), (), tuple(board))
    evaluator = standard_evaluator()
    if spec is not None and spec.evaluation is Evaluation.OMAHA:
        if len(hole) < 2 or len(board) < 3:
            return None
        return max(
            evaluator.key5(*(c.code for c in two), *(c.code for c in three))
            for two in itertools.combinations(hole, 2)
            for three in itertools.combinations(board, 3)
        )
    cards = [*hole, *board]
    if len(cards) < 5:
        return None
    return evaluator.key([card.code for card in cards])


@dataclass
class _Cards:
    """The cards the replay knows of: every card the file names (never used to fill an unknown one), the
    cards used so far (both by :attr:`Card.code`: hashed in C, a card's ``__hash__`` is Python's), each
    seat's known hole cards over the whole file, the final board."""

    named: set[int] = field(default_factory=set)
    used: set[int] = field(default_factory=set)
    holes: dict[int, list[Card]] = field(default_factory=dict)
    board: list[Card] = field(default_factory=list)
    to_showdown: set[int] = field(default_factory=set)
    revealed: dict[int, list[Card]] = field(default_factory=dict)

    @classmethod
    def scan(cls, history: HandHistory) -> _Cards:
        cards = cls()
        folded: set[int] = set()
        named = cards.named
        for action in history.actions:
            written = action.written
            # all known: the reader's ``cards`` is its ``written`` (engine.phh._card_lists)
            known: Sequence[Card] = (
                action.cards if written is action.cards else [c for c in written if c is not None]
            )
            named.update(map(_CODE, known))
            if action.verb == "dh" and action.target is not None:
                cards.holes.setdefault(action.target, []).extend(known)
            elif action.verb == "db":
                cards.board.extend(known)
            elif action.verb == "f" and action.actor is not None:
                folded.add(action.actor)
        for action in history.actions:  # cards dealt unknown and shown later: the shown ones were dealt
            if action.verb == "sm" and action.actor is not None:
                dealt = set(cards.holes.get(action.actor, ()))
                late = [c for c in action.written if c is not None and c not in dealt]
                cards.revealed.setdefault(action.actor, []).extend(late)
                cards.holes.setdefault(action.actor, []).extend(late)
        cards.to_showdown = set(range(history.player_count)) - folded
        return cards

    def fill(
        self,
        spec: GameSpec | None,
        seat: int,
        written: tuple[Card | None, ...],
        known: tuple[Card, ...],
        deck: tuple[Card, ...] | None = None,
        hand: CoreHand | None = None,
    ) -> tuple[Card, ...]:
        """``written`` with each unknown card replaced by one the file never names (see the module doc);
        ``known``: the cards when all are known (:attr:`Action.cards`), else ``()``. ``deck``: the game's
        deck for the hand, lowest ranks first (default the 52-card deck; Telesina's IT-DECK-1 deck is cut
        by the players); ``hand``: the running hand (for a game valued on it, :func:`_value`)."""
        if len(known) == len(written):  # every card known (the usual case)
            self.used.update(map(_CODE, known))
            return known
        revealed = self.revealed.get(seat, [])
        written = tuple(
            card if card is not None or not revealed else revealed.pop(0) for card in written
        )  # an unknown card the player shows later is that card
        missing = sum(1 for card in written if card is None)
        if not missing:
            result = tuple(card for card in written if card is not None)
            self.used.update(map(_CODE, result))
            return result
        taken = self.named | self.used
        free = [c for c in (deck or Deck.standard().cards) if c.code not in taken]
        chosen: tuple[Card, ...] = tuple(free[:missing])
        if seat in self.to_showdown:
            known_hole = self.holes.get(seat, [])
            best: int | None = None
            pool = free[: {1: 14, 2: 14, 3: 11}.get(missing, 9)]  # the lowest ranks (C(9, 4) = 126 for Omaha)
            plain = spec is None or (
                spec.seat_value_hook is None
                and spec.value_hook is None
                and spec.evaluation is not Evaluation.OMAHA
            )
            if plain and len(known_hole) + missing + len(self.board) >= 5:
                # _value's standard case, its codes read once: the key of a set of codes (any order)
                evaluator = standard_evaluator()
                key = evaluator.key
                base = [card.code for card in (*known_hole, *self.board)]
                combos = itertools.combinations(pool, missing)
                codes = itertools.combinations([card.code for card in pool], missing)
                if len(base) + missing == 7:  # hold'em's two cards and five on the board: key7, same value
                    key7 = evaluator.key7
                    for combo, combo_codes in zip(combos, codes, strict=True):
                        code_value = key7(*base, *combo_codes)
                        if best is None or code_value < best:
                            best, chosen = code_value, combo
                else:
                    for combo, combo_codes in zip(combos, codes, strict=True):
                        code_value = key(base + list(combo_codes))
                        if best is None or code_value < best:
                            best, chosen = code_value, combo
            else:
                for combo in itertools.combinations(pool, missing):
                    value = _value(spec, [*known_hole, *combo], self.board, hand, seat)
                    if value is None:
                        break
                    if best is None or value < best:
                        best, chosen = value, combo
        filled = iter(chosen)
        result = tuple(card if card is not None else next(filled) for card in written)
        self.used.update(map(_CODE, result))
        return result


# --- replay -----------------------------------------------------------------------------------------------


def _names(history: HandHistory) -> list[str]:
    """The players' names, ``p1`` … when the file has none, an empty one or the same name twice."""
    names = list(history.players)
    if len(names) != history.player_count or len(set(names)) != len(names) or not all(names):
        return [f"p{i + 1}" for i in range(history.player_count)]
    return names


class _Spoilt(Exception):
    """The fast replay (:class:`InPlaceRun`) met a refused command: the hand is replayed again command by
    command through the game's ``apply``, which reports the refusal on an unchanged state."""


@dataclass
class _Run:
    """One hand being replayed: the game, its state, what the engine did. With ``fast`` (a core game,
    :class:`InPlaceRun`) the commands change one copy of the state in place and a refusal raises
    :class:`_Spoilt`; else each command goes through the game's ``apply``."""

    game: Any
    state: CoreState
    shown: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    won: dict[int, int] = field(default_factory=dict)
    returned: dict[int, int] = field(default_factory=dict)
    ended: HandEnded | None = None
    held: dict[int, list[Card]] = field(default_factory=dict)
    fast: InPlaceRun | None = None

    def holding(self, seat: int) -> tuple[Card, ...]:
        """Every card ``seat`` holds (down and up: a PHH show lists them all), discards taken out."""
        return tuple(self.held.get(seat, ()))

    def apply(self, command: Command) -> None:
        fast = self.fast
        events: Sequence[Event]
        if fast is not None:
            try:
                events = fast.apply(command)
            except IllegalAction:
                raise _Spoilt from None
            self.state = fast.state
        else:
            self.state, events = self.game.apply(self.state, command)
        for event in events:  # (note's loop, inline: once a command)
            if type(event) in _NOTED:
                self.note((event,))

    def deal_street(self, deals: list[DealCards]) -> None:
        """The named hole cards of one street (the fast path only): :meth:`InPlaceRun.deal_street`, the
        same events as the deals applied one by one."""
        fast = self.fast
        assert fast is not None
        try:
            events = fast.deal_street(deals)
        except IllegalAction:
            raise _Spoilt from None
        self.state = fast.state
        self.note(events)

    def note(self, events: Sequence[Event]) -> None:
        """Note the cards dealt, discarded and shown, the pots won, the bets returned, the hand's end."""
        for event in events:
            if type(event) not in _NOTED:  # most events (turns, bets): one look-up, not six isinstance
                continue
            if isinstance(event, CardsDealt):
                self.held.setdefault(event.seat, []).extend((*event.down, *event.up))
            elif isinstance(event, Discarded):
                self.held[event.seat] = [c for c in self.held.get(event.seat, ()) if c not in event.cards]
            elif isinstance(event, HandShown):
                self.shown[event.seat] = tuple(event.cards)
            elif isinstance(event, PotAwarded):
                for seat, chips in event.shares:
                    self.won[seat] = self.won.get(seat, 0) + chips
            elif isinstance(event, UncalledBetReturned):
                self.returned[event.seat] = self.returned.get(event.seat, 0) + event.amount
            elif isinstance(event, HandEnded):
                self.ended = event

    def showdown_seat(self) -> int | None:
        """The seat the engine asks to show or muck now, else ``None``."""
        hand = self.state.hand
        if hand is None or not hand.showdown or hand.to_act is None:
            return None
        return int(hand.to_act)


_NOTED = frozenset({CardsDealt, Discarded, HandShown, PotAwarded, UncalledBetReturned, HandEnded})
"""The events :meth:`_Run.apply` notes."""


def _command(action: Action, cards: tuple[Card, ...]) -> Command:
    verb = action.verb
    if verb == "dh":
        assert action.target is not None
        return DealCards(action.target, cards)
    if verb == "db":
        return DealBoard(cards)
    assert action.actor is not None
    seat = action.actor
    if verb == "cbr":
        assert action.amount is not None
        return BetOrRaise(seat, action.amount)
    if verb == "pb":
        return BringIn(seat)
    if verb == "cc":
        return CheckOrCall(seat)
    if verb == "f":
        return Fold(seat)
    if verb == "sd":
        return Discard(seat, cards)
    if verb == "sm":
        return ShowHand(seat) if (action.written or action.show_dealt) else MuckHand(seat)
    raise UnsupportedHistory(f"{action.text!r}: no command for {verb!r}")


@dataclass(frozen=True, slots=True)
class HandReplay:
    """What a replay found: the first :class:`Difference` (``None``: the hand replays), and when the hand
    ended, the ``stacks`` after it and the chips each player ``won`` from the pots (both in PHH order,
    whole chips of the hand: the file's amounts × ``10**decimals``)."""

    difference: Difference | None
    stacks: tuple[int, ...] | None
    won: tuple[int, ...] | None


def replay_hand(history: HandHistory, number: int = 1) -> Difference | None:
    """Replay one standard hand through its game (see the module doc): the first :class:`Difference`
    (``hand`` = ``number``; ``action`` 0 the start, 1-based the file's action, ``len + 1`` the end) or
    ``None``. Raises :class:`UnsupportedHistory` (with :class:`UnknownGame`'s message for a variant no game
    is registered under)."""
    return _replay_twice(history, number, [])


def replay_standard(history: HandHistory, number: int = 1) -> HandReplay:
    """:func:`replay_hand` with the hand's outcome (:class:`HandReplay`). Raises
    :class:`UnsupportedHistory`."""
    runs: list[_Run] = []
    difference = _replay_twice(history, number, runs)
    ended = runs[0].ended if runs else None
    if ended is None:
        return HandReplay(difference, None, None)
    final = dict(ended.stacks)
    seats = range(history.player_count)
    return HandReplay(
        difference, tuple(final.get(s, 0) for s in seats), tuple(runs[0].won.get(s, 0) for s in seats)
    )


def _replay_twice(history: HandHistory, number: int, runs: list[_Run]) -> Difference | None:
    """:func:`_replay` on the fast path (one state changed in place, :class:`InPlaceRun`) for a core game;
    again command by command through the game's ``apply`` if a command is refused on the fast path or the
    file has actions meant to be refused (``# !illegal``), so that a refusal and its message are exactly
    the decider's on an unchanged state."""
    if not any(map(_ILLEGAL, history.actions)):
        try:
            return _replay(history, number, runs, fast=True)
        except _Spoilt:
            runs.clear()
    return _replay(history, number, runs, fast=False)


def _replay(history: HandHistory, number: int, runs: list[_Run], fast: bool) -> Difference | None:
    try:
        game = find_game(history.variant)
    except UnknownGame as error:
        raise UnsupportedHistory(str(error)) from None
    spec: GameSpec | None = getattr(game, "spec", None)
    n = history.player_count
    forced, posts = forced_bets(history)

    def diff(action: int, text: str, expected: str, actual: str) -> Difference:
        return Difference(number, action, text, expected, actual)

    if _invito_game(spec):  # Telesina: the antes are the invito (IT-ANTE-1), the minimum bet too
        forced = ForcedBets(invito=forced.ante or history.min_bet or (history.small_bet or 0))
    try:
        config = game.table_config(
            seats=n, tournament=False, forced=forced, action_time_ms=30_000, time_bank_ms=0
        )
        if spec is not None and spec.options_hook is not None:
            config = replace(config, options=game_options(history))
        state = game.initial_state(config)
    except ValueError as error:
        raise UnsupportedHistory(f"{game.name} cannot seat this hand: {error}") from None
    seating = list(enumerate(zip(_names(history), history.starting_stacks, strict=True)))
    if all(type(stack) is int and stack > 0 for _, (_, stack) in seating):
        # seated in one step: the names are distinct (_names) and the stacks whole and positive, so each
        # SeatPlayer would be accepted and emit exactly this PlayerSeated (a command each costs 4 µs)
        if type(state) is CoreState and getattr(game, "applies_core_rules", False):
            state = seat_players(state, [(seat, name, stack) for seat, (name, stack) in seating])
        else:
            for seat, (name, stack) in seating:
                state = game.evolve(state, PlayerSeated(seat, name, stack))
        seating = []
    core = getattr(game, "applies_core_rules", False)  # its apply is the core's own (CoreGame)
    run = _Run(game, state, fast=InPlaceRun(spec, state) if fast and core and spec is not None else None)
    runs.append(run)
    try:
        for seat, (name, stack) in seating:  # stacks the decider refuses: its reason in the difference
            run.apply(SeatPlayer(seat, name, stack))
        run.apply(StartHand(button=n - 1, hand_id=history.hand_id, posts=posts))
    except IllegalAction as error:
        return diff(0, "", "the hand to start", f"refused: {error}")
    cards = _Cards.scan(history)
    deck_cards = game.deck(n).cards if spec is not None and spec.deck_hook is not None else None
    pending: list[tuple[int, Action]] = []  # shows the engine has not asked for yet
    used_update = cards.used.update

    def settle() -> Difference | None:
        """Answer every show-or-muck the engine asks for, from the pending shows or by default; check the
        shows the engine made against the file's cards."""
        while True:
            for index, action in list(pending):
                seat = action.actor
                assert seat is not None
                if seat in run.shown:
                    pending.remove((index, action))
                    problem = _check_show(action, run.holding(seat))
                    if problem is not None:
                        return diff(index, action.text, f"p{seat + 1} to hold these cards", problem)
            seat = run.showdown_seat()
            if seat is None:
                return None
            match = next(((i, a) for i, a in pending if a.actor == seat), None)
            if match is not None:
                pending.remove(match)
                index, action = match
                command: Command = _command(action, ())
            else:
                index, action = len(history.actions) + 1, Action("", seat, "sm")
                known = seat in cards.holes and not _has_unknown(history, seat)
                command = ShowHand(seat) if known else MuckHand(seat)
            try:
                run.apply(command)
            except IllegalAction as error:
                return diff(index, action.text, "the show to be accepted", f"refused: {error}")
            if isinstance(command, ShowHand) and action.text:
                problem = _check_show(action, run.holding(seat))
                if problem is not None:
                    return diff(index, action.text, f"p{seat + 1} to hold these cards", problem)

    def drawing(seat: int) -> bool:
        """Whether ``seat`` is asked to discard or stand pat now (a draw street, FD-1)."""
        return any(a.kind in ("discard", "stand_pat", "turn_up") for a in game.legal_actions(run.state, seat))

    def repair(action: Action) -> None:
        """A player the file skips checks when free, else folds (PokerKit's repair of such files): the
        file's next action belongs to someone else, or deals while a player is to act."""
        for _ in range(n):
            hand = run.state.hand
            if hand is None or hand.showdown or hand.to_act is None or hand.to_act == action.actor:
                return
            seat = int(hand.to_act)
            if drawing(seat):
                return
            free = hand.round_bets[seat] >= hand.current_bet
            run.apply(CheckOrCall(seat) if free else Fold(seat))

    deals: list[tuple[int, Action, tuple[Card, ...]]] = []

    def deal_deferred() -> Difference | None:
        """Deal the replacements written before the other players drew, once the dealer is due."""
        while deals and run.state.hand is not None and run.state.hand.to_act is None:
            index, action, dealt = deals.pop(0)
            try:
                run.apply(_command(action, dealt))
            except IllegalAction as error:
                return diff(index, action.text, "the action to be accepted", f"refused: {error}")
        return None

    ordered = _replacements_after_discards(history.actions)
    # a street's named hole cards (one ``d dh`` a player) dealt in one step on the fast path
    lean = run.fast is not None and spec is not None and spec.seat_value_hook is None
    streets = _deal_runs(ordered) if lean else {}
    skip = 0
    for position, (index, action) in enumerate(ordered):
        if skip:
            skip -= 1
            continue
        verb = action.verb
        if verb == "":
            continue
        group = streets.get(position) if not pending and not deals else None
        if group is not None:
            assert spec is not None
            due = street_due(spec, run.state)
            if due is not None and len(group) <= len(due):
                # what the loop below does deal by deal (nobody to act: no show, repair nor draw to
                # settle; no action meant to be refused on the fast path), its cards filled in order
                for (_, deal), (seat, hidden, shown) in zip(group, due, strict=False):
                    if deal.target != seat or len(deal.written) != hidden + shown:
                        break
                else:
                    commands = []
                    for (_, deal), (seat, _, _) in zip(group, due, strict=False):
                        dealt = deal.cards
                        if len(dealt) == len(deal.written):
                            used_update(map(_CODE, dealt))
                        else:
                            dealt = cards.fill(spec, seat, deal.written, dealt, deck_cards)
                        commands.append(DealCards(seat, dealt))
                    run.deal_street(commands)
                    skip = len(group) - 1
                    continue
        hand = run.state.hand
        if pending or (hand is not None and hand.showdown and hand.to_act is not None):
            problem = settle()  # a show or muck is due (else settle has nothing to do)
            if problem is not None:
                return problem
        if verb == "sm":
            if run.ended is None:
                pending.append((index, action))
            elif action.actor in run.shown:  # the engine showed it: the file's cards must be those
                wrong = _check_show(action, run.holding(action.actor))
                if wrong is not None:
                    return diff(index, action.text, f"p{action.actor + 1} to hold these cards", wrong)
            continue  # a show after an uncontested hand (a winner showing) changes nothing
        if verb == "sd":  # the discarded cards are the player's: unknown ones from its hand
            assert action.actor is not None
            dealt = _discards(action.written, run.holding(action.actor))
        elif verb == "dh" or verb == "db":
            dealt = action.cards
            if len(dealt) == len(action.written):  # every card known (the usual case): fill's first test
                used_update(map(_CODE, dealt))
            else:
                target = action.target if verb == "dh" else -1
                dealt = cards.fill(
                    spec,
                    target if target is not None else -1,
                    action.written,
                    action.cards,
                    deck_cards,
                    run.state.hand,
                )
        elif verb == "tu":  # TL-DEAL-2: the card turned up, as its index among the down cards
            assert action.actor is not None
            hand = run.state.hand
            down = () if hand is None else hand.down[action.actor]
            if len(action.cards) != 1 or action.cards[0] not in down:
                return diff(index, action.text, f"p{action.actor + 1} to hold this card face down", "no")
            try:
                repair(action)
                run.apply(TurnUp(action.actor, down.index(action.cards[0])))
            except IllegalAction as error:
                return diff(index, action.text, "the action to be accepted", f"refused: {error}")
            continue
        else:
            dealt = ()
        hand = run.state.hand
        to_act = None if hand is None else hand.to_act
        if verb == "dh" and to_act is not None and drawing(to_act):
            deals.append((index, action, dealt))  # a draw's replacement written before the others draw
            continue
        try:
            # an action to be refused repairs nothing; nobody to act, or the actor to act: nothing to repair
            if not action.illegal and to_act is not None and to_act != action.actor:
                repair(action)
            run.apply(_command(action, dealt))
        except IllegalAction as error:
            if action.illegal:
                continue
            return diff(index, action.text, "the action to be accepted", f"refused: {error}")
        if action.illegal:
            return diff(index, action.text, "the action to be refused (# !illegal)", "accepted")
        if deals:
            problem = deal_deferred()
            if problem is not None:
                return problem
    problem = deal_deferred() or settle()
    if problem is not None:
        return problem
    end = len(history.actions) + 1
    # shows left pending are shows the rules never asked for (the hand was settled without them): the
    # stacks below tell whether the engine and the file agree
    if run.ended is None:
        hand = run.state.hand
        waiting = f"p{hand.to_act + 1} to act" if hand is not None and hand.to_act is not None else "a deal"
        return diff(end, "", "the hand to be over", f"still waiting for {waiting}")
    final = dict(run.ended.stacks)
    stacks = tuple(final.get(seat, 0) for seat in range(n))
    k = history.decimals
    if history.finishing_stacks is not None and stacks != history.finishing_stacks:
        expected = f"finishing stacks {_listed(history.finishing_stacks, k)}"
        return diff(end, "", expected, _listed(stacks, k))
    if history.winnings is not None and history.finishing_stacks is None:
        won = tuple(run.won.get(seat, 0) for seat in range(n))
        back = tuple(won[seat] + run.returned.get(seat, 0) for seat in range(n))
        # the same winners, none winning more than the pot we pay them (with the uncalled bet, which some
        # files count in the winnings): sites rake pots, so the file's winnings may be less
        raked = [w > 0 for w in history.winnings] == [w > 0 for w in won] and all(
            file <= ours for file, ours in zip(history.winnings, back, strict=True)
        )
        if not raked:
            return diff(end, "", f"winnings {_listed(history.winnings, k)} (after rake)", _listed(won, k))
    return None


def _deal_runs(ordered: list[tuple[int, Action]]) -> dict[int, list[tuple[int, Action]]]:
    """The runs of two or more ``d dh`` in a row in ``ordered`` (a street's hole cards, one deal a
    player), by the position of their first."""
    runs: dict[int, list[tuple[int, Action]]] = {}
    start = -1
    for position, item in enumerate(ordered):
        if item[1].verb == "dh" and item[1].target is not None:
            if start < 0:
                start = position
            continue
        if start >= 0 and position - start > 1:
            runs[start] = ordered[start:position]
        start = -1
    if start >= 0 and len(ordered) - start > 1:
        runs[start] = ordered[start:]
    return runs


def _replacements_after_discards(actions: Sequence[Action]) -> list[tuple[int, Action]]:
    """The file's actions with their 1-based indices, in the order our dealer plays a draw (FD-1): each
    player's replacements right after their discard. PHH files (and PokerKit) write every discard of the
    draw first, then every replacement (``p1 sd …``, ``p2 sd …``, ``d dh p1 …``, ``d dh p2 …``): each such
    ``dh`` is moved to just after its player's discard."""
    indexed = list(enumerate(actions, 1))
    if "sd" not in map(_VERB, actions):  # no draw: nothing to move
        return indexed
    result: list[tuple[int, Action]] = []
    i = 0
    while i < len(indexed):
        j = i
        while j < len(indexed) and indexed[j][1].verb == "sd":
            j += 1
        k = j
        while k < len(indexed) and indexed[k][1].verb == "dh":
            k += 1
        discards, deals = indexed[i:j], indexed[j:k]
        if len(discards) < 2 or not deals:
            result.append(indexed[i])
            i += 1
            continue
        for discard in discards:
            result.append(discard)
            deal = next((d for d in deals if d[1].target == discard[1].actor), None)
            if deal is not None:
                deals.remove(deal)
                result.append(deal)
        result.extend(deals)
        i = k
    return result


def _discards(written: tuple[Card | None, ...], holding: tuple[Card, ...]) -> tuple[Card, ...]:
    """The cards a ``sd`` discards: the known ones, and for each unknown ``??`` a card of the player's hand
    the file does not name (the last ones dealt first)."""
    spare = [card for card in holding if card not in written]
    result: list[Card] = []
    for card in written:
        if card is not None:
            result.append(card)
        elif spare:
            result.append(spare.pop())
    return tuple(result)


def _listed(chips: Sequence[int], decimals: int) -> str:
    """Amounts in the file's units, as PHH writes them: ``[0, 17.55, 200]``."""
    return "[" + ", ".join(format_amount(c, decimals) for c in chips) + "]"


def _has_unknown(history: HandHistory, seat: int) -> bool:
    return any(
        action.verb == "dh" and action.target == seat and None in action.written for action in history.actions
    )


def _check_show(action: Action, shown: tuple[Card, ...]) -> str | None:
    """``None`` when the file's show agrees with the cards the engine turned up (unknown cards agree with
    anything), else the engine's cards."""
    written = action.written
    if not written:
        return None
    known = {card for card in written if card is not None}
    if len(written) != len(shown) or not known <= set(shown):
        return format_cards(shown)
    return None


# --- export -----------------------------------------------------------------------------------------------


def _cards_text(cards: Iterable[Card]) -> str:
    return format_cards(cards)


def export_hand(before: CoreState, events: Sequence[Event], variant: str) -> HandHistory:
    """The standard PHH of one hand the game ``variant`` (its code, :meth:`CoreGame.export_hand` passes it)
    played: ``before`` the table state just before its :class:`HandStarted`, ``events`` the hand's events
    from :class:`HandStarted` to :class:`HandEnded`.

    Players ``p1`` … ``pN`` are the seats dealt in clockwise from the button's left (the button last); the
    forced bets become PHH arrays (``antes``: equal antes, or the big blind's ante at index 1;
    ``blinds_or_straddles``: ``[small, big, straddle, 0, …]``, whose reversal heads-up PHH readers apply);
    ``seats`` (1-based) and ``seat_count`` are written; a ring player's entry outside the blinds (CASH-1,
    CASH-2: a live big blind, a dead small blind) in the user-defined keys of :data:`ENTRY_KEYS`. Raises
    ``ValueError`` if the events hold no complete hand."""
    started: HandStarted | None = None
    ended: HandEnded | None = None
    texts: list[str] = []
    p: dict[int, str] = {}
    held: dict[int, list[Card]] = {}
    straddler: int | None = None
    entries: dict[tuple[int, str], int] = {}  # CASH-1, CASH-2: (seat, kind) -> chips posted on entering
    drawing = False  # a draw street (FD-1): its replacements are written after every discard
    replacements: list[str] = []
    shows: list[int] = []  # hands turned up, written once the cards still to come are dealt

    def flush_shows() -> None:
        """Write the pending shows: PHH shows every card held, down and up (stud). A hand turned up at an
        all-in (TDA 16) is written after the rest of the deal, with every card (a stud hand's 7th card too:
        PokerKit loses the pot of a hand shown before its last down card)"""
        texts.extend(f"{p[seat]} sm {_cards_text(held.get(seat, ()))}" for seat in shows)
        shows.clear()

    for event in events:
        if isinstance(event, HandStarted):
            started = event
            p = {seat: f"p{i + 1}" for i, seat in enumerate(event.dealt)}
            continue
        if started is None or ended is not None:
            continue
        if replacements and not isinstance(event, CardsDealt | Discarded | TurnStarted | StockReshuffled):
            texts.extend(replacements)  # as PHH and PokerKit have it: every discard, then every deal
            replacements.clear()
        if shows and isinstance(
            event, Checked | Called | BetPlaced | Raised | Folded | Discarded | HandMucked
        ):
            flush_shows()
        if isinstance(event, StreetStarted):
            drawing = event.draw
        elif isinstance(event, CardsDealt):
            held.setdefault(event.seat, []).extend((*event.down, *event.up))
            text = f"d dh {p[event.seat]} {_cards_text((*event.down, *event.up))}"
            (replacements if drawing else texts).append(text)
        elif isinstance(event, BoardDealt):
            texts.append(f"d db {_cards_text(event.cards)}")
        elif isinstance(event, CardTurnedUp):  # TL-DEAL-2
            note = " # automatic" if event.automatic else ""
            texts.append(f"{p[event.seat]} tu {_cards_text((event.card,))}{note}")
        elif isinstance(event, ForcedBetPosted) and event.kind == "bring_in":
            texts.append(f"{p[event.seat]} pb")
        elif isinstance(event, ForcedBetPosted) and event.kind == "straddle":
            straddler = event.seat
        elif isinstance(event, ForcedBetPosted) and event.kind in ("posted_big_blind", "dead_small_blind"):
            entries[event.seat, event.kind] = event.amount
        elif isinstance(event, Checked | Called):
            texts.append(f"{p[event.seat]} cc")
        elif isinstance(event, BetPlaced | Raised):
            texts.append(f"{p[event.seat]} cbr {event.to}")
        elif isinstance(event, Folded):
            texts.append(f"{p[event.seat]} f")
        elif isinstance(event, Discarded):
            held[event.seat] = [c for c in held.get(event.seat, ()) if c not in event.cards]
            texts.append(f"{p[event.seat]} sd {_cards_text(event.cards)}".rstrip())
        elif isinstance(event, HandShown):
            shows.append(event.seat)
        elif isinstance(event, HandMucked):
            texts.append(f"{p[event.seat]} sm")
        elif isinstance(event, HandEnded):
            ended = event
    texts.extend(replacements)
    flush_shows()
    if started is None or ended is None:
        raise ValueError("the events hold no complete hand")
    order = list(started.dealt)
    n = len(order)
    forced = started.forced
    game = find_game(variant)
    occupants = [before.seats[seat] for seat in order]
    names = tuple(o.player if o is not None else "" for o in occupants)
    position = {seat: index for index, seat in enumerate(order)}
    # heads-up PHH reverses the arrays: [small, big] means p1 (the big blind) posts big
    big_index = 1 if n == 2 else position.get(started.big_blind, 1)
    ante = forced.ante or forced.invito  # Telesina's invito is every player's ante (IT-ANTE-1)
    antes = [ante] * n if ante else [0] * n
    if forced.big_blind_ante:
        antes[big_index] += forced.big_blind_ante
    blinds: list[int] = []
    if forced.big_blind or forced.small_blind:
        blinds = [0] * n
        if n == 2:
            blinds = [forced.small_blind, forced.big_blind]
        else:  # by position: a dead small blind (G-BTN-1) leaves the big blind on p1, [big, 0, …]
            if started.small_blind in position and started.small_blind != started.big_blind:
                blinds[position[started.small_blind]] = forced.small_blind
            blinds[big_index] = forced.big_blind
            if forced.straddle and straddler is not None:
                blinds[position[straddler]] = forced.straddle
    fixed = game.limit == "FL"
    small_bet = (forced.small_bet or forced.big_blind or forced.invito) if fixed else None
    big_bet = (forced.big_bet or (forced.invito or 2 * (small_bet or 0))) if fixed else None
    options = dict(started.options)
    metadata: tuple[tuple[str, Any], ...] = tuple(
        (key, options[name]) for key, name in TELESINA_KEYS if name in options
    )
    if entries:  # CASH-1, CASH-2: the ring entries outside the blinds, per player
        metadata += tuple(
            (key, [entries.get((seat, kind), 0) for seat in order]) for key, kind, _ in ENTRY_KEYS
        )
    stacks = dict(ended.stacks)
    return HandHistory(
        variant=game.code,
        players=names,
        antes=tuple(antes),
        starting_stacks=tuple(o.stack if o is not None else 0 for o in occupants),
        actions=tuple(parse_standard_action(text, n) for text in texts),
        min_bet=0 if fixed else (forced.big_blind or forced.small_bet or forced.invito),
        finishing_stacks=tuple(stacks.get(seat, 0) for seat in order),
        hand_id=started.hand_id,
        seats=tuple(seat + 1 for seat in order),
        seat_count=len(before.seats),
        blinds_or_straddles=tuple(blinds),
        bring_in=forced.bring_in or None,
        small_bet=small_bet,
        big_bet=big_bet,
        ante_trimming_status=False,
        metadata=metadata,
    )
