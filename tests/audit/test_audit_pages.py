"""The auditor pages (issue 6 §5): search, stream, hand replayer and verification report, for auditors and
directors only; and no card of a hand in progress shown to an auditor or a director anywhere (table page,
API, socket, audit pages) until the hand has ended.

Most tests share one finished 12-bot multi-table tournament (:func:`finished`, played once per module and
committed; each test runs in a transaction rolled back after it, so a forged event does not outlive its
test). The live-hand test plays a hand step by step at a table of its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from audit import hands
from audit import views as audit_views
from config.routing import websocket_urlpatterns
from engine.italian.model import HandStarted
from eventstore.store import RecordedEvent, read_stream, stream_version
from tables import access, service, timers
from tables.inprocess import celery_worker, subscribers, timekeeper
from tables.models import Table
from tests.service_harness import error_records
from tests.tables.helpers import (
    WebsocketCommunicator,
    body,
    bot_moves,
    decline_blinds,
    open_three,
    start_hand,
)
from tournaments.simulation import play

SEED = 6
STEP = re.compile(
    r'<section class="replay-step" data-step="(\d+)" data-version="(\d+)"[^>]*>(.*?)</section>', re.S
)
SEAT_ROW = re.compile(r'<tr data-seat="(\d+)" data-player="([^"]*)" data-stack="(\d+)"[^>]*>(.*?)</tr>', re.S)
CARD = re.compile(r'data-card="(\w\w)"')
TAG = re.compile(r"<[^>]*>")


# --- the shared tournament ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Finished:
    """The module's tournament and, at one of its tables, the hand with the most events (a hand to replay)."""

    tournament_id: int
    table_id: int
    hand: hands.Hand
    recorded: tuple[RecordedEvent, ...]  # the hand's events as stored

    @property
    def stream(self) -> str:
        return f"table-{self.table_id}"

    def of_type(self, kind: str) -> list[RecordedEvent]:
        return [e for e in self.recorded if e.type == kind]


@pytest.fixture(scope="module")
def finished(django_db_setup: None, django_db_blocker: Any) -> Iterator[Finished]:
    """A 12-bot tournament played to its end by the live service (worker, timekeeper, subscribers threads),
    committed for the whole module; the database is emptied after the module."""
    with django_db_blocker.unblock():
        saved = {
            name: getattr(settings, name)
            for name in ("MAZZIERE_TIMERS", "MAZZIERE_BOT_THINK", "MAZZIERE_NEXT_HAND_DELAY")
        }
        settings.MAZZIERE_TIMERS, settings.MAZZIERE_BOT_THINK, settings.MAZZIERE_NEXT_HAND_DELAY = (
            "celery",
            0.0,
            0.0,
        )
        service.forget_cache()
        timers.is_bot.cache_clear()
        try:
            with ExitStack() as stack:
                stack.enter_context(celery_worker())
                errors = stack.enter_context(error_records())
                stack.enter_context(subscribers())
                stack.enter_context(timekeeper())
                played = play(
                    12, seed=SEED, fast_clock=True, timeout_s=300, starting_stack=300, level_ms=3_000
                )
                assert played.finished
                assert not errors.records, errors.text()
        finally:
            for name, value in saved.items():
                setattr(settings, name, value)
            service.forget_cache()
            timers.is_bot.cache_clear()
        table_ids = (
            Table.objects.filter(tournament_id=played.tournament_id)
            .order_by("id")
            .values_list("id", flat=True)
        )
        best: tuple[int, hands.Hand, list[RecordedEvent]] | None = None
        for table_id in table_ids:
            events = read_stream(f"table-{table_id}")
            for hand in hands.hands(table_id, events):
                if best is None or len(hand.events) > len(best[1].events):
                    best = (table_id, hand, events)
        assert best is not None
        table_id, hand, events = best
        recorded = tuple(e for e in events if hand.first_version <= e.version <= hand.last_version)
        for name in access.GROUPS:
            Group.objects.get_or_create(name=name)
    yield Finished(played.tournament_id, table_id, hand, recorded)
    with django_db_blocker.unblock():
        call_command("flush", interactive=False, verbosity=0)
        service.forget_cache()
        # back to a pool of min_size connections: the worker's threads left more in it, and the end of the
        # test run drops the database right after closing the pool, before every closed one has gone
        connection.close_pool()


