"""Projections: read models computed from the log, disposable and rebuildable.

A :class:`Projection` names its stream prefix and two functions: ``compute(stream_id) -> rows`` folds the
stream (from the log only) into ``{model label: {key: {field: value}}}``, and ``current(stream_ids)``
returns the same shape from the live tables. :func:`rebuild` replaces the live rows with computed ones;
:func:`verify` computes them in memory (the scratch area) and lists every difference.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from eventstore.store import streams

Rows = dict[str, dict[Any, dict[str, Any]]]


@dataclass(frozen=True)
class Projection:
    """A read model: ``prefix`` of its streams, ``compute`` one stream's rows, ``current`` the live rows,
    ``write`` one stream's rows into the live tables, ``clear`` empties them, ``reset_sequence`` moves the
    id sequence past the rebuilt rows."""

    name: str
    prefix: str
    compute: Callable[[str], Rows]
    current: Callable[[], Rows]
    write: Callable[[str, Rows], None]
    clear: Callable[[], None]
    reset_sequence: Callable[[], None] = lambda: None


_PROJECTIONS: dict[str, Projection] = {}


def register(projection: Projection) -> Projection:
    _PROJECTIONS[projection.name] = projection
    return projection


def registered() -> list[Projection]:
    """Every projection, in registration order."""
    return list(_PROJECTIONS.values())


def merge(into: Rows, rows: Rows) -> Rows:
    for label, table in rows.items():
        into.setdefault(label, {}).update(table)
    return into


def computed(projection: Projection, progress: Callable[[Iterable[str]], Iterable[str]] = iter) -> Rows:
    """Every row of ``projection`` recomputed from the log."""
    result: Rows = {}
    for stream_id in progress(streams(projection.prefix)):
        merge(result, projection.compute(stream_id))
    return result


def differences(expected: Rows, actual: Rows) -> list[str]:
    """Human-readable differences between computed (``expected``) and live (``actual``) rows."""
    problems = []
    for label in sorted(set(expected) | set(actual)):
        want, have = expected.get(label, {}), actual.get(label, {})
        for key in sorted(set(want) | set(have), key=str):
            if key not in have:
                problems.append(f"{label} {key}: missing from the live projection")
            elif key not in want:
                problems.append(f"{label} {key}: in the live projection but not in the log")
            else:
                for name in sorted(set(want[key]) | set(have[key])):
                    if want[key].get(name) != have[key].get(name):
                        problems.append(
                            f"{label} {key}.{name}: log gives {want[key].get(name)!r}, "
                            f"live has {have[key].get(name)!r}"
                        )
    return problems
