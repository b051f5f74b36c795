"""``benchmarks/service.py``'s ``--game CODE`` (issue 17: ``make bench-service`` runs hold'em tables as well
as Italian ones): a registered code gives that game's table configuration, an unknown one is refused on the
command line (exit 2, a line on stderr) before anything starts."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from benchmarks import service as bench
from engine.core import ForcedBets, find_game


def test_the_default_game_is_pot_limit_poker_all_italiana() -> None:
    options = bench.parse([])
    assert options.game == "PIT"
    config = bench.table_config(options.game)
    assert config.seats == 4 and config.invito == 10 and not config.tournament
    assert find_game("PIT").limit == "PL"


def test_holdem_tables_have_blinds_5_10() -> None:
    options = bench.parse(["--game", "nt", "--tables", "3"])  # codes in any case
    assert options.game == "NT"
    config = bench.table_config(options.game)
    assert config.seats == 4 and not config.tournament
    assert config.forced == ForcedBets(small_blind=5, big_blind=10)
    assert (config.action_time_ms, config.time_bank_ms) == (30_000, 60_000)


def test_an_unknown_game_is_refused_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        bench.parse(["--game", "XX"])
    assert stopped.value.code == 2
    assert "--game: unknown game 'XX'" in capsys.readouterr().err


def test_pin_web_puts_the_web_tree_on_its_cpus_and_the_rest_on_the_others() -> None:
    """``--pin-web 0`` (issue 22): the web process and its children on CPU 0, every other process on the
    rest, threads included (what the benchmark measures one web core with)."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one CPU: nothing to split")
    starter = "import subprocess, time; subprocess.Popen(['sleep', '30']); time.sleep(30)"
    web = subprocess.Popen([sys.executable, "-c", starter])
    other = subprocess.Popen(["sleep", "30"])
    tree: list[int] = []
    try:
        for _ in range(200):  # until the web's child is started
            tree = bench.process_tree(web.pid)
            if len(tree) == 2:
                break
            time.sleep(0.05)
        assert len(tree) == 2
        options = bench.parse(["--pin-web", "0"])
        pids = {"web": (web.pid, True, True), "worker": (other.pid, True, True)}
        web_cpus, rest = bench.pin(options.pin_web, pids)
        assert web_cpus == {0} and rest == set(range(os.cpu_count() or 1)) - {0}
        assert all(os.sched_getaffinity(pid) == {0} for pid in tree)
        assert os.sched_getaffinity(other.pid) == rest
    finally:
        for pid in [*tree[1:], web.pid, other.pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        web.wait()
        other.wait()


@pytest.mark.parametrize("value", ["x", "0,,1", "99"])
def test_a_bad_pin_web_is_refused_on_the_command_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        bench.parse(["--pin-web", value])
    assert stopped.value.code == 2
    assert "--pin-web" in capsys.readouterr().err
