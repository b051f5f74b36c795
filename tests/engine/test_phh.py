"""engine.phh: PHH actions with the Italian extensions (shared/scenarios/README.md), reading ``.phh`` and
``.phhs`` files, writing them back (round trip through TOML), and exporting a hand played by the decider."""

from __future__ import annotations

import itertools
import random
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.cards import Card, Deck, parse_cards
from engine.italian import decide, evolve
from engine.italian.bot import play_hand
from engine.italian.model import (
    BetOrRaise,
    CheckOrCall,
    Command,
    DealCards,
    DeclineBlind,
    Discard,
    Event,
    Fold,
    HandEnded,
    HandResult,
    Limit,
    MuckHand,
    Partecipate,
    SayParol,
    StartHand,
    TableState,
)
from engine.phh import (
    Action,
    HandHistory,
    MalformedHistory,
    export_hand,
    format_history,
    load_histories,
    parse_action,
    parse_history,
)
from engine.replay import replay_histories
from engine.shuffle import shuffle
from tests.engine.italian.helpers import table


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def scenario_files(shared_dir: Path) -> list[Path]:
    folder = shared_dir / "scenarios" / "italian"
    return sorted([*folder.glob("*.phh"), *folder.glob("*.phhs")])


# --------------------------------------------------------------------------------------------------------
# parse_action
# --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("d dh p1 JhJd7c8s9c", Action("d dh p1 JhJd7c8s9c", None, "dh", target=0, cards=cards("JhJd7c8s9c"))),
        ("d dh p4 Ks", Action("d dh p4 Ks", None, "dh", target=3, cards=cards("Ks"))),
        ("p1 cbr 40", Action("p1 cbr 40", 0, "cbr", amount=40)),
        ("p3 cbr 0", Action("p3 cbr 0", 2, "cbr", amount=0)),
        ("p2 cc", Action("p2 cc", 1, "cc")),
        ("p3 f", Action("p3 f", 2, "f")),
        ("p1 pa", Action("p1 pa", 0, "pa")),
        ("p2 pt", Action("p2 pt", 1, "pt")),
        ("p3 dc", Action("p3 dc", 2, "dc")),
        ("p1 sd 7c8s9c", Action("p1 sd 7c8s9c", 0, "sd", cards=cards("7c8s9c"))),
        ("p3 sd", Action("p3 sd", 2, "sd")),  # servito
        ("p1 sm JhJdJcKs8c", Action("p1 sm JhJdJcKs8c", 0, "sm", cards=cards("JhJdJcKs8c"))),
        ("p2 sm", Action("p2 sm", 1, "sm")),  # nascondo
        ("p4 f", Action("p4 f", 3, "f")),
    ],
)
def test_parse_action_every_verb(text: str, expected: Action) -> None:
    assert parse_action(text, 4) == expected


@pytest.mark.parametrize(
    "text",
    [
        "p1 cbr 50 # !illegal",
        "p1 cbr 50 #!illegal",
        "p1 cbr 50   #   !illegal",
        "p1 cbr 50 # !illegal: over the pot limit",
    ],
)
def test_illegal_marker(text: str) -> None:
    assert parse_action(text, 4) == Action(text, 0, "cbr", amount=50, illegal=True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("p3 cbr 160 # !illegal", Action("p3 cbr 160 # !illegal", 2, "cbr", amount=160, illegal=True)),
        ("p2 cc # !illegal", Action("p2 cc # !illegal", 1, "cc", illegal=True)),
        ("p1 pa # !illegal", Action("p1 pa # !illegal", 0, "pa", illegal=True)),
        ("p2 pt # !illegal", Action("p2 pt # !illegal", 1, "pt", illegal=True)),
        ("p2 dc # !illegal", Action("p2 dc # !illegal", 1, "dc", illegal=True)),
        ("p1 sd 7c # !illegal", Action("p1 sd 7c # !illegal", 0, "sd", cards=cards("7c"), illegal=True)),
        ("p1 sm # !illegal", Action("p1 sm # !illegal", 0, "sm", illegal=True)),
        (
            "d dh p2 2c # !illegal",
            Action("d dh p2 2c # !illegal", None, "dh", 1, cards=cards("2c"), illegal=True),
        ),
    ],
)
def test_illegal_marker_on_every_kind_of_action(text: str, expected: Action) -> None:
    assert parse_action(text, 4) == expected


