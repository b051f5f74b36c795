"""Creating a tournament of any game over the API and the director's form (issue 17): the game and its
forced bets by level, table sizes, presets per game, mixed games; bad input — an unknown game, forced bets
that do not fit the game, a level list that does not parse, more seats than the game allows — gets HTTP
400 with a message per field and creates nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from eventstore.store import read_stream
from tables import access
from tests.tournaments.helpers import user
from tournaments import mtt
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def director() -> APIClient:
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_authenticate(user("capo", access.DIRECTOR))
    return api


def used(forced: dict[str, int] | None) -> dict[str, int] | None:
    """The forced bets of a level's JSON that are not zero."""
    return None if forced is None else {name: value for name, value in forced.items() if value}


def create(api: APIClient, **body: Any) -> Any:
    return api.post("/api/tournaments/", {"name": "Giovedì", **body}, format="json")


def test_a_holdem_tournament_with_its_preset_structure(director: APIClient) -> None:
    answer = create(director, game="NT", table_size="9-max", structure="turbo", starting_stack=20_000)
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["kind"] == "mtt" and body["status"] == "registering"
    config = Tournament.objects.get(id=body["id"]).config
    assert config["game"] == "NT" and config["seats"] == 9 and config["limit"] == "NL"
    playing = [level for level in config["levels"] if not level["is_break"]]
    # a turbo for 20,000 chips: 100 big blinds deep at level 1
    assert used(playing[0]["forced"]) == {"small_blind": 100, "big_blind": 200}
    assert used(playing[2]["forced"]) == {"small_blind": 200, "big_blind": 400, "big_blind_ante": 400}
    created = read_stream(mtt.stream_id(body["id"]))[0]
    assert created.type == "TournamentCreated" and created.schema_version == 2


def test_own_levels_with_forced_bets_and_a_mixed_game_level(director: APIClient) -> None:
    levels = [
        {"minutes": 10, "forced": {"small_blind": 10, "big_blind": 20}},
        {"minutes": 10, "game": "PIT", "forced": {"invito": 15}},
        {"minutes": 5, "is_break": True},
        {"minutes": 10, "forced": {"small_blind": 20, "big_blind": 40, "big_blind_ante": 40}},
    ]
    answer = create(director, game="NT", seats=6, levels=levels)
    assert answer.status_code == 201, answer.json()
    config = Tournament.objects.get(id=answer.json()["id"]).config
    shapes = [(lv["invito"], lv["game"], lv["is_break"], used(lv["forced"])) for lv in config["levels"]]
    assert shapes == [
        (20, "", False, {"small_blind": 10, "big_blind": 20}),
        (15, "PIT", False, {"invito": 15}),
        (0, "", True, None),
        (40, "", False, {"small_blind": 20, "big_blind": 40, "big_blind_ante": 40}),
    ]


def test_a_rotation_of_italian_limits(director: APIClient) -> None:
    answer = create(director, game="NIT", rotation=["NIT", "PIT", "FIT"], structure="hyper", seats=6)
    assert answer.status_code == 201, answer.json()
    levels = Tournament.objects.get(id=answer.json()["id"]).config["levels"]
    assert [level["game"] for level in levels[:4]] == ["NIT", "PIT", "FIT", "NIT"]


