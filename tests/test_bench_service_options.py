"""``benchmarks/service.py``'s ``--game CODE`` (issue 17: ``make bench-service`` runs hold'em tables as well
as Italian ones): a registered code gives that game's table configuration, an unknown one is refused on the
command line (exit 2, a line on stderr) before anything starts."""

from __future__ import annotations

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
