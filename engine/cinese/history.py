"""Poker cinese hand histories: a PHH extension (variant ``CN``, issue 20), documented in
``docs/hand-history-format.md`` ("Poker cinese").

One game is one TOML table (a ``.phh`` file, or a section ``[1]``, ``[2]``, … of a ``.phhs`` file: the
games of a match in order). Keys: ``variant = "CN"``, ``hand`` (the service's hand id), ``table``,
``match`` and ``game`` (1–3) numbers, ``cascade``, ``token_set``, ``players``, ``seats`` (1-based),
``tokens`` (each player's unused tokens at the start of the game), ``cards`` (each player's dealt cards,
PHH card text), ``arrangements`` (each player's three rows), ``stakes`` (each player's three tokens),
``automatic`` (the solver arranged, CN-TIME-1), and the reveal: ``row_winnings`` (per row, each player's
victory points taken there), ``winnings`` (each player's points of the game) and ``match_points`` (each
player's points in the match after this game).

:func:`replay_histories` checks a file: every arrangement is legal for the cards and tokens (CN-2, CN-3),
the rows pay what the file says (CN-4), and, game after game of the same match, the tokens left and the
match points carry over (CN-5).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.cards import Card, Deck, format_cards, parse_cards
from engine.cinese import rules
from engine.cinese.model import (
    GAMES_PER_MATCH,
    ArrangementSubmitted,
    CardsDealt,
    CineseConfig,
    CineseError,
    CineseState,
    HandEnded,
    HandStarted,
    MatchState,
    RowWon,
    StartGame,
    Submit,
)
from engine.cinese.model import Arrangement as _Arrangement
from engine.core.model import PlayerSeated, SeatPlayer
from engine.phh import Difference, MalformedHistory

__all__ = ["CineseHistory", "dumps", "export_game", "loads", "replay_file", "replay_histories"]


@dataclass(frozen=True, slots=True)
class CineseHistory:
    """One game of poker cinese as written in a file (see the module doc; per-player tuples in seat
    order)."""

    players: tuple[str, ...]
    seats: tuple[int, ...]
    tokens: tuple[tuple[int, ...], ...]
    cards: tuple[tuple[Card, ...], ...]
    arrangements: tuple[tuple[tuple[Card, ...], ...], ...]
    stakes: tuple[tuple[int, ...], ...]
    automatic: tuple[bool, ...]
    row_winnings: tuple[tuple[int, ...], ...]
    winnings: tuple[int, ...]
    match_points: tuple[int, ...]
    match: int = 1
    game: int = 1
    cascade: bool = False
    token_set: tuple[int, ...] = (0, 1, 1, 2, 2, 2, 3, 3, 4)
    hand_id: str = ""
    table: str = ""
    variant: str = "CN"
    time: str = ""
    time_zone: str = ""
    day: int | None = None
    month: int | None = None
    year: int | None = None

    def dumps(self) -> str:
        """This game as TOML (one ``.phh`` file)."""
        return dumps([self])

    def phh_lines(self) -> list[str]:
        """This game's ``key = value`` lines (:func:`engine.phh.format_history` writes them)."""
        return _body(self)