@pytest.mark.parametrize(
    ("body", "field", "fragment"),
    [
        ({"game": "XX"}, "game", "non è tra i valori ammessi"),
        ({"game": "NT", "seats": 11}, "seats", "10"),
        ({"game": "PIT", "seats": 8}, "seats", "At most 6 seats"),
        ({"game": "NT", "levels": [{"minutes": 10, "forced": {"small_blind": 5, "big_blind": 10,
                                                              "bring_in": 5}}]}, "levels", "bring in"),
        ({"game": "NT", "levels": [{"minutes": 10, "forced": {"small_blind": 5}}]}, "levels", "big blind"),
        ({"game": "NT", "levels": [{"minutes": 10, "forced": {"invito": 10}}]}, "levels", "invito"),
        ({"game": "NT", "levels": [{"minutes": "ten"}]}, "levels", "numero"),
        ({"game": "NT", "levels": "100/200 15"}, "levels", "levels"),
        ({"game": "NT", "levels": [{"minutes": 5, "game": "QQ", "forced": {"big_blind": 2}}]}, "levels",
         "QQ"),
        ({"game": "NT", "rotation": ["NT", "ZZ"]}, "rotation", "ZZ"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_with_a_message_per_field_and_creates_nothing(
    director: APIClient, body: dict[str, Any], field: str, fragment: str
) -> None:
    answer = create(director, **body)
    assert answer.status_code == 400, answer.json()
    detail = answer.json()["detail"]
    assert f"{field}:" in detail and fragment in detail, detail
    assert not Tournament.objects.exists()


def test_only_directors_create_tournaments() -> None:
    api = APIClient()
    api.force_authenticate(user("anna", access.PLAYER))
    assert create(api, game="NT").status_code == 403
    assert not Tournament.objects.exists()


# --- the director's form -----------------------------------------------------------------------------

FORM = {
    "name": "Form", "seats": 6, "starting_stack": 10_000, "buy_in": 10, "structure": "regular",
    "custom_levels": "", "late_registration_levels": 0, "max_entries": 1, "action_seconds": 30,
    "time_bank_seconds": 30, "percent_paid": 15, "bots": 0, "level_minutes": "",
}  # fmt: skip


@pytest.fixture
def page() -> Client:
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    browser.force_login(user("direttrice", access.DIRECTOR))
    return browser


def test_the_form_offers_every_registered_game_and_the_table_sizes(page: Client) -> None:
    html = page.get("/tournaments/new-mtt/").content.decode()
    for code in ("NT", "PO", "FT", "NIT", "PIT", "FIT"):
        assert f'value="{code}"' in html
    assert "9-max" in html and "Heads-up" in html


def test_the_form_creates_a_heads_up_omaha_tournament_and_the_pages_label_its_blinds(page: Client) -> None:
    answer = page.post("/tournaments/new-mtt/", {**FORM, "game": "PO", "table_size": "2"})
    assert answer.status_code == 302, answer.context["form"].errors
    tournament = Tournament.objects.get(name="Form")
    assert tournament.config["game"] == "PO" and tournament.config["seats"] == 2
    lobby = page.get("/").content.decode()
    assert "PLO 25/50" in lobby
    dashboard = page.get(f"/tournaments/{tournament.id}/").content.decode()
    assert "PLO 25/50" in dashboard and "PLO 50/100" in dashboard


def test_in_italian_a_refused_line_is_a_riga(page: Client) -> None:
    page.defaults["HTTP_ACCEPT_LANGUAGE"] = "it"
    fields = {**FORM, "game": "NT", "structure": "custom", "custom_levels": "10/20 10\nx 10"}
    answer = page.post("/tournaments/new-mtt/", fields)
    assert answer.status_code == 400 and "Riga 2:" in " ".join(answer.context["form"].errors["custom_levels"])
    assert "Tavoli da" in page.get("/tournaments/new-mtt/").content.decode()


@pytest.mark.parametrize(
    ("change", "field", "fragment"),
    [
        ({"game": "XX"}, "game", "XX"),
        ({"game": "NT", "seats": 11}, "seats", "10"),
        ({"game": "NIT", "seats": 7}, "seats", "6"),
        ({"game": "NT", "structure": "custom", "custom_levels": "10/20 bring-in 5 10"}, "custom_levels",
         "Line 1"),
        ({"game": "NT", "structure": "custom", "custom_levels": "10/20 10\n20/40 ante x 10"},
         "custom_levels", "Line 2"),
        ({"game": "NT", "structure": "custom", "custom_levels": "@PIT 10/20 10"}, "custom_levels", "Line 1"),
        ({"game": "NT", "rotation": "NT ZZ"}, "rotation", "ZZ"),
    ],
)  # fmt: skip
def test_the_form_refuses_bad_input_on_its_field(
    page: Client, change: dict[str, Any], field: str, fragment: str
) -> None:
    answer = page.post("/tournaments/new-mtt/", {**FORM, **change})
    assert answer.status_code == 400
    errors = answer.context["form"].errors
    assert field in errors and fragment in " ".join(errors[field]), errors
    assert not Tournament.objects.exists()


def test_a_holdem_sit_and_go_from_the_form(page: Client) -> None:
    fields = {
        "name": "SNG NLHE", "game": "NT", "seats": 9, "starting_stack": 1500, "structure": "turbo",
        "action_seconds": 20, "time_bank_seconds": 30, "bots": 0,
    }  # fmt: skip
    answer = page.post("/tournaments/new/", fields)
    assert answer.status_code == 302, answer.context["form"].errors
    config = Tournament.objects.get(name="SNG NLHE").config
    assert config["game"] == "NT" and config["levels"][0]["forced"]["big_blind"] > 0
    refused = page.post("/tournaments/new/", {**fields, "name": "Troppi", "game": "PIT", "seats": 10})
    assert refused.status_code == 400 and "seats" in refused.context["form"].errors
