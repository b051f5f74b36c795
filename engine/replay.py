"""Replay hand histories: ``python -m engine.replay FILE...``.

Standard PHH hands (every variant but ``NIT``/``PIT``/``FIT``: ``NT``, ``PO``, ``F7S``, …) are replayed by
their game of the registry, each hand complete in itself (:mod:`engine.core.history`: amounts with
decimals in exact whole chips, unknown cards, shows in the file's order); a variant no game is registered
under, or forced bets our games do not play, is a difference at the hand's start. The rest of this
docstring is about poker all'italiana, replayed through the Italian decider.

Every action of every hand is applied as a command. An action marked ``# !illegal`` must be refused
(and changes nothing); any other must be accepted. At the start of each hand the table the decider has
reached must match the file (players in order from the dealer's left, starting stacks, carried pot,
opening requirement, antes), and at the end the finishing stacks must match. The first difference of a
file is printed as ``FILE: hand H, action A (TEXT): expected …, got …``.

A hand carrying PHH's ``table`` field (the service's exports write it on every hand) is complete in itself:
the table is set up from its own fields, like the first hand of a file, since seating changes between hands
(players moved in or out, tables of a tournament interleaved) are not written in PHH. A hand without it
continues the hand before it at the same table.

PHH leaves some steps implicit, and the replay supplies them: a deal while a blind bet is on offer means
the player said *dai carte*; a ``sm`` with the cards of a hand the rules already showed (IT-SHOW-1) is
taken as that show.

Poker cinese files (``variant = "CN"``, issue 20) are replayed by :mod:`engine.cinese.history`: each game's
arrangements are checked legal (CN-2, CN-3), the rows' tokens won as written (CN-4), and the games of a match
carry the tokens left and the points over (CN-5).

Exit status: 0 all files replay, 1 any difference, 2 a malformed file.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine import giro
from engine.cards import Card, Rank, format_cards
from engine.cinese import history as cinese_history
from engine.core.errors import IllegalAction as CoreIllegalAction
from engine.core.history import UnsupportedHistory, replay_hand
from engine.games.italian.errors import IllegalAction
from engine.games.italian.model import (
    AdeguamentoDeclined,
    BetOrRaise,
    BlindDeclined,
    Called,
    Checked,
    CheckOrCall,
    Command,
    DealCards,
    DeclineBlind,
    Discard,
    Discarded,
    Fold,
    Folded,
    HandMucked,
    HandShown,
    HandStarted,
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
from engine.games.italian.rules import apply, initial_state
from engine.phh import Action, Difference, HandHistory, MalformedHistory, hand_players, load_histories

__all__ = ["Difference", "main", "replay_file", "replay_histories", "table_for"]


def table_for(history: HandHistory, parol_hand_invito: bool = False) -> TableState:
    """A table set up for the first hand of a file (or a hand with a ``table`` field): seats in PHH order
    (``p1`` = seat 0), the dealer ``pN`` on the button, and the hand's carried pot, opening requirement and
    parol state.
    ``parol_hand_invito``: the table posts the invito in parol hands (IT-PAROL-3 option)."""
    n = len(history.players)
    invito = (
        history.invito if history.invito is not None else max(history.antes, default=0) or history.min_bet
    )
    config = TableConfig(
        seats=n,
        limit=history.limit,
        tournament=history.tournament,
        invito=invito,
        parol_hand_invito=parol_hand_invito,
    )
    seated = zip(history.players, history.starting_stacks, strict=True)
    state = initial_state(config, ((i, name, stack) for i, (name, stack) in enumerate(seated)))
    changes: dict[str, object] = {
        "button": n - 1,
        "carried": history.carried_pot,
        "opening": Rank.from_symbol(history.opening),
    }
    if history.parol_hand:
        owed = history.adeguamento or (0,) * n
        stake = max(owed)
        if history.parol_players:
            changes["parol_players"] = tuple(history.players.index(name) for name in history.parol_players)
        else:  # the file does not say: those who owe nothing stayed to the parol
            changes["parol_players"] = tuple(i for i in range(n) if owed[i] == 0)
        changes["parol_stake"] = stake
        changes["last_contributions"] = tuple((i, stake - owed[i]) for i in range(n))
    return replace(state, **changes)  # type: ignore[arg-type]


def _command(action: Action, seats: list[int]) -> Command:
    if action.verb == "dh":
        assert action.target is not None
        return DealCards(seats[action.target], action.cards)
    assert action.actor is not None
    seat = seats[action.actor]
    verb = action.verb
    if verb == "cbr":
        assert action.amount is not None
        return BetOrRaise(seat, action.amount)
    if verb == "cc":
        return CheckOrCall(seat)
    if verb == "f":
        return Fold(seat)
    if verb == "pa":
        return SayParol(seat)
    if verb == "pt":
        return Partecipate(seat)
    if verb == "dc":
        return DeclineBlind(seat)
    if verb == "sd":
        return Discard(seat, action.cards)
    if verb == "sm":
        return ShowHand(seat) if action.cards else MuckHand(seat)
    raise MalformedHistory("action", f"unknown verb {verb}")


_AUTOMATIC_VERBS: dict[type, str] = {
    Checked: "cc",
    Called: "cc",
    Folded: "f",
    Discarded: "sd",
    HandMucked: "sm",
    BlindDeclined: "dc",
    AdeguamentoDeclined: "f",
}


@dataclass
class _Memory:
    """What the engine already did by itself in this hand, for the file's actions that repeat it: hands
    the rules showed (IT-SHOW-1) and actions taken for a player in sit-out (IT-SIT-1)."""

    shown: dict[int, frozenset[Card]] = field(default_factory=dict)
    automatic: list[tuple[int, str, frozenset[Card]]] = field(default_factory=list)
    antes: tuple[tuple[int, int], ...] = ()


def _apply(state: TableState, command: Command, memory: _Memory | None = None) -> TableState:
    actor = getattr(command, "seat", None) if not isinstance(command, DealCards) else None
    state, events = apply(state, command)
    if memory is not None:
        for event in events:
            if isinstance(event, HandStarted):
                memory.antes = event.antes
            if isinstance(event, HandShown):
                memory.shown[event.seat] = frozenset(event.cards)
            verb = _AUTOMATIC_VERBS.get(type(event))
            if verb is None or getattr(event, "seat", None) == actor:
                continue
            if isinstance(event, AdeguamentoDeclined) and event.automatic:
                continue  # left out by the rules: hand histories do not write it
            seat: int = getattr(event, "seat")  # noqa: B009 - every event with a verb has a seat
            memory.automatic.append((seat, verb, frozenset(getattr(event, "cards", ()))))
    return state


def _stacks(state: TableState, seats: list[int]) -> tuple[int, ...]:
    return tuple(occupant.stack if (occupant := state.seats[s]) is not None else 0 for s in seats)


def _replay_hand(
    state: TableState, history: HandHistory, number: int, fresh: bool
) -> tuple[TableState, Difference | None]:
    """Replay hand ``number`` of the file on ``state``: a table just set up for it (``fresh``: the dealer is
    on the button already) or the table after the hand before."""

    def diff(action: int, text: str, expected: str, actual: str) -> tuple[TableState, Difference]:
        return state, Difference(number, action, text, expected, actual)

    n = len(state.seats)
    if fresh:
        button = state.button
    else:  # the button moves to the next player with chips (IT-FLOW-1, G-BTN-1)
        button = next(
            s
            for s in ((state.button + i) % n for i in range(1, n + 1))
            if (occupant := state.seats[s]) is not None and occupant.stack > 0
        )
    seats = hand_players(state, button)
    names = tuple(occupant.player for s in seats if (occupant := state.seats[s]) is not None)
    if names != history.players:
        return diff(0, "", f"players {list(history.players)}", f"{list(names)}")
    if _stacks(state, seats) != history.starting_stacks:
        return diff(
            0, "", f"starting stacks {list(history.starting_stacks)}", f"{list(_stacks(state, seats))}"
        )
    if state.carried != history.carried_pot:
        return diff(0, "", f"carried pot {history.carried_pot}", str(state.carried))
    if state.opening.symbol != history.opening:
        return diff(0, "", f"opening {history.opening}", state.opening.symbol)
    for seat, away in zip(seats, history.sitting_out or (False,) * len(seats), strict=True):
        occupant = state.seats[seat]
        if occupant is not None and occupant.sitting_out != away:
            state = _apply(state, SitOut(seat) if away else ReturnToPlay(seat))
    invito = history.invito if history.invito is not None else max(history.antes, default=0)
    start = StartHand(invito=invito or None, button=button if fresh else None, hand_id=history.hand_id)
    memory = _Memory()
    try:
        state = _apply(state, start, memory)
    except IllegalAction as error:
        return diff(0, "", "the hand to start", f"refused: {error.english}")
    posted = dict(memory.antes)
    antes = tuple(posted.get(s, 0) for s in seats)
    if antes != history.antes:
        return diff(0, "", f"antes {list(history.antes)}", f"{list(antes)}")
    checked_min_bet = False
    for index, action in enumerate(history.actions, 1):
        current = state.hand
        if (
            action.verb == "dh"
            and current is not None
            and current.phase is Phase.BLIND
            and current.to_act is not None
        ):
            state = _apply(state, DeclineBlind(current.to_act), memory)  # an implicit dai carte
        if action.actor is not None:
            seat = seats[action.actor]
            pending = next((item for item in memory.automatic if item[0] == seat), None)
            if pending is not None:  # the engine already acted for this player (sit-out, IT-SIT-1)
                memory.automatic.remove(pending)
                if (pending[1], pending[2]) != (action.verb, frozenset(action.cards)):
                    expected = f"p{action.actor + 1} to have acted automatically ({pending[1]})"
                    return diff(index, action.text, f"the same action as the engine's: {expected}", "another")
                continue
        if action.verb == "sm" and action.cards and action.actor is not None:
            already = memory.shown.get(seats[action.actor])
            if already is not None:  # the rules already showed this hand (IT-SHOW-1)
                if already != frozenset(action.cards):
                    ordered: list[Card] = sorted(already, key=lambda card: -card.code)
                    cards = format_cards(ordered)
                    return diff(index, action.text, f"p{action.actor + 1} to hold these cards", cards)
                continue
        try:
            after = _apply(state, _command(action, seats), memory)
        except IllegalAction as error:
            if action.illegal:
                continue
            return diff(index, action.text, "the action to be accepted", f"refused: {error.english}")
        if action.illegal:
            return diff(index, action.text, "the action to be refused (# !illegal)", "accepted")
        state = after
        if not checked_min_bet and state.hand is not None and state.hand.phase is Phase.OPENING:
            checked_min_bet = True
            if state.hand.min_bet != history.min_bet:
                return diff(index, action.text, f"min_bet {history.min_bet}", str(state.hand.min_bet))
    if state.hand is not None:
        waiting = state.hand.to_act
        what = f"seat {waiting} to act" if waiting is not None else "the dealer to deal"
        return diff(len(history.actions) + 1, "", "the hand to be over", f"still waiting for {what}")
    if history.finishing_stacks is not None:
        final = _stacks(state, seats)
        if final != history.finishing_stacks:
            expected = f"finishing stacks {list(history.finishing_stacks)}"
            return diff(len(history.actions) + 1, "", expected, f"{list(final)}")
    return state, None


def replay_histories(histories: Sequence[HandHistory]) -> Difference | None:
    """Replay the hands of a file: consecutive hands of one table, except that a hand with a ``table`` field
    is set up from its own fields (see the module's docstring). The first :class:`Difference`, or ``None``."""
    if histories and all(isinstance(h, cinese_history.CineseHistory) for h in histories):
        return cinese_history.replay_histories(histories)  # type: ignore[arg-type]  # poker cinese games
    state: TableState | None = None
    for number, history in enumerate(histories, 1):
        if history.standard:  # a standard PHH hand: complete in itself, replayed by its core game
            try:
                difference = replay_hand(history, number)
            except UnsupportedHistory as error:
                difference = Difference(number, 0, "", "a hand this engine plays", str(error))
            if difference is not None:
                return difference
            state = None
            continue
        fresh = state is None or bool(history.table)
        if state is None or history.table:
            # the table's run of hands: this one and the following ones that continue it
            run = [history]
            for later in histories[number:]:
                if later.table:
                    break
                run.append(later)
            # a parol hand with invitos posted shows the table's IT-PAROL-3 option
            state = table_for(history, any(h.parol_hand and any(h.antes) for h in run))
        elif len(history.players) > len(state.seats):
            return Difference(number, 0, "", f"{len(history.players)} players", f"{len(state.seats)} seats")
        state, difference = _replay_hand(state, history, number, fresh)
        if difference is not None:
            return difference
    return None


def check_giro(histories: Sequence[HandHistory]) -> Difference | None:
    """The giro pazzo rounds of a table's ``.phhs`` (TL-GIRO-1, its keys in docs/hand-history-format.md),
    checked with :mod:`engine.giro`'s decider: a hand with ``giro_trigger`` (a full house or better shown,
    IT-RANK-1) starts a giro owing a deal to each player left with chips; every hand of a giro names its
    ``giro_dealer`` (the hand's dealer, PHH's last player) and is dealt with a layout and a mode that fit
    (TL-CAP-1); a player who busts is struck off; ``giro_end`` marks the hand after which it owes nobody;
    no other hand is a giro hand; ``giro_timeout = true`` only on a choice the table made
    (``giro_choice`` ``preference`` or ``table``). Files without these keys are not checked (``None``)."""
    if not any(key.startswith("giro_") for h in histories for key, _ in h.metadata):
        return None
    state = giro.GiroState()
    for number, history in enumerate(histories, 1):
        meta = dict(history.metadata)
        players = len(history.players)
        dealer = meta.get("giro_dealer")
        end = len(history.actions) + 1

        def diff(expected: str, actual: str, at: int = 0, number: int = number) -> Difference:
            return Difference(number, at, "", expected, actual)

        if state.active and dealer is None:
            return diff("a giro pazzo hand (giro_dealer)", f"none; the giro owes {list(state.owed)}")
        if not state.active and dealer is not None:
            return diff("no giro pazzo running", f"giro_dealer = {dealer!r}")
        choice, timeout = meta.get("giro_choice"), meta.get("giro_timeout")
        if timeout is not None and (timeout is not True or choice not in AUTOMATIC_CHOICES):
            return diff(  # the table chose at the dealer's time-out: with a preference or its default
                'giro_timeout = true only with giro_choice = "preference" or "table"',
                f"giro_timeout = {timeout!r}, giro_choice = {choice!r}",
            )
        if dealer is not None:
            if dealer != history.players[-1]:
                return diff(f"the dealer {history.players[-1]!r} to choose", f"giro_dealer = {dealer!r}")
            options = dict(game_options_of(history))
            try:
                events = giro.decide(state, giro.AskDealer(players - 1, dealer, players, 0))
                state = giro.evolve_all(state, events)
                chosen = giro.decide(
                    state, giro.ChooseVariant(dealer, options.get("layout", "croce"),
                                              options.get("distribution", "mai"), players)
                )  # fmt: skip
                state = giro.evolve_all(state, chosen)
                state = giro.evolve_all(state, giro.decide(state, giro.GiroHandDealt(dealer)))
            except CoreIllegalAction as error:  # the giro's and Telesina's refusals (TL-CAP-1...)
                return diff("a choice the rules accept", str(error))
        stacks = history.finishing_stacks or history.starting_stacks
        left = tuple(name for name, chips in zip(history.players, stacks, strict=False) if chips > 0)
        trigger = meta.get("giro_trigger")
        if trigger is not None and not giro.is_big(str(trigger)):
            return diff("a full house or better to start a giro pazzo", repr(trigger), end)
        after = giro.decide(state, giro.HandFinished((str(trigger),) if trigger else (), left))
        started = any(isinstance(e, giro.GiroPazzoStarted) for e in after)
        ended = any(isinstance(e, giro.GiroPazzoEnded) for e in after)
        if trigger is not None and not state.active and not started:
            return diff("a giro pazzo to start", "none", end)
        if ended != bool(meta.get("giro_end")):
            return diff(
                f"giro_end = {str(ended).lower()}",
                f"giro_end = {str(bool(meta.get('giro_end'))).lower()}",
                end,
            )
        state = giro.evolve_all(state, after)
    return None


AUTOMATIC_CHOICES = frozenset({giro.AUTOMATIC_PREFERENCE, giro.AUTOMATIC_DEFAULT})
"""``giro_choice`` of a choice the table made for the dealer (``giro_timeout`` may say when)."""


def game_options_of(history: HandHistory) -> tuple[tuple[str, str], ...]:
    """The Telesina options a hand was played with (PHH ``vele`` / ``carta_coperta``)."""
    meta = dict(history.metadata)
    return (
        ("distribution", str(meta.get("carta_coperta", "mai"))),
        ("layout", str(meta.get("vele", "croce"))),
    )


def replay_file(path: str) -> Difference | None:
    """Replay one ``.phh``/``.phhs`` file (poker cinese's, ``variant = "CN"``, by
    :mod:`engine.cinese.history`: arrangements legal, tokens won as written, a match's tokens and points
    carried from game to game). Raises :class:`MalformedHistory`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    if text and cinese_history.is_cinese(text):
        return cinese_history.replay_histories(cinese_history.loads(text, path))
    histories = load_histories(path)
    return replay_histories(histories) or check_giro(histories)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.replay",
        description="Replay PHH hand histories (.phh/.phhs) of every registered game through its decider.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)
    failed = malformed = passed = 0
    for file in args.files:
        try:
            difference = replay_file(file)
        except MalformedHistory as error:
            print(f"{file}: {error.where}: malformed: {error.reason}", file=sys.stderr)
            malformed += 1
            continue
        if difference is None:
            passed += 1
        else:
            failed += 1
            print(difference.describe(file))
    print(
        f"{len(args.files)} file{'s' if len(args.files) != 1 else ''} replayed: {passed} passed, "
        f"{failed} failed" + (f", {malformed} malformed" if malformed else "")
    )
    if malformed:
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
