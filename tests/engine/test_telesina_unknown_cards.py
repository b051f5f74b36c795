"""Telesina hands with unknown cards (issue 19, XX-HH-1): ``??`` for a hidden card in a Telesina PHH file, as
the other games' files have them. ``python -m engine.replay`` deals each unknown card from the hand's own
deck (IT-DECK-1: cut by the players; a card of the 52-card deck below it is no card of this hand) and, for
a player who reaches the showdown, the weakest such card against the file's vele and layout (TL-VELE-1),
so that an unknown hand never wins a pot a known hand contests; a card shown later is that card."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine.core.history import replay_hand
from engine.phh import loads_histories

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "telesina_unknown"


def test_telesina_files_with_unknown_hole_cards_replay_on_the_command_line() -> None:
    files = sorted(DATA.glob("*.phh"))
    assert len(files) == 3
    result = subprocess.run(
        [sys.executable, "-m", "engine.replay", *map(str, files)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == ["3 files replayed: 3 passed, 0 failed"]


def test_each_file_replays_through_the_registered_game() -> None:
    """The folded player's unknown card is a card of the 24-card deck (before issue 19's fix it was a 2 of
    the 52-card deck, refused as no card of the stock); the mucked hand is valued with the vele of the
    croce (the standard evaluator knew no 10-card hand)."""
    for path in sorted(DATA.glob("*.phh")):
        (history,) = loads_histories(path.read_text(), where=str(path))
        assert any(None in action.written for action in history.actions), path
        assert replay_hand(history) is None, path


def test_a_wrong_finishing_stack_with_an_unknown_card_is_still_a_difference(tmp_path: Path) -> None:
    text = (
        (DATA / "croce_mucked.phh")
        .read_text()
        .replace("finishing_stacks = [70, 130]", "finishing_stacks = [130, 70]")
    )
    wrong = tmp_path / "wrong.phh"
    wrong.write_text(text)
    result = subprocess.run(
        [sys.executable, "-m", "engine.replay", str(wrong)],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert result.returncode == 1, result.stdout + result.stderr
