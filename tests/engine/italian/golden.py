"""Golden records of poker all'italiana as the registry plays it: the differential test of issue 16.

Poker all'italiana moves onto the one-engine core "with no change in behaviour" (issue 16). This module
plays many deterministic sessions through the registry games ``NIT`` ``PIT`` ``FIT``
(:func:`engine.core.game.find_game`) and records, for every step, what a caller of the registry sees:

- the command (its class name and :func:`engine.codec.to_data`), built only through the registry protocol
  (``seat_command``, ``start_command``, ``dealer_command``, ``player_command``, ``bot_command``,
  ``timeout_command``, ``reveal_command``, ``remove_command``), plus illegal variants of them;
- the events it caused (class name and JSON data, as the event store keeps them), or the refusal: the
  error class, its Italian message (``str``) and its English one (``english``);
- the seats to act, every seat's ``legal_actions`` (data), and a hash of every seat's view, the
  spectator's, the revealed view and :meth:`Game.facts`;
- at each hand's end, hashes of the PHH export and of ``public_log`` for every player and a spectator;
- now and then, whether ``decide`` folded with ``evolve`` gives the very state ``apply`` gave.

Sessions vary the game (NIT/PIT/FIT), 2–9 seats, empty seats, the tournament flag, the invito and its
level changes, the action time and time bank, IT-PAROL-3's parol-hand invito, IT-RANK-4's option, stacks
from a few invitos to hundreds; players are the game's bot or pick random legal actions, time out (early
ones refused), sit out and come back, get seated and removed between hands, and send illegal commands
that must be refused (wrong seat, out-of-range amounts, unknown actions, cards they do not hold, seeds
that do not match).

Record (once, on the code before the move): ``python -m tests.engine.italian.golden``; the test
``tests/engine/italian/test_golden.py`` replays the sessions and requires identical records.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import lzma
import random
import sys
from collections.abc import Iterator, Mapping
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import Any

from engine.cards import Card, Deck
from engine.codec import to_data
from engine.core.forced import ForcedBets
from engine.core.game import Game, find_game
from engine.evaluation import MinimalBeatsRoyal
from engine.shuffle import ALGORITHM, shuffle

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "italian_golden" / "golden.jsonl.xz"
SESSIONS = 400
PAROL_FROM = 330  # the sessions from here on favour parol and partecipo (recorded on the same engine)
MAX_STEPS = 600  # per hand: a safety net, never reached by a working decider
VERSION = 1

Record = dict[str, Any]


def canon(value: Any) -> Any:
    """``value`` as canonical JSON data, field names only (no class names): views, facts, exports."""
    if value is None or (isinstance(value, (bool, int, str)) and not isinstance(value, Enum)):
        return value
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (tuple, list)):
        return [canon(item) for item in value]
    if isinstance(value, (frozenset, set)):
        return sorted((canon(item) for item in value), key=lambda item: json.dumps(item, sort_keys=True))
    if isinstance(value, Mapping):
        return {str(key): canon(item) for key, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: canon(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return repr(value)


def digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(canon(value), sort_keys=True).encode()).hexdigest()[:16]


def _kind(action: Any) -> str:
    kind = action.kind
    return str(kind.value if isinstance(kind, Enum) else kind)


def _error(error: Exception) -> list[Any]:
    return [type(error).__name__, str(error), getattr(error, "english", None)]


class Session:
    """One table played for a few hands; :meth:`records` yields one record per step."""

    def __init__(self, index: int) -> None:
        self.rng = random.Random(f"italian-golden-{index}")
        self.bot_rng = random.Random(f"italian-golden-bot-{index}")
        rng = self.rng
        self.game: Game = find_game(rng.choice(("NIT", "PIT", "FIT")))
        self.seats = rng.randint(2, 9)
        invito = rng.choice((1, 2, 5, 10, 10, 25))
        self.action_time = rng.choice((10_000, 30_000))
        config = self.game.table_config(
            seats=self.seats,
            tournament=rng.random() < 0.5,
            forced=ForcedBets(invito=invito),
            action_time_ms=self.action_time,
            time_bank_ms=rng.choice((0, 5_000, 60_000)),
        )
        config = dataclasses.replace(
            config,
            parol_hand_invito=rng.random() < 0.3,
            minimal_beats_royal=rng.choice(list(MinimalBeatsRoyal)),
        )
        self.invito = invito
        self.state = self.game.initial_state(config)
        self.now = 1_700_000_000_000 + index * 10_000_000
        self.names = 0
        self.seeds: list[str] = []
        self.steps = 0
        self.header: Record = {"session": index, "code": self.game.code, "config": canon(config)}
        self.parol_bias = index >= PAROL_FROM  # players who say parol and pay the adeguamento (IT-PAROL-*)

    # --- stepping ---------------------------------------------------------------------------------------

    def tick(self, most: int = 3_000) -> int:
        self.now += self.rng.randrange(0, most)
        return self.now

    def snapshot(self) -> Record:
        game, state = self.game, self.state
        viewers: list[int | None] = [*range(self.seats), None]
        views = [game.view(state, viewer) for viewer in viewers]
        views.append(game.view(state, None, True))
        legal = {}
        for seat in range(self.seats):
            actions = game.legal_actions(state, seat)
            if actions:
                legal[str(seat)] = to_data(actions)
        return {
            "a": sorted(game.to_act(state)),
            "l": legal,
            "h": digest([views, game.facts(state)]),
        }

    def step(self, command: Any, built: Exception | None = None) -> Record:
        """Apply ``command`` (or record ``built``, the refusal raised while building it)."""
        self.steps += 1
        record: Record = {}
        if built is not None:
            record["x"] = _error(built)
        else:
            record["c"] = [type(command).__name__, to_data(command)]
            try:
                after, events = self.game.apply(self.state, command)
            except Exception as error:  # refusals (and any crash) are behaviour to keep
                record["x"] = _error(error)
            else:
                record["e"] = [[type(event).__name__, to_data(event)] for event in events]
                if self.steps % 5 == 0:
                    folded = self.state
                    for event in self.game.decide(self.state, command):
                        folded = self.game.evolve(folded, event)
                    record["v"] = folded == after
                self.state = after
                self.hand_events.extend(events)
        record.update(self.snapshot())
        return record

    def build(self, make: Any, *args: Any) -> Record:
        """Build a command with ``make(*args)`` and apply it (a refusal while building is recorded)."""
        try:
            command = make(*args)
        except Exception as error:
            return self.step(None, error)
        if command is None:
            return {"none": True, **self.snapshot()}
        return self.step(command)

    def player(
        self, seat: int, action: str, amount: int | None = None, cards: tuple[Card, ...] = ()
    ) -> Record:
        def make() -> Any:
            return self.game.player_command(self.state, seat, action, amount, cards, self.tick())

        return self.build(make)

    # --- between hands ----------------------------------------------------------------------------------

    def occupied(self) -> list[int]:
        return [i for i, seat in enumerate(self.game.facts(self.state).seats) if seat is not None]

    def seat_someone(self, seat: int) -> Record:
        self.names += 1
        stack = self.rng.choice((2, 5, 12, 30, 80, 250)) * self.invito + self.rng.randrange(self.invito + 1)
        return self.build(lambda: self.game.seat_command(seat, f"P{self.names}", stack, self.tick()))

    def between_hands(self) -> Iterator[Record]:
        rng, game = self.rng, self.game
        facts = game.facts(self.state)
        if facts.reveal_due:
            if rng.random() < 0.15:
                yield self.build(lambda: game.reveal_command("00" * 32, self.tick()))
            if rng.random() < 0.1:
                yield self.build(lambda: game.reveal_command("xyz", self.tick()))
            yield self.build(lambda: game.reveal_command(self.seeds[-1], self.tick()))
        elif facts.hand_number and rng.random() < 0.1:
            yield self.build(lambda: game.reveal_command("11" * 32, self.tick()))
        for _ in range(rng.choice((0, 0, 0, 1, 2))):
            facts = game.facts(self.state)
            occupied = self.occupied()
            empty = [i for i in range(self.seats) if i not in occupied]
            draw = rng.random()
            if draw < 0.3 and empty:
                yield self.seat_someone(rng.choice(empty))
            elif draw < 0.4 and occupied:
                yield self.seat_someone(rng.choice(occupied))  # refused: the seat is taken
            elif draw < 0.55 and len(occupied) > 2:
                yield self.build(game.remove_command, rng.choice(occupied), self.tick())
            elif draw < 0.6:
                yield self.build(game.remove_command, rng.choice(empty or [0]), self.tick())
            elif draw < 0.75 and occupied:
                seat = rng.choice(occupied)
                yield self.player(seat, "sit_out")
            elif draw < 0.9:
                out = [i for i, s in enumerate(facts.seats) if s is not None and s.sitting_out]
                if out:
                    seat = rng.choice(out)
                    yield self.player(seat, "return")
            else:
                seat = rng.randrange(self.seats)
                yield self.player(seat, "check")
        for seat in range(self.seats):  # an uncontested winner may still show (IT-SHOW-1)
            if game.legal_actions(self.state, seat) and rng.random() < 0.5:
                yield self.player(seat, "show")

    def start(self, first: bool) -> Record:
        rng, game = self.rng, self.game
        seed = rng.randbytes(32)
        committed = rng.random() < 0.8
        forced = None
        if rng.random() < 0.15:
            self.invito = max(1, self.invito + rng.choice((1, 2, 5, self.invito)))
            forced = ForcedBets(invito=self.invito)
        button = rng.randrange(self.seats) if first and rng.random() < 0.5 else None
        self.seeds.append(seed.hex())

        def make() -> Any:
            return game.start_command(
                self.state,
                lambda deck: shuffle(deck.cards, seed),
                at=self.tick(),
                forced=forced,
                button=button,
                hand_id=f"h{self.names}-{len(self.seeds)}",
                commitment=hashlib.sha256(seed).hexdigest() if committed else "",
                algorithm=ALGORITHM if committed else "",
            )

        return self.build(make)

    # --- in a hand --------------------------------------------------------------------------------------

    def hand_cards(self, seat: int) -> tuple[Card, ...]:
        seat_view = self.game.view(self.state, seat).seats[seat]
        return tuple(card for card in seat_view.cards if card is not None) if seat_view is not None else ()

    def random_legal(self, seat: int) -> Any:
        rng, game = self.rng, self.game
        action = rng.choice(game.legal_actions(self.state, seat))
        kind = _kind(action)
        amount = None
        cards: tuple[Card, ...] = ()
        if kind in game.amount_actions:
            low, high = action.minimum, action.maximum
            amount = low if rng.random() < 0.4 else high if rng.random() < 0.2 else rng.randint(low, high)
        if kind == "discard":
            held = list(self.hand_cards(seat))
            count = rng.randint(action.minimum, min(action.maximum, len(held)))
            cards = tuple(rng.sample(held, count))
        return game.player_command(self.state, seat, kind, amount, cards, self.tick())

    def illegal(self, seat: int) -> Any:
        rng, game, state = self.rng, self.game, self.state
        other = rng.choice([s for s in range(self.seats) if s != seat])
        legal = game.legal_actions(state, seat)
        draw = rng.randrange(9)
        at = self.tick()
        if draw == 0:
            return game.player_command(
                state, other, rng.choice(("check", "fold", "call", "parol")), None, (), at
            )
        if draw == 1:
            return game.player_command(state, other, "bet", rng.randrange(1, 50), (), at)
        if draw == 2:
            bets = [a for a in legal if _kind(a) in game.amount_actions]
            if bets:
                action = rng.choice(bets)
                wrong = rng.choice((action.maximum + 1, action.minimum - 1, 0, -5))
                return game.player_command(state, seat, _kind(action), wrong, (), at)
            return game.player_command(state, seat, "raise", rng.randrange(0, 100), (), at)
        if draw == 3:
            return game.player_command(
                state, seat, rng.choice(("jump", "bet", "raise", "blind_bet")), None, (), at
            )
        if draw == 4:
            deck = Deck.italian(max(2, min(len(self.occupied()), 9))).cards
            return game.player_command(
                state, seat, "discard", None, tuple(rng.sample(deck, rng.randint(1, 5))), at
            )
        if draw == 5:
            held = self.hand_cards(seat)
            return game.player_command(state, seat, "discard", None, held, at)
        if draw == 6:
            name = rng.choice(
                ("show", "muck", "parol", "partecipate", "decline_blind", "blind_bet", "discard")
            )
            return game.player_command(state, seat, name, 10, (), at)
        if draw == 7:
            return game.player_command(state, rng.randrange(-1, self.seats + 2), "fold", None, (), at)
        return game.player_command(state, other, "return", None, (), at)

    def timeout(self, early: bool) -> Any:
        facts = self.game.facts(self.state)
        deadline = facts.deadline_ms if facts.deadline_ms is not None else self.now
        at = deadline - 1 - self.rng.randrange(0, 2_000) if early else deadline + self.rng.randrange(0, 5_000)
        self.now = max(self.now, at)
        return self.game.timeout_command(self.state, at)

    def in_hand(self) -> Iterator[Record]:
        rng, game = self.rng, self.game
        for _ in range(MAX_STEPS):
            if not game.facts(self.state).in_hand:
                return
            deal = game.dealer_command(self.state, self.now)
            if deal is not None:
                if rng.random() < 0.02 and hasattr(deal, "seat"):
                    wrong = dataclasses.replace(deal, seat=(deal.seat + 1) % self.seats)
                    yield self.step(wrong)
                yield self.step(game.dealer_command(self.state, self.tick(200)))
                continue
            to_act = sorted(game.to_act(self.state))
            if not to_act:
                yield {"stuck": True, **self.snapshot()}
                return
            seat = to_act[0]
            if self.parol_bias:
                kinds = [_kind(action) for action in game.legal_actions(self.state, seat)]
                wanted = [kind for kind in ("parol", "partecipate") if kind in kinds]
                if wanted and rng.random() < 0.85:
                    yield self.player(seat, wanted[0])
                    continue
            draw = rng.random()
            if draw < 0.45:
                yield self.build(game.bot_command, self.state, seat, self.bot_rng, self.tick())
            elif draw < 0.75:
                yield self.build(self.random_legal, seat)
            elif draw < 0.8:
                yield self.build(self.timeout, rng.random() < 0.3)
            elif draw < 0.84:
                who = seat if rng.random() < 0.5 else rng.randrange(self.seats)
                yield self.player(who, "sit_out")
            elif draw < 0.87:
                facts = game.facts(self.state)
                out = [i for i, s in enumerate(facts.seats) if s is not None and s.sitting_out] or [seat]
                who = rng.choice(out)
                yield self.player(who, "return")
            else:
                yield self.build(self.illegal, seat)
        yield {"too_long": True}

    def hand_end(self, before: Any) -> Record:
        game = self.game
        facts = game.facts(self.state)
        record: Record = {"end": facts.hand_number}
        try:
            record["phh"] = digest(game.export_hand(before, self.hand_events))
        except Exception as error:
            record["phh"] = _error(error)
        names = [None, *(seat.player for seat in facts.seats if seat is not None)]
        logs = [game.public_log(self.hand_events, facts.seating, name) for name in names]
        logs.append(game.public_log(self.hand_events, facts.seating, None, True))
        record["log"] = digest(logs)
        return record

    def records(self) -> Iterator[Record]:
        yield self.header
        rng = self.rng
        self.hand_events: list[Any] = []
        players = rng.randint(2, self.seats)
        for seat in sorted(rng.sample(range(self.seats), players)):
            yield self.seat_someone(seat)
        for number in range(rng.randint(3, 10)):
            if number:
                yield from self.between_hands()
            if not self.game.can_start_hand(self.state):
                yield {"cannot_start": True}
                out = [
                    i
                    for i, s in enumerate(self.game.facts(self.state).seats)
                    if s is not None and s.sitting_out
                ]
                for seat in out:
                    yield self.player(seat, "return")
                if not self.game.can_start_hand(self.state):
                    return
            before = self.state
            self.hand_events = []
            record = self.start(number == 0)
            yield record
            if "x" in record:
                return
            yield from self.in_hand()
            yield self.hand_end(before)


def play(index: int) -> list[Record]:
    return list(Session(index).records())


def load() -> list[list[Record]]:
    with lzma.open(GOLDEN, "rt", encoding="utf-8") as file:
        header = json.loads(file.readline())
        assert header["version"] == VERSION, header
        return [json.loads(line) for line in file]


def main() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    hands = steps = 0
    with lzma.open(GOLDEN, "wt", encoding="utf-8", preset=9) as file:
        file.write(json.dumps({"version": VERSION, "sessions": SESSIONS}) + "\n")
        for index in range(SESSIONS):
            records = play(index)
            hands += sum("end" in record for record in records)
            steps += len(records)
            file.write(json.dumps(records, separators=(",", ":"), sort_keys=True) + "\n")
    print(f"{SESSIONS} sessions, {hands} hands, {steps} records -> {GOLDEN} ({GOLDEN.stat().st_size:,} B)")


if __name__ == "__main__":
    sys.exit(main())
