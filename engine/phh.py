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

**Standard PHH** (issue 16, rule XX-HH-1: every other variant code, ``NT`` ``PO`` ``F7S`` … and codes we do
not play such as ``N2L1D``) is read and written by the same functions: the keys ``antes``,
``blinds_or_straddles``, ``bring_in``, ``small_bet``, ``big_bet``, ``min_bet``, ``ante_trimming_status``,
``starting_stacks``, ``actions``, ``finishing_stacks``, ``winnings``, ``players``, ``seats``, ``seat_count``,
``table``, ``hand`` and the dates, and every other key kept as it came (:attr:`HandHistory.metadata`). Amounts
with decimals (``0.50``, ``1259450.25``) are read exactly: TOML floats are read as :class:`decimal.Decimal`,
never ``float``, and every amount of a hand is scaled by ``10**decimals`` to whole chips
(:attr:`HandHistory.decimals`), written back the way the PHH dataset writes them (whole amounts as integers,
the others with the hand's decimals); action texts are kept verbatim. Actions follow PHH's grammar
(:func:`parse_standard_action`): ``d dh pN CARDS`` (unknown cards ``??``), ``d db CARDS``, ``pN pb``,
``pN f``, ``pN cc``, ``pN cbr AMOUNT``, ``pN sd [CARDS]``, ``pN sm [CARDS|-]`` and no-ops (comments).
A hand carrying our Italian fields (``opening``, ``carried_pot``, …) or a variant ending in ``IT`` is read
as poker all'italiana (and refused if its variant is not ``NIT``/``PIT``/``FIT``).
"""

from __future__ import annotations

import datetime
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from itertools import repeat
from pathlib import Path
from typing import Any, cast

from engine._replace import fast_init
from engine.cards import Card, InvalidCard, format_cards, parse_cards, parse_cards_or_unknown
from engine.games.italian.model import (
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
    "AUTOMATIC_PREFERENCE_NOTE",
    "ITALIAN_VARIANTS",
    "Action",
    "Difference",
    "HandHistory",
    "MalformedHistory",
    "export_hand",
    "format_amount",
    "format_history",
    "hand_players",
    "load_histories",
    "loads_histories",
    "mark_actions",
    "parse_action",
    "parse_history",
    "parse_standard_action",
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
class Difference:
    """Where a replay departs from the file: ``hand`` (1-based), ``action`` (1-based, 0 = the hand's
    start, ``len + 1`` = its end), the action text, what the file expects and what the engine did."""

    hand: int
    action: int
    text: str
    expected: str
    actual: str

    def describe(self, file: str) -> str:
        where = f"hand {self.hand}"
        if self.text:
            where += f", action {self.action} ({self.text})"
        elif self.action == 0:
            where += ", start"
        else:
            where += ", end"
        return f"{file}: {where}: expected {self.expected}, got {self.actual}"


@dataclass(frozen=True, slots=True)
class Action:
    """One PHH action. ``actor``: 0-based player index (``p1`` → 0) or ``None`` for the dealer;
    ``verb``: ``dh`` (deal to ``target``), ``cbr``, ``cc``, ``f``, ``pa``, ``pt``, ``dc``, ``sd``, ``sm``;
    ``amount`` for ``cbr``; ``cards`` for ``dh``/``sd``/``sm``; ``illegal``: marked ``# !illegal``.

    Standard PHH actions (:func:`parse_standard_action`) add the verbs ``db`` (board cards), ``pb``
    (bring-in) and ``""`` (a no-op: an empty string or a comment); ``amount`` is then in the hand's chips
    (the file's amount × ``10**decimals``); ``written`` holds the cards as written, ``None`` for each unknown
    ``??`` (``cards`` holds them only when all are known); ``show_dealt``: ``sm -`` (show the cards dealt)."""

    text: str
    actor: int | None
    verb: str
    target: int | None = None
    amount: int | None = None
    cards: tuple[Card, ...] = ()
    illegal: bool = False
    written: tuple[Card | None, ...] = ()
    show_dealt: bool = False


fast_init(Action)  # the same __init__, faster (engine._replace): one Action per action read


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
    optional fields: empty or ``None`` when absent.

    Standard PHH (:attr:`standard`) adds ``blinds_or_straddles``, ``bring_in``, ``small_bet``, ``big_bet``,
    ``ante_trimming_status`` and ``winnings``; every amount (those, ``antes``, ``min_bet``, the stacks and
    the ``cbr`` amounts) is in whole chips, the file's amount × ``10**decimals``. ``metadata``: the file's
    other keys, in order, as TOML read them (floats as ``Decimal``). ``amount_texts``: each amount field's
    numbers as the file wrote them (``"0.50"``, ``"1"``), written back while the field's values are
    unchanged."""

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
    # --- standard PHH (issue 16): amounts in chips = the file's amount × 10**decimals ------------------
    blinds_or_straddles: tuple[int, ...] = ()
    bring_in: int | None = None
    small_bet: int | None = None
    big_bet: int | None = None
    ante_trimming_status: bool | None = None
    winnings: tuple[int, ...] | None = None
    decimals: int = 0
    metadata: tuple[tuple[str, Any], ...] = ()
    amount_texts: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def limit(self) -> Limit:
        return ITALIAN_VARIANTS[self.variant]

    @property
    def standard(self) -> bool:
        """A standard PHH hand (every variant but poker all'italiana's)."""
        return self.variant not in ITALIAN_VARIANTS

    @property
    def player_count(self) -> int:
        """The number of players (``players`` may be absent in a standard file)."""
        return len(self.starting_stacks)


fast_init(HandHistory)  # the same __init__, faster (engine._replace)


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
    """A :class:`HandHistory` from one parsed TOML table (floats as :class:`~decimal.Decimal`, see
    :func:`load_histories`). Raises :class:`MalformedHistory`."""
    variant = raw.get("variant")
    if _is_standard(raw):
        return _parse_standard(raw, where)
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
        metadata=tuple((key, value) for key, value in raw.items() if key in KEPT_KEYS),
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


# --- the TOML of hand histories ---------------------------------------------------------------------------

_TOML_SCALAR = (
    r"'[^'\x00-\x08\x0a-\x1f\x7f]*'"  # a literal string
    r'|"[^"\\\x00-\x08\x0a-\x1f\x7f]*"'  # a basic string without escapes
    r"|[0-9]{2}:[0-9]{2}:[0-9]{2}"  # a local time (before the numbers: ``00`` is not one)
    r"|true|false"
    r"|[+-]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?"  # an integer or a decimal, no exponent, no underscores
)
_TOML_ITEM = re.compile(_TOML_SCALAR)
_TOML_VALUE = re.compile(
    rf"(?:{_TOML_SCALAR})"
    rf"|\[[ \t]*(?:(?:{_TOML_SCALAR})[ \t]*,[ \t]*)*(?:(?:{_TOML_SCALAR})[ \t]*,?[ \t]*)?\]"
)
_COMMENT = r"(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"
_TOML_LINE = re.compile(
    r"[ \t]*(?:"
    rf"(?P<key>[A-Za-z0-9_-]+)[ \t]*=[ \t]*(?P<value>{_TOML_VALUE.pattern}|\[)[ \t]*{_COMMENT}"
    rf"|\[[ \t]*(?P<table>[A-Za-z0-9_-]+)[ \t]*\][ \t]*{_COMMENT}"
    rf"|{_COMMENT}"
    r")[ \t]*"
)
_TOML_ARRAY_LINE = re.compile(rf"[ \t]*(?:(?P<item>{_TOML_SCALAR})[ \t]*(?P<comma>,)?)?[ \t]*{_COMMENT}")
_TOML_ARRAY_END = re.compile(rf"[ \t]*\][ \t]*{_COMMENT}")


def _toml_scalar(text: str) -> Any:
    first = text[0]
    if first == "'" or first == '"':
        return text[1:-1]
    if text == "true":
        return True
    if text == "false":
        return False
    if len(text) == 8 and text[2] == ":":
        return datetime.time(int(text[:2]), int(text[3:5]), int(text[6:]))  # ValueError: out of range
    return Decimal(text) if "." in text else int(text)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_NUMBER = re.compile(r"[+-]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
_NOT_LITERAL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f\"]")


def _one_line_array(inside: str) -> list[Any] | None:
    """The items of a one-line TOML array written the usual way, from the text between its brackets:
    literal strings (``'a', 'b'``: no control character, no ``"``) or numbers (``0, 0.50, 1``: integers
    and decimals as :data:`_TOML_SCALAR` reads them), separated by ``", "`` exactly; ``None`` for any
    other text (the line's pattern then decides). Numbers as :func:`_toml_scalar` gives them."""
    if not inside:
        return None
    if inside[0] == "'":
        parts = inside.split("'")
        between = parts[2:-1:2]  # what separates the strings: ", " each
        if (
            parts[0]
            or parts[-1]
            or len(parts) % 2 == 0  # an odd count of quotes: a string left open
            or between.count(", ") != len(between)
            or _NOT_LITERAL.search(inside)
        ):
            return None
        return parts[1::2]
    items = inside.split(", ")
    number = _NUMBER.fullmatch
    values: list[Any] = []
    for item in items:
        if number(item) is None:
            return None
        values.append(Decimal(item) if "." in item else int(item))
    return values


def _fast_toml(text: str) -> dict[str, Any] | None:
    """``tomllib.loads(text, parse_float=Decimal)`` for the TOML hand histories are written in — lines of
    ``key = value`` (bare keys; values: literal strings, basic strings without escapes, integers, decimals
    without exponent or underscores, booleans, local times, arrays of those on one line or one item a line),
    ``[name]`` tables (a .phhs's ``[1]``, ``[2]``, …), comments and blank lines — or ``None`` for any other
    text (anything else TOML allows, or an error), which :func:`_toml` then gives to ``tomllib``. Same
    result as ``tomllib`` whenever it is not ``None`` (tested against it on every file and on generated
    documents)."""
    if "\r" in text:
        return None
    document: dict[str, Any] = {}
    table = document
    line_match = _TOML_LINE.fullmatch
    lines = text.split("\n")
    count = len(lines)
    index = 0
    try:
        while index < count:
            line = lines[index]
            index += 1
            start = line.find(" = [")
            if start > 0 and line[-1] == "]" and _BARE_KEY.fullmatch(line, 0, start):
                # the usual one-line arrays, read without the line's pattern (same result: it would match)
                array = _one_line_array(line[start + 4 : -1])
                if array is not None:
                    key = line[:start]
                    if key in table:
                        return None
                    table[key] = array
                    continue
            match = line_match(line)
            if match is None:
                return None
            key = match["key"]
            if key is not None:
                value = match["value"]
                if key in table:
                    return None
                if value == "[":  # an array of one item a line
                    items: list[Any] = []
                    comma = True
                    while True:
                        if index >= count:
                            return None
                        line = lines[index]
                        index += 1
                        if _TOML_ARRAY_END.fullmatch(line):
                            break
                        item = _TOML_ARRAY_LINE.fullmatch(line)
                        if item is None:
                            return None
                        if item["item"] is not None:
                            if not comma:
                                return None
                            items.append(_toml_scalar(item["item"]))
                            comma = item["comma"] is not None
                    table[key] = items
                elif value[0] == "[":
                    parts = value.split("'")
                    if '"' not in value and not "".join(parts[::2]).strip("[], \t"):
                        # only literal strings (the line is valid: between them only commas, blanks, the
                        # brackets): the texts between the quotes, which a literal string cannot hold
                        table[key] = parts[1::2]
                    else:
                        table[key] = [_toml_scalar(item) for item in _TOML_ITEM.findall(value, 1)]
                else:
                    table[key] = _toml_scalar(value)
            elif match["table"] is not None:
                name = match["table"]
                if name in document:
                    return None
                table = document[name] = {}
    except ValueError:
        return None
    return document


def _toml(text: str) -> dict[str, Any]:
    """The TOML document of a hand history, decimals as :class:`Decimal` (``tomllib``'s result, read
    faster for the usual files by :func:`_fast_toml`). Raises ``tomllib.TOMLDecodeError``."""
    document = _fast_toml(text)
    return tomllib.loads(text, parse_float=Decimal) if document is None else document


def load_histories(path: str | Path) -> tuple[HandHistory, ...]:
    """The hands of a ``.phh`` (one) or ``.phhs`` (tables ``[1]``, ``[2]``, …) file.

    Raises :class:`MalformedHistory` (unreadable file, TOML syntax, a bad field or action).
    """
    try:
        document = _toml(Path(path).read_text(encoding="utf-8"))
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


GIRO_KEYS = frozenset({"giro_trigger", "giro_dealer", "giro_choice", "giro_timeout", "giro_end"})
"""The giro pazzo's keys of a hand (TL-GIRO-1, docs/hand-history-format.md): kept in
:attr:`HandHistory.metadata` by the Italian reader and writer too (the standard ones keep every key)."""
CONTEXT_KEYS = frozenset({"currency"})
"""PHH's optional keys about the hand's setting that the Italian reader and writer keep in
:attr:`HandHistory.metadata` too: ``currency`` (a cash table's hands, ``"XXX"``: play chips,
docs/hand-history-format.md)."""
KEPT_KEYS = GIRO_KEYS | CONTEXT_KEYS
"""The keys beyond the typed fields that a poker all'italiana hand keeps (:attr:`HandHistory.metadata`)."""


def _history_lines(history: HandHistory) -> list[str]:
    if history.standard:
        return _standard_lines(history)
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
    lines.extend(f"{key} = {_toml_value(value)}" for key, value in history.metadata if key in KEPT_KEYS)
    return lines


def format_history(histories: Sequence[HandHistory], phhs: bool = False) -> str:
    """TOML text: one hand as a ``.phh``, several (or any number with ``phhs``) as a ``.phhs`` (tables
    ``[1]``, ``[2]``, …). A history with its own ``phh_lines()`` (poker cinese's,
    :class:`engine.cinese.history.CineseHistory`) writes its own keys."""

    def lines(history: Any) -> list[str]:
        own = getattr(history, "phh_lines", None)
        return list(own()) if own is not None else _history_lines(history)

    if len(histories) == 1 and not phhs:
        return "\n".join(lines(histories[0])) + "\n"
    parts = []
    for number, history in enumerate(histories, 1):
        parts.append(f"[{number}]\n" + "\n".join(lines(history)) + "\n")
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
    at: dict[int, int] = {}  # seat -> 0-based player index (p1 -> 0)
    actions: list[Action] = []  # each built as parse_action reads its text (no text round trip)
    ended: HandEnded | None = None
    eliminated: set[int] = set()
    paid = 0  # adeguamento paid: in a parol hand the minimum opening bet is the pot (IT-PAROL-3)
    for event in events:
        if isinstance(event, HandStarted):
            started = event
            order = hand_players(before, event.button)
            p = {seat: f"p{index + 1}" for index, seat in enumerate(order)}
            at = {seat: index for index, seat in enumerate(order)}
            continue
        if started is None:
            continue
        if isinstance(event, CardsDealt):
            cards = tuple(event.cards)
            actions.append(
                Action(f"d dh {p[event.seat]} {format_cards(cards)}", None, "dh", at[event.seat], None, cards)
            )
        elif isinstance(event, BlindBetPlaced | BetPlaced | Raised):
            actions.append(Action(f"{p[event.seat]} cbr {event.to}", at[event.seat], "cbr", amount=event.to))
        elif isinstance(event, BlindDeclined):
            actions.append(Action(f"{p[event.seat]} dc", at[event.seat], "dc"))
        elif isinstance(event, Checked | Called):
            actions.append(Action(f"{p[event.seat]} cc", at[event.seat], "cc"))
        elif isinstance(event, Folded) or (isinstance(event, AdeguamentoDeclined) and not event.automatic):
            actions.append(Action(f"{p[event.seat]} f", at[event.seat], "f"))
        elif isinstance(event, ParolSaid):
            actions.append(Action(f"{p[event.seat]} pa", at[event.seat], "pa"))
        elif isinstance(event, AdeguamentoPaid):
            actions.append(Action(f"{p[event.seat]} pt", at[event.seat], "pt"))
            paid += event.amount + event.invito
        elif isinstance(event, Discarded):
            cards = tuple(event.cards)
            text = f"{p[event.seat]} sd {format_cards(cards)}".rstrip()
            actions.append(Action(text, at[event.seat], "sd", cards=cards))
        elif isinstance(event, HandShown):
            cards = tuple(event.cards)
            actions.append(
                Action(f"{p[event.seat]} sm {format_cards(cards)}", at[event.seat], "sm", cards=cards)
            )
        elif isinstance(event, HandMucked):
            actions.append(Action(f"{p[event.seat]} sm", at[event.seat], "sm"))
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
    return HandHistory(
        variant=_VARIANT_OF[before.config.limit],
        players=tuple(o.player for o in occupants if o is not None),
        antes=tuple(antes.get(seat, 0) for seat in order),
        starting_stacks=tuple(o.stack for o in occupants if o is not None),
        actions=tuple(actions),
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


AUTOMATIC_PREFERENCE_NOTE = "automatic: preference"
"""The comment of an action the table took for a player from their automatic options (IT-AUTO-1):
``p3 sm # automatic: preference`` (docs/hand-history-format.md); readers and the replay ignore it."""

_MARKABLE: Mapping[str, str] = {
    "BlindBetPlaced": "cbr",
    "BetPlaced": "cbr",
    "Raised": "cbr",
    "BlindDeclined": "dc",
    "Checked": "cc",
    "Called": "cc",
    "Folded": "f",
    "Discarded": "sd",
    "CardTurnedUp": "tu",
    "HandShown": "sm+",
    "HandMucked": "sm-",
}
"""The player's action each event is written as, by event name, the same in every writer (Italian and
core): one action of the event's seat; ``sm+`` a show with cards, ``sm-`` a muck (``sm`` alone)."""


def _action_kind(action: Action) -> str:
    if action.verb != "sm":
        return action.verb
    return "sm+" if len(action.text.split("#", 1)[0].split()) > 2 else "sm-"


def mark_actions(history: HandHistory, events: Sequence[Any], marks: Mapping[int, str]) -> HandHistory:
    """``history`` (a hand written from ``events`` by a game's ``export_hand``, with its ``seats``) with the
    comment ``marks[i]`` appended to the action written for ``events[i]`` (``"p3 sm # automatic:
    preference"``, IT-AUTO-1; a text already commented keeps its comment before the new one).

    An event is found by its seat and its kind (:data:`_MARKABLE`): the *k*-th show, muck, bet, decline …
    of a seat is the *k*-th such action of its player, as every writer writes one action per such event in
    the order of the events. An event of another kind, or one the writer did not write (an implicit step),
    keeps no mark. Pure: the history is unchanged when nothing is marked."""
    if not marks or not history.seats:
        return history
    player_of = {seat - 1: index for index, seat in enumerate(history.seats)}
    counts: dict[tuple[int, str], int] = {}
    wanted: dict[tuple[int, str, int], str] = {}
    for index, event in enumerate(events):
        kind = _MARKABLE.get(type(event).__name__)
        seat = getattr(event, "seat", None)
        if kind is None or not isinstance(seat, int) or seat not in player_of:
            continue
        key = (player_of[seat], kind)
        occurrence = counts.get(key, 0)
        counts[key] = occurrence + 1
        if index in marks:
            wanted[(*key, occurrence)] = marks[index]
    if not wanted:
        return history
    seen: dict[tuple[int, str], int] = {}
    actions = list(history.actions)
    changed = False
    for position, action in enumerate(actions):
        if action.actor is None:
            continue
        key = (action.actor, _action_kind(action))
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        note = wanted.get((*key, occurrence))
        if note:
            actions[position] = replace(action, text=f"{action.text} # {note}")
            changed = True
    return replace(history, actions=tuple(actions)) if changed else history


# --- standard PHH (issue 16, rule XX-HH-1) ------------------------------------------------------------------

_ITALIAN_KEYS = frozenset(
    {
        "opening",
        "carried_pot",
        "parol_hand",
        "adeguamento",
        "invito",
        "sitting_out",
        "tournament",
        "parol_players",
    }
)
_VARIANT_CODE = re.compile(r"[A-Z0-9][A-Z0-9/]*")
_TELESINA = re.compile(r"[NPF]TL")  # Telesina: the invito as antes, no blinds, no bring-in (TL-1)
_AMOUNT = re.compile(r"[0-9]+(\.[0-9]+)?")
_STANDARD_VERBS = {"pb", "f", "cc", "cbr", "sd", "sm", "tu"}
_MAX_DECIMALS = 9
# the keys the standard reader turns into typed fields; every other key is kept in HandHistory.metadata
_TYPED_KEYS = frozenset(
    {
        "variant",
        "antes",
        "blinds_or_straddles",
        "bring_in",
        "small_bet",
        "big_bet",
        "min_bet",
        "ante_trimming_status",
        "starting_stacks",
        "actions",
        "finishing_stacks",
        "winnings",
        "players",
        "seats",
        "seat_count",
        "table",
        "time",
        "time_zone",
        "day",
        "month",
        "year",
    }
)


_AMOUNT_KEYS = (
    "antes",
    "blinds_or_straddles",
    "bring_in",
    "small_bet",
    "big_bet",
    "min_bet",
    "starting_stacks",
    "finishing_stacks",
    "winnings",
)


def _is_standard(raw: Mapping[str, Any]) -> bool:
    """Whether ``raw`` is read as standard PHH: a variant code that is not poker all'italiana's, no Italian
    field, and not a code of our Italian pattern (``XIT``, a typo of ``PIT``, stays an Italian error)."""
    variant = raw.get("variant")
    return (
        isinstance(variant, str)
        and variant not in ITALIAN_VARIANTS
        and not variant.endswith("IT")
        and not (_ITALIAN_KEYS & raw.keys())
    )


def _decimal_places(value: Decimal) -> int:
    exponent = value.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _scaled(value: Decimal | int, decimals: int) -> int:
    """``value`` in chips: × ``10**decimals``, exact (the caller chose ``decimals`` large enough)."""
    if type(value) is int:
        return value * 10**decimals if decimals else value
    if isinstance(value, int):
        return value * 10**decimals if decimals else value
    return int(value.scaleb(decimals))


def format_amount(chips: int, decimals: int) -> str:
    """The PHH text of ``chips`` in a hand scaled by ``10**decimals``: an integer when whole (``1``, ``197``),
    else with the hand's decimals (``0.50``, ``200.30``), as the PHH dataset writes amounts."""
    if decimals == 0:
        return str(chips)
    whole, cents = divmod(chips, 10**decimals)
    return str(whole) if cents == 0 else f"{whole}.{cents:0{decimals}d}"


def _amount(value: object, key: str, where: str) -> Decimal | int:
    if type(value) is int and value >= 0:  # the usual amount (bool is not int's type)
        return value
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise MalformedHistory(where, f"{key} must be an amount >= 0 (an integer or a decimal)")
    if isinstance(value, Decimal) and not value.is_finite():
        raise MalformedHistory(where, f"{key}: unknown (infinite) amounts are not supported")
    if value < 0:
        raise MalformedHistory(where, f"{key} must be an amount >= 0 (an integer or a decimal)")
    if isinstance(value, Decimal) and _decimal_places(value) > _MAX_DECIMALS:
        raise MalformedHistory(where, f"{key}: at most {_MAX_DECIMALS} decimals")
    return value


def _amounts(raw: Mapping[str, Any], key: str, count: int, where: str) -> list[Decimal | int] | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != count:
        raise MalformedHistory(where, f"{key} must be a list of {count} amounts >= 0")
    # whole amounts >= 0 (checked in C): what _amount gives for each
    if set(map(type, value)) <= _INT_ONLY and min(value, default=0) >= 0:
        return list(value)
    return [_amount(v, key, where) for v in value]


_CARD_LISTS: dict[str, tuple[tuple[Card | None, ...], tuple[Card, ...]]] = {}
_CARD_LISTS_MAX = 65_536


def _card_lists(text: str, where: str) -> tuple[tuple[Card | None, ...], tuple[Card, ...]]:
    """The cards of ``text`` (``None`` for ``??``) and the known cards when every card is known (else
    ``()``). The same texts recur (``????``, boards): read once, both kept (a ``None in cards`` test calls
    ``Card.__eq__``, a Python method, for every card)."""
    found = _CARD_LISTS.get(text)
    if found is not None:
        return found
    try:
        cards = parse_cards_or_unknown(text)
    except InvalidCard as error:
        raise MalformedHistory(where, str(error)) from None
    known = () if any(card is None for card in cards) else cast(tuple[Card, ...], cards)
    if len(_CARD_LISTS) < _CARD_LISTS_MAX:
        _CARD_LISTS[text] = cards, known
    return cards, known


_PLAYERS = {f"p{i}": i - 1 for i in range(1, 100)}


def _parse_standard_tokens(text: str, players: int, where: str) -> tuple[Action, Decimal | int | None]:
    if not isinstance(text, str):
        raise MalformedHistory(where, f"an action must be a string, not {text!r}")
    if "#" in text:
        illegal = bool(_ILLEGAL.search(text))
        body = text.split("#", 1)[0].split()
    else:
        illegal, body = False, text.split()
    if not body:
        return Action(text, None, ""), None  # a no-op: empty, or a commentary alone
    if body[0] == "d":
        if len(body) == 4 and body[1] == "dh":
            written, known = _card_lists(body[3], where)
            target = _PLAYERS.get(body[2])
            if target is None or target >= players:
                target = _player(body[2], players, where)  # raises the reason
            return Action(text, None, "dh", target, None, known, illegal, written), None
        if len(body) == 3 and body[1] == "db":
            written, known = _card_lists(body[2], where)
            if len(known) != len(written):
                raise MalformedHistory(where, f"{text!r}: board cards must be known")
            return Action(text, None, "db", None, None, known, illegal, written), None
        raise MalformedHistory(where, f"{text!r}: the dealer's actions are 'd dh pN CARDS' and 'd db CARDS'")
    if len(body) < 2 or body[1] not in _STANDARD_VERBS:
        raise MalformedHistory(where, f"{text!r} is not a PHH action")
    actor = _PLAYERS.get(body[0])
    if actor is None or actor >= players:
        actor = _player(body[0], players, where)  # raises the reason
    verb, rest = body[1], body[2:]
    if verb == "cbr":
        if len(rest) == 1 and rest[0].isascii() and rest[0].isdigit():  # a whole amount: no decimals
            return Action(text, actor, verb, illegal=illegal), int(rest[0])
        if len(rest) != 1 or not _AMOUNT.fullmatch(rest[0]):
            raise MalformedHistory(where, f"{text!r}: 'cbr' takes one amount, like 40 or 3.50")
        amount = Decimal(rest[0])
        if _decimal_places(amount) > _MAX_DECIMALS:
            raise MalformedHistory(where, f"{text!r}: at most {_MAX_DECIMALS} decimals")
        return Action(text, actor, verb, illegal=illegal), amount
    if verb == "tu":  # Telesina (TL-DEAL-2): the face-down card the player turns up
        written, known = _card_lists(rest[0], where) if len(rest) == 1 else ((), ())
        if len(known) != 1:
            raise MalformedHistory(where, f"{text!r}: 'tu' takes the one card turned up, like Qs")
        return Action(text, actor, verb, cards=known, illegal=illegal, written=written), None
    if verb in ("sd", "sm"):
        if len(rest) > 1:
            raise MalformedHistory(where, f"{text!r}: cards are written together, like 7c8s9c")
        if verb == "sm" and rest == ["-"]:
            return Action(text, actor, verb, illegal=illegal, show_dealt=True), None
        written, known = _card_lists(rest[0], where) if rest else ((), ())
        return Action(text, actor, verb, cards=known, illegal=illegal, written=written), None
    if rest:
        raise MalformedHistory(where, f"{text!r}: '{verb}' takes nothing after it")
    return Action(text, actor, verb, illegal=illegal), None


_ACTIONS: dict[tuple[str, int], Action] = {}
_ACTIONS_MAX = 65_536


def _standard_actions(
    texts: list[Any], players: int, where: str
) -> tuple[list[Action], list[tuple[int, Decimal | int]]]:
    """:func:`_parse_standard_tokens` of each of a hand's action texts (``where``: the hand): the actions,
    and the ``(index, amount)`` of those with an amount (``cbr``, not yet scaled). The actions that name no
    card and no amount (``p3 f``, ``p1 cc``, ``d dh p2 ????``, ``p4 sm``…) recur from hand to hand: read
    once, kept (by text and player count) in a bounded memo; the others are read each time."""
    actions: list[Action] = []
    amounts: list[tuple[int, Decimal | int]] = []
    memo = _ACTIONS
    for index, text in enumerate(texts):
        key = (text, players) if type(text) is str else None
        found = None if key is None else memo.get(key)
        if found is not None:
            actions.append(found)
            continue
        action, amount = _parse_standard_tokens(text, players, f"{where}, action {index + 1}")
        if amount is not None:
            amounts.append((index, amount))
        elif key is not None and not action.cards and len(memo) < _ACTIONS_MAX:
            memo[key] = action
        actions.append(action)
    return actions, amounts


def parse_standard_action(text: str, players: int, where: str = "action", decimals: int = 0) -> Action:
    """Parse one standard PHH action (the grammar in the module doc); a ``cbr`` amount is scaled by
    ``10**decimals`` and must then be whole. Raises :class:`MalformedHistory`."""
    action, amount = _parse_standard_tokens(text, players, where)
    if amount is None:
        return action
    if isinstance(amount, Decimal) and _decimal_places(amount) > decimals:
        raise MalformedHistory(where, f"{text!r}: the amount has more than the hand's {decimals} decimals")
    return Action(
        action.text, action.actor, action.verb, amount=_scaled(amount, decimals), illegal=action.illegal
    )


_INT_ONLY = frozenset({int})


def _parse_standard(raw: Mapping[str, Any], where: str) -> HandHistory:
    """A standard PHH hand (see the module doc). Raises :class:`MalformedHistory`."""
    variant = str(raw["variant"])
    if not _VARIANT_CODE.fullmatch(variant):
        raise MalformedHistory(where, f"variant {variant!r} is not a PHH variant code (like NT, PO, F7S)")
    stacks_raw = raw.get("starting_stacks")
    if not isinstance(stacks_raw, list) or len(stacks_raw) < 2:
        raise MalformedHistory(
            where, "starting_stacks must be a list of amounts > 0, one per player (2 or more)"
        )
    n = len(stacks_raw)
    starting = _amounts(raw, "starting_stacks", n, where) or []
    antes = _amounts(raw, "antes", n, where)
    if antes is None:
        raise MalformedHistory(where, f"antes must be a list of {n} amounts >= 0")
    blinds = _amounts(raw, "blinds_or_straddles", n, where)
    finishing = _amounts(raw, "finishing_stacks", n, where)
    winnings = _amounts(raw, "winnings", n, where)
    single: dict[str, Decimal | int | None] = {}
    for key in ("bring_in", "small_bet", "big_bet", "min_bet"):
        value = raw.get(key)
        single[key] = None if value is None else _amount(value, key, where)
    fixed = variant.startswith("F")
    if fixed and (single["small_bet"] is None or single["big_bet"] is None):
        raise MalformedHistory(where, f"a fixed-limit variant ({variant}) needs small_bet and big_bet")
    if not fixed and single["min_bet"] is None:
        raise MalformedHistory(where, f"a no-limit or pot-limit variant ({variant}) needs min_bet")
    if blinds is None and single["bring_in"] is None and not _TELESINA.fullmatch(variant):
        raise MalformedHistory(where, "the hand needs blinds_or_straddles (button games) or bring_in (stud)")
    trimming = raw.get("ante_trimming_status")
    if trimming is not None and not isinstance(trimming, bool):
        raise MalformedHistory(where, "ante_trimming_status must be a boolean")
    actions_raw = raw.get("actions")
    if not isinstance(actions_raw, list):
        raise MalformedHistory(where, "actions must be a list of strings")
    parsed, bets = _standard_actions(actions_raw, n, where)
    # every amount of the hand in whole chips: scale by 10**decimals, the most decimals any amount has
    every: list[Decimal | int] = [*starting, *antes, *(blinds or ()), *(finishing or ()), *(winnings or ())]
    every += [v for v in single.values() if v is not None]
    every += [amount for _, amount in bets]
    # no Decimal (``_amount`` refused the rest): nothing to scale (the types compared in C)
    whole = set(map(type, every)) <= _INT_ONLY
    decimals = 0 if whole else max((_decimal_places(v) for v in every if isinstance(v, Decimal)), default=0)
    if (0 in starting) if whole else any(_scaled(v, decimals) == 0 for v in starting):
        raise MalformedHistory(where, "starting_stacks must be amounts > 0")
    for index, amount in bets:  # the actions with an amount: scaled
        action = parsed[index]
        parsed[index] = Action(
            action.text, action.actor, action.verb, amount=_scaled(amount, decimals), illegal=action.illegal
        )
    actions = tuple(parsed)
    players = raw.get("players", [])
    if (
        not isinstance(players, list)
        or (players and len(players) != n)
        or not all(map(isinstance, players, repeat(str)))
    ):
        raise MalformedHistory(where, f"players must be a list of {n} names")
    table = raw.get("table", "")
    if isinstance(table, bool) or not isinstance(table, str | int):
        raise MalformedHistory(where, "table must be a string or a whole number")
    seat_count = _whole(raw, "seat_count", where, least=n)
    seats = raw.get("seats", [])
    if (
        not isinstance(seats, list)
        or (seats and len(seats) != n)
        or any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in seats)
    ):
        raise MalformedHistory(where, f"seats must be a list of {n} seat numbers")
    raw_time = raw.get("time")
    if raw_time is not None and not isinstance(raw_time, datetime.time):
        raise MalformedHistory(where, "time must be a TOML local time, like 21:05:30")
    time_zone = raw.get("time_zone", "")
    if not isinstance(time_zone, str):
        raise MalformedHistory(where, 'time_zone must be a string, like "UTC"')
    hand = raw.get("hand", "")

    def chips(values: Sequence[Decimal | int] | None) -> tuple[int, ...]:
        if whole:
            return tuple(cast(list[int], values or ()))
        return tuple(_scaled(v, decimals) for v in values or ())

    def one(key: str) -> int | None:
        value = single[key]
        return None if value is None else _scaled(value, decimals)

    return HandHistory(
        variant=variant,
        players=tuple(players),
        antes=chips(antes),
        starting_stacks=chips(starting),
        actions=actions,
        min_bet=one("min_bet") or 0,
        finishing_stacks=chips(finishing) if finishing is not None else None,
        hand_id="" if isinstance(hand, bool) else str(hand),
        table=str(table),
        seats=tuple(seats),
        seat_count=seat_count,
        time="" if raw_time is None else raw_time.isoformat(),
        time_zone=time_zone,
        day=_whole(raw, "day", where, 1, 31),
        month=_whole(raw, "month", where, 1, 12),
        year=_whole(raw, "year", where),
        blinds_or_straddles=chips(blinds) if blinds is not None else (),
        bring_in=one("bring_in"),
        small_bet=one("small_bet"),
        big_bet=one("big_bet"),
        ante_trimming_status=trimming,
        winnings=chips(winnings) if winnings is not None else None,
        decimals=decimals,
        metadata=tuple((key, value) for key, value in raw.items() if key not in _TYPED_KEYS),
        amount_texts=tuple(
            (key, tuple(map(str, value if isinstance(value, list) else [value])))
            for key in _AMOUNT_KEYS
            if (value := raw.get(key)) is not None
        ),
    )


def _meta_value(value: object) -> str:
    """TOML text of a metadata value as it came (floats were read as ``Decimal``: written as they came)."""
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else ("inf" if value > 0 else "-inf")
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_toml_key(k)} = {_meta_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_meta_value(v) for v in value) + "]"
    return _toml_value(value)


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _toml_value(key)


def _standard_lines(history: HandHistory) -> list[str]:
    k = history.decimals
    texts = dict(history.amount_texts)

    def as_came(key: str, values: Sequence[int]) -> list[str]:
        """The field's numbers as the file wrote them while they still say ``values``, else formatted."""
        came = texts.get(key)
        if (
            came is not None
            and len(came) == len(values)
            and all(_scaled(Decimal(text), k) == value for text, value in zip(came, values, strict=True))
        ):
            return list(came)
        return [format_amount(v, k) for v in values]

    def amounts(values: Sequence[int], key: str = "") -> str:
        return "[" + ", ".join(as_came(key, values)) + "]"

    def amount(value: int, key: str) -> str:
        return as_came(key, [value])[0]

    lines = [f"variant = {_toml_value(history.variant)}"]
    if history.ante_trimming_status is not None:
        lines.append(f"ante_trimming_status = {_toml_value(history.ante_trimming_status)}")
    lines.append(f"antes = {amounts(history.antes, 'antes')}")
    if history.blinds_or_straddles:
        lines.append(f"blinds_or_straddles = {amounts(history.blinds_or_straddles, 'blinds_or_straddles')}")
    for key in ("bring_in", "small_bet", "big_bet"):
        value = getattr(history, key)
        if value is not None:
            lines.append(f"{key} = {amount(value, key)}")
    if not history.variant.startswith("F") or "min_bet" in texts:
        lines.append(f"min_bet = {amount(history.min_bet, 'min_bet')}")
    lines.append(f"starting_stacks = {amounts(history.starting_stacks, 'starting_stacks')}")
    lines.append("actions = [")
    lines.extend(f"  {_toml_value(action.text)}," for action in history.actions)
    lines.append("]")
    meta = dict(history.metadata)
    if history.players:
        lines.append(f"players = {_toml_value(list(history.players))}")
    if history.hand_id and "hand" not in meta:
        lines.append(f"hand = {_toml_value(history.hand_id)}")
    # the file's other keys in their order (``hand`` as it came: an integer or a string)
    lines.extend(f"{_toml_key(key)} = {_meta_value(value)}" for key, value in history.metadata)
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
    lines.extend(f"{key} = {_toml_value(value)}" for key, value in optional if value is not None)
    if history.finishing_stacks is not None:
        lines.append(f"finishing_stacks = {amounts(history.finishing_stacks, 'finishing_stacks')}")
    if history.winnings is not None:
        lines.append(f"winnings = {amounts(history.winnings, 'winnings')}")
    return lines


def loads_histories(text: str, phhs: bool = False, where: str = "file") -> tuple[HandHistory, ...]:
    """The hands of a ``.phh`` (``phhs`` false) or ``.phhs`` text, as :func:`load_histories` reads a file.
    Raises :class:`MalformedHistory`."""
    try:
        document = _toml(text)
    except tomllib.TOMLDecodeError as error:
        raise MalformedHistory(where, f"not valid TOML: {error}") from None
    if phhs:
        keys = sorted((k for k in document if k.isdigit()), key=int)
        if not keys or len(keys) != len(document):
            raise MalformedHistory(where, "a .phhs file holds only the tables [1], [2], …")
        return tuple(parse_history(document[k], f"hand {k}") for k in keys)
    return (parse_history(document, "hand 1"),)
