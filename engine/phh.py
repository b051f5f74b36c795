"""Hand histories in PHH (the poker hand history format published with PokerKit) with our Italian
extensions (``shared/scenarios/README.md``): read ``.phh`` / ``.phhs`` files, write them, and export a hand
played by the Italian decider.

Our extensions beyond ``shared/scenarios/README.md``: ``invito`` (the level's invito, needed in a parol
hand where none is posted), ``hand`` (the service's hand id), ``sitting_out`` (per player, true when
sitting out at the start of the hand: in a tournament they post the invito but are not dealt in) and
``tournament`` (default true; ``false`` for a ring game, where sitting-out players post nothing and
players without chips stay seated).

PHH's own optional fields we read and write: ``table`` (the table's name; the service writes its stream id,
``"table-12"``: a hand carrying it is complete in itself, see :mod:`engine.replay`), ``seats`` (each player's
seat number, from 1), ``seat_count``, and the hand's start ``time`` (a TOML local time), ``time_zone``,
``day``, ``month`` and ``year``.

A :class:`HandHistory` keeps the fields we use; :func:`parse_action` turns an action string
(``"p1 cbr 40 # !illegal"``) into an :class:`Action`. The writer emits TOML with only strings, integers,
booleans and lists of them, which is all PHH needs.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cards import Card, InvalidCard, format_cards, parse_cards
from engine.italian.model import (
    AdeguamentoDeclined,
    AdeguamentoPaid,
    BetPlaced,
    BlindBetPlaced,
    BlindDeclined,
    Called,
    CardsDealt,
    Checked,
    Discarded,
    Event,
    Folded,
    HandEnded,
    HandMucked,
    HandShown,
    HandStarted,
    Limit,
    ParolSaid,
    PlayerEliminated,
    Raised,
    TableState,
)

__all__ = [
    "ITALIAN_VARIANTS",
    "Action",
    "HandHistory",
    "MalformedHistory",
    "export_hand",
    "format_history",
    "hand_players",
    "load_histories",
    "parse_action",
    "parse_history",
]

ITALIAN_VARIANTS = {"NIT": Limit.NO_LIMIT, "PIT": Limit.POT_LIMIT, "FIT": Limit.FIXED_LIMIT}
_VARIANT_OF = {limit: code for code, limit in ITALIAN_VARIANTS.items()}
_ILLEGAL = re.compile(r"#\s*!illegal\b")
_PLAYER_VERBS = {"cbr", "cc", "f", "pa", "pt", "dc", "sd", "sm"}


class MalformedHistory(ValueError):
    """A hand history that cannot be read: ``where`` (``"hand 2"``, ``"hand 1, action 3"``) and why."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Action:
    """One PHH action. ``actor``: 0-based player index (``p1`` → 0) or ``None`` for the dealer;
    ``verb``: ``dh`` (deal to ``target``), ``cbr``, ``cc``, ``f``, ``pa``, ``pt``, ``dc``, ``sd``, ``sm``;
    ``amount`` for ``cbr``; ``cards`` for ``dh``/``sd``/``sm``; ``illegal``: marked ``# !illegal``."""

    text: str
    actor: int | None
    verb: str
    target: int | None = None
    amount: int | None = None
    cards: tuple[Card, ...] = ()
    illegal: bool = False


def _player(token: str, players: int, where: str) -> int:
    if not re.fullmatch(r"p[1-9][0-9]*", token):
        raise MalformedHistory(where, f"{token!r} is not a player (p1, p2, …)")
    index = int(token[1:]) - 1
    if index >= players:
        raise MalformedHistory(where, f"{token} does not exist: the hand has {players} players")
    return index


