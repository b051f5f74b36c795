"""Fixtures of the audit tests: those of the tables tests (users in the four groups, tables with a hand in
progress, API clients) and of the tournament tests (the live service, fast bots)."""

from __future__ import annotations

from tests.tables.conftest import (  # noqa: F401 - fixtures
    _fresh_table_cache,
    api_as,
    auditor,
    dealt_table,
    director,
    nobody,
    other_table_player,
    players,
    table,
    user_factory,
    web_as,
)
from tests.tournaments.conftest import asgi_live_server, game_speed, live_service  # noqa: F401 - fixtures
