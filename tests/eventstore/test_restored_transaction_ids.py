"""A log restored (``pg_restore``) onto another PostgreSQL cluster keeps its events' transaction ids
(``tx_id``, ``xid8``). If that cluster's transaction counter is behind them, the subscriptions, which read
in commit order below the oldest running transaction (``read_all``), see none of those events nor any new
one: the process manager would record no hand. ``deploy/pitr-drill.sh`` shows it with a real fresh
cluster (the log's last id 5,0xx against a fresh cluster's 7xx); here a log from a cluster one epoch
(2^32 transactions) further on is made by moving one committed event's ``tx_id`` there.
"""

from __future__ import annotations

import io
import signal
import threading
from collections.abc import Callable

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from eventstore.backup import LogAheadOfServer, check_transaction_ids
from eventstore.store import NewEvent, append, read_all
from eventstore.subscriptions import Subscription, run

pytestmark = pytest.mark.django_db(transaction=True)

EPOCH = 1 << 32


def restored_from_a_later_cluster(stream: str) -> int:
    """Append one event, then give it a transaction id one epoch past this server's; returns that id."""
    append(stream, 0, [NewEvent("Counted", {"n": 1})])
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE eventstore_event SET tx_id = (tx_id::text::numeric + %s)::text::xid8 "
            "WHERE stream_id = %s RETURNING tx_id::text",
            [EPOCH, stream],
        )
        return int(cursor.fetchone()[0])


def test_a_log_ahead_of_the_server_is_refused_with_the_fix(sid: Callable[..., str]) -> None:
    check_transaction_ids()  # a log written here: nothing to say
    stream = sid()
    log_xid = restored_from_a_later_cluster(stream)
    # what goes wrong: the event is committed, yet a subscription never reads it
    assert not [e for e in read_all((0, 0), 100_000) if e.stream_id == stream]

    with pytest.raises(LogAheadOfServer) as raised:
        check_transaction_ids()
    assert raised.value.log_xid == log_xid and raised.value.next_xid < log_xid
    assert raised.value.epoch == (log_xid >> 32) + 1
    assert f"pg_resetwal -e {raised.value.epoch}" in str(raised.value)

    # the subscribers refuse to start instead of waiting silently
    seen: list[str] = []
    subscription = Subscription(
        f"test-restored-{stream}", lambda batch: seen.extend(e.stream_id for e in batch)
    )
    stopped = threading.Event()
    stopped.set()  # without the check, run() would return at once
    with pytest.raises(LogAheadOfServer):
        run([subscription], stopped, idle=0.01)
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with pytest.raises(CommandError, match=r"pg_resetwal -e \d+"):
            call_command("run_subscribers", stdout=io.StringIO())
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    assert not seen
