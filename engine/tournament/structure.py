"""Tournament structures for every game: the forced bets of a level, presets per game, the labels that show
them, and the text form of a level (rules T-LEVEL-1, G-BLIND-1, G-ANTE-1, G-LIMIT-1, ST-1, IT-ANTE-1).

Pure: no I/O, no clock. Games are reached through the registry (:func:`engine.core.find_game`); a level's
forced bets are an :class:`engine.core.ForcedBets` checked by the game (``Game.check_forced_bets``).

- :func:`legacy_game`: the game of a tournament written before issue 17 (no game recorded): poker
  all'italiana at the tournament's limit (``NL`` → ``NIT``, ``PL`` → ``PIT``, ``FL`` → ``FIT``).
- :func:`headline`: the one number a column shows (the invito, the big blind, stud's small bet).
- :func:`forced_preset`: the forced bets of a preset structure for a game, level by level: blind games
  (hold'em, Omaha, draw: small blind = half the big blind, a big-blind ante equal to the big blind from
  level 3, fixed limit's bets = big blind and twice it), stud (ante = a fifth of the small bet, bring-in =
  3/10 of it, big bet twice it), poker all'italiana (the invito). Scaled to the starting stack.
- :func:`describe`: "NLHE 400/800 ante 800", "Stud FL 1k/2k, ante 200, bring-in 300",
  "Italiana PL, invito 25".
- :func:`parse_level`: one line of a director's custom structure (``100/200 bba 200 15``, ``@PIT 50 15``,
  ``pausa 10``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

from engine.core import ForcedBets, ForcedBetsRefused, Game, GameFamily, find_game

__all__ = [
    "BIG_BLIND_ANTE_FROM", "BLIND_STEPS", "INVITO_STEPS", "ITALIAN_MTT_MAX_SEATS", "PRESET_DEPTH",
    "PRESET_LEVELS", "STUD_STEPS",
    "LevelLine", "LevelLineError", "chips", "describe", "fit_forced", "forced_at", "forced_preset",
    "headline", "is_blind_game", "legacy_game", "nice", "parse_level", "table_max_seats",
]  # fmt: skip

_LEGACY = {"NL": "NIT", "PL": "PIT", "FL": "FIT"}

ITALIAN_MTT_MAX_SEATS = 6
"""The most seats of an Italian multi-table tournament's table (the decision of issue 5, kept: six players
play the 40-card deck of IT-DECK-1; a sit-and-go may seat up to the game's nine)."""

INVITO_STEPS = (
    25, 35, 50, 70, 100, 125, 175, 250, 350, 500, 700, 1000, 1250, 1750,
    2500, 3500, 5000, 7000, 10_000, 12_500, 17_500, 25_000, 35_000, 50_000,
)  # fmt: skip
"""The inviti of the Italian preset for a 10,000-chip stack (unchanged since issue 5)."""

BLIND_STEPS = (
    50, 100, 150, 200, 300, 400, 500, 600, 800, 1000, 1200, 1500,
    2000, 2500, 3000, 4000, 5000, 6000, 8000, 10_000, 12_000, 15_000, 20_000, 25_000,
    30_000, 40_000, 50_000, 60_000, 80_000,
)  # fmt: skip
"""The big blinds of the blind games' presets for a 10,000-chip stack; a preset plays 24 of them from its
:data:`PRESET_DEPTH` step (regular: 200 big blinds deep at level 1)."""

STUD_STEPS = (
    100, 150, 200, 300, 400, 500, 600, 800, 1000, 1200, 1500, 2000,
    2500, 3000, 4000, 5000, 6000, 8000, 10_000, 12_000, 15_000, 20_000, 25_000, 30_000,
    40_000, 50_000, 60_000, 80_000, 100_000,
)  # fmt: skip
"""The small bets of the stud presets for a 10,000-chip stack (24 of them from :data:`PRESET_DEPTH`)."""

PRESET_LEVELS = 24
"""Playing levels of a preset structure."""

PRESET_DEPTH = {"regular": 0, "turbo": 1, "hyper": 5}
"""The step of :data:`BLIND_STEPS` / :data:`STUD_STEPS` a preset of the blind games and stud starts at: as
real structures do, a turbo starts shallower than a regular (100 big blinds instead of 200) and a hyper
much shallower (25 big blinds; 20 small bets in stud). Poker all'italiana keeps issue 5's inviti for every
preset (they differ by the clock only)."""

