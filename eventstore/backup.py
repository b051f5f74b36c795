"""Logical backups of the database with PostgreSQL's own tools (issue 23 §4): ``pg_dump -Fc`` of a running
service and ``pg_restore`` into a new database, for the tests, the restore drill and an operator's shell.

The client programs must match the server: ``pg_dump`` refuses a server of a newer major version, and a
restore is safest with the server's own version. :func:`client_program` finds them for the database Django
uses — the embedded PostgreSQL's own (``pgserver``, 16 here), Debian's ``/usr/lib/postgresql/<major>/bin``,
``PG_BINDIR`` or ``PATH`` — and :func:`libpq_environment` turns Django's connection settings (the socket
folder of the embedded server, or an external server's host, port, user and password) into the
``PG*`` variables the programs read, so that the same calls work on both.

What a dump holds: the whole database in one snapshot (a read-only transaction: it does not hold the
subscriptions back), the log, the projections, the checkpoints and the hidden seeds of the hands in
progress (``tables.models.HandSeed``) consistent with each other. ``docs/operations.md`` (*Backups*) gives
the procedure; ``deploy/pitr-drill.sh`` the point-in-time restore.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import connection


class BackupError(Exception):
    """A PostgreSQL program failed (its name, exit status and the end of its stderr in the message)."""


@dataclass(frozen=True)
class NoClientProgram(BackupError):
    """No ``program`` of ``major`` or newer was found; ``found``: ``(folder, major)`` of those seen."""

    program: str
    major: int
    found: tuple[tuple[str, int], ...]

    def __str__(self) -> str:
        seen = ", ".join(f"{folder} ({major})" for folder, major in self.found) or "none"
        return (
            f"no {self.program} for PostgreSQL {self.major} or newer; found: {seen} "
            "(install the server's client programs or set PG_BINDIR)"
        )


def _folders() -> list[Path]:
    """Where client programs may be: ``PG_BINDIR``, the embedded server's, Debian's, then ``PATH``."""
    folders: list[Path] = []
    if os.environ.get("PG_BINDIR"):
        folders.append(Path(os.environ["PG_BINDIR"]))
    try:
        from pgserver._commands import POSTGRES_BIN_PATH  # the embedded server's programs

        folders.append(Path(POSTGRES_BIN_PATH))
    except ImportError:  # pragma: no cover - pgserver is a dependency, but a deployment may leave it out
        pass
    folders += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    folders += [Path(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    return folders


def program_major(path: Path) -> int:
    """The major version of a PostgreSQL program (``pg_dump --version`` → ``pg_dump (PostgreSQL) 16.4``:
    16). Raises :class:`BackupError` if it does not say one."""
    out = subprocess.run([str(path), "--version"], capture_output=True, text=True, check=False).stdout
    found = re.search(r"\(PostgreSQL\) (\d+)", out)
    if not found:
        raise BackupError(f"{path} --version did not give a PostgreSQL version: {out!r}")
    return int(found.group(1))


def server_major() -> int:
    """The major version of the server Django's ``default`` database is on (16 for 160004)."""
    connection.ensure_connection()
    return int(connection.pg_version) // 10_000


def client_program(program: str, major: int | None = None) -> Path:
    """The path of ``program`` (``pg_dump``, ``pg_restore``, ``psql``…) for a server of ``major`` (default:
    Django's database's): one of exactly that version if any, else the oldest newer one (a newer ``pg_dump``
    reads an older server; an older one refuses). Raises :class:`NoClientProgram`."""
    major = server_major() if major is None else major
    found: list[tuple[str, int]] = []
    for folder in _folders():
        path = folder / program
        if not (path.is_file() and os.access(path, os.X_OK)):
            continue
        resolved = str(path.resolve())
        if any(resolved == seen for seen, _ in found):
            continue
        found.append((resolved, program_major(path)))
    usable = [(version, path) for path, version in found if version >= major]
    if not usable:
        raise NoClientProgram(program, major, tuple((str(Path(p).parent), v) for p, v in found))
    exact = [path for version, path in usable if version == major]
    return Path(exact[0] if exact else min(usable)[1])


LIBPQ_VARIABLES = {
    "host": "PGHOST",
    "hostaddr": "PGHOSTADDR",
    "port": "PGPORT",
    "dbname": "PGDATABASE",
    "user": "PGUSER",
    "password": "PGPASSWORD",
    "passfile": "PGPASSFILE",
    "service": "PGSERVICE",
    "sslmode": "PGSSLMODE",
    "sslcert": "PGSSLCERT",
    "sslkey": "PGSSLKEY",
    "sslrootcert": "PGSSLROOTCERT",
    "connect_timeout": "PGCONNECT_TIMEOUT",
    "options": "PGOPTIONS",
}
"""libpq's connection keywords and the environment variables the PostgreSQL programs read them from."""