@pytest.mark.parametrize("text", ["p1 cbr 40 # the pot", "p1 cbr 40 # !illegally", "p1 cbr 40 # illegal"])
def test_other_comments_are_not_the_illegal_marker(text: str) -> None:
    assert parse_action(text, 4) == Action(text, 0, "cbr", amount=40)


def test_spacing_and_card_separators() -> None:
    assert parse_action("  p1   cc  ", 2) == Action("  p1   cc  ", 0, "cc")
    assert parse_action("p1 sd 7c,8s", 4).cards == cards("7c8s")
    assert parse_action("p9 cc", 9).actor == 8
    assert parse_action("d dh p9 Ah", 9).target == 8


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "'' is not an action this replay knows"),
        ("p1", "'p1' is not an action this replay knows"),
        ("p1 bet 40", "'p1 bet 40' is not an action this replay knows"),
        ("p1 fold", "'p1 fold' is not an action this replay knows"),
        ("p1 cbr", "'p1 cbr': 'cbr' takes one whole amount"),
        ("p1 cbr forty", "'p1 cbr forty': 'cbr' takes one whole amount"),
        ("p1 cbr 40.5", "'p1 cbr 40.5': 'cbr' takes one whole amount"),
        ("p1 cbr -40", "'p1 cbr -40': 'cbr' takes one whole amount"),
        ("p1 cbr 40 50", "'p1 cbr 40 50': 'cbr' takes one whole amount"),
        ("p1 cc 40", "'p1 cc 40': 'cc' takes nothing after it"),
        ("p1 f now", "'p1 f now': 'f' takes nothing after it"),
        ("p1 sd 7c 8s", "'p1 sd 7c 8s': cards are written together, like 7c8s9c"),
        ("p0 cc", "'p0' is not a player (p1, p2, …)"),
        ("P1 cc", "'P1' is not a player (p1, p2, …)"),
        ("p01 cc", "'p01' is not a player (p1, p2, …)"),
        ("x1 cc", "'x1' is not a player (p1, p2, …)"),
        ("p5 cc", "p5 does not exist: the hand has 4 players"),
        ("p9 cc", "p9 does not exist: the hand has 4 players"),
        ("d dh p5 Ah", "p5 does not exist: the hand has 4 players"),
        ("d dh p1", "'d dh p1': a deal is 'd dh pN CARDS'"),
        ("d dh p1 Ah Ks", "'d dh p1 Ah Ks': a deal is 'd dh pN CARDS'"),
        ("d dh p1 7x", "'7x' is not a card: suit 'x' is not one of c d h s"),
        ("d dh p1 1h", "'1h' is not a card: rank '1' is not one of 23456789TJQKA (ten is 'T')"),
        ("d dh p1 10h", "'10h' is not a list of cards: ten is 'T', not '10'"),
        ("d dh p1 AhAh", "'AhAh': card Ah is listed twice"),
        ("p1 sd 7c8", "'7c8' is not a list of cards: '7c8' has an odd number of characters"),
        ("p1 sm ??", "'??' (unknown card) is not allowed here"),
    ],
)
def test_parse_action_errors(text: str, reason: str) -> None:
    with pytest.raises(MalformedHistory) as caught:
        parse_action(text, 4, "hand 2, action 7")
    assert caught.value.where == "hand 2, action 7"
    assert caught.value.reason == reason
    assert str(caught.value) == f"hand 2, action 7: {reason}"
    assert isinstance(caught.value, ValueError)


def test_an_action_that_is_not_a_string() -> None:
    with pytest.raises(MalformedHistory) as caught:
        parse_action(40, 4)  # type: ignore[arg-type]
    assert (caught.value.where, caught.value.reason) == ("action", "an action must be a string, not 40")


def test_a_superscript_amount_is_malformed() -> None:
    with pytest.raises(MalformedHistory):
        parse_action("p1 cbr ²", 4)


# --------------------------------------------------------------------------------------------------------
# parse_history and load_histories
# --------------------------------------------------------------------------------------------------------


