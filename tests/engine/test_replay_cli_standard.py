"""``python -m engine.replay FILE...`` on standard PHH files (issue 16, XX-HH-1): real files of the registered
games replay (exit 0); a file that departs from the engine prints the file, the hand, the action index and
text, expected vs actual (exit 1); a malformed file is reported on stderr with the file and where (exit 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "phh"


def replay(*files: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.replay", *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )


def test_real_holdem_omaha_and_stud_files_replay() -> None:
    files = [
        *sorted((DATA / "pluribus").glob("*.phh")),
        DATA / "handhq" / "abs-100NLH-handhq_1-sample.phhs",
        DATA / "historical" / "antonius-blom-2009.phh",
        DATA / "wsop-2023-43" / "27.phh",
        DATA / "wsop-2023-43" / "34.phh",
        DATA / "wsop-2023-43" / "5.phh",  # fixed-limit seven card stud
        DATA / "wsop-2023-43" / "69.phh",
    ]
    result = replay(*files)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [f"{len(files)} files replayed: {len(files)} passed, 0 failed"]


def test_a_difference_names_the_file_hand_and_action(tmp_path: Path) -> None:
    text = (DATA / "handhq" / "abs-100NLH-handhq_1-sample.phhs").read_text(encoding="utf-8")
    old = "winnings = [0, 0, 0, 17.55, 0, 0, 0]"
    assert text.count(old) == 1
    path = tmp_path / "changed.phhs"
    path.write_text(text.replace(old, "winnings = [0, 17.55, 0, 0, 0, 0, 0]"), encoding="utf-8")
    good = DATA / "pluribus" / "50-0.phh"
    result = replay(path, good)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{path}: hand 8, end: expected winnings [0, 17.55, 0, 0, 0, 0, 0] (after rake), "
        "got [0, 0, 0, 19, 0, 0, 0]",
        "2 files replayed: 1 passed, 1 failed",
    ]


def test_a_refused_action_is_reported_with_its_index(tmp_path: Path) -> None:
    text = (DATA / "pluribus" / "30-12.phh").read_text(encoding="utf-8")
    path = tmp_path / "refused.phh"
    path.write_text(text.replace("'p6 cbr 225'", "'p6 cbr 150'"), encoding="utf-8")
    result = replay(path)
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == (
        f"{path}: hand 1, action 10 (p6 cbr 150): expected the action to be accepted, "
        "got refused: the bet must be to between 200 and 10000 chips, not 150"
    )


def test_a_game_we_do_not_play_is_a_difference_at_the_start() -> None:
    result = replay(DATA / "wsop-2023-43" / "45.phh")
    assert result.returncode == 1
    assert "hand 1, start: expected a hand this engine plays, got unknown game 'N2L1D'" in result.stdout


def test_a_malformed_standard_file_names_the_line(tmp_path: Path) -> None:
    text = (DATA / "pluribus" / "30-12.phh").read_text(encoding="utf-8")
    path = tmp_path / "malformed.phh"
    path.write_text(text.replace("'p6 cbr 225'", "'p6 raise 225'"), encoding="utf-8")
    result = replay(path)
    assert result.returncode == 2
    assert result.stderr == f"{path}: hand 1, action 10: malformed: 'p6 raise 225' is not a PHH action\n"
    path.write_text(text.replace("min_bet = 100", "min_bet = -100"), encoding="utf-8")
    result = replay(path)
    assert result.returncode == 2
    assert (
        result.stderr
        == f"{path}: hand 1: malformed: min_bet must be an amount >= 0 (an integer or a decimal)\n"
    )
    path.write_text(text.replace("variant = 'NT'", "variant = 'NT"), encoding="utf-8")
    result = replay(path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"{path}: file: malformed: not valid TOML: ")
