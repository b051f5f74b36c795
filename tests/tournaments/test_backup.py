"""Backups (issue 23 §4): ``pg_dump`` of a running tournament, restored into a new database, projections
rebuilt from the log, and the restored service continues the tournament from exactly where the dump left
it, to the end, with nothing lost.

The dump is taken by PostgreSQL's own ``pg_dump`` (:mod:`eventstore.backup`: the embedded server's programs
or the external server's) in a snapshot exported by a read-only transaction of the test, which then reads
the original's state in that same snapshot: the dump point, while the service keeps playing. Then the
service stops, the original database is renamed aside, a new database of the test database's name is
created and the dump restored into it (``pg_restore``), ``rebuild_projections`` runs, and the restored
state is compared with the original's at the dump point. The service starts again as new processes would:
caches empty, the Celery queue purged (the tasks queued by the original are gone with it).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection, transaction

from eventstore import backup
from eventstore.projections import computed, differences, registered
from tables import rendering, service, timers
from tables.inprocess import celery_worker, subscribers, timekeeper
from tables.models import HandSeed, Table
from tests.service_harness import ErrorRecords, error_records, wait_for
from tournaments import mtt
from tournaments.models import Tournament
from tournaments.simulation import chips_conserved, play

PLAYERS = 12
SEED = 23


def forget_process_state() -> None:
    """What a process keeps of the database it ran on (folded tables and tournaments, rendering trackers):
    dropped, as a new process would start."""
    service.forget_cache()
    mtt.forget_cache()
    rendering.forget()
    timers.is_bot.cache_clear()


@contextmanager
def running_service() -> Iterator[ErrorRecords]:
    """The worker, the subscribers and the timekeeper as threads (``tables.inprocess``); yields the ERROR
    records they log."""
    forget_process_state()
    with ExitStack() as stack:
        stack.enter_context(celery_worker())
        errors = stack.enter_context(error_records())
        stack.enter_context(subscribers())
        stack.enter_context(timekeeper())
        yield errors
    forget_process_state()


def connect_to(database: str, autocommit: bool = False) -> psycopg.Connection[Any]:
    """A connection to ``database`` on the test database's server (libpq settings from Django's)."""
    env = backup.libpq_environment()
    return psycopg.connect(
        host=env.get("PGHOST"),
        port=env.get("PGPORT"),
        user=env.get("PGUSER"),
        password=env.get("PGPASSWORD"),
        dbname=database,
        autocommit=autocommit,
    )


def maintenance() -> psycopg.Connection[Any]:
    """An autocommit connection to the server's ``postgres`` database (to create, rename, drop databases)."""
    return connect_to("postgres", autocommit=True)


def disconnect(admin: psycopg.Connection[Any], database: str) -> None:
    """Close this process's connections to ``database`` and end any session still on it."""
    connection.close()
    connection.close_pool()
    admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = %s AND pid <> pg_backend_pid()",
        [database],
    )


def log_of(database: str) -> dict[tuple[str, int], str]:
    """Every event of ``database``: ``(stream, version) -> hash`` (hex)."""
    with connect_to(database) as conn:
        rows = conn.execute("SELECT stream_id, version, encode(hash, 'hex') FROM eventstore_event").fetchall()
    return {(stream, version): digest for stream, version, digest in rows}


def state_now(tournament_id: int) -> dict[str, Any]:
    """The tournament and each of its tables folded from the log as this transaction sees it (no cache),
    every projection computed from the log, and the hidden seeds of the hands in progress."""
    tables = list(Table.objects.filter(tournament_id=tournament_id).values_list("id", flat=True))
    return {
        "tournament": mtt.load(tournament_id, cached=False),
        "tables": {table_id: service.load(table_id, cached=False) for table_id in sorted(tables)},
        "projections": {p.name: computed(p) for p in registered()},
        "seeds": sorted(HandSeed.objects.values_list("table_id", "hand_number", "seed")),
    }