def parse_action(text: str, players: int, where: str = "action") -> Action:
    """Parse one action string. Raises :class:`MalformedHistory`."""
    if not isinstance(text, str):
        raise MalformedHistory(where, f"an action must be a string, not {text!r}")
    illegal = bool(_ILLEGAL.search(text))
    body = text.split("#", 1)[0].split()
    try:
        if len(body) >= 3 and body[0] == "d" and body[1] == "dh":
            if len(body) != 4:
                raise MalformedHistory(where, f"{text!r}: a deal is 'd dh pN CARDS'")
            return Action(
                text, None, "dh", _player(body[2], players, where), None, parse_cards(body[3]), illegal
            )
        if len(body) < 2 or body[1] not in _PLAYER_VERBS:
            raise MalformedHistory(where, f"{text!r} is not an action this replay knows")
        actor = _player(body[0], players, where)
        verb = body[1]
        rest = body[2:]
        if verb == "cbr":
            if len(rest) != 1 or not re.fullmatch(r"[0-9]+", rest[0]):
                raise MalformedHistory(where, f"{text!r}: 'cbr' takes one whole amount")
            return Action(text, actor, verb, amount=int(rest[0]), illegal=illegal)
        if verb in ("sd", "sm"):
            if len(rest) > 1:
                raise MalformedHistory(where, f"{text!r}: cards are written together, like 7c8s9c")
            return Action(text, actor, verb, cards=parse_cards(rest[0]) if rest else (), illegal=illegal)
        if rest:
            raise MalformedHistory(where, f"{text!r}: '{verb}' takes nothing after it")
        return Action(text, actor, verb, illegal=illegal)
    except InvalidCard as error:
        raise MalformedHistory(where, str(error)) from None


@dataclass(frozen=True, slots=True)
class HandHistory:
    """One hand (PHH + Italian extensions). Per-player lists are in PHH order: ``p1`` (left of the dealer)
    … ``pN`` (the dealer). ``table``, ``seats`` (1-based), ``seat_count`` and the start ``time`` (a TOML
    local time kept as its text, ``"21:05:30"``; with ``time_zone``, ``day``, ``month``, ``year``) are PHH's
    optional fields: empty or ``None`` when absent."""

    variant: str
    players: tuple[str, ...]
    antes: tuple[int, ...]
    starting_stacks: tuple[int, ...]
    actions: tuple[Action, ...]
    min_bet: int
    opening: str = "J"
    carried_pot: int = 0
    parol_hand: bool = False
    adeguamento: tuple[int, ...] = ()
    invito: int | None = None
    finishing_stacks: tuple[int, ...] | None = None
    hand_id: str = ""
    sitting_out: tuple[bool, ...] = ()
    tournament: bool = True
    parol_players: tuple[str, ...] = ()
    table: str = ""
    seats: tuple[int, ...] = ()
    seat_count: int | None = None
    time: str = ""
    time_zone: str = ""
    day: int | None = None
    month: int | None = None
    year: int | None = None

    @property
    def limit(self) -> Limit:
        return ITALIAN_VARIANTS[self.variant]


def _ints(raw: Mapping[str, Any], key: str, count: int, where: str, required: bool = True) -> tuple[int, ...]:
    value = raw.get(key)
    if value is None and not required:
        return ()
    if (
        not isinstance(value, list)
        or len(value) != count
        or any(not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in value)
    ):
        raise MalformedHistory(where, f"{key} must be a list of {count} whole numbers >= 0")
    return tuple(value)


