"""URLs: pages, the REST API with its OpenAPI schema and docs, login/logout and the language switch.

A path under ``/api/`` that matches no route (``/api/tables/abc/``, ``/api/tables/-1/``) is a JSON 404 like
every other API error (:func:`not_found`); elsewhere Django's page."""

from typing import Any

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import include, path
from django.views import defaults
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config import authentication, errors
from tables import api
from tables import views as table_views
from tournaments import api as tournaments_api
from tournaments import views as tournament_views

urlpatterns = [
    path("", tournament_views.lobby, name="lobby"),
    path("tournaments/new/", tournament_views.new, name="tournament-new"),
    path("tournaments/new-mtt/", tournament_views.new_mtt, name="tournament-new-mtt"),
    path("tournaments/new-matches/", tournament_views.new_matches, name="tournament-new-matches"),
    path(
        "tournaments/<int:tournament_id>/matches-live/",
        tournament_views.matches_live,
        name="tournament-matches-live",
    ),
    path("tournaments/<int:tournament_id>/", tournament_views.detail, name="tournament-detail"),
    path("tournaments/<int:tournament_id>/director/", tournament_views.director, name="tournament-director"),
    path("tournaments/<int:tournament_id>/register/", tournament_views.register, name="tournament-register"),
    path(
        "tournaments/<int:tournament_id>/unregister/",
        tournament_views.unregister,
        name="tournament-unregister",
    ),
    path("tournaments/<int:tournament_id>/start/", tournament_views.start, name="tournament-start"),
    path("tournaments/<int:tournament_id>/pause/", tournament_views.pause, name="tournament-pause"),
    path("tournaments/<int:tournament_id>/resume/", tournament_views.resume, name="tournament-resume"),
    path("tournaments/<int:tournament_id>/clock/", tournament_views.clock, name="tournament-clock"),
    path("tournaments/<int:tournament_id>/control/", tournament_views.control, name="tournament-control"),
    path("tournaments/<int:tournament_id>/deal/", tournament_views.deal, name="tournament-deal"),
    path("tables/<int:table_id>/", table_views.table_page, name="table"),
    path("tables/<int:table_id>/join/", table_views.join_page, name="table-join"),
    path("preferences/", table_views.preferences_page, name="preferences"),
    path("api/preferences/", api.PreferencesView.as_view(), name="api-preferences"),
    path("api/tables/", api.TableList.as_view(), name="api-tables"),
    path("api/tables/<int:table_id>/", api.TableDetail.as_view(), name="api-table"),
    path("api/tables/<int:table_id>/act/", api.TableAct.as_view(), name="api-table-act"),
    path("api/tables/<int:table_id>/choose/", api.TableChoose.as_view(), name="api-table-choose"),
    path("api/tables/<int:table_id>/join/", api.TableJoin.as_view(), name="api-table-join"),
    path("api/tables/<int:table_id>/rows/", api.TableRows.as_view(), name="api-table-rows"),
    path("api/tables/<int:table_id>/suggest/", api.TableSuggest.as_view(), name="api-table-suggest"),
    path("api/tournaments/", tournaments_api.TournamentCreate.as_view(), name="api-tournaments"),
    path(
        "api/tournaments/matches/",
        tournaments_api.TournamentMatchesCreate.as_view(),
        name="api-tournaments-matches",
    ),
    path(
        "api/tournaments/<int:tournament_id>/",
        tournaments_api.TournamentDetail.as_view(),
        name="api-tournament",
    ),
    path(
        "api/tournaments/<int:tournament_id>/control/",
        tournaments_api.TournamentControl.as_view(),
        name="api-tournament-control",
    ),
    path("", include("cashier.urls")),  # the players' balances (issue 21): /api/cashier/…
    path("", include("audit.urls")),  # the auditors' pages and exports: /audit/…, /api/audit/…
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("accounts/login/", authentication.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("favicon.ico", errors.favicon, name="favicon"),
]

API_NOT_FOUND = "Risorsa API inesistente."


def not_found(request: HttpRequest, exception: Any) -> HttpResponse:
    """``handler404``: ``{"detail": "Risorsa API inesistente."}`` for ``/api/…`` (the path is not echoed), the
    HTML page elsewhere. Django calls it for unmatched paths and ``Http404`` when ``DEBUG`` is off (the
    technical page otherwise)."""
    if request.path_info.startswith("/api/"):
        return JsonResponse({"detail": API_NOT_FOUND}, status=404)
    return defaults.page_not_found(request, exception)


handler404 = not_found
handler500 = errors.server_error
