"""The loopback cluster (issue 22, ``deploy/README.md``): ``deploy/local-cluster`` — nginx in front of three
web processes, two Celery workers, the timekeeper and the subscribers, on the machine's PostgreSQL and Redis
— plays a bot tournament while WebSocket clients watch its tables through nginx; in the middle one web
process and one worker are killed (``kill -9`` of their pids). Then:

* the tournament ends (every table played its hands to the end: as many ``HandEnded`` as ``HandStarted``),
  with the simulation's checks (chips conserved, projections verified, prizes, places);
* every socket of one table went to the same web process (nginx's consistent hash on the table id), and the
  table's page too; other requests were spread over the web processes; static files came from nginx;
* the sockets on the killed web process were closed, reconnected through nginx (to another web process)
  and resynced: the first fragment after the reconnect is the whole table at a version not older than the
  last one seen, and every socket ends at its table's last version;
* the killed processes were started again by their respawn loops;
* from the log: every turn was ended by exactly one transaction (no timer, bot or command acted twice for
  one turn), no ``command_id`` in two transactions, and ``manage.py verify_all`` is clean.

It takes a few minutes: it runs only with ``MAZZIERE_CLUSTER_TEST=1`` (``make cluster-test``), not in
``make test``. Its figures go to ``.dev/cluster-test.json`` (``docs/performance.md``, "Loopback cluster").
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.cluster_tools import (
    PASSWORD,
    ROOT,
    WATCHER,
    Watchers,
    alive,
    clean_environment,
    log_checks,
    login,
    manage,
    process_figures,
    read_state,
    wait,
)

pytestmark = pytest.mark.skipif(
    os.environ.get("MAZZIERE_CLUSTER_TEST") != "1",
    reason="the loopback cluster test runs with MAZZIERE_CLUSTER_TEST=1 (make cluster-test)",
)

PORT = 8110  # nginx; the web processes on 8111-8113 (make cluster uses 8100-8103)
DATABASE = "mazziere_cluster_test"
REDIS_DB = 13
PLAYERS = int(os.environ.get("MAZZIERE_CLUSTER_PLAYERS", "30"))
KILL_AFTER_S = 25.0  # of play, once the tables are open
RESULT = ROOT / ".dev" / "cluster-test.json"


@pytest.fixture
def cluster(tmp_path: Path) -> Any:
    state = tmp_path / "state.json"
    argv = [str(ROOT / "deploy" / "local-cluster"), "--fresh", "--database", DATABASE]
    argv += ["--redis-db", str(REDIS_DB), "--port", str(PORT), "--first-port", str(PORT)]
    argv += ["--state", str(state), "--logs", str(tmp_path / "logs")]
    started = time.monotonic()
    out = open(tmp_path / "local-cluster.out", "wb")  # noqa: SIM115
    process = subprocess.Popen(argv, cwd=ROOT, env=clean_environment(), stdout=out, stderr=subprocess.STDOUT)
    try:
        wait(lambda: state.exists() or process.poll() is not None, 180, "the cluster to start")
        assert process.poll() is None, (tmp_path / "local-cluster.out").read_text()
        yield state, time.monotonic() - started, tmp_path
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(40)
        except subprocess.TimeoutExpired:
            process.kill()
        out.close()


def test_local_cluster_survives_a_dead_web_process_and_worker(cluster: Any) -> None:
    import httpx
    import psycopg

    state_path, start_s, tmp_path = cluster
    state = read_state(state_path)
    base = state["url"]
    env = {**clean_environment(), **state["environment"]}
    env["SECRET_KEY"] = os.environ.get("SECRET_KEY") or (ROOT / ".dev" / "secret_key").read_text().strip()
    made = manage(
        env, "shell", "-c",
        "from django.contrib.auth.models import Group, User\n"
        f"user, _ = User.objects.get_or_create(username={WATCHER!r})\n"
        f"user.set_password({PASSWORD!r}); user.save()\n"
        "user.groups.add(Group.objects.get_or_create(name='director')[0])",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    # static files from nginx itself; pages without a table id spread over the web processes
    with httpx.Client(base_url=base, timeout=10) as http:
        static = http.get("/static/favicon.svg")
        assert static.status_code == 200 and "X-Mazziere-Upstream" not in static.headers
        spread = {http.get("/accounts/login/").headers["X-Mazziere-Upstream"] for _ in range(6)}
    assert len(spread) == 3, spread

    simulation_out = open(tmp_path / "simulation.json", "w+")  # noqa: SIM115
    argv = [
        sys.executable,
        "manage.py",
        "simulate_tournament",
        "--external-workers",
        "--players",
        str(PLAYERS),
    ]
    argv += [
        "--seed",
        "22",
        "--fast-clock",
        "--level-seconds",
        "20",
        "--think-ms",
        "200-500",
        "--timeout",
        "900",
    ]
    simulation = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=simulation_out, stderr=subprocess.DEVNULL)
    watchers = None
    try:
        with psycopg.connect(state["database_url"], autocommit=True) as conn:

            def tables() -> list[int]:
                found = conn.execute(
                    "SELECT DISTINCT stream_id FROM eventstore_event WHERE type = 'HandStarted'"
                ).fetchall()
                expected = -(-PLAYERS // 6)
                return (
                    sorted(int(s.removeprefix("table-")) for (s,) in found) if len(found) >= expected else []
                )

            table_ids = wait(tables, 120, "the tournament's tables to start their hands")
            (tournament_id,) = conn.execute("SELECT id FROM tournaments_tournament").fetchone()
        play_started = time.monotonic()
        cookie = login(base)
        # a table's page goes where its sockets go
        with httpx.Client(base_url=base, timeout=10, headers={"Cookie": cookie}) as http:
            pages = {t: http.get(f"/tables/{t}/").headers["X-Mazziere-Upstream"] for t in table_ids}
            # the tournament's API through nginx: always the same web process (key tournament-<id>)
            tournament = [http.get(f"/api/tournaments/{tournament_id}/") for _ in range(3)]
        assert all(answer.status_code == 200 for answer in tournament), tournament
        assert len({answer.headers["X-Mazziere-Upstream"] for answer in tournament}) == 1
        watchers = Watchers(base, cookie, table_ids)
        watchers.start()
        wait(lambda: all(s.seen for s in watchers.sockets), 60, "every socket's first fragment")
        for socket in watchers.sockets:
            assert socket.upstreams[0] == pages[socket.table_id], (socket.table_id, socket.upstreams, pages)
        time.sleep(max(0.0, KILL_AFTER_S - (time.monotonic() - play_started)))
        assert simulation.poll() is None, (
            "the tournament ended before the kill: raise MAZZIERE_CLUSTER_PLAYERS"
        )

        # kill the web process owning most sockets, and the first worker
        state = read_state(state_path)
        owners = Counter(s.upstreams[-1] for s in watchers.sockets)
        victim_port = int(owners.most_common(1)[0][0].rsplit(":", 1)[1])
        web = next(p for p in state["processes"].values() if p["port"] == victim_port)
        worker = state["processes"]["worker-1"]
        killed_at = time.monotonic()
        os.kill(web["pid"], signal.SIGKILL)
        os.kill(worker["pid"], signal.SIGKILL)
        on_victim = [s for s in watchers.sockets if s.upstreams[-1] == f"127.0.0.1:{victim_port}"]
        before = {id(s): s.last_version() for s in on_victim}
        # the loops start both again (1 s later)
        respawned = wait(
            lambda: (
                (s := read_state(state_path)["processes"])[web["name"]]["pid"] not in (None, web["pid"])
                and s["worker-1"]["pid"] not in (None, worker["pid"])
                and alive(s[web["name"]]["pid"])
                and alive(s["worker-1"]["pid"])
                and s
            ),
            30,
            "the killed processes to be started again",
        )
        respawn_s = time.monotonic() - killed_at
        wait(
            lambda: all(len(s.connects) >= 2 and s.last_version() > before[id(s)] for s in on_victim),
            60,
            "the sockets of the killed web process to reconnect and move on",
        )
        code = simulation.wait(900)
        ended_at = time.monotonic()
        simulation_out.seek(0)
        summary = json.loads(simulation_out.read())
        assert code == 0, summary
        time.sleep(3)  # the last broadcasts
        figures = process_figures(read_state(state_path))
    finally:
        if simulation.poll() is None:
            simulation.terminate()
            simulation.wait(60)
        if watchers is not None:
            watchers.stop()

    # the tournament ended with its checks
    assert summary["finished"] is True
    for check in (
        "chips_conserved",
        "projections_verified",
        "prizes_sum_to_pool",
        "every_player_placed_once",
    ):
        assert summary[check] is True, check
    # the sockets on the killed web process: closed, reconnected through nginx, resynced
    reconnects = []
    for socket in on_victim:
        after = next(index for index, at in enumerate(socket.connects) if at > killed_at)
        reconnected_at = socket.connects[after]
        first = next((v, f) for t, v, f in socket.seen if t >= reconnected_at)
        assert first[1] and first[0] >= before[id(socket)], (socket.table_id, first, before[id(socket)])
        reconnects.append(reconnected_at - killed_at)
    checks = log_checks(state["database_url"])
    for socket in watchers.sockets:  # every socket converged on its table's last version
        assert socket.last_version() == checks["last_version"][socket.table_id], (
            socket.table_id, socket.last_version(), checks["last_version"][socket.table_id],
        )  # fmt: skip
    assert checks["turns_not_ended_by_exactly_one_transaction"] == 0, checks
    assert checks["command_ids_in_two_transactions"] == 0, checks
    assert not checks["tables_with_unended_hands"], checks
    verify_started = time.monotonic()
    verified = manage(env, "verify_all", timeout=900)
    verify_s = time.monotonic() - verify_started
    assert verified.returncode == 0, verified.stdout[-3000:] + verified.stderr[-3000:]

    result = {
        "players": PLAYERS,
        "tables": len(table_ids),
        "sockets": len(watchers.sockets),
        "cluster_start_s": round(start_s, 1),
        "play_s": round(ended_at - play_started, 1),
        "killed_after_s": round(killed_at - play_started, 1),
        "killed": {"web": f"{web['name']} (:{victim_port}, pid {web['pid']})", "worker": worker["pid"]},
        "respawned_within_s": round(respawn_s, 1),
        "respawned_pids": {
            web["name"]: respawned[web["name"]]["pid"],
            "worker-1": respawned["worker-1"]["pid"],
        },
        "sockets_on_killed_web": len(on_victim),
        "reconnect_s": [round(r, 2) for r in sorted(reconnects)],
        "reconnected_to": sorted({s.upstreams[-1] for s in on_victim}),
        "socket_connects": sum(len(s.connects) for s in watchers.sockets),
        "tables_by_web_process": dict(Counter(pages.values())),
        "hands": checks["hands"],
        "table_events": checks["table_events"],
        "turns_checked": checks["turns_checked"],
        "command_ids": checks["command_ids"],
        "verify_all_s": round(verify_s, 1),
        "simulation": {
            key: summary.get(key)
            for key in ("hands_played", "events_appended", "events_per_s", "hands_per_s", "latency", "play_s")
        },
        "processes": figures,
        "postgres_version": psycopg.connect(state["database_url"])
        .execute("SHOW server_version")
        .fetchone()[0],
        "load_average": os.getloadavg(),
    }
    RESULT.parent.mkdir(exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