def libpq_environment(settings: Mapping[str, Any] | None = None) -> dict[str, str]:
    """A copy of ``os.environ`` with the ``PG*`` variables (:data:`LIBPQ_VARIABLES`) of a Django database
    settings dict (default: the ``default`` connection's): ``HOST``, ``PORT``, ``USER``, ``PASSWORD``,
    ``NAME``, and the libpq keywords of ``OPTIONS`` where those are empty (the embedded server's socket
    folder is ``OPTIONS["host"]``: ``DATABASE_URL=postgresql://postgres@/mazziere?host=/…/.dev/postgres``)."""
    given = connection.settings_dict if settings is None else settings
    keywords: dict[str, Any] = {
        "host": given.get("HOST"),
        "port": given.get("PORT"),
        "user": given.get("USER"),
        "password": given.get("PASSWORD"),
        "dbname": given.get("NAME"),
    }
    for keyword, value in (given.get("OPTIONS") or {}).items():
        if keyword in LIBPQ_VARIABLES and keywords.get(keyword) in (None, ""):
            keywords[keyword] = value
    env = dict(os.environ)
    for keyword, value in keywords.items():
        if value not in (None, ""):
            env[LIBPQ_VARIABLES[keyword]] = str(value)
    return env


def run(program: str, arguments: list[str], database: str | None = None) -> str:
    """Run the PostgreSQL ``program`` with ``arguments`` against Django's server (``database``: another
    database on it; default Django's); returns its stdout. Raises :class:`BackupError` on a non-zero exit."""
    env = libpq_environment()
    if database is not None:
        env["PGDATABASE"] = database
    path = client_program(program)
    done = subprocess.run([str(path), *arguments], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"{program} exited with {done.returncode}: {done.stderr.strip()[-2000:]}")
    return done.stdout


def dump(path: Path, snapshot: str = "", database: str | None = None) -> Path:
    """``pg_dump -Fc`` of ``database`` (default: Django's) into ``path``; ``snapshot``: a snapshot id
    exported by a transaction still open (``pg_export_snapshot()``), so that the dump holds exactly what
    that transaction sees. Returns ``path``. Raises :class:`BackupError`."""
    arguments = ["--format=custom", "--no-owner", f"--file={path}"]
    if snapshot:
        arguments.append(f"--snapshot={snapshot}")
    run("pg_dump", arguments, database)
    return path


def restore(path: Path, database: str) -> None:
    """``pg_restore`` of the dump at ``path`` into the empty ``database`` on Django's server, stopping at
    the first error (``--exit-on-error``, in one transaction). Raises :class:`BackupError`."""
    arguments = ["--no-owner", "--exit-on-error", "--single-transaction", f"--dbname={database}", str(path)]
    run("pg_restore", arguments, database)


# --- transaction ids of a restored log ---------------------------------------------------------------------


@dataclass(frozen=True)
class LogAheadOfServer(BackupError):
    """The log holds transaction ids (``eventstore_event.tx_id``, ``xid8``) at or past the next one this
    server will assign: it was restored with ``pg_restore`` from another cluster whose transaction counter
    was further on. The subscriptions read events in commit order below the oldest running transaction
    (:func:`eventstore.store.read_all`), so they would not see those events, nor any new one (its id is
    smaller than their checkpoint's), until the server's counter passed ``log_xid``: the process manager
    would record no hand. The fix (``docs/operations.md``, *Backups*): stop the server and move its epoch
    (the high 32 bits of an ``xid8``) past the log's with ``pg_resetwal -e`` :attr:`epoch`.

    ``log_xid``: the largest ``tx_id`` in the log; ``next_xid``: the server's next transaction id."""

    log_xid: int
    next_xid: int

    @property
    def epoch(self) -> int:
        """The epoch to give the server (``pg_resetwal -e``): one past the log's."""
        return (self.log_xid >> 32) + 1

    def __str__(self) -> str:
        return (
            f"the event log's transaction ids reach {self.log_xid}, past this server's next one "
            f"({self.next_xid}): it was restored from another PostgreSQL cluster, and the subscriptions "
            f"would not read its events. Stop the server, run `pg_resetwal -e {self.epoch} <data folder>` "
            "and start it again (docs/operations.md, Backups)"
        )


def check_transaction_ids() -> None:
    """Raise :class:`LogAheadOfServer` if the log holds a transaction id the server has not assigned yet
    (every committed transaction's id is below ``pg_snapshot_xmax(pg_current_snapshot())``). One index read
    (``event_commit_order``)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT max(tx_id) FROM eventstore_event)::text, "
            "pg_snapshot_xmax(pg_current_snapshot())::text"
        )
        log_xid, next_xid = cursor.fetchone()
    if log_xid is not None and int(log_xid) >= int(next_xid):
        raise LogAheadOfServer(int(log_xid), int(next_xid))
