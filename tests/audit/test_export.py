"""Exports for auditors (issue 6 §4, :mod:`audit.export`): hand histories in PHH and event streams as JSON
Lines, through the API (auditors and directors only) and ``manage.py export_hands``.

One multi-table tournament of 12 bots is played once for the module (the live service in threads, data
committed, removed at the end): its ``.phhs`` replays through ``engine.replay`` to the same finishing stacks,
hand by hand and player by player as the tournament recorded them; its JSON Lines verify offline and an
edited line is caught at its version. A sit-and-go with a hand still running shows that no card of that hand
is exported."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.core.management import ManagementUtility, call_command
from django.core.management.base import CommandError
from django.test import AsyncClient
from django.urls import reverse

from audit import export, export_api
from engine.italian.model import Phase
from engine.phh import load_histories
from engine.replay import replay_file
from engine.tournament.sitgo import Level, TournamentConfig
from eventstore import chain
from eventstore.store import NewEvent, RecordedEvent, append, read_stream
from tables import service
from tables.models import Table
from tests.tables.helpers import bot_move
from tournaments import mtt
from tournaments import service as sitgo
from tournaments.models import Tournament
from tournaments.simulation import Played, play

pytestmark = pytest.mark.django_db

REPO = Path(__file__).resolve().parents[2]
PLAYERS, STACK = 12, 300


# --- the tournament, played once -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def played(django_db_setup: None, django_db_blocker: Any) -> Iterator[Played]:
    """A 12-bot multi-table tournament (two tables, moves, a table broken) played to its winner on the live
    service (worker, timekeeper, subscribers as threads), committed; every table is flushed at the end."""
    from django.conf import settings

    from tables import timers
    from tests.service_harness import celery_worker, error_records, subscribers, timekeeper

    speed = {"MAZZIERE_TIMERS": "celery", "MAZZIERE_BOT_THINK": 0.0, "MAZZIERE_NEXT_HAND_DELAY": 0.0}
    saved = {name: getattr(settings, name) for name in speed}
    try:
        with django_db_blocker.unblock():
            for name, value in speed.items():
                setattr(settings, name, value)
            service.forget_cache()
            timers.is_bot.cache_clear()
            with ExitStack() as stack:
                stack.enter_context(celery_worker())
                errors = stack.enter_context(error_records())
                stack.enter_context(subscribers())
                stack.enter_context(timekeeper())
                result = play(PLAYERS, seed=3, timeout_s=300, starting_stack=STACK, level_ms=3_000)
            assert result.finished, result
            assert not errors.records, errors.text()
        for name, value in saved.items():
            setattr(settings, name, value)
        yield result
    finally:
        for name, value in saved.items():
            setattr(settings, name, value)
        service.forget_cache()
        with django_db_blocker.unblock():
            call_command("flush", interactive=False, verbosity=0)


def table_streams(tournament_id: int) -> list[str]:
    ids = Table.objects.filter(tournament_id=tournament_id).order_by("id").values_list("id", flat=True)
    return [service.stream_id(table_id) for table_id in ids]


def hands_ended(stream_ids: list[str]) -> list[RecordedEvent]:
    """Every ``HandEnded`` of the streams, in the order they were appended."""
    ended = [e for stream in stream_ids for e in read_stream(stream) if e.type == "HandEnded"]
    return sorted(ended, key=lambda e: e.global_position)


def body(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def run(module: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``python -m module args...`` (``engine.replay``, ``eventstore.chain``): no database needed."""
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, args)], capture_output=True, text=True, check=False, cwd=REPO
    )