def export_game(before: CineseState, events: Sequence[Any]) -> CineseHistory:
    """The history of the one game in ``events`` (from its ``HandStarted`` or the ``MatchStarted`` before it,
    to its ``HandEnded``), ``before`` the state just before them. Raises ``ValueError`` when they hold no
    complete game."""
    state = before
    started: HandStarted | None = None
    at_start: CineseState | None = None
    ended = False
    rows: list[RowWon] = []
    for event in events:
        if isinstance(event, HandStarted):
            started, at_start = event, state
        state = rules.evolve(state, event)
        if isinstance(event, RowWon):
            rows.append(event)
        if isinstance(event, HandEnded):
            ended = True
            points_state = state
            break
    if started is None or at_start is None or not ended or at_start.match is None:
        raise ValueError("the events hold no complete poker cinese game")
    match = points_state.match if points_state.match is not None else None
    seats = started.dealt
    arrangements = {seat: arr for seat, arr in state.revealed}
    automatic: dict[int, bool] = {}
    cards: dict[int, tuple[Card, ...]] = {}
    for event in events:
        if isinstance(event, ArrangementSubmitted):
            automatic[event.seat] = event.automatic
        if isinstance(event, CardsDealt):
            cards[event.seat] = event.down
    index = {seat: i for i, seat in enumerate(seats)}
    row_winnings = tuple(
        tuple(sum(dict(row.won).get(seat, ())) for seat in seats) for row in sorted(rows, key=lambda r: r.row)
    )
    winnings = tuple(sum(row_winnings[r][index[seat]] for r in range(3)) for seat in seats)
    if match is not None:
        totals = tuple(match.points[seat] for seat in seats)
    else:  # the match ended with this game: its MatchEnded carries the totals
        totals = tuple(at_start.match.points[seat] + winnings[index[seat]] for seat in seats)
    players = []
    for seat in seats:
        occupant = at_start.seats[seat]
        players.append(occupant.player if occupant is not None else f"seat{seat + 1}")
    return CineseHistory(
        players=tuple(players),
        seats=tuple(seat + 1 for seat in seats),
        tokens=tuple(at_start.match.unused[seat] for seat in seats),
        cards=tuple(cards[seat] for seat in seats),
        arrangements=tuple(arrangements[seat].rows for seat in seats),
        stakes=tuple(arrangements[seat].stakes for seat in seats),
        automatic=tuple(automatic.get(seat, False) for seat in seats),
        row_winnings=row_winnings,
        winnings=winnings,
        match_points=totals,
        match=started.match,
        game=started.game,
        cascade=at_start.config.cascade,
        token_set=at_start.config.tokens,
        hand_id=started.hand_id,
    )


# --- TOML ------------------------------------------------------------------------------------------------


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} in a history")


def _body(h: CineseHistory) -> list[str]:
    pairs: list[tuple[str, Any]] = [
        ("variant", h.variant),
        ("hand", h.hand_id),
        ("table", h.table),
        ("match", h.match),
        ("game", h.game),
        ("cascade", h.cascade),
        ("token_set", h.token_set),
        ("players", h.players),
        ("seats", h.seats),
        ("tokens", h.tokens),
        ("cards", tuple(format_cards(c).replace(" ", "") for c in h.cards)),
        (
            "arrangements",
            tuple(tuple(format_cards(row).replace(" ", "") for row in rows) for rows in h.arrangements),
        ),
        ("stakes", h.stakes),
        ("automatic", h.automatic),
        ("row_winnings", h.row_winnings),
        ("winnings", h.winnings),
        ("match_points", h.match_points),
    ]
    pairs += [("time_zone", h.time_zone), ("day", h.day), ("month", h.month), ("year", h.year)]
    lines = [f"{key} = {_toml(value)}" for key, value in pairs if value not in ("", None)]
    if h.time:  # a TOML local time, as PHH writes it
        lines.append(f"time = {h.time}")
    return lines


def dumps(histories: Sequence[CineseHistory]) -> str:
    """One game as a ``.phh`` text, several as a ``.phhs`` text (sections ``[1]``, ``[2]``, …)."""
    if len(histories) == 1:
        return "\n".join(_body(histories[0])) + "\n"
    parts = []
    for number, history in enumerate(histories, 1):
        parts.append(f"[{number}]\n" + "\n".join(_body(history)) + "\n")
    return "\n".join(parts)


def _cards(text: Any, where: str) -> tuple[Card, ...]:
    if not isinstance(text, str):
        raise MalformedHistory(where, 'cards are written as text, e.g. "AsKh"')
    try:
        return parse_cards(text)
    except ValueError as error:
        raise MalformedHistory(where, str(error)) from error


