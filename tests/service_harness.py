"""The live service inside the test process, for tests marked ``timers`` (``transaction=True`` databases).

What ``make run`` starts as processes (``Procfile``) runs here as threads of the test process, on the test
database and the test run's Redis:

* a real Celery worker (:func:`celery_worker`, thread pool) consuming this test process's own queue
  (``settings.CELERY_TASK_DEFAULT_QUEUE``, one per xdist worker: ``config/testing.py``), purged first;
* the timekeeper (:func:`timekeeper`, ``manage.py run_timekeeper``): the sweep of overdue timers and the
  tournament clocks — without it levels never advance;
* the subscribers (:func:`subscribers`): the tournament process manager and the broadcaster;
* an ASGI server (:func:`asgi_server`, uvicorn on a free port) for the browser tests.

The conftests of ``tests/tournaments`` and ``tests/e2e`` import the fixtures below. Speed knobs come from the
``game_speed`` fixture, which a conftest (or a test module) overrides.

Data must be committed to be seen by the other threads, hence ``@pytest.mark.django_db(transaction=True)``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from django.db import connection

# the worker, timekeeper and subscribers threads are in tables/inprocess.py (simulate_tournament too)
from tables.inprocess import celery_app, celery_worker, purge_queue, subscribers, timekeeper

__all__ = ["celery_app", "celery_worker", "purge_queue", "subscribers", "timekeeper"]

T = TypeVar("T")

# loggers whose ERROR records mean that something in the service failed: a refused bot move or a failing
# subscription handler (mazziere), a task that raised (celery), a 500 (django.request), an exception in a
# socket consumer (uvicorn.error, which does not propagate to the root logger), a lost asyncio task
WATCHED_LOGGERS = ("mazziere", "celery", "django", "uvicorn", "asyncio")


def wait_for(predicate: Callable[[], T], timeout: float, what: str, interval: float = 0.1,
             details: Callable[[], str] | None = None) -> T:  # fmt: skip
    """Poll ``predicate`` until it returns something truthy (returned); ``AssertionError`` after ``timeout``
    seconds, with ``details()`` in the message."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            extra = f"\n{details()}" if details is not None else ""
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{extra}")
        time.sleep(interval)


def in_thread(function: Callable[[], T], timeout: float = 30.0) -> T:
    """Run ``function`` in a fresh thread with its own database connection (closed after) and return its
    result. For ORM calls while an event loop runs in the test's thread (Playwright's sync API), where
    Django refuses them (``SynchronousOnlyOperation``)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = function()
        except BaseException as error:  # re-raised in the caller
            box["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="db-call", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise AssertionError(f"database call still running after {timeout} s")
    if "error" in box:
        raise box["error"]
    return box["result"]  # type: ignore[no-any-return]


# --- errors logged by the service ------------------------------------------------------------------------


class ErrorRecords(logging.Handler):
    """Keeps the ERROR (and worse) records of :data:`WATCHED_LOGGERS`, from any thread."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []
        self._lock_records = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._lock_records:
            self.records.append(record)

    def text(self) -> str:
        lines = []
        for record in list(self.records):
            lines.append(f"[{record.threadName}] {record.name}: {record.getMessage()}")
            if record.exc_info:
                lines.append(logging.Formatter().formatException(record.exc_info))
        return "\n".join(lines)


@contextmanager
def error_records() -> Iterator[ErrorRecords]:
    """The handler sits on the watched loggers themselves, not on the root logger: the Celery worker empties
    the root logger's handlers when it starts (``worker_hijack_root_logger``) and uvicorn's loggers do not
    propagate."""
    handler = ErrorRecords()
    loggers = [logging.getLogger(name) for name in WATCHED_LOGGERS]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


# --- the ASGI server ---------------------------------------------------------------------------------------


