"""The broadcaster: a subscription that tells the Channels groups of tables and tournaments that their
stream reached a new version (``shared/ARCHITECTURE.md``, "Real time"). Consumers render per viewer."""

from __future__ import annotations

from collections.abc import Sequence

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from eventstore.store import RecordedEvent
from eventstore.subscriptions import Subscription

NAME = "broadcaster"


def group(stream_id: str) -> str:
    """The Channels group of a stream (``table-7`` → ``table-7``)."""
    return stream_id


def handle(events: Sequence[RecordedEvent]) -> None:
    latest: dict[str, int] = {}
    for event in events:
        latest[event.stream_id] = event.version
    layer = get_channel_layer()
    if layer is None:
        return
    send = async_to_sync(_send_all)
    send(layer, latest)


async def _send_all(layer, latest: dict[str, int]) -> None:  # type: ignore[no-untyped-def]
    for stream, version in latest.items():
        await layer.group_send(
            group(stream), {"type": "stream.updated", "stream": stream, "version": version}
        )


def subscription() -> Subscription:
    return Subscription(NAME, handle)
