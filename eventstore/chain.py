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
(an edited, reordered or swapped event) or that was inserted after a later one. A forger who rewrites a
stream from some version on and recomputes every hash, or cuts off its tail, is caught only against a hash
published earlier: a finished tournament's results publish each of its streams' head
(:func:`stored_heads`, :func:`heads_digest`); :func:`parse_heads` reads what an auditor saved of them and
:func:`check_heads` compares them with the log (``manage.py verify_all --heads FILE``, the auditor's
verification page).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import connection

from eventstore.store import RecordedEvent, lean_events

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


_NEEDS_ESCAPE = re.compile(r'[\x00-\x1f"\\]')


def _string(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:  # most strings: nothing to escape (translate goes by character)
        return '"' + text + '"'
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


def canonical_from_texts(
    stream_id: str,
    version: int,
    type: str,
    schema_version: int,
    data_text: str,
    metadata_text: str,
    event_id: str,
) -> str:
    """:func:`canonical_text` from ``data`` and ``metadata`` as PostgreSQL prints them (``data::text``, the
    same text as inside the event's ``jsonb``), without decoding them: the keys in ``jsonb``'s order (by
    length, then bytes: ``data``, ``type``, ``version``, ``event_id``, ``metadata``, ``stream_id``,
    ``schema_version``). What :func:`verify_chains` hashes: PostgreSQL building each event's canonical
    ``jsonb`` again (``eventstore_canonical``) cost about 15 µs of its CPU per event, the ``::text`` of its
    two columns about 1 µs."""
    return (
        f'{{"data": {data_text}, "type": {_string(type)}, "version": {version}, '
        f'"event_id": {_string(event_id)}, "metadata": {metadata_text}, '
        f'"stream_id": {_string(stream_id)}, "schema_version": {schema_version}}}'
    )


def link(previous: bytes, canonical: str) -> bytes:
    """The hash of an event: ``sha256(previous ‖ canonical)`` (``previous`` empty for version 1)."""
    return hashlib.sha256(previous + canonical.encode()).digest()


_COLUMNS = (
    "stream_id, version, type, schema_version, data::text, metadata::text, event_id::text, hash, "
    "global_position"
)
"""What :func:`canonical_from_texts` needs of an event, its stored hash and its global position."""

Row = tuple[str, int, str, int, str, str, str, bytes | None, int]
"""A row of :data:`_COLUMNS`: ``(stream_id, version, type, schema_version, data text, metadata text, event_id,
stored hash, global position)``."""


def _rows(streams: list[str] | None, batch: int, exclude: list[str] | None = None) -> Iterator[Row]:
    """Rows of :data:`_COLUMNS` in stream and version order, read in keyset batches (the unique index on
    ``(stream_id, version)``)."""
    after: tuple[str, int] = ("", 0)
    where = "AND stream_id = ANY(%s)" if streams is not None else ""
    where += " AND NOT stream_id = ANY(%s)" if exclude else ""
    extra = ([streams] if streams is not None else []) + ([exclude] if exclude else [])
    while True:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT {_COLUMNS} FROM eventstore_event e WHERE (stream_id, version) > (%s, %s) {where} "
                "ORDER BY stream_id, version LIMIT %s",
                [*after, *extra, batch],
            )
            rows = cursor.fetchall()
        if not rows:
            return
        yield from rows
        after = (rows[-1][0], rows[-1][1])


def verify_chains(
    streams: list[str] | None = None,
    progress: Callable[[int], None] | None = None,
    batch: int = BATCH,
    exclude: list[str] | None = None,
) -> tuple[list[ChainProblem], dict[str, str]]:
    """Check every stream's hash chain (or only ``streams``; none of ``exclude``). Returns the problems (at
    most one per stream: its first bad version) and each stream's head hash (hex) to publish, both in
    stream order. ``progress(n)``: n more events checked.

    Besides the hashes, the events of a stream must have been inserted in version order (their
    ``global_position``, the insert order, grows with the version: every append inserts in version order
    after the stream's last event): an event inserted later between two others, its hash computed by the
    trigger and the later versions renumbered, is named itself ("recorded after version v + 1"), not only
    the next one, whose hash no longer links.

    Each event's canonical text is built here from its columns (:func:`canonical_from_texts`), the same
    text as ``eventstore_canonical`` builds in PostgreSQL (``tests/eventstore/test_hash_chain.py``)."""
    return _check(_rows(streams, batch, exclude), progress)