def parse_history(raw: Mapping[str, Any], where: str = "hand") -> HandHistory:
    """A :class:`HandHistory` from one parsed TOML table. Raises :class:`MalformedHistory`."""
    variant = raw.get("variant")
    if variant not in ITALIAN_VARIANTS:
        raise MalformedHistory(
            where, f"variant {variant!r} is not poker all'italiana ({', '.join(ITALIAN_VARIANTS)})"
        )
    players = raw.get("players")
    if not isinstance(players, list):
        raise MalformedHistory(where, "players must be a list of 2 to 9 names")
    names_ok = all(isinstance(name, str) and name.strip() for name in players)
    if not names_ok or not 2 <= len(players) <= 9:
        raise MalformedHistory(where, "players must be a list of 2 to 9 names")
    if len(set(players)) != len(players):
        raise MalformedHistory(where, "players must have different names")
    n = len(players)
    opening = raw.get("opening", "J")
    if opening not in ("J", "Q", "K"):
        raise MalformedHistory(where, f'opening must be "J", "Q" or "K", not {opening!r}')
    min_bet = raw.get("min_bet")
    if not isinstance(min_bet, int) or isinstance(min_bet, bool) or min_bet < 0:
        raise MalformedHistory(where, "min_bet must be a whole number >= 0")
    actions_raw = raw.get("actions")
    if not isinstance(actions_raw, list):
        raise MalformedHistory(where, "actions must be a list of strings")
    actions = tuple(parse_action(text, n, f"{where}, action {i + 1}") for i, text in enumerate(actions_raw))
    carried = raw.get("carried_pot", 0)
    if not isinstance(carried, int) or isinstance(carried, bool) or carried < 0:
        raise MalformedHistory(where, "carried_pot must be a whole number >= 0")
    invito = raw.get("invito")
    if invito is not None and (not isinstance(invito, int) or isinstance(invito, bool) or invito < 0):
        raise MalformedHistory(where, "invito must be a whole number >= 0")
    finishing = _ints(raw, "finishing_stacks", n, where, required=False)
    for flag in ("parol_hand", "tournament"):
        if flag in raw and not isinstance(raw[flag], bool):
            raise MalformedHistory(where, f"{flag} must be true or false")
    parol_players = raw.get("parol_players", [])
    if not isinstance(parol_players, list) or any(name not in players for name in parol_players):
        raise MalformedHistory(where, "parol_players must list names of players")
    sitting_out = raw.get("sitting_out", [])
    if (
        not isinstance(sitting_out, list)
        or (sitting_out and len(sitting_out) != n)
        or not all(isinstance(flag, bool) for flag in sitting_out)
    ):
        raise MalformedHistory(where, f"sitting_out must be a list of {n} true/false")
    table = raw.get("table", "")
    if isinstance(table, bool) or not isinstance(table, str | int):
        raise MalformedHistory(where, "table must be a string or a whole number")
    seat_count = _whole(raw, "seat_count", where, least=n)
    seats = raw.get("seats", [])
    if (
        not isinstance(seats, list)
        or (seats and len(seats) != n)
        or any(not isinstance(s, int) or isinstance(s, bool) or s < 1 for s in seats)
        or len(set(seats)) != len(seats)
        or (seat_count is not None and any(s > seat_count for s in seats))
    ):
        limit = f" up to seat_count {seat_count}" if seat_count is not None else ""
        raise MalformedHistory(where, f"seats must be {n} different seat numbers from 1{limit}")
    raw_time = raw.get("time")
    # TOML reads a local time as a time object: kept as its ISO text ("21:05:30"), written back unquoted
    time = "" if raw_time is None or isinstance(raw_time, str) else str(raw_time.isoformat())
    if raw_time is not None and not LOCAL_TIME.fullmatch(time):
        raise MalformedHistory(where, "time must be a TOML local time, like 21:05:30")
    time_zone = raw.get("time_zone", "")
    if not isinstance(time_zone, str):
        raise MalformedHistory(where, 'time_zone must be a string, like "UTC"')
    day, month = _whole(raw, "day", where, 1, 31), _whole(raw, "month", where, 1, 12)
    year = _whole(raw, "year", where)
    return HandHistory(
        variant=variant,
        players=tuple(players),
        antes=_ints(raw, "antes", n, where),
        starting_stacks=_ints(raw, "starting_stacks", n, where),
        actions=actions,
        min_bet=min_bet,
        opening=opening,
        carried_pot=carried,
        parol_hand=bool(raw.get("parol_hand", False)),
        adeguamento=_ints(raw, "adeguamento", n, where, required=False),
        invito=invito,
        finishing_stacks=finishing or None,
        hand_id=str(raw.get("hand", "")),
        sitting_out=tuple(sitting_out),
        tournament=bool(raw.get("tournament", True)),
        parol_players=tuple(parol_players),
        table=str(table),
        seats=tuple(seats),
        seat_count=seat_count,
        time=time,
        time_zone=time_zone,
        day=day,
        month=month,
        year=year,
    )


def _whole(
    raw: Mapping[str, Any], key: str, where: str, least: int = 0, most: int | None = None
) -> int | None:
    """The optional whole number ``raw[key]`` (``None`` when absent), between ``least`` and ``most``."""
    value = raw.get(key)
    if value is None:
        return None
    too_big = most is not None and isinstance(value, int) and value > most
    if not isinstance(value, int) or isinstance(value, bool) or value < least or too_big:
        bounds = f"from {least}" + (f" to {most}" if most is not None else "")
        raise MalformedHistory(where, f"{key} must be a whole number {bounds}")
    return value