def raw_hand(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "variant": "PIT",
        "players": ["Anna", "Bruno", "Carla"],
        "antes": [5, 5, 5],
        "min_bet": 5,
        "opening": "J",
        "carried_pot": 0,
        "starting_stacks": [500, 500, 500],
        "actions": ["d dh p1 AhKdQc9s8h", "p1 cc"],
        "finishing_stacks": [495, 495, 495],
    }
    raw.update(changes)
    return {key: value for key, value in raw.items() if value is not None}


def test_parse_history_fields() -> None:
    history = parse_history(raw_hand(), "hand 1")
    assert history == HandHistory(
        variant="PIT",
        players=("Anna", "Bruno", "Carla"),
        antes=(5, 5, 5),
        starting_stacks=(500, 500, 500),
        actions=(
            Action("d dh p1 AhKdQc9s8h", None, "dh", target=0, cards=cards("AhKdQc9s8h")),
            Action("p1 cc", 0, "cc"),
        ),
        min_bet=5,
        opening="J",
        carried_pot=0,
        finishing_stacks=(495, 495, 495),
    )
    assert history.limit is Limit.POT_LIMIT


def test_parse_history_extensions_and_defaults() -> None:
    history = parse_history(
        raw_hand(
            variant="FIT",
            opening=None,
            carried_pot=None,
            finishing_stacks=None,
            parol_hand=True,
            adeguamento=[0, 10, 0],
            invito=5,
            hand="t1-h42",
            antes=[0, 0, 0],
        )
    )
    assert history.limit is Limit.FIXED_LIMIT
    assert (history.opening, history.carried_pot, history.finishing_stacks) == ("J", 0, None)
    assert (history.parol_hand, history.adeguamento, history.invito, history.hand_id) == (
        True,
        (0, 10, 0),
        5,
        "t1-h42",
    )
    assert parse_history(raw_hand(variant="NIT")).limit is Limit.NO_LIMIT


@pytest.mark.parametrize(
    ("changes", "where", "reason"),
    [
        ({"variant": "NT"}, "hand 3", "variant 'NT' is not poker all'italiana (NIT, PIT, FIT)"),
        ({"variant": None}, "hand 3", "variant None is not poker all'italiana (NIT, PIT, FIT)"),
        ({"players": ["Anna"]}, "hand 3", "players must be a list of 2 to 9 names"),
        ({"players": [f"P{i}" for i in range(10)]}, "hand 3", "players must be a list of 2 to 9 names"),
        ({"players": ["Anna", 2, "Carla"]}, "hand 3", "players must be a list of 2 to 9 names"),
        ({"players": "Anna, Bruno"}, "hand 3", "players must be a list of 2 to 9 names"),
        ({"opening": "A"}, "hand 3", 'opening must be "J", "Q" or "K", not \'A\''),
        ({"min_bet": None}, "hand 3", "min_bet must be a whole number >= 0"),
        ({"min_bet": -5}, "hand 3", "min_bet must be a whole number >= 0"),
        ({"min_bet": "5"}, "hand 3", "min_bet must be a whole number >= 0"),
        ({"min_bet": True}, "hand 3", "min_bet must be a whole number >= 0"),
        ({"actions": "p1 cc"}, "hand 3", "actions must be a list of strings"),
        ({"actions": ["p1 cc", "p4 cc"]}, "hand 3, action 2", "p4 does not exist: the hand has 3 players"),
        ({"actions": ["p1 cc", 7]}, "hand 3, action 2", "an action must be a string, not 7"),
        ({"carried_pot": -1}, "hand 3", "carried_pot must be a whole number >= 0"),
        ({"invito": -1}, "hand 3", "invito must be a whole number >= 0"),
        ({"antes": [5, 5]}, "hand 3", "antes must be a list of 3 whole numbers >= 0"),
        ({"antes": None}, "hand 3", "antes must be a list of 3 whole numbers >= 0"),
        ({"antes": [5, -5, 5]}, "hand 3", "antes must be a list of 3 whole numbers >= 0"),
        (
            {"starting_stacks": [500, 500, "500"]},
            "hand 3",
            "starting_stacks must be a list of 3 whole numbers >= 0",
        ),
        (
            {"starting_stacks": [500, True, 500]},
            "hand 3",
            "starting_stacks must be a list of 3 whole numbers >= 0",
        ),
        ({"finishing_stacks": [1, 2]}, "hand 3", "finishing_stacks must be a list of 3 whole numbers >= 0"),
        ({"adeguamento": [0, 10]}, "hand 3", "adeguamento must be a list of 3 whole numbers >= 0"),
        ({"table": True}, "hand 3", "table must be a string or a whole number"),
        ({"table": ["t"]}, "hand 3", "table must be a string or a whole number"),
        ({"seat_count": 2}, "hand 3", "seat_count must be a whole number from 3"),
        ({"seat_count": "6"}, "hand 3", "seat_count must be a whole number from 3"),
        ({"seats": [1, 2]}, "hand 3", "seats must be 3 different seat numbers from 1"),
        ({"seats": [1, 1, 2]}, "hand 3", "seats must be 3 different seat numbers from 1"),
        ({"seats": [0, 1, 2]}, "hand 3", "seats must be 3 different seat numbers from 1"),
        (
            {"seats": [1, 2, 7], "seat_count": 6},
            "hand 3",
            "seats must be 3 different seat numbers from 1 up to seat_count 6",
        ),
        ({"time": "21:05:30"}, "hand 3", "time must be a TOML local time, like 21:05:30"),
        ({"time_zone": 1}, "hand 3", 'time_zone must be a string, like "UTC"'),
        ({"day": 32}, "hand 3", "day must be a whole number from 1 to 31"),
        ({"month": 0}, "hand 3", "month must be a whole number from 1 to 12"),
        ({"year": True}, "hand 3", "year must be a whole number from 0"),
    ],
)
def test_parse_history_errors(changes: dict[str, Any], where: str, reason: str) -> None:
    with pytest.raises(MalformedHistory) as caught:
        parse_history(raw_hand(**changes), "hand 3")
    assert (caught.value.where, caught.value.reason) == (where, reason)


