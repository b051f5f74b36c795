"""Cash tables as a record (issue 21): opened and closed by the operator (``cashtable-<id>`` beside the
table's stream), the buy-in limits taken from the record, refusals that change nothing, the lobby's
statistics, CASH-RETURN-1 (back within the hour with at least what one left with), CASH-WAIT-1 (waiting
lists) and the entry rule of the ante games."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from audit.verification import verify
from cashier import cash_tables, records, ring, service
from cashier.ledger import LedgerRefused, OutsideLimits
from cashier.models import Balance, CashTable
from engine.core import find_game, games, is_betting
from eventstore import projections
from eventstore.models import Event
from eventstore.store import read_stream
from tables import access
from tables import service as tables
from tests.cashier.helpers import FORCED, cash_table, chips_at, play_hand, player, stack_of

pytestmark = pytest.mark.django_db


def client(user: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def everything(user_ids: list[int], table_id: int) -> tuple[Any, ...]:
    """What a refusal must leave as it was: every event of the log, the balances, the record's row."""
    return (
        list(Event.objects.order_by("global_position").values_list("stream_id", "version")),
        list(Balance.objects.filter(user_id__in=user_ids).values_list("user_id", "balance", "version")),
        list(CashTable.objects.filter(table_id=table_id).values_list("version", "status", "waiting")),
    )


def test_the_operator_opens_a_cash_table_with_its_record_in_the_same_transaction() -> None:
    table_id = cash_tables.open_cash_table(
        name="Sala 1", game="NT", stakes="5/10", seats=6, min_buy_in=200, max_buy_in=1000, actor="diego"
    )
    opened = read_stream(tables.stream_id(table_id))[0]
    (record,) = read_stream(ring.stream_id(table_id))
    assert opened.type == "TableOpened" and opened.data["config"]["tournament"] is False
    assert record.type == "CashTableOpened" and record.tx_id == opened.tx_id
    assert record.data == {
        "name": "Sala 1",
        "game": "NT",
        "stakes": "NLHE 5/10",
        "forced": {"small_blind": 5, "big_blind": 10},
        "seats": 6,
        "min_buy_in": 200,
        "max_buy_in": 1000,
        "action_time_ms": 30_000,
    }
    row = CashTable.objects.get(table_id=table_id)
    assert (row.status, row.stakes, row.opened_at_ms) == ("open", "NLHE 5/10", opened.metadata["at"])
    # the stakes of the other families, in the operator's words
    stud = cash_tables.open_cash_table(
        name="Stud", game="F7S", stakes="10/20 ante 2 bring-in 5", seats=8, min_buy_in=100, max_buy_in=400
    )
    italian = cash_tables.open_cash_table(
        name="Italiana", game="PIT", stakes="invito 10", seats=5, min_buy_in=100, max_buy_in=400
    )
    assert CashTable.objects.get(table_id=stud).stakes == "Stud FL 10/20, ante 2, bring-in 5"
    assert CashTable.objects.get(table_id=italian).forced == {"invito": 10}


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"game": "XX"}, "Unknown game"),
        ({"game": "CIN"}, "not played for chips"),
        ({"stakes": "banana"}, "Stakes that do not fit"),
        ({"stakes": "invito 10"}, "Stakes that do not fit"),
        ({"stakes": "1e30/2e30"}, "above the maximum buy-in (400)"),
        ({"min_buy_in": 500, "max_buy_in": 400}, "minimum buy-in (500) is above the maximum (400)"),
        ({"seats": 12}, "seats"),
        ({"name": "  "}, "needs a name"),
        ({"action_time_ms": 10}, "action time"),
    ],
)
def test_an_open_that_does_not_fit_is_refused_and_opens_nothing(options: dict[str, Any], words: str) -> None:
    base = {"name": "x", "game": "NT", "stakes": "5/10", "seats": 6, "min_buy_in": 100, "max_buy_in": 400}
    if options.get("game") == "CIN":
        options = {"game": next(g.code for g in games() if not is_betting(g))}
    with pytest.raises(ring.CashTableRefused) as refused:
        cash_tables.open_cash_table(**(base | options))
    assert words in refused.value.english
    assert not Event.objects.exists() and not CashTable.objects.exists()