def user(name: str, *groups: str) -> Any:
    account, _ = get_user_model().objects.get_or_create(username=name)
    for group in groups:
        account.groups.add(Group.objects.get_or_create(name=group)[0])
    return account


def client(account: Any) -> Client:
    web = Client()
    if account is not None:
        web.force_login(account)
    return web


@pytest.fixture
def auditor(db: None) -> Client:
    return client(user("aldo", access.AUDITOR))


def html(response: Any) -> str:
    assert response.status_code == 200, (response.status_code, response.content[:500])
    return response.content.decode()


def local(moment: Any) -> str:
    """A time as the search form's ``datetime-local`` field sends it (minutes, the site's time zone)."""
    return timezone.localtime(moment).strftime("%Y-%m-%dT%H:%M")


# --- search -------------------------------------------------------------------------------------------------


def listed_hands(page: str, stream: str) -> list[int]:
    """The hand numbers the search page links in the row of ``stream``, in the page's order."""
    found = re.search(rf'<tr data-stream="{stream}">(.*?)</tr>', page, re.S)
    assert found, f"{stream} is not listed"
    return [int(n) for n in re.findall(r'data-hand="(\d+)"', found.group(1))]


def matching_hands(
    finished: Finished, player: str | None = None, window: dict[str, str] | None = None
) -> list[int]:
    """The finished hands of the module's table that a search matches, computed from the log without the
    page's code (``player`` dealt in; the hand's first to last event overlapping the form's ``window``),
    newest first. The page links the first :data:`audit.views.HANDS_SHOWN` of them."""
    bounds = {
        name: timezone.make_aware(datetime.strptime(text, "%Y-%m-%dT%H:%M"))
        for name, text in (window or {}).items()
    }
    events = read_stream(finished.stream)
    at = {e.version: e.recorded_at for e in events}
    numbers = []
    for hand in hands.hands(finished.table_id, events):
        started = next(e for e in hand.events if isinstance(e, HandStarted))
        dealt = {occupant.player for seat in started.dealt if (occupant := hand.before.seats[seat])}
        if player is not None and player not in dealt:
            continue
        if "since" in bounds and at[hand.last_version] < bounds["since"]:
            continue
        if "until" in bounds and at[hand.first_version] > bounds["until"]:
            continue
        numbers.append(hand.number)
    return numbers[::-1]


@pytest.mark.slow
@pytest.mark.django_db
def test_search_by_player_tournament_table_and_time(finished: Finished, auditor: Client) -> None:
    started = finished.of_type("HandStarted")[0]
    seats = {i: o.player for i, o in enumerate(finished.hand.before.seats) if o is not None}
    player = seats[started.data["dealt"][0]]
    shown = audit_views.HANDS_SHOWN
    mine = matching_hands(finished, player)
    assert finished.hand.number in mine

    # a table links its latest matching hands, at most HANDS_SHOWN (the page says where the rest are)
    page = html(auditor.get("/audit/", {"player": player}))
    assert f'data-stream="mtt-{finished.tournament_id}"' in page
    assert listed_hands(page, finished.stream) == mine[:shown]
    more = f'class="muted more-hands" data-hand-count="{len(mine)}"'
    assert (more in page) == (len(mine) > shown)
    assert 'data-stream="table-' in page and page.count('data-stream="mtt-') == 1

    page = html(auditor.get("/audit/", {"tournament": str(finished.tournament_id)}))
    tables = Table.objects.filter(tournament_id=finished.tournament_id)
    assert f'data-stream="mtt-{finished.tournament_id}"' in page
    assert all(f'data-stream="table-{t.id}"' in page for t in tables)
    assert listed_hands(page, finished.stream) == matching_hands(finished)[:shown]
    page = html(auditor.get("/audit/", {"tournament": "simulazione 12"}))  # part of the name, any case
    assert f'data-stream="mtt-{finished.tournament_id}"' in page

    page = html(auditor.get("/audit/", {"table": finished.table_id}))
    assert f'data-stream="{finished.stream}"' in page and page.count('data-stream="table-') == 1
    assert f'data-stream="mtt-{finished.tournament_id}"' in page

    # the hand's time window finds it; a window long before finds nothing
    window = {
        "since": local(started.recorded_at - timedelta(minutes=1)),
        "until": local(started.recorded_at + timedelta(minutes=2)),
    }
    in_window = matching_hands(finished, player, window)
    assert finished.hand.number in in_window
    page = html(auditor.get("/audit/", {"player": player, **window}))
    assert listed_hands(page, finished.stream) == in_window[:shown]
    page = html(auditor.get("/audit/", {"player": player, "until": "2000-01-01T00:00"}))
    assert 'data-stream="table-' not in page and 'data-stream="mtt-' not in page
    page = html(auditor.get("/audit/", {"player": "nessuno-mai-seduto"}))
    assert 'data-stream="table-' not in page
    # the stream's numbers: events (its last version) and times
    stats = re.search(
        rf'<tr data-stream="{finished.stream}">(.*?)</tr>',
        html(auditor.get("/audit/", {"table": finished.table_id})),
        re.S,
    )
    assert stats and f'<td class="num">{stream_version(finished.stream)}</td>' in stats.group(1)