PHH = """\
variant = "PIT"
players = ["Anna", "Bruno"]   # Bruno deals
antes = [10, 10]
min_bet = 10
starting_stacks = [100, 100]
actions = [
  # the deal
  "d dh p1 AhAdKcKdQc",
  "d dh p2 9h9dTcTdJc",
  "p1 cbr 30 # !illegal",
  "p1 cbr 20",
  "p2 f",
]
finishing_stacks = [110, 90]
"""


def test_load_a_phh_file(tmp_path: Path) -> None:
    path = tmp_path / "one.phh"
    path.write_text(PHH, encoding="utf-8")
    (history,) = load_histories(path)
    assert history.players == ("Anna", "Bruno")
    assert [action.text for action in history.actions] == [
        "d dh p1 AhAdKcKdQc",
        "d dh p2 9h9dTcTdJc",
        "p1 cbr 30 # !illegal",
        "p1 cbr 20",
        "p2 f",
    ]
    assert [action.illegal for action in history.actions] == [False, False, True, False, False]
    assert history.finishing_stacks == (110, 90)
    assert load_histories(str(path)) == (history,)  # a str path too
    assert replay_histories([history]) is None


def test_load_a_phhs_file_in_numeric_order(tmp_path: Path) -> None:
    hands = {number: PHH.replace('"Anna"', f'"Anna{number}"') for number in (1, 2, 10)}
    text = "".join(f"[{number}]\n{hands[number]}\n" for number in (10, 2, 1))
    path = tmp_path / "three.phhs"
    path.write_text(text, encoding="utf-8")
    histories = load_histories(path)
    assert [h.players[0] for h in histories] == ["Anna1", "Anna2", "Anna10"]


