"""Fixtures of the browser tests: the live service and ASGI server (:mod:`tests.service_harness`), headless
Chromium through Playwright, and a folder for screenshots (``test-output/e2e/`` in the checkout)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.service_harness import asgi_live_server, live_service  # noqa: F401 - fixtures

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run",
]  # fmt: skip
OUTPUT = Path(__file__).resolve().parents[2] / "test-output" / "e2e"


@pytest.fixture
def game_speed() -> dict[str, float]:
    """Bots think 50 ms; 200 ms between hands, so that a person can follow the table."""
    return {"MAZZIERE_BOT_THINK": 0.05, "MAZZIERE_NEXT_HAND_DELAY": 0.2}


@pytest.fixture
def output_dir(request: pytest.FixtureRequest) -> Path:
    """``test-output/e2e/`` (created); files of a test are prefixed by :func:`artifact_name`."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    return OUTPUT


def artifact_name(request: pytest.FixtureRequest, what: str, suffix: str = ".png") -> str:
    """``<test name>-<xdist worker>-<what><suffix>``: parallel workers never overwrite each other."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    return f"{name}-{worker}-{what}{suffix}"


@pytest.fixture
def browser(asgi_live_server: str) -> Iterator[Any]:  # noqa: F811 - the imported fixture
    """Headless Chromium (``/usr/bin/chromium``). Function-scoped on purpose: while Playwright's sync API is
    active an event loop runs in the test's thread and Django refuses ORM calls there, so it must not outlive
    the test (use :func:`tests.service_harness.in_thread` for database reads meanwhile)."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Chromium (apt-get install chromium) for the e2e tests")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


def overflow(page: Any) -> int:
    """How many CSS pixels the page is wider than the viewport (0: nothing scrolls sideways)."""
    return int(page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth"))


WIDE = """() => [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && e.offsetParent !== null)
  .slice(0, 8).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""


def wide(page: Any) -> list[str]:
    """The first elements that stick out of the viewport on the right (a failed overflow check says which)."""
    return list(page.evaluate(WIDE))
