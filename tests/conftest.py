"""Shared test fixtures: where the shared specification lives."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# No hypothesis deadline: a deadline is a timing assertion, and on a loaded CI machine (two xdist workers on
# two cores) a healthy example can take longer than the default 200 ms. Speed is measured in benchmarks/.
settings.register_profile("mazziere", deadline=None)
settings.load_profile("mazziere")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the checkout (rules, scenarios, ranking vectors)."""
    if not (SHARED / "scenarios").is_dir():
        pytest.fail(f"the shared specification is missing: expected it at {SHARED}")
    return SHARED


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hashing() -> Iterator[None]:
    """Passwords are hashed with MD5 in tests (Django's advice for test suites). PBKDF2's 1,000,000 iterations
    cost about half a second per hash and per login check, and the suite creates and logs in users thousands
    of times (accounts per test, browser logins, the API fuzz's Basic credentials, the lock-out tests). The
    hasher is not what these tests test; the service keeps Django's default (``check --deploy`` runs it in
    ``tests/test_production_settings.py``). Hashes made with the defaults still verify (listed after)."""
    from django.conf import settings as django_settings
    from django.contrib.auth.hashers import get_hashers, get_hashers_by_algorithm

    old = django_settings.PASSWORD_HASHERS
    django_settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher", *old]
    get_hashers.cache_clear()
    get_hashers_by_algorithm.cache_clear()
    yield
    django_settings.PASSWORD_HASHERS = old
    get_hashers.cache_clear()
    get_hashers_by_algorithm.cache_clear()


@pytest.fixture(autouse=True)
def _timers_only_when_asked(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tables schedule no Celery task in tests, except those marked ``timers`` (they run a real worker)."""
    from django.conf import settings

    old = settings.MAZZIERE_TIMERS
    settings.MAZZIERE_TIMERS = "celery" if request.node.get_closest_marker("timers") else "off"
    yield
    settings.MAZZIERE_TIMERS = old


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Every test starts in the site's language (Italian): a test that activates another language (a page in
    English, an English message) must not leak it into the next test run by the same worker thread."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _fresh_channel_layer() -> Iterator[None]:
    """Each test gets its own channel layer object. channels-redis binds a layer's receiving to the event loop
    of its first receiver until every receive has ended; a consumer left waiting on a loop that has stopped
    (a test's uvicorn or communicator) made the next test's loop fail with "Two event loops are trying to
    receive() on one channel layer at once!"."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _fresh_process_caches() -> Iterator[None]:
    """No folded table or tournament leaks out of a test: a flushed database restarts the ids, and a cached
    ``mtt-1`` of an earlier test (or module fixture) would be taken for the new tournament 1."""
    from tables import service
    from tournaments import mtt

    yield
    service.forget_cache()
    mtt.forget_cache()


def _communicators_keep_closing_connections() -> None:
    """Channels' test communicator (``channels.testing.ApplicationCommunicator``) replaces
    ``channels.db.close_old_connections`` with a no-op while it sends or waits (a ``mock.patch`` of the
    module, so for every thread of the process), for tests inside one transaction. Ours run the consumer on
    committed data (``transaction=True``): with the no-op, each executor thread that ran a consumer's database
    call kept its pooled connection, and when the test's event loop closed, its threads ended without
    returning it. The pool of 20 emptied over a run (one to four connections per socket test) and later live
    tests waited 30 s for one (``PoolTimeout``): ``tests/tables/test_pool_connections.py``. Here the
    communicator sends and receives as asgiref's, and the consumer's calls return their connections as in
    the service."""
    from asgiref.testing import ApplicationCommunicator as Plain
    from channels.testing import application

    application.ApplicationCommunicator.send_input = Plain.send_input  # type: ignore[method-assign]
    application.ApplicationCommunicator.receive_output = Plain.receive_output  # type: ignore[method-assign]


_communicators_keep_closing_connections()


def pool_in_use() -> int:
    """Connections of this process's psycopg pool (``DATABASES["default"]``) checked out now (0: no pool)."""
    from django.db import connections

    wrapper = connections["default"]
    pool = type(wrapper)._connection_pools.get(wrapper.alias)  # type: ignore[attr-defined]
    if pool is None:
        return 0
    stats = pool.get_stats()
    return int(stats.get("pool_size", 0) - stats.get("pool_available", 0))


@pytest.fixture(autouse=True)
def _pool_trace(request: pytest.FixtureRequest) -> Iterator[None]:
    """With ``MAZZIERE_POOL_TRACE=FILE``: after each test (its fixtures torn down), one line in FILE with the
    xdist worker, the start and end times, the test and the pool's connections in use: a test after which
    the count grows keeps connections (how :func:`_communicators_keep_closing_connections`'s leak was found,
    and that one worker of ``--dist load`` sat idle for nine minutes)."""
    import time

    path = os.environ.get("MAZZIERE_POOL_TRACE")
    started = time.time()
    yield
    if path:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(path, "a") as out:
            out.write(f"{worker}\t{started:.2f}\t{time.time():.2f}\t{request.node.nodeid}\t{pool_in_use()}\n")
