"""Production settings (issue 15 §7): ``manage.py check --deploy`` is clean with the production environment
documented in ``docs/operations.md``; production refuses to start without a real secret; development needs
none of it. Each case is a ``manage.py`` subprocess with its own environment (no DEBUG, SECRET_KEY or HTTPS
variable inherited from the test run)."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OPERATIONS = ROOT / "docs" / "operations.md"
PUBLIC_KEY = "dev-only-secret-key-change-me-in-production-0123456789"  # the default until issue 15


def documented_environment() -> dict[str, str]:
    """The ``sh`` block of the "Production" section of docs/operations.md, the secret made random."""
    text = OPERATIONS.read_text()
    section = text.split("\n## Production\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "docs/operations.md: the Production section has no ```sh block"
    variables = dict(line.split("=", 1) for line in block.group(1).splitlines() if "=" in line)
    assert variables["SECRET_KEY"].startswith("<"), "the documented secret is a placeholder"
    variables["SECRET_KEY"] = secrets.token_urlsafe(50)
    return variables


def manage(environment: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    """``manage.py ARGUMENTS`` with ``environment`` and the test run's PostgreSQL and Redis only."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp"),
        "DATABASE_URL": os.environ["DATABASE_URL"],
        "REDIS_URL": os.environ["REDIS_URL"],
        **environment,
    }
    return subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_documented_production_environment() -> None:
    result = manage(documented_environment(), "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout, result.stdout + result.stderr


def test_without_the_https_variables_check_deploy_names_each_missing_setting() -> None:
    environment = {
        name: value
        for name, value in documented_environment().items()
        if not name.startswith(("SECURE_", "SESSION_", "CSRF_COOKIE"))
    }
    result = manage(environment, "check", "--deploy")
    found = set(re.findall(r"\(security\.(W\d+)\)", result.stdout + result.stderr))
    assert found == {"W004", "W008", "W012", "W016"}, result.stdout + result.stderr


@pytest.mark.parametrize(
    "secret",
    [None, PUBLIC_KEY, "django-insecure-" + "x1y2z3" * 10, "short-but-random-9f3k"],
    ids=["missing", "public default", "django-insecure", "short"],
)
def test_production_refuses_to_start_without_a_real_secret(secret: str | None) -> None:
    environment = {"DEBUG": "false"}
    if secret is not None:
        environment["SECRET_KEY"] = secret
    result = manage(environment, "check")
    assert result.returncode != 0
    refused = "ImproperlyConfigured: SECRET_KEY is missing or public/weak"
    assert refused in result.stderr, result.stderr[-2000:]


def test_debug_development_starts_without_any_of_these_variables() -> None:
    result = manage({"DEBUG": "true"}, "check")
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.parametrize("layer", ["lists", "pubsub"])
def test_the_channel_layer_is_chosen_by_mazziere_channel_layer(layer: str) -> None:
    """Issue 22: ``MAZZIERE_CHANNEL_LAYER`` picks Redis lists (the default) or publish/subscribe."""
    result = manage(
        {"DEBUG": "true", "MAZZIERE_CHANNEL_LAYER": layer},
        "shell",
        "-c",
        "from django.conf import settings; print(settings.CHANNEL_LAYERS['default']['BACKEND'])",
    )
    assert result.returncode == 0, result.stderr[-2000:]
    expected = {"lists": "channels_redis.core.RedisChannelLayer", "pubsub": "channels_redis.pubsub."}[layer]
    assert result.stdout.strip().splitlines()[-1].startswith(expected), result.stdout


def test_an_unknown_channel_layer_is_refused() -> None:
    result = manage({"DEBUG": "true", "MAZZIERE_CHANNEL_LAYER": "kafka"}, "check")
    assert result.returncode != 0
    assert "MAZZIERE_CHANNEL_LAYER must be lists or pubsub, not 'kafka'" in result.stderr, result.stderr[
        -2000:
    ]
