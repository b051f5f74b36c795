"""``manage.py demo`` (run by ``make run``): its banner gives the address the web process listens on
(issue 15, defect 13: it printed ``:8000`` whatever ``MAZZIERE_PORT`` said)."""

from __future__ import annotations

import random
import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.utils.html import escape

from engine.core import GameFamily
from engine.tournament import mtt as mtt_decider
from eventstore.store import read_stream
from tables import access
from tables import service as tables
from tournaments import labels, service
from tournaments.management.commands.demo import DEMO_NAME, HOLDEM_NAME
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_passwords(settings) -> None:  # type: ignore[no-untyped-def]
    """The demo sets four passwords: hash them quickly (the hasher is not what is tested here)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def banner() -> str:
    out = StringIO()
    call_command("demo", stdout=out)
    return out.getvalue()


def test_bug_the_banner_gives_the_port_of_the_web_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAZZIERE_PORT", "8020")
    monkeypatch.delenv("MAZZIERE_HOST", raising=False)
    text = banner()
    tournament = Tournament.objects.get(name=DEMO_NAME)
    assert "Mazziere is running at http://127.0.0.1:8020/\n" in text
    assert f"demo sit-and-go: http://127.0.0.1:8020/tournaments/{tournament.id}/ " in text
    assert ":8000" not in text


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        (None, None, "http://127.0.0.1:8000/"),  # the Procfile's defaults
        ("", "", "http://127.0.0.1:8000/"),  # empty = unset, as ${VAR:-default} in the shell
        ("192.168.1.20", "9000", "http://192.168.1.20:9000/"),
        ("0.0.0.0", "8020", "http://127.0.0.1:8020/"),  # every interface: open it on this machine
        ("::", "8020", "http://[::1]:8020/"),
        ("::1", "8020", "http://[::1]:8020/"),  # an IPv6 literal in brackets (RFC 3986)
        ("mazziere.example", "80", "http://mazziere.example:80/"),
    ],
)
def test_the_banner_follows_mazziere_host_and_port(
    monkeypatch: pytest.MonkeyPatch, host: str | None, port: str | None, url: str
) -> None:
    for name, value in (("MAZZIERE_HOST", host), ("MAZZIERE_PORT", port)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    assert f"Mazziere is running at {url}\n" in banner()


@pytest.mark.parametrize("port", ["abc", "0", "65536", "-1", "80.5"])
def test_a_port_that_is_not_a_port_is_an_error_and_creates_nothing(
    monkeypatch: pytest.MonkeyPatch, port: str
) -> None:
    monkeypatch.setenv("MAZZIERE_PORT", port)
    message = f"MAZZIERE_PORT must be a port number from 1 to 65535, not '{port}'"
    with pytest.raises(CommandError, match=re.escape(message)):
        banner()
    assert not Tournament.objects.exists() and not get_user_model().objects.exists()


def test_url_overrides_the_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAZZIERE_PORT", "abc")  # not read when --url is given
    out = StringIO()
    call_command("demo", "--url", "https://poker.example/", stdout=out)
    assert "Mazziere is running at https://poker.example/\n" in out.getvalue()


# --- issue 17: the lobby offers a hold'em sit-and-go beside the Italian one ------------------------------


def test_the_demo_offers_a_holdem_sit_and_go_beside_the_italian_one(client) -> None:  # type: ignore[no-untyped-def]
    """Two open 6-seat sit-and-gos, each with five bots of its own and one free seat: poker all'italiana
    (PIT, invito 10) and no-limit hold'em (NT, blinds 10/20 rising; TH-1). The lobby lists both with their
    game; a second run creates nothing new."""
    text = banner()
    italian = Tournament.objects.get(name=DEMO_NAME)
    holdem = Tournament.objects.get(name=HOLDEM_NAME)
    assert f"hold'em sit-and-go: http://127.0.0.1:8000/tournaments/{holdem.id}/ " in text
    for tournament in (italian, holdem):
        assert tournament.status == "registering" and tournament.config["seats"] == 6
        assert len(tournament.players) == 5
        assert set(get_user_model().objects.filter(username__in=tournament.players, groups__name=access.BOT)
                   .values_list("username", flat=True)) == set(tournament.players)  # fmt: skip
    assert not set(italian.players) & set(holdem.players), "a bot sits in both"
    assert holdem.config["game"] == "NT" and holdem.config["starting_stack"] == 1500
    assert holdem.config["levels"][0]["forced"]["small_blind"] == 10
    assert holdem.config["levels"][0]["forced"]["big_blind"] == 20
    assert labels.tournament_game(italian.config) == "PIT"
    banner()  # idempotent
    assert Tournament.objects.count() == 3  # and the poker cinese demo (issue 20)

    client.force_login(get_user_model().objects.get(username="ospite"))
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for tournament, shown in ((italian, "invito 10"), (holdem, "10/20")):
        found = re.search(rf'<tr data-tournament="{tournament.id}">(.*?)</tr>', page, re.S)
        assert found is not None, page
        assert escape(tournament.name) in found.group(1)
        forced = re.search(r"<td data-forced-bets>(.*?)</td>", found.group(1), re.S)
        assert forced is not None and shown in forced.group(1), found.group(1)
        assert "Register" in found.group(1)


@pytest.mark.django_db(transaction=True)
def test_the_holdem_demo_starts_when_a_person_takes_the_free_seat_and_its_bots_play_holdem() -> None:
    """Registering the sixth player starts the hold'em demo (auto start) at a hold'em table whose bots move
    with the game's own ``bot_command`` (the registry's: legal hold'em commands, TH-1)."""
    banner()
    holdem = Tournament.objects.get(name=HOLDEM_NAME)
    state = service.register(holdem.id, "ospite")
    holdem.refresh_from_db()
    assert holdem.status == "running" and holdem.table_id and mtt_decider.current_game(state) == "NT"
    loaded = tables.load(holdem.table_id)
    assert loaded.game == "NT" and loaded.rules.family is GameFamily.HOLDEM
    stacks = {o.player: o.stack for o in loaded.facts.seats if o is not None}
    assert stacks == {player: 1500 for player in holdem.players}
    # the table's bots act in hold'em through the registry's bot (the first hand, to its end)
    rng = random.Random(3)
    tables.handle(holdem.table_id, lambda loaded, at: tables.start_command(loaded, at, None))
    moves = 0
    while tables.load(holdem.table_id).facts.in_hand and moves < 200:
        tables.handle(
            holdem.table_id,
            lambda loaded, at: loaded.rules.bot_command(loaded.state, min(loaded.facts.to_act), rng, at),
        )
        moves += 1
    events = read_stream(tables.stream_id(holdem.table_id))
    kinds = [e.type for e in events]
    assert "HandEnded" in kinds and moves > 0, kinds
    posted = {(e.data["kind"], e.data["amount"]) for e in events if e.type == "ForcedBetPosted"}
    assert {("small_blind", 10), ("big_blind", 20)} <= posted, posted


def test_the_demo_offers_a_knockout_of_poker_cinese_matches_with_its_bots() -> None:
    """Issue 20: a registering knockout of poker cinese matches with seven bots, reused by a second run."""
    from tournaments.management.commands.demo import CINESE_NAME

    text = banner()
    tournament = Tournament.objects.get(name=CINESE_NAME)
    assert tournament.kind == "matches" and tournament.status == "registering"
    assert tournament.players == [f"bot-{n}" for n in range(11, 18)]
    assert f"poker cinese: http://127.0.0.1:8000/tournaments/{tournament.id}/ " in text
    banner()
    assert Tournament.objects.filter(name=CINESE_NAME).count() == 1