def read_checked(stream_id: str) -> tuple[list[ChainProblem], dict[str, str], int, list[RecordedEvent]]:
    """One stream read once for both :func:`verify_chains` and its content: the chain's problems and head
    (as :func:`verify_chains` ``([stream_id])`` returns them), the events checked, and, if the chain holds,
    the events as :func:`eventstore.store.read_stream` ``(stream_id, lean=True)`` returns them (else none).
    ``verify_all``'s read of a table stream (PostgreSQL computing nothing but the two columns' text)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_COLUMNS} FROM eventstore_event WHERE stream_id = %s ORDER BY version", [stream_id]
        )
        rows: list[Row] = cursor.fetchall()
    problems, heads = _check(rows, None)
    if problems:
        return problems, heads, len(rows), []
    return (
        problems,
        heads,
        len(rows),
        lean_events(stream_id, [(r[8], r[1], r[2], r[3], r[4], r[5]) for r in rows]),
    )


def _check(
    rows: Iterable[Row], progress: Callable[[int], None] | None
) -> tuple[list[ChainProblem], dict[str, str]]:
    """:func:`verify_chains` over ``rows`` (in stream and version order)."""
    problems: list[ChainProblem] = []
    heads: dict[str, str] = {}
    current, expected_version, previous, broken, last_position = "", 0, b"", False, 0
    done = 0
    for stream_id, version, type_, schema_version, data, metadata, event_id, stored, position in rows:
        done += 1
        if progress is not None and done % 1000 == 0:
            progress(1000)
        if stream_id != current:
            current, expected_version, previous, broken, last_position = stream_id, 1, b"", False, 0
        if broken:
            continue
        if version != expected_version:
            what = "missing (deleted?)" if version > expected_version else "out of place"
            problems.append(ChainProblem(stream_id, expected_version, f"version {expected_version} {what}"))
            broken = True
            continue
        if position < last_position:
            message = f"version {version - 1} was recorded after version {version} (inserted later?)"
            problems.append(ChainProblem(stream_id, version - 1, message))
            broken = True
            continue
        last_position = position
        text = canonical_from_texts(stream_id, version, type_, schema_version, data, metadata, event_id)
        computed = link(previous, text)
        if stored is None or bytes(stored) != computed:
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


# --- published heads (issue 23 §3): the anchor against a forger who recomputes every hash -----------------


@dataclass(frozen=True, slots=True)
class PublishedHead:
    """The hash (hex) of ``stream_id`` at ``version``, as published (a tournament's results) and saved by an
    auditor: the stream must still hold exactly that hash at that version."""

    stream_id: str
    version: int
    hash: str


class MalformedHeads(ValueError):
    """A file or text of published heads that :func:`parse_heads` cannot read (the message says where)."""


def stored_heads(streams: Iterable[str]) -> list[PublishedHead]:
    """Each of ``streams``' last version and its stored hash, in stream order (collation C); a stream with no
    event is left out. What a tournament's results publish (:func:`heads_digest` over them)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT ON (stream_id) stream_id, version, hash FROM eventstore_event "
            "WHERE stream_id = ANY(%s) ORDER BY stream_id, version DESC",
            [sorted(set(streams))],
        )
        rows = cursor.fetchall()
    return [PublishedHead(s, v, bytes(h).hex() if h is not None else "") for s, v, h in rows]


def heads_digest(heads: Iterable[PublishedHead]) -> str:
    """One hash over ``heads``: ``sha256`` (hex) of their lines ``"<stream_id> <version> <hash>\n"`` in
    stream order (bytes), the form :func:`parse_heads` reads. It lets a results page be quoted by one hash."""
    lines = sorted(f"{h.stream_id} {h.version} {h.hash}\n" for h in heads)
    return hashlib.sha256("".join(lines).encode()).hexdigest()


def _head(stream_id: Any, version: Any, digest: Any, where: str) -> PublishedHead:
    ok = isinstance(stream_id, str) and bool(stream_id) and not any(c.isspace() for c in stream_id)
    if isinstance(version, str) and version.removeprefix("v").isdigit():
        version = int(version.removeprefix("v"))
    if not ok or not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise MalformedHeads(f"{where}: expected a stream id, a version >= 1 and a hash")
    if (
        not isinstance(digest, str)
        or len(digest) != 64
        or any(c not in "0123456789abcdef" for c in digest.lower())
    ):
        raise MalformedHeads(f"{where}: the hash must be 64 hex digits")
    return PublishedHead(stream_id, version, digest.lower())