@pytest.mark.parametrize(
    ("name", "text", "where", "reason"),
    [
        (
            "extra.phhs",
            "[1]\n" + PHH + "\n[notes]\ntext = 'x'\n",
            "file",
            "a .phhs file holds only the tables [1], [2], …",
        ),
        ("empty.phhs", "", "file", "a .phhs file holds only the tables [1], [2], …"),
        ("flat.phhs", PHH, "file", "a .phhs file holds only the tables [1], [2], …"),
        (
            "second.phhs",
            "[1]\n" + PHH + "\n[2]\n" + PHH.replace('"PIT"', '"XIT"'),
            "hand 2",
            "variant 'XIT' is not poker all'italiana (NIT, PIT, FIT)",
        ),
        (
            "action.phh",
            PHH.replace('"p2 f"', '"p3 f"'),
            "hand 1, action 5",
            "p3 does not exist: the hand has 2 players",
        ),
    ],
)
def test_load_histories_errors(tmp_path: Path, name: str, text: str, where: str, reason: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MalformedHistory) as caught:
        load_histories(path)
    assert (caught.value.where, caught.value.reason) == (where, reason)


def test_load_histories_bad_toml_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.phh"
    path.write_text(PHH.replace("antes = [10, 10]", "antes = [10, 10"), encoding="utf-8")
    with pytest.raises(MalformedHistory) as caught:
        load_histories(path)
    assert caught.value.where == "file"
    assert caught.value.reason.startswith("not valid TOML: ")
    path.write_bytes(b'variant = "PIT\xff"\n')
    with pytest.raises(MalformedHistory) as caught:
        load_histories(path)
    assert caught.value.reason.startswith("not valid TOML: ")
    with pytest.raises(MalformedHistory) as caught:
        load_histories(tmp_path / "missing.phh")
    assert (caught.value.where, caught.value.reason) == ("file", "cannot read it: No such file or directory")


# --------------------------------------------------------------------------------------------------------
# format_history: the round trip
# --------------------------------------------------------------------------------------------------------


def reparse(text: str, count: int) -> tuple[HandHistory, ...]:
    document = tomllib.loads(text)
    if count == 1:
        return (parse_history(document, "hand 1"),)
    assert sorted(document) == sorted(str(number) for number in range(1, count + 1))
    return tuple(parse_history(document[str(number)], f"hand {number}") for number in range(1, count + 1))


def test_every_shared_scenario_round_trips(shared_dir: Path, tmp_path: Path) -> None:
    files = scenario_files(shared_dir)
    assert len(files) >= 4
    for path in files:
        histories = load_histories(path)
        text = format_history(histories)
        assert reparse(text, len(histories)) == histories, path.name
        copy = tmp_path / path.name
        copy.write_text(text, encoding="utf-8")
        assert load_histories(copy) == histories, path.name
        assert format_history(load_histories(copy)) == text  # the writer is stable
        assert replay_histories(load_histories(copy)) is None, path.name


def test_the_round_trip_keeps_the_illegal_markers_and_drops_the_toml_comments(shared_dir: Path) -> None:
    histories = load_histories(shared_dir / "scenarios" / "italian" / "it01_open_cambio_showdown.phh")
    text = format_history(histories)
    assert '  "p1 cbr 50 # !illegal",' in text
    assert "opening round" not in text  # a TOML comment of the original
    assert text.startswith('variant = "PIT"\n')
    assert "[1]" not in text


def test_several_hands_are_written_as_tables(shared_dir: Path) -> None:
    histories = load_histories(shared_dir / "scenarios" / "italian" / "it04_parol.phhs")
    text = format_history(histories)
    assert text.startswith('[1]\nvariant = "PIT"\n')
    assert "\n[2]\nvariant" in text
    assert "parol_hand = true" in text and "adeguamento = [0, 0, 0]" in text


def a_history(**changes: Any) -> HandHistory:
    base = parse_history(raw_hand(), "hand 1")
    fields: Mapping[str, Any] = {**{f: getattr(base, f) for f in base.__dataclass_fields__}, **changes}
    return HandHistory(**fields)


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"players": ('Anna "la Rossa"', "C:\\Bruno", "Nicolò 🂡")},
        {"hand_id": 'torneo "1", mano 7'},
        {"finishing_stacks": None},
        {"invito": 0},
        {"parol_hand": True, "adeguamento": (0, 5, 0), "opening": "K", "carried_pot": 45},
        {"sitting_out": (False, True, False)},
        {"tournament": False},
        {"variant": "NIT"},
        {"actions": ()},
        {"table": "table-12", "seats": (5, 6, 2), "seat_count": 6},
        {"table": 'sala "B" \\ 3'},
        {"time": "21:05:30", "time_zone": "UTC", "day": 21, "month": 11, "year": 2026},
        {"time": "09:00:00.250000"},
    ],
)
def test_written_histories_read_back_the_same(tmp_path: Path, changes: dict[str, Any]) -> None:
    history = a_history(**changes)
    assert reparse(format_history([history]), 1) == (history,)
    two = (history, a_history(min_bet=7))
    path = tmp_path / "two.phhs"
    path.write_text(format_history(two), encoding="utf-8")
    assert load_histories(path) == two


