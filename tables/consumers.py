"""The table WebSocket (``/ws/tables/<id>/``): per-viewer HTMX fragments, stamped with the stream version.

On connect the viewer gets the full table and hand log; on every ``stream.updated`` from the broadcaster
the fragments since the last version it was sent (the full state again after a gap of more than
:data:`MAX_GAP` versions or a reconnect). Actions arrive as the JSON htmx's ``ws-send`` posts
(``{action, amount, cards, expected_version, command_id}``, about 400 bytes), validated as the API's
(:func:`action_of`); a refusal — a frame over :data:`tables.limits.MAX_FRAME_BYTES`, binary, not JSON, too
deep, malformed, or refused by the rules — is answered with a ``#messages`` fragment, changes nothing and
leaves the socket open.

At a table of a multi-table tournament the socket also follows the tournament's stream (group ``mtt-<id>``):
when the viewer is moved from this table (T-BAL-1/2, or by the director) it gets a notice ("Sei stato
spostato al tavolo 3, posto 5") that sends the page to the new table after :data:`REDIRECT_MS`.

A refused socket is accepted and closed with 4403 (the user may not watch) or 4404 (no such table).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.core.exceptions import SynchronousOnlyOperation
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.utils.translation.trans_real import parse_accept_lang_header
from rest_framework.exceptions import APIException

from eventstore.store import RecordedEvent
from tables import access, api, broadcast, hooks, limits, rendering, service
from tables.games import refusals
from tables.models import Table
from tables.service import BadRequest, TableError

log = logging.getLogger("mazziere.sockets")

# Renders and actions of different sockets run in parallel threads (each with its own database connection),
# not all on Channels' single default thread, which the service benchmark showed to be the bottleneck.
in_pool = functools.partial(database_sync_to_async, thread_sensitive=False)
MAX_GAP = 200
REDIRECT_MS = 3000
DIGITS = re.compile(r"[0-9]{1,19}")  # a number as the page's form sends it
# Close codes of a refused socket (the page says why and does not reconnect: static/js/mazziere.js). The
# socket is accepted first: a close before the accept is answered by the server with a plain HTTP 403 to the
# handshake, and the browser sees only 1006, which htmx's ws extension retries forever.
FORBIDDEN, NOT_FOUND = 4403, 4404


async def refuse(consumer: AsyncWebsocketConsumer, code: int, reason: str) -> None:
    """Accept the handshake, then close with ``code`` (:data:`FORBIDDEN`, :data:`NOT_FOUND`) and ``reason``
    (RFC 6455 §7.4.2: 4000–4999 are the application's), so that the browser's ``CloseEvent`` has them."""
    await consumer.accept()
    await consumer.close(code=code, reason=reason)


def language_of(scope: dict[str, Any]) -> str:
    """The page's language: the language cookie, else the browser's Accept-Language (as LocaleMiddleware)."""
    cookies = scope.get("cookies") or {}
    language = cookies.get(settings.LANGUAGE_COOKIE_NAME, "")
    if not translation.check_for_language(language):
        headers = dict(scope.get("headers") or [])
        accept = headers.get(b"accept-language", b"").decode("latin-1")
        language = settings.LANGUAGE_CODE
        for code, _ in parse_accept_lang_header(accept):
            if code == "*":
                continue
            try:
                language = translation.get_supported_language_variant(code)
            except LookupError:
                continue
            break
    return language


ENGLISH = {
    "Solo i giocatori possono agire.": "Only players may act.",
    "Non sei seduto a questo tavolo.": "You are not seated at this table.",
    "Un'altra azione è arrivata prima. Ricarica.": "Another action came first. Reload.",
    "Il tavolo è chiuso.": "The table is closed.",
}
"""The service's usual refusals (Italian, as the API gives them) for a page in English."""
STALE_TEXT = gettext_noop("The table moved on before your action arrived: nothing was done. Choose again.")
"""A refused stale action (a double click, a click on an old table), in the page's language (issue 18)."""
ANOTHER_FIRST = service.ANOTHER_FIRST
_STALE = re.compile(r"Il tavolo è cambiato: versione (\d+), non (\d+)\. Ricarica\.")


def english_of(italian: str) -> str:
    """The English of one of the service's refusals (:data:`ENGLISH`, a stale version), else ``italian``."""
    stale = _STALE.fullmatch(italian)
    if stale:
        return f"The table has changed: version {stale.group(1)}, not {stale.group(2)}. Reload."
    return ENGLISH.get(italian, italian)


def action_of(body: Any) -> dict[str, Any]:
    """The action in a frame, validated as the API's (:class:`tables.api.ActRequest`): ``command_id`` (a
    UUID) and ``expected_version`` are required. The page's form sends numbers as digits, ``""`` for an
    empty amount and one ticked card as a string: those alone are read as the API's values. Raises
    :class:`tables.api.BadBody` ("Messaggio non valido — field: problem") or ``BadRequest``."""
    if not isinstance(body, dict):
        raise BadRequest(
            "Messaggio non valido: serve un oggetto JSON.", "Invalid message: a JSON object is needed."
        )
    body = dict(body)
    for name in ("expected_version", "amount"):
        if isinstance(body.get(name), str) and DIGITS.fullmatch(body[name]):
            body[name] = int(body[name])
    if body.get("amount") == "":
        body["amount"] = None
    if isinstance(body.get("cards"), str):
        body["cards"] = [body["cards"]]
    return api.validated(api.ActRequest(data=body), "Messaggio non valido")


class TableConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.group = f"table-{self.table_id}"
        self.sent = 0
        # one render-and-send at a time: each starts from the last version sent
        self.updating = asyncio.Lock()
        allowed = user is not None and await database_sync_to_async(access.may_watch)(user)
        if not allowed:
            await refuse(self, FORBIDDEN, "Accesso non consentito.")
            return
        self.username = user.get_username()
        self.may_play = await database_sync_to_async(access.may_play)(user)
        self.language = language_of(self.scope)
        try:
            html, version = await in_pool(self._render)(0)
        except service.TableNotFound:
            await refuse(self, NOT_FOUND, "Tavolo inesistente.")
            return
        await self.accept()
        await self.channel_layer.group_add(self.group, self.channel_name)
        self.tournament_group = await in_pool(self._tournament_group)()
        if self.tournament_group:
            await self.channel_layer.group_add(self.tournament_group, self.channel_name)
        self.rejoining = asyncio.ensure_future(self._rejoin())
        await self._send(html, version)

    async def disconnect(self, code: int) -> None:
        rejoining = getattr(self, "rejoining", None)
        if rejoining is not None:
            rejoining.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await rejoining
        for group in (getattr(self, "group", ""), getattr(self, "tournament_group", "")):
            if not group:
                continue
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception as error:
                # Best effort (issue 23 §1): after a Redis restart the channel layer's pooled connection may
                # be dead; the membership expires by itself (the layer's group_expiry), so a warning, not an
                # unhandled ASGI exception.
                log.warning("table %s socket: leaving %s failed: %r", self.table_id, group, error)

    async def _rejoin(self) -> None:
        """Join the socket's groups again every ``MAZZIERE_SOCKET_REJOIN_S`` seconds (default 30), as long as
        it is open, then send what the socket missed. The groups live in Redis: after Redis restarted empty
        (issue 23 §1, ``make faults``) an open socket was in no group any more and got no update again, in
        silence, until the browser reloaded. Joining is idempotent (a sorted set's score refreshed, or a
        subscription kept with ``MAZZIERE_CHANNEL_LAYER=pubsub``). The catch-up (:meth:`_catch_up`) covers
        an update that never arrived (published while this process was cut from Redis, or dropped by the
        layer): the viewer sees it within a round even at a table that waits for them. A failure (Redis or
        PostgreSQL down) is logged as a warning and tried again at the next round."""
        while True:
            await asyncio.sleep(float(getattr(settings, "MAZZIERE_SOCKET_REJOIN_S", 30.0)))
            for group in (self.group, self.tournament_group):
                if not group:
                    continue
                try:
                    await self.channel_layer.group_add(group, self.channel_name)
                except Exception as error:  # Redis unreachable: the next round tries again
                    log.warning("table %s socket: joining %s again failed: %r", self.table_id, group, error)
            try:
                await self._catch_up()
            except Exception as error:  # the database unreachable: the next round tries again
                log.warning("table %s socket: catching up failed: %r", self.table_id, error)

    async def _catch_up(self) -> None:
        """Send the fragments from the last version sent to the table's last, if it moved on without this
        socket hearing of it (one read of the stream's new events; nothing is sent otherwise)."""
        async with self.updating:
            html, version = await in_pool(self._render)(self.sent)
            await self._send(html, version)

    def _tournament_group(self) -> str:
        """``mtt-<id>`` if this table belongs to a multi-table tournament, else ``""``
        (:func:`tables.hooks.tournament_group`)."""
        tournament_id = Table.objects.filter(id=self.table_id).values_list("tournament_id", flat=True).first()
        return hooks.tournament_group(tournament_id)

    def _render(self, after: int, carried: list[RecordedEvent] | None = None) -> tuple[str, int]:
        """The fragments from version ``after`` to the table's last; ``carried``: the broadcast's events,
        folded onto this process's cached table and used for the log when they cover the gap."""
        with translation.override(self.language):
            loaded = service.advance(self.table_id, carried or [])
            if loaded.version <= after:
                return "", loaded.version
            if after and loaded.version - after > MAX_GAP:
                after = 0  # too far behind: send everything again
            covered = bool(carried) and after > 0 and carried[0].version <= after + 1
            covered = covered and carried[-1].version == loaded.version  # the broadcast covers the gap
            events = [e for e in carried if e.version > after] if covered and carried else None
            if loaded.seat_of(self.username) is not None:
                self.was_seated = True
            return rendering.fragments(loaded, self.username, after, events), loaded.version

    async def _render_here(self, after: int, carried: list[RecordedEvent]) -> tuple[str, int]:
        """:meth:`_render` in the event loop's thread when it needs no database (the usual update: the
        table cached in this process, its new events carried or in the window of recent ones), else in a
        pool thread: Django refuses a query in the loop (``SynchronousOnlyOperation``) before any is sent,
        and the render starts again there. A render is CPU under the GIL either way; in the loop it spares
        the hop to a thread and back and the threads' contention on Django's translation locals (issue 22:
        a third of a render's samples in py-spy at 100 tables)."""
        try:
            return self._render(after, carried)
        except SynchronousOnlyOperation:
            return await in_pool(self._render)(after, carried)

    async def _send(self, html: str, version: int) -> None:
        if html and version > self.sent:
            self.sent = version
            await self.send(text_data=html)

    async def stream_updated(self, message: dict[str, Any]) -> None:
        if message.get("stream", "").startswith("mtt-"):
            await self._tournament_updated(message)
            return
        if message["version"] <= self.sent:
            return
        async with self.updating:
            html, version = await self._render_here(self.sent, broadcast.carried_events(message))
            await self._send(html, version)

    async def _tournament_updated(self, message: dict[str, Any]) -> None:
        """The tournament moved on: tell a viewer moved away from this table where to go."""
        if not getattr(self, "was_seated", False):
            return
        events = broadcast.carried_events(message)
        mine = any(
            e.type == "PlayerMoved"
            and e.data.get("player") == self.username
            and e.data.get("from_table") == self.table_id
            for e in events
        )
        if events and not mine:
            return  # the broadcast carried the events, and none moves the viewer from here
        html = await in_pool(self._moved_notice)()
        if html:
            self.was_seated = False
            await self.send(text_data=html)

    def _moved_notice(self) -> str:
        """The notice for a viewer whose seat is now at another table of the tournament (``""`` if not;
        :func:`tables.hooks.seat_elsewhere`)."""
        place = hooks.seat_elsewhere(self.tournament_group, self.username)
        if place is None or place[0] == self.table_id:
            return ""
        table_id, number, seat = place
        with translation.override(self.language):
            return render_to_string(
                "tables/_moved.html",
                {"table_id": table_id, "number": number, "seat": seat + 1, "after_ms": REDIRECT_MS},
            )

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """One action frame: refused with a ``#messages`` fragment (the socket stays open, nothing is
        appended) when over :data:`tables.limits.MAX_FRAME_BYTES`, binary, not JSON, nested deeper than
        :data:`tables.limits.MAX_DEPTH`, malformed (:func:`action_of`) or refused by the service."""
        try:
            body = self._frame(text_data, bytes_data)
        except ValueError as error:
            await self._error(str(error))
            return
        if not self.may_play:
            only_players = "Solo i giocatori possono agire."
            await self._error(only_players if self.language == "it" else english_of(only_players))
            return
        try:
            if (
                isinstance(body, dict) and body.get("action") == "choose"
            ):  # the giro pazzo's dealer (TL-GIRO-1)
                await in_pool(self._choose)(body)
                recorded: list[Any] = []
            else:
                recorded = list((await in_pool(self._act)(body)).recorded)
        except (TableError, *refusals(), APIException, ValueError) as error:
            await self._error(self._refusal(error))
            return
        notice = ""
        if isinstance(body, dict) and body.get("action") == "return":  # "I'm back", confirmed
            with translation.override(self.language):
                notice = str(_("Welcome back: you are dealt in from the next hand."))
        async with self.updating:
            html, version = await self._render_here(self.sent, recorded)
            await self._send(html + render_to_string("tables/_messages.html", {"notice": notice}), version)

    @staticmethod
    def _frame(text_data: str | None, bytes_data: bytes | None) -> Any:
        """The frame's JSON value; ``ValueError`` (:class:`tables.limits.InputRefused`) with the message."""
        if text_data is None:
            size = len(bytes_data or b"")
            if size > limits.MAX_FRAME_BYTES:
                raise limits.TooLarge(f"Messaggio troppo grande: al massimo {limits.MAX_FRAME_BYTES} byte.")
            raise limits.InputRefused("Messaggio non valido: serve testo JSON, non dati binari.")
        return limits.loads(text_data, limits.MAX_FRAME_BYTES)

    def _refusal(self, error: Exception) -> str:
        """A refusal's message in the page's language: every refusal gives it in Italian (``str()``) and in
        English (``english``: the rules' own, and the service's :class:`~tables.service.TableError`, which
        carries the rules' when it wraps one); :data:`ENGLISH` for a message that has none."""
        italian = str(getattr(error, "detail", error))
        if _STALE.fullmatch(italian) or italian == ANOTHER_FIRST:
            with translation.override(self.language):  # a double click, or a click on an old table
                return str(_(STALE_TEXT))
        if self.language == "it":
            return italian
        english = getattr(error, "english", None) or getattr(error.__cause__, "english", None)
        if isinstance(english, str) and english:
            return english[:1].upper() + english[1:] + ("" if english.endswith(".") else ".")
        return english_of(italian)

    def _choose(self, body: dict[str, Any]) -> None:
        fields = {k: v for k, v in body.items() if k in api.ChooseRequest().fields}
        if isinstance(fields.get("expected_version"), str) and DIGITS.fullmatch(fields["expected_version"]):
            fields["expected_version"] = int(fields["expected_version"])
        api.choose(
            self.table_id,
            self.username,
            api.validated(api.ChooseRequest(data=fields), "Messaggio non valido"),
        )

    def _act(self, body: Any) -> service.Outcome:
        return api.perform(self.table_id, self.username, action_of(body), respond=False)

    async def _error(self, text: str) -> None:
        html = render_to_string("tables/_messages.html", {"error": text})
        await self.send(text_data=html)
