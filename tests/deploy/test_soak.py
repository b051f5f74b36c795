"""Issue 23 §5, the soak (``make soak``): the loopback cluster of ``deploy/local-cluster`` on the private
PostgreSQL and redis-server of ``make faults`` (:mod:`tests.deploy.test_faults`: its ``services`` and
``cluster`` fixtures), under a bot load of every game for :data:`MINUTES` minutes with fast clocks (bots think
0.2–0.5 s where people take 2–4 s, 0.5 s between hands, :data:`LEVEL_SECONDS`-second levels):

* multi-table tournaments of the same :data:`PLAYERS` club bots one after another, each of mixed games, one
  level of each game of :data:`ROTATION` in turn (poker all'italiana, hold'em, stud, Omaha, draw, Telesina);
* :data:`CASH_GAMES` cash tables of bots open the whole time;
* one WebSocket client through nginx on every table that plays (the new tournament's tables as it starts).

Every :data:`SAMPLE_S` seconds a sample: each process's resident memory (MB) and CPU seconds, Redis's key
count, memory and clients, PostgreSQL's connections to the database, the hands ended so far, and any ERROR,
CRITICAL or Traceback line or respawn in the processes' logs. At the end the cash tables close, the last
tournament plays to its winner, and then:

* **memory flat**: each process's memory at the end of the load against the first sample after
  :data:`WARM_UP_S` (caches filled): growth at most :data:`FLAT_MB` MB or :data:`FLAT_SHARE` of it;
* **no growth of Redis keys or PostgreSQL connections**: after the load, as many as after the warm-up or fewer
  (plus :data:`SLACK` for a broadcast or a task in flight);
* **no error in the logs**, no process started again;
* **invariants**: every table ended every hand it started, each turn ended by one transaction, no
  ``command_id`` twice (:func:`tests.deploy.cluster_tools.log_checks`), each tournament's chips conserved,
  prizes equal to the pool and every player placed once, ``verify_all`` clean (hash chains, hands replayed,
  the cashier's ledgers, projections), every socket at its table's last version.

Figures in ``.dev/soak-test.json`` and ``docs/reliability.md`` ("Issue 23 §5: the soak"). Its nginx listens
on 8130 (web processes 8131-8133), beside ``make faults``' 8120. Only with ``MAZZIERE_SOAK_TEST=1``;
``MAZZIERE_SOAK_MINUTES`` sets the load's length (60).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import pytest

from tests.deploy import test_faults
from tests.deploy.cluster_tools import (
    CLOSE_CASH,
    PASSWORD,
    ROOT,
    WATCHER,
    Database,
    Logs,
    Watchers,
    clean_environment,
    end_checks,
    errors_in,
    login,
    process_figures,
    read_state,
    respawns_in,
    run,
    shell,
    wait,
)
from tests.deploy.test_faults import PG_BIN, Services

pytestmark = pytest.mark.skipif(
    os.environ.get("MAZZIERE_SOAK_TEST") != "1", reason="the soak runs with MAZZIERE_SOAK_TEST=1 (make soak)"
)

MINUTES = float(os.environ.get("MAZZIERE_SOAK_MINUTES", "60"))
SAMPLE_S = 60.0 if MINUTES >= 20 else 20.0
WARM_UP_S = min(300.0, MINUTES * 60 / 6)
PLAYERS = 18
LEVEL_SECONDS = 20
ROTATION = ("PIT", "NT", "F7S", "PO", "F5D", "NTL")
CASH_GAMES = ("NT", "PO", "F7S", "F5D")
CASH_BOTS = 4
FLAT_MB = 40.0
FLAT_SHARE = 0.25
SLACK = 10
RESULT = ROOT / ".dev" / "soak-test.json"
DUMP = ROOT / ".dev" / "soak-test.dump"
services = test_faults.services  # the fixtures: the private PostgreSQL and redis-server, the cluster on them
cluster = test_faults.cluster


@pytest.fixture
def port() -> int:
    """The cluster's nginx (web processes on 8131-8133): beside ``make faults``' 8120-8123."""
    return 8130


SETUP = """
import json
from django.contrib.auth.models import Group, User
from cashier import cash_tables
from engine.core import find_game
from engine.tournament.structure import forced_at
from tables import access
from tournaments import simulation
watcher, _ = User.objects.get_or_create(username={watcher!r})
watcher.set_password({password!r}); watcher.save()
watcher.groups.add(Group.objects.get_or_create(name=access.DIRECTOR)[0])
simulation.bots({players}, "club")
cash = []
for number, code in enumerate({cash_games!r}, start=1):
    table = cash_tables.open_cash_table(name=f"Soak {{number}} {{code}}", game=code,
        stakes=forced_at(find_game(code), 10, 1), seats=6, min_buy_in=500, max_buy_in=1000, actor="soak-test")
    cash_tables.seat_bots(table, {cash_bots}, "soak-test")
    cash.append(table)