def test_phh_optional_fields_are_read_as_the_standard_writes_them() -> None:
    """PHH's ``table`` may be a string or an integer (read as its text); ``time`` is a TOML local time."""
    document = tomllib.loads(
        'variant = "PIT"\nplayers = ["Anna", "Bruno", "Carla"]\nantes = [5, 5, 5]\nmin_bet = 5\n'
        "starting_stacks = [500, 500, 500]\nactions = []\ntable = 3\nseats = [2, 4, 6]\nseat_count = 9\n"
        'time = 21:05:30\ntime_zone = "Europe/Rome"\nday = 1\nmonth = 2\nyear = 2026\n'
    )
    history = parse_history(document)
    assert (history.table, history.seats, history.seat_count) == ("3", (2, 4, 6), 9)
    assert (history.time, history.time_zone) == ("21:05:30", "Europe/Rome")
    assert (history.day, history.month, history.year) == (1, 2, 2026)
    assert 'table = "3"\nseat_count = 9\nseats = [2, 4, 6]\n' in format_history([history])
    assert "time = 21:05:30\n" in format_history([history])


def test_one_hand_written_as_a_phhs_is_a_table(tmp_path: Path) -> None:
    history = a_history(table="table-1")
    text = format_history([history], phhs=True)
    assert text.startswith("[1]\n")
    path = tmp_path / "one.phhs"
    path.write_text(text, encoding="utf-8")
    assert load_histories(path) == (history,)
    assert format_history([], phhs=True) == ""


@pytest.mark.parametrize("name", ["Anna\nRossa", "Bruno\x7f", "Carla\x07"])
def test_control_characters_in_a_name_are_escaped(name: str) -> None:
    history = a_history(players=(name, "Bruno", "Carla"))
    assert reparse(format_history([history]), 1) == (history,)


# --------------------------------------------------------------------------------------------------------
# export_hand
# --------------------------------------------------------------------------------------------------------


def bot_hand(state: TableState, seed: int) -> tuple[TableState, TableState, tuple[Event, ...]]:
    deck = shuffle(Deck.standard().cards, seed.to_bytes(32, "big"))
    played = play_hand(state, deck, random.Random(seed))
    return played.before, played.after, played.events


def test_export_of_a_bot_hand_has_the_stacks_and_replays(tmp_path: Path) -> None:
    state = table([700, 1000, 1300, 1600], limit=Limit.NO_LIMIT, invito=20)
    before, after, events = bot_hand(state, 7)
    history = export_hand(before, events)
    ended = (
        events[-1]
        if isinstance(events[-1], HandEnded)
        else next(e for e in events if isinstance(e, HandEnded))
    )
    button = after.button
    order = [(button + i) % 4 for i in range(1, 5)]  # p1 = left of the dealer … p4 = the dealer
    assert history.variant == "NIT"
    assert history.players == tuple(("Anna", "Bruno", "Carla", "Dario")[s] for s in order)
    assert history.starting_stacks == tuple((700, 1000, 1300, 1600)[s] for s in order)
    assert history.antes == (20, 20, 20, 20)
    assert history.invito == 20 and history.min_bet == 20 and history.opening == "J"
    assert history.seats == tuple(s + 1 for s in order) and history.seat_count == 4
    assert history.table == "" and history.time == ""  # the service adds them (audit/export.py)
    assert history.finishing_stacks == tuple(dict(ended.stacks)[s] for s in order)
    assert history.finishing_stacks == tuple(after.seats[s].stack for s in order)  # type: ignore[union-attr]
    assert sum(history.finishing_stacks) + after.carried == sum(history.starting_stacks)
    assert all(action.actor is None or action.actor < 4 for action in history.actions)
    assert not any(action.illegal for action in history.actions)
    assert replay_histories([history]) is None
    path = tmp_path / "hand.phh"
    path.write_text(format_history([history]), encoding="utf-8")
    assert load_histories(path) == (history,)
    assert replay_histories(load_histories(path)) is None


