"""Audit of a table stream: the provably fair shuffle (``docs/rules-decisions.md``, "Provably fair shuffle").

:func:`verify_table_stream` takes the recorded events of one ``table-<id>`` stream (version order) and
checks, for every hand that has ended:

1. its ``HandStarted`` carries a seed commitment and names a known shuffle algorithm
   (:data:`engine.shuffle.ALGORITHM`);
2. a ``SeedRevealed`` of that hand follows its ``HandEnded`` (only ``PlayerEliminated`` between them), and no
   seed is revealed anywhere else;
3. ``sha256(seed)`` equals the commitment;
4. ``shuffle(game.deck(players), seed)`` is the recorded deck (the game's deck for the seats dealt in, as
   :func:`tables.service.start_command` shuffles it: the Italian deck of IT-DECK-1);
5. every card dealt — the initial five, the cambio replacements, and cards after a reshuffle of the
   discards — is the top of the stock in order, where the stock is the recomputed deck cut to the deck in
   play when the deal begins (IT-DECK-1, the players still in after the adeguamento), and each reshuffled
   stock is exactly the discards of the players already served other than the one being dealt to, in the
   order the game's ``reshuffle_order`` derives from the deck (IT-CAMBIO-3); every discard is
   a card the player held; no card is dealt twice except through a reshuffle.

The game is the stream's (its ``TableOpened``, then each ``TableGameChanged`` of a mixed-game table),
reached through the registry; events are told apart by
their class names (the game's ``events``: ``HandStarted``, ``CardsDealt``, ``Discarded``…).

A hand still in progress at the end of the events (no ``HandEnded``) is skipped, not a failure: its seed
is still secret. Each failing hand gives one :class:`Problem`, for its first failing event; the result is
empty when everything checks. Pure: no database access (read the stream with
:func:`eventstore.store.read_stream`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card
from engine.codec import CodecError, from_data
from engine.core import Game, find_game
from engine.shuffle import ALGORITHM, shuffle
from eventstore.store import RecordedEvent
from tables import service
from tables.service import DEFAULT_GAME

__all__ = ["ALGORITHMS", "Problem", "verify_table_stream"]

ALGORITHMS: dict[str, Callable[[Sequence[Card], bytes], tuple[Card, ...]]] = {ALGORITHM: shuffle}
"""Shuffle algorithms an auditor can recompute, by the name ``HandStarted.shuffle_algorithm`` records."""

_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class Problem:
    """A failed check: the event (``stream_id``, ``version``) where it shows and what is wrong."""

    stream_id: str
    version: int
    message: str


class _Failed(Exception):
    def __init__(self, version: int, message: str) -> None:
        super().__init__(message)
        self.version = version
        self.message = message


@dataclass
class _Hand:
    """The events of one hand, from its ``HandStarted`` to its ``SeedRevealed`` (or the stream's end)."""

    started: Any  # the game's HandStarted
    version: int
    rules: Any = None  # the game the hand is played in
    events: list[tuple[int, object]] = field(default_factory=list)  # (version, engine event) in the hand
    ended: int | None = None  # version of HandEnded
    revealed: tuple[int, Any] | None = None  # (version, the game's SeedRevealed)
    after_end: list[tuple[int, str]] = field(default_factory=list)  # (version, type) after HandEnded


def verify_table_stream(
    events: Sequence[RecordedEvent], game: str | None = None, decoded: Sequence[Any] | None = None
) -> list[Problem]:
    """Check the shuffle of every finished hand of one table stream (see the module doc).

    ``events``: the stream's recorded events in version order (the whole stream, or from a hand's start).
    ``game``: the table's game code when ``events`` do not start with its ``TableOpened`` (``None``: poker
    all'italiana, pot limit). Returns the problems, one per failing hand (empty: the stream checks). Never
    raises for bad data: a malformed event is a problem. ``decoded``: for each event, the engine event a
    fold of the stream decoded from it (:data:`audit.hands.Steps`; ``None`` for the table's own), taken
    instead of decoding the event again when it is of the class this check reads the event as.
    """
    problems: list[Problem] = []
    stream = events[0].stream_id if events else ""
    hand: _Hand | None = None
    try:
        rules = find_game(game or DEFAULT_GAME)
    except ValueError as error:
        return [Problem(stream, events[0].version if events else 0, f"unknown game: {error}")]
    table_id = int(stream.removeprefix("table-")) if stream.removeprefix("table-").isdigit() else 0
    table = None  # the table folded over its own events only (not the game's): it knows the game in force

    def close(current: _Hand | None) -> None:
        if current is None or current.ended is None:
            return  # no hand, or a hand in progress: its seed is still secret
        try:
            _verify_hand(current.rules or rules, current)
        except _Failed as failed:
            problems.append(Problem(stream, failed.version, failed.message))

    for index, recorded in enumerate(events):
        if recorded.type == "TableGameChanged":  # mixed games: the events after it are the new game's
            close(hand)
            hand = None
            try:
                rules = find_game(str(recorded.data.get("game")))
                if table is not None:  # the table's own fold follows too (a giro pazzo's events come next)
                    table = service.fold(table, [recorded], table_id)
            except (KeyError, TypeError, ValueError) as error:
                return [*problems, Problem(stream, recorded.version, f"unknown game: {error}")]
            continue
        cls = rules.events.get(recorded.type)
        if cls is None:  # the table's own event (opened, closed, its game changed): the game may change
            try:
                table = service.fold(table, [recorded], table_id)
            except (KeyError, TypeError, ValueError) as error:
                message = f"v{recorded.version}: the table's {recorded.type} cannot be read: {error}"
                problems.append(Problem(stream, recorded.version, message))
                return problems
            if table is not None:
                rules = table.rules
            continue
        known = decoded[index] if decoded is not None else None
        try:
            event: object = known if type(known) is cls else from_data(cls, recorded.data)
        except CodecError as error:
            message = f"v{recorded.version}: unreadable event: {error}"
            problems.append(Problem(stream, recorded.version, message))
            continue
        kind = type(event).__name__
        if kind == "HandStarted":
            close(hand)
            hand = _Hand(event, recorded.version, rules)
            continue
        if kind == "SeedRevealed":
            if hand is not None and hand.ended is not None and hand.revealed is None:
                hand.revealed = (recorded.version, event)
            else:
                when = "before its hand ended" if hand is not None and hand.ended is None else "with no hand"
                problems.append(
                    Problem(stream, recorded.version, f"v{recorded.version}: seed revealed {when}")
                )
            continue
        if hand is None:
            continue
        if hand.ended is not None:
            if hand.revealed is None:
                hand.after_end.append((recorded.version, recorded.type))
            continue
        hand.events.append((recorded.version, event))
        if kind == "HandEnded":
            hand.ended = recorded.version
    close(hand)
    return problems


def _verify_hand(game: Game, hand: _Hand) -> None:
    """Raise :class:`_Failed` at the first failing check of a finished hand."""
    started, number = hand.started, hand.started.number
    at_start = f"v{hand.version}: hand {number}"
    if not started.commitment:
        raise _Failed(hand.version, f"{at_start} has no seed commitment")
    algorithm = ALGORITHMS.get(started.shuffle_algorithm)
    if algorithm is None:
        raise _Failed(hand.version, f"{at_start}: unknown shuffle algorithm {started.shuffle_algorithm!r}")
    assert hand.ended is not None
    for version, kind in hand.after_end:
        if kind != "PlayerEliminated":
            raise _Failed(version, f"v{version}: {kind} after hand {number} ended, before its seed")
    if hand.revealed is None:
        raise _Failed(hand.ended, f"v{hand.ended}: hand {number} ended without revealing its seed")
    version, revealed = hand.revealed
    at_reveal = f"v{version}: hand {number}"
    if revealed.number != number:
        raise _Failed(version, f"{at_reveal}: the revealed seed is for hand {revealed.number}")
    if len(revealed.seed) != 64 or not set(revealed.seed) <= _HEX:
        raise _Failed(version, f"{at_reveal}: the revealed seed is not 64 lowercase hex digits")
    seed = bytes.fromhex(revealed.seed)
    digest = hashlib.sha256(seed).hexdigest()
    if digest != started.commitment:
        raise _Failed(
            version,
            f"{at_reveal}: the seed does not match the commitment of HandStarted v{hand.version} "
            f"(sha256(seed) = {digest}, committed {started.commitment})",
        )
    deck = algorithm(game.deck(len(started.dealt)).cards, seed)
    if deck != started.deck:
        raise _Failed(hand.version, f"{at_start}: the recorded deck is not the shuffle of the revealed seed")
    _verify_cards(game, hand, deck)


def _verify_core_cards(game: Game, hand: _Hand, deck: tuple[Card, ...]) -> None:
    """The card flow of a core game's hand (``engine.core``: hold'em, Omaha, draw, stud): every
    ``CardsDealt`` (burn, down and up cards) and ``BoardDealt`` (burn and board cards) takes the top of the
    stock in order, the stock being the recomputed ``deck`` (TH-1's burns included); every discard is a
    card the player held; a ``StockReshuffled`` (FD-1's draw, ST-1's 7th street) reshuffles only cards out
    of play or left in the stock — never the discards of the player served next — and its stock is what is
    left of the old one followed by the pile in the order the game's ``reshuffle_order`` derives from the
    deck."""
    stock = deck
    held: dict[int, set[Card]] = {}
    out: set[Card] = set()  # burnt and discarded cards not dealt again
    last_discard: dict[int, tuple[Card, ...]] = {}
    reshuffles = 0
    for index, (version, event) in enumerate(hand.events):
        kind = type(event).__name__
        where = f"v{version}: hand {hand.started.number}"
        if kind == "Discarded":
            cards = tuple(event.cards)
            if not set(cards) <= held.get(event.seat, set()):
                raise _Failed(version, f"{where}: seat {event.seat} discarded cards it does not hold")
            held[event.seat] -= set(cards)
            out |= set(cards)
            last_discard[event.seat] = cards
            continue
        if kind == "StockReshuffled":
            pile = tuple(event.pile)
            gone = set(pile)
            if len(gone) != len(pile) or not gone <= out | set(stock):
                raise _Failed(version, f"{where}: the reshuffled cards are not out of play (FD-1, ST-1)")
            served = next(
                (e.seat for _, e in hand.events[index + 1 :] if type(e).__name__ == "CardsDealt"), None
            )
            if served is not None and gone & set(last_discard.get(served, ())):
                raise _Failed(version, f"{where}: seat {served}'s own discards were reshuffled for it (FD-1)")
            reshuffles += 1
            expected_stock = (
                *(card for card in stock if card not in gone),
                *game.reshuffle_order(deck, pile, reshuffles),
            )
            if tuple(event.stock) != expected_stock:
                raise _Failed(
                    version, f"{where}: the reshuffle {reshuffles} is not the order derived from the seed"
                )
            out -= gone
            stock = expected_stock
            continue
        if kind == "CardsDealt":
            cards = (*event.burn, *event.down, *event.up)
            who = f"seat {event.seat}"
            held.setdefault(event.seat, set()).update((*event.down, *event.up))
        elif kind == "BoardDealt":
            cards = (*event.burn, *event.cards)
            who = "the board"
        else:
            continue
        count = len(cards)
        if cards != stock[:count]:
            expected = " ".join(map(str, stock[:count])) or "nothing (the stock is empty)"
            got = " ".join(map(str, cards))
            raise _Failed(version, f"{where}: {who} got {got}, top of the stock: {expected}")
        out |= set(event.burn)
        stock = stock[count:]


def _verify_cards(game: Game, hand: _Hand, deck: tuple[Card, ...]) -> None:
    """Replay the card flow of the hand against the recomputed ``deck`` (see the module doc, point 5)."""
    started = hand.started
    if not hasattr(started, "adeguamento"):
        _verify_core_cards(game, hand, deck)
        return
    in_hand = set(started.dealt) - {seat for seat, _ in started.adeguamento}
    stock: tuple[Card, ...] = deck
    held: dict[int, set[Card]] = {seat: set() for seat in started.dealt}
    discards: dict[int, tuple[Card, ...]] = {}
    reshuffled: set[Card] = set()
    dealt_once: set[Card] = set()
    redeal: set[Card] = set()  # reshuffled cards not yet dealt again
    reshuffles = 0
    events = hand.events
    for index, (version, event) in enumerate(events):
        where = f"v{version}: hand {started.number}"
        kind = type(event).__name__
        if kind == "AdeguamentoPaid":
            in_hand.add(event.seat)
        elif kind == "PhaseStarted" and getattr(event.phase, "value", event.phase) == "deal":
            lowest = 11 - len(in_hand)  # IT-DECK-1: the deck for the players still in
            stock = tuple(card for card in deck if card.rank >= lowest)
        elif kind == "CardsDealt":
            count = len(event.cards)
            if event.cards != stock[:count]:
                expected = " ".join(map(str, stock[:count])) or "nothing (the stock is empty)"
                got = " ".join(map(str, event.cards))
                raise _Failed(version, f"{where}: seat {event.seat} got {got}, top of the stock: {expected}")
            for card in event.cards:
                if card in dealt_once and card not in redeal:
                    raise _Failed(version, f"{where}: {card} dealt twice without a reshuffle")
                dealt_once.add(card)
                redeal.discard(card)
            stock = stock[count:]
            held.setdefault(event.seat, set()).update(event.cards)
        elif kind == "Discarded":
            if not set(event.cards) <= held.get(event.seat, set()):
                raise _Failed(version, f"{where}: seat {event.seat} discarded cards it does not hold")
            held[event.seat] -= set(event.cards)
            discards[event.seat] = event.cards
        elif kind == "DiscardsReshuffled":
            if stock:
                raise _Failed(version, f"{where}: discards reshuffled while the stock still holds cards")
            receiver = next(
                (e.seat for _, e in events[index + 1 :] if type(e).__name__ == "CardsDealt"), None
            )
            pile = {
                card
                for seat, cards in discards.items()
                if seat != receiver
                for card in cards
                if card not in reshuffled
            }
            if set(event.stock) != pile or len(event.stock) != len(pile):
                message = f"{where}: the reshuffled stock is not the served players' discards (IT-CAMBIO-3)"
                raise _Failed(version, message)
            reshuffles += 1
            expected_order = game.reshuffle_order(deck, pile, reshuffles)
            if event.stock != expected_order:
                raise _Failed(
                    version, f"{where}: the reshuffle {reshuffles} is not the order derived from the seed"
                )
            stock = event.stock
            reshuffled |= pile
            redeal |= pile
