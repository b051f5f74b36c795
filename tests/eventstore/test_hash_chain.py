"""The per-stream hash chain (issue 6 §2): every event's hash links it to the one before; verification names
the first edited, deleted, reordered or swapped event of a stream."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from eventstore import chain
from eventstore.store import NewEvent, append, read_stream

pytestmark = pytest.mark.django_db

AWKWARD = {
    "text": 'virgolette " e \\ barre, a capo\n, tab\t, \x01 controllo, àèìòù €, 🂡',
    "nested": {"zz": [1, -2, True, None, {"b": "x", "aa": []}], "a": {}},
    "big": 2**62,
    "k" * 3: "k",
}


def stored(stream_id: str) -> list[tuple[int, str, bytes]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT version, eventstore_canonical(e), hash FROM eventstore_event e WHERE stream_id = %s "
            "ORDER BY version",
            [stream_id],
        )
        return [(v, text, bytes(h)) for v, text, h in cursor.fetchall()]


def problems_of(stream_id: str) -> list[chain.ChainProblem]:
    """The stream's chain problems, the same by both reads: :func:`eventstore.chain.verify_chains` (keyset
    batches) and :func:`eventstore.chain.read_checked` (``verify_all``'s one read of a table stream, which
    also returns the events when the chain holds)."""
    problems, heads = chain.verify_chains([stream_id])
    checked_problems, checked_heads, count, events = chain.read_checked(stream_id)
    assert (checked_problems, checked_heads) == (problems, heads)
    assert count == len(read_stream(stream_id))
    assert events == ([] if problems else read_stream(stream_id, lean=True))
    return problems


RELINK = (
    "UPDATE eventstore_event e SET hash = sha256(p.hash || convert_to(eventstore_canonical(e), 'UTF8')) "
    "FROM eventstore_event p WHERE e.stream_id = %s AND e.version = %s AND p.stream_id = e.stream_id "
    "AND p.version = e.version - 1"
)
"""A forger's recomputed hash of one version (``[stream, version]``), linked to the stored one before it."""


def sql(statement: str, params: list[Any]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


@pytest.fixture
def five(sid: Callable[[str], str]) -> str:
    """A stream of five events, appended in two batches."""
    stream = sid("audit")
    append(stream, 0, [NewEvent("Opened", {"n": 1}), NewEvent("Said", AWKWARD)], {"actor": "anna"})
    append(stream, 2, [NewEvent("Said", {"n": n}) for n in (3, 4, 5)])
    return stream


def test_every_event_is_linked_to_the_one_before(five: str) -> None:
    rows = stored(five)
    assert [v for v, _, _ in rows] == [1, 2, 3, 4, 5]
    previous = b""
    for _, text, digest in rows:
        assert digest == hashlib.sha256(previous + text.encode()).digest()
        previous = digest
    assert problems_of(five) == []
    assert chain.verify_chains([five])[1] == {five: rows[-1][2].hex()}
    events = chain.read_checked(five)[3]
    assert [e.data for e in events] == [{"n": 1}, AWKWARD, {"n": 3}, {"n": 4}, {"n": 5}]


def test_the_python_canonical_text_is_postgresql_s(five: str) -> None:
    """An exported stream can be checked without the database."""
    for event, (_, text, _) in zip(read_stream(five), stored(five), strict=True):
        python = chain.canonical_text(
            event.stream_id, event.version, event.type, event.schema_version, event.data, event.metadata,
            event.event_id,
        )  # fmt: skip
        assert python == text


# jsonb stores neither \u0000 nor lone surrogates
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=20)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(data=st.dictionaries(TEXT, JSON, max_size=5))
def test_the_canonical_text_agrees_on_any_json(data: dict[str, Any]) -> None:
    stream = f"prop-{uuid.uuid4().hex}"
    [event] = append(stream, 0, [NewEvent("Any", data)])
    [(_, text, digest)] = stored(stream)
    assert chain.canonical_text(stream, 1, "Any", 1, event.data, event.metadata, event.event_id) == text
    assert digest == chain.link(b"", text)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT data::text, metadata::text FROM eventstore_event WHERE stream_id = %s", [stream]
        )
        [(data_text, metadata_text)] = cursor.fetchall()
    composed = chain.canonical_from_texts(stream, 1, "Any", 1, data_text, metadata_text, event.event_id)
    assert composed == text  # what verify_chains hashes: PostgreSQL's own text, built from the columns' text


def test_an_edited_event_is_named(five: str) -> None:
    sql("UPDATE eventstore_event SET data = '{\"n\": 40}' WHERE stream_id = %s AND version = 4", [five])
    [problem] = problems_of(five)
    assert (problem.stream_id, problem.version) == (five, 4) and "hash differs" in problem.message


def test_an_edited_actor_is_named(five: str) -> None:
    sql(
        'UPDATE eventstore_event SET metadata = \'{"actor": "bruno"}\' WHERE stream_id = %s AND version = 2',
        [five],
    )
    assert [p.version for p in problems_of(five)] == [2]


def test_a_deleted_event_is_named(five: str) -> None:
    sql("DELETE FROM eventstore_event WHERE stream_id = %s AND version = 3", [five])
    [problem] = problems_of(five)
    assert problem.version == 3 and "missing" in problem.message


def test_a_deleted_last_event_with_its_hash_is_caught_against_the_published_head(five: str) -> None:
    _, heads = chain.verify_chains([five])
    published = chain.stored_heads([five])
    assert published == [chain.PublishedHead(five, 5, heads[five])]
    sql("DELETE FROM eventstore_event WHERE stream_id = %s AND version >= 4", [five])
    problems, after = chain.verify_chains([five])
    assert problems == [] and after[five] != heads[five]  # only the published head shows it
    [problem] = chain.check_heads(published)
    assert (problem.stream_id, problem.version) == (five, 4) and "ends at version 3" in problem.message