# --- the stream page ----------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db
def test_stream_page_lists_events_and_hands(finished: Finished, auditor: Client) -> None:
    version = finished.hand.first_version
    page = html(auditor.get(f"/audit/streams/{finished.stream}/", {"from": version}))
    last = min(stream_version(finished.stream), version + 99)  # a page: 100 events from ?from=
    assert f'id="v{version}"' in page and f'id="v{last}"' in page
    assert f'id="v{version - 1}"' not in page and f'id="v{last + 1}"' not in page
    assert 'class="bad"' not in page
    assert "HandStarted" in page and "data-running" not in page
    assert f'href="/audit/tables/{finished.table_id}/hands/{finished.hand.number}/"' in page
    # the event's hash, as stored
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT encode(hash, 'hex') FROM eventstore_event WHERE stream_id = %s AND version = %s",
            [finished.stream, version],
        )
        assert cursor.fetchone()[0] in page
    tournament = html(auditor.get(f"/audit/streams/mtt-{finished.tournament_id}/"))
    assert 'id="v1"' in tournament and f'href="/audit/streams/{finished.stream}/"' in tournament
    assert auditor.get("/audit/streams/table-999999/").status_code == 404


# --- the replayer -------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db
def test_replayer_shows_every_step_with_every_card(finished: Finished, auditor: Client) -> None:
    page = html(auditor.get(f"/audit/tables/{finished.table_id}/hands/{finished.hand.number}/"))
    steps = STEP.findall(page)
    engine_events = [e for e in finished.recorded if e.type in service.ENGINE_EVENTS]
    assert len(steps) == sum(1 for e in engine_events if e.type != "TurnStarted") >= 10
    assert [int(index) for index, _, _ in steps] == list(range(len(steps)))
    assert page.count('class="replay-step"') == page.count(" hidden>") + 1  # all but the current one hidden
    by_version = {int(version): content for _, version, content in steps}

    # the whole deck, face up
    deck = finished.of_type("HandStarted")[0].data["deck"]
    shown = re.search(r"<code class=\"deck\" data-deck>(.*?)</code>", page)
    assert shown and shown.group(1).split() == deck
    first_stock = re.search(r"<code data-stock>(.*?)</code>", steps[0][2])
    assert first_stock and first_stock.group(1).split() == deck
    # every card dealt, at its seat, from the step that dealt it
    dealt = finished.of_type("CardsDealt")
    assert dealt
    for event in dealt:
        rows = {
            int(seat): CARD.findall(row) for seat, _, _, row in SEAT_ROW.findall(by_version[event.version])
        }
        assert set(event.data["cards"]) <= set(rows[event.data["seat"]]), (event.version, event.data, rows)
    # what each seat held when the hand ended (its cards after the cambio) is on the last step
    last = steps[-1][2]
    final_rows = {
        int(seat): (player, int(stack), CARD.findall(row))
        for seat, player, stack, row in SEAT_ROW.findall(last)
    }
    held: dict[int, set[str]] = {}
    for event in finished.recorded:
        if event.type == "CardsDealt":
            held.setdefault(event.data["seat"], set()).update(event.data["cards"])
        elif event.type == "Discarded":
            held[event.data["seat"]] -= set(event.data["cards"])
    for seat, cards in held.items():
        assert set(final_rows[seat][2]) == cards, (seat, final_rows[seat], cards)

    # the pot and the stacks at the last step are those recorded at the hand's end
    ended = finished.of_type("HandEnded")[0].data
    for seat, chips in ended["stacks"]:
        assert final_rows[seat][1] == chips, (seat, final_rows[seat], chips)
    pot = re.search(r'data-pot="(\d+)"', last)
    assert pot and int(pot.group(1)) == ended["carried"]
    # the players are named, the seed is revealed with its commitment
    assert all(
        final_rows[i][0] == o.player for i, o in enumerate(finished.hand.before.seats) if o is not None
    )
    revealed = finished.of_type("SeedRevealed")[0].data["seed"]
    assert f"<code data-seed>{revealed}</code>" in page
    assert finished.of_type("HandStarted")[0].data["commitment"] in page
    # links: the stream at the hand's first version, the exports
    assert (
        f'href="/audit/streams/{finished.stream}/?from={finished.hand.first_version}#v{finished.hand.first_version}"'
        in page
    )
    assert "/static/js/replayer.js" in page

    assert auditor.get(f"/audit/tables/{finished.table_id}/hands/99999/").status_code == 404
    assert auditor.get("/audit/tables/999999/hands/1/").status_code == 404