def test_the_api_refuses_what_the_record_forbids_with_a_4xx_and_changes_nothing() -> None:
    """A table that is no cash table, outside the record's limits, a closing table, a closed one: 400 with
    the reason in both languages, and not one event or balance changed."""
    anna, bruno = player("anna"), player("bruno")
    for user in (anna, bruno):
        service.grant(user, 2000, "benvenuto", "direttore")
    config = find_game("NT").table_config(
        seats=6, tournament=False, forced=FORCED["NT"], action_time_ms=30_000, time_bank_ms=0
    )
    plain = tables.open_table("no record", config, game="NT").table_id
    table_id = cash_table("NT", minimum=200, maximum=500)
    api = client(anna)
    cases = [
        (plain, {"seat": 0, "amount": 300}, "not a cash table"),
        (table_id, {"seat": 0, "amount": 199}, "minimum buy-in is 200"),
        (table_id, {"seat": 0, "amount": 501}, "maximum buy-in is 500"),
        (table_id, {"seat": 0, "amount": 2001}, "maximum buy-in is 500"),
    ]
    for target, body, words in cases:
        before = everything([anna.pk], target)
        response = api.post(f"/api/cashier/tables/{target}/buy-in/", body, format="json")
        assert response.status_code == 400 and words in response.json()["english"], response.json()
        assert response.json()["detail"] and everything([anna.pk], target) == before
    bought = api.post(f"/api/cashier/tables/{table_id}/buy-in/", {"seat": 0, "amount": 300}, format="json")
    assert bought.status_code == 200
    top = api.post(f"/api/cashier/tables/{table_id}/top-up/", {"amount": 201}, format="json")
    assert top.status_code == 400 and "above the table's maximum (500)" in top.json()["english"]
    # closing during a hand: no buy-in, no top-up; the hand ends and the table closes, anna cashed out
    service.buy_in(bruno, table_id, 1, 400)
    tables.handle(table_id, lambda ld, at: tables.start_command(ld, at, None, seed=b"\x02" * 32))
    assert cash_tables.close_cash_table(table_id, "diego") == "closing"
    carla = player("carla")
    service.grant(carla, 1000, "benvenuto", "direttore")
    before = everything([carla.pk], table_id)
    closing = client(carla).post(
        f"/api/cashier/tables/{table_id}/buy-in/", {"seat": 2, "amount": 300}, format="json"
    )
    assert closing.status_code == 400 and "is closing" in closing.json()["english"]
    assert everything([carla.pk], table_id) == before
    with pytest.raises(ring.CashTableRefused, match="chiusura"):
        cash_tables.close_cash_table(table_id, "diego")


def test_a_table_closed_during_a_hand_closes_when_the_hand_ends_and_cashes_everyone_out(
    django_capture_on_commit_callbacks: Any,
) -> None:
    anna, bruno = player("anna"), player("bruno")
    for user in (anna, bruno):
        service.grant(user, 1000, "benvenuto", "direttore")
    table_id = cash_table("NT")
    service.buy_in(anna, table_id, 0, 400)
    service.buy_in(bruno, table_id, 1, 600)
    rng = random.Random(4)
    tables.handle(table_id, lambda ld, at: tables.start_command(ld, at, None, seed=b"\x03" * 32))
    assert cash_tables.close_cash_table(table_id, "diego") == "closing"
    assert not tables.load(table_id).closed
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(200):
            loaded = tables.load(table_id)
            if not loaded.facts.in_hand:
                break
            tables.handle(
                table_id, lambda ld, at: ld.rules.bot_command(ld.state, min(ld.facts.to_act), rng, at)
            )
    assert tables.load(table_id).closed
    assert CashTable.objects.get(table_id=table_id).status == "closed"
    assert stack_of(table_id, "anna") is None and stack_of(table_id, "bruno") is None
    assert service.balance_of(anna.pk).balance + service.balance_of(bruno.pk).balance == 2000
    assert [e.type for e in read_stream(ring.stream_id(table_id))][-2:] == [
        "CashTableClosing",
        "CashTableClosed",
    ]
    # between hands it closes at once
    other = cash_table("NT")
    service.buy_in(anna, other, 3, 300)
    assert cash_tables.close_cash_table(other, "diego") == "closed"
    assert tables.load(other).closed and stack_of(other, "anna") is None
    with pytest.raises(LedgerRefused):
        service.buy_in(anna, other, 3, 300)