def test_export_of_consecutive_bot_hands_replays_as_a_phhs(tmp_path: Path) -> None:
    state = table([300, 150, 600], limit=Limit.POT_LIMIT, invito=10)
    histories = []
    results = set()
    for seed in range(12):
        if sum(1 for o in state.seats if o is not None and o.stack > 0) < 2:
            break
        before, state, events = bot_hand(state, seed)
        histories.append(export_hand(before, events))
        results.add(next(e for e in events if isinstance(e, HandEnded)).result)
    assert len(histories) >= 3
    for earlier, later in itertools.pairwise(histories):  # the chips follow the players
        finishing = dict(zip(earlier.players, earlier.finishing_stacks or (), strict=True))
        starting = dict(zip(later.players, later.starting_stacks, strict=True))
        assert starting == {name: chips for name, chips in finishing.items() if name in starting}
        assert all(chips == 0 for name, chips in finishing.items() if name not in starting)  # eliminated
    path = tmp_path / "table.phhs"
    path.write_text(format_history(histories), encoding="utf-8")
    assert load_histories(path) == tuple(histories)
    assert replay_histories(load_histories(path)) is None
    assert HandResult.AWARDED in results


def test_hands_with_a_table_field_are_each_set_up_from_their_own_fields() -> None:
    """A table's or a tournament's export: seating changes between hands (players moved in or out, tables
    interleaved) are not in PHH, so a hand with a ``table`` field is set up from its own fields and checked
    to its finishing stacks; a hand without one continues the hand before it (the conformance scenarios)."""
    state = table([300, 150, 600], limit=Limit.POT_LIMIT, invito=10)
    a1_before, state, a1 = bot_hand(state, 1)
    a2_before, state, a2 = bot_hand(state, 2)
    a3_before, state, a3 = bot_hand(state, 3)
    b1_before, _, b1 = bot_hand(table([1000, 800, 1200, 400], limit=Limit.NO_LIMIT, invito=20, seats=6), 4)
    first, second, third = (export_hand(b, e) for b, e in ((a1_before, a1), (a2_before, a2), (a3_before, a3)))
    other = replace(export_hand(b1_before, b1), table="table-2")
    assert other.seat_count == 6 and replay_histories([other]) is None
    tagged = [replace(h, table="table-1") for h in (first, second, third)]
    # interleaved tables, every hand tagged: each replays on its own
    assert replay_histories([tagged[0], tagged[1], other, tagged[2]]) is None
    # untagged, the third hand would continue the other table's hand
    difference = replay_histories([first, second, replace(other, table=""), third])
    assert difference is not None and (difference.hand, difference.action) == (3, 0)
    # a hand without the field after a tagged one continues it
    assert replay_histories([tagged[0], second, third, other]) is None
    difference = replay_histories([tagged[0], third])  # the second hand is missing
    assert difference is not None and (difference.hand, difference.action) == (2, 0)
    # and a tagged hand is still checked to its finishing stacks
    assert other.finishing_stacks is not None
    wrong = replace(other, finishing_stacks=(other.finishing_stacks[0] + 1, *other.finishing_stacks[1:]))
    difference = replay_histories([tagged[0], wrong])
    assert difference is not None and (difference.hand, difference.action) == (2, len(other.actions) + 1)