# --- verification -------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db
def test_verification_passes_then_catches_a_forged_event(finished: Finished, auditor: Client) -> None:
    page = html(auditor.post("/audit/verify/", {"scope": "tournament", "tournament": finished.tournament_id}))
    assert 'data-verify-result="ok"' in page and 'data-failure="' not in page
    assert f"mtt-{finished.tournament_id}" in page and finished.stream in page  # the head hashes
    page = html(auditor.post("/audit/verify/", {"scope": "all"}))
    assert 'data-verify-result="ok"' in page

    target = finished.of_type("HandEnded")[0].version
    with connection.cursor() as cursor:  # a forger edits the JSON of one event (rolled back after the test)
        cursor.execute(
            "UPDATE eventstore_event SET data = jsonb_set(data, '{carried}', '999') "
            "WHERE stream_id = %s AND version = %s",
            [finished.stream, target],
        )
    for form in (
        {"scope": "table", "table": finished.table_id},
        {"scope": "tournament", "tournament": finished.tournament_id},
    ):
        page = html(auditor.post("/audit/verify/", form))
        assert 'data-verify-result="failed"' in page and 'data-failure="chain"' in page
        link = f"/audit/streams/{finished.stream}/?from={target}&amp;bad={target}#v{target}"
        assert f'href="{link}"' in page, page[page.find("failures") :][:2000]
    stream = html(auditor.get(f"/audit/streams/{finished.stream}/", {"from": target, "bad": target}))
    assert re.search(rf'<tr id="v{target}" class="bad"', stream)
    assert stream.count('class="bad"') == 1 and "999" in stream

    assert auditor.post("/audit/verify/", {"scope": "tournament", "tournament": 999999}).status_code == 400
    assert auditor.post("/audit/verify/", {"scope": "nonsense"}).status_code == 400
    assert 'data-verify="all"' in html(auditor.get("/audit/verify/"))


