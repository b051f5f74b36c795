"""The broadcaster: a subscription that tells the Channels groups of tables and tournaments that their
stream reached a new version (``shared/ARCHITECTURE.md``, "Real time"). Consumers render per viewer.

A message is ``{"type": "stream.updated", "stream", "version", "events"}``; ``events`` carries the stream's
new events of the batch (``version``, ``type``, ``data``, ``metadata``; at most :data:`MAX_EVENTS`, else
empty) so that a consumer whose process already holds the previous state folds them instead of reading the
log. The channel layer lives on one event loop of its own (one thread for the process), so its Redis
connections are opened once, not per batch.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from channels.layers import get_channel_layer

from eventstore.store import RecordedEvent
from eventstore.subscriptions import Subscription

NAME = "broadcaster"
MAX_EVENTS = 64


def group(stream_id: str) -> str:
    """The Channels group of a stream (``table-7`` → ``table-7``)."""
    return stream_id


def message(stream: str, events: Sequence[RecordedEvent]) -> dict[str, Any]:
    """The group message for ``events`` (consecutive, of ``stream``)."""
    carried = (
        [{"version": e.version, "type": e.type, "data": e.data, "metadata": e.metadata} for e in events]
        if len(events) <= MAX_EVENTS
        else []
    )
    return {"type": "stream.updated", "stream": stream, "version": events[-1].version, "events": carried}


def carried_events(message: dict[str, Any]) -> list[RecordedEvent]:
    """The events a message carries, as :class:`RecordedEvent` (empty when it carries none)."""
    stream = message.get("stream", "")
    return [
        RecordedEvent(0, stream, e["version"], e["type"], 1, e["data"], e.get("metadata") or {})
        for e in message.get("events") or ()
    ]


class _Loop:
    """One asyncio loop in a daemon thread, holding the channel layer and its connections."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="broadcaster", daemon=True).start()

    def run(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        asyncio.run_coroutine_threadsafe(_send_all(messages), self.loop).result(timeout=30)


_loop: _Loop | None = None
_loop_lock = threading.Lock()


def _send(messages: list[tuple[str, dict[str, Any]]]) -> None:
    global _loop
    with _loop_lock:
        if _loop is None:
            _loop = _Loop()
    _loop.run(messages)


async def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    for name, body in messages:
        await layer.group_send(name, body)


def handle(events: Sequence[RecordedEvent]) -> None:
    by_stream: dict[str, list[RecordedEvent]] = {}
    for event in events:
        by_stream.setdefault(event.stream_id, []).append(event)
    # events of one stream come in version order (commit order within a stream)
    _send([(group(stream), message(stream, batch)) for stream, batch in by_stream.items()])


def subscription() -> Subscription:
    """The broadcaster's subscription: at least once, without a transaction per batch (a message repeated
    after a restart is ignored by the sockets, which drop versions they already sent)."""
    return Subscription(NAME, handle, at_least_once=True)
