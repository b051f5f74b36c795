"""Arrangement games at a table (poker cinese, ``CN``, issue 20): the submitted arrangement, the player's
draft and the solver's suggestion.

A game *arranges* when its registered object has ``submit_command(seat, rows, stakes, at)`` and
``suggest(state, seat, seed, samples)`` (poker cinese's :class:`~engine.cinese.game.CineseGame`): the
service reaches them only through the registry (:func:`tables.games.find_game` of the table's code), like
every other member of a game.

- :func:`submit` — the player's rows (first, second, third: card codes) and one stake per row (token
  values), as one command on the table's stream (CN-2, CN-3). The rules refuse a wrong arrangement with a
  message naming the fault (400, nothing appended).
- :func:`save_draft` / :func:`draft_of` — the arrangement the player is building, kept in the cache
  (Redis), never in the log: it is no move, the others must never see it, and it is lost at no cost (the
  page rebuilds it; the time-out still runs the solver, CN-TIME-1). Keyed by table, game (hand number) and
  player; kept :data:`DRAFT_SECONDS`.
- :func:`suggestion` — the solver's arrangement and stakes for the player asking, with
  :data:`SUGGEST_SAMPLES` Monte Carlo samples (bounded work per request: tens of milliseconds once the
  evaluator's tables are built, :func:`warm_up`), seeded by ``"{hand_id}/{number}/{seat}/suggest"`` (the
  same answer on every request of a game), cached per game, seat and unused tokens.

Every function raises :class:`tables.service.TableNotFound` (404), :class:`~tables.service.NotYourSeat`
(403), :class:`~tables.service.BadRequest` (400: not an arrangement game, no game running, cards not held…)
or the game's refusals (400).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any

from django.core.cache import cache

from engine.cards import Card
from engine.core import Game
from engine.evaluation.common import InvalidHand
from engine.evaluation.standard import evaluate_standard, standard_evaluator
from tables import service
from tables.service import NOT_SEATED, NOT_SEATED_EN, BadRequest, Loaded, NotYourSeat, Outcome

DRAFT_SECONDS = 3 * 3600
"""How long a draft is kept in the cache (a game lasts the table's action time, minutes)."""
SUGGEST_SAMPLES = 8
"""The Monte Carlo samples of a suggestion (the bots' number): bounded work per request."""
ROWS = 3


def arranges(game: Game) -> bool:
    """Whether ``game`` is played by arranging cards in rows (it has ``submit_command`` and ``suggest``)."""
    return callable(getattr(game, "submit_command", None)) and callable(getattr(game, "suggest", None))


def warm_up() -> None:
    """Build the standard evaluator's tables now (about 2 s once per process), not in the first request that
    names or suggests an arrangement."""
    standard_evaluator()


def _parse(rows: Sequence[Sequence[str]]) -> tuple[tuple[Card, ...], ...]:
    try:
        return tuple(tuple(Card.parse(text) for text in row) for row in rows)
    except ValueError as error:
        raise BadRequest(f"Carta non valida: {error}", f"Invalid card: {error}") from error


def _seat(loaded: Loaded, player: str) -> int:
    if not arranges(loaded.rules):
        raise BadRequest(
            f"Al tavolo si gioca a {loaded.rules.name}: non si compongono file di carte.",
            f"The table plays {loaded.rules.name}: there are no rows of cards to arrange.",
        )
    seat = loaded.seat_of(player)
    if seat is None:
        raise NotYourSeat(NOT_SEATED, NOT_SEATED_EN)
    return seat


def _dealt(loaded: Loaded, seat: int) -> tuple[Any, tuple[Card, ...]]:
    """The game running and ``seat``'s cards in it; :class:`BadRequest` when there is none or the seat has
    no cards in it."""
    hand = getattr(loaded.state, "hand", None)
    if hand is None:
        raise BadRequest(
            "Nessuna partita in corso: le carte si compongono quando sono distribuite.",
            "No deal in progress: the cards are arranged once they are dealt.",
        )
    if seat not in hand.dealt:
        raise BadRequest(
            "Non hai carte in questa partita: giochi dalla prossima partita.",
            "You have no cards in this deal: you play from the next one.",
        )
    return hand, tuple(hand.cards[seat])


def submit(
    table_id: int,
    player: str,
    rows: Sequence[Sequence[str]],
    stakes: Sequence[int],
    *,
    expected_version: int | None = None,
    command_id: str | None = None,
    respond: Callable[[Loaded], dict[str, Any]] | None = None,
) -> Outcome:
    """``player`` submits ``rows`` (three lists of card codes: first, second, third) and ``stakes`` (one
    token value per row) at the table (CN-2, CN-3); a player who submitted may submit again until the last
    player submits. See :func:`tables.service.handle` for ``expected_version``, ``command_id`` and
    ``respond``. Raises as the module says; the rules' refusals name the fault (sizes, a card twice or not
    held, rows out of order, a token not held…)."""
    parsed = _parse(rows)

    def decide(loaded: Loaded, at: int) -> Any:
        seat = _seat(loaded, player)
        game: Any = loaded.rules
        return game.submit_command(seat, parsed, tuple(stakes), at)

    return service.handle(
        table_id,
        decide,
        expected_version=expected_version,
        actor=player,
        command_id=command_id,
        respond=respond,
    )


# --- rows described for the page ----------------------------------------------------------------------


def row_sizes(players: int) -> tuple[int, int, int]:
    """The rows' sizes (CN-1, CN-2): 5, 5, 3 with four players, else 5, 5, 5."""
    return (5, 5, 3) if players == 4 else (5, 5, 5)


def describe(rows: Sequence[Sequence[Card]], sizes: Sequence[int]) -> dict[str, Any]:
    """What the page shows of ``rows`` as they form: ``names`` (per row, ``{"category", "it", "en"}`` once the
    row is full, else ``None``), ``complete`` (every row full) and ``in_order`` (``False`` as soon as two full
    rows break first ≥ second ≥ third, CN-2)."""
    names: list[dict[str, str] | None] = []
    keys: list[int | None] = []
    for row, size in zip(rows, sizes, strict=True):
        if len(row) != size:
            names.append(None)
            keys.append(None)
            continue
        try:
            value = evaluate_standard(row)
        except InvalidHand:  # never for a full row of distinct cards
            names.append(None)
            keys.append(None)
            continue
        names.append({"category": value.category.value, "it": value.label_it, "en": value.label_en})
        keys.append(value.key)
    in_order = all(upper is None or lower is None or upper >= lower for upper, lower in pairwise(keys))
    if keys[0] is not None and keys[2] is not None:
        in_order = in_order and keys[0] >= keys[2]
    return {"names": names, "complete": all(k is not None for k in keys), "in_order": in_order}


# --- drafts ------------------------------------------------------------------------------------------


def _draft_key(table_id: int, hand_number: int, player: str) -> str:
    return f"cinese-draft:{table_id}:{hand_number}:{player}"


def _draft_body(
    loaded: Loaded, hand: Any, cards: Sequence[Card], rows: Sequence[Sequence[Card]], stakes: Sequence[Any]
) -> dict[str, Any]:
    sizes = row_sizes(len(hand.dealt))
    placed = {card for row in rows for card in row}
    return {
        "hand_number": loaded.hand_number,
        "rows": [[str(card) for card in row] for row in rows],
        "stakes": list(stakes),
        "unplaced": [str(card) for card in cards if card not in placed],
        "sizes": list(sizes),
        **describe(rows, sizes),
    }


def draft_of(table_id: int, player: str) -> dict[str, Any]:
    """``player``'s draft in the game running (empty rows when none was saved): ``hand_number``, ``rows``
    (card codes), ``stakes`` (a token value or ``None`` per row), ``unplaced`` (the cards in no row, in the
    order dealt), ``sizes`` and :func:`describe`'s ``names``, ``complete``, ``in_order``."""
    loaded = service.load(table_id)
    seat = _seat(loaded, player)
    hand, cards = _dealt(loaded, seat)
    saved = cache.get(_draft_key(table_id, loaded.hand_number, player))
    rows: tuple[tuple[Card, ...], ...] = ((),) * ROWS
    stakes: list[Any] = [None] * ROWS
    if isinstance(saved, dict):
        rows = _parse(saved.get("rows", [[]] * ROWS))
        stakes = list(saved.get("stakes", stakes))
    return _draft_body(loaded, hand, cards, rows, stakes)


def save_draft(
    table_id: int, player: str, rows: Sequence[Sequence[str]], stakes: Sequence[int | None]
) -> dict[str, Any]:
    """Keep ``player``'s draft (rows of card codes, each no longer than its row; a stake or ``None`` per
    row) for the game running; returns it as :func:`draft_of` does. Refused (:class:`BadRequest`) for a card
    the player does not hold, a card twice, a row too long or a token value not in the table's set."""
    loaded = service.load(table_id)
    seat = _seat(loaded, player)
    hand, cards = _dealt(loaded, seat)
    parsed = _parse(rows)
    sizes = row_sizes(len(hand.dealt))
    seen: set[Card] = set()
    for number, (row, size) in enumerate(zip(parsed, sizes, strict=True), start=1):
        if len(row) > size:
            raise BadRequest(
                f"La fila {number} ha {len(row)} carte: al massimo {size}.",
                f"Row {number} has {len(row)} cards: at most {size}.",
            )
        for card in row:
            if card not in cards:
                raise BadRequest(f"Non hai la carta {card}.", f"You do not hold the card {card}.")
            if card in seen:
                raise BadRequest(f"La carta {card} è in due file.", f"The card {card} is in two rows.")
            seen.add(card)
    tokens = set(getattr(loaded.state.config, "tokens", ()))
    for stake in stakes:
        if stake is not None and stake not in tokens:
            raise BadRequest(
                f"Nessun gettone da {stake}: i gettoni sono {sorted(tokens)}.",
                f"No token of {stake}: the tokens are {sorted(tokens)}.",
            )
    cache.set(
        _draft_key(table_id, loaded.hand_number, player),
        {"rows": [[str(card) for card in row] for row in parsed], "stakes": list(stakes)},
        DRAFT_SECONDS,
    )
    return _draft_body(loaded, hand, cards, parsed, stakes)


# --- the solver's suggestion -----------------------------------------------------------------------------


def suggestion(table_id: int, player: str) -> dict[str, Any]:
    """The solver's arrangement and stakes for ``player`` in the game running (CN-TIME-1's solver, the
    page's "suggest"): ``hand_number``, ``rows`` (card codes, first row first), ``stakes`` and
    :func:`describe`'s fields. Only the player asking gets it (their own cards). :data:`SUGGEST_SAMPLES`
    samples; cached per game, seat and unused tokens."""
    loaded = service.load(table_id)
    seat = _seat(loaded, player)
    hand, _ = _dealt(loaded, seat)
    unused = tuple(loaded.state.match.unused[seat]) if loaded.state.match is not None else ()
    key = f"cinese-suggest:{table_id}:{loaded.hand_number}:{seat}:{','.join(map(str, unused))}"
    found = cache.get(key)
    if not isinstance(found, dict):
        game: Any = loaded.rules
        seed = f"{hand.hand_id}/{hand.number}/{seat}/suggest"
        solution = game.suggest(loaded.state, seat, seed, SUGGEST_SAMPLES)
        found = {
            "rows": [[str(card) for card in row] for row in solution.rows],
            "stakes": list(solution.stakes),
        }
        cache.set(key, found, DRAFT_SECONDS)
    sizes = row_sizes(len(hand.dealt))
    return {
        "hand_number": loaded.hand_number,
        **found,
        "sizes": list(sizes),
        **describe(_parse(found["rows"]), sizes),
    }