BIG_BLIND_ANTE_FROM = 3
"""The first level (1-based) of a blind game's preset with a big-blind ante (G-ANTE-1)."""


def legacy_game(limit: str) -> str:
    """The variant code of a tournament recorded before issue 17 (no game): poker all'italiana at ``limit``
    (``"NL"``, ``"PL"``, ``"FL"``; anything else: the default, pot limit)."""
    return _LEGACY.get(limit, "PIT")


def headline(forced: ForcedBets) -> int:
    """The one amount a column shows for ``forced`` (chips): the invito, else the big blind, else stud's
    small bet, else the ante (0: none)."""
    return forced.invito or forced.big_blind or forced.small_bet or forced.ante or forced.bring_in


def is_blind_game(forced: ForcedBets) -> bool:
    """Whether a level with ``forced`` plays blinds (T-BAL-1's blind games: hold'em, Omaha, draw); else it
    is ante-only (poker all'italiana, stud)."""
    return forced.big_blind > 0


def table_max_seats(game: Game) -> int:
    """The most seats of a tournament table of ``game``: the game's :attr:`~engine.core.Game.max_seats`, and
    :data:`ITALIAN_MTT_MAX_SEATS` for poker all'italiana."""
    if game.family is GameFamily.ITALIAN:
        return min(game.max_seats, ITALIAN_MTT_MAX_SEATS)
    return game.max_seats


def nice(value: Fraction | int) -> int:
    """``value`` rounded half up to a whole number below 100, else to two significant figures (at least 1)."""
    value = Fraction(value)
    if value < 100:
        return max(1, int(value + Fraction(1, 2)))
    unit: int = 10 ** (len(str(int(value))) - 2)
    return int(value / unit + Fraction(1, 2)) * unit


def _rising(values: list[int]) -> list[int]:
    out: list[int] = []
    for value in values:
        out.append(max(value, out[-1] + 1) if out else value)
    return out


def fit_forced(game: Game, forced: ForcedBets) -> ForcedBets:
    """``forced`` for ``game``, without the optional fields the game does not use (a preset proposes a
    big-blind ante and fixed limit's bet sizes; a game that refuses one of them plays without it). Raises
    :class:`engine.core.ForcedBetsRefused` when something the game needs is missing or wrong."""
    for _ in range(len(forced.used()) + 1):
        try:
            game.check_forced_bets(forced)
            return forced
        except ForcedBetsRefused as refused:
            field = refused.field
            if field in _OPTIONAL and bool(getattr(forced, field, 0)):
                forced = replace(forced, **{field: 0})
                continue
            raise
    game.check_forced_bets(forced)
    return forced


_OPTIONAL = frozenset({"big_blind_ante", "ante", "small_bet", "big_bet", "straddle"})


def _scaled(steps: tuple[int, ...], starting_stack: int) -> list[int]:
    return _rising([nice(Fraction(step * starting_stack, 10_000)) for step in steps])


