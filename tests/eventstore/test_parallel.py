"""``eventstore.parallel.map_streams``: the whole-log folds fork worker processes only when nothing but the
connection pool's threads runs beside them."""

from __future__ import annotations

import os
import threading

import pytest

from eventstore.parallel import map_streams

pytestmark = pytest.mark.django_db(transaction=True)


def test_beside_another_thread_even_a_daemon_the_streams_are_folded_here_not_in_a_fork() -> None:
    """A fork copies the locks other threads hold but not the threads: a worker process that needs one
    waits forever. Seen: ``verify_all`` in a test beside the live service's daemon threads (a Celery
    worker, the subscribers) hung in its forked workers. Beside any thread but the pool's, it runs here."""
    stop = threading.Event()
    daemon = threading.Thread(target=stop.wait, name="a live service's worker", daemon=True)
    daemon.start()
    try:
        done = dict(map_streams(lambda stream_id: (stream_id, os.getpid()), ["table-1", "table-2"], jobs=2))
    finally:
        stop.set()
        daemon.join()
    assert done == {"table-1": ("table-1", os.getpid()), "table-2": ("table-2", os.getpid())}
