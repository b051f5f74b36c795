"""Cashier benchmark (issue 21): what a transfer between a ledger and a table costs over the table command
alone.

``python -m config.devservices --test .venv/bin/python -m benchmarks.cashier [--cycles 40] [--rounds 5]``
(``DATABASE_URL`` / ``REDIS_URL`` set: the benchmark creates its own database ``mazziere_bench_cashier`` next
to that one, drops it at the end). Nothing asserts a time: it prints the machine, the load and the numbers.

One *cycle* is a player sitting down with chips, adding chips between hands, and leaving, at a hold'em cash
table (no hand is played):

- **reference**: the table's commands alone, each one transaction through ``tables.service.handle``
  (``seat_command``, ``add_chips_command``, ``remove_command``): what seating and topping up cost without a
  ledger;
- **cashier**: ``cashier.service.buy_in``, ``top_up``, ``cash_out``: the same table commands plus the
  ledger's fold and append and the balance's read model, in one transaction each.

Both run in the same process, interleaved round by round on their own tables; the best round of each (ms
per operation, the least disturbed by the shared machine) is reported, with the median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

DATABASE = "mazziere_bench_cashier"


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=40, help="sit, top up, leave: cycles per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each, interleaved")
    return parser.parse_args(argv)


def _database_url() -> str:
    import psycopg

    from config import devservices

    devservices.development_secret()
    url = urlsplit(os.environ["DATABASE_URL"])
    admin = url._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DATABASE}"')
    return url._replace(path=f"/{DATABASE}").geturl()


def _drop(url: str) -> None:
    import psycopg

    admin = urlsplit(url)._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')


def run(options: argparse.Namespace) -> dict[str, object]:
    url = _database_url()
    os.environ["DATABASE_URL"] = url
    os.environ["MAZZIERE_TIMERS"] = "off"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", "--noinput", verbosity=0)
    from benchmarks.evaluation import machine_info
    from cashier import cash_tables, service
    from engine.core import ForcedBets, find_game
    from tables import service as tables

    game = find_game("NT")
    config = game.table_config(
        seats=6,
        tournament=False,
        forced=ForcedBets(small_blind=5, big_blind=10),
        action_time_ms=30_000,
        time_bank_ms=0,
    )
    user = get_user_model().objects.create(username="bench", password="!")
    service.grant(user, 10**9, "benchmark", "bench")

    def reference(table_id: int) -> None:
        tables.handle(table_id, lambda loaded, at: loaded.rules.seat_command(0, "ref", 400, at))
        tables.handle(table_id, lambda loaded, at: loaded.rules.add_chips_command(0, 100, at))
        tables.handle(table_id, lambda loaded, at: loaded.rules.remove_command(0, at))

    left: dict[int, int] = {}

    def cashier(table_id: int) -> None:
        # back within the hour: at least the chips left with (CASH-RETURN-1), so each cycle brings those
        service.buy_in(user, table_id, 0, left.get(table_id, 400))
        service.top_up(user, table_id, 100)
        left[table_id] = service.cash_out(user, table_id).amount

    timings: dict[str, list[float]] = {"reference": [], "cashier": []}
    kinds: dict[str, Callable[[int], None]] = {"reference": reference, "cashier": cashier}
    load_before = os.getloadavg()
    for _ in range(options.rounds):
        for name, cycle in kinds.items():
            table_id = cash_tables.open_cash_table(
                name=f"bench {name}",
                game="NT",
                stakes=config.forced,
                seats=6,
                min_buy_in=1,
                max_buy_in=10**9,
                actor="bench",
            )
            cycle(table_id)  # warm: the first cycle at a table loads it
            began = time.perf_counter()
            for _ in range(options.cycles):
                cycle(table_id)
            timings[name].append((time.perf_counter() - began) * 1000 / (3 * options.cycles))
    load_after = os.getloadavg()
    connections.close_all()
    _drop(url)
    best = {name: min(values) for name, values in timings.items()}
    return {
        "machine": machine_info(),
        "load_average_before": load_before,
        "load_average_after": load_after,
        "cycles_per_round": options.cycles,
        "rounds": options.rounds,
        "ms_per_operation_best": {k: round(v, 3) for k, v in best.items()},
        "ms_per_operation_median": {k: round(statistics.median(v), 3) for k, v in timings.items()},
        "cashier_over_reference": round(best["cashier"] / best["reference"], 2),
    }


def main(argv: Sequence[str] | None = None) -> int:
    summary = run(parse(argv))
    print(json.dumps(summary, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
