"""The players' automatic options (IT-AUTO-1): preferences on the player's own stream, applied by the table.

**Stream** ``player-<user id>``: ``PreferencesChanged`` events (schema 1, data ``{"player": user name,
"changes": {field: value}}``, only the fields that changed), appended with the version the writer read
(optimistic concurrency), metadata ``{"at": epoch ms, "actor": user name}``. The folded value is
:class:`Preferences`; the read model is :class:`~tables.models.PlayerPreferences` (one row per player,
written in the same transaction as the append, rebuilt by ``rebuild_projections`` / checked by
``verify_projections`` through the projection ``player-preferences`` registered below).

**Fields** (:data:`FIELDS`):

- ``vele``: the preferred vele layout (TL-VELE-1: ``none una due tre croce h piramide ascensore``) or
  ``None`` (no preference); ``vele_always``: always use it when the player deals a giro pazzo (TL-GIRO-1).
- ``distribution``: the preferred *distribuzione carta coperta* (TL-DEAL-2: ``mai primo_giro sempre``) or
  ``None``; ``distribution_always``: always use it when dealing. ``libera`` is no preference: it is the
  dealer's free choice itself (docs/rules-decisions.md).
- ``showdown``: ``ask`` / ``hide`` / ``show`` at the show-or-muck choice of a showdown (IT-SHOW-1, G-SHOW-1).
- ``blind``: ``ask`` / ``yes`` / ``no`` when a blind opening is offered (buio, controbuio, over: IT-BUIO-1).

The vele and distribution preferences are read by the giro pazzo's dealer's choice (:mod:`tables.giro`,
TL-GIRO-1). The table applies ``showdown`` and ``blind`` (:func:`automatic_command`, called by
:func:`tables.service.handle`); the auditors' PHH marks those actions ``# automatic: preference``
(:func:`answered_by_preference`, docs/hand-history-format.md).

Refusals raise :class:`PreferencesRefused` (HTTP 400, Italian ``str`` and ``english``) and append nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from django.db import transaction

from engine.core import Game
from eventstore import store
from eventstore.projections import Projection, Rows, register
from eventstore.store import NewEvent, RecordedEvent, WrongExpectedVersion
from tables.models import PlayerPreferences

PREFIX = "player-"
EVENT = "PreferencesChanged"
SCHEMA_VERSION = 1
AUTOMATIC = "preference"
"""``metadata.automatic`` of the events the table appends for a player's preference."""

VELE = ("none", "una", "due", "tre", "croce", "h", "piramide", "ascensore")
"""The vele layouts a player may prefer (TL-VELE-1; ``libera`` is the dealer's free choice itself)."""
DISTRIBUTIONS = ("mai", "primo_giro", "sempre")
"""The *distribuzione carta coperta* modes a player may prefer (TL-DEAL-2: mai, solo al primo giro,
sempre; ``libera`` is the dealer's free choice itself)."""
SHOWDOWN = ("ask", "hide", "show")
BLIND = ("ask", "yes", "no")


@dataclass(frozen=True, slots=True)
class Preferences:
    """A player's automatic options (IT-AUTO-1); the defaults are a player who never set any."""

    vele: str | None = None
    vele_always: bool = False
    distribution: str | None = None
    distribution_always: bool = False
    showdown: str = "ask"
    blind: str = "ask"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


FIELDS: tuple[str, ...] = tuple(Preferences.__dataclass_fields__)
_CHOICES: Mapping[str, tuple[str, ...]] = {
    "vele": VELE,
    "distribution": DISTRIBUTIONS,
    "showdown": SHOWDOWN,
    "blind": BLIND,
}
_OPTIONAL = frozenset({"vele", "distribution"})
_FLAGS = frozenset({"vele_always", "distribution_always"})
_ALWAYS_NEEDS = {"vele_always": "vele", "distribution_always": "distribution"}


class PreferencesRefused(ValueError):
    """A refused change (HTTP 400): ``str`` the Italian message, ``english`` the English one, ``field`` the
    field at fault (``None`` for the body as a whole). Nothing was appended."""

    status = 400

    def __init__(self, italian: str, english: str, field: str | None = None) -> None:
        super().__init__(italian)
        self.english = english
        self.field = field


class StalePreferences(PreferencesRefused):
    """The stream moved past the ``expected_version`` the writer gave (HTTP 409)."""

    status = 409


def stream_id(user_id: int) -> str:
    return f"{PREFIX}{user_id}"


# --- the pure part: validate a change, fold the events ------------------------------------------------------