# --- who may open the pages ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.django_db
def test_verification_against_the_published_heads(finished: Finished, auditor: Client) -> None:
    """Issue 23 §3: the finished tournament's page and API publish its streams' heads; the auditor pastes
    the page's lines or uploads the API's JSON; a stream cut short is then named at its first missing
    version (no other check can tell), and a file cut or edited is refused."""
    results = html(auditor.get(f"/tournaments/{finished.tournament_id}/"))
    found = re.search(r"<pre class=\"heads\" data-chain-lines>(.*?)</pre>", results, re.S)
    assert found is not None
    lines = found.group(1)
    answer = api(user("aldo")).get(f"/api/tournaments/{finished.tournament_id}/").json()
    assert f"{finished.stream} {stream_version(finished.stream)} " in lines
    assert answer["chain_heads"]["digest"] in results and len(answer["chain_heads"]["streams"]) >= 3
    upload = SimpleUploadedFile("heads.json", json.dumps(answer).encode(), "application/json")
    for form in ({"scope": "heads", "heads": lines}, {"scope": "heads", "heads_file": upload}):
        page = html(auditor.post("/audit/verify/", form))
        assert 'data-verify-result="ok"' in page and "<th>published heads</th>" in page, page[:3000]

    cut = dict(answer["chain_heads"], streams=answer["chain_heads"]["streams"][1:])
    refused = auditor.post("/audit/verify/", {"scope": "heads", "heads": json.dumps(cut)})
    assert refused.status_code == 400 and "the digest does not match" in refused.content.decode()
    empty = auditor.post("/audit/verify/", {"scope": "heads", "heads": " "})
    assert empty.status_code == 400 and "Incollate le teste pubblicate" in empty.content.decode()  # Italian

    last = stream_version(finished.stream)
    cut = [e.version for e in read_stream(finished.stream) if e.type == "HandStarted"][-1]
    with connection.cursor() as cursor:  # a forger cuts off the last hand (rolled back after the test)
        for table in ("eventstore_event", "eventstore_snapshot"):  # and the snapshots past the cut
            cursor.execute(
                f"DELETE FROM {table} WHERE stream_id = %s AND version >= %s", [finished.stream, cut]
            )
    page = html(auditor.post("/audit/verify/", {"scope": "table", "table": finished.table_id}))
    rows = re.findall(r'<tr data-failure="\w+">.*?</tr>', page, re.S)
    assert 'data-verify-result="ok"' in page, rows  # the chain that is left holds, and every hand in it
    page = html(auditor.post("/audit/verify/", {"scope": "heads", "heads": lines}))
    assert 'data-verify-result="failed"' in page and page.count('data-failure="') == 1
    link = f"/audit/streams/{finished.stream}/?from={cut}&amp;bad={cut}#v{cut}"
    assert 'data-failure="head"' in page and f'href="{link}"' in page
    assert f"the stream ends at version {cut - 1}, the published head is at version {last}" in page


@pytest.mark.slow
@pytest.mark.django_db
def test_only_auditors_and_directors_open_the_audit_pages(finished: Finished) -> None:
    pages = [
        "/audit/",
        f"/audit/?player=x&tournament={finished.tournament_id}",
        f"/audit/streams/{finished.stream}/",
        f"/audit/streams/mtt-{finished.tournament_id}/",
        f"/audit/tables/{finished.table_id}/hands/{finished.hand.number}/",
        "/audit/verify/",
    ]
    verify_form = {"scope": "table", "table": finished.table_id}
    player = client(user("pia", access.PLAYER))
    nobody = client(user("nemo"))
    for web in (player, nobody):
        for url in pages:
            response = web.get(url)
            assert response.status_code == 403, url
            assert 'data-status="403"' in response.content.decode()
        assert web.post("/audit/verify/", verify_form).status_code == 403
    anonymous = Client()
    for url in pages:
        response = anonymous.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next="), url
    assert anonymous.post("/audit/verify/", verify_form).status_code == 302
    for web in (client(user("diego", access.DIRECTOR)), client(user("aldo", access.AUDITOR))):
        for url in pages:
            assert web.get(url).status_code == 200, url
    # the navigation and the tournament page link to the audit pages for them only
    director = client(user("diego", access.DIRECTOR))
    assert 'href="/audit/"' in html(director.get("/"))
    assert 'href="/audit/"' not in html(player.get("/"))
    detail = html(director.get(f"/tournaments/{finished.tournament_id}/"))
    assert f'href="/audit/streams/mtt-{finished.tournament_id}/"' in detail
    assert f'href="/audit/streams/mtt-{finished.tournament_id}/"' not in html(
        player.get(f"/tournaments/{finished.tournament_id}/")
    )


