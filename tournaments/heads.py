"""The chain heads a finished tournament publishes in its results (issue 23 §3): the last version and hash of
its stream and of each of its tables' streams, and one hash over them (:func:`eventstore.chain.heads_digest`).

A forger with the database can rewrite a stream from some version on and recompute every hash after it, or
cut off its tail: the chain then holds, and only a hash published before shows it. The results page and the
API (``chain_heads`` of ``GET /api/tournaments/<id>/``) show the heads once the tournament is finished (a
multi-table tournament or sit-and-go closes its tables in the transaction that finishes it, a tournament of
poker cinese matches each table when its match is recorded: nothing is appended to them afterwards); an
auditor saves them (the API's JSON, or the page's lines) and gives them to ``manage.py verify_all --heads
FILE`` or the auditors' verification page, which name the stream and version where the log no longer holds
them."""

from __future__ import annotations

from typing import Any

from eventstore.chain import heads_digest, stored_heads
from tournaments import catalog
from tournaments.models import Tournament


def published(tournament: Tournament) -> dict[str, Any] | None:
    """``{"streams": [{"stream_id", "version", "hash"}, ...], "digest": hex}`` (streams in their order,
    collation C; hashes hex sha256) for a finished tournament; ``None`` before it finishes (its streams
    still grow)."""
    if tournament.status != "finished":
        return None
    listed = catalog.get(tournament.id)
    tables = listed.tables if listed is not None else ()
    heads = stored_heads([tournament.stream_id, *(f"table-{table}" for table in tables)])
    return {
        "streams": [{"stream_id": h.stream_id, "version": h.version, "hash": h.hash} for h in heads],
        "digest": heads_digest(heads),
    }