def test_the_lobby_lists_occupancy_average_pot_hands_per_hour_and_waiting() -> None:
    anna, bruno, carla = player("anna"), player("bruno"), player("carla")
    for user in (anna, bruno, carla):
        service.grant(user, 1000, "benvenuto", "direttore")
    table_id = cash_table("NT", seats=6)
    idle = cash_table("PIT", seats=5)
    service.buy_in(anna, table_id, 0, 500)
    service.buy_in(bruno, table_id, 1, 500)
    rng = random.Random(7)
    for number in range(3):
        play_hand(table_id, rng, number + 1)
    cash_tables.join_waiting("carla", table_id=table_id)
    pots = [
        sum(int(e.data["amount"]) for e in read_stream(tables.stream_id(table_id)) if e.type == "PotAwarded")
    ]
    opened = CashTable.objects.get(table_id=table_id).opened_at_ms
    rows = {r.row.table_id: r for r in cash_tables.lobby_rows(now=opened + 30 * 60_000)}
    row = rows[table_id]
    assert (row.seated, row.row.seats, row.waiting) == (2, 6, 1)
    assert row.hands_per_hour == 6  # 3 hands in the table's 30 minutes
    assert row.average_pot == pots[0] // 3 and row.average_pot > 0
    assert (rows[idle].seated, rows[idle].hands_per_hour, rows[idle].average_pot) == (0, 0, 0)
    assert [r.row.table_id for r in cash_tables.lobby_rows(game="PIT")] == [idle]
    assert [r.row.table_id for r in cash_tables.lobby_rows(stakes="NLHE 5/10")] == [table_id]
    # the read models equal their rebuild from the log
    for name in ("cash-tables", "cash-waiting-pools"):
        (projection,) = [p for p in projections.registered() if p.name == name]
        assert projections.differences(projections.computed(projection), projection.current()) == []


def test_back_within_the_hour_a_player_brings_at_least_what_they_left_with() -> None:
    """CASH-RETURN-1: anna leaves with 700 (won 200); within 60 minutes she sits again with at least 700,
    even above the table's maximum (600); after the hour the table's own limits apply again."""
    anna = player("anna")
    service.grant(anna, 2000, "benvenuto", "direttore")
    table_id = cash_table("NT", minimum=100, maximum=600)
    service.buy_in(anna, table_id, 0, 500)
    tables.handle(table_id, lambda ld, at: ld.rules.add_chips_command(0, 200, at))  # as if she had won 200
    out = service.cash_out(anna, table_id)
    assert out.amount == 700
    left_at = service.left_with(anna.pk, table_id)
    assert left_at is not None and left_at[0] == 700
    before = everything([anna.pk], table_id)
    with pytest.raises(ring.ReturnTooShort) as refused:
        service.buy_in(anna, table_id, 0, 600)
    assert "less than an hour ago with 700 chips" in refused.value.english
    assert "meno di un'ora fa con 700" in str(refused.value)
    assert everything([anna.pk], table_id) == before
    # the pure rule: the limits within the hour and after it
    assert ring.return_limits(100, 600, (700, 0), 59 * 60_000) == (700, 700, 700)
    assert ring.return_limits(100, 600, (700, 0), 60 * 60_000) == (100, 600, None)
    assert ring.return_limits(100, 600, (50, 0), 1000) == (100, 600, None)  # left with less than the minimum
    service.buy_in(anna, table_id, 0, 700)  # above the maximum: what she left with
    assert stack_of(table_id, "anna") == 700
    with pytest.raises(OutsideLimits):
        service.buy_in(player("bruno"), table_id, 1, 700)  # another player: the table's maximum


