"""The ``# automatic: preference`` comment of PHH actions (IT-AUTO-1, docs/hand-history-format.md): the
committed scenario hands replay with it (the comment is ignored), and :func:`engine.phh.mark_actions` finds
the action written for an event by the event's seat and kind (the *k*-th show, muck, bet … of a seat is the
*k*-th such action of its player). No database: the files are written by ``tests/tables/test_auto_phh.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from engine.phh import (
    AUTOMATIC_PREFERENCE_NOTE,
    HandHistory,
    load_histories,
    loads_histories,
    mark_actions,
    parse_standard_action,
)
from engine.replay import main, replay_file

DATA = Path(__file__).resolve().parents[1] / "data"
FILES = sorted([*(DATA / "auto").glob("*.phh"), *(DATA / "telesina" / "auto").glob("*.phhs")])
NOTE = f"# {AUTOMATIC_PREFERENCE_NOTE}"


def test_it_auto_1_there_is_a_file_for_each_option() -> None:
    assert [f.name for f in FILES] == [
        "blind_no.phh",
        "blind_yes.phh",
        "showdown_hide.phh",
        "showdown_show.phh",
        "giro_distribution_always.phhs",
        "giro_vele_always.phhs",
    ]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_it_auto_1_each_scenario_replays_with_its_comments(path: Path, tmp_path: Path) -> None:
    """Each file replays to its finishing stacks, and replays the same with its comments removed: the
    comment changes no action (the parsed actions are the same but for their text)."""
    assert replay_file(str(path)) is None
    assert main([str(path)]) == 0
    text = path.read_text()
    bare = tmp_path / path.name
    bare.write_text(text.replace(f" {NOTE}", ""))
    assert replay_file(str(bare)) is None
    for noted, plain in zip(load_histories(path), load_histories(bare), strict=True):
        assert [replace(a, text="") for a in noted.actions] == [replace(a, text="") for a in plain.actions]
    if path.parent.name == "auto" and path.parent.parent.name == "data":
        assert text.count(NOTE) == 1  # poker all'italiana: one decision per file


def test_it_auto_1_a_marked_action_not_matching_the_rule_would_be_refused(tmp_path: Path) -> None:
    """The comment does not hide an action from the replay: a blind bet of the wrong amount with the comment
    is still the difference (IT-BUIO-1: the buio is the pot)."""
    path = DATA / "auto" / "blind_yes.phh"
    wrong = tmp_path / "blind_yes.phh"
    wrong.write_text(path.read_text().replace(f'"p1 cbr 30 {NOTE}"', f'"p1 cbr 31 {NOTE}"'))
    difference = replay_file(str(wrong))
    assert difference is not None and difference.action == 1 and "cbr 31" in difference.text


# --- mark_actions -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BetPlaced:
    seat: int


@dataclass(frozen=True, slots=True)
class Called:
    seat: int


@dataclass(frozen=True, slots=True)
class HandShown:
    seat: int


@dataclass(frozen=True, slots=True)
class HandMucked:
    seat: int


@dataclass(frozen=True, slots=True)
class HandEnded:
    pass


HAND = """
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [5, 10, 0]
min_bet = 10
starting_stacks = [100, 100, 100]
seats = [3, 1, 2]
actions = ["d dh p1 AhKh", "d dh p2 QsQd", "d dh p3 2c7d", "p3 cbr 20", "p1 cbr 40", "p2 cc", "p3 cc",
           "d db 2h3h4h", "p1 cbr 60", "p2 cc", "p3 cc", "p1 sm AhKh", "p2 sm", "p3 sm 2c7d"]
"""


def history() -> HandHistory:
    (found,) = loads_histories(HAND)
    return found


def texts(marked: HandHistory) -> list[str]:
    return [a.text for a in marked.actions if "#" in a.text]


def test_mark_actions_finds_the_kth_action_of_the_seats_kind() -> None:
    # seats [3, 1, 2]: seat 2 (0-based) is p1, seat 0 is p2, seat 1 is p3
    events = [
        BetPlaced(1),  # p3 cbr 20
        BetPlaced(2),  # p1 cbr 40
        Called(0),
        Called(1),
        BetPlaced(2),  # p1 cbr 60: the seat's second bet
        Called(0),
        Called(1),
        HandShown(2),
        HandMucked(0),  # p2 sm
        HandShown(1),  # p3 sm 2c7d
        HandEnded(),
    ]
    marked = mark_actions(history(), events, {4: "automatic: preference", 8: "x", 9: "y"})
    assert texts(marked) == ["p1 cbr 60 # automatic: preference", "p2 sm # x", "p3 sm 2c7d # y"]
    # each marked action parses as before
    for before, after in zip(history().actions, marked.actions, strict=True):
        assert replace(parse_standard_action(after.text, 3), text="") == replace(before, text="")


def test_mark_actions_leaves_what_it_cannot_find() -> None:
    original = history()
    assert mark_actions(original, [HandEnded()], {0: "x"}) is original  # not a player's action
    assert mark_actions(original, [HandMucked(2)], {0: "x"}) is original  # p1 showed: no muck of p1
    assert mark_actions(original, [BetPlaced(2)], {}) is original
    seatless = replace(original, seats=())  # without seats, no seat can be found
    assert mark_actions(seatless, [BetPlaced(2)], {0: "x"}) is seatless
    # a text already commented keeps its comment first
    last = replace(original.actions[-1], text="p3 sm 2c7d # a")
    commented = replace(original, actions=(*original.actions[:-1], last))
    shown = [HandShown(2), HandShown(1)]
    assert texts(mark_actions(commented, shown, {1: "b"})) == ["p3 sm 2c7d # a # b"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            (
                'giro_choice = "preference"\ngiro_timeout = true',
                'giro_choice = "dealer"\ngiro_timeout = true',
            ),
            "dealer",
        ),
        (("giro_timeout = true", "giro_timeout = false"), "False"),
    ],
)
def test_tl_giro_1_giro_timeout_only_on_a_choice_the_table_made(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    """``giro_timeout = true`` says the table chose at the dealer's time-out (IT-AUTO-1, TL-GIRO-1): with
    ``giro_choice = "dealer"`` (the dealer chose) the file contradicts itself, a difference for the replay."""
    path = DATA / "telesina" / "auto" / "giro_vele_always.phhs"
    text = path.read_text()
    assert change[0] in text
    broken = tmp_path / path.name
    broken.write_text(text.replace(change[0], change[1], 1))
    difference = replay_file(str(broken))
    assert difference is not None and difference.hand == 3, difference
    assert "giro_timeout" in difference.expected and expected in difference.actual
