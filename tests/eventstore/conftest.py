"""Fixtures of the event store tests: no timers, a clean table cache, stream ids of their own."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tables import service as tables


@pytest.fixture(autouse=True)
def _no_timers_and_fresh_cache(settings: Any) -> Iterator[None]:
    """No Celery task is queued, and no folded table leaks from one test into another."""
    settings.MAZZIERE_TIMERS = "off"
    tables.forget_cache()
    yield
    tables.forget_cache()


@pytest.fixture
def sid() -> Callable[[str], str]:
    """Stream ids of this test (``sid(kind)`` is ``<kind>-<hex>``, the same hex for the whole test), so that
    tests never read each other's streams."""
    tag = uuid.uuid4().hex[:10]
    return lambda kind="s": f"{kind}-{tag}"
