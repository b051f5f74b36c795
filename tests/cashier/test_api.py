"""The cashier's API (issue 21): the operator's grant, credit and debit; a player's balance and history; the
player's buy-in, top-up and cash-out. Bad input is a 4xx with a clear message and changes nothing."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from cashier import ledger
from cashier.models import Balance
from eventstore.store import read_stream
from tables import access
from tables import service as tables
from tests.cashier.helpers import cash_table, player, stack_of

pytestmark = pytest.mark.django_db


def client(user: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.fixture
def world() -> dict[str, Any]:
    return {
        "anna": player("anna"),
        "bruno": player("bruno"),
        "diego": player("diego", (access.DIRECTOR,)),
    }


def test_the_operator_manages_a_balance_and_the_player_reads_it(world: dict[str, Any]) -> None:
    anna, diego = world["anna"], world["diego"]
    operator = client(diego)
    url = f"/api/cashier/players/{anna.pk}"
    assert (
        operator.post(f"{url}/grant/", {"amount": 1000, "reason": "benvenuto"}, format="json").status_code
        == 200
    )
    assert (
        operator.post(f"{url}/credit/", {"amount": 50, "reason": "bonus"}, format="json").status_code == 200
    )
    response = operator.post(f"{url}/debit/", {"amount": 30, "reason": "errore"}, format="json")
    assert response.status_code == 200 and response.json()["balance"] == 1020
    mine = client(anna).get("/api/cashier/").json()
    assert (mine["player"], mine["balance"], mine["version"]) == ("anna", 1020, 3)
    assert [(h["type"], h["amount"], h["actor"]) for h in mine["history"]] == [
        ("BalanceGranted", 1000, "diego"),
        ("BalanceCredited", 50, "diego"),
        ("BalanceDebited", 30, "diego"),
    ]
    assert operator.get(f"{url}/").json()["balance"] == 1020
    # the player does not manage balances, nor read another's
    assert client(anna).post(f"{url}/credit/", {"amount": 5, "reason": "x"}, format="json").status_code == 403
    assert client(world["bruno"]).get(f"{url}/").status_code == 403


@pytest.mark.parametrize(
    ("operation", "body", "status", "words"),
    [
        ("debit", {"amount": 1001, "reason": "troppo"}, 400, "superano il saldo di 1000"),
        ("credit", {"amount": -5, "reason": "negativo"}, 400, "Richiesta non valida — amount"),
        ("credit", {"amount": 0, "reason": "zero"}, 400, "Richiesta non valida — amount"),
        ("credit", {"amount": "5", "reason": "testo"}, 400, "serve un intero"),
        ("credit", {"amount": 5}, 400, "reason"),
        ("credit", {"amount": 5, "reason": "   "}, 400, "Serve una causale"),
        ("grant", {"amount": 5, "reason": "di nuovo"}, 400, "già stato assegnato"),
    ],
)
def test_bad_operator_input_is_a_400_that_changes_nothing(
    world: dict[str, Any], operation: str, body: dict[str, Any], status: int, words: str
) -> None:
    anna = world["anna"]
    operator = client(world["diego"])
    operator.post(f"/api/cashier/players/{anna.pk}/grant/", {"amount": 1000, "reason": "x"}, format="json")
    before = read_stream(ledger.stream_id(anna.pk))
    response = operator.post(f"/api/cashier/players/{anna.pk}/{operation}/", body, format="json")
    assert response.status_code == status
    assert words in response.json()["detail"], response.json()
    assert read_stream(ledger.stream_id(anna.pk)) == before
    assert Balance.objects.get(user_id=anna.pk).balance == 1000


def test_an_unknown_player_is_404(world: dict[str, Any]) -> None:
    operator = client(world["diego"])
    response = operator.post(
        "/api/cashier/players/987654/credit/", {"amount": 5, "reason": "x"}, format="json"
    )
    assert response.status_code == 404


def test_a_player_buys_in_tops_up_and_cashes_out(world: dict[str, Any]) -> None:
    anna = world["anna"]
    client(world["diego"]).post(
        f"/api/cashier/players/{anna.pk}/grant/", {"amount": 1000, "reason": "x"}, format="json"
    )
    table_id = cash_table("NT")
    me = client(anna)
    base = f"/api/cashier/tables/{table_id}"
    transfer = str(uuid.uuid4())
    bought = me.post(f"{base}/buy-in/", {"seat": 2, "amount": 300, "transfer": transfer}, format="json")
    assert bought.status_code == 200, bought.json()
    assert bought.json()["balance"] == 700 and stack_of(table_id, "anna") == 300
    again = me.post(f"{base}/buy-in/", {"seat": 2, "amount": 300, "transfer": transfer}, format="json")
    assert again.json()["replayed"] is True and again.json()["balance"] == 700
    assert me.post(f"{base}/top-up/", {"amount": 100}, format="json").json()["balance"] == 600
    too_much = me.post(f"{base}/top-up/", {"amount": 601}, format="json")
    assert too_much.status_code == 400 and "saldo" in too_much.json()["detail"]
    assert "balance" in too_much.json()["english"]
    out = me.post(f"{base}/cash-out/", {}, format="json")
    assert out.status_code == 200 and out.json()["amount"] == 400 and out.json()["balance"] == 1000
    assert stack_of(table_id, "anna") is None
    twice = me.post(f"{base}/cash-out/", {}, format="json")
    assert twice.status_code == 400 and "buy-in" in twice.json()["english"]
    missing = me.post("/api/cashier/tables/987654/buy-in/", {"seat": 0, "amount": 10}, format="json")
    assert missing.status_code == 404
    assert tables.load(table_id).facts.seats[2] is None


def test_the_auditors_read_a_ledger_stream(world: dict[str, Any]) -> None:
    """A ledger is a stream like any other on the auditors' stream page (director here: may audit)."""
    anna = world["anna"]
    client(world["diego"]).post(
        f"/api/cashier/players/{anna.pk}/grant/", {"amount": 700, "reason": "benvenuto"}, format="json"
    )
    browser = Client()
    browser.force_login(world["diego"])
    page = browser.get(f"/audit/streams/{ledger.stream_id(anna.pk)}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "BalanceGranted" in text and "benvenuto" in text


def test_the_operator_opens_lists_and_closes_cash_tables_through_the_api(world: dict[str, Any]) -> None:
    """``/api/cashier/cash-tables/``: the operator opens (201, refusals 400 opening nothing), anyone lists
    with the numbers, the operator closes (a second close 400); a player may not open one (403)."""
    operator, anna = client(world["diego"]), client(world["anna"])
    body = {"name": "Api", "game": "NT", "stakes": "5/10", "seats": 6, "min_buy_in": 100, "max_buy_in": 500}
    assert anna.post("/api/cashier/cash-tables/", body, format="json").status_code == 403
    bad = operator.post("/api/cashier/cash-tables/", body | {"min_buy_in": 600}, format="json")
    assert bad.status_code == 400 and "above the maximum" in bad.json()["english"]
    url = "/api/cashier/cash-tables/"
    assert operator.post(url, body | {"stakes": "7"}, format="json").status_code == 201
    opened = operator.post(url, body | {"game": "F7S", "stakes": "20"}, format="json")
    assert opened.status_code == 201, opened.json()
    table_id = opened.json()["table_id"]
    assert opened.json()["stakes"] == "Stud FL 20/40, ante 4, bring-in 6" and opened.json()["seated"] == 0
    listed = anna.get("/api/cashier/cash-tables/?game=F7S").json()
    assert [t["table_id"] for t in listed] == [table_id] and listed[0]["max_buy_in"] == 500
    assert len(anna.get("/api/cashier/cash-tables/").json()) == 2
    closed = operator.post(f"/api/cashier/cash-tables/{table_id}/close/", {}, format="json")
    assert closed.status_code == 200 and closed.json() == {"status": "closed"}
    again = operator.post(f"/api/cashier/cash-tables/{table_id}/close/", {}, format="json")
    assert again.status_code == 400 and "closed or closing" in again.json()["english"]
    assert [t["game"] for t in anna.get("/api/cashier/cash-tables/").json()] == ["NT"]
    assert anna.post(f"/api/cashier/cash-tables/{table_id}/close/", {}, format="json").status_code == 403