# --- a hand in progress -------------------------------------------------------------------------------------


def leaked(text: str, secret: set[str]) -> set[str]:
    """The cards of ``secret`` that ``text`` (a page, JSON, a socket message) shows: as a card image, a
    ``data-card``, a JSON string (escaped in HTML or not) or a two-character word of the text."""
    words = set(re.findall(r"\b\w{2}\b", TAG.sub(" ", text)))
    return {
        code
        for code in secret
        if f"cards/{code}.svg" in text
        or f'data-card="{code}"' in text
        or f'"{code}"' in text
        or f"&quot;{code}&quot;" in text
        or code in words
    }


def socket_message(table_id: int, account: Any) -> str:
    async def first() -> str:
        communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/tables/{table_id}/")
        communicator.scope["user"] = account
        connected, code = await communicator.connect(timeout=5)
        assert connected, code
        try:
            return str(await communicator.receive_from(timeout=5))
        finally:
            await communicator.disconnect()

    return async_to_sync(first)()


@pytest.mark.django_db(transaction=True)
def test_no_hidden_card_of_a_live_hand_for_auditors_and_directors() -> None:
    service.forget_cache()
    watchers = {"aldo": user("aldo", access.AUDITOR), "diego": user("diego", access.DIRECTOR)}
    table_id = open_three("Dal vivo")
    start_hand(table_id)
    decline_blinds(table_id)  # the cards are dealt: the opening round
    stream = f"table-{table_id}"
    started = next(e for e in read_stream(stream) if e.type == "HandStarted")
    deck = set(started.data["deck"])
    assert len(deck) >= 20 and any(e.type == "CardsDealt" for e in read_stream(stream))

    checks: list[Callable[[Any], tuple[str, str]]] = [
        lambda a: ("page", html(client(a).get(f"/tables/{table_id}/"))),
        lambda a: ("api", html(api(a).get(f"/api/tables/{table_id}/"))),
        lambda a: ("socket", socket_message(table_id, a)),
        lambda a: ("stream", html(client(a).get(f"/audit/streams/{stream}/"))),
        lambda a: (
            "stream from the hand",
            html(client(a).get(f"/audit/streams/{stream}/", {"from": started.version})),
        ),
        lambda a: ("search", html(client(a).get("/audit/", {"table": table_id}))),
    ]
    for name, account in watchers.items():
        for check in checks:
            what, text = check(account)
            assert not leaked(text, deck), f"{name} sees {sorted(leaked(text, deck))} on the {what}"
        stream_page = html(client(account).get(f"/audit/streams/{stream}/"))
        assert "data-running" in stream_page and "HandStarted" not in stream_page
        assert f'id="v{started.version - 1}"' in stream_page
        replay = client(account).get(f"/audit/tables/{table_id}/hands/1/")
        assert replay.status_code == 404 and not leaked(replay.content.decode(), deck)

    # an auditor cannot act: refused, nothing appended
    version = stream_version(stream)
    for account in watchers.values():
        response = api(account).post(f"/api/tables/{table_id}/act/", body("check", version), format="json")
        assert response.status_code == 403, response.content
    assert stream_version(stream) == version

    # the hand is played to its end: now everything is shown to them
    next_move = bot_moves(table_id)
    while (move := next_move()) is not None:
        player, fields = move
        service.act(
            table_id, player, fields.pop("action"), expected_version=service.load(table_id).version, **fields
        )
    assert service.load(table_id).state.hand is None
    for account in watchers.values():
        page = html(client(account).get(f"/audit/tables/{table_id}/hands/1/"))
        assert leaked(page, deck) == deck
        assert set(re.search(r"<code class=\"deck\" data-deck>(.*?)</code>", page).group(1).split()) == deck  # type: ignore[union-attr]
        stream_page = html(client(account).get(f"/audit/streams/{stream}/"))
        assert "data-running" not in stream_page and "HandStarted" in stream_page
    service.forget_cache()


def api(account: Any) -> APIClient:
    web = APIClient()
    web.force_login(account)
    return web
