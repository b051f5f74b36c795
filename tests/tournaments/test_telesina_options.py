"""Telesina tournaments' table options (issue 19): the vele layout (TL-VELE-1) and the *distribuzione carta
coperta* (TL-DEAL-2) are fields of a tournament's configuration, passed to its tables through the game's
``table_config``; a layout that does not fit a full table is a form error with TL-CAP-1's arithmetic, the
API answers 400 with the message, a configuration stored before the options plays croce and mai, and the
dashboard and the clock name the variant."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from engine.codec import from_data
from engine.tournament import mtt as decider
from engine.tournament.mtt import MttConfig
from eventstore.store import read_stream
from tables import access
from tables.models import Table
from tests.tournaments.helpers import user
from tournaments import mtt
from tournaments.models import Tournament
from tournaments.upcasters import tournament_created_v1

pytestmark = pytest.mark.django_db

SITGO = {
    "name": "Telesina", "game": "PTL", "seats": 8, "starting_stack": 1000, "structure": "turbo",
    "level_minutes": 0, "action_seconds": 30, "time_bank_seconds": 0, "bots": 0, "auto_start": "on",
    "layout": "ascensore", "distribution": "mai",
}  # fmt: skip
MTT_FORM = {
    "name": "Telesina MTT", "game": "NTL", "seats": 6, "starting_stack": 10_000, "buy_in": 10,
    "structure": "regular", "custom_levels": "", "late_registration_levels": 0, "max_entries": 1,
    "action_seconds": 30, "time_bank_seconds": 30, "percent_paid": 15, "bots": 0, "level_minutes": "",
    "layout": "piramide", "distribution": "sempre",
}  # fmt: skip


def director_page(language: str) -> Client:
    browser = Client(HTTP_ACCEPT_LANGUAGE=language)
    browser.force_login(user(f"direttore-{language}", access.DIRECTOR))
    return browser


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("it", "lo schema ascensore non ci sta: 8 giocatori × 5 carte + 9 vele = 49 carte, il mazzo per 8 "
               "giocatori ne ha 48 (regola TL-CAP-1)"),
        ("en", "the ascensore layout does not fit: 8 players × 5 cards + 9 vele = 49 cards, the deck for 8 "
               "players has 48 (rule TL-CAP-1)"),
    ],
)  # fmt: skip
def test_a_layout_that_does_not_fit_the_table_is_a_form_error_with_the_arithmetic(
    language: str, message: str
) -> None:
    answer = director_page(language).post("/tournaments/new/", SITGO)
    assert answer.status_code == 400
    html = answer.content.decode()
    assert 'data-field="layout"' in html and message in html, html[html.find("error") - 200 :][:1500]
    assert not Tournament.objects.exists()


def test_the_form_keeps_the_options_for_telesina_and_drops_them_for_another_game() -> None:
    page = director_page("en")
    html = page.get("/tournaments/new/").content.decode()
    games = re.search(r'<select name="layout" data-games="([^"]*)"', html)
    assert games is not None and sorted(games[1].split()) == ["FTL", "NTL", "PTL"]
    assert '<option value="croce" selected>croce (cross)</option>' in html
    assert page.post("/tournaments/new/", {**SITGO, "seats": 7}).status_code == 302  # 7 + 9 ≤ 16
    assert Tournament.objects.get(name="Telesina").config["layout"] == "ascensore"
    answer = page.post("/tournaments/new-mtt/", MTT_FORM)
    assert answer.status_code == 302, answer.context["form"].errors
    config = Tournament.objects.get(name="Telesina MTT").config
    assert (config["game"], config["layout"], config["distribution"]) == ("NTL", "piramide", "sempre")
    answer = page.post("/tournaments/new-mtt/", {**MTT_FORM, "name": "Hold'em", "game": "NT"})
    assert answer.status_code == 302, answer.context["form"].errors
    config = Tournament.objects.get(name="Hold'em").config
    assert (config["layout"], config["distribution"]) == ("", "")


@pytest.fixture
def api() -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user("capo", access.DIRECTOR))
    return client


def create(api: APIClient, **body: Any) -> Any:
    return api.post("/api/tournaments/", {"name": "Giovedì", **body}, format="json")


def test_the_api_creates_a_telesina_tournament_with_its_options(api: APIClient) -> None:
    answer = create(api, game="FTL", seats=6, layout="h", distribution="primo_giro", structure="hyper")
    assert answer.status_code == 201, answer.json()
    config = Tournament.objects.get(id=answer.json()["id"]).config
    assert (config["layout"], config["distribution"]) == ("h", "primo_giro")
    schema = api.get("/api/schema/", {"format": "json"}).json()
    fields = schema["components"]["schemas"]["CreateRequest"]["properties"]
    assert "layout" in fields and "distribution" in fields


@pytest.mark.parametrize(
    ("body", "field", "fragment"),
    [
        ({"game": "NT", "layout": "croce"}, "layout", "no table option layout"),
        ({"game": "PIT", "distribution": "sempre"}, "distribution", "no table option distribution"),
        ({"game": "PTL", "layout": "stella"}, "layout", "stella"),
        ({"game": "PTL", "distribution": "spesso"}, "distribution", "spesso"),
    ],
)  # fmt: skip
def test_the_api_refuses_an_option_with_a_message(
    api: APIClient, body: dict[str, Any], field: str, fragment: str
) -> None:
    answer = create(api, **body)
    assert answer.status_code == 400, answer.json()
    detail = answer.json()["detail"]
    assert f"{field}" in detail and fragment in detail, detail
    assert not Tournament.objects.exists()


def test_the_decider_refuses_the_layout_cap_for_a_nine_seat_sit_and_go() -> None:
    config = decider.sit_and_go_config(
        MttConfig(
            "S",
            game="NTL",
            seats=9,
            layout="ascensore",
            levels=decider.structure_preset("hyper", 1000, "NTL"),
        )
    )
    with pytest.raises(decider.TournamentConfigRefused) as refused:
        decider.decide(decider.MttState(), decider.CreateTournament(config))
    assert refused.value.field == "layout"
    assert "9 players × 5 cards + 9 vele = 54 cards, the deck for 9 players has 52" in refused.value.english


def test_an_old_configuration_reads_with_the_game_defaults() -> None:
    old = {"config": {"name": "Vecchio", "seats": 6, "limit": "PL", "starting_stack": 1000,
                      "levels": [{"invito": 10, "duration_ms": 600000}]}, "at": 5}  # fmt: skip
    config = from_data(MttConfig, tournament_created_v1(old)["config"])
    assert (config.layout, config.distribution) == ("", "")
    telesina = MttConfig("T", game="PTL", levels=decider.structure_preset("hyper", 1000, "PTL"))
    options = dict(mtt.table_config(telesina, decider.level_forced(telesina.levels[0])).options)
    assert (options["layout"], options["distribution"]) == ("croce", "mai")


def test_the_tables_of_a_started_tournament_play_the_chosen_layout() -> None:
    names = [f"p{n}" for n in range(5)]
    for name in names:
        user(name, access.PLAYER)
    config = MttConfig(
        "Vele", game="PTL", seats=5, starting_stack=1000, layout="due", distribution="sempre",
        levels=decider.structure_preset("hyper", 1000, "PTL"),
    )  # fmt: skip
    tournament_id = mtt.create(config, "capo", names)
    mtt.start(tournament_id, "capo", seed=bytes(32))
    (table,) = Table.objects.filter(tournament_id=tournament_id)
    events = read_stream(f"table-{table.id}")
    opened = events[0]
    assert opened.type == "TableOpened"
    assert dict(map(tuple, opened.data["config"]["options"])) == {
        "distribution": "sempre", "layout": "due", "minimal_beats_royal": "spades-vs-hearts"
    }  # fmt: skip
    english, italian = director_page("en"), director_page("it")
    lobby = english.get("/").content.decode()
    assert '<small class="muted" data-variant>due (two vele) · carta coperta: sempre</small>' in lobby
    for page in (f"/tournaments/{tournament_id}/director/", f"/tournaments/{tournament_id}/clock/"):
        html = english.get(page).content.decode()
        assert '<div class="clock-variant" data-variant>due (two vele) · carta coperta: sempre</div>' in html
        html = italian.get(page).content.decode()
        assert '<div class="clock-variant" data-variant>due (due vele) · carta coperta: sempre</div>' in html


def test_the_structure_preview_names_the_variant() -> None:
    page = director_page("en")
    html = page.post("/tournaments/new-mtt/", {**MTT_FORM, "preview": "1"}).content.decode()
    assert '<p class="estimate" data-variant>piramide (pyramid) · carta coperta: sempre</p>' in html
    html = page.post("/tournaments/new-mtt/", {**MTT_FORM, "game": "NT", "preview": "1"}).content.decode()
    assert "data-variant" not in html and "data-estimate" in html
