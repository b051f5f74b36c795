"""A transfer between a ledger and a table is exactly-once and crash-safe (issue 21): a real process is killed
with SIGKILL between the transfer's two appends (the table's and the ledger's, in one PostgreSQL
transaction; ``cashier.service.between_appends`` pauses there in the subprocess only), and after the
"restart" — the same transfer sent again by another process, as a client or a worker retrying would — the
chips are on exactly one side: nothing lost, nothing doubled, ``verify_all``'s cashier check clean."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.db import connection

from audit.verification import verify
from cashier import ledger, service
from cashier.models import Balance
from eventstore.store import read_stream
from tables import service as tables
from tests.cashier.helpers import cash_table, chips_at, player, stack_of

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import sys, time
    import django
    django.setup()
    from django.contrib.auth import get_user_model
    from cashier import service

    def pause(step):
        print("PAUSED", step, flush=True)
        time.sleep(300)

    service.between_appends = pause
    operation, user_id, table_id, transfer = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    user = get_user_model().objects.get(pk=user_id)
    if operation == "buy-in":
        service.buy_in(user, table_id, 0, 400, transfer=transfer)
    elif operation == "top-up":
        service.top_up(user, table_id, 150, transfer=transfer)
    else:
        service.cash_out(user, table_id, transfer=transfer)
    print("COMMITTED", flush=True)
    """
)


def run_killed(settings: Any, operation: str, user_id: int, table_id: int, transfer: str) -> None:
    """Run the transfer in a new process, wait until it has made its first append (it says ``PAUSED``),
    and kill it with SIGKILL there; check it died by the signal, before any commit."""
    database = urlsplit(os.environ["DATABASE_URL"])._replace(path="/" + settings.DATABASES["default"]["NAME"])
    env = {
        **os.environ,
        "DATABASE_URL": database.geturl(),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "MAZZIERE_TIMERS": "off",
        "PYTHONUNBUFFERED": "1",
    }
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, operation, str(user_id), str(table_id), transfer],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # blocks until the pause (or the process ends)
        assert line.strip() == f"PAUSED {operation}", (line, process.stderr.read() if process.stderr else "")
        # the process holds its transaction open, the table's append made and not committed
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND state = 'idle in transaction' AND pid <> pg_backend_pid()"
            )
            assert cursor.fetchone()[0] >= 1
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(timeout=30) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def state(user_id: int, table_id: int) -> tuple[int, int | None, int, int]:
    """The balance (read model and log agree), anna's stack, the ledger's events and version."""
    folded = service.load(user_id)
    row = Balance.objects.filter(user_id=user_id).first()
    assert row is not None and row.balance == folded.balance
    return (
        folded.balance,
        stack_of(table_id, "anna"),
        len(read_stream(ledger.stream_id(user_id))),
        folded.version,
    )


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("operation", ["buy-in", "top-up", "cash-out"])
def test_a_process_killed_between_the_two_appends_loses_and_doubles_nothing(
    settings: Any, operation: str
) -> None:
    anna = player("anna")
    service.grant(anna, 1000, "benvenuto", "direttore")
    table_id = cash_table("NT")
    if operation != "buy-in":
        service.buy_in(anna, table_id, 0, 400)
    table_before = read_stream(tables.stream_id(table_id))
    before = state(anna.pk, table_id)
    transfer = str(uuid.uuid4())

    run_killed(settings, operation, anna.pk, table_id, transfer)

    tables.forget_cache()
    assert read_stream(tables.stream_id(table_id)) == table_before  # the table's append died with it
    assert state(anna.pk, table_id) == before  # and so did the ledger's: nothing half done
    assert verify().ok

    # restart: the transfer sent again completes once; a third time changes nothing
    first = {
        "buy-in": lambda: service.buy_in(anna, table_id, 0, 400, transfer=transfer),
        "top-up": lambda: service.top_up(anna, table_id, 150, transfer=transfer),
        "cash-out": lambda: service.cash_out(anna, table_id, transfer=transfer),
    }[operation]
    assert not first().replayed
    after = state(anna.pk, table_id)
    assert first().replayed
    assert state(anna.pk, table_id) == after
    expected = {"buy-in": (600, 400), "top-up": (450, 550), "cash-out": (1000, None)}[operation]
    assert after[:2] == expected
    assert after[0] + chips_at(table_id) == 1000  # every chip on exactly one side
    report = verify()
    assert report.ok, report.failures


@pytest.mark.django_db(transaction=True)
def test_two_buy_ins_racing_for_one_balance_take_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two tabs of one player buy in at two tables at the same time with a balance for one: both transactions
    seat the player and reach the ledger's append at the same version; optimistic concurrency lets one
    commit, the other is rolled back whole (its seat too), retried, and refused for the balance."""
    from django.db import connections

    anna = player("anna")
    service.grant(anna, 500, "benvenuto", "direttore")
    first, second = cash_table("NT"), cash_table("NT")
    both_at_the_ledger = threading.Barrier(2, timeout=20)

    waits = [2]
    lock = threading.Lock()

    def pause(step: str) -> None:
        with lock:
            first_attempt = waits[0] > 0
            waits[0] -= 1
        if first_attempt:  # the first attempt of each: both seated, neither appended to the ledger yet
            with contextlib.suppress(threading.BrokenBarrierError):
                both_at_the_ledger.wait()

    monkeypatch.setattr(service, "between_appends", pause)
    outcomes: dict[int, object] = {}

    def buy(table_id: int) -> None:
        try:
            outcomes[table_id] = service.buy_in(anna, table_id, 0, 400)
        except Exception as error:
            outcomes[table_id] = error
            both_at_the_ledger.abort()
        finally:
            connections.close_all()

    threads = [threading.Thread(target=buy, args=(t,)) for t in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    refused = [o for o in outcomes.values() if isinstance(o, ledger.InsufficientBalance)]
    done = [o for o in outcomes.values() if isinstance(o, service.Receipt)]
    assert len(refused) == 1 and len(done) == 1, outcomes
    assert waits == [0]  # both reached the ledger's append (seated); the loser's retry was refused first
    tables.forget_cache()
    seated = [t for t in (first, second) if stack_of(t, "anna") == 400]
    assert len(seated) == 1 and service.load(anna.pk).balance == 100
    assert verify().ok
