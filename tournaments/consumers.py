"""The tournament WebSocket (``/ws/tournaments/<id>/[?view=director|clock]``): the clock, standings and (for
directors) the table of a sit-and-go; the clock and the dashboard sections of a multi-table tournament
(:mod:`tournaments.dashboard`). Re-rendered when the tournament or its table reaches a new version, at most
every :data:`MIN_INTERVAL` seconds (a multi-table stream grows with every hand of every table). A refused
socket is accepted and closed with 4403 (the user may not watch) or 4404 (no such tournament). It takes no
messages: what a client sends is dropped unread (:meth:`TournamentConsumer.receive`)."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string
from django.utils import translation

from tables import access, rendering
from tables import service as tables
from tables.consumers import FORBIDDEN, NOT_FOUND, in_pool, language_of, refuse
from tournaments import dashboard
from tournaments.models import Tournament
from tournaments.views import context

MIN_INTERVAL = 0.5
VIEWS = ("detail", "director", "clock")


class TournamentConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        self.groups_joined: list[str] = []
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        view = (query.get("view") or ["detail"])[0]
        self.view = view if view in VIEWS else "detail"
        self.last_render = 0.0
        self.scheduled = False
        if user is None or not await database_sync_to_async(access.may_watch)(user):
            await refuse(self, FORBIDDEN, "Accesso non consentito.")
            return
        self.username = user.get_username()
        self.director = await database_sync_to_async(access.may_direct)(user)
        self.language = language_of(self.scope)
        html, table_id = await in_pool(self._render)()
        if html is None:
            await refuse(self, NOT_FOUND, "Torneo inesistente.")
            return
        await self.accept()
        await self._join(self.stream_group)  # the tournament's stream's group (tables.broadcast.group)
        if table_id and not self.coalesce:
            await self._join(f"table-{table_id}")
        await self.send(text_data=html)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """This socket only sends. A frame from the client — text or bytes, any size or nesting — is dropped
        unread (never parsed, so never a ``RecursionError``), with no answer, and the socket stays open."""
        return

    async def _join(self, group: str) -> None:
        if group not in self.groups_joined:
            self.groups_joined.append(group)
            await self.channel_layer.group_add(group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        self.closed = True
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)

    def _render(self) -> tuple[str | None, int | None]:
        tournament = Tournament.objects.filter(id=self.tournament_id).first()
        if tournament is None:
            return None, None
        self.stream_group = tournament.stream_id
        self.coalesce = tournament.kind == "mtt"
        if self.view == "clock":  # the projector screen of every tournament (tournaments/clock.html)
            with translation.override(self.language):
                html = render_to_string("tournaments/_projector.html", dashboard.context(tournament))
            return html, None
        if tournament.kind == "mtt":
            with translation.override(self.language):
                html = render_to_string(
                    "tournaments/_mtt_live.html",
                    {
                        **dashboard.context(tournament, self.username),
                        "view": self.view,
                        "is_director": self.director,
                        "oob": True,
                    },
                )
            return html, None
        with translation.override(self.language):
            html = render_to_string(
                "tournaments/_live.html", {**context(tournament), "is_director": self.director}
            )
            if tournament.table_id and self.director:
                html += rendering.table_html(tables.load(tournament.table_id), self.username)
        return html, tournament.table_id

    async def stream_updated(self, message: dict[str, Any]) -> None:
        """A multi-table tournament's updates are coalesced: one render now, or one after :data:`MIN_INTERVAL`
        for all that arrive meanwhile (a sit-and-go's are rendered one by one)."""
        if not self.coalesce:
            await self._update(0.0)
            return
        if self.scheduled:
            return
        self.scheduled = True
        loop = asyncio.get_running_loop()
        delay = max(0.0, self.last_render + MIN_INTERVAL - loop.time())
        self.update_task = loop.create_task(self._update(delay))

    async def _update(self, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        self.scheduled = False
        if getattr(self, "closed", False):
            return
        self.last_render = asyncio.get_running_loop().time()
        html, table_id = await in_pool(self._render)()
        if html is None or getattr(self, "closed", False):
            return
        if table_id:
            await self._join(f"table-{table_id}")
        try:
            await self.send(text_data=html)
        except OSError:  # the browser went away during the render (uvicorn's ClientDisconnected)
            self.closed = True
