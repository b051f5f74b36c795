"""The PostgreSQL programs of a backup (:mod:`eventstore.backup`): the server's major version, found for
the embedded and an external server, and the ``PG*`` variables from Django's settings."""

from __future__ import annotations

import os

import pytest

from eventstore import backup


@pytest.mark.django_db
def test_the_programs_match_the_server() -> None:
    major = backup.server_major()
    for program in ("pg_dump", "pg_restore", "psql"):
        path = backup.client_program(program)
        assert path.name == program and backup.program_major(path) == major  # the server's own version
    with pytest.raises(backup.NoClientProgram) as raised:
        backup.client_program("pg_dump", 99)
    assert "PostgreSQL 99" in str(raised.value) and f"({major})" in str(raised.value)


def test_libpq_variables_from_the_settings() -> None:
    embedded = {
        "NAME": "mazziere", "USER": "postgres", "PASSWORD": "", "HOST": "", "PORT": "",
        "OPTIONS": {"host": "/srv/.dev/postgres", "pool": {"min_size": 1}},
    }  # fmt: skip
    env = backup.libpq_environment(embedded)
    assert (env["PGHOST"], env["PGDATABASE"], env["PGUSER"]) == ("/srv/.dev/postgres", "mazziere", "postgres")
    assert env.get("PGPASSWORD") == os.environ.get("PGPASSWORD")  # an empty password sets nothing
    external = {
        "NAME": "db", "USER": "u", "PASSWORD": "p", "HOST": "db.example.org", "PORT": 5433,
        "OPTIONS": {"sslmode": "require", "host": "ignored"},
    }  # fmt: skip
    env = backup.libpq_environment(external)
    assert (env["PGHOST"], env["PGPORT"], env["PGPASSWORD"], env["PGSSLMODE"]) == (
        "db.example.org", "5433", "p", "require",
    )  # fmt: skip