def test_export_of_a_scripted_hand() -> None:
    before = table([1000, 1000, 1000])  # Anna, Bruno, Carla (the dealer)
    state = before
    events: list[Event] = []
    commands: list[Command] = [
        StartHand(hand_id="h-1"),
        DeclineBlind(0),
        DealCards(0, cards("JhJdAc9c8c")),
        DealCards(1, cards("QhKdTs9d8d")),
        DealCards(2, cards("AhKs8hTcQc")),
        BetOrRaise(0, 30),
        CheckOrCall(1),
        Fold(2),
        Discard(0, cards("9c8c")),
        DealCards(0, cards("JcJs")),
        Discard(1),
        BetOrRaise(0, 90),
        CheckOrCall(1),
        MuckHand(1),  # Anna showed four jacks first (IT-SHOW-1)
    ]
    for command in commands:
        for event in decide(state, command):
            state = evolve(state, event)
            events.append(event)
    history = export_hand(before, events)
    assert [action.text for action in history.actions] == [
        "p1 dc",
        "d dh p1 JhJdAc9c8c",
        "d dh p2 QhKdTs9d8d",
        "d dh p3 AhKs8hTcQc",
        "p1 cbr 30",
        "p2 cc",
        "p3 f",
        "p1 sd 9c8c",
        "d dh p1 JcJs",
        "p2 sd",
        "p1 cbr 90",
        "p2 cc",
        "p1 sm JhJdAcJcJs",
        "p2 sm",
    ]
    assert history.hand_id == "h-1"
    assert history.starting_stacks == (1000, 1000, 1000)
    assert history.finishing_stacks == (1140, 870, 990)
    assert replay_histories([history]) is None


def test_export_needs_a_whole_hand() -> None:
    before = table([1000, 1000])
    state = before
    events: list[Event] = []
    for event in decide(state, StartHand()):
        state = evolve(state, event)
        events.append(event)
    with pytest.raises(ValueError, match="no complete hand"):
        export_hand(before, events)
    with pytest.raises(ValueError, match="no complete hand"):
        export_hand(before, [])


def test_a_ring_game_hand_leaves_out_a_busted_player_and_replays_on_its_own() -> None:
    """Fixed: a player without chips is not part of the hand, so the export leaves them out (it used to
    write a starting stack of 0, which no table can seat)."""
    state = table([1000, 1000, 10], tournament=False)
    for seed in range(50):  # the bots play until Carla has no chips left
        carla = state.seats[2]
        if carla is not None and carla.stack == 0:
            break
        _, state, _ = bot_hand(state, seed)
    carla = state.seats[2]
    assert carla is not None and carla.stack == 0  # busted, still seated (ring game)
    before, _, events = bot_hand(state, 99)
    history = export_hand(before, events)
    assert history.players == ("Anna", "Bruno") or history.players == ("Bruno", "Anna")
    assert 0 not in history.starting_stacks
    assert replay_histories([history]) is None


def test_parol_players_are_named_so_an_adeguamento_of_zero_is_not_taken_for_one() -> None:
    before = table([1000, 1000, 1000])  # Anna, Bruno, Carla (the dealer)
    state = before
    first: list[Event] = []
    commands: list[Command] = [
        StartHand(),
        DeclineBlind(0),
        DealCards(0, cards("JhJdAc9c8c")),
        DealCards(1, cards("QhKdTs9d8d")),
        DealCards(2, cards("AhKs8hTcQc")),
        BetOrRaise(0, 10),
        CheckOrCall(1),
        CheckOrCall(2),
        Discard(0),
        Discard(1),
        Discard(2),
        SayParol(0),
        SayParol(1),
        Fold(2),  # Carla put in 20 like the others, then passes
    ]
    for command in commands:
        for event in decide(state, command):
            state = evolve(state, event)
            first.append(event)
    ended = first[-1]
    assert isinstance(ended, HandEnded) and ended.result is HandResult.PAROL and ended.parol_players == (0, 1)
    second_before = state
    second: list[Event] = []
    for command in (
        StartHand(),
        Partecipate(2),  # an adeguamento of 0
        DealCards(1, cards("AhKs9hTcQc")),
        DealCards(2, cards("QhKdTs9d8d")),
        DealCards(0, cards("JhJdAc9c9s")),
        CheckOrCall(1),
        CheckOrCall(2),
        CheckOrCall(0),
    ):
        for event in decide(state, command):
            state = evolve(state, event)
            second.append(event)
    histories = [export_hand(before, first), export_hand(second_before, second)]
    assert histories[1].adeguamento == (0, 0, 0)
    assert replay_histories(histories) is None  # the two hands together replay
    assert replay_histories(histories[1:]) is None