def load_histories(path: str | Path) -> tuple[HandHistory, ...]:
    """The hands of a ``.phh`` (one) or ``.phhs`` (tables ``[1]``, ``[2]``, …) file.

    Raises :class:`MalformedHistory` (unreadable file, TOML syntax, a bad field or action).
    """
    try:
        document = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise MalformedHistory("file", f"cannot read it: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise MalformedHistory("file", f"not valid TOML: {error}") from None
    if str(path).endswith(".phhs"):
        keys = sorted((k for k in document if k.isdigit()), key=int)
        if not keys or len(keys) != len(document):
            raise MalformedHistory("file", "a .phhs file holds only the tables [1], [2], …")
        return tuple(parse_history(document[k], f"hand {k}") for k in keys)
    return (parse_history(document, "hand 1"),)


# --- writing -----------------------------------------------------------------------------------------------


def _toml_char(char: str) -> str:
    """One character of a TOML basic string: quotes, backslashes and control characters escaped."""
    if char in '"\\':
        return "\\" + char
    if ord(char) < 0x20 or ord(char) == 0x7F:
        return f"\\u{ord(char):04x}"
    return char


class _LocalTime(str):
    """A TOML local time to write unquoted (``21:05:30``)."""

    __slots__ = ()


LOCAL_TIME = re.compile(r"\d{2}:\d{2}:\d{2}(\.\d{1,6})?")
"""A TOML local time as :class:`HandHistory` keeps it (hours, minutes, seconds, optional fraction)."""


def _toml_value(value: object) -> str:
    if isinstance(value, _LocalTime) and LOCAL_TIME.fullmatch(value):
        return str.__str__(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + "".join(_toml_char(char) for char in value) + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} in a hand history")


def _history_lines(history: HandHistory) -> list[str]:
    fields: list[tuple[str, object]] = [
        ("variant", history.variant),
        ("players", list(history.players)),
        ("antes", list(history.antes)),
        ("min_bet", history.min_bet),
        ("opening", history.opening),
        ("carried_pot", history.carried_pot),
    ]
    if history.invito is not None:
        fields.append(("invito", history.invito))
    if history.parol_hand:
        fields.append(("parol_hand", True))
        fields.append(("adeguamento", list(history.adeguamento)))
        if history.parol_players:
            fields.append(("parol_players", list(history.parol_players)))
    if history.hand_id:
        fields.append(("hand", history.hand_id))
    if not history.tournament:
        fields.append(("tournament", False))
    if any(history.sitting_out):
        fields.append(("sitting_out", list(history.sitting_out)))
    optional: list[tuple[str, object]] = [
        ("table", history.table or None),
        ("seat_count", history.seat_count),
        ("seats", list(history.seats) or None),
        ("year", history.year),
        ("month", history.month),
        ("day", history.day),
        ("time", _LocalTime(history.time) if history.time else None),
        ("time_zone", history.time_zone or None),
    ]
    fields.extend((key, value) for key, value in optional if value is not None)
    fields.append(("starting_stacks", list(history.starting_stacks)))
    lines = [f"{key} = {_toml_value(value)}" for key, value in fields]
    lines.append("actions = [")
    lines.extend(f"  {_toml_value(action.text)}," for action in history.actions)
    lines.append("]")
    if history.finishing_stacks is not None:
        lines.append(f"finishing_stacks = {_toml_value(list(history.finishing_stacks))}")
    return lines


def format_history(histories: Sequence[HandHistory], phhs: bool = False) -> str:
    """TOML text: one hand as a ``.phh``, several (or any number with ``phhs``) as a ``.phhs`` (tables
    ``[1]``, ``[2]``, …)."""
    if len(histories) == 1 and not phhs:
        return "\n".join(_history_lines(histories[0])) + "\n"
    parts = []
    for number, history in enumerate(histories, 1):
        parts.append(f"[{number}]\n" + "\n".join(_history_lines(history)) + "\n")
    return "\n".join(parts)


def hand_players(state: TableState, button: int) -> list[int]:
    """The seats of a hand's players ``p1`` … ``pN``: everyone seated with chips, clockwise from the
    dealer's left, the dealer last (a ring game keeps busted players seated; they are not players)."""
    n = len(state.seats)
    clockwise = [(button + i) % n for i in range(1, n + 1)]
    return [seat for seat in clockwise if (occupant := state.seats[seat]) is not None and occupant.stack > 0]


def export_hand(before: TableState, events: Iterable[Event]) -> HandHistory:
    """The hand history of one hand played by the decider.

    ``before``: the table state just before the hand's :class:`HandStarted`; ``events``: the hand's events
    from :class:`HandStarted` to :class:`HandEnded` (the stream may hold others; they are skipped).
    Raises ``ValueError`` if the events hold no complete hand.
    """
    started: HandStarted | None = None
    order: list[int] = []
    p: dict[int, str] = {}  # seat -> "p1" … "pN"
    texts: list[str] = []
    ended: HandEnded | None = None
    eliminated: set[int] = set()
    paid = 0  # adeguamento paid: in a parol hand the minimum opening bet is the pot (IT-PAROL-3)
    for event in events:
        if isinstance(event, HandStarted):
            started = event
            order = hand_players(before, event.button)
            p = {seat: f"p{index + 1}" for index, seat in enumerate(order)}
            continue
        if started is None:
            continue
        if isinstance(event, CardsDealt):
            texts.append(f"d dh {p[event.seat]} {format_cards(event.cards)}")
        elif isinstance(event, BlindBetPlaced | BetPlaced | Raised):
            texts.append(f"{p[event.seat]} cbr {event.to}")
        elif isinstance(event, BlindDeclined):
            texts.append(f"{p[event.seat]} dc")
        elif isinstance(event, Checked | Called):
            texts.append(f"{p[event.seat]} cc")
        elif isinstance(event, Folded) or (isinstance(event, AdeguamentoDeclined) and not event.automatic):
            texts.append(f"{p[event.seat]} f")
        elif isinstance(event, ParolSaid):
            texts.append(f"{p[event.seat]} pa")
        elif isinstance(event, AdeguamentoPaid):
            texts.append(f"{p[event.seat]} pt")
            paid += event.amount + event.invito
        elif isinstance(event, Discarded):
            texts.append(f"{p[event.seat]} sd {format_cards(event.cards)}".rstrip())
        elif isinstance(event, HandShown):
            texts.append(f"{p[event.seat]} sm {format_cards(event.cards)}")
        elif isinstance(event, HandMucked):
            texts.append(f"{p[event.seat]} sm")
        elif isinstance(event, HandEnded):
            ended = event
        elif isinstance(event, PlayerEliminated):
            eliminated.add(event.seat)
        if ended is not None and not isinstance(event, HandEnded | PlayerEliminated):
            break
    if started is None or ended is None:
        raise ValueError("the events hold no complete hand")
    occupants = [before.seats[seat] for seat in order]
    sitting_out = tuple(o.sitting_out for o in occupants if o is not None)
    stacks = dict(ended.stacks)
    antes = dict(started.antes)
    owed = dict(started.adeguamento)
    n = len(order)
    return HandHistory(
        variant=_VARIANT_OF[before.config.limit],
        players=tuple(o.player for o in occupants if o is not None),
        antes=tuple(antes.get(seat, 0) for seat in order),
        starting_stacks=tuple(o.stack for o in occupants if o is not None),
        actions=tuple(parse_action(text, n) for text in texts),
        min_bet=started.min_bet + paid if started.parol_hand else started.min_bet,
        opening=started.opening.symbol,
        carried_pot=started.carried,
        parol_hand=started.parol_hand,
        adeguamento=tuple(owed.get(seat, 0) for seat in order) if started.parol_hand else (),
        invito=started.invito,
        finishing_stacks=tuple(stacks.get(seat, 0) for seat in order),
        hand_id=started.hand_id,
        sitting_out=sitting_out if any(sitting_out) else (),
        tournament=before.config.tournament,
        parol_players=tuple(
            o.player for s in order if s in before.parol_players and (o := before.seats[s]) is not None
        ),
        seats=tuple(seat + 1 for seat in order),
        seat_count=len(before.seats),
    )