def decide(current: Preferences, changes: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``changes`` that differ from ``current`` (``{}``: nothing to append), validated.

    ``changes``: any subset of :data:`FIELDS`; choices as listed in the module's docstring (``vele`` and
    ``distribution`` may be ``None``), ``*_always`` booleans. Raises :class:`PreferencesRefused` for an
    unknown field, a value of the wrong type or outside its choices, or an ``*_always`` set without the
    preference it names (after the change)."""
    if not isinstance(changes, Mapping):
        raise PreferencesRefused(
            "Servono le preferenze come oggetto JSON.", "Preferences must be a JSON object."
        )
    for name, value in changes.items():
        if name not in FIELDS:
            raise PreferencesRefused(
                f"Preferenza sconosciuta {str(name)[:40]!r}: una di {', '.join(FIELDS)}.",
                f"Unknown preference {str(name)[:40]!r}: one of {', '.join(FIELDS)}.",
                None,
            )
        if name in _FLAGS:
            if not isinstance(value, bool):
                raise PreferencesRefused(
                    f"{name}: serve true o false.", f"{name}: must be true or false.", name
                )
            continue
        if value is None and name in _OPTIONAL:
            continue
        allowed = _CHOICES[name]
        if not isinstance(value, str) or value not in allowed:
            shown = repr(value)[:40]
            none = " o null" if name in _OPTIONAL else ""
            none_en = " or null" if name in _OPTIONAL else ""
            raise PreferencesRefused(
                f"{name}: {shown} non è tra i valori ammessi ({', '.join(allowed)}{none}).",
                f"{name}: {shown} is not one of {', '.join(allowed)}{none_en}.",
                name,
            )
    after = replace(current, **dict(changes))
    for flag, needed in _ALWAYS_NEEDS.items():
        if getattr(after, flag) and getattr(after, needed) is None:
            raise PreferencesRefused(
                f"{flag}: scegli prima una preferenza per {needed}.",
                f"{flag}: choose a {needed} preference first.",
                flag,
            )
    return {name: value for name, value in changes.items() if getattr(current, name) != value}


def evolve(current: Preferences, event: RecordedEvent) -> Preferences:
    """``current`` after one recorded event of a player stream (total: unknown types and fields are
    ignored)."""
    if event.type != EVENT:
        return current
    changes = event.data.get("changes") or {}
    return replace(current, **{k: v for k, v in changes.items() if k in FIELDS})


@dataclass(frozen=True, slots=True)
class Folded:
    """A player stream folded: the preferences at ``version`` (0: no stream), the user name last recorded."""

    preferences: Preferences
    version: int
    player: str


def fold(events: list[RecordedEvent]) -> Folded:
    preferences, version, player = Preferences(), 0, ""
    for event in events:
        preferences = evolve(preferences, event)
        version = event.version
        player = str(event.data.get("player") or player)
    return Folded(preferences, version, player)


# --- the stream and its read model --------------------------------------------------------------------------


def load(user_id: int) -> Folded:
    """The player's preferences folded from their stream (defaults and version 0 without one)."""
    return fold(store.read_stream(stream_id(user_id)))


def row(folded: Folded) -> dict[str, Any]:
    """The :class:`~tables.models.PlayerPreferences` fields (what ``verify_projections`` compares)."""
    return {"player": folded.player, "version": folded.version, **folded.preferences.as_dict()}


def change(
    user_id: int,
    player: str,
    changes: Mapping[str, Any],
    *,
    expected_version: int | None = None,
    at: int | None = None,
) -> tuple[Folded, bool]:
    """Append ``PreferencesChanged`` with what ``changes`` changes (:func:`decide`) to ``player``'s stream
    and update the read model, in one transaction. Returns the preferences after it and whether anything
    was appended (a change to the same values appends nothing).

    ``expected_version``: the stream version the writer read; :class:`StalePreferences` (409) if it moved
    on. Without one, a concurrent append is retried on the new version (each change names only its own
    fields). Raises :class:`PreferencesRefused` for bad input (nothing appended)."""
    for _ in range(3):
        try:
            with transaction.atomic():
                current = load(user_id)
                if expected_version is not None and expected_version != current.version:
                    raise StalePreferences(
                        f"Le preferenze sono cambiate: versione {current.version}, non {expected_version}.",
                        f"The preferences changed: version {current.version}, not {expected_version}.",
                    )
                changed = decide(current.preferences, changes)
                if not changed:
                    return current, False
                recorded = store.append(
                    stream_id(user_id),
                    current.version,
                    [NewEvent(EVENT, {"player": player, "changes": changed}, SCHEMA_VERSION)],
                    {"at": int(time.time() * 1000) if at is None else at, "actor": player},
                )
                after = Folded(replace(current.preferences, **changed), recorded[-1].version, player)
                PlayerPreferences.objects.update_or_create(user_id=user_id, defaults=row(after))
                return after, True
        except WrongExpectedVersion:
            if expected_version is not None:
                raise StalePreferences(
                    "Le preferenze sono cambiate nel frattempo: ricarica.",
                    "The preferences changed meanwhile: reload.",
                ) from None
    raise StalePreferences(
        "Le preferenze cambiano troppo spesso: riprova.", "Too many concurrent changes: retry."
    )