def test_a_seat_freed_goes_first_to_the_first_waiting_player_for_a_while() -> None:
    """CASH-WAIT-1: the table is full; bruno then carla wait; anna stands up: the seat is held for bruno
    (``SeatOffered``), carla may not take it, bruno's notice says so; bruno sits and leaves the list."""
    anna, bruno, carla = player("anna"), player("bruno"), player("carla")
    for user in (anna, bruno, carla):
        service.grant(user, 1000, "benvenuto", "direttore")
    table_id = cash_table("NT", seats=2)
    other = player("dario")
    service.grant(other, 1000, "benvenuto", "direttore")
    service.buy_in(anna, table_id, 0, 300)
    service.buy_in(other, table_id, 1, 300)
    cash_tables.join_waiting("bruno", table_id=table_id)
    cash_tables.join_waiting("carla", table_id=table_id)
    with pytest.raises(ring.CashTableRefused, match="già"):
        cash_tables.join_waiting("carla", table_id=table_id)
    cash_tables.join_waiting("carla", game="NT", stakes="NLHE 5/10")  # and any table of those stakes
    service.cash_out(anna, table_id)
    record = records.load(table_id)
    assert record.offer is not None and record.offer[:2] == ("bruno", 0)
    assert [n.table_id for n in cash_tables.notices("bruno")] == [table_id]
    assert cash_tables.notices("bruno")[0].until == record.offer[2]
    before = everything([carla.pk], table_id)
    with pytest.raises(ring.CashTableRefused) as refused:
        service.buy_in(carla, table_id, 0, 300)
    assert "held for bruno" in refused.value.english and everything([carla.pk], table_id) == before
    service.buy_in(bruno, table_id, 0, 300)
    record = records.load(table_id)
    assert record.waiting == ("carla",) and record.offer is None
    assert CashTable.objects.get(table_id=table_id).waiting == ["carla"]
    # the offer runs out: the next free seat goes to carla, and bruno's expired offer would drop him
    expired = ring.CashTable(table_id, waiting=("bruno", "carla"), offer=("bruno", 0, 1000))
    assert ring.offer(expired, 1, 2000) == (
        ("WaitingListLeft", {"player": "bruno", "reason": "expired"}),
        ("SeatOffered", {"player": "carla", "seat": 1, "until": 2000 + ring.OFFER_MS}),
    )
    cash_tables.leave_waiting("carla", game="NT", stakes="NLHE 5/10")
    with pytest.raises(ring.CashTableRefused):
        cash_tables.leave_waiting("carla", game="NT", stakes="NLHE 5/10")


@pytest.mark.parametrize("code", ["F7S", "PIT"])
def test_in_the_ante_games_a_new_player_is_dealt_in_at_the_next_hand_posting_the_ante(code: str) -> None:
    """The ante games' entry rule (docs/rules-decisions.md): no blinds to wait for; a player who buys in
    between hands is dealt the next hand and posts its ante (invito) like everyone."""
    users = [player(name) for name in ("anna", "bruno", "carla")]
    for user in users:
        service.grant(user, 1000, "benvenuto", "direttore")
    table_id = cash_table(code, seats=5)
    service.buy_in(users[0], table_id, 0, 300)
    service.buy_in(users[1], table_id, 1, 300)
    rng = random.Random(2)
    play_hand(table_id, rng, 1)
    service.buy_in(users[2], table_id, 3, 300)
    mark = tables.load(table_id).version
    play_hand(table_id, rng, 2)
    after = [e for e in read_stream(tables.stream_id(table_id)) if e.version > mark]
    started = next(e for e in after if e.type == "HandStarted")
    assert 3 in started.data["dealt"]
    posted = [e.data["seat"] for e in after if e.type == "ForcedBetPosted" and e.data["kind"] == "ante"]
    invito = [seat for seat, _ in started.data.get("antes", [])]  # poker all'italiana: with the start
    assert 3 in posted + invito, [(e.type, e.data) for e in after[:6]]
    assert chips_at(table_id) + sum(service.balance_of(u.pk).balance for u in users) == 3000


def test_seat_bots_buy_in_from_ledgers_and_verify_all_holds() -> None:
    table_id = cash_table("NT", minimum=100, maximum=400)
    seated = cash_tables.seat_bots(table_id, 2, "diego")
    assert seated == ["bot-1", "bot-2"]
    assert stack_of(table_id, "bot-1") == 400 and stack_of(table_id, "bot-2") == 400
    assert access.BOT in {g.name for g in Group.objects.filter(user__username="bot-1")}
    report = verify()
    assert report.ok, report.failures
