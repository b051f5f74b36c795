"""``python -m engine.replay FILE...``: the shared scenarios replay (exit 0); a file that departs from the
engine prints one line with the file, the hand, the action and expected vs actual (exit 1); a malformed file
is reported on stderr as ``FILE: WHERE: malformed: REASON`` (exit 2); every file is replayed whatever
happens to the others."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
IT01 = "it01_open_cambio_showdown.phh"
IT02 = "it02_no_opening_escalates.phhs"
IT03 = "it03_buio_controbuio.phh"
IT04 = "it04_parol.phhs"


def replay(*files: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.replay", *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )


def scenarios(shared_dir: Path) -> list[Path]:
    folder = shared_dir / "scenarios" / "italian"
    return sorted([*folder.glob("*.phh"), *folder.glob("*.phhs")])


def mutated(shared_dir: Path, tmp_path: Path, name: str, old: str, new: str, count: int = 1) -> Path:
    """A copy of the shared scenario ``name`` in ``tmp_path`` with ``old`` replaced by ``new``."""
    text = (shared_dir / "scenarios" / "italian" / name).read_text(encoding="utf-8")
    assert text.count(old) == count, f"{old!r} is not in {name} {count} time(s): the scenario changed"
    path = tmp_path / name
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------------------
# The shared scenarios
# --------------------------------------------------------------------------------------------------------


def test_every_shared_scenario_replays(shared_dir: Path) -> None:
    files = scenarios(shared_dir)
    assert {IT01, IT02, IT03, IT04} <= {path.name for path in files}
    result = replay(*files)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [f"{len(files)} files replayed: {len(files)} passed, 0 failed"]
    assert result.stderr == ""


def test_each_shared_scenario_replays_on_its_own(shared_dir: Path) -> None:
    for path in scenarios(shared_dir):
        result = replay(path)
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.splitlines() == ["1 file replayed: 1 passed, 0 failed"], path.name
        assert result.stderr == ""


# --------------------------------------------------------------------------------------------------------
# Differences: exit 1, exactly one line per file
# --------------------------------------------------------------------------------------------------------


def assert_one_difference(result: subprocess.CompletedProcess[str], line: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.splitlines() == [line, "1 file replayed: 0 passed, 1 failed"]
    assert result.stderr == ""


def test_a_wrong_finishing_stack(shared_dir: Path, tmp_path: Path) -> None:
    path = mutated(
        shared_dir,
        tmp_path,
        IT01,
        "finishing_stacks = [1190, 830, 990, 990]",
        "finishing_stacks = [1190, 830, 990, 991]",
    )
    assert_one_difference(
        replay(path),
        f"{path}: hand 1, end: expected finishing stacks [1190, 830, 990, 991], got [1190, 830, 990, 990]",
    )


def test_a_wrong_finishing_stack_in_the_second_hand(shared_dir: Path, tmp_path: Path) -> None:
    path = mutated(
        shared_dir, tmp_path, IT04, "finishing_stacks = [780, 240, 480]", "finishing_stacks = [240, 780, 480]"
    )
    assert_one_difference(
        replay(path),
        f"{path}: hand 2, end: expected finishing stacks [240, 780, 480], got [780, 240, 480]",
    )


def test_an_illegal_action_not_marked(shared_dir: Path, tmp_path: Path) -> None:
    # pot 40 before the opening: the pot-limit maximum is 40 (IT-LIMIT-2)
    path = mutated(shared_dir, tmp_path, IT01, '"p1 cbr 50 # !illegal"', '"p1 cbr 50"')
    assert_one_difference(
        replay(path),
        f"{path}: hand 1, action 5 (p1 cbr 50): expected the action to be accepted, "
        "got refused: the bet must be between 10 and 40, not 50",
    )


def test_an_illegal_blind_bet_not_marked(shared_dir: Path, tmp_path: Path) -> None:
    # the buio is the pot, 40 (IT-BUIO-1)
    path = mutated(shared_dir, tmp_path, IT03, '"p1 cbr 30 # !illegal"', '"p1 cbr 30"')
    assert_one_difference(
        replay(path),
        f"{path}: hand 1, action 1 (p1 cbr 30): expected the action to be accepted, "
        "got refused: the buio is 40 chips, not 30",
    )


def test_a_legal_action_marked_illegal(shared_dir: Path, tmp_path: Path) -> None:
    path = mutated(shared_dir, tmp_path, IT01, '"p1 cbr 40",', '"p1 cbr 40 # !illegal",')
    assert_one_difference(
        replay(path),
        f"{path}: hand 1, action 6 (p1 cbr 40 # !illegal): expected the action to be refused (# !illegal), "
        "got accepted",
    )


def test_a_legal_action_marked_illegal_in_the_second_hand(shared_dir: Path, tmp_path: Path) -> None:
    # the parol hand's minimum opening bet is the pot, 60 (IT-PAROL-3)
    path = mutated(shared_dir, tmp_path, IT04, '"p1 cbr 60",', '"p1 cbr 60 # !illegal",')
    assert_one_difference(
        replay(path),
        f"{path}: hand 2, action 5 (p1 cbr 60 # !illegal): expected the action to be refused (# !illegal), "
        "got accepted",
    )


@pytest.mark.parametrize(
    ("old", "new", "action", "missing"),
    [
        # 4 players: the deck goes down to the 7s (IT-DECK-1)
        ('"d dh p2 QhQsKd8d7d"', '"d dh p2 QhQsKd8d2d"', "2 (d dh p2 QhQsKd8d2d)", "2d"),
        # the jack of hearts went to p1
        ('"d dh p2 QhQsKd8d7d"', '"d dh p2 QhQsKd8dJh"', "2 (d dh p2 QhQsKd8dJh)", "Jh"),
        # in the cambio: the 9 of clubs is p1's own discard, not in the stock
        ('"d dh p1 JcKs8c"', '"d dh p1 Jc9c8c"', "11 (d dh p1 Jc9c8c)", "9c"),
    ],
)
def test_a_card_not_in_the_stock(
    shared_dir: Path, tmp_path: Path, old: str, new: str, action: str, missing: str
) -> None:
    path = mutated(shared_dir, tmp_path, IT01, old, new)
    assert_one_difference(
        replay(path),
        f"{path}: hand 1, action {action}: expected the action to be accepted, "
        f"got refused: {missing} is not in the stock",
    )


def test_a_wrong_opening_in_the_second_hand(shared_dir: Path, tmp_path: Path) -> None:
    # nobody opened hand 1: hand 2 needs queens (IT-OPEN-2)
    path = mutated(shared_dir, tmp_path, IT02, 'opening = "Q"', 'opening = "J"')
    assert_one_difference(replay(path), f"{path}: hand 2, start: expected opening J, got Q")


def test_a_wrong_carried_pot_in_the_second_hand(shared_dir: Path, tmp_path: Path) -> None:
    path = mutated(shared_dir, tmp_path, IT02, "carried_pot = 15", "carried_pot = 10")
    assert_one_difference(replay(path), f"{path}: hand 2, start: expected carried pot 10, got 15")


def test_a_hand_that_stops_too_early(shared_dir: Path, tmp_path: Path) -> None:
    path = mutated(shared_dir, tmp_path, IT01, '  "p2 sm",\n', "")
    assert_one_difference(
        replay(path),
        f"{path}: hand 1, end: expected the hand to be over, got still waiting for seat 1 to act",
    )


# --------------------------------------------------------------------------------------------------------
# Malformed files: exit 2, the reason on stderr
# --------------------------------------------------------------------------------------------------------


def assert_malformed(result: subprocess.CompletedProcess[str], line: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.splitlines() == [line]
    assert result.stdout.splitlines() == ["1 file replayed: 0 passed, 0 failed, 1 malformed"]


def test_bad_toml(shared_dir: Path, tmp_path: Path) -> None:
    path = mutated(shared_dir, tmp_path, IT01, "antes = [10, 10, 10, 10]", "antes = [10, 10, 10, 10")
    result = replay(path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"{path}: file: malformed: not valid TOML: ")
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("name", "old", "new", "where", "reason"),
    [
        (
            IT01,
            'variant = "PIT"',
            'variant = "NT"',
            "hand 1",
            "variant 'NT' is not poker all'italiana (NIT, PIT, FIT)",
        ),
        (IT01, '"p4 f",', '"p9 f",', "hand 1, action 9", "p9 does not exist: the hand has 4 players"),
        (
            IT01,
            '"p1 cbr 40",',
            '"p1 cbr forty",',
            "hand 1, action 6",
            "'p1 cbr forty': 'cbr' takes one whole amount",
        ),
        (
            IT01,
            '"p1 cbr 40",',
            '"p1 cbr 40.5",',
            "hand 1, action 6",
            "'p1 cbr 40.5': 'cbr' takes one whole amount",
        ),
        (IT01, '"p1 cbr 40",', '"p1 cbr",', "hand 1, action 6", "'p1 cbr': 'cbr' takes one whole amount"),
        (
            IT01,
            '"d dh p2 QhQsKd8d7d"',
            '"d dh p2 QhQsKd8d7x"',
            "hand 1, action 2",
            "'7x' is not a card: suit 'x' is not one of c d h s",
        ),
        (
            IT01,
            '"p1 sd 7c8s9c"',
            '"p1 sd 7c8s10c"',
            "hand 1, action 10",
            "'7c8s10c' is not a list of cards: ten is 'T', not '10'",
        ),
        (IT01, '"p3 f",', '"p3 fold",', "hand 1, action 8", "'p3 fold' is not an action this replay knows"),
        (
            IT02,
            'opening = "Q"',
            'opening = "A"',
            "hand 2",
            'opening must be "J", "Q" or "K", not \'A\'',
        ),
        (
            IT02,
            '"p3 cbr 70",',
            '"p3 cbr -70",',
            "hand 2, action 8",
            "'p3 cbr -70': 'cbr' takes one whole amount",
        ),
        (
            IT04,
            "starting_stacks = [480, 480, 480]",
            "starting_stacks = [480, 480]",
            "hand 2",
            "starting_stacks must be a list of 3 whole numbers >= 0",
        ),
    ],
)
def test_malformed_files(
    shared_dir: Path, tmp_path: Path, name: str, old: str, new: str, where: str, reason: str
) -> None:
    path = mutated(shared_dir, tmp_path, name, old, new)
    assert_malformed(replay(path), f"{path}: {where}: malformed: {reason}")


def test_a_phhs_file_with_a_table_that_is_not_a_hand(shared_dir: Path, tmp_path: Path) -> None:
    path = mutated(shared_dir, tmp_path, IT02, "[2]\n", "[second]\n")
    assert_malformed(replay(path), f"{path}: file: malformed: a .phhs file holds only the tables [1], [2], …")


def test_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.phh"
    assert_malformed(replay(path), f"{path}: file: malformed: cannot read it: No such file or directory")


# --------------------------------------------------------------------------------------------------------
# Several files
# --------------------------------------------------------------------------------------------------------


def test_one_failing_file_among_good_ones(shared_dir: Path, tmp_path: Path) -> None:
    good = scenarios(shared_dir)
    bad = mutated(
        shared_dir,
        tmp_path,
        IT03,
        "finishing_stacks = [2030, 910, 70, 990]",
        "finishing_stacks = [2030, 910, 990, 70]",
    )
    result = replay(good[0], bad, *good[1:])
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{bad}: hand 1, end: expected finishing stacks [2030, 910, 990, 70], got [2030, 910, 70, 990]",
        f"{len(good) + 1} files replayed: {len(good)} passed, 1 failed",
    ]
    assert result.stderr == ""


def test_failing_and_malformed_files_among_good_ones(shared_dir: Path, tmp_path: Path) -> None:
    good = scenarios(shared_dir)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    failing = mutated(shared_dir, tmp_path / "a", IT02, 'opening = "Q"', 'opening = "K"')
    malformed = mutated(shared_dir, tmp_path / "b", IT01, '"p4 f",', '"p9 f",')
    result = replay(malformed, *good, failing)
    assert result.returncode == 2  # a malformed file wins over a difference
    assert result.stdout.splitlines() == [
        f"{failing}: hand 2, start: expected opening K, got Q",
        f"{len(good) + 2} files replayed: {len(good)} passed, 1 failed, 1 malformed",
    ]
    assert result.stderr.splitlines() == [
        f"{malformed}: hand 1, action 9: malformed: p9 does not exist: the hand has 4 players"
    ]


def test_the_same_good_file_twice(shared_dir: Path) -> None:
    path = scenarios(shared_dir)[0]
    result = replay(path, path)
    assert result.returncode == 0
    assert result.stdout.splitlines() == ["2 files replayed: 2 passed, 0 failed"]


def test_no_file_is_a_usage_error() -> None:
    result = replay()
    assert result.returncode == 2  # argparse
    assert "usage: python -m engine.replay" in result.stderr
    assert result.stdout == ""


# --------------------------------------------------------------------------------------------------------
# Bugs: files the command should report as malformed (exit 2) but that crash it with a traceback
# --------------------------------------------------------------------------------------------------------


def test_a_superscript_amount_is_malformed_for_the_replay(shared_dir: Path, tmp_path: Path) -> None:
    path = mutated(shared_dir, tmp_path, IT01, '"p1 cbr 40",', '"p1 cbr ²",')
    assert_malformed(
        replay(path), f"{path}: hand 1, action 6: malformed: 'p1 cbr ²': 'cbr' takes one whole amount"
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('players = ["Anna", "Bruno"', 'players = ["Anna", "Anna"'),
        ('players = ["Anna", "Bruno"', 'players = ["", "Bruno"'),
    ],
)
def test_players_that_cannot_be_seated_are_malformed(
    shared_dir: Path, tmp_path: Path, old: str, new: str
) -> None:
    path = mutated(shared_dir, tmp_path, IT01, old, new)
    result = replay(path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"{path}: hand 1: malformed: ")
    assert "Traceback" not in result.stderr
