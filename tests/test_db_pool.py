"""Issue 23 §1 (faults under load): after a PostgreSQL restart the connections idle in a process's pool are
dead; before the pool checked them (``config.settings``: ``CONN_HEALTH_CHECKS``, which makes Django give the
pool ``check=ConnectionPool.check_connection``), each was handed out once more and failed the request or task
that took it (in ``make faults``: about a dozen failed bot moves, page loads and socket connects per process
after ``pg_ctl restart``). Here one pooled connection is ended by the server (``pg_terminate_backend``, what a
restart does to all of them) and the next one taken from a pool built as the settings build it answers."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection
from django.db.backends.postgresql.base import DatabaseWrapper


@pytest.mark.django_db
def test_a_connection_the_server_ended_is_not_handed_out_by_the_pool() -> None:
    settings = {**connection.settings_dict}
    settings["OPTIONS"] = {**settings["OPTIONS"], "pool": {**settings["OPTIONS"]["pool"], "min_size": 1}}
    settings["OPTIONS"]["pool"]["max_size"] = 1  # one connection: the one ended is the one handed out next
    wrapper = DatabaseWrapper(settings, alias="pool-check")
    pool = wrapper.pool
    pool.open(wait=True)
    try:
        with pool.connection() as conn:
            pid = conn.info.backend_pid
        with psycopg.connect(**wrapper.get_connection_params(), autocommit=True) as other:
            other.execute("SELECT pg_terminate_backend(%s)", [pid])
            for _ in range(100):  # gone once pg_stat_activity no longer lists it
                if not other.execute("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone():
                    break
                time.sleep(0.05)
        with pool.connection() as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
            assert conn.info.backend_pid != pid
    finally:
        wrapper.close_pool()