print(json.dumps({{"cash_tables": cash}}))
"""

TOURNAMENT = """
import hashlib, json
from tournaments import mtt, simulation
names = simulation.bots({players}, "club")
config = simulation.config_for({players}, {seed}, True, 6, level_ms={level_ms}, rotation={rotation!r})
tournament_id = mtt.create(config, "soak-test")
for name in names:
    mtt.register(tournament_id, name, actor="soak-test")
mtt.start(tournament_id, "soak-test", seed=hashlib.sha256(b"mazziere-soak-%d" % {seed}).digest())
print(json.dumps({{"tournament_id": tournament_id}}))
"""


def sample(state_path: Path, services: Services, db: Database, database: str) -> dict[str, Any]:
    """One sample of the cluster (see the module's docstring); ``at`` is ``time.time()``."""
    import redis

    client = redis.Redis.from_url(services.redis_url)
    try:
        memory, clients, keys = client.info("memory"), client.info("clients"), client.dbsize()
    finally:
        client.close()
    connections = db.query("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [database])[0][0]
    hands = db.query("SELECT count(*) FROM eventstore_event WHERE type = 'HandEnded'")[0][0]
    playing = db.query("SELECT count(*) FROM tables_table WHERE status = 'playing'")[0][0]
    return {
        "at": time.time(),
        "processes": process_figures(read_state(state_path)),
        "redis_keys": keys,
        "redis_used_mb": round(memory["used_memory"] / 2**20, 2),
        "redis_clients": clients["connected_clients"],
        # the test's own connection is one of them
        "postgres_connections": connections,
        "hands": hands,
        "tables_playing": playing,
    }


def growth(first: dict[str, Any], last: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Per process: resident memory (MB) at ``first`` and ``last`` and the difference."""
    found = {}
    for name, figures in last["processes"].items():
        if name in first["processes"]:
            before, after = first["processes"][name]["rss_mb"], figures["rss_mb"]
            found[name] = {"warm_mb": before, "end_mb": after, "growth_mb": round(after - before, 1)}
    return found


def test_a_week_of_a_small_club_in_an_hour(cluster: tuple[Path, Services, Path]) -> None:
    state_path, services, _ = cluster
    state = read_state(state_path)
    base = state["url"]
    env = {**clean_environment(), **state["environment"]}
    env["SECRET_KEY"] = os.environ.get("SECRET_KEY") or (ROOT / ".dev" / "secret_key").read_text().strip()
    database = state["database_url"].rsplit("/", 1)[1]
    db = Database(state["database_url"])
    logs = Logs([Path(state["logs"]), services.logs])
    made = shell(env, SETUP.format(watcher=WATCHER, password=PASSWORD, players=PLAYERS,
                                   cash_games=CASH_GAMES, cash_bots=CASH_BOTS))  # fmt: skip
    cookie = login(base)
    tournaments: list[int] = []
    samples: list[dict[str, Any]] = []
    errors: dict[str, list[str]] = {}
    respawns: dict[str, int] = {}
    watchers: list[Watchers] = []

    def tables_of(tournament_id: int) -> list[int]:
        rows = db.query("SELECT id FROM tables_table WHERE tournament_id = %s ORDER BY id", [tournament_id])
        return [r[0] for r in rows] if len(rows) >= -(-PLAYERS // 6) else []

    def next_tournament() -> None:
        seed = len(tournaments) + 1
        code = TOURNAMENT.format(players=PLAYERS, seed=seed, level_ms=LEVEL_SECONDS * 1000, rotation=ROTATION)
        tournament_id = shell(env, code)["tournament_id"]
        tournaments.append(tournament_id)
        ids = wait(lambda: tables_of(tournament_id), 120, "the tournament's tables")
        if len(watchers) > 1:
            watchers[-1].stop()  # the finished tournament's sockets; the cash tables' (watchers[0]) stay
        opened = Watchers(base, cookie, ids, per_table=1)
        opened.start()
        watchers.append(opened)

    def finished(tournament_id: int) -> bool:
        rows = db.query("SELECT status FROM tournaments_tournament WHERE id = %s", [tournament_id])
        return bool(rows) and rows[0][0] == "finished"

    def keep(texts: dict[str, str]) -> None:
        for log, lines in errors_in(texts).items():
            errors.setdefault(log, []).extend(lines)
        for log, count in respawns_in(texts).items():
            respawns[log] = respawns.get(log, 0) + count

    started = time.time()
    logs.mark()
    load_until = started + MINUTES * 60
    next_sample = started
    try:
        watchers.append(Watchers(base, cookie, made["cash_tables"], per_table=1))
        watchers[0].start()
        next_tournament()
        while time.time() < load_until:
            if finished(tournaments[-1]):
                next_tournament()
            if time.time() >= next_sample:
                samples.append(sample(state_path, services, db, database))
                keep(logs.since_mark())
                next_sample += SAMPLE_S
                print(json.dumps({k: v for k, v in samples[-1].items() if k != "processes"}), flush=True)
            time.sleep(1.0)
        load_end = sample(state_path, services, db, database)
        closing = shell(env, CLOSE_CASH)
        wait(lambda: finished(tournaments[-1]), 900, "the last tournament's end", 2.0)
        wait(
            lambda: not db.query("SELECT 1 FROM cashier_cashtable WHERE status <> 'closed'"),
            300, "the cash tables closed", 2.0,
        )  # fmt: skip
        time.sleep(SAMPLE_S / 4)  # the last broadcasts and tasks
        after = sample(state_path, services, db, database)
    finally:
        for opened in watchers:
            opened.stop()
    keep(logs.since_mark())
    db.close()

    last_sockets = [s for opened in watchers[:1] + watchers[-1:] for s in opened.sockets]

    def dump() -> None:  # the log, for a look at whatever failed (pg_restore it into a scratch database)
        run([str(PG_BIN / "pg_dump"), "-Fc", "-f", str(DUMP), state["database_url"]], 600, check=False)

    end = end_checks(env, state["database_url"], tournaments, last_sockets, dump, verify_timeout=1800)
    warm = next(s for s in samples if s["at"] - started >= WARM_UP_S) if len(samples) > 1 else samples[0]
    memory = growth(warm, load_end)
    not_flat = {
        name: g for name, g in memory.items()
        if g["growth_mb"] > max(FLAT_MB, FLAT_SHARE * g["warm_mb"])
    }  # fmt: skip
    minutes = (load_end["at"] - started) / 60

    def figure(key: str) -> dict[str, Any]:
        seen = [s[key] for s in samples]
        return {"warm": warm[key], "load_end": load_end[key], "after": after[key], "max": max(seen)}

    result = {
        "minutes": round(minutes, 1),
        "tournaments": len(tournaments),
        "cash_tables": made["cash_tables"],
        "closing": closing,
        "hands_per_minute": round(load_end["hands"] / minutes, 1),
        **end.figures(),
        "tournament_checks": end.tournaments,
        "memory": memory,
        "memory_not_flat": not_flat,
        "redis_keys": figure("redis_keys"),
        "redis_used_mb": figure("redis_used_mb"),
        "postgres_connections": figure("postgres_connections"),
        "median_tables_playing": statistics.median(s["tables_playing"] for s in samples),
        "errors": {log: lines[:10] for log, lines in errors.items()},
        "respawns": respawns,
        "samples": [{k: v for k, v in s.items() if k != "processes"} | {"rss_mb": {
            n: f["rss_mb"] for n, f in s["processes"].items()}} for s in [*samples, load_end, after]],
        "load_average": os.getloadavg(),
    }  # fmt: skip
    RESULT.parent.mkdir(exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=2))
    print(json.dumps({k: v for k, v in result.items() if k != "samples"}, indent=2))

    assert not errors, result["errors"]
    assert not respawns, respawns
    assert not not_flat, not_flat
    for key in ("redis_keys", "postgres_connections"):
        assert after[key] <= warm[key] + SLACK, (key, result[key])
    end.check()
