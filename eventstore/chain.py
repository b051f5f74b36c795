"""The per-stream hash chain (issue 6 §2, tamper evidence) and its verification.

Every event stores ``hash = sha256(h_prev ‖ canonical_text(event))`` where ``h_prev`` is the stored hash of
the stream's previous version (empty for version 1). The trigger of migration 0004 computes it at insert, so
no append path can skip it. The canonical text is PostgreSQL's ``jsonb`` text of the object ``{stream_id,
version, type, schema_version, data, metadata, event_id}``: keys ordered by length then bytes, ``", "`` and
``": "`` separators, strings escaped as PostgreSQL's ``escape_json`` does. :func:`canonical_text` computes the
same in Python, so an exported stream (JSON Lines) can be checked without the database: :func:`verify_lines`,
``python -m eventstore.chain FILE.jsonl``.

:func:`verify_chains` walks the log stream by stream in version order and names, per stream, the first
version that is missing (a deleted event), out of place or whose recomputed hash differs from the stored one
(an edited, reordered or swapped event). A forger who rewrites a whole stream and recomputes every hash is
caught only against a hash published earlier (the verification report prints each stream's head hash).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import connection

BATCH = 5_000


@dataclass(frozen=True, slots=True)
class ChainProblem:
    """``stream_id`` is broken from ``version`` on (the first bad version), because of ``message``."""

    stream_id: str
    version: int
    message: str


# PostgreSQL's escape_json: the two-character escapes, other control characters as \u00XX, the rest as is
_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x20)} | {
    ord(char): escaped
    for char, escaped in {
        '"': '\\"',
        "\\": "\\\\",
        "\b": "\\b",
        "\f": "\\f",
        "\n": "\\n",
        "\r": "\\r",
        "\t": "\\t",
    }.items()
}


def _string(text: str) -> str:
    return '"' + text.translate(_ESCAPES) + '"'


def jsonb_text(value: Any) -> str:
    """``value`` (decoded JSON: dict, list, str, int, bool, None; floats as PostgreSQL ``numeric`` prints
    them for plain decimals) as PostgreSQL prints it as ``jsonb``. Raises ``TypeError`` for anything else."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json.dumps(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(jsonb_text(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: (len(key.encode()), key.encode()))
        return "{" + ", ".join(f"{_string(key)}: {jsonb_text(value[key])}" for key in keys) + "}"
    raise TypeError(f"not JSON: {type(value).__name__}")


def canonical_text(
    stream_id: str,
    version: int,
    type: str,
    schema_version: int,
    data: dict[str, Any],
    metadata: dict[str, Any],
    event_id: str,
) -> str:
    """The text an event's hash covers (the same as ``eventstore_canonical`` in PostgreSQL)."""
    return jsonb_text(
        {
            "stream_id": stream_id,
            "version": version,
            "type": type,
            "schema_version": schema_version,
            "data": data,
            "metadata": metadata,
            "event_id": event_id,
        }
    )


def link(previous: bytes, canonical: str) -> bytes:
    """The hash of an event: ``sha256(previous ‖ canonical)`` (``previous`` empty for version 1)."""
    return hashlib.sha256(previous + canonical.encode()).digest()


def _rows(streams: list[str] | None, batch: int) -> Iterator[tuple[str, int, str, bytes | None]]:
    """``(stream_id, version, canonical text, stored hash)`` in stream and version order, read in keyset
    batches (the unique index on ``(stream_id, version)``)."""
    after: tuple[str, int] = ("", 0)
    where = "AND stream_id = ANY(%s)" if streams is not None else ""
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT stream_id, version, eventstore_canonical(e), hash FROM eventstore_event e "
                f"WHERE (stream_id, version) > (%s, %s) {where} ORDER BY stream_id, version LIMIT %s",
                [*after, *([streams] if streams is not None else []), batch],
            )
            rows = cursor.fetchall()
        if not rows:
            return
        for stream_id, version, text, stored in rows:
            yield stream_id, version, text, bytes(stored) if stored is not None else None
        after = (rows[-1][0], rows[-1][1])


