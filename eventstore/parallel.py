"""One function over many streams in several processes: the whole-log folds (``rebuild_projections``,
``verify_all``) use every core, each stream folded by one process from its own database connection.

:func:`map_streams` forks ``jobs`` worker processes (``multiprocessing``'s ``fork`` start method: a worker
starts with the parent's imported modules and settings, the function is not pickled) after closing the
parent's database connections and connection pool, so that each worker opens its own. Only the stream ids
go to the workers and only the results come back (pickled: they must be plain data). The results come in
the order of the ids, whatever process computed them.

It runs in this process, one stream after another, when that is the only safe or useful way: ``jobs``
of 1 or less, fewer than two streams, inside a transaction (a worker's connection would not see its
uncommitted rows: the tests' ``TestCase``), where ``fork`` is not available, or outside the main thread or
beside any thread but the connection pool's (a web server's request, a simulation's or a test's workers,
daemons included: the pool they share must not be closed under them, and a fork copies their held locks
but not the threads that would release them).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.util import Finalize
from typing import Any, TypeVar

from django.db import connection, connections

T = TypeVar("T")

_FUNCTION: list[Callable[[str], Any]] = []  # the function of the running map (inherited by the fork)


def default_jobs() -> int:
    """The processes a whole-log fold uses by default: the environment's ``MAZZIERE_JOBS`` if set, else
    the machine's cores (``os.cpu_count()``)."""
    given = os.environ.get("MAZZIERE_JOBS", "")
    return max(1, int(given)) if given.strip() else max(1, os.cpu_count() or 1)


def _disconnect() -> None:
    """Close this process's database connections and its connection pools (``config.settings`` gives each
    process a psycopg pool: its sockets and threads must not be shared with a fork; the next query opens a
    new pool)."""
    connections.close_all()
    for wrapper in connections.all(initialized_only=True):
        pools = getattr(wrapper, "_connection_pools", None)
        if pools and wrapper.alias in pools:
            wrapper.close_pool()


_SAFE_THREAD = re.compile(r"pool-\d+-(?:scheduler|worker-\d+)|tqdm_monitor")
"""The daemon threads a fork may leave behind: psycopg_pool's own (the pool is closed before the fork) and
the monitor of tqdm's progress bars (``verify_all``'s; the workers draw no bar)."""


def _alone() -> bool:
    """Whether this is the main thread and no other thread runs but :data:`_SAFE_THREAD`'s: closing
    the pool and forking are safe only then. Not beside a web server's or a simulation's threads, nor
    beside daemon threads (a Celery worker, the subscribers or a broadcaster loop run as daemons in the
    tests and in ``simulate_tournament``): a fork copies their locks held, not the threads, and a worker
    process that needs one of those locks waits forever (seen: ``verify_all`` called in a test with the
    live service's threads hung in its forked workers)."""
    current = threading.current_thread()
    if current is not threading.main_thread():
        return False
    return all(
        t is current or not t.is_alive() or (t.daemon and _SAFE_THREAD.fullmatch(t.name))
        for t in threading.enumerate()
    )


def _start() -> None:
    """In a worker, once: forget the database connections inherited from the parent (closed there before
    the fork) and close the worker's own when it exits."""
    for alias in connections:
        connections[alias].connection = None
    Finalize(None, _disconnect, exitpriority=10)
    gc.freeze()  # the modules imported before the fork: never collected, so never walked again


def _call(stream_id: str) -> Any:
    return _without_collections(_FUNCTION[-1], stream_id)


def _without_collections(function: Callable[[str], T], stream_id: str) -> T:
    """``function(stream_id)`` with Python's cyclic garbage collector paused. A fold keeps thousands of
    states alive (the verification's table after every event), and each automatic collection walks them
    all: with it on, a table stream's checks took twice the CPU (reading a stream 2.5 times). The states
    hold no reference cycles (reference counting frees them); the collector runs again after the stream."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return function(stream_id)
    finally:
        if enabled:
            gc.enable()


def map_streams(
    function: Callable[[str], T], stream_ids: Sequence[str], jobs: int | None = None
) -> Iterator[tuple[str, T]]:
    """``(stream_id, function(stream_id))`` for each id, in order, computed by ``jobs`` processes
    (default :func:`default_jobs`; see the module doc for when it runs here instead). ``function`` runs
    with this process's modules and settings; its result must pickle. An exception in ``function`` is
    raised here (the remaining streams are not computed)."""
    jobs = default_jobs() if jobs is None else jobs
    serial = (
        jobs <= 1
        or len(stream_ids) < 2
        or connection.in_atomic_block
        or "fork" not in multiprocessing.get_all_start_methods()
        or not _alone()
    )
    if serial:
        for stream_id in stream_ids:
            yield stream_id, _without_collections(function, stream_id)
        return
    _disconnect()
    _FUNCTION.append(function)
    try:
        context = multiprocessing.get_context("fork")
        with context.Pool(min(jobs, len(stream_ids)), initializer=_start) as pool:
            yield from zip(stream_ids, pool.imap(_call, stream_ids, chunksize=1), strict=True)
            pool.close()
            pool.join()
    finally:
        _FUNCTION.pop()