def of_user(user_id: int) -> Folded:
    """The player's preferences from the read model (defaults and version 0 when they never set any)."""
    found = PlayerPreferences.objects.filter(user_id=user_id).first()
    if found is None:
        return Folded(Preferences(), 0, "")
    return Folded(Preferences(**{name: getattr(found, name) for name in FIELDS}), found.version, found.player)


def of_player(player: str) -> Preferences:
    """The preferences of the player with user name ``player`` (the name tables seat), from the read
    model; the defaults (every choice ``ask``) when they never set any."""
    found = PlayerPreferences.objects.filter(player=player).order_by("-version").first()
    if found is None:
        return Preferences()
    return Preferences(**{name: getattr(found, name) for name in FIELDS})


# --- applied by the table -----------------------------------------------------------------------------------


def _kind(option: Any) -> str:
    return str(getattr(option.kind, "value", option.kind))


_DECISIONS = ({"show", "muck"}, {"blind_bet", "decline_blind"})


def automatic_command(
    game: Game, state: Any, at: int, preferences_of: Callable[[str], Preferences]
) -> tuple[str, Any] | None:
    """``(player, command)`` when a player to act faces a decision their preference answers, else ``None``.

    Found through the game's legal actions (any registered game; one without these decisions never
    triggers it): a seat whose choices are exactly ``show`` / ``muck`` (the showdown choice, IT-SHOW-1 /
    G-SHOW-1) with ``showdown`` ``show`` or ``hide`` gets the game's ``show`` or ``muck`` command; a seat
    offered a blind opening, ``blind_bet`` / ``decline_blind`` (buio, controbuio, over: IT-BUIO-1), with
    ``blind`` ``yes`` gets the blind bet of exactly the amount offered, with ``no`` the decline (DAI CARTE).
    ``ask`` leaves the decision to the player. A player sitting out is left to the timer (IT-SIT-1): their
    preferences answer only while they play. ``preferences_of(user name)`` reads a player's preferences."""
    for seat in sorted(game.to_act(state)):  # cheap first: the seat facts only for a decision found
        options = {_kind(option): option for option in game.legal_actions(state, seat)}
        if set(options) not in _DECISIONS:
            continue
        occupant = game.facts(state).seats[seat]
        if occupant is None or occupant.sitting_out:
            continue
        if set(options) == {"show", "muck"}:
            choice = preferences_of(occupant.player).showdown
            if choice == "show":
                return occupant.player, game.player_command(state, seat, "show", None, (), at)
            if choice == "hide":
                return occupant.player, game.player_command(state, seat, "muck", None, (), at)
        elif set(options) == {"blind_bet", "decline_blind"}:
            choice = preferences_of(occupant.player).blind
            if choice == "yes":
                amount = options["blind_bet"].minimum
                return occupant.player, game.player_command(state, seat, "blind_bet", amount, (), at)
            if choice == "no":
                return occupant.player, game.player_command(state, seat, "decline_blind", None, (), at)
    return None


ANSWERS = frozenset({"BlindBetPlaced", "BlindDeclined", "HandShown", "HandMucked"})
"""The events of the decisions a player's preference answers (:func:`automatic_command`)."""


def answered_by_preference(recorded: RecordedEvent, player_at: Callable[[int], str | None]) -> bool:
    """Whether the table event ``recorded`` is a player's decision the table took for them from their
    preferences: one of :data:`ANSWERS`, ``metadata.automatic`` :data:`AUTOMATIC`, at the seat of the
    player the metadata names as actor (``player_at(seat)``: who sat there). The other events of the same
    append (the deal or the hand's end that follow the answer) are not."""
    metadata = recorded.metadata
    seat = recorded.data.get("seat")
    return (
        recorded.type in ANSWERS
        and metadata.get("automatic") == AUTOMATIC
        and isinstance(seat, int)
        and player_at(seat) == metadata.get("actor")
    )


def cached_lookup() -> Callable[[str], Preferences]:
    """:func:`of_player` remembering each answer (one command's worth of lookups)."""
    seen: dict[str, Preferences] = {}

    def lookup(player: str) -> Preferences:
        if player not in seen:
            seen[player] = of_player(player)
        return seen[player]

    return lookup


# --- the projection -----------------------------------------------------------------------------------------


def compute(stream: str) -> Rows:
    user_id = int(stream.removeprefix(PREFIX))
    folded = load(user_id)
    if folded.version == 0:
        return {}
    return {"tables.PlayerPreferences": {user_id: row(folded)}}


def current() -> Rows:
    return {
        "tables.PlayerPreferences": {
            r["user_id"]: {k: r[k] for k in ("player", "version", *FIELDS)}
            for r in PlayerPreferences.objects.values("user_id", "player", "version", *FIELDS)
        }
    }


def write(stream: str, rows: Rows) -> None:
    for user_id, fields in rows.get("tables.PlayerPreferences", {}).items():
        PlayerPreferences.objects.update_or_create(user_id=user_id, defaults=fields)


def clear() -> None:
    PlayerPreferences.objects.all().delete()


PROJECTION = register(Projection("player-preferences", PREFIX, compute, current, write, clear))
