"""Fixtures of the tournament service tests: the live service (:mod:`tests.service_harness`)."""

from __future__ import annotations

import pytest

from tests.service_harness import asgi_live_server, live_service  # noqa: F401 - fixtures


@pytest.fixture
def game_speed() -> dict[str, float]:
    """Bots think 50 ms and the next hand starts at once: a whole sit-and-go in seconds."""
    return {"MAZZIERE_BOT_THINK": 0.05, "MAZZIERE_NEXT_HAND_DELAY": 0.0}