def dump_mid_hand(path: Path, tournament_id: int) -> dict[str, Any] | None:
    """In a read-only repeatable-read transaction: if some table of the tournament is in the middle of a
    hand (its seed is waiting), ``pg_dump`` exactly what the transaction sees (its exported snapshot) into
    ``path`` while the service plays on, and return :func:`state_now` in that snapshot; else ``None``."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor.execute("SELECT pg_export_snapshot()")
        snapshot = cursor.fetchone()[0]
        if not HandSeed.objects.exists():
            return None
        backup.dump(path, snapshot=snapshot)
        return state_now(tournament_id)


@pytest.mark.slow
@pytest.mark.timers
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    os.environ.get("MAZZIERE_BACKUP_TEST") != "1",
    reason="runs in a process of its own (make test's last command, make backup-test): it swaps the test "
    "database under the process, closing the connections its other threads keep",
)
def test_a_dump_of_a_running_tournament_restored_continues_it_identically(
    settings: Any, tmp_path: Path
) -> None:
    settings.MAZZIERE_BOT_THINK, settings.MAZZIERE_NEXT_HAND_DELAY = 0.0, 0.0
    original = connection.settings_dict["NAME"]
    aside = f"{original}_before_restore"
    dump_file = tmp_path / "mazziere.dump"
    admin = maintenance()
    restore_done = False
    admin.execute(f'DROP DATABASE IF EXISTS "{aside}"')
    try:
        with running_service() as errors:
            # a few seconds of play: tables in the middle of hands, the tournament far from its end
            played = play(
                PLAYERS, seed=SEED, fast_clock=True, starting_stack=1_000, level_ms=3_000, duration_s=4
            )
            tournament_id = played.tournament_id
            assert not played.finished
            at_dump = wait_for(
                lambda: dump_mid_hand(dump_file, tournament_id), 60, "a snapshot with a hand in progress"
            )
            assert not errors.records, errors.text()
        before = log_of(original)
        assert at_dump["tournament"][1].status.value == "running"
        assert at_dump["seeds"], "no hand in progress at the dump point"

        # the restore: a new database of the same name, the dump, the projections rebuilt from the log
        disconnect(admin, original)
        admin.execute(f'ALTER DATABASE "{original}" RENAME TO "{aside}"')
        admin.execute(f'CREATE DATABASE "{original}"')
        backup.restore(dump_file, original)
        restore_done = True
        forget_process_state()
        call_command("rebuild_projections", stdout=io.StringIO())

        # the restored log is the original's at the dump point: each stream a prefix of the original's
        restored = log_of(original)
        assert restored and all(before[key] == digest for key, digest in restored.items())
        assert len(before) > len(restored)  # the original played on after the dump
        # and everything folded from it equals the original's at the dump point
        now = state_now(tournament_id)
        assert now["tournament"] == at_dump["tournament"]
        assert now["tables"] == at_dump["tables"] and len(now["tables"]) > 1
        assert now["seeds"] == at_dump["seeds"]  # the hidden seeds of the hands in progress came back
        # the rebuilt rows, and a fold of the restored log, equal the original's at the dump point
        for projection in registered():
            for rows in (projection.current(), now["projections"][projection.name]):
                found = differences(at_dump["projections"][projection.name], rows)
                assert not found, (projection.name, found[:5])

        # the restored service plays the tournament to its end
        with running_service() as errors:
            wait_for(
                lambda: Tournament.objects.get(id=tournament_id).status == "finished",
                120,
                "the restored tournament to finish",
            )
            assert not errors.records, errors.text()
        out = io.StringIO()
        call_command("verify_all", "--json", stdout=out)
        report = json.loads(out.getvalue())
        assert report["ok"], report["failures"][:5]
        assert chips_conserved(tournament_id)
        ended = Tournament.objects.get(id=tournament_id)
        assert ended.winner and len(ended.finished) == PLAYERS
        assert all(t.status == "closed" for t in Table.objects.filter(tournament_id=tournament_id))
    finally:
        if not restore_done:  # failed between the rename and the end of the restore: put the original back
            names = {row[0] for row in admin.execute("SELECT datname FROM pg_database").fetchall()}
            if aside in names:
                disconnect(admin, original)
                admin.execute(f'DROP DATABASE IF EXISTS "{original}" WITH (FORCE)')
                admin.execute(f'ALTER DATABASE "{aside}" RENAME TO "{original}"')
        admin.execute(f'DROP DATABASE IF EXISTS "{aside}" WITH (FORCE)')
        admin.close()