class InFlight:
    """An ASGI wrapper counting the HTTP requests the application is still handling, until its coroutine
    returns: after the response is sent Django still closes it (``request_finished`` →
    ``close_old_connections``, a database call), so a client holding its answer does not mean that the
    server is done. A test must not end (pytest-django blocks the database again) while one runs:
    :meth:`wait_idle`."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.count = 0
        self._idle = threading.Condition()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        with self._idle:
            self.count += 1
        try:
            await self.app(scope, receive, send)
        finally:
            with self._idle:
                self.count -= 1
                self._idle.notify_all()

    def wait_idle(self, timeout: float = 120.0) -> None:
        """Return once no request is in flight; ``AssertionError`` after ``timeout`` seconds."""
        with self._idle:
            if not self._idle.wait_for(lambda: self.count == 0, timeout):
                raise AssertionError(f"{self.count} request(s) still running after {timeout:.0f} s")


class LiveURL(str):
    """The base URL of a live server (a ``str``), with :meth:`wait_idle` of its :class:`InFlight`."""

    in_flight: InFlight

    def wait_idle(self, timeout: float = 120.0) -> None:
        self.in_flight.wait_idle(timeout)


@contextmanager
def asgi_server(host: str = "127.0.0.1") -> Iterator[LiveURL]:
    """``config.asgi.application`` served by uvicorn in a thread on a free port; yields its base URL
    (:class:`LiveURL`: ``wait_idle()`` waits for the requests in flight). Before it stops, the requests in
    flight finish."""
    import uvicorn

    from config.asgi import application

    in_flight = InFlight(application)
    # log_config=None: uvicorn's own dictConfig would drop the handlers of the error capture
    # timeout_graceful_shutdown: at the end, sockets a test left open are closed after 2 s (uvicorn waited for
    # their consumers: the thread join below timed out after 15 s in the hidden-card scans' teardowns)
    config = uvicorn.Config(
        in_flight, host=host, port=0, log_level="warning", lifespan="off", log_config=None,
        timeout_graceful_shutdown=2,
    )  # fmt: skip
    server = uvicorn.Server(config)
    server.install_signal_handlers = lambda: None  # type: ignore[method-assign]  # not the main thread
    thread = threading.Thread(target=server.run, name="uvicorn", daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started or not thread.is_alive(), 15, "uvicorn to start")
        assert server.started, "uvicorn did not start (see the log above)"
        port = server.servers[0].sockets[0].getsockname()[1]
        url = LiveURL(f"http://{host}:{port}")
        url.in_flight = in_flight
        yield url
    finally:
        try:
            in_flight.wait_idle(60)
        finally:
            server.should_exit = True
            thread.join(15)


# --- fixtures ----------------------------------------------------------------------------------------------


@dataclass
class LiveService:
    """What :func:`live_service` runs; ``errors`` collects the service's ERROR log records."""

    queue: str
    worker: Any
    timekeeper: Any
    errors: ErrorRecords
    speed: dict[str, float] = field(default_factory=dict)

    def assert_no_errors(self, ignore: Callable[[logging.LogRecord], bool] | None = None) -> None:
        """No ERROR record was logged, except those ``ignore`` accepts (known bugs, reported elsewhere)."""
        found = [r for r in self.errors.records if ignore is None or not ignore(r)]
        assert not found, f"the service logged errors:\n{self.errors.text()}"


@pytest.fixture
def game_speed() -> dict[str, float]:
    """Settings for fast games (overridden by the conftests): bots' thinking time, pause between hands."""
    return {"MAZZIERE_BOT_THINK": 0.05, "MAZZIERE_NEXT_HAND_DELAY": 0.2}


@pytest.fixture
def live_service(
    request: pytest.FixtureRequest, transactional_db: None, settings: Any, game_speed: dict[str, float]
) -> Iterator[LiveService]:
    """Worker, timekeeper and subscribers running against the test database (tests marked ``timers``)."""
    if request.node.get_closest_marker("timers") is None or settings.MAZZIERE_TIMERS != "celery":
        pytest.fail("live_service needs a test marked @pytest.mark.timers (MAZZIERE_TIMERS=celery)")
    for name, value in game_speed.items():
        setattr(settings, name, value)
    from tables import service as tables
    from tables import timers

    tables.forget_cache()
    timers.is_bot.cache_clear()
    with ExitStack() as stack:
        worker = stack.enter_context(celery_worker())
        # after the worker: its start runs django.setup() again, whose logging dictConfig empties the handlers
        # of the configured loggers
        errors = stack.enter_context(error_records())
        stack.enter_context(subscribers())
        keeper = stack.enter_context(timekeeper())
        yield LiveService(settings.CELERY_TASK_DEFAULT_QUEUE, worker, keeper, errors, dict(game_speed))
    tables.forget_cache()
    timers.is_bot.cache_clear()


@pytest.fixture
def asgi_live_server(live_service: LiveService) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:<port>``) of the ASGI application, with the live service behind it."""
    with asgi_server() as url:
        yield url
