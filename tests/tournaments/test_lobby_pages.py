"""The lobby, the login page, the error pages and the pages' messages in the reader's language (issue 18):

- the lobby lists every tournament and open table with its game, limit, stakes, buy-in and stack,
  structure, start and players; a sit-and-go's standings are ranked (the rank column filled);
- the login page shows the demo accounts once ``manage.py demo`` has run, and only then;
- 403/404/500 are the site's pages in the reader's language; a 403 is logged without a traceback;
  ``/favicon.ico`` answers;
- flash and control messages, refusals of the rules (T-PAY-1's ICM bound included) are in the page's
  language, never the other one or an engine's raw English.
"""

from __future__ import annotations

import logging
import re
from html import unescape
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.test import Client, override_settings
from django.urls import path
from django.utils import translation

from config import urls as site_urls
from engine.core import ForcedBets
from engine.italian.model import TableConfig
from engine.tournament.mtt import Level, MttConfig
from engine.tournament.sitgo import Level as SitGoLevel
from engine.tournament.sitgo import TournamentConfig
from tables import access
from tables import service as tables
from tests.tournaments.helpers import user
from tournaments import dashboard, mtt, service
from tournaments.management.commands.demo import ensure_accounts, holdem_config, open_demo
from tournaments.models import Tournament
from tournaments.views import rank_standings

pytestmark = pytest.mark.django_db


def browser(account: User | None, language: str = "en") -> Client:
    page = Client(HTTP_ACCEPT_LANGUAGE=language)
    if account is not None:
        page.force_login(account)
    return page


def row_of(html: str, attribute: str, value: object) -> str:
    found = re.search(rf'<tr {attribute}="{value}">(.*?)</tr>', html, re.S)
    assert found, html[:3000]
    return found.group(1)


def cell(row: str, data: str) -> str:
    found = re.search(rf"<td[^>]*\b{data}\b[^>]*>(.*?)</td>", row, re.S)
    assert found, row
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(1))).strip())


# --- the lobby ---------------------------------------------------------------------------------------------


def test_the_lobby_lists_game_limit_stakes_stack_structure_start_and_players() -> None:
    sitgo = service.create(holdem_config(), "direttore", [])
    levels = (Level(10, 15 * 60_000, forced=ForcedBets(small_blind=5, big_blind=10)),) * 4
    big = mtt.create(
        MttConfig("Serale", seats=9, starting_stack=5000, levels=levels, buy_in=50, game="NT"), "d", []
    )
    cash = tables.open_table("Cassa", TableConfig(seats=3), [(0, "anna", 500), (1, "bruno", 500)]).table_id
    player = user("pia", access.PLAYER)

    english = browser(player).get("/").content.decode()
    first = row_of(english, "data-tournament", sitgo)
    assert cell(first, "data-game") == "No-limit Texas Hold'em"
    assert cell(first, "data-limit") == "No limit"
    assert cell(first, "data-forced-bets") == "NLHE 10/20"
    assert cell(first, "data-buy-in") == "1500"
    assert cell(first, "data-structure") == "10 levels × 5 min"
    assert cell(first, "data-start") == "When full"
    assert cell(first, "data-players") == "0/6"
    second = row_of(english, "data-tournament", big)
    assert cell(second, "data-buy-in") == "50 / 5000"
    assert cell(second, "data-structure") == "4 levels × 15 min"
    assert cell(second, "data-start") == "By the director"
    assert cell(second, "data-players") == "0"
    table = row_of(english, "data-table", cash)
    assert "Poker all&#x27;italiana" in table and "2/3" in table

    italian = browser(player, "it").get("/").content.decode()
    first = row_of(italian, "data-tournament", sitgo)
    assert cell(first, "data-structure") == "10 livelli × 5 min"
    assert cell(first, "data-start") == "Quando è al completo"


def test_standings_are_ranked_by_chips_then_by_finishing_place() -> None:
    rows: list[dict[str, Any]] = [
        {"player": "anna", "stack": 0, "position": 4},
        {"player": "bruno", "stack": 900, "position": None},
        {"player": "carla", "stack": 1500, "position": None},
        {"player": "dario", "stack": 900, "position": None},
        {"player": "ezio", "stack": 0, "position": 5},
    ]
    ranked = rank_standings(rows)
    assert [(r["player"], r["rank"]) for r in ranked] == [
        ("carla", 1), ("bruno", 2), ("dario", 2), ("anna", 4), ("ezio", 5),
    ]  # fmt: skip
    finished = rank_standings(
        [{"player": "b", "stack": 0, "position": 2}, {"player": "a", "stack": 9, "position": 1}]
    )
    assert [(r["player"], r["rank"]) for r in finished] == [("a", 1), ("b", 2)]


def test_a_sit_and_go_page_fills_the_rank_column() -> None:
    names = ["zoe", "anna", "bruno"]
    for name in names:
        user(name, access.PLAYER)
    config = TournamentConfig("Tre", seats=3, starting_stack=1000, levels=(SitGoLevel(10, 600_000),))
    tournament_id = service.create(config, "direttore", names)
    html = browser(User.objects.get(username="anna")).get(f"/tournaments/{tournament_id}/").content.decode()
    ranks = re.findall(r'data-player="(\w+)"><td class="num" data-rank="(\d+)">', html)
    assert sorted(p for p, _ in ranks) == sorted(names) and all(rank for _, rank in ranks), html[-3000:]


# --- login ------------------------------------------------------------------------------------------------


