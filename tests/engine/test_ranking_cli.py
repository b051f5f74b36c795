"""``python -m engine.evaluation FILE...``: the shared ranking vectors, failures (exit 1) and malformed files
(exit 2 with the file, the entry and the reason)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def run(*files: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.evaluation", *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_every_shared_ranking_vector_passes(shared_dir: Path) -> None:
    result = run(shared_dir / "scenarios" / "ranking.toml")
    assert result.returncode == 0, result.stdout + result.stderr
    cases = (shared_dir / "scenarios" / "ranking.toml").read_text().count("[[case]]")
    pots = (shared_dir / "scenarios" / "ranking.toml").read_text().count("[[pot]]")
    assert result.stdout.strip().splitlines()[-1] == f"1 file checked: {cases + pots} passed, 0 failed"
    assert "FAIL" not in result.stdout and result.stderr == ""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_failing_case_prints_one_line_and_exits_1(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "wrong.toml",
        '[[case]]\nranking = "italian"\nplayers = 4\nbetter = "JhJsJc8s8c"\nworse = "AdKdJd9d8d"\n'
        '[[case]]\nranking = "standard"\nequal = ["AhKhQhJh9h", "AsKsQsJs9s"]\n'
        '[[case]]\nranking = "standard"\nequal = ["AhKhQhJh9h", "AsKsQsJs8s"]\n'
        '[[pot]]\nranking = "italian"\nplayers = 4\nhands = ["AhKhQhJhTh", "As7s8s9sTs"]\nwinner = 0\n',
    )
    result = run(path)
    assert result.returncode == 1
    lines = result.stdout.strip().splitlines()
    assert lines[0] == (
        f"FAIL {path}: case 1: expected JhJsJc8s8c (Full house, jacks full of eights) to beat "
        "AdKdJd9d8d (Ace-high flush in diamonds), but it loses to it"
    )
    assert lines[1].startswith(f"FAIL {path}: case 3: expected a tie, but AhKhQhJh9h")
    assert lines[2].startswith(f"FAIL {path}: pot 1: expected winner(s) [0], got [1]")
    assert lines[-1] == "1 file checked: 1 passed, 3 failed"


def test_minimal_beats_royal_option_off(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "off.toml",
        '[[pot]]\nranking = "italian"\nplayers = 4\nhands = ["AhKhQhJhTh", "As7s8s9sTs"]\nwinner = 0\n'
        'minimal_beats_royal = "off"\n',
    )
    assert run(path).returncode == 0


@pytest.mark.parametrize(
    ("text", "where", "reason"),
    [
        ("[[case]\n", "file", "not valid TOML"),
        ('[[case]]\nranking = "french"\nbetter = "AhKh"\nworse = "2c3c"\n', "case 1", "ranking must be"),
        (
            '[[case]]\nranking = "italian"\nplayers = 12\nbetter = "AhKhQhJhTh"\nworse = "AsKsQsJsTs"\n',
            "case 1",
            "players: poker all'italiana is played by 2 to 9 players",
        ),
        (
            '[[case]]\nranking = "italian"\nplayers = 4\nbetter = "6hKhQhJhTh"\nworse = "AsKsQsJsTs"\n',
            "case 1",
            "better: 6h is not in the deck in play",
        ),
        (
            '[[case]]\nranking = "standard"\nbetter = "AhKhQhJhTx"\nworse = "AsKsQsJsTs"\n',
            "case 1",
            "better: 'Tx' is not a card",
        ),
        ('[[case]]\nranking = "standard"\nbetter = "AhKhQhJhTh"\n', "case 1", "needs better and worse"),
        (
            '[[case]]\nranking = "standard"\nbetter = "AhKhQhJh"\nworse = "AsKsQsJsTs"\n',
            "case 1",
            "better: a standard hand has 3, 5, 6, 7 cards, not 4",
        ),
        (
            '[[case]]\nranking = "standard"\nbettter = "AhKhQhJhTh"\nworse = "AsKsQsJsTs"\n',
            "case 1",
            "unknown field(s) bettter",
        ),
        (
            '[[pot]]\nranking = "italian"\nplayers = 4\nhands = ["AhKhQhJhTh", "As7s8s9sTs"]\nwinner = 2\n',
            "pot 1",
            "winner(s) must be indexes into hands (0..1)",
        ),
        (
            '[[pot]]\nranking = "italian"\nplayers = 4\nhands = ["AhKhQhJhTh", "As7s8s9sTs"]\nwinner = 0\n'
            'minimal_beats_royal = "sometimes"\n',
            "pot 1",
            "minimal_beats_royal must be one of",
        ),
        ("title = 'x'\n", "file", "unknown table(s) title"),
        ("", "file", "no [[case]] or [[pot]] entries"),
    ],
)
def test_malformed_files_exit_2_naming_file_entry_and_reason(
    tmp_path: Path, text: str, where: str, reason: str
) -> None:
    path = write(tmp_path, "bad.toml", text)
    result = run(path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith(f"{path}: {where}: malformed: ")
    assert reason in result.stderr


def test_a_missing_file_is_malformed_and_others_are_still_checked(tmp_path: Path, shared_dir: Path) -> None:
    result = run(tmp_path / "nope.toml", shared_dir / "scenarios" / "ranking.toml")
    assert result.returncode == 2
    assert "nope.toml: file: malformed: cannot read it" in result.stderr
    assert ": 20 passed, 0 failed" in result.stdout


def test_no_arguments_is_a_usage_error() -> None:
    result = run()
    assert result.returncode == 2
    assert "usage:" in result.stderr