def parse_heads(text: str) -> list[PublishedHead]:
    """The published heads in ``text``, in either form an auditor saves:

    - JSON, the answer of a finished tournament's API (``GET /api/tournaments/<id>/``) or its
      ``chain_heads``: ``{"streams": [{"stream_id", "version", "hash"}, ...], "digest": ...}`` (the digest,
      if there, must be :func:`heads_digest` of the streams: a saved file cut or edited is refused);
    - lines ``<stream_id> <version> <hash>`` (the results page's; ``v12`` for ``12`` is read too), blank lines
      and lines starting with ``#`` skipped; a ``<stream_id>:<version>:<hash>`` word is read as a line.

    Raises :class:`MalformedHeads` (naming the line or entry) on anything else or on no head at all."""
    stripped = text.strip()
    heads: list[PublishedHead] = []
    if stripped.startswith("{"):
        try:
            document = json.loads(stripped)
        except ValueError as error:
            raise MalformedHeads(f"not JSON: {error}") from error
        published = document.get("chain_heads", document) if isinstance(document, dict) else None
        entries = published.get("streams") if isinstance(published, dict) else None
        if not isinstance(entries, list):
            raise MalformedHeads('no published heads ("streams" or "chain_heads.streams") in the JSON')
        for number, entry in enumerate(entries, 1):
            if not isinstance(entry, dict):
                raise MalformedHeads(f"entry {number}: not an object")
            heads.append(
                _head(entry.get("stream_id"), entry.get("version"), entry.get("hash"), f"entry {number}")
            )
        digest = published.get("digest") if isinstance(published, dict) else None
        if digest is not None and digest != heads_digest(heads):
            raise MalformedHeads("the digest does not match the heads listed: the file was cut or edited")
    else:
        for number, line in enumerate(text.splitlines(), 1):
            words = line.split()
            if not words or words[0].startswith("#"):
                continue
            if len(words) == 1 and words[0].count(":") >= 2:
                words = words[0].rsplit(":", 2)
            if len(words) != 3:
                raise MalformedHeads(f"line {number}: expected '<stream_id> <version> <hash>'")
            heads.append(_head(words[0], words[1], words[2], f"line {number}"))
    if not heads:
        raise MalformedHeads("no published head")
    return heads


def _compare(
    stream_id: str, heads: list[PublishedHead], last: int, stored: dict[int, str]
) -> ChainProblem | None:
    """The first of ``heads`` (one stream's, by version) that the stream no longer holds: it ends at version
    ``last`` and has the hash (hex) ``stored[v]`` at each head's version ``v``."""
    matched = 0
    for head in heads:
        if head.version > last:
            message = (
                f"the stream ends at version {last}, the published head is at version {head.version} "
                f"(hash {head.hash[:16]}…): its tail was cut off"
            )
            return ChainProblem(stream_id, last + 1, message)
        if stored.get(head.version) != head.hash:
            since = f"after version {matched}, " if matched else ""
            message = (
                f"hash differs from the published head ({head.hash[:16]}…): the stream was rewritten "
                f"{since}at or before this version, every hash recomputed"
            )
            return ChainProblem(stream_id, head.version, message)
        matched = head.version
    return None


def _by_stream(published: Iterable[PublishedHead]) -> dict[str, list[PublishedHead]]:
    by_stream: dict[str, list[PublishedHead]] = {}
    for head in published:
        by_stream.setdefault(head.stream_id, []).append(head)
    return {stream: sorted(heads, key=lambda h: h.version) for stream, heads in by_stream.items()}