def test_a_tournament_phhs_replays_to_the_finishing_stacks_the_tournament_recorded(
    played: Played, auditor: Any, api_as: Callable[[Any], Any], tmp_path: Path
) -> None:
    tournament_id = played.tournament_id
    response = api_as(auditor).get(reverse("api-audit-tournament-phhs", args=[tournament_id]))
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/toml"
    assert response["Content-Disposition"] == f'attachment; filename="tournament-{tournament_id}.phhs"'
    path = tmp_path / "tournament.phhs"
    path.write_bytes(body(response))
    histories = load_histories(path)

    # every hand of every table, in the order they ended, each one with its table
    streams = table_streams(tournament_id)
    assert len(streams) >= 2
    ended = hands_ended(streams)
    assert [(h.table, h.hand_id) for h in histories] == [
        (e.stream_id, f"{e.stream_id.removeprefix('table-')}-{e.data['number']}") for e in ended
    ]
    assert all(h.seat_count == 6 and len(h.seats) == len(h.players) for h in histories)
    assert all(h.time is not None and h.time_zone == "UTC" and h.year for h in histories)
    assert len({h.table for h in histories}) == len(streams)

    # the engine replays them all to the same finishing stacks (each hand set up from its own fields)
    assert replay_file(str(path)) is None
    cli = run("engine.replay", path)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    assert "1 file replayed: 1 passed, 0 failed" in cli.stdout

    # hand by hand, the stacks the tournament recorded for the players who went on
    recorded = {
        e.data["hand_key"]: dict(e.data["stacks"])
        for e in read_stream(mtt.stream_id(tournament_id))
        if e.type == "HandRecorded"
    }
    assert len(recorded) == len(histories)
    for history in histories:
        assert history.finishing_stacks is not None
        finishing = dict(zip(history.players, history.finishing_stacks, strict=True))
        expected = recorded[history.hand_id]
        assert {p: finishing[p] for p in expected} == expected, history.hand_id

    # player by player: the last hand leaves the winner with every chip and the others with none
    last: dict[str, int] = {}
    for history in histories:
        assert history.finishing_stacks is not None
        last.update(zip(history.players, history.finishing_stacks, strict=True))
    tournament = Tournament.objects.get(id=tournament_id)
    assert set(last) == set(tournament.players) and len(last) == PLAYERS
    assert {p for p, _ in tournament.finished} | {tournament.winner} == set(last)
    assert last == {p: PLAYERS * STACK if p == tournament.winner else 0 for p in last}


def test_a_tournament_s_tables_are_read_from_the_log(played: Played) -> None:
    streams = table_streams(played.tournament_id)
    Table.objects.filter(tournament_id=played.tournament_id).update(tournament_id=None)  # rolled back
    assert [service.stream_id(t) for t in export.tournament_tables(played.tournament_id)] == streams


def test_the_command_writes_the_same_tournament_phhs(
    played: Played, auditor: Any, api_as: Callable[[Any], Any], tmp_path: Path
) -> None:
    tournament_id = played.tournament_id
    path = tmp_path / "by-command.phhs"
    call_command("export_hands", "--tournament", str(tournament_id), "-o", str(path))
    assert not list(tmp_path.glob(".*.part"))
    response = api_as(auditor).get(reverse("api-audit-tournament-phhs", args=[tournament_id]))
    assert path.read_bytes() == body(response)
    cli = run("engine.replay", path)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    out = io.StringIO()
    call_command("export_hands", "--stream", mtt.stream_id(tournament_id), stdout=out)  # the same, to stdout
    assert out.getvalue().encode() == body(response)


