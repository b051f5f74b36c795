"""pytest plugin (loaded with ``-p config.testing`` before Django is set up): gives the test run a real
PostgreSQL and Redis — the ones in ``DATABASE_URL`` / ``REDIS_URL``, or embedded ones (``.dev/``) — and keeps
parallel workers apart on the shared Redis (own Channels prefix and Celery queue)."""

from __future__ import annotations

import os

from config.devservices import ensure_environment

ensure_environment("test")
_worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
os.environ["CHANNELS_PREFIX"] = f"test-{_worker}-{os.getpid()}"
os.environ["CELERY_QUEUE"] = f"test-{_worker}-{os.getpid()}"
os.environ["CACHE_PREFIX"] = f"test-{_worker}-{os.getpid()}"
os.environ.setdefault("CONN_MAX_AGE", "0")  # test databases are dropped at the end: no lingering connections
