"""The service's part of the giro pazzo (rule TL-GIRO-1): the rules are :mod:`engine.giro`'s pure decider;
this module drives it between hands and appends its events to the table's stream.

A table opened with ``giro_pazzo`` (``TableOpened.giro_pazzo``; a tournament's ``MttConfig.giro_pazzo``)
records the giro's events among its own (``GiroPazzoStarted``, ``DealerAsked``, ``VariantChosen``,
``GiroHandStarted``, ``GiroPazzoEnded``, folded into :attr:`tables.service.Loaded.giro`). The service's
``handle`` appends the start and the end after the hand that causes them; between hands
:func:`step` (called by the start-hand timer, :func:`tables.tasks.run_start_hand`) does the next thing due:

1. a giro running and the table not yet in the giro's game: :func:`tables.service.change_game` into
   Telesina at the table's limit with the ``libera`` layout and distribution (``TableGameChanged`` with
   ``giro``: the mixed games' mechanism, issue 17);
2. nobody asked yet: ask the next hand's dealer (``DealerAsked`` with the deadline: the table's action
   time); a dealer whose preference says "always use it when I deal", who sits out, a bot, or an empty
   seat (dead button) has the table choose at once (``VariantChosen`` with ``automatic``, also in the
   append's metadata);
3. the dealer's time out: the table chooses (:class:`engine.giro.ChoiceTimeout`, the dealer's preference
   or the table's default; automatic);
4. the choice made: the hand starts with it (``StartHand.options``), and ``GiroHandStarted`` follows;
5. the giro over and the table still in its game: :func:`tables.service.change_game` back to the table's
   own game (:attr:`tables.service.Loaded.base_game`).

:func:`choose_variant` is the dealer's command (API ``POST /api/tables/{id}/choose/``, the socket's
``choose``). Errors: the service's (:class:`~tables.service.BadRequest` for a refused choice, with the
rule's message; :class:`~tables.service.NotYourSeat` for another player).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from django.db import transaction

from engine.codec import to_data
from engine.core import ForcedBets, find_game
from engine.core.errors import IllegalAction
from engine.giro import (
    GIRO_GAMES,
    AskDealer,
    ChoiceTimeout,
    ChooseVariant,
    Preference,
    decide,
    evolve,
    giro_game,
    next_dealer,
)
from eventstore import store
from eventstore.store import WrongExpectedVersion
from tables import preferences, service
from tables.service import BadRequest, Loaded, NotYourSeat, StaleVersion

__all__ = ["choose_variant", "giro_config", "step", "table_default"]

LIBERA = "libera"


def giro_config(loaded: Loaded) -> Any:
    """The Telesina configuration of the table's giro: its seats, tournament flag, invito, times and
    IT-RANK-4 option, layout and distribution ``libera`` (the dealer chooses each hand)."""
    config = loaded.state.config
    code = giro_game(loaded.base_game or loaded.game)
    forced = loaded.facts.forced
    invito = forced.invito if isinstance(forced, ForcedBets) and forced.invito else loaded.facts.forced_bet
    royal = getattr(config, "minimal_beats_royal", None)
    royal = getattr(royal, "value", royal) or dict(getattr(config, "options", ())).get(
        "minimal_beats_royal", "spades-vs-hearts"
    )
    return find_game(code).table_config(
        seats=config.seats,
        tournament=config.tournament,
        forced=ForcedBets(invito=invito),
        action_time_ms=config.action_time_ms,
        time_bank_ms=config.time_bank_ms,
        layout=LIBERA,
        distribution=LIBERA,
        minimal_beats_royal=str(royal),
    )


def table_default(loaded: Loaded) -> tuple[str, str]:
    """The table's default ``(layout, distribution)`` for a giro hand the table chooses: a Telesina table's
    own fixed options, else croce / mai (:data:`engine.giro.default_choice` falls back on them too)."""
    options = dict(
        (loaded.base_config or {}).get("options", ()) if isinstance(loaded.base_config, dict) else ()
    )
    return str(options.get("layout", "croce")), str(options.get("distribution", "mai"))


def libera_fixed(loaded: Loaded) -> tuple[tuple[str, str], ...] | None:
    """At a Telesina table (outside a giro) whose vele layout or distribution is ``libera`` (TL-VELE-1,
    TL-DEAL-2): the options it keeps fixed (``(name, value)``, ``()`` when both are libera); ``None`` for
    any other table (its dealer chooses nothing)."""
    if loaded.in_giro or loaded.game not in GIRO_GAMES.values():
        return None
    options = dict(getattr(loaded.state.config, "options", ()) or ())
    if LIBERA not in (options.get("layout"), options.get("distribution")):
        return None
    return tuple(
        (name, options[name]) for name in ("layout", "distribution") if options.get(name, LIBERA) != LIBERA
    )


def chooses(loaded: Loaded) -> bool:
    """Whether the table's dealer may be asked to choose between hands: the giro pazzo option, or a
    ``libera`` Telesina table (:func:`libera_fixed`)."""
    return loaded.giro_pazzo or libera_fixed(loaded) is not None


def _preference(player: str) -> Preference:
    if not player:
        return Preference()
    saved = preferences.of_player(player)
    return Preference(saved.vele, saved.distribution, bool(saved.vele_always or saved.distribution_always))


def _players(loaded: Loaded) -> int:
    return sum(1 for o in loaded.facts.seats if o is not None and o.stack > 0)


def _append(loaded: Loaded, events: list[Any], actor: str, automatic: bool = False) -> Loaded:
    """Append the giro's ``events`` after ``loaded`` (in the caller's transaction); the table after them."""
    at = service.now_ms()
    metadata: dict[str, Any] = {"at": at, "actor": actor}
    if automatic:
        metadata["automatic"] = "giro"
    try:
        recorded = store.append(
            service.stream_id(loaded.table_id), loaded.version, service._new_events(events), metadata
        )
    except WrongExpectedVersion as error:
        raise StaleVersion(service.ANOTHER_FIRST, service.ANOTHER_FIRST_EN) from error
    giro = loaded.giro
    for event in events:
        giro = evolve(giro, event)
    after = replace(loaded, version=recorded[-1].version, giro=giro, last_at=at)
    service.project(after)
    service._after_commit(after)
    return after


def step(
    table_id: int, version: int, is_bot: Callable[[str], bool] = lambda player: False, now: int | None = None
) -> str:
    """Do the giro's next thing due between hands at ``version`` (see the module doc). Returns what it did:
    ``"changed"`` (the game), ``"asked"``, ``"chosen"``, ``"waiting"`` (the dealer is choosing: no hand
    starts), ``"start"`` (the caller starts the hand with :func:`start_options`) or ``""`` (no giro:
    the table goes on as usual). ``now``: the clock (epoch ms; default now). Raises :class:`StaleVersion`
    when the table moved on."""
    loaded = service.load(table_id)
    if loaded.version != version:
        raise StaleVersion("moved on")
    libera = libera_fixed(loaded)
    if not chooses(loaded) or loaded.closed or loaded.facts.in_hand or loaded.facts.carried:
        return ""
    giro = loaded.giro
    if not giro.active and loaded.in_giro:
        service.change_game(
            table_id,
            loaded.base_game,
            service.config_from_data(loaded.base_config, loaded.base_game),
            expected_version=version,
        )
        return "changed"
    if not giro.active and libera is None:
        return ""
    if giro.active and not loaded.in_giro:
        service.change_game(
            table_id, giro_game(loaded.base_game), giro_config(loaded), expected_version=version, giro=True
        )
        return "changed"
    if giro.choice:
        return "start"
    with transaction.atomic():
        loaded = service.load(table_id, expected=version)
        if loaded.version != version:
            raise StaleVersion("moved on")
        at = service.now_ms() if now is None else now
        if not giro.choosing:
            seat = next_dealer(
                loaded.state, service.first_button(loaded) if loaded.facts.hand_number == 0 else None
            )
            occupant = loaded.facts.seats[seat] if 0 <= seat < len(loaded.facts.seats) else None
            player = occupant.player if occupant is not None else ""
            away = occupant is None or occupant.sitting_out or is_bot(player)
            deadline = at + int(getattr(loaded.state.config, "action_time_ms", 30_000))
            events = decide(
                giro,
                AskDealer(
                    seat,
                    player,
                    _players(loaded),
                    deadline,
                    _preference(player),
                    table_default(loaded),
                    away,
                    libera=libera is not None,
                    fixed=libera or (),
                ),
            )
            _append(loaded, list(events), "system", automatic=len(events) > 1)
            return "chosen" if len(events) > 1 else "asked"
        if giro.deadline_ms is not None and at < giro.deadline_ms:
            return "waiting"
        events = decide(
            giro, ChoiceTimeout(at, _players(loaded), _preference(giro.choosing), table_default(loaded))
        )
        _append(loaded, list(events), "system", automatic=True)
        return "chosen"


def start_options(loaded: Loaded) -> tuple[tuple[str, str], ...] | None:
    """The options of the next hand's start: the giro dealer's choice (``None`` outside a giro hand)."""
    choice = loaded.giro.choice
    if not choice or not chooses(loaded):
        return None
    free = {name for name, value in getattr(loaded.state.config, "options", ()) or () if value == LIBERA}
    return tuple((name, value) for name, value in choice if name in free) or None


def choose_variant(
    table_id: int,
    player: str,
    layout: str,
    distribution: str,
    *,
    expected_version: int | None = None,
) -> Loaded:
    """The dealer ``player`` chooses the next giro hand's vele ``layout`` (TL-VELE-1) and ``distribution``
    mode (TL-DEAL-2). Returns the table after ``VariantChosen``. Raises :class:`NotYourSeat` (not seated
    here), :class:`BadRequest` (no choice asked, another dealer, a layout that does not fit, TL-CAP-1:
    the rule's message), :class:`StaleVersion`."""
    with transaction.atomic():
        loaded = service.load(table_id, expected=expected_version)
        if expected_version is not None and loaded.version != expected_version:
            raise StaleVersion(*service.changed_texts(loaded.version, expected_version, reload=True))
        if loaded.seat_of(player) is None:
            raise NotYourSeat(service.NOT_SEATED, service.NOT_SEATED_EN)
        try:
            events = decide(loaded.giro, ChooseVariant(player, layout, distribution, _players(loaded)))
        except IllegalAction as error:  # GiroRefused, Telesina's OptionRefused / LayoutRefused (TL-CAP-1)
            raise BadRequest(str(error), getattr(error, "english", None)) from error
        after = _append(loaded, list(events), player)
    service._remember(after)
    return after


def chosen_data(loaded: Loaded) -> dict[str, Any]:
    """The giro's state as JSON (for the page and the API)."""
    return dict(to_data(loaded.giro))
