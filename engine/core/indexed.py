"""The fields of a game's events that the service reads in SQL, without decoding the event.

Outside ``engine/`` an event is read through its game's ``events`` mapping and :mod:`engine.codec`. A few
queries must filter or pick in SQL over the whole log instead (the auditors' hand index and their search by
player, ``audit/views.py``; the partial index ``event_seated_player`` of migration eventstore 0005): they
read only the fields declared here, of the events every game logs under these names (the protocol,
:mod:`engine.core.game`: ``HandStarted``, the seating events), with these JSON types (``HandEnded`` and
``HandStarted`` are found by their type alone; hands are numbered by their order at the table).
:func:`undeclared` checks that a game's event classes have them; a test runs it over every registered game,
so a game cannot rename one of them unseen.

Shapes: ``dealt`` the seats dealt in (0-based, a tuple, a JSON array); ``seat`` 0-based; ``player`` the
player's user name.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable, Mapping
from typing import Any

INDEXED_FIELDS: Mapping[str, Mapping[str, type]] = {
    "HandStarted": {"dealt": tuple},
    "PlayerSeated": {"seat": int, "player": str},
    "PlayerRemoved": {"seat": int},
    "PlayerEliminated": {"seat": int},
}
"""Event type -> the fields SQL may read of it -> their Python type (``tuple``: a JSON array)."""


class UndeclaredField(KeyError):
    """A query asked for a field :data:`INDEXED_FIELDS` does not declare for that event type."""


def fields(event_type: str, names: Iterable[str]) -> tuple[str, ...]:
    """``names``, once each is checked to be declared for ``event_type``. Raises :class:`UndeclaredField`."""
    declared = INDEXED_FIELDS.get(event_type, {})
    chosen = tuple(names)
    for name in chosen:
        if name not in declared:
            raise UndeclaredField(f"{event_type}.{name} is not declared in engine.core.indexed")
    return chosen


def undeclared(events: Mapping[str, type]) -> list[str]:
    """What the event classes ``events`` (a game's ``events`` mapping) lack of the declared fields, one line
    each (``"HandStarted.dealt: missing"``, ``"PlayerSeated.seat: str, not int"``); empty when they have all.
    An event type the game does not log is not required."""
    problems: list[str] = []
    for event_type, declared in INDEXED_FIELDS.items():
        cls = events.get(event_type)
        if cls is None:
            continue
        if not dataclasses.is_dataclass(cls):
            problems.append(f"{event_type}: not a dataclass")
            continue
        hints: dict[str, Any] = typing.get_type_hints(cls)
        names = {f.name for f in dataclasses.fields(cls)}
        for name, expected in declared.items():
            if name not in names:
                problems.append(f"{event_type}.{name}: missing")
                continue
            hint = hints.get(name)
            actual = typing.get_origin(hint) or hint
            if actual is not expected:
                problems.append(f"{event_type}.{name}: {hint}, not {expected.__name__}")
    return problems