def test_the_login_page_shows_the_demo_accounts_once_the_demo_runs() -> None:
    assert "data-demo-logins" not in Client().get("/accounts/login/").content.decode()
    ensure_accounts()
    open_demo("Demo Hold'em Sit & Go", holdem_config(), [])
    html = Client(HTTP_ACCEPT_LANGUAGE="en").get("/accounts/login/").content.decode()
    assert "data-demo-logins" in html and "Demo accounts" in html
    for name in ("ospite", "direttore", "revisore"):
        assert f'data-demo-login="{name}"><td><code>{name}</code></td><td><code>{name}</code>' in html


# --- error pages, favicon, the log ----------------------------------------------------------------------


def test_error_pages_are_the_sites_in_the_readers_language() -> None:
    player = user("pia", access.PLAYER)
    missing = browser(player).get("/tournaments/999999/")
    assert missing.status_code == 404
    html = missing.content.decode()
    assert '<a class="brand"' in html and 'data-status="404"' in html and "Not found" in html
    refused = browser(player).get("/tournaments/new/")
    html = refused.content.decode()
    assert refused.status_code == 403 and "Only tournament directors." in html and "Solo i" not in html
    assert "Solo i direttori di torneo." in browser(player, "it").get("/tournaments/new/").content.decode()


def _boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug")


def _refused(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("no")


urlpatterns = [path("boom/", _boom), path("refused/", _refused), *site_urls.urlpatterns]
handler500 = "config.errors.server_error"


@override_settings(ROOT_URLCONF=__name__)
def test_a_500_is_the_sites_page_and_is_logged_with_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    page = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="en")
    with caplog.at_level(logging.WARNING, logger="django.request"):
        answer = page.get("/boom/")
    assert answer.status_code == 500
    html = answer.content.decode()
    assert 'data-status="500"' in html and "Something went wrong" in html and 'lang="en"' in html
    errors = [r for r in caplog.records if r.name == "django.request" and r.levelno >= logging.ERROR]
    assert errors and errors[0].exc_info is not None  # a real error keeps its traceback
    italian = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="it").get("/boom/")
    assert "Qualcosa è andato storto" in italian.content.decode()


@override_settings(ROOT_URLCONF=__name__)
def test_an_expected_403_is_logged_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="django.request"):
        assert Client().get("/refused/").status_code == 403
    records = [r for r in caplog.records if r.name == "django.request"]
    assert len(records) == 1 and records[0].exc_info is None, records
    assert "Traceback" not in caplog.text and "/refused/" in caplog.text


def test_the_favicon_is_served_and_linked() -> None:
    icon = Client().get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/svg+xml"
    assert b"<svg" in b"".join(icon.streaming_content)
    assert 'rel="icon"' in Client().get("/accounts/login/").content.decode()


# --- messages in the page's language ----------------------------------------------------------------------


def test_the_language_picker_needs_no_button_and_switches() -> None:
    page = Client()
    html = page.get("/accounts/login/").content.decode()
    assert 'onchange="this.form.submit()"' in html and "<noscript>" in html  # the button: only without JS
    assert "<h1>Accedi</h1>" in html
    page.post("/i18n/setlang/", {"language": "en", "next": "/accounts/login/"})
    assert "<h1>Log in</h1>" in page.get("/accounts/login/").content.decode()


def test_flash_messages_and_refusals_are_in_the_pages_language() -> None:
    player = user("pia", access.PLAYER)
    config = TournamentConfig("Sei", seats=6, starting_stack=1000, levels=(SitGoLevel(10, 600_000),))
    tournament_id = service.create(config, "direttore", [])
    english = browser(player)
    done = english.post(f"/tournaments/{tournament_id}/register/", follow=True).content.decode()
    assert '<div class="flash">Registered.</div>' in done
    again = english.post(f"/tournaments/{tournament_id}/register/", follow=True).content.decode()
    assert '<div class="flash error">Already registered.</div>' in again and "Sei già iscritto" not in again
    italian = browser(player, "it")
    again = italian.post(f"/tournaments/{tournament_id}/register/", follow=True).content.decode()
    assert '<div class="flash error">Sei già iscritto.</div>' in again
    left = italian.post(f"/tournaments/{tournament_id}/unregister/", follow=True).content.decode()
    assert '<div class="flash">Iscrizione annullata.</div>' in left


def test_an_icm_deal_over_its_bound_says_so_in_the_readers_language() -> None:
    names = [f"p{n}" for n in range(13)]
    final = Tournament(
        name="T", kind="mtt", config={}, players=names, remaining=names,
        detail={"chips": [[p, 100 + n] for n, p in enumerate(names)], "payouts": [100] * 13},
    )  # fmt: skip
    with translation.override("en"):
        error = dashboard.deal(final, "icm").error
    assert error == "ICM is computed for at most 12 players, and 13 are still in: use the chip chop."
    with translation.override("it"):
        error = dashboard.deal(final, "icm").error
    assert error.startswith("L'ICM si calcola per al massimo 12 giocatori") and "supports" not in error


def test_a_tournament_tables_name_is_in_the_readers_language() -> None:
    from tables.templatetags.table_names import table_name

    with translation.override("en"):
        assert table_name("Serale — tavolo 4") == "Serale — table 4"
        assert table_name("Revisione") == "Revisione"
    with translation.override("it"):
        assert table_name("Serale — tavolo 4") == "Serale — tavolo 4"
