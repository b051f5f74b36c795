"""The operator's balances page (``/cash/balances/``) and the ledger's history page (``/cash/history/``,
``/cash/history/<user id>/``) of issue 21: the operator grants, credits and debits from the browser, each
refusal said in words with nothing changed; a player sees their own chips' path (grant → buy-in at a table →
cash-out) with signed amounts and the running balance, newest first; the auditors see any player's, with
links to the tables' audit pages; nobody else does."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from cashier import service
from cashier.models import Balance
from eventstore.models import Event
from tables import access
from tests.cashier.helpers import cash_table, player

pytestmark = pytest.mark.django_db


def browser(user: Any, language: str = "en") -> Client:
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = language
    return client


def log() -> list[tuple[str, int]]:
    return list(Event.objects.order_by("global_position").values_list("stream_id", "version"))


def test_the_operator_grants_credits_and_debits_from_the_balances_page() -> None:
    diego = player("diego", (access.DIRECTOR,))
    anna, bruno = player("anna"), player("bruno")
    service.grant(bruno, 700, "benvenuto", "diego")
    page = browser(diego)
    html = page.get("/cash/balances/").content.decode()
    assert 'data-player="anna"' in html and 'data-player="bruno"' in html  # without a ledger and with one
    assert "no ledger yet" in html and 'data-op="grant"' in html
    filtered = page.get("/cash/balances/?q=brU").content.decode()
    assert 'data-player="bruno"' in filtered and 'data-player="anna"' not in filtered
    assert "<strong>700</strong>" in filtered
    form = {"user": anna.pk, "operation": "grant", "amount": "1000", "reason": "opening grant", "q": "an"}
    granted = page.post("/cash/balances/", form)
    assert granted.status_code == 302 and granted["Location"] == "/cash/balances/?q=an"
    html = page.get(granted["Location"]).content.decode()
    assert "Opening grant of 1000 chips to anna; the balance is 1000." in html
    before = log()
    again = page.post("/cash/balances/", form | {"amount": "50"}, follow=True).content.decode()
    assert (
        "Refused, nothing changed: anna&#x27;s opening grant was set already (1000): use a credit." in again
    )
    no_reason = page.post("/cash/balances/", form | {"operation": "credit", "reason": " "}, follow=True)
    assert "Refused, nothing changed: A reason is needed." in no_reason.content.decode()
    over = page.post(
        "/cash/balances/", form | {"operation": "debit", "amount": "1001", "reason": "x"}, follow=True
    )
    assert "1001 chips is more than the balance of 1000" in over.content.decode()
    bad = page.post("/cash/balances/", form | {"operation": "credit", "amount": "-5"}, follow=True)
    assert "Refused, nothing changed:" in bad.content.decode()
    nobody = page.post("/cash/balances/", form | {"user": "987654", "operation": "credit"}, follow=True)
    assert "Refused, nothing changed: no such player." in nobody.content.decode()
    assert log() == before
    page.post("/cash/balances/", form | {"operation": "credit", "amount": "300", "reason": "torneo vinto"})
    done = page.post(
        "/cash/balances/", form | {"operation": "debit", "amount": "200", "reason": "errore"}, follow=True
    )
    html = done.content.decode()
    assert "200 chips debited from anna; the balance is 1100." in html
    row = Balance.objects.get(player="anna")
    assert (row.balance, row.granted, row.credited, row.debited) == (1100, 1000, 300, 200)
    assert "data-credited>300<" in html and "data-debited>200<" in html
    with translation.override("it"):
        italian = browser(diego, "it").post("/cash/balances/", form, follow=True).content.decode()
    assert "Saldi dei giocatori" in italian and "Rifiutato, nulla è cambiato" in italian
    assert "è già stato assegnato" in italian
    lobby = page.get("/cash/").content.decode()
    assert 'href="/cash/balances/"' in lobby


def test_only_the_operator_sees_and_changes_balances() -> None:
    anna = player("anna")
    aldo = player("aldo", (access.AUDITOR,))
    before = log()
    for user in (anna, aldo):
        page = browser(user)
        assert page.get("/cash/balances/").status_code == 403
        form = {"user": anna.pk, "operation": "grant", "amount": "1000", "reason": "x"}
        assert page.post("/cash/balances/", form).status_code == 403
    assert log() == before and not Balance.objects.exists()


def test_the_history_shows_every_chip_s_path_with_signed_amounts_and_the_running_balance() -> None:
    anna, bruno = player("anna"), player("bruno")
    aldo = player("aldo", (access.AUDITOR,))
    diego = player("diego", (access.DIRECTOR,))
    service.grant(anna, 1000, "benvenuto", "diego")
    service.credit(anna, 50, "rimborso", "diego")
    table_id = cash_table("NT", minimum=100, maximum=1000)
    service.buy_in(anna, table_id, 2, 400)
    service.top_up(anna, table_id, 100)
    service.cash_out(anna, table_id)
    service.debit(anna, 30, "correzione", "diego")
    mine = browser(anna).get("/cash/history/")
    assert mine.status_code == 200
    html = mine.content.decode()
    kinds = [
        "BalanceDebited",
        "CashedOut",
        "TopUpCompleted",
        "BuyInCompleted",
        "BalanceCredited",
        "BalanceGranted",
    ]
    positions = [html.index(f'data-kind="{kind}"') for kind in kinds]
    assert positions == sorted(positions)  # newest first
    for amount, running in (("-30", 1020), ("+500", 1050), ("-100", 550), ("-400", 650), ("+50", 1050)):
        assert f'data-amount>{amount}</td>\n      <td class="num" data-running>{running}<' in html
    assert "data-amount>+1000</td>" in html and "data-balance>1020<" in html
    assert "Buy-in at" in html and ", seat 3" in html and "Cash-out from" in html and "Top-up at" in html
    assert f'href="/tables/{table_id}/" data-table="{table_id}">cash NT<' in html
    assert "Debit: correzione" in html and "Opening grant (benvenuto)" in html
    assert "data-audit-table" not in html  # a player is no auditor
    assert browser(anna).get(f"/cash/history/{anna.pk}/").status_code == 200  # her own id
    assert browser(anna).get(f"/cash/history/{bruno.pk}/").status_code == 403
    assert browser(aldo).get("/cash/history/").status_code == 403  # an auditor has no balance
    audited = browser(aldo).get(f"/cash/history/{anna.pk}/").content.decode()
    assert "Chips of anna" in audited and f'href="/audit/streams/table-{table_id}/"' in audited
    assert f'href="/audit/streams/ledger-{anna.pk}/"' in audited and "by diego" in audited
    assert browser(diego).get(f"/cash/history/{anna.pk}/").status_code == 200
    assert browser(diego).get("/cash/history/987654/").status_code == 404
    empty = browser(bruno).get("/cash/history/").content.decode()
    assert "No chips have moved yet." in empty
    with translation.override("it"):
        italian = browser(anna, "it").get("/cash/history/").content.decode()
    assert "Le tue fiches" in italian and "Addebito: correzione" in italian
    assert 'href="/cash/history/"' in browser(anna).get("/cash/").content.decode()