def check_heads(published: Iterable[PublishedHead]) -> list[ChainProblem]:
    """Each published head against the log: the stream must reach the head's version and hold its hash
    there. A stream that ends before is named at its first missing version (its tail cut off); a different
    hash at the head's version is named there (the stream rewritten at or before it, every hash recomputed;
    with an earlier head of the same stream that still matches, the message bounds the rewrite). At most
    one problem per stream, the first by version. Stored hashes are compared: run with
    :func:`verify_chains`, which shows that they link (a stream whose chain is broken is named by it)."""
    by_stream = _by_stream(published)
    problems: list[ChainProblem] = []
    with connection.cursor() as cursor:
        for stream_id in sorted(by_stream, key=str.encode):
            heads = by_stream[stream_id]
            cursor.execute(
                "SELECT version, hash FROM eventstore_event WHERE stream_id = %s AND version = ANY(%s)",
                [stream_id, [h.version for h in heads]],
            )
            stored = {v: bytes(h).hex() if h is not None else "" for v, h in cursor.fetchall()}
            cursor.execute("SELECT max(version) FROM eventstore_event WHERE stream_id = %s", [stream_id])
            last = cursor.fetchone()[0] or 0
            problem = _compare(stream_id, heads, last, stored)
            if problem is not None:
                problems.append(problem)
    return problems


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


def _stream_of(line: str | bytes) -> str | None:
    """The ``stream_id`` of an exported line, ``None`` if it has none (blank, not JSON, not an event)."""
    try:
        event = json.loads(line)
    except ValueError:
        return None
    stream_id = event.get("stream_id") if isinstance(event, dict) else None
    return stream_id if isinstance(stream_id, str) else None


def check_exported_heads(
    lines: Iterable[str | bytes], published: Iterable[PublishedHead]
) -> list[ChainProblem]:
    """Published heads against exported streams (JSON Lines, offline; as :func:`check_heads` against the
    database). Run on lines :func:`check_lines` passed: the ``hash`` of each line is taken as it is. A
    published stream absent from the lines is named at version 1 (it ends at version 0)."""
    by_stream = _by_stream(published)
    wanted = {stream: {h.version for h in heads} for stream, heads in by_stream.items()}
    last: dict[str, int] = {}
    stored: dict[str, dict[int, str]] = {}
    for line in lines:
        if _stream_of(line) not in wanted:
            continue
        event = json.loads(line)
        stream_id, version = event["stream_id"], event.get("version")
        if isinstance(version, int):
            last[stream_id] = max(last.get(stream_id, 0), version)
            if version in wanted[stream_id]:
                stored.setdefault(stream_id, {})[version] = str(event.get("hash"))
    found = (
        _compare(stream, by_stream[stream], last.get(stream, 0), stored.get(stream, {}))
        for stream in sorted(by_stream, key=str.encode)
    )
    return [problem for problem in found if problem is not None]


def main(argv: list[str] | None = None) -> int:
    """``python -m eventstore.chain [--heads HEADS] FILE.jsonl...``: :func:`check_lines` on exported streams,
    without the database. Prints one line per problem (exit 1) and each good stream's last version and head
    hash. ``--heads``: published heads an auditor saved (:func:`parse_heads`: a tournament's API answer or
    its results page's lines), each checked against the files' streams (:func:`check_exported_heads`)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m eventstore.chain", description="Verify the hash chains of exported event streams."
    )
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--heads", metavar="HEADS", help="published heads saved earlier, checked too")
    args = parser.parse_args(argv)
    published: list[PublishedHead] = []
    if args.heads:
        try:
            with open(args.heads, encoding="utf-8") as saved:
                published = parse_heads(saved.read())
        except (OSError, MalformedHeads) as error:
            parser.error(f"--heads {args.heads}: {error}")
    failed = False
    everything: list[str] = []  # the lines of every file, for the published heads
    broken: set[str] = set()
    for file in args.files:
        with open(file, encoding="utf-8") as lines:
            text = lines.readlines()
        problems, heads = check_lines(text)
        for problem in problems:
            print(f"{file}: {problem.stream_id} v{problem.version}: {problem.message}")
        for stream_id, (version, digest) in heads.items():
            print(f"{file}: {stream_id} v{version} OK, head {digest}")
        failed = failed or bool(problems)
        broken |= {problem.stream_id for problem in problems}
        everything += text
    if published:  # a stream whose chain is broken is named above; the heads of the others are compared
        if broken:
            everything = [line for line in everything if _stream_of(line) not in broken]
        kept = [head for head in published if head.stream_id not in broken]
        for problem in check_exported_heads(everything, kept):
            print(f"published head: {problem.stream_id} v{problem.version}: {problem.message}")
            failed = True
        if not failed:
            print(f"{len(published)} published heads OK")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
