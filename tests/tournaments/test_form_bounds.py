"""Absurd numbers in the director's forms (issue 15 §8): each value from the issue gets a message on its field
(400) and creates nothing; the largest accepted values run (create, fill, start) without a database error;
the dashboard's clock adjustment refuses ``inf``, ``nan`` and ``1e400`` with a message and appends nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from engine.tournament.mtt import Level, MttConfig
from eventstore.models import Event
from eventstore.store import read_stream
from tables import access
from tournaments import forms, mtt
from tournaments.models import Tournament

SITGO = {
    "name": "Assurdo", "seats": 2, "limit": "PL", "starting_stack": 1000, "structure": "turbo",
    "level_minutes": 0, "action_seconds": 30, "time_bank_seconds": 0, "bots": 1, "auto_start": "on",
}  # fmt: skip
MTT = {
    "name": "Assurdo", "seats": 6, "limit": "PL", "starting_stack": 1000, "buy_in": 10,
    "structure": "regular", "custom_levels": "", "level_minutes": "", "late_registration_levels": 0,
    "max_entries": 1,
    "action_seconds": 30, "time_bank_seconds": 0, "percent_paid": 15, "payout_percentages": "", "bots": 2,
}  # fmt: skip


def account(name: str, group: str) -> User:
    user = User.objects.create_user(name)
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


@pytest.fixture
def director(db: None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(account("capo", access.DIRECTOR))
    return client


def refused(director: Client, url: str, fields: dict[str, Any], field: str, fragment: str) -> None:
    answer = director.post(url, fields)
    assert answer.status_code == 400, answer.status_code
    errors = answer.context["form"].errors
    assert field in errors and fragment in " ".join(errors[field]), errors
    assert fragment in answer.content.decode()  # the page shows it
    assert not Tournament.objects.exists() and not Event.objects.exists()


@pytest.mark.parametrize(
    ("change", "field", "fragment"),
    [
        ({"level_minutes": 10**17}, "level_minutes", "less than or equal to 1440"),
        ({"starting_stack": 10**30}, "starting_stack", "less than or equal to 100000000"),
        ({"starting_stack": "9" * 300}, "starting_stack", "less than or equal to 100000000"),
    ],
    ids=["level_minutes=1e17", "stack=1e30", "stack of 300 digits"],
)
def test_sit_and_go_form_refuses_absurd_numbers(
    director: Client, change: dict, field: str, fragment: str
) -> None:
    refused(director, "/tournaments/new/", {**SITGO, **change}, field, fragment)


@pytest.mark.parametrize(
    ("change", "field", "fragment"),
    [
        ({"structure": "custom", "custom_levels": "2147483648 10"}, "custom_levels", "1 to 1000000000"),
        ({"structure": "custom", "custom_levels": f"{10**30} 10"}, "custom_levels", "1 to 1000000000"),
        ({"starting_stack": 10**30}, "starting_stack", "less than or equal to 100000000"),
        ({"starting_stack": "9" * 300}, "starting_stack", "less than or equal to 100000000"),
        ({"level_minutes": "1e300"}, "level_minutes", "less than or equal to 1440"),
        ({"level_minutes": "inf"}, "level_minutes", "Enter a number"),
        ({"level_minutes": "nan"}, "level_minutes", "Enter a number"),
        ({"level_minutes": "1e400"}, "level_minutes", "Enter a number"),
        ({"level_minutes": "0.001"}, "level_minutes", "at least 1 second"),
        ({"structure": "custom", "custom_levels": "10 inf"}, "custom_levels", "from 1 second to 1440"),
        ({"structure": "custom", "custom_levels": "10 1e400"}, "custom_levels", "from 1 second to 1440"),
        ({"structure": "custom", "custom_levels": "10 nan"}, "custom_levels", "from 1 second to 1440"),
        ({"structure": "custom", "custom_levels": "10 1e300"}, "custom_levels", "from 1 second to 1440"),
        ({"structure": "custom", "custom_levels": "10 10\n" * 10_000}, "custom_levels", "at most 5000"),
        ({"structure": "custom", "custom_levels": "10 10\n" * 101}, "custom_levels", "At most 100 levels"),
        ({"payout_percentages": ",".join(["0.1"] * 1000)}, "payout_percentages", "at most 1000"),
        ({"payout_percentages": ",".join(["1"] * 100 + ["0"])}, "payout_percentages", "At most 100 paid"),
        ({"buy_in": 10**30}, "buy_in", "less than or equal to 1000000000"),
        ({"late_registration_levels": 10**30}, "late_registration_levels", "less than or equal to 100"),
    ],
    ids=[
        "invito 2^31", "invito 1e30", "stack 1e30", "stack of 300 digits", "level_minutes 1e300",
        "level_minutes inf", "level_minutes nan", "level_minutes 1e400", "level_minutes 0.001",
        "level line inf", "level line 1e400", "level line nan", "level line 1e300", "10,000 level lines",
        "101 level lines", "1,000 payout places", "101 payout places", "buy-in 1e30",
        "late registration 1e30",
    ],
)  # fmt: skip
def test_mtt_form_refuses_absurd_numbers(director: Client, change: dict, field: str, fragment: str) -> None:
    refused(director, "/tournaments/new-mtt/", {**MTT, **change}, field, fragment)


def test_in_italian_the_messages_are_italian(director: Client) -> None:
    director.defaults["HTTP_ACCEPT_LANGUAGE"] = "it"
    answer = director.post("/tournaments/new-mtt/", {**MTT, "structure": "custom", "custom_levels": "10 inf"})
    assert answer.status_code == 400
    assert "Riga 1: un livello dura da 1 secondo a 1440 minuti." in answer.content.decode()


def test_the_largest_sit_and_go_fills_and_starts(director: Client) -> None:
    """The maxima together (a day per level, 10^8 chips): the registration that fills the table starts it,
    which failed with "bigint out of range" for a level of 10^17 seconds (the length is in minutes now, as in
    the multi-table form: issue 18)."""
    fields = {**SITGO, "level_minutes": forms.MAX_LEVEL_MINUTES, "starting_stack": forms.MAX_STACK}
    answer = director.post("/tournaments/new/", fields)
    assert answer.status_code == 302, answer.context["form"].errors
    tournament = Tournament.objects.get()
    assert tournament.status == "registering" and len(tournament.players) == 1
    player = Client()
    player.force_login(account("ospite", access.PLAYER))
    assert player.post(f"/tournaments/{tournament.id}/register/").status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == "running"
    assert tournament.ends_at_ms - tournament.started_at_ms == 86_400_000


def test_the_largest_multi_table_tournament_starts(director: Client) -> None:
    """10^8 chips with the regular preset: its last invito (5 × the stack) still fits the integer column."""
    fields = {**MTT, "starting_stack": forms.MAX_STACK, "buy_in": forms.MAX_BUY_IN, "level_minutes": 1440}
    answer = director.post("/tournaments/new-mtt/", fields)
    assert answer.status_code == 302, answer.context["form"].errors
    tournament = Tournament.objects.get()
    assert max(level["invito"] for level in tournament.config["levels"]) == 5 * forms.MAX_STACK
    mtt.start(tournament.id, "capo", seed=bytes(32))
    tournament.refresh_from_db()
    assert tournament.status == "running" and tournament.invito >= 1
    assert tournament.ends_at_ms - tournament.started_at_ms == 1440 * 60_000


# --- the dashboard's clock adjustment ---------------------------------------------------------------------


@pytest.fixture
def running(director: Client) -> int:
    for name in ("p1", "p2"):
        account(name, access.PLAYER)
    levels = (Level(10, 600_000), Level(20, 600_000))
    config = MttConfig("Serale", seats=2, starting_stack=1000, levels=levels)
    tournament_id = mtt.create(config, "capo", ["p1", "p2"])
    mtt.start(tournament_id, "capo", seed=bytes(32))
    return tournament_id


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"action": "adjust_clock", "minutes": "inf"}, "Minutes: Enter a number."),
        ({"action": "adjust_clock", "minutes": "1e400"}, "Minutes: Enter a number."),
        ({"action": "adjust_clock", "minutes": "nan"}, "Minutes: Enter a number."),
        ({"action": "adjust_clock", "minutes": "1e300"}, "Minutes: Ensure this value is less than or equal"),
        ({"action": "adjust_clock", "minutes": "-1e300"}, "Minutes: Ensure this value is greater than or"),
        ({"action": "move", "player": "p1", "table": "1" * 30, "seat": "1"}, "Table: Ensure this value"),
        ({"action": "move", "player": "p1", "table": "uno", "seat": "1"}, "Table: Enter a whole number."),
        ({"action": "move", "player": "p1", "table": "1", "seat": "99"}, "Seat: Ensure this value"),
        ({"action": "chips", "player": "p1", "delta": str(10**30), "reason": "x"}, "Chips: Ensure this"),
    ],
)
def test_the_dashboard_refuses_absurd_control_numbers(
    director: Client, running: int, fields: dict[str, str], fragment: str
) -> None:
    before = len(read_stream(mtt.stream_id(running)))
    answer = director.post(f"/tournaments/{running}/control/", fields, HTTP_HX_REQUEST="true")
    assert answer.status_code == 422
    assert fragment in answer.content.decode(), answer.content.decode()
    assert len(read_stream(mtt.stream_id(running))) == before


def test_the_dashboard_adjusts_the_clock_by_a_day_at_most(director: Client, running: int) -> None:
    fields = {"action": "adjust_clock", "minutes": "1440"}
    answer = director.post(f"/tournaments/{running}/control/", fields, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    last = read_stream(mtt.stream_id(running))[-1]
    assert last.type == "ClockAdjusted" and last.data["delta_ms"] == 86_400_000
