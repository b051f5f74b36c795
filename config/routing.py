"""WebSocket routes."""

from django.urls import path

from tables.consumers import TableConsumer
from tournaments.consumers import TournamentConsumer

websocket_urlpatterns = [
    path("ws/tables/<int:table_id>/", TableConsumer.as_asgi()),
    path("ws/tournaments/<int:tournament_id>/", TournamentConsumer.as_asgi()),
]
