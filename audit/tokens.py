"""Every token accounted for at the tables of a token game (poker cinese, issue 20: CN-3, CN-4, CN-5), read
from the recorded events alone (their JSON), without the engine:

- in each game, the tokens staked (the stakes of every ``HandShown``) are the tokens won (``RowWon.won``)
  plus the tokens nobody took (``RowWon.discarded``), row by row;
- each seat's points in a game (``HandEnded.points``) are the values it won in that game's rows;
- over a match (``MatchStarted`` … ``MatchEnded``), each seat stakes no token it does not hold (its stakes
  are a sub-multiset of the match's token set: a token is staked once, CN-3), and the match's totals
  (``MatchEnded.totals``) are the values each seat won in it (CN-5).

A stream without ``MatchStarted`` (every other game) has nothing to check. Each problem names the version of
the event where the accounts do not balance.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from audit.hands import HandProblem
from eventstore.store import RecordedEvent


def _won(data: dict[str, Any]) -> dict[int, list[int]]:
    return {int(seat): [int(v) for v in values] for seat, values in data.get("won", ())}


def verify(stream_id: str, recorded: Sequence[RecordedEvent]) -> list[HandProblem]:
    """The token accounts of the table stream ``recorded`` (all its events, in version order)."""
    problems: list[HandProblem] = []

    def problem(version: int, message: str) -> None:
        problems.append(HandProblem(stream_id, version, message))

    tokens: Counter[int] | None = None
    staked_in_match: dict[int, Counter[int]] = {}
    won_in_match: Counter[int] = Counter()
    game_stakes: dict[int, list[int]] = {}
    game_won: Counter[int] = Counter()
    game_taken = 0
    game_discarded = 0
    game = 0
    for event in recorded:
        data = event.data
        if event.type == "MatchStarted":
            tokens = Counter(int(t) for t in data.get("tokens", ()))
            staked_in_match = {int(seat): Counter() for seat in data.get("seats", ())}
            won_in_match = Counter()
        elif tokens is None:
            continue
        elif event.type == "HandStarted":
            game = int(data.get("number", 0))
            game_stakes, game_won, game_taken, game_discarded = {}, Counter(), 0, 0
        elif event.type == "HandShown":
            seat = int(data["seat"])
            stakes = [int(s) for s in data["arrangement"]["stakes"]]
            game_stakes[seat] = stakes
            held = staked_in_match.setdefault(seat, Counter())
            held.update(stakes)
            extra = sorted((held - tokens).elements())
            if extra:
                problem(event.version, f"game {game}: seat {seat + 1} staked {extra}, tokens not held")
        elif event.type == "RowWon":
            for seat, values in _won(data).items():
                game_won[seat] += sum(values)
                won_in_match[seat] += sum(values)
                game_taken += sum(values)
            game_discarded += sum(int(v) for v in data.get("discarded", ()))
        elif event.type == "HandEnded":
            staked = sum(sum(stakes) for stakes in game_stakes.values())
            if staked != game_taken + game_discarded:
                problem(
                    event.version,
                    f"game {game}: {staked} in tokens staked, "
                    f"{game_taken} won and {game_discarded} discarded",
                )
            points = {int(seat): int(p) for seat, p in data.get("points", ())}
            for seat in sorted(set(points) | set(game_won)):
                if points.get(seat, 0) != game_won.get(seat, 0):
                    problem(
                        event.version,
                        f"game {game}: seat {seat + 1} has {points.get(seat, 0)} points, "
                        f"won {game_won.get(seat, 0)} in the rows",
                    )
        elif event.type == "MatchEnded":
            totals = {int(seat): int(p) for seat, p in data.get("totals", ())}
            for seat in sorted(set(totals) | set(won_in_match)):
                if totals.get(seat, 0) != won_in_match.get(seat, 0):
                    problem(
                        event.version,
                        f"match {data.get('number')}: seat {seat + 1} totals {totals.get(seat, 0)}, "
                        f"won {won_in_match.get(seat, 0)}",
                    )
    return problems