def test_an_inserted_event_is_named_itself(five: str) -> None:
    """The forger renumbers versions 3.. one up and inserts a new version 3: the trigger links it to version
    2, so its own hash holds; it was recorded after the version that follows it."""
    sql("UPDATE eventstore_event SET version = -version WHERE stream_id = %s AND version >= 3", [five])
    sql("UPDATE eventstore_event SET version = 1 - version WHERE stream_id = %s AND version < 0", [five])
    append_at = (
        "INSERT INTO eventstore_event (stream_id, version, type, schema_version, data, metadata, event_id)"
    )
    sql(f"{append_at} VALUES (%s, 3, 'Said', 1, '{{\"n\": 0}}', '{{}}', gen_random_uuid())", [five])
    [problem] = problems_of(five)
    assert (problem.stream_id, problem.version) == (five, 3) and "recorded after version 4" in problem.message


def test_a_rewritten_stream_is_caught_against_the_published_heads_only(five: str) -> None:
    """The forger edits version 4 and recomputes the hashes of 4 and 5: the chain holds; the head published
    at version 5 no longer does, and one published at version 3 bounds the rewrite."""
    at_three = chain.PublishedHead(five, 3, stored(five)[2][2].hex())
    [at_five] = chain.stored_heads([five])
    append(five, 5, [NewEvent("Said", {"n": 6})])  # appending after a published head is no forgery
    assert chain.check_heads([at_three, at_five]) == []
    sql("UPDATE eventstore_event SET data = '{\"n\": 40}' WHERE stream_id = %s AND version = 4", [five])
    for version in (4, 5, 6):
        sql(RELINK, [five, version])
    assert problems_of(five) == []
    [problem] = chain.check_heads([at_five, at_three])
    assert (problem.stream_id, problem.version) == (five, 5)
    assert "rewritten after version 3, at or before this version" in problem.message


def test_published_heads_are_read_from_the_api_s_json_or_the_page_s_lines(five: str) -> None:
    heads = chain.stored_heads([five, "nobody-1"])
    [head] = heads
    digest = chain.heads_digest(heads)
    document = {"streams": [{"stream_id": five, "version": 5, "hash": head.hash}], "digest": digest}
    assert chain.parse_heads(json.dumps({"id": 1, "chain_heads": document})) == heads
    assert chain.parse_heads(json.dumps(document)) == heads
    lines = f"# saved from the results\n\n{five} 5 {head.hash.upper()}\n"
    assert chain.parse_heads(lines) == heads == chain.parse_heads(f"{five} v5 {head.hash}")
    assert chain.parse_heads(f"{five}:5:{head.hash}") == heads
    cut = {**document, "digest": chain.heads_digest([])}
    refused = {
        json.dumps(cut): "the digest does not match",
        json.dumps({"streams": "x"}): "no published heads",
        "{not json": "not JSON",
        f"{five} 5": "line 1: expected",
        f"{five} 0 {head.hash}": "a version >= 1",
        f"{five} 5 {head.hash[:-1]}": "64 hex digits",
        "# nothing\n": "no published head",
    }
    for text, message in refused.items():
        with pytest.raises(chain.MalformedHeads, match=message):
            chain.parse_heads(text)


def test_two_swapped_events_are_named_at_the_first(five: str) -> None:
    """Swap the contents of versions 2 and 3 (type, data, metadata and the stored hashes)."""
    sql(
        "UPDATE eventstore_event AS e SET type = o.type, data = o.data, metadata = o.metadata, hash = o.hash "
        "FROM eventstore_event AS o WHERE e.stream_id = %s AND o.stream_id = e.stream_id "
        "AND ((e.version = 2 AND o.version = 3) OR (e.version = 3 AND o.version = 2))",
        [five],
    )
    assert [p.version for p in problems_of(five)] == [2]


def test_reordered_versions_are_named(five: str) -> None:
    """Renumber the rows 2 ↔ 4 (each keeps its own hash)."""
    sql("UPDATE eventstore_event SET version = -1 WHERE stream_id = %s AND version = 2", [five])
    sql("UPDATE eventstore_event SET version = 2 WHERE stream_id = %s AND version = 4", [five])
    sql("UPDATE eventstore_event SET version = 4 WHERE stream_id = %s AND version = -1", [five])
    assert [p.version for p in problems_of(five)] == [2]


def test_a_recomputed_hash_does_not_hide_an_edit_from_the_next_event(five: str) -> None:
    """The forger edits version 2 and recomputes its hash: version 3 still links to the old one."""
    sql("UPDATE eventstore_event SET data = '{\"n\": 99}' WHERE stream_id = %s AND version = 2", [five])
    sql(
        "UPDATE eventstore_event e SET hash = sha256(p.hash || convert_to(eventstore_canonical(e), 'UTF8')) "
        "FROM eventstore_event p WHERE e.stream_id = %s AND e.version = 2 AND p.stream_id = e.stream_id "
        "AND p.version = 1",
        [five],
    )
    assert [p.version for p in problems_of(five)] == [3]


def test_other_streams_are_checked_on_their_own(five: str, sid: Callable[[str], str]) -> None:
    other = sid("other")
    append(other, 0, [NewEvent("Opened", {})])
    sql("UPDATE eventstore_event SET data = '{}' WHERE stream_id = %s AND version = 1", [five])
    problems, heads = chain.verify_chains([five, other])
    assert [(p.stream_id, p.version) for p in problems] == [(five, 1)]
    assert set(heads) == {other}