def verify_chains(
    streams: list[str] | None = None,
    progress: Callable[[int], None] | None = None,
    batch: int = BATCH,
) -> tuple[list[ChainProblem], dict[str, str]]:
    """Check every stream's hash chain (or only ``streams``). Returns the problems (at most one per stream:
    its first bad version) and each stream's head hash (hex) to publish. ``progress(n)``: n more events
    checked."""
    problems: list[ChainProblem] = []
    heads: dict[str, str] = {}
    current, expected_version, previous, broken = "", 0, b"", False
    done = 0
    for stream_id, version, text, stored in _rows(streams, batch):
        done += 1
        if progress is not None and done % 1000 == 0:
            progress(1000)
        if stream_id != current:
            current, expected_version, previous, broken = stream_id, 1, b"", False
        if broken:
            continue
        if version != expected_version:
            what = "missing (deleted?)" if version > expected_version else "out of place"
            problems.append(ChainProblem(stream_id, expected_version, f"version {expected_version} {what}"))
            broken = True
            continue
        computed = link(previous, text)
        if stored != computed:
            problems.append(
                ChainProblem(stream_id, version, "hash differs: the event or one before it was changed")
            )
            broken = True
            continue
        previous, expected_version = computed, version + 1
        heads[stream_id] = computed.hex()
    if progress is not None and done % 1000:
        progress(done % 1000)
    for problem in problems:
        heads.pop(problem.stream_id, None)
    return problems, heads


# --- exported streams (JSON Lines, audit/export.py), checked without the database --------------------------

_LINE_FIELDS: dict[str, type] = {
    "stream_id": str,
    "version": int,
    "type": str,
    "schema_version": int,
    "data": dict,
    "metadata": dict,
    "event_id": str,
    "hash": str,
}


def verify_lines(lines: Iterable[str | bytes]) -> list[ChainProblem]:
    """Check exported events (JSON Lines: one object per event with the fields of :func:`canonical_text`
    and its stored ``hash`` in hex) offline: per stream, versions consecutive from 1 and every hash equal
    to ``sha256(previous hash ‖ canonical text)``. Returns the problems, at most one per stream (its first
    bad version; each message names the line). Blank lines are skipped; the streams of a file may follow one
    another (a tournament's export). See :func:`check_lines` for the head hashes."""
    return check_lines(lines)[0]


def check_lines(lines: Iterable[str | bytes]) -> tuple[list[ChainProblem], dict[str, tuple[int, str]]]:
    """:func:`verify_lines`, and the head of each stream that passed: ``{stream_id: (last version, its
    hash in hex)}``. An export that passes is the log as it was if a head equals the hash of that version
    published before (``manage.py verify_all --json`` prints each stream's head): a forger could rewrite a
    whole stream and recompute its hashes."""
    problems: list[ChainProblem] = []
    chains: dict[str, tuple[int, bytes]] = {}  # stream -> (next version, hash of the last one)
    broken: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError as error:
            problems.append(ChainProblem("", 0, f"line {number}: not JSON: {error}"))
            continue
        stream_id = event.get("stream_id") if isinstance(event, dict) else None
        if not isinstance(stream_id, str):
            problems.append(ChainProblem("", 0, f"line {number}: not an exported event (no stream_id)"))
            continue
        if stream_id in broken:
            continue
        expected, previous = chains.get(stream_id, (1, b""))
        bad = [
            name
            for name, kind in _LINE_FIELDS.items()
            if not isinstance(event.get(name), kind) or (kind is int and isinstance(event.get(name), bool))
        ]
        if bad:
            message = f"line {number}: not an exported event ({', '.join(bad)} missing or of the wrong type)"
            problems.append(ChainProblem(stream_id, expected, message))
            broken.add(stream_id)
            continue
        version = event["version"]
        if version != expected:
            what = "missing (deleted?)" if version > expected else "out of place"
            problems.append(ChainProblem(stream_id, expected, f"line {number}: version {expected} {what}"))
            broken.add(stream_id)
            continue
        text = canonical_text(*(event[name] for name in _LINE_FIELDS if name != "hash"))
        computed = link(previous, text)
        if event["hash"] != computed.hex():
            message = f"line {number}: hash differs: the event or one before it was changed"
            problems.append(ChainProblem(stream_id, version, message))
            broken.add(stream_id)
            continue
        chains[stream_id] = (version + 1, computed)
    good = {stream: chain for stream, chain in chains.items() if stream not in broken}
    return problems, {stream: (after - 1, last.hex()) for stream, (after, last) in good.items()}


def main(argv: list[str] | None = None) -> int:
    """``python -m eventstore.chain FILE.jsonl...``: :func:`check_lines` on exported streams, without the
    database. Prints one line per problem (exit 1) and each good stream's last version and head hash."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m eventstore.chain", description="Verify the hash chains of exported event streams."
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)
    failed = False
    for file in args.files:
        with open(file, encoding="utf-8") as lines:
            problems, heads = check_lines(lines)
        for problem in problems:
            print(f"{file}: {problem.stream_id} v{problem.version}: {problem.message}")
        for stream_id, (version, digest) in heads.items():
            print(f"{file}: {stream_id} v{version} OK, head {digest}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
