"""Ranking vector files (``ranking.toml``, see ``shared/scenarios/README.md``) and their checking.

A file holds ``[[case]]`` entries — ``ranking`` (``"italian"`` with ``players`` fixing the deck, rule
IT-DECK-1, or ``"standard"``) and either ``better`` + ``worse`` (the first must beat the second) or
``equal = [a, b]`` (they must tie) — and ``[[pot]]`` entries — ``ranking``, ``players``, ``hands`` (the
contenders' hands) and ``winner`` (index of the winning hand, or ``winners``, a list, for a split), for
rules that exist only when a pot is settled (IT-RANK-4; optional ``minimal_beats_royal``, default
``"spades-vs-hearts"``). Hands are PHH card strings: 5 cards for the Italian ranking (more: the best five),
3, 5, 6 or 7 for the standard ranking.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cards import Deck, InvalidCard, InvalidDeck, parse_cards
from engine.evaluation.common import HandValue, InvalidHand
from engine.evaluation.italian import MinimalBeatsRoyal, italian_evaluator, italian_pot_winners
from engine.evaluation.standard import standard_evaluator, standard_winners

__all__ = ["Failure", "MalformedVectors", "VectorEntry", "check_entry", "load_vectors"]

_CASE_KEYS = {"ranking", "players", "better", "worse", "equal", "note"}
_POT_KEYS = {"ranking", "players", "hands", "winner", "winners", "minimal_beats_royal", "note"}


class MalformedVectors(ValueError):
    """A vector file that cannot be checked: ``file``, ``where`` (e.g. ``"case 3"``) and ``reason``."""

    def __init__(self, file: str, where: str, reason: str) -> None:
        super().__init__(f"{file}: {where}: {reason}")
        self.file = file
        self.where = where
        self.reason = reason


@dataclass(frozen=True, slots=True)
class VectorEntry:
    """One checkable entry: ``kind`` is ``"case"`` or ``"pot"``, ``number`` 1-based within its kind.

    ``hands``: the evaluated hands (better, worse; or the two equal ones; or a pot's contenders) and
    ``texts`` the same hands as written in the file; ``expect``: ``"better"``, ``"equal"`` or ``"pot"``;
    ``winners``: expected winner indexes (pots).
    """

    file: str
    kind: str
    number: int
    expect: str
    hands: tuple[HandValue, ...]
    texts: tuple[str, ...]
    winners: tuple[int, ...] = ()
    minimal_beats_royal: MinimalBeatsRoyal = MinimalBeatsRoyal.SPADES_VS_HEARTS

    @property
    def where(self) -> str:
        return f"{self.kind} {self.number}"


@dataclass(frozen=True, slots=True)
class Failure:
    """An entry whose expectation does not hold, with a message a person can read."""

    entry: VectorEntry
    message: str

    def __str__(self) -> str:
        return f"{self.entry.file}: {self.entry.where}: {self.message}"


def _describe(entry: VectorEntry, index: int) -> str:
    return f"{entry.texts[index]} ({entry.hands[index].label_en})"


def check_entry(entry: VectorEntry) -> Failure | None:
    """``None`` if the entry holds, else a :class:`Failure` saying what was expected and what came out."""
    if entry.expect == "better":
        better, worse = entry.hands
        if better.key > worse.key:
            return None
        outcome = "ties with" if better.key == worse.key else "loses to"
        return Failure(
            entry, f"expected {_describe(entry, 0)} to beat {_describe(entry, 1)}, but it {outcome} it"
        )
    if entry.expect == "equal":
        first, second = entry.hands
        if first.key == second.key:
            return None
        winner, loser = (0, 1) if first.key > second.key else (1, 0)
        return Failure(
            entry, f"expected a tie, but {_describe(entry, winner)} beats {_describe(entry, loser)}"
        )
    if entry.hands[0].ranking.value == "italian":
        got = italian_pot_winners(entry.hands, entry.minimal_beats_royal)
    else:
        got = standard_winners(entry.hands)
    if got == entry.winners:
        return None
    return Failure(
        entry,
        f"expected winner(s) {list(entry.winners)}, got {list(got)}: "
        + "; ".join(f"{index}: {_describe(entry, index)}" for index in range(len(entry.hands))),
    )


def _evaluator_for(raw: Mapping[str, Any], file: str, where: str) -> Callable[[str, str], HandValue]:
    ranking = raw.get("ranking")

    def parse(text: object, field: str) -> tuple[Any, ...]:
        if not isinstance(text, str):
            raise MalformedVectors(file, where, f"{field} must be a string of cards, not {text!r}")
        try:
            return parse_cards(text)
        except InvalidCard as error:
            raise MalformedVectors(file, where, f"{field}: {error}") from None

    if ranking == "italian":
        players = raw.get("players")
        try:
            deck = Deck.italian(players)  # type: ignore[arg-type]
        except InvalidDeck as error:
            raise MalformedVectors(file, where, f"players: {error}") from None
        evaluator = italian_evaluator(deck)

        def italian(text: str, field: str) -> HandValue:
            cards = parse(text, field)
            try:
                return evaluator.evaluate(cards) if len(cards) == 5 else evaluator.best(cards)
            except InvalidHand as error:
                raise MalformedVectors(file, where, f"{field}: {error}") from None

        return italian
    if ranking == "standard":
        if "players" in raw:
            raise MalformedVectors(file, where, "players only applies to the italian ranking")

        def standard(text: str, field: str) -> HandValue:
            cards = parse(text, field)
            try:
                return standard_evaluator().evaluate(cards)
            except InvalidHand as error:
                raise MalformedVectors(file, where, f"{field}: {error}") from None

        return standard
    raise MalformedVectors(file, where, f'ranking must be "italian" or "standard", not {ranking!r}')


def _case(raw: Any, file: str, number: int) -> VectorEntry:
    where = f"case {number}"
    if not isinstance(raw, dict):
        raise MalformedVectors(file, where, "a case must be a table")
    unknown = set(raw) - _CASE_KEYS
    if unknown:
        raise MalformedVectors(file, where, f"unknown field(s) {', '.join(sorted(unknown))}")
    evaluate = _evaluator_for(raw, file, where)
    if "equal" in raw:
        if "better" in raw or "worse" in raw:
            raise MalformedVectors(file, where, "give either equal or better + worse, not both")
        equal = raw["equal"]
        if not isinstance(equal, list) or len(equal) != 2:
            raise MalformedVectors(file, where, "equal must be a list of two hands")
        hands = (evaluate(equal[0], "equal[0]"), evaluate(equal[1], "equal[1]"))
        return VectorEntry(file, "case", number, "equal", hands, (equal[0], equal[1]))
    if "better" not in raw or "worse" not in raw:
        raise MalformedVectors(file, where, "a case needs better and worse, or equal")
    hands = (evaluate(raw["better"], "better"), evaluate(raw["worse"], "worse"))
    return VectorEntry(file, "case", number, "better", hands, (raw["better"], raw["worse"]))


def _pot(raw: Any, file: str, number: int) -> VectorEntry:
    where = f"pot {number}"
    if not isinstance(raw, dict):
        raise MalformedVectors(file, where, "a pot must be a table")
    unknown = set(raw) - _POT_KEYS
    if unknown:
        raise MalformedVectors(file, where, f"unknown field(s) {', '.join(sorted(unknown))}")
    evaluate = _evaluator_for(raw, file, where)
    texts = raw.get("hands")
    if not isinstance(texts, list) or len(texts) < 2:
        raise MalformedVectors(file, where, "hands must be a list of at least two hands")
    hands = tuple(evaluate(text, f"hands[{index}]") for index, text in enumerate(texts))
    if ("winner" in raw) == ("winners" in raw):
        raise MalformedVectors(file, where, "give exactly one of winner (an index) or winners (a list)")
    expected = raw["winners"] if "winners" in raw else [raw["winner"]]
    if (
        not isinstance(expected, list)
        or not expected
        or any(not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(hands) for i in expected)
    ):
        raise MalformedVectors(file, where, f"winner(s) must be indexes into hands (0..{len(hands) - 1})")
    option_text = raw.get("minimal_beats_royal", MinimalBeatsRoyal.SPADES_VS_HEARTS.value)
    try:
        option = MinimalBeatsRoyal(option_text)
    except ValueError:
        choices = ", ".join(repr(o.value) for o in MinimalBeatsRoyal)
        raise MalformedVectors(file, where, f"minimal_beats_royal must be one of {choices}") from None
    return VectorEntry(file, "pot", number, "pot", hands, tuple(texts), tuple(sorted(set(expected))), option)


def load_vectors(path: str | Path) -> tuple[VectorEntry, ...]:
    """Read and evaluate every entry of a vector file. Raises :class:`MalformedVectors` on the first
    entry that cannot be checked (unreadable file, TOML syntax, unknown fields, bad cards, wrong counts).
    """
    file = str(path)
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as error:
        raise MalformedVectors(file, "file", f"cannot read it: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise MalformedVectors(file, "file", f"not valid TOML: {error}") from None
    unknown = set(document) - {"case", "pot"}
    if unknown:
        raise MalformedVectors(file, "file", f"unknown table(s) {', '.join(sorted(unknown))}")
    entries = [_case(raw, file, number) for number, raw in enumerate(document.get("case", []), 1)]
    entries += [_pot(raw, file, number) for number, raw in enumerate(document.get("pot", []), 1)]
    if not entries:
        raise MalformedVectors(file, "file", "no [[case]] or [[pot]] entries")
    return tuple(entries)