def test_a_table_phhs_has_every_hand_of_the_table_and_a_single_hand_replays(
    played: Played, auditor: Any, api_as: Callable[[Any], Any], tmp_path: Path
) -> None:
    client = api_as(auditor)
    stream = max(table_streams(played.tournament_id), key=lambda s: len(hands_ended([s])))
    table_id = int(stream.removeprefix("table-"))
    numbers = [e.data["number"] for e in hands_ended([stream])]
    response = client.get(reverse("api-audit-table-phhs", args=[table_id]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="table-{table_id}.phhs"'
    path = tmp_path / "table.phhs"
    path.write_bytes(body(response))
    histories = load_histories(path)
    assert [h.hand_id for h in histories] == [f"{table_id}-{n}" for n in numbers]
    assert replay_file(str(path)) is None
    by_command = tmp_path / "by-command.phhs"
    call_command("export_hands", "--table", str(table_id), "--output", str(by_command))
    assert by_command.read_bytes() == path.read_bytes()

    number = numbers[len(numbers) // 2]
    response = client.get(reverse("api-audit-hand-phh", args=[table_id, number]))
    assert response.status_code == 200 and response["Content-Type"] == "application/toml"
    assert response["Content-Disposition"] == f'attachment; filename="table-{table_id}-hand-{number}.phh"'
    single = tmp_path / "hand.phh"
    single.write_bytes(body(response))
    assert "[1]" not in single.read_text() and load_histories(single) == (histories[numbers.index(number)],)
    assert run("engine.replay", single).returncode == 0
    one = tmp_path / "one.phh"
    call_command("export_hands", "--table", str(table_id), "--hand", str(number), "-o", str(one))
    assert one.read_bytes() == single.read_bytes()

    missing = client.get(reverse("api-audit-hand-phh", args=[table_id, numbers[-1] + 1]))
    assert missing.status_code == 404 and str(numbers[-1] + 1) in missing.json()["detail"]


def test_jsonl_has_every_event_and_verifies_offline_and_an_edit_is_caught(
    played: Played, auditor: Any, api_as: Callable[[Any], Any], tmp_path: Path
) -> None:
    client = api_as(auditor)
    stream = table_streams(played.tournament_id)[0]
    events = read_stream(stream)
    response = client.get(reverse("api-audit-stream-jsonl", args=[stream]))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "application/jsonl"
    assert response["Content-Disposition"] == f'attachment; filename="{stream}.jsonl"'
    text = body(response).decode()
    lines = text.splitlines()
    assert len(lines) == len(events)  # a closed table: every event
    first = json.loads(lines[0])
    assert set(first) == {"stream_id", "version", "type", "schema_version", "data", "metadata", "event_id",
                          "recorded_at", "global_position", "hash"}  # fmt: skip
    assert [json.loads(line)["version"] for line in lines] == [e.version for e in events]
    assert [json.loads(line)["global_position"] for line in lines] == [e.global_position for e in events]
    assert chain.verify_lines(lines) == []
    assert chain.check_lines(lines)[1] == {stream: (len(events), json.loads(lines[-1])["hash"])}

    # one amount edited: caught at that version; the command line says so too
    target = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "HandEnded")
    edited = json.loads(lines[target])
    edited["data"]["carried"] += 1
    forged = [*lines[:target], json.dumps(edited), *lines[target + 1 :]]
    assert [(p.stream_id, p.version) for p in chain.verify_lines(forged)] == [(stream, target + 1)]
    forged_file = tmp_path / "forged.jsonl"
    forged_file.write_text("\n".join(forged) + "\n")
    check = run("eventstore.chain", forged_file)
    assert check.returncode == 1
    assert f"{stream} v{target + 1}: line {target + 1}: hash differs" in check.stdout
    # a line taken out: the version is missing
    assert [p.version for p in chain.verify_lines(lines[:3] + lines[4:])] == [4]

    # the whole tournament: its stream, then each table's; the command writes the same
    response = client.get(reverse("api-audit-tournament-jsonl", args=[played.tournament_id]))
    assert response.status_code == 200
    every = body(response).decode().splitlines()
    streams = [mtt.stream_id(played.tournament_id), *table_streams(played.tournament_id)]
    assert [json.loads(line)["stream_id"] for line in every] == [
        s for s in streams for _ in range(len(read_stream(s)))
    ]
    assert chain.verify_lines(every) == []
    path = tmp_path / "tournament.jsonl"
    call_command("export_hands", "--tournament", played.tournament_id, "--format", "jsonl", "-o", str(path))
    assert path.read_text().splitlines() == every
    check = run("eventstore.chain", path)
    assert check.returncode == 0, check.stdout
    assert check.stdout.count(" OK, head ") == len(streams)

    # against the heads the tournament's results published (issue 23 §3): they hold; the export cut short
    # (a valid chain still) does not
    heads = tmp_path / "heads.json"
    heads.write_text(json.dumps(client.get(f"/api/tournaments/{played.tournament_id}/").json()))
    check = run("eventstore.chain", "--heads", heads, path)
    assert check.returncode == 0 and f"{len(streams)} published heads OK" in check.stdout, check.stdout
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(every[:-2]) + "\n")
    last = json.loads(every[-1])
    check = run("eventstore.chain", "--heads", heads, cut)
    assert check.returncode == 1 and check.stdout.count(" OK, head ") == len(streams), check.stdout
    ends = f"published head: {last['stream_id']} v{last['version'] - 1}: the stream ends at version "
    assert f"{ends}{last['version'] - 2}, the published head is at version {last['version']}" in check.stdout


def test_under_asgi_the_jsonl_is_streamed_in_chunks(played: Played, auditor: Any) -> None:
    """The web server is ASGI: the lines come through an asynchronous iterator, chunk by chunk (a synchronous
    one would be read whole before the first byte is sent)."""
    stream = table_streams(played.tournament_id)[0]
    client = AsyncClient()
    client.force_login(auditor)
    response = async_to_sync(client.get)(reverse("api-audit-stream-jsonl", args=[stream]))
    assert response.status_code == 200 and response.is_async

    async def chunks() -> list[bytes]:
        return [chunk async for chunk in response.streaming_content]

    parts = async_to_sync(chunks)()
    lines = b"".join(parts).decode().splitlines()
    assert len(lines) == len(read_stream(stream)) and chain.verify_lines(lines) == []
    assert len(parts) == -(-len(lines) // export_api.CHUNK)


def test_awkward_json_survives_the_export_and_verifies_offline() -> None:
    """Quotes, backslashes, control characters, accents, emoji, big and negative numbers, nested keys of
    every length: the exported line re-encodes to the text PostgreSQL hashed."""
    awkward = {
        "text": 'virgolette " e \\ barre, a capo\n, tab\t, \x01 controllo, àèìòù €, 🂡',
        "nested": {"zz": [1, -2, True, None, {"b": "x", "aa": []}], "a": {}},
        "big": 2**62,
    }
    stream = "tournament-987654321"
    append(stream, 0, [NewEvent("Said", awkward), NewEvent("Said", {"n": 2})], {"actor": 'Nicolò "il" r.'})
    lines = list(export.stream_jsonl(stream))
    assert json.loads(lines[0])["data"] == awkward and chain.verify_lines(lines) == []
    assert [p.version for p in chain.verify_lines([lines[0].replace("àèìòù", "aeiou"), lines[1]])] == [1]
    assert [p.version for p in chain.verify_lines([lines[1]])] == [1]  # version 1 missing
    assert [p.message for p in chain.verify_lines(["{", lines[0]])] == [
        "line 1: not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    ]


# --- who may export, and bad requests --------------------------------------------------------------------


def export_urls(table_id: int, tournament_id: int) -> list[str]:
    return [
        reverse("api-audit-table-phhs", args=[table_id]),
        reverse("api-audit-hand-phh", args=[table_id, 1]),
        reverse("api-audit-tournament-phhs", args=[tournament_id]),
        reverse("api-audit-stream-jsonl", args=[f"table-{table_id}"]),
        reverse("api-audit-tournament-jsonl", args=[tournament_id]),
    ]


def test_players_and_strangers_are_refused_and_unknown_ids_are_404(
    played: Played,
    players: dict[str, Any],
    nobody: Any,
    director: Any,
    auditor: Any,
    api_as: Callable[[Any], Any],
) -> None:
    table_id = int(table_streams(played.tournament_id)[0].removeprefix("table-"))
    for url in export_urls(table_id, played.tournament_id):
        for user in (players["anna"], nobody, None):
            response = api_as(user).get(url, HTTP_ACCEPT="application/toml")
            assert response.status_code == 403, (url, user)
            assert response.json()["detail"], url
        detail = api_as(players["anna"]).get(url, HTTP_ACCEPT_LANGUAGE="en").json()["detail"]
        assert detail == "Only auditors and directors may export hands and events."
        assert api_as(director).get(url).status_code == 200, url
    for url in export_urls(999_999, 999_999):
        response = api_as(auditor).get(url, HTTP_ACCEPT="application/toml")
        assert response.status_code == 404, url
        assert "999999" in response.json()["detail"], url
    for stream in ("table-999999", "mtt-999999", "tournament-999999"):
        assert api_as(auditor).get(reverse("api-audit-stream-jsonl", args=[stream])).status_code == 404
    for stream in ("table-x", "user-3", "table-01", "table-", "eventstore"):
        response = api_as(auditor).get(reverse("api-audit-stream-jsonl", args=[stream]))
        assert response.status_code == 400, stream
        assert stream in response.json()["detail"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--table", "999999"], "999999"),
        (["--table", "999999", "--hand", "1"], "999999"),
        (["--tournament", "999999", "--format", "jsonl"], "999999"),
        (["--stream", "table-nine"], "table-nine"),
        (["--stream", "mtt-999999"], "999999"),
        (["--tournament", "1", "--hand", "2"], "--hand"),
        (["--table", "1", "--hand", "2", "--format", "jsonl"], "--hand"),
        (["--format", "phhs"], "one of the arguments --table --tournament --stream is required"),
        (["--table", "1", "--tournament", "2"], "not allowed with argument"),
        (["--table", "1", "--format", "toml"], "invalid choice"),
    ],
)
def test_the_command_refuses_bad_input_and_writes_nothing(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "out.phhs"
    with pytest.raises(SystemExit) as exited:
        ManagementUtility(["manage.py", "export_hands", *argv, "-o", str(path)]).execute()
    assert exited.value.code != 0
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
    assert list(tmp_path.iterdir()) == []


def test_the_command_cannot_write_where_it_cannot(played: Played, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="cannot write"):
        call_command("export_hands", "--tournament", played.tournament_id, "-o", str(tmp_path / "no" / "x"))


def test_the_exports_are_in_the_openapi_schema(client: Any) -> None:
    paths = client.get("/api/schema/?format=json").json()["paths"]
    for path, media_type in [
        ("/api/audit/tables/{table_id}/hands.phhs", "application/toml"),
        ("/api/audit/tables/{table_id}/hands/{number}.phh", "application/toml"),
        ("/api/audit/tournaments/{tournament_id}/hands.phhs", "application/toml"),
        ("/api/audit/streams/{stream_id}/events.jsonl", "application/jsonl"),
        ("/api/audit/tournaments/{tournament_id}/events.jsonl", "application/jsonl"),
    ]:
        responses = paths[path]["get"]["responses"]
        assert list(responses["200"]["content"]) == [media_type], path
        assert {"403", "404"} <= set(responses), path


# --- no card of a hand still running ---------------------------------------------------------------------


_BEFORE_THE_DEAL = (Phase.ADEGUAMENTO, Phase.BLIND)


@pytest.fixture
def sit_and_go(players: dict[str, Any]) -> tuple[int, int]:
    """A sit-and-go of anna, bruno and carla: one hand played to its end, the second dealt and running
    (played past the phases before the deal: a parol hand's adeguamento, IT-PAROL-4, and the buio,
    IT-BUIO-1). Returns ``(tournament id, table id)``."""
    config = TournamentConfig("Export", seats=3, starting_stack=500, levels=(Level(10, 3_600_000),))
    tournament_id = sitgo.create(config, "diego", list(players))
    table_id = Tournament.objects.get(id=tournament_id).table_id
    assert table_id is not None
    rng = random.Random(5)
    for _ in range(2):
        loaded = service.handle(table_id, lambda loaded, at: service.start_command(loaded, at, None)).loaded
        while loaded.state.hand is not None and loaded.state.hand.phase in _BEFORE_THE_DEAL:
            loaded = service.handle(table_id, bot_move(rng), expected_version=loaded.version).loaded
        while loaded.state.hand is not None and loaded.state.hand_number == 1:
            loaded = service.handle(table_id, bot_move(rng), expected_version=loaded.version).loaded
    assert loaded.state.hand is not None and loaded.state.hand.phase not in _BEFORE_THE_DEAL
    return tournament_id, table_id


def test_a_hand_still_running_is_not_exported(
    sit_and_go: tuple[int, int], auditor: Any, api_as: Callable[[Any], Any], tmp_path: Path
) -> None:
    tournament_id, table_id = sit_and_go
    stream = service.stream_id(table_id)
    events = read_stream(stream)
    started = [e for e in events if e.type == "HandStarted"]
    assert len(started) == 2 and [e.type for e in events].count("HandEnded") == 1
    running = [e for e in events if e.version >= started[1].version]
    deck = json.dumps(started[1].data["deck"], separators=(",", ":"))  # as a JSON line would hold it
    dealt = ["".join(e.data["cards"]) for e in running if e.type == "CardsDealt"]  # as a PHH deal
    assert dealt and len(started[1].data["deck"]) >= 20
    revealed = next(e for e in events if e.type == "SeedRevealed")
    client = api_as(auditor)

    table = body(client.get(reverse("api-audit-table-phhs", args=[table_id]))).decode()
    tournament = body(client.get(reverse("api-audit-tournament-phhs", args=[tournament_id]))).decode()
    for text in (table, tournament):
        document = tomllib.loads(text)
        assert list(document) == ["1"] and document["1"]["hand"] == f"{table_id}-1"
        assert document["1"]["table"] == stream
        assert not any(cards in text for cards in dealt)
    assert client.get(reverse("api-audit-hand-phh", args=[table_id, 2])).status_code == 404
    path = tmp_path / "sitgo.phhs"
    path.write_text(tournament)
    assert replay_file(str(path)) is None

    lines = body(client.get(reverse("api-audit-stream-jsonl", args=[stream]))).decode().splitlines()
    assert [json.loads(line)["version"] for line in lines] == list(range(1, started[1].version))
    assert json.loads(lines[-1])["version"] >= revealed.version  # the first hand, seed revealed included
    assert chain.verify_lines(lines) == []
    every = body(client.get(reverse("api-audit-tournament-jsonl", args=[tournament_id]))).decode()
    assert [json.loads(line)["stream_id"] for line in every.splitlines()].count(stream) == len(lines)
    out = io.StringIO()
    call_command("export_hands", "--stream", stream, "--format", "jsonl", stdout=out)
    assert out.getvalue().splitlines() == lines
    for text in ("\n".join(lines), every, out.getvalue()):
        assert deck not in text and not any(f'"cards":{json.dumps(cards)}' in text for cards in dealt)
        assert text.count('"type":"HandStarted"') == 1
