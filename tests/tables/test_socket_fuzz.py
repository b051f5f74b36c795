"""The table socket under garbage (issue 15): Hypothesis sends frames of every kind — text and bytes, sizes
up to far over :data:`tables.limits.MAX_FRAME_BYTES`, JSON of every type, deep nesting, huge strings, an
action with one field of a wrong type or value — to a live table's socket, as the player whose turn it is.
After each: an error fragment is the answer, the socket is still open, and the table's stream has not moved;
after all of them a valid action is appended and answered.

``make test`` sends :data:`FRAMES` frames (derandomized); ``make fuzz`` sets ``MAZZIERE_FUZZ_FRAMES``.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import uuid
from collections import Counter
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.db import connections
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables import limits, service
from tests.tables.helpers import events, to_act
from tests.tables.test_consumers import TIMEOUT, error_of, socket, version_of

pytestmark = pytest.mark.django_db(transaction=True)

FRAMES = int(os.environ.get("MAZZIERE_FUZZ_FRAMES", "300"))
WORKERS = 2
T = TypeVar("T")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


def deep(levels: int, kind: str) -> str:
    return ("[" * levels + "]" * levels) if kind == "[" else ('{"a":' * levels + "0" + "}" * levels)


def wrong(field: str) -> st.SearchStrategy[Any]:
    """A value ``field`` must not accept."""
    anything_else = json_values.filter(lambda v: not isinstance(v, str) or v == "")
    return {
        "command_id": st.one_of(anything_else, st.text(max_size=60).filter(lambda t: len(t) != 36)),
        "expected_version": st.one_of(
            json_values.filter(lambda v: not isinstance(v, int) and not isinstance(v, str)),
            st.integers(max_value=-1),
            st.integers(min_value=limits.MAX_VERSION + 1),
        ),
        "action": st.one_of(
            anything_else.filter(lambda v: not isinstance(v, str)),
            st.text(min_size=1, max_size=3000).filter(lambda t: t not in service.ACTIONS),
        ),
        "amount": st.one_of(
            st.lists(json_values, max_size=3),
            st.dictionaries(st.text(max_size=5), json_values, max_size=3),
            st.integers(max_value=-1),
            st.integers(min_value=limits.MAX_CHIPS + 1),
            st.booleans(),
        ),
        "cards": st.one_of(
            st.lists(st.text(max_size=4).filter(lambda t: len(t) != 2), min_size=1, max_size=3),
            st.lists(st.just("Ah"), min_size=6, max_size=8),
            st.integers(),
            st.dictionaries(st.text(max_size=5), json_values, max_size=3),
        ),
    }[field]


@st.composite
def bad_actions(draw: st.DrawFn, version: int) -> str:
    """A well-formed action of the player to act with exactly one field wrong."""
    body: dict[str, Any] = {
        "command_id": str(uuid.UUID(int=draw(st.integers(0, 2**128 - 1)))),
        "expected_version": version,
        "action": draw(st.sampled_from(["check", "fold", "bet", "discard"])),
        "amount": 20,
        "cards": [],
    }
    field = draw(st.sampled_from(sorted(body)))
    body[field] = draw(wrong(field))
    return json.dumps(body)


def frames(version: int) -> st.SearchStrategy[str | bytes]:
    return st.one_of(
        st.text(max_size=200),
        json_values.map(json.dumps),
        bad_actions(version),
        st.tuples(st.integers(limits.MAX_DEPTH + 1, 200_000), st.sampled_from("[{")).map(lambda d: deep(*d)),
        st.integers(limits.MAX_FRAME_BYTES + 1, 4_000_000).map(lambda n: "x" * n),
        st.integers(limits.MAX_FRAME_BYTES, 2_000_000).map(lambda n: json.dumps({"action": "z" * n})),
        st.binary(max_size=200),
        st.integers(limits.MAX_FRAME_BYTES + 1, 1_000_000).map(lambda n: b"\xff" * n),
    )


def answer_kind(message: str) -> str:
    """``Messaggio non valido — amount`` for "Messaggio non valido — amount: …", the message's head."""
    head, _, field = message.partition(" — ")
    return head.split(":")[0] + (" — " + field.split(":")[0] if field else "")


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop in a thread of its own, where the socket lives while Hypothesis runs in the test's.

    Its executor (where the consumer's ``in_pool`` calls run) has :data:`WORKERS` threads, whose database
    connections are closed at the end, whatever the consumer's own clean-up did."""
    running = asyncio.new_event_loop()
    running.set_default_executor(ThreadPoolExecutor(max_workers=WORKERS))
    thread = threading.Thread(target=running.run_forever, name="socket-fuzz", daemon=True)
    thread.start()
    yield running
    barrier = threading.Barrier(WORKERS)

    def close_connections() -> None:
        barrier.wait(10)  # one call in each thread
        connections.close_all()

    async def close_everywhere() -> None:
        await asyncio.gather(*(running.run_in_executor(None, close_connections) for _ in range(WORKERS)))

    asyncio.run_coroutine_threadsafe(close_everywhere(), running).result(30)
    running.call_soon_threadsafe(running.stop)
    thread.join(10)
    running.close()


def test_garbage_frames_are_answered_and_change_nothing(players, dealt_table, loop) -> None:
    def run(coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(TIMEOUT * 4)

    _, player = to_act(dealt_table)
    version = service.load(dealt_table).version
    before = events(dealt_table)

    async def connect() -> Any:
        communicator = socket(dealt_table, players[player])
        accepted, _ = await communicator.connect(timeout=TIMEOUT)
        assert accepted
        version_of(await communicator.receive_from(timeout=TIMEOUT))
        return communicator

    communicator = run(connect())
    sent: Counter[str] = Counter()

    async def exchange(frame: str | bytes) -> str:
        # as the ASGI server delivers it (the communicator's send_to refuses empty frames)
        await communicator.send_input(
            {"type": "websocket.receive", "bytes" if isinstance(frame, bytes) else "text": frame}
        )
        return await communicator.receive_from(timeout=TIMEOUT)

    @settings(
        max_examples=FRAMES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(frame=frames(version))
    def answered_and_nothing_appended(frame: str | bytes) -> None:
        reply = run(exchange(frame))  # a closed socket would answer websocket.close: receive_from fails
        message = error_of(reply)
        sent["frames"] += 1
        sent["bytes frames" if isinstance(frame, bytes) else "text frames"] += 1
        sent[f"answer: {answer_kind(message)}"] += 1
        sent["over the cap"] += len(frame) > limits.MAX_FRAME_BYTES
        sent["largest (bytes)"] = max(sent["largest (bytes)"], len(frame))
        assert message.startswith(("Messaggio non valido", "Messaggio troppo grande")), (frame[:80], message)
        assert len(reply) < 600, (frame[:80], reply[:200])
        assert events(dealt_table) == before

    async def act() -> str:
        await communicator.send_json_to(
            {"action": "check", "expected_version": version, "command_id": str(uuid.uuid4())}
        )
        return await communicator.receive_from(timeout=TIMEOUT)

    try:
        answered_and_nothing_appended()
        # still open: a valid action is appended and answered with the new version
        assert version_of(run(act())) > version
        assert events(dealt_table) > before
    finally:
        run(communicator.disconnect())
    assert sent["frames"] >= min(FRAMES, 100), sent
    out = Path(__file__).resolve().parents[2] / ".dev" / f"socket-fuzz-{FRAMES}.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(dict(sorted(sent.items())), indent=2) + "\n")
