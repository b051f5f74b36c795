"""Shared test fixtures: where the shared specification lives."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the checkout (rules, scenarios, ranking vectors)."""
    if not (SHARED / "scenarios").is_dir():
        pytest.fail(f"the shared specification is missing: expected it at {SHARED}")
    return SHARED
