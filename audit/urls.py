"""The auditors' URLs, included by ``config/urls.py`` at the root (the paths and names are those of before the
``audit`` app: bookmarks and tests use them): the pages under ``/audit/``, the exports under
``/api/audit/``."""

from django.urls import path

from audit import export_api, views

urlpatterns = [
    path("audit/", views.search, name="audit-search"),
    path("audit/streams/<str:stream_id>/", views.stream, name="audit-stream"),
    path("audit/tables/<int:table_id>/hands/<int:number>/", views.hand, name="audit-hand"),
    path("audit/verify/", views.verify, name="audit-verify"),
    path(
        "api/audit/tables/<int:table_id>/hands.phhs",
        export_api.TableHands.as_view(),
        name="api-audit-table-phhs",
    ),
    path(
        "api/audit/tables/<int:table_id>/hands/<int:number>.phh",
        export_api.TableHand.as_view(),
        name="api-audit-hand-phh",
    ),
    path(
        "api/audit/tournaments/<int:tournament_id>/hands.phhs",
        export_api.TournamentHands.as_view(),
        name="api-audit-tournament-phhs",
    ),
    path(
        "api/audit/streams/<str:stream_id>/events.jsonl",
        export_api.StreamEvents.as_view(),
        name="api-audit-stream-jsonl",
    ),
    path(
        "api/audit/tournaments/<int:tournament_id>/events.jsonl",
        export_api.TournamentEvents.as_view(),
        name="api-audit-tournament-jsonl",
    ),
]