def _ints(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise MalformedHistory(where, "a list of whole numbers is expected")
    return tuple(value)


def _one(raw: Any, where: str) -> CineseHistory:
    if not isinstance(raw, dict) or raw.get("variant") != "CN":
        raise MalformedHistory(where, 'not a poker cinese game (variant = "CN")')
    try:
        players = tuple(str(p) for p in raw["players"])
        n = len(players)
        history = CineseHistory(
            players=players,
            seats=_ints(raw.get("seats", list(range(1, n + 1))), f"{where}: seats"),
            tokens=tuple(_ints(t, f"{where}: tokens") for t in raw["tokens"]),
            cards=tuple(_cards(c, f"{where}: cards") for c in raw["cards"]),
            arrangements=tuple(
                tuple(_cards(row, f"{where}: arrangements") for row in rows) for rows in raw["arrangements"]
            ),
            stakes=tuple(_ints(s, f"{where}: stakes") for s in raw["stakes"]),
            automatic=tuple(bool(a) for a in raw.get("automatic", [False] * n)),
            row_winnings=tuple(_ints(r, f"{where}: row_winnings") for r in raw["row_winnings"]),
            winnings=_ints(raw["winnings"], f"{where}: winnings"),
            match_points=_ints(raw.get("match_points", raw["winnings"]), f"{where}: match_points"),
            match=int(raw.get("match", 1)),
            game=int(raw.get("game", 1)),
            cascade=bool(raw.get("cascade", False)),
            token_set=_ints(raw.get("token_set", [0, 1, 1, 2, 2, 2, 3, 3, 4]), f"{where}: token_set"),
            hand_id=str(raw.get("hand", "")),
            table=str(raw.get("table", "")),
            time=str(raw.get("time", "")),
            time_zone=str(raw.get("time_zone", "")),
            day=raw.get("day"),
            month=raw.get("month"),
            year=raw.get("year"),
        )
    except KeyError as error:
        raise MalformedHistory(where, f"missing key {error.args[0]!r}") from error
    except TypeError as error:
        raise MalformedHistory(where, str(error)) from error
    lengths = {len(history.seats), len(history.tokens), len(history.cards), len(history.arrangements)}
    lengths |= {len(history.stakes), len(history.automatic), len(history.winnings), len(history.match_points)}
    if lengths != {n} or not 2 <= n <= 4:
        raise MalformedHistory(where, "2 to 4 players, and one entry per player in every per-player list")
    if len(history.row_winnings) != 3 or any(len(r) != n for r in history.row_winnings):
        raise MalformedHistory(where, "row_winnings: three rows of one number per player")
    return history


def loads(text: str, where: str = "file") -> tuple[CineseHistory, ...]:
    """The games of a ``.phh`` (one) or ``.phhs`` (sections) text. Raises :class:`MalformedHistory`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise MalformedHistory(where, f"not TOML: {error}") from error
    if "variant" in data:
        return (_one(data, where),)
    return tuple(_one(data[key], f"{where} [{key}]") for key in data)


def is_cinese(text: str) -> bool:
    """Whether ``text`` (a TOML history) holds poker cinese games (``variant = "CN"``)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    if data.get("variant") == "CN":
        return True
    return bool(data) and all(isinstance(v, dict) and v.get("variant") == "CN" for v in data.values())


# --- replay ----------------------------------------------------------------------------------------------


def _state_for(h: CineseHistory, previous: CineseState | None) -> CineseState:
    n = len(h.players)
    seats = max(h.seats)
    config = CineseConfig(seats=max(seats, 2), tokens=h.token_set, cascade=h.cascade, samples=1)
    state = rules.initial_state(config)
    for player, seat in zip(h.players, h.seats, strict=True):
        state = rules.evolve(state, PlayerSeated(seat - 1, player, 0))
    points = [0] * config.seats
    for i, seat in enumerate(h.seats):
        points[seat - 1] = h.match_points[i] - h.winnings[i]
    unused: list[tuple[int, ...]] = [()] * config.seats
    for i, seat in enumerate(h.seats):
        unused[seat - 1] = tuple(sorted(h.tokens[i]))
    match = MatchState(
        number=h.match,
        seats=tuple(seat - 1 for seat in h.seats),
        games=h.game - 1,
        unused=tuple(unused),
        points=tuple(points),
        rows_won=(0,) * config.seats,
        last=(0,) * config.seats,
    )
    del n, previous
    return replace(state, match=match, matches=h.match)


def _replay_game(h: CineseHistory, number: int) -> Difference | None:
    state = _state_for(h, None)
    dealt = [card for cards in h.cards for card in cards]
    expected_count = rules.cards_per_player(len(h.players))
    if any(len(cards) != expected_count for cards in h.cards) or len(set(dealt)) != len(dealt):
        return Difference(number, 0, "cards", f"{expected_count} distinct cards each (CN-1)", "other cards")
    rest = [card for card in sorted_deck() if card not in set(dealt)]
    try:
        state, _ = rules.apply(state, StartGame(tuple(dealt + rest), 0, h.hand_id))
    except CineseError as error:
        return Difference(number, 0, "start", "the game starts", str(error))
    for i, seat in enumerate(h.seats):
        command = Submit(seat - 1, _Arrangement(h.arrangements[i], h.stakes[i]), 0)
        try:
            state, _events = rules.apply(state, command)
        except CineseError as error:
            text = f"p{i + 1} " + "/".join(format_cards(row).replace(" ", "") for row in h.arrangements[i])
            return Difference(number, i + 1, text, "a legal arrangement", f"{type(error).__name__}: {error}")
    results = sorted(state.results, key=lambda r: r.row)
    for row in range(3):
        won = dict(results[row].won)
        got = tuple(sum(won.get(seat - 1, ())) for seat in h.seats)
        if got != h.row_winnings[row]:
            return Difference(number, len(h.seats) + 1, f"row {row + 1}", str(h.row_winnings[row]), str(got))
    got_total = tuple(sum(h.row_winnings[r][i] for r in range(3)) for i in range(len(h.seats)))
    if got_total != h.winnings:
        return Difference(number, len(h.seats) + 1, "winnings", str(h.winnings), str(got_total))
    return None


def sorted_deck() -> tuple[Card, ...]:
    """The 52 cards in canonical order (the rest of a replayed deck)."""
    return Deck.standard().cards


def replay_histories(histories: Sequence[CineseHistory]) -> Difference | None:
    """Replay ``histories`` (games, a match's in order): the first difference, or ``None``. Consecutive
    games of the same match must carry the tokens left and the match points over (CN-3, CN-5), and a
    game's tokens must be the token set less what earlier games staked."""
    previous: CineseHistory | None = None
    for number, history in enumerate(histories, 1):
        difference = _replay_game(history, number)
        if difference is not None:
            return difference
        if previous is not None and previous.match == history.match and previous.players == history.players:
            left = tuple(
                tuple(sorted((Counter(t) - Counter(s)).elements()))
                for t, s in zip(previous.tokens, previous.stakes, strict=True)
            )
            if tuple(tuple(sorted(t)) for t in history.tokens) != left:
                return Difference(number, 0, "tokens", str(left), str(history.tokens))
            carried = tuple(p + w for p, w in zip(previous.match_points, history.winnings, strict=True))
            if carried != history.match_points:
                return Difference(number, 0, "match_points", str(carried), str(history.match_points))
        elif history.game == 1 and history.match_points != history.winnings:
            return Difference(number, 0, "match_points", str(history.winnings), str(history.match_points))
        if history.game == 1 and any(Counter(t) != Counter(history.token_set) for t in history.tokens):
            return Difference(number, 0, "tokens", str(history.token_set), str(history.tokens))
        if not 1 <= history.game <= GAMES_PER_MATCH:
            return Difference(number, 0, "game", f"1 to {GAMES_PER_MATCH}", str(history.game))
        previous = history
    return None


def replay_file(path: str) -> Difference | None:
    """Replay one poker cinese file. Raises :class:`MalformedHistory`."""
    return replay_histories(loads(Path(path).read_text(encoding="utf-8"), path))


def seat_command(seat: int, player: str) -> SeatPlayer:
    """The command seating ``player`` (tests build tables with it)."""
    return SeatPlayer(seat, player, 0)
