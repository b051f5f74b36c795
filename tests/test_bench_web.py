"""``make bench-web`` (``benchmarks/web.py``, issue 22) runs end to end on a database of its own and prints
its figures: a short run of each kind of table family it is used with (poker all'italiana, hold'em)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("game", ["PIT", "NT"])
def test_bench_web_prints_the_parts_of_an_action(game: str) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    parts = urlsplit(os.environ["DATABASE_URL"])
    url = urlunsplit(parts._replace(path=f"/mazziere_bench_web_{worker}_{game.lower()}"))
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.web", "--game", game, "--actions", "40", "--url", url],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        admin = urlunsplit(parts._replace(path="/postgres"))
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{urlsplit(url).path.lstrip("/")}" WITH (FORCE)')
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["game"] == game and result["actions"] == 40
    for part in ("act", "render_per_viewer", "render_context", "render_table_template", "frame"):
        assert result[part]["mean_ms"] > 0, part
    assert result["per_action_ms"] > result["act"]["mean_ms"] + 4 * result["render_context"]["mean_ms"]
