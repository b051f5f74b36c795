"""Poker cinese tables through the service (issue 20): the director opens them, players join, a match of
three games plays on the table's stream, arrangements come through the API (``rows`` and ``stakes``), drafts
and the solver's suggestion are the player's own, the time-out arranges with the solver (CN-TIME-1), and
every token is accounted for (CN-4, CN-5). Timers are off: the tests start games and run the time-out
runner themselves."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.routing import URLRouter

from config.routing import websocket_urlpatterns
from engine.core import find_game
from engine.core.forced import ForcedBets
from eventstore.models import Event
from tables import access, broadcast, service, tasks
from tests.service_harness import game_speed, live_service  # noqa: F401 - fixtures
from tests.tables.helpers import WebsocketCommunicator, body, seed_bytes

pytestmark = pytest.mark.django_db

TOKENS = (0, 1, 1, 2, 2, 2, 3, 3, 4)
NAMES = ("anna", "bruno", "carla", "dora")


@pytest.fixture
def cinese_players(user_factory: Any) -> dict[str, Any]:
    return {name: user_factory(username=name, groups=[access.PLAYER]) for name in NAMES}


def open_body(**changes: Any) -> dict[str, Any]:
    return {"name": "Cinese", "game": "CN", "seats": 2, **changes}


def open_table(api_as: Callable[[Any], Any], director: Any, **changes: Any) -> int:
    response = api_as(director).post("/api/tables/", open_body(**changes), format="json")
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def join(api_as: Callable[[Any], Any], user: Any, table_id: int) -> Any:
    return api_as(user).post(f"/api/tables/{table_id}/join/")


def start_game(table_id: int, seed: int = 3) -> service.Loaded:
    """Start the next game with a fixed shuffle (what the start timer does with a fresh seed)."""
    outcome = service.handle(
        table_id, lambda loaded, at: service.start_command(loaded, at, None, seed=seed_bytes(seed))
    )
    assert outcome.loaded.state.hand is not None
    return outcome.loaded


def seated_table(api_as: Callable[[Any], Any], director: Any, users: list[Any], **changes: Any) -> int:
    table_id = open_table(api_as, director, seats=len(users), **changes)
    for user in users:
        assert join(api_as, user, table_id).status_code == 200
    return table_id


def suggest(api_as: Callable[[Any], Any], user: Any, table_id: int) -> dict[str, Any]:
    response = api_as(user).get(f"/api/tables/{table_id}/suggest/")
    assert response.status_code == 200, response.content
    return dict(response.json())


def submit(api_as: Callable[[Any], Any], user: Any, table_id: int, rows: Any, stakes: Any) -> Any:
    version = service.load(table_id).version
    return api_as(user).post(
        f"/api/tables/{table_id}/act/",
        body("submit", version, rows=rows, stakes=stakes),
        format="json",
    )


def tokens_accounted(table_id: int) -> None:
    """Every token of the match is unused, won (victory points) or discarded by a row nobody took (CN-4)."""
    loaded = service.load(table_id)
    match = loaded.state.match
    assert match is not None
    discarded = sum(
        sum(event.data["discarded"])
        for event in Event.objects.filter(stream_id=service.stream_id(table_id), type="RowWon")
        .filter(version__gt=match_start(table_id))
        .order_by("version")
    )
    total = sum(sum(match.unused[seat]) + match.points[seat] for seat in match.seats) + discarded
    assert total == len(match.seats) * sum(loaded.state.config.tokens)


def match_start(table_id: int) -> int:
    return int(
        Event.objects.filter(stream_id=service.stream_id(table_id), type="MatchStarted")
        .order_by("-version")
        .values_list("version", flat=True)[0]
    )


# --- opening and joining ------------------------------------------------------------------------------------


def test_the_director_opens_a_cinese_table_in_the_lobby(api_as, director, cinese_players) -> None:
    response = api_as(director).post(
        "/api/tables/", open_body(seats=3, tokens=[0, 0, 1, 1, 2, 2, 3, 3, 4], cascade=True), format="json"
    )
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["name"] == "Cinese" and data["your_seat"] is None
    assert data["view"]["tokens"] == [0, 0, 1, 1, 2, 2, 3, 3, 4] and data["view"]["cascade"] is True
    opened = Event.objects.get(stream_id=service.stream_id(data["id"]), type="TableOpened")
    assert opened.data["game"] == "CN" and opened.data["config"]["seats"] == 3
    lobby = api_as(cinese_players["anna"]).get("/api/tables/").json()
    assert [row["status"] for row in lobby if row["id"] == data["id"]] == ["waiting"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"seats": 5}, "seats"),
        ({"seats": 1}, "seats"),
        ({"game": "PIT"}, "game"),
        ({"tokens": [0, 1, 2]}, "tokens"),
        ({"tokens": [0, 1, 1, 2, 2, 2, 3, 3, 5]}, "tokens"),
        ({"tokens": [0, 1, 1, 2, 2, 2, 3, 3, "4"]}, "tokens"),
        ({"cascade": "yes"}, "cascade"),
        ({"action_seconds": 5}, "action_seconds"),
        ({"name": ""}, "name"),
    ],
)
def test_opening_refuses_bad_options_with_a_message(api_as, director, changes, message) -> None:
    response = api_as(director).post("/api/tables/", open_body(**changes), format="json")
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert detail.startswith("Richiesta non valida") and f"{message}:" in detail, detail
    assert not Event.objects.exists()


def test_only_the_director_opens_tables(api_as, cinese_players, auditor) -> None:
    for user in (cinese_players["anna"], auditor):
        response = api_as(user).post("/api/tables/", open_body(), format="json")
        assert response.status_code == 403
        assert response.json()["detail"] == "Solo il direttore apre i tavoli."
    assert api_as(None).post("/api/tables/", open_body(), format="json").status_code == 403
    assert not Event.objects.exists()


def test_players_join_and_refusals_say_why(api_as, director, cinese_players, auditor) -> None:
    table_id = open_table(api_as, director, seats=2)
    anna, bruno, carla = (cinese_players[n] for n in NAMES[:3])
    response = join(api_as, anna, table_id)
    assert response.status_code == 200 and response.json()["your_seat"] == 0
    again = join(api_as, anna, table_id)
    assert again.status_code == 400 and again.json()["detail"] == "Sei già seduto a questo tavolo."
    assert again.json()["english"] == "You are already seated at this table."
    assert join(api_as, bruno, table_id).json()["your_seat"] == 1
    full = join(api_as, carla, table_id)
    assert full.status_code == 400 and "al completo" in full.json()["detail"]
    assert full.json()["english"] == "The table is full (2 seats)."
    assert join(api_as, auditor, table_id).status_code == 403
    assert join(api_as, anna, 999_999).status_code == 404
    start_game(table_id)
    # a seat left free during a game: the rules refuse it (players sit down between games)
    loaded = service.load(table_id)
    assert loaded.facts.seats[0] is not None and loaded.facts.seats[1] is not None
    assert service.load(table_id).rules.code == "CN"


def test_joining_a_chip_table_is_refused(api_as, cinese_players) -> None:
    from tests.tables.helpers import open_three

    table_id = open_three()
    response = join(api_as, cinese_players["dora"], table_id)
    assert response.status_code == 400
    assert "poker cinese" in response.json()["detail"]


# --- a game through the API ---------------------------------------------------------------------------------


def test_two_players_submit_and_the_rows_are_revealed(api_as, director, cinese_players) -> None:
    anna, bruno = cinese_players["anna"], cinese_players["bruno"]
    table_id = seated_table(api_as, director, [anna, bruno])
    start_game(table_id)
    loaded = service.load(table_id)
    hand = loaded.state.hand
    mine = {str(card) for card in hand.cards[0]}
    theirs = {str(card) for card in hand.cards[1]}

    proposal = suggest(api_as, anna, table_id)
    assert proposal["sizes"] == [5, 5, 5] and proposal["complete"] and proposal["in_order"]
    assert {card for row in proposal["rows"] for card in row} == mine
    assert len(proposal["stakes"]) == 3 and set(proposal["stakes"]) <= set(TOKENS)
    assert all(name is not None for name in proposal["names"])
    response = submit(api_as, anna, table_id, proposal["rows"], proposal["stakes"])
    assert response.status_code == 200, response.content
    assert response.json()["view"]["seats"][0]["rows"] == proposal["rows"]

    # bruno sees that anna submitted, never what
    seen = api_as(bruno).get(f"/api/tables/{table_id}/")
    raw = seen.content.decode()
    other = seen.json()["view"]["seats"][0]
    assert other["submitted"] is True and other["rows"] == [] and other["stakes"] == []
    assert all(card is None for card in other["cards"])
    assert not {code for code in mine if json.dumps(code) in raw}
    assert {code for code in theirs if json.dumps(code) in raw} == theirs

    # anna may change her mind until the last player submits
    again = submit(api_as, anna, table_id, proposal["rows"], proposal["stakes"])
    assert again.status_code == 200

    answer = suggest(api_as, bruno, table_id)
    done = submit(api_as, bruno, table_id, answer["rows"], answer["stakes"])
    assert done.status_code == 200
    shown = done.json()["view"]["seats"][0]
    assert shown["rows"] == proposal["rows"] and shown["stakes"] == proposal["stakes"]
    types = list(
        Event.objects.filter(stream_id=service.stream_id(table_id))
        .order_by("version")
        .values_list("type", flat=True)
    )
    assert types.count("RowWon") == 3 and "HandEnded" in types and types[-1] == "SeedRevealed"
    assert service.load(table_id).state.hand is None
    tokens_accounted(table_id)


def test_submit_refusals_name_the_fault_and_append_nothing(api_as, director, cinese_players) -> None:
    anna, bruno, carla = (cinese_players[n] for n in NAMES[:3])
    table_id = seated_table(api_as, director, [anna, bruno])
    start_game(table_id)
    good = suggest(api_as, anna, table_id)
    rows, stakes = good["rows"], good["stakes"]
    theirs = [str(card) for card in service.load(table_id).state.hand.cards[1]]
    before = Event.objects.count()
    cases = [
        ([rows[2], rows[1], rows[0]], stakes, "worth at least"),
        ([rows[0][:4], rows[1], rows[2]], stakes, "5"),
        ([[theirs[0], *rows[0][1:]], rows[1], rows[2]], stakes, theirs[0]),
        ([rows[0], rows[0], rows[2]], stakes, "twice"),
        (rows, [4, 4, 4], "token"),
    ]
    for bad_rows, bad_stakes, word in cases:
        response = submit(api_as, anna, table_id, bad_rows, bad_stakes)
        assert response.status_code == 400, response.content
        detail = response.json()["detail"]
        assert word in detail, (word, detail)
        assert not detail.startswith("Richiesta non valida")
    missing = submit(api_as, anna, table_id, None, None)
    assert missing.status_code == 400
    assert missing.json()["detail"].startswith("Richiesta non valida — rows:")
    no_stakes = api_as(anna).post(
        f"/api/tables/{table_id}/act/",
        body("submit", service.load(table_id).version, rows=rows),
        format="json",
    )
    assert no_stakes.status_code == 400 and "stakes:" in no_stakes.json()["detail"]
    too_many = submit(api_as, anna, table_id, [*rows, []], stakes)
    assert too_many.status_code == 400 and "rows:" in too_many.json()["detail"]
    outsider = submit(api_as, carla, table_id, rows, stakes)
    assert outsider.status_code == 403
    assert Event.objects.count() == before


def test_a_submit_at_a_chip_table_is_refused(api_as, players, table) -> None:
    version = service.load(table).version
    response = api_as(players["anna"]).post(
        f"/api/tables/{table}/act/",
        body("submit", version, rows=[[], [], []], stakes=[0, 1, 2]),
        format="json",
    )
    assert response.status_code == 400
    assert "non si compongono" in response.json()["detail"]


# --- drafts and suggestions ---------------------------------------------------------------------------------


def test_a_draft_is_named_as_it_forms_and_is_the_players_own(api_as, director, cinese_players) -> None:
    anna, bruno = cinese_players["anna"], cinese_players["bruno"]
    table_id = seated_table(api_as, director, [anna, bruno])
    start_game(table_id)
    rows = suggest(api_as, anna, table_id)["rows"]
    url = f"/api/tables/{table_id}/rows/"
    empty = api_as(anna).get(url).json()
    assert empty["rows"] == [[], [], []] and len(empty["unplaced"]) == 15 and not empty["complete"]

    partial = api_as(anna).post(
        url, {"rows": [rows[0], rows[1][:2], []], "stakes": [4, None, None]}, format="json"
    )
    assert partial.status_code == 200, partial.content
    data = partial.json()
    assert data["names"][0]["it"] and data["names"][0]["en"] and data["names"][1] is None
    assert len(data["unplaced"]) == 8 and data["stakes"] == [4, None, None] and data["in_order"]

    upside_down = api_as(anna).post(url, {"rows": [rows[2], rows[1], rows[0]]}, format="json").json()
    assert upside_down["complete"] is True
    if upside_down["names"][0]["category"] != upside_down["names"][2]["category"]:
        assert upside_down["in_order"] is False
    assert api_as(anna).get(url).json()["rows"] == [rows[2], rows[1], rows[0]]

    # bruno has his own (empty) draft, and the table never shows anna's
    assert api_as(bruno).get(url).json()["rows"] == [[], [], []]
    assert rows[0][0] not in api_as(bruno).get(f"/api/tables/{table_id}/").content.decode()

    theirs = str(service.load(table_id).state.hand.cards[1][0])
    refused = api_as(anna).post(url, {"rows": [[theirs], [], []]}, format="json")
    assert refused.status_code == 400 and theirs in refused.json()["detail"]
    long_row = api_as(anna).post(url, {"rows": [rows[0] + [rows[1][0]], [], []]}, format="json")
    assert long_row.status_code == 400
    twice = api_as(anna).post(url, {"rows": [[rows[0][0]], [rows[0][0]], []]}, format="json")
    assert twice.status_code == 400 and "due file" in twice.json()["detail"]


def test_suggest_and_rows_are_for_seated_players_of_a_game(api_as, director, cinese_players, auditor) -> None:
    anna, bruno, carla = (cinese_players[n] for n in NAMES[:3])
    table_id = seated_table(api_as, director, [anna, bruno])
    waiting = api_as(anna).get(f"/api/tables/{table_id}/suggest/")
    assert waiting.status_code == 400 and "Nessuna partita" in waiting.json()["detail"]
    start_game(table_id)
    assert api_as(carla).get(f"/api/tables/{table_id}/suggest/").status_code == 403
    assert api_as(auditor).get(f"/api/tables/{table_id}/suggest/").status_code == 403
    assert api_as(director).get(f"/api/tables/{table_id}/rows/").status_code == 403
    assert api_as(anna).get("/api/tables/999999/suggest/").status_code == 404
    first = suggest(api_as, anna, table_id)
    assert suggest(api_as, anna, table_id) == first  # the same seed: the same answer


# --- the time-out, four players, the cascade ----------------------------------------------------------------


def test_the_time_out_arranges_with_the_solver(api_as, cinese_players) -> None:
    """CN-TIME-1 through the service's timer runner (what the Celery task and the timekeeper's sweep call):
    a table whose time to arrange is already over when the game is dealt."""
    config = find_game("CN").table_config(
        seats=2, tournament=False, forced=ForcedBets(), action_time_ms=0, time_bank_ms=0
    )
    table_id = service.open_table("Lampo", config, [(0, "anna", 0), (1, "bruno", 0)], game="CN").table_id
    start_game(table_id)
    proposal = suggest(api_as, cinese_players["anna"], table_id)
    late = submit(api_as, cinese_players["anna"], table_id, proposal["rows"], proposal["stakes"])
    assert late.status_code == 400 and "time" in late.json()["detail"]
    version = service.load(table_id).version
    assert tasks.run_timeout(table_id, version) is True
    assert tasks.run_timeout(table_id, version) is False  # a repeated timer does nothing
    events = Event.objects.filter(stream_id=service.stream_id(table_id), version__gt=version)
    automatic = [e.data for e in events.order_by("version") if e.type == "ArrangementSubmitted"]
    assert [(e["seat"], e["automatic"]) for e in automatic] == [(0, True), (1, True)]
    assert "HandEnded" in {e.type for e in events}
    tokens_accounted(table_id)


def test_four_players_play_a_three_card_row(api_as, director, cinese_players) -> None:
    users = [cinese_players[name] for name in NAMES]
    table_id = seated_table(api_as, director, users)
    start_game(table_id, seed=9)
    for user in users:
        proposal = suggest(api_as, user, table_id)
        assert proposal["sizes"] == [5, 5, 3]
        assert [len(row) for row in proposal["rows"]] == [5, 5, 3]
        response = submit(api_as, user, table_id, proposal["rows"], proposal["stakes"])
        assert response.status_code == 200, response.content
    won = Event.objects.filter(stream_id=service.stream_id(table_id), type="RowWon").order_by("version")
    assert [event.data["row"] for event in won] == [0, 1, 2]
    tokens_accounted(table_id)


def test_a_whole_match_with_the_cascade(api_as, director, cinese_players) -> None:
    anna, bruno, carla = (cinese_players[n] for n in NAMES[:3])
    table_id = seated_table(api_as, director, [anna, bruno, carla], cascade=True)
    for game in range(3):
        start_game(table_id, seed=20 + game)
        for user in (anna, bruno, carla):
            proposal = suggest(api_as, user, table_id)
            assert submit(api_as, user, table_id, proposal["rows"], proposal["stakes"]).status_code == 200
        if game < 2:
            tokens_accounted(table_id)
    types = list(Event.objects.filter(stream_id=service.stream_id(table_id)).values_list("type", flat=True))
    assert types.count("HandEnded") == 3 and types.count("MatchEnded") == 1
    match_started = Event.objects.get(stream_id=service.stream_id(table_id), type="MatchStarted")
    assert match_started.data["cascade"] is True
    ended = Event.objects.get(stream_id=service.stream_id(table_id), type="MatchEnded")
    won = Event.objects.filter(stream_id=service.stream_id(table_id), type="RowWon")
    points = sum(sum(value for _, values in event.data["won"] for value in values) for event in won)
    discarded = sum(sum(event.data["discarded"]) for event in won)
    assert points + discarded == 3 * sum(TOKENS)  # every token staked in the match, then won or discarded
    assert ended.data


# --- nothing of another player's arrangement on the socket before the reveal --------------------------------

VERSION = re.compile(r'data-version="(\d+)"')
TAG = re.compile(r"<[^>]*>")


def leaks(html: str, secret: set[str]) -> set[str]:
    words = set(re.findall(r"\b\w{2}\b", TAG.sub(" ", html)))
    return {
        code
        for code in secret
        if f"cards/{code}.svg" in html or f'data-card="{code}"' in html or code in words
    }


async def _drain(communicator: WebsocketCommunicator, version: int, seen: list[str]) -> None:
    for _ in range(300):
        await database_sync_to_async(broadcast.subscription().catch_up)()
        while not await communicator.receive_nothing(timeout=0.05, interval=0.01):
            text = await communicator.receive_from()
            seen.append(text)
            found = VERSION.search(text)
            if found and int(found.group(1)) >= version:
                return
    raise AssertionError(f"the socket never received version {version}")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_no_socket_message_carries_another_players_cards_before_the_reveal(
    cinese_players, director
) -> None:
    def prepare() -> tuple[int, dict[str, set[str]], dict[str, Any]]:
        config = find_game("CN").table_config(
            seats=2, tournament=False, forced=ForcedBets(), action_time_ms=60_000, time_bank_ms=0
        )
        loaded = service.open_table("Cinese", config, [(0, "anna", 0), (1, "bruno", 0)], game="CN")
        started = start_game(loaded.table_id)
        hand = started.state.hand
        cards = {name: {str(c) for c in hand.cards[seat]} for seat, name in enumerate(("anna", "bruno"))}
        solutions = {
            name: started.rules.suggest(started.state, seat, "t", 4)  # type: ignore[attr-defined]
            for seat, name in enumerate(("anna", "bruno"))
        }
        broadcast.subscription().catch_up()
        return loaded.table_id, cards, solutions

    table_id, cards, solutions = await database_sync_to_async(prepare)()
    sockets = {}
    for name in ("anna", "bruno"):
        communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/tables/{table_id}/")
        communicator.scope["user"] = cinese_players[name]
        connected, code = await communicator.connect()
        assert connected, code
        sockets[name] = communicator
    seen: dict[str, list[str]] = {"anna": [], "bruno": []}
    try:
        for name in sockets:
            seen[name].append(await sockets[name].receive_from())

        def anna_submits() -> int:
            solution = solutions["anna"]
            rows = [[str(c) for c in row] for row in solution.rows]
            from tables import arrangements

            outcome = arrangements.submit(table_id, "anna", rows, list(solution.stakes))
            return outcome.loaded.version

        version = await database_sync_to_async(anna_submits)()
        for name in sockets:
            await _drain(sockets[name], version, seen[name])
        before_reveal = {name: list(texts) for name, texts in seen.items()}
        assert len(before_reveal["bruno"]) >= 2
        for text in before_reveal["bruno"]:
            assert not leaks(text, cards["anna"]), "bruno received anna's cards"
        for text in before_reveal["anna"]:
            assert not leaks(text, cards["bruno"]), "anna received bruno's cards"

        def bruno_submits() -> int:
            solution = solutions["bruno"]
            rows = [[str(c) for c in row] for row in solution.rows]
            from tables import arrangements

            return arrangements.submit(table_id, "bruno", rows, list(solution.stakes)).loaded.version

        version = await database_sync_to_async(bruno_submits)()
        await _drain(sockets["bruno"], version, seen["bruno"])
        revealed = seen["bruno"][len(before_reveal["bruno"]) :]
        assert any(leaks(text, cards["anna"]) for text in revealed), "the reveal shows anna's rows"
    finally:
        for communicator in sockets.values():
            await communicator.disconnect()


# --- the auditors: every token accounted for --------------------------------------------------------------


def test_verify_accounts_for_every_token_of_a_match(api_as, director, cinese_players) -> None:
    from dataclasses import replace

    from audit import tokens, verification
    from eventstore.store import read_stream

    anna, bruno = cinese_players["anna"], cinese_players["bruno"]
    table_id = seated_table(api_as, director, [anna, bruno])
    for game in range(3):
        start_game(table_id, seed=40 + game)
        for user in (anna, bruno):
            proposal = suggest(api_as, user, table_id)
            assert submit(api_as, user, table_id, proposal["rows"], proposal["stakes"]).status_code == 200
    stream = service.stream_id(table_id)
    report = verification.verify([stream])
    assert report.ok, report.failures
    recorded = read_stream(stream)
    assert "MatchEnded" in {e.type for e in recorded} and tokens.verify(stream, recorded) == []

    # a row paid one token too many, a token staked twice, a match total changed: each one is found
    first_row = next(e for e in recorded if e.type == "RowWon")
    won = [[seat, [*values, 4]] if values else [seat, values] for seat, values in first_row.data["won"]]
    if not any(values for _, values in first_row.data["won"]):
        won = [[0, [4]]]
    forged = [replace(e, data={**e.data, "won": won}) if e is first_row else e for e in recorded]
    messages = [p.message for p in tokens.verify(stream, forged)]
    assert any("staked" in m and "won" in m for m in messages), messages

    shown = [e for e in recorded if e.type == "HandShown" and e.data["seat"] == 0]
    stakes = shown[0].data["arrangement"]["stakes"]
    twice = {**shown[1].data, "arrangement": {**shown[1].data["arrangement"], "stakes": stakes}}
    forged = [replace(e, data=twice) if e is shown[1] else e for e in recorded]
    assert any("not held" in p.message for p in tokens.verify(stream, forged))

    ended = next(e for e in recorded if e.type == "MatchEnded")
    totals = [[seat, points + 1] for seat, points in ended.data["totals"]]
    forged = [replace(e, data={**e.data, "totals": totals}) if e is ended else e for e in recorded]
    assert any("totals" in p.message for p in tokens.verify(stream, forged))


def test_the_lobby_page_lists_the_cinese_table(api_as, web_as, director, cinese_players) -> None:
    table_id = open_table(api_as, director, name="Tavolo cinese")
    assert join(api_as, cinese_players["anna"], table_id).status_code == 200
    page = web_as(cinese_players["bruno"]).get("/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Tavolo cinese" in html and f"/tables/{table_id}/" in html
    table_page = web_as(cinese_players["anna"]).get(f"/tables/{table_id}/")
    assert table_page.status_code == 200
    assert "busted" not in table_page.content.decode()  # no chips in play: nobody is out of chips


# --- the live service: the timers deal the games and the time-out arranges (CN-TIME-1) ----------------------


@pytest.mark.timers
@pytest.mark.django_db(transaction=True)
def test_the_service_plays_a_match_of_time_outs(live_service, cinese_players) -> None:  # noqa: F811
    """Nobody submits: the start timer deals each game, the time-out task arranges every seat with the solver
    (``automatic``), and after three games the match ends; every token is accounted for."""
    from audit import verification
    from tests.service_harness import wait_for

    config = find_game("CN").table_config(
        seats=2, tournament=False, forced=ForcedBets(), action_time_ms=300, time_bank_ms=0
    )
    table_id = service.open_table("Orologio", config, game="CN").table_id
    service.join_table(table_id, "anna")
    service.join_table(table_id, "bruno")
    stream = service.stream_id(table_id)

    def types() -> list[str]:
        return list(Event.objects.filter(stream_id=stream).order_by("version").values_list("type", flat=True))

    wait_for(
        lambda: "MatchEnded" in types(), 60, "a match of three timed-out games", details=lambda: str(types())
    )
    submitted = Event.objects.filter(stream_id=stream, type="ArrangementSubmitted")
    assert submitted.count() >= 6 and all(e.data["automatic"] for e in submitted)
    assert {e.metadata["actor"] for e in submitted} == {"system"}
    report = verification.verify([stream])
    assert report.ok, report.failures
    live_service.assert_no_errors()
