"""Poker all'italiana behaves exactly as recorded before it moved onto the core (issue 16, IT-*).

Replays every session of :mod:`tests.engine.italian.golden` through the registry games ``NIT`` ``PIT``
``FIT`` and requires the very same records: commands, events (type names and JSON), refusals (class and
messages), seats to act, legal actions, view/facts hashes, PHH exports and public logs.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from tests.engine.italian.golden import SESSIONS, Record, load, play

CHUNKS = 10


@cache
def golden() -> list[list[Record]]:
    return load()


def _first_difference(expected: list[Record], actual: list[Record]) -> str | None:
    for step, (want, got) in enumerate(zip(expected, actual, strict=False)):
        if want != got:
            return (
                f"step {step}:\n  expected {json.dumps(want, sort_keys=True)}\n"
                f"  actual   {json.dumps(got, sort_keys=True)}"
            )
    if len(expected) != len(actual):
        return f"{len(expected)} records expected, {len(actual)} played"
    return None


def test_golden_file_holds_every_session() -> None:
    assert len(golden()) == SESSIONS
    assert sum("end" in record for records in golden() for record in records) >= 1_500


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_registry_plays_as_recorded(chunk: int) -> None:
    failures: list[Any] = []
    for index in range(chunk, SESSIONS, CHUNKS):
        difference = _first_difference(golden()[index], play(index))
        if difference is not None:
            failures.append(f"session {index}: {difference}")
    assert not failures, "\n".join(failures[:3])
