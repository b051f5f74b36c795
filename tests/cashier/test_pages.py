"""The cash tables' pages (issue 21): the operator opens a table from the form (a refusal on the form, nothing
opened), the lobby lists it with its numbers and filters, a player takes a seat, tops up and stands up from
the table's page, each refusal said in words (Italian and English) with nothing changed."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from cashier import cash_tables, service
from cashier.models import Balance, CashTable
from eventstore.models import Event
from tables import access
from tables import service as tables
from tests.cashier.helpers import player, stack_of

pytestmark = pytest.mark.django_db


def browser(user: Any, language: str = "en") -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def test_the_operator_opens_and_closes_a_cash_table_from_the_pages() -> None:
    diego = player("diego", (access.DIRECTOR,))
    page = browser(diego)
    assert page.get("/cash/new/").status_code == 200
    form = {
        "name": "Sala blu",
        "game": "NT",
        "stakes": "5/10",
        "seats": 6,
        "min_buy_in": 200,
        "max_buy_in": 100,
        "action_time": 30,
        "bots": 2,
    }
    refused = page.post("/cash/new/", form)
    assert refused.status_code == 400 and "is above the maximum" in refused.content.decode()
    assert not CashTable.objects.exists()
    assert not Event.objects.filter(stream_id__startswith="table-").exists()
    opened = page.post("/cash/new/", form | {"max_buy_in": 1000}, follow=True)
    assert opened.status_code == 200
    row = CashTable.objects.get()
    html = opened.content.decode()
    assert "Cash table opened." in html and "Sala blu" in html and "NLHE 5/10" in html
    assert "data-occupancy>2/6<" in html  # the two bots bought in
    assert f'data-close="{row.table_id}"' in html
    assert stack_of(row.table_id, "bot-1") == 1000
    with translation.override("it"):
        italian = browser(diego, "it").get("/cash/").content.decode()
    assert "Tavoli cash" in italian and "Apri un tavolo cash" in italian
    closed = page.post(f"/cash/{row.table_id}/close/", follow=True).content.decode()
    assert "The table is closed" in closed and tables.load(row.table_id).closed
    assert Balance.objects.get(player="bot-1").balance == 1000  # cashed out


def test_a_player_sits_tops_up_and_stands_up_from_the_table_page_and_refusals_are_said() -> None:
    anna = player("anna")
    service.grant(anna, 1500, "benvenuto", "direttore")
    table_id = cash_tables.open_cash_table(
        name="Sala", game="NT", stakes="5/10", seats=6, min_buy_in=200, max_buy_in=1000
    )
    page = browser(anna)
    html = page.get(f"/tables/{table_id}/").content.decode()
    assert "data-balance>1500<" in html and 'name="amount" min="200" max="1000" value="1000"' in html
    assert "Take a seat" in html
    before = list(Event.objects.values_list("stream_id", "version"))
    low = page.post(f"/cash/{table_id}/sit/", {"seat": 2, "amount": 100}, follow=True).content.decode()
    assert "Refused, nothing changed: This table&#x27;s minimum buy-in is 200, not 100." in low
    assert list(Event.objects.values_list("stream_id", "version")) == before
    sat = page.post(f"/cash/{table_id}/sit/", {"seat": 2, "amount": 600}, follow=True).content.decode()
    assert "You sit with 600 chips; your balance is 900." in sat
    assert "Stand up" in sat and "data-balance>900<" in sat and 'max="400" value="400"' in sat
    over = page.post(f"/cash/{table_id}/top-up/", {"amount": 401}, follow=True).content.decode()
    assert "above the table&#x27;s maximum (1000)" in over and stack_of(table_id, "anna") == 600
    with translation.override("it"):
        italian = browser(anna, "it").post(f"/cash/{table_id}/top-up/", {"amount": 401}, follow=True)
    assert "Rifiutato, nulla è cambiato" in italian.content.decode()
    bruno = player("bruno")
    service.grant(bruno, 1000, "benvenuto", "direttore")
    service.buy_in(bruno, table_id, 4, 200)  # anna ends with at most 800
    tables.handle(table_id, lambda ld, at: tables.start_command(ld, at, None, seed=b"\x05" * 32))
    before = list(Event.objects.values_list("stream_id", "version"))
    for path in ("top-up", "stand"):  # CASH-TOPUP-1: never during a hand
        during = page.post(f"/cash/{table_id}/{path}/", {"amount": 100}, follow=True).content.decode()
        assert "Refused, nothing changed: a hand is being played: top up or stand up between hands." in during
        assert list(Event.objects.values_list("stream_id", "version")) == before
    rng = random.Random(1)
    while tables.load(table_id).facts.in_hand:
        tables.handle(table_id, lambda ld, at: ld.rules.bot_command(ld.state, min(ld.facts.to_act), rng, at))
    service.cash_out(bruno, table_id)
    stack = stack_of(table_id, "anna")
    assert stack is not None
    result = stack - 600  # what the hand won or lost her
    topped = page.post(f"/cash/{table_id}/top-up/", {"amount": 200}, follow=True).content.decode()
    assert "You added 200 chips; your balance is 700." in topped and stack_of(table_id, "anna") == stack + 200
    stood = page.post(f"/cash/{table_id}/stand/", follow=True).content.decode()
    assert f"You stood up with {stack + 200} chips; your balance is {1500 + result}." in stood
    assert stack_of(table_id, "anna") is None
    again = page.get(f"/tables/{table_id}/").content.decode()  # CASH-RETURN-1: at least what she left with
    assert f'min="{stack + 200}"' in again and f"you bring at least {stack + 200} chips" in again
    lobby = page.get("/cash/?game=NT").content.decode()
    assert f"data-balance>{1500 + result}<" in lobby and f'data-cash-table="{table_id}"' in lobby
    assert f'data-cash-table="{table_id}"' not in page.get("/cash/?game=PIT").content.decode()


def test_the_lobby_puts_a_player_on_a_waiting_list_and_tells_them_when_a_seat_is_theirs() -> None:
    """CASH-WAIT-1 from the pages: at a full table carla waits (and for any table of its stakes); anna
    stands up; the lobby tells carla the seat is held for her, in English and in Italian."""
    anna, bruno, carla = player("anna"), player("bruno"), player("carla")
    for user in (anna, bruno, carla):
        service.grant(user, 1000, "benvenuto", "direttore")
    table_id = cash_tables.open_cash_table(
        name="Piccolo", game="NT", stakes="5/10", seats=2, min_buy_in=200, max_buy_in=500
    )
    service.buy_in(anna, table_id, 0, 300)
    service.buy_in(bruno, table_id, 1, 300)
    page = browser(carla)
    lobby = page.get("/cash/").content.decode()
    assert f'data-wait="{table_id}"' in lobby and "Wait for any of these tables" in lobby
    joined = page.post("/cash/wait/", {"table": table_id, "action": "join"}, follow=True).content.decode()
    assert "You are on the waiting list." in joined and "Leave the list" in joined
    assert "data-waiting>1<" in joined
    twice = page.post("/cash/wait/", {"table": table_id, "action": "join"}, follow=True).content.decode()
    assert "You are on the waiting list already." in twice
    pool = {"game": "NT", "stakes": "NLHE 5/10", "action": "join"}
    assert "(1 waiting)" in page.post("/cash/wait/", pool, follow=True).content.decode()
    service.cash_out(anna, table_id)
    told = page.get("/cash/").content.decode()
    assert f'data-notice="{table_id}"' in told
    assert "A seat is free for you at Piccolo (NLHE 5/10): it is held for you for a few minutes." in told
    italiano = browser(carla, "it").get("/cash/").content.decode()
    assert "Un posto è libero per te a Piccolo (NLHE 5/10)" in italiano
    assert "A free seat is held for carla" in browser(anna).get(f"/tables/{table_id}/").content.decode()
    held = browser(anna).post(f"/cash/{table_id}/sit/", {"seat": 0, "amount": 300}, follow=True)
    assert "The free seat is held for carla" in held.content.decode()
    sat = page.post(f"/cash/{table_id}/sit/", {"seat": 0, "amount": 300}, follow=True).content.decode()
    assert "You sit with 300 chips" in sat
    assert "Wait for any of these tables" in page.get("/cash/").content.decode()  # off both lists