def forced_at(game: Game, amount: int, level: int) -> ForcedBets:
    """The forced bets of ``game`` whose headline amount (:func:`headline`) is ``amount`` chips, at preset
    level ``level`` (1-based; a blind game's big-blind ante starts at :data:`BIG_BLIND_ANTE_FROM`):

    - poker all'italiana: ``invito = amount``;
    - stud (ST-1): ``small_bet = amount``, ``ante`` a fifth of it, ``bring_in`` 3/10 of it (below the
      small bet), ``big_bet`` twice it in fixed limit;
    - blind games (TH-1, OM-1, FD-1): ``big_blind = amount`` (at least 2), ``small_blind`` half of it,
      ``big_blind_ante`` = the big blind from level 3, and in fixed limit ``small_bet`` = the big blind and
      ``big_bet`` twice it (G-LIMIT-1).

    Fields the game refuses as unused are left out (:func:`fit_forced`)."""
    if game.family is GameFamily.ITALIAN:
        return fit_forced(game, ForcedBets(invito=max(1, amount)))
    if game.family is GameFamily.STUD:
        small = max(2, amount)
        ante = nice(Fraction(small, 5))
        bring_in = max(1, min(small - 1, nice(Fraction(small * 3, 10))))
        big = 2 * small if game.limit == "FL" else 0
        return fit_forced(game, ForcedBets(ante=ante, bring_in=bring_in, small_bet=small, big_bet=big))
    big_blind = max(2, amount)
    bba = big_blind if level >= BIG_BLIND_ANTE_FROM else 0
    bets = (big_blind, 2 * big_blind) if game.limit == "FL" else (0, 0)
    proposed = ForcedBets(
        small_blind=max(1, big_blind // 2),
        big_blind=big_blind,
        big_blind_ante=bba,
        small_bet=bets[0],
        big_bet=bets[1],
    )
    return fit_forced(game, proposed)


def forced_preset(
    game: Game, starting_stack: int = 10_000, preset: str = "regular"
) -> tuple[ForcedBets, ...]:
    """The forced bets of the 24 playing levels of the ``preset`` structure (T-LEVEL-1; ``"regular"``,
    ``"turbo"``, ``"hyper"``: :data:`PRESET_DEPTH`) for ``game`` (:func:`forced_at`), their headline
    amounts scaled by ``starting_stack / 10_000`` and always rising: the invito of poker all'italiana
    (:data:`INVITO_STEPS`, as the preset of issue 5, three significant figures, the same for every preset),
    stud's small bet (:data:`STUD_STEPS`), the blind games' big blind (:data:`BLIND_STEPS`; two
    significant figures, :func:`nice`). Raises ``KeyError`` for an unknown ``preset``."""
    depth = PRESET_DEPTH[preset]
    if game.family is GameFamily.ITALIAN:
        amounts = _rising([_nice3(Fraction(s * starting_stack, 10_000)) for s in INVITO_STEPS])
    elif game.family is GameFamily.STUD:
        steps = STUD_STEPS[depth : depth + PRESET_LEVELS]
        amounts = _rising([max(2, a) for a in _scaled(steps, starting_stack)])
    else:
        steps = BLIND_STEPS[depth : depth + PRESET_LEVELS]
        amounts = _rising([max(2, a) for a in _scaled(steps, starting_stack)])
    return tuple(forced_at(game, amount, number) for number, amount in enumerate(amounts, start=1))


def _nice3(value: Fraction) -> int:
    """Rounded half up below 100, else to three significant figures (the Italian preset of issue 5)."""
    if value < 100:
        return max(1, int(value + Fraction(1, 2)))
    unit = int("1" + "0" * (len(str(int(value))) - 3))
    return int(value / unit + Fraction(1, 2)) * unit


# --- labels ------------------------------------------------------------------------------------------


def chips(amount: int) -> str:
    """A chip amount as a clock shows it: ``400``, ``1k``, ``1.5k``, ``25k``, ``2.5M``, ``1.25M``; amounts
    that are not whole hundreds (below a million) or ten thousands stay whole (``1250``)."""
    if amount >= 1_000_000 and amount % 10_000 == 0:
        return f"{Fraction(amount, 1_000_000).__float__():g}M"
    if amount >= 1000 and amount % 100 == 0:
        return f"{Fraction(amount, 1000).__float__():g}k"
    return str(amount)


def describe(game: Game, forced: ForcedBets) -> str:
    """The game and its forced bets in one line (dashboard, clock screen, lobby):

    - blind games: ``"NLHE 400/800 ante 800"`` (small/big blind; ``ante`` for a big-blind ante or an ante
      for everyone, ``straddle`` if any);
    - stud: ``"Stud FL 1k/2k, ante 200, bring-in 300"`` (small/big bet; in pot and no limit the small bet
      alone, ``"bet 1k"``);
    - poker all'italiana: ``"Italiana PL, invito 25"``.
    """
    name = game.short_name
    if forced.invito and not forced.big_blind:
        return f"{name}, invito {chips(forced.invito)}"
    if forced.big_blind:
        text = f"{name} {chips(forced.small_blind)}/{chips(forced.big_blind)}"
        ante = forced.big_blind_ante or forced.ante
        if ante:
            text += f" ante {chips(ante)}"
        if forced.straddle:
            text += f" straddle {chips(forced.straddle)}"
        return text
    parts = []
    if forced.small_bet and forced.big_bet:
        parts.append(f"{name} {chips(forced.small_bet)}/{chips(forced.big_bet)}")
    elif forced.small_bet:
        parts.append(f"{name} bet {chips(forced.small_bet)}")
    else:
        parts.append(name)
    if forced.ante:
        parts.append(f"ante {chips(forced.ante)}")
    if forced.bring_in:
        parts.append(f"bring-in {chips(forced.bring_in)}")
    return ", ".join(parts)


# --- the text of a level -------------------------------------------------------------------------------


class LevelLineError(ValueError):
    """A line of a custom structure that does not parse (the English message says what to write)."""


@dataclass(frozen=True, slots=True)
class LevelLine:
    """One parsed line: ``game`` (a variant code, ``""``: the tournament's), ``forced`` (``None`` for a
    break), ``minutes`` (> 0), ``is_break``."""

    game: str
    forced: ForcedBets | None
    minutes: float
    is_break: bool = False


_WORDS: dict[str, str] = {
    "ante": "ante",
    "bba": "big_blind_ante",
    "bb-ante": "big_blind_ante",
    "bring-in": "bring_in",
    "bringin": "bring_in",
    "bring_in": "bring_in",
    "straddle": "straddle",
    "invito": "invito",
    "sb": "small_blind",
    "bb": "big_blind",
}


def _amount(text: str) -> int:
    value = text.strip().lower().replace("_", "")
    factor = 1
    if value.endswith("k"):
        factor, value = 1000, value[:-1]
    elif value.endswith("m"):
        factor, value = 1_000_000, value[:-1]
    amount = Fraction(value) * factor
    if amount.denominator != 1 or amount < 0:
        raise ValueError(text)
    return int(amount)


def parse_level(line: str, default_game: str, find: Callable[[str], Game] = find_game) -> LevelLine | None:
    """One line of a custom structure, minutes last (``None`` for an empty line):

    - ``pausa 10`` / ``break 10``: a break of 10 minutes;
    - ``50 15``: the game's headline amount (the invito of poker all'italiana, the big blind of a blind
      game with half of it as small blind, stud's small bet) for 15 minutes;
    - ``100/200 15``: small/big blind (blind games) or small/big bet (stud);
    - then words: ``ante 25``, ``bba 200`` (big-blind ante), ``bring-in 30``, ``straddle 400``,
      ``invito 50``, or any field of :class:`engine.core.ForcedBets` as ``name=amount``; amounts may be
      written ``1k``, ``2.5k``, ``1M``;
    - ``@CODE`` anywhere: the level's own game (mixed games), e.g. ``@FIT 50 15``.

    The game's check (``Game.check_forced_bets``) is the caller's. Raises :class:`LevelLineError` for what
    does not parse, or :class:`engine.core.UnknownGame` for an unknown ``@CODE``.
    """
    tokens = line.replace(",", " ").replace(";", " ").split()
    if not tokens:
        return None
    game_code = ""
    rest: list[str] = []
    for token in tokens:
        if token.startswith("@"):
            game_code = token[1:].upper()
        else:
            rest.append(token)
    usage = "write e.g. “100/200 bba 200 15”, “50 15” or “pausa 10” (amounts, then the minutes)"
    if len(rest) < 2:
        raise LevelLineError(usage)
    try:
        minutes = float(rest[-1])
    except ValueError as error:
        raise LevelLineError(f"the minutes come last: {usage}") from error
    if rest[0].lower() in ("pausa", "break"):
        if len(rest) != 2 or game_code:
            raise LevelLineError(usage)
        return LevelLine("", None, minutes, is_break=True)
    game = find(game_code or default_game)
    values: dict[str, int] = {}
    words = rest[:-1]
    index = 0
    try:
        while index < len(words):
            word = words[index].lower()
            if "=" in word:
                name, _, written = word.partition("=")
                values[name.strip()] = _amount(written)
                index += 1
            elif word in _WORDS:
                values[_WORDS[word]] = _amount(words[index + 1])
                index += 2
            elif word == "bets" or "/" in word:
                pair = words[index + 1] if word == "bets" else word
                low, _, high = pair.partition("/")
                stud = word == "bets" or game.family is GameFamily.STUD
                names = ("small_bet", "big_bet") if stud else ("small_blind", "big_blind")
                values[names[0]], values[names[1]] = _amount(low), _amount(high)
                index += 2 if word == "bets" else 1
            elif index == 0:
                amount = _amount(word)
                if game.family is GameFamily.ITALIAN:
                    values["invito"] = amount
                elif game.family is GameFamily.STUD:
                    values["small_bet"] = amount
                else:
                    values["big_blind"] = amount
                    values["small_blind"] = max(1, amount // 2)
                index += 1
            else:
                raise LevelLineError(f"“{words[index]}” is not a forced bet: {usage}")
    except (ValueError, ZeroDivisionError, IndexError) as error:
        if isinstance(error, LevelLineError):
            raise
        raise LevelLineError(f"an amount is not a whole number of chips: {usage}") from error
    try:
        forced = ForcedBets.from_dict(values)
    except ForcedBetsRefused as refused:
        raise LevelLineError(str(refused)) from refused
    return LevelLine(game_code, forced, minutes)
