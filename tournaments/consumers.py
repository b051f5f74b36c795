"""The tournament WebSocket (``/ws/tournaments/<id>/``): the clock, standings and (for directors) the table,
re-rendered whenever the tournament or its table reaches a new version."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.template.loader import render_to_string
from django.utils import translation

from tables import access, rendering
from tables import service as tables
from tables.consumers import in_pool, language_of
from tournaments.models import Tournament
from tournaments.views import context


class TournamentConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        self.groups_joined: list[str] = []
        if user is None or not await database_sync_to_async(access.may_watch)(user):
            await self.close(code=4403)
            return
        self.username = user.get_username()
        self.director = await database_sync_to_async(access.may_direct)(user)
        self.language = language_of(self.scope)
        html, table_id = await in_pool(self._render)()
        if html is None:
            await self.close(code=4404)
            return
        await self.accept()
        await self._join(f"tournament-{self.tournament_id}")
        if table_id:
            await self._join(f"table-{table_id}")
        await self.send(text_data=html)

    async def _join(self, group: str) -> None:
        if group not in self.groups_joined:
            self.groups_joined.append(group)
            await self.channel_layer.group_add(group, self.channel_name)

    async def disconnect(self, code: int) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)

    def _render(self) -> tuple[str | None, int | None]:
        tournament = Tournament.objects.filter(id=self.tournament_id).first()
        if tournament is None:
            return None, None
        with translation.override(self.language):
            html = render_to_string(
                "tournaments/_live.html", {**context(tournament), "is_director": self.director}
            )
            if tournament.table_id and self.director:
                html += rendering.table_html(tables.load(tournament.table_id), self.username)
        return html, tournament.table_id

    async def stream_updated(self, message: dict[str, Any]) -> None:
        html, table_id = await in_pool(self._render)()
        if html is None:
            return
        if table_id:
            await self._join(f"table-{table_id}")
        await self.send(text_data=html)
