"""The REST API of the tables (DRF): reading a table, acting, and every refusal with its status."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.italian.legal import ActionKind, legal_actions
from engine.italian.model import Phase
from eventstore.models import ProcessedCommand
from tables import service
from tests.tables.helpers import body, events, not_to_act, to_act

pytestmark = pytest.mark.django_db


def url(table_id: int) -> str:
    return f"/api/tables/{table_id}/"


def act_url(table_id: int) -> str:
    return f"/api/tables/{table_id}/act/"


def simple_action(table_id: int) -> str:
    """An amount-free legal action of the player to act (BUSSO or VEDO in a betting round)."""
    seat, _ = to_act(table_id)
    kinds = {o.kind for o in legal_actions(service.load(table_id).state, seat)}
    for kind in (ActionKind.CHECK, ActionKind.CALL, ActionKind.DECLINE_BLIND):
        if kind in kinds:
            return kind.value
    raise AssertionError(f"no simple action among {kinds}")


# --- reading ---------------------------------------------------------------------------------------------


def test_list_tables(api_as, players, table) -> None:
    response = api_as(players["anna"]).get("/api/tables/")
    assert response.status_code == 200
    rows = {row["id"]: row for row in response.json()}
    row = rows[table]
    loaded = service.load(table)
    assert row["name"] == "T"
    assert row["status"] == "playing"
    assert row["version"] == loaded.version == events(table)
    assert row["players"] == ["anna", "bruno", "carla"]
    assert row["hand_number"] == 1
    assert row["to_act"] == loaded.state.hand.to_act


def test_state_shows_own_cards_only(api_as, players, dealt_table) -> None:
    loaded = service.load(dealt_table)
    hand = loaded.state.hand
    for seat, name in enumerate(["anna", "bruno", "carla"]):
        response = api_as(players[name]).get(url(dealt_table))
        assert response.status_code == 200
        data = response.json()
        assert data["id"] == dealt_table
        assert data["version"] == loaded.version
        assert data["your_seat"] == seat
        assert data["closed"] is False
        seats = data["view"]["seats"]
        assert seats[seat]["player"] == name
        assert seats[seat]["cards"] == [str(card) for card in hand.down[seat]]
        assert len(seats[seat]["cards"]) == 5
        for other in {0, 1, 2} - {seat}:
            assert seats[other]["cards"] == [None] * 5
            for card in hand.down[other]:
                assert json.dumps(str(card)) not in response.content.decode()
        assert data["view"]["stock_cards"] == []
        assert data["view"]["viewer"] == seat


def test_director_and_auditor_see_no_cards(api_as, players, director, auditor, dealt_table) -> None:
    for user in (director, auditor):
        response = api_as(user).get(url(dealt_table))
        assert response.status_code == 200
        data = response.json()
        assert data["your_seat"] is None
        assert all(seat["cards"] == [None] * 5 for seat in data["view"]["seats"])
        assert data["view"]["legal"] == []


# --- acting ----------------------------------------------------------------------------------------------


def test_act_returns_the_new_version(api_as, players, dealt_table) -> None:
    loaded = service.load(dealt_table)
    seat, player = to_act(dealt_table)
    before = events(dealt_table)
    request = body(simple_action(dealt_table), loaded.version)
    response = api_as(players[player]).post(act_url(dealt_table), request, format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    after = events(dealt_table)
    assert after > before
    assert data["version"] == after == service.load(dealt_table).version
    assert data["your_seat"] == seat
    assert data["view"]["to_act"] != seat
    assert ProcessedCommand.objects.filter(command_id=request["command_id"]).exists()


def test_repeated_command_id_gives_the_same_body_and_one_append(api_as, players, dealt_table) -> None:
    loaded = service.load(dealt_table)
    _, player = to_act(dealt_table)
    client = api_as(players[player])
    request = body(simple_action(dealt_table), loaded.version)
    first = client.post(act_url(dealt_table), request, format="json")
    assert first.status_code == 200
    after = events(dealt_table)
    second = client.post(act_url(dealt_table), request, format="json")
    assert second.status_code == 200
    assert second.json() == first.json()
    assert events(dealt_table) == after
    assert ProcessedCommand.objects.filter(command_id=request["command_id"]).count() == 1


def test_stale_expected_version_is_409(api_as, players, dealt_table) -> None:
    loaded = service.load(dealt_table)
    _, player = to_act(dealt_table)
    before = events(dealt_table)
    response = api_as(players[player]).post(
        act_url(dealt_table), body(simple_action(dealt_table), loaded.version - 1), format="json"
    )
    assert response.status_code == 409
    assert str(loaded.version) in response.json()["detail"]
    assert events(dealt_table) == before


def test_bet_below_the_minimum_is_400(api_as, players, table) -> None:
    loaded = service.load(table)
    seat, player = to_act(table)
    (blind,) = [o for o in legal_actions(loaded.state, seat) if o.kind is ActionKind.BLIND_BET]
    before = events(table)
    response = api_as(players[player]).post(
        act_url(table), body("blind_bet", loaded.version, amount=blind.minimum - 1), format="json"
    )
    assert response.status_code == 400
    data = response.json()
    assert data["detail"] == f"Il buio è di {blind.minimum} chips."
    assert data["english"] == f"the buio is {blind.minimum} chips, not {blind.minimum - 1}"
    assert events(table) == before


def test_acting_out_of_turn_is_400_with_a_message(api_as, players, dealt_table) -> None:
    loaded = service.load(dealt_table)
    before = events(dealt_table)
    response = api_as(players[not_to_act(dealt_table)]).post(
        act_url(dealt_table), body("check", loaded.version), format="json"
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "Non è il tuo turno."
    assert "turn" in response.json()["english"]
    assert events(dealt_table) == before


def test_bet_without_amount_is_400(api_as, players, table) -> None:
    loaded = service.load(table)
    _, player = to_act(table)
    before = events(table)
    response = api_as(players[player]).post(act_url(table), body("blind_bet", loaded.version), format="json")
    assert response.status_code == 400
    assert "amount" in response.json()["detail"]
    assert events(table) == before


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda b: b.pop("command_id"), "command_id"),
        (lambda b: b.update(command_id="not-a-uuid"), "command_id"),
        (lambda b: b.pop("expected_version"), "expected_version"),
        (lambda b: b.update(action="jump"), "action"),
        (lambda b: b.update(action="bet", amount="tanti"), "amount"),
        (lambda b: b.update(action="bet", amount=-5), "amount"),
        (lambda b: b.update(action="discard", cards="Ah"), "cards"),
    ],
    ids=[
        "no-command-id",
        "bad-command-id",
        "no-version",
        "unknown-action",
        "amount-not-int",
        "amount-negative",
        "cards-not-a-list",
    ],
)
def test_malformed_body_is_400(api_as, players, dealt_table, change, field) -> None:
    loaded = service.load(dealt_table)
    _, player = to_act(dealt_table)
    request: dict[str, Any] = body("check", loaded.version)
    change(request)
    before = events(dealt_table)
    response = api_as(players[player]).post(act_url(dealt_table), request, format="json")
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert detail.startswith("Richiesta non valida")
    assert f"{field}:" in detail
    assert events(dealt_table) == before


def test_non_json_body_is_400(api_as, players, dealt_table) -> None:
    _, player = to_act(dealt_table)
    before = events(dealt_table)
    response = api_as(players[player]).post(
        act_url(dealt_table), "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["detail"]
    assert events(dealt_table) == before


# --- who may act -----------------------------------------------------------------------------------------


def test_player_of_another_table_is_403(api_as, other_table_player, dealt_table) -> None:
    loaded = service.load(dealt_table)
    before = events(dealt_table)
    response = api_as(other_table_player).post(
        act_url(dealt_table), body("check", loaded.version), format="json"
    )
    assert response.status_code == 403
    assert response.json() == {
        "detail": "Non sei seduto a questo tavolo.",
        "english": "You are not seated at this table.",
    }
    assert events(dealt_table) == before


@pytest.mark.parametrize("who", ["director", "auditor"])
def test_director_or_auditor_acting_is_403(request, api_as, players, dealt_table, who) -> None:
    user = request.getfixturevalue(who)
    loaded = service.load(dealt_table)
    before = events(dealt_table)
    response = api_as(user).post(act_url(dealt_table), body("check", loaded.version), format="json")
    assert response.status_code == 403
    assert response.json()["detail"] == "Solo i giocatori possono agire."
    assert events(dealt_table) == before


def test_user_in_no_group_is_403(api_as, nobody, dealt_table) -> None:
    loaded = service.load(dealt_table)
    before = events(dealt_table)
    client = api_as(nobody)
    assert client.get("/api/tables/").status_code == 403
    assert client.get(url(dealt_table)).status_code == 403
    response = client.post(act_url(dealt_table), body("check", loaded.version), format="json")
    assert response.status_code == 403
    assert "giocatore" in response.json()["detail"]
    assert events(dealt_table) == before


def test_anonymous_is_refused(api_as, dealt_table) -> None:
    loaded = service.load(dealt_table)
    before = events(dealt_table)
    client = api_as(None)
    for response in (
        client.get("/api/tables/"),
        client.get(url(dealt_table)),
        client.post(act_url(dealt_table), body("check", loaded.version), format="json"),
    ):
        assert response.status_code in (401, 403)
        assert response.json()["detail"]
    assert events(dealt_table) == before


def test_unknown_table_is_404(api_as, players, dealt_table) -> None:
    missing = dealt_table + 10_000
    client = api_as(players["anna"])
    before = events(dealt_table)
    response = client.get(url(missing))
    assert response.status_code == 404
    assert response.json()["detail"] == f"Il tavolo {missing} non esiste."
    response = client.post(act_url(missing), body("check", 1), format="json")
    assert response.status_code == 404
    assert response.json()["detail"] == f"Il tavolo {missing} non esiste."
    assert not ProcessedCommand.objects.exists()
    assert events(dealt_table) == before


def test_command_id_of_another_table_is_400(api_as, players, other_table_player, dealt_table) -> None:
    loaded = service.load(dealt_table)
    _, player = to_act(dealt_table)
    request = body(simple_action(dealt_table), loaded.version)
    assert api_as(players[player]).post(act_url(dealt_table), request, format="json").status_code == 200
    other_id = next(t for t in _table_ids() if t != dealt_table)  # dora's table, where anna sits too
    before = events(other_id)
    response = api_as(players["anna"]).post(act_url(other_id), request, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == "command_id già usato per un altro comando."
    assert events(other_id) == before


def _table_ids() -> list[int]:
    from tables.models import Table

    return list(Table.objects.values_list("id", flat=True))


def test_replayed_command_id_never_shows_another_players_cards(api_as, players, dealt_table) -> None:
    loaded = service.load(dealt_table)
    seat, player = to_act(dealt_table)
    request = body(simple_action(dealt_table), loaded.version)
    assert api_as(players[player]).post(act_url(dealt_table), request, format="json").status_code == 200
    thief = next(name for name in players if name != player)
    response = api_as(players[thief]).post(act_url(dealt_table), request, format="json")
    hidden = {str(card) for card in service.load(dealt_table).state.hand.down[seat]}
    assert response.status_code in (200, 400, 403, 409)
    leaked = {code for code in hidden if json.dumps(code) in response.content.decode()}
    assert not leaked, f"{thief} received {player}'s cards {sorted(leaked)}"


def test_the_phase_after_declines_is_the_opening(dealt_table) -> None:
    """A sanity check of the fixture the tests above rely on."""
    hand = service.load(dealt_table).state.hand
    assert hand.phase is Phase.OPENING
    assert all(len(hand.down[seat]) == 5 for seat in range(3))


def test_closed_table_refuses_actions(api_as, players, dealt_table) -> None:
    service.close_table(dealt_table, "test")
    loaded = service.load(dealt_table)
    _, player = to_act(dealt_table)
    client = api_as(players[player])
    assert client.get(url(dealt_table)).json()["closed"] is True
    before = events(dealt_table)
    response = client.post(act_url(dealt_table), body("check", loaded.version), format="json")
    assert response.status_code == 400
    assert response.json() == {"detail": "Il tavolo è chiuso.", "english": "The table is closed."}
    assert events(dealt_table) == before
