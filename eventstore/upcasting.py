"""Schema evolution: events are never rewritten; upcasters turn old payloads into the current schema on read.

Register ``@upcaster("BetPlaced", 1)`` on a function ``data -> data`` of schema 1 that returns the data of
schema 2; :func:`upcast` applies the chain until no upcaster matches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
_UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(event_type: str, schema_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register the upcaster from ``(event_type, schema_version)`` to ``schema_version + 1``."""

    def register(function: Upcaster) -> Upcaster:
        key = (event_type, schema_version)
        if key in _UPCASTERS:
            raise ValueError(f"an upcaster for {event_type} v{schema_version} is already registered")
        _UPCASTERS[key] = function
        return function

    return register


def unregister(event_type: str, schema_version: int) -> None:
    """Remove an upcaster (tests)."""
    _UPCASTERS.pop((event_type, schema_version), None)


def upcast(event_type: str, schema_version: int, data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """``(current schema version, data)`` for a stored event."""
    while (function := _UPCASTERS.get((event_type, schema_version))) is not None:
        data = function(data)
        schema_version += 1
    return schema_version, data
