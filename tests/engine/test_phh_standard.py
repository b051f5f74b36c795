"""engine.phh: standard PHH (issue 16, rule XX-HH-1): every key the variants use, decimal amounts read
exactly and written back as they came, unknown cards, the action grammar, metadata kept, and the files we
write loading in PokerKit (the reference implementation of the format) to the same finishing stacks."""

from __future__ import annotations

import warnings
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

from engine.cards import parse_cards
from engine.phh import (
    Action,
    HandHistory,
    MalformedHistory,
    format_amount,
    format_history,
    load_histories,
    loads_histories,
    parse_standard_action,
)

pokerkit = pytest.importorskip("pokerkit")

DATA = Path(__file__).resolve().parent.parent / "data" / "phh"
REAL_FILES = sorted(p for p in DATA.rglob("*") if p.suffix in (".phh", ".phhs"))

ANTONIUS_BLOM = DATA / "historical" / "antonius-blom-2009.phh"
HANDHQ = DATA / "handhq" / "abs-100NLH-handhq_1-sample.phhs"


def pokerkit_final_stacks(text: str) -> list[Decimal]:
    """The stacks PokerKit reaches on one hand's PHH text (its own reading of the standard)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns about keys it does not know (ours are standard)
        history = pokerkit.HandHistory.loads(text)
        states = list(history)
    return [Decimal(value) for value in states[-1].stacks]


def file_amounts(history: HandHistory, chips: tuple[int, ...]) -> list[Decimal]:
    return [Decimal(c).scaleb(-history.decimals) for c in chips]


# --- reading ------------------------------------------------------------------------------------------------


def test_decimals_are_read_exactly_and_scaled_to_whole_chips() -> None:
    (hand,) = load_histories(ANTONIUS_BLOM)
    assert hand.variant == "PO" and hand.standard
    assert hand.decimals == 2
    assert hand.starting_stacks == (125945025, 67847350)  # 1259450.25 and 678473.5, exactly
    assert hand.blinds_or_straddles == (50000, 100000)
    assert hand.min_bet == 100000
    cbr = [a.amount for a in hand.actions if a.verb == "cbr"]
    assert cbr == [300000, 900000, 2700000, 8100000, 9100000, 43500000, 77900000]
    assert hand.players == ("Patrik Antonius", "Victor Blom")
    assert hand.metadata == (("author", "Juho Kim"), ("currency", "USD"))
    assert (hand.month, hand.year) == (11, 2009)


def test_a_hand_scales_by_its_own_largest_number_of_decimals() -> None:
    hands = load_histories(HANDHQ)
    first = hands[0]
    assert first.decimals == 2
    assert first.blinds_or_straddles == (50, 100, 0)
    assert first.starting_stacks == (20030, 8160, 19700)
    assert first.winnings == (200, 0, 0)
    assert first.finishing_stacks is None
    assert [a.amount for a in first.actions if a.verb == "cbr"] == [300]
    assert hands[4].antes == (25, 25, 25, 25)


def test_whole_amounts_stay_whole() -> None:
    (hand,) = loads_histories(
        'variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n'
        'starting_stacks = [200, 200]\nactions = ["d dh p1 ????", "d dh p2 ????", "p2 f"]\n'
    )
    assert hand.decimals == 0
    assert hand.starting_stacks == (200, 200)


def test_every_standard_key_is_read() -> None:
    (stud,) = load_histories(DATA / "wsop-2023-43" / "5.phh")
    assert (stud.variant, stud.bring_in, stud.small_bet, stud.big_bet) == ("F7S", 50000, 200000, 400000)
    assert stud.antes == (50000,) * 5
    assert stud.blinds_or_straddles == ()
    assert stud.ante_trimming_status is True
    assert stud.finishing_stacks == (4000000, 7700000, 4775000, 8275000, 4950000)
    assert stud.hand_id == "5"
    assert (stud.day, stud.month, stud.year) == (22, 6, 2023)
    (hq,) = load_histories(HANDHQ)[:1]
    assert (hq.table, hq.seats, hq.time) == ("INDIANA ST", (6, 3, 5), "00:00:09")
    assert dict(hq.metadata)["hand"] == 3017237436
    assert dict(hq.metadata)["time_zone_abbreviation"] == "ET"


@pytest.mark.parametrize(
    ("text", "verb", "actor", "target", "written"),
    [
        ("d dh p1 ????", "dh", None, 0, (None, None)),
        ("d dh p2 Ac??", "dh", None, 1, (parse_cards("Ac")[0], None)),
        ("d db 4s5c2h", "db", None, None, parse_cards("4s5c2h")),
        ("p3 sm ????", "sm", 2, None, (None, None)),
        ("p1 sd", "sd", 0, None, ()),
        ("p1 sd AsQs", "sd", 0, None, parse_cards("AsQs")),
        ("p5 pb", "pb", 4, None, ()),
        ("  p2   f  # tanks, then folds", "f", 1, None, ()),
        ("", "", None, None, ()),
        ("# Burn card 6s is exposed", "", None, None, ()),
    ],
)
def test_action_grammar(
    text: str, verb: str, actor: int | None, target: int | None, written: tuple[object, ...]
) -> None:
    action = parse_standard_action(text, 6)
    assert (action.verb, action.actor, action.target, action.written) == (verb, actor, target, written)
    assert action.text == text


def test_known_cards_and_show_of_the_cards_dealt() -> None:
    assert parse_standard_action("d dh p1 AhKd", 2).cards == parse_cards("AhKd")
    assert parse_standard_action("d dh p1 Ah??", 2).cards == ()  # not all known
    dash = parse_standard_action("p1 sm -", 2)
    assert (dash.verb, dash.show_dealt) == ("sm", True)


def test_cbr_amounts_are_scaled() -> None:
    assert parse_standard_action("p1 cbr 3.50", 2, decimals=2).amount == 350
    assert parse_standard_action("p1 cbr 3", 2, decimals=2).amount == 300
    with pytest.raises(MalformedHistory, match="more than the hand's 1 decimals"):
        parse_standard_action("p1 cbr 3.55", 2, decimals=1)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("p1 bet 40", "'p1 bet 40' is not a PHH action"),
        ("p1 cbr", "'p1 cbr': 'cbr' takes one amount, like 40 or 3.50"),
        ("p1 cbr -4", "'p1 cbr -4': 'cbr' takes one amount, like 40 or 3.50"),
        ("p1 cbr 1e3", "'p1 cbr 1e3': 'cbr' takes one amount, like 40 or 3.50"),
        ("p1 cc 4", "'p1 cc 4': 'cc' takes nothing after it"),
        ("p3 f", "p3 does not exist: the hand has 2 players"),
        ("d db ????", "'d db ????': board cards must be known"),
        ("d deal p1 AhKd", "'d deal p1 AhKd': the dealer's actions are 'd dh pN CARDS' and 'd db CARDS'"),
        ("d dh p1 1h", "'1h' is not a card: rank '1' is not one of 23456789TJQKA (ten is 'T')"),
    ],
)
def test_malformed_actions(text: str, reason: str) -> None:
    with pytest.raises(MalformedHistory) as caught:
        parse_standard_action(text, 2, "hand 1, action 4")
    assert (caught.value.where, caught.value.reason) == ("hand 1, action 4", reason)


BASE = (
    'variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nmin_bet = 2\n'
    'starting_stacks = [200, 200]\nactions = ["p2 f"]\n'
)


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ('variant = "NT"', 'variant = "nt"', "variant 'nt' is not a PHH variant code (like NT, PO, F7S)"),
        ("min_bet = 2\n", "", "a no-limit or pot-limit variant (NT) needs min_bet"),
        ('variant = "NT"', 'variant = "FT"', "a fixed-limit variant (FT) needs small_bet and big_bet"),
        (
            "blinds_or_straddles = [1, 2]\n",
            "",
            "the hand needs blinds_or_straddles (button games) or bring_in (stud)",
        ),
        ("antes = [0, 0]", "antes = [0]", "antes must be a list of 2 amounts >= 0"),
        ("antes = [0, 0]", "antes = [0, -1]", "antes must be an amount >= 0 (an integer or a decimal)"),
        ("antes = [0, 0]", 'antes = [0, "1"]', "antes must be an amount >= 0 (an integer or a decimal)"),
        ("[200, 200]", "[200, inf]", "starting_stacks: unknown (infinite) amounts are not supported"),
        ("[200, 200]", "[200, 0]", "starting_stacks must be amounts > 0"),
        ("[200, 200]", "[200]", "starting_stacks must be a list of amounts > 0, one per player (2 or more)"),
        ("min_bet = 2", "min_bet = 0.0000000001", "min_bet: at most 9 decimals"),
        (
            "min_bet = 2",
            "min_bet = 2\nante_trimming_status = 1",
            "ante_trimming_status must be a boolean",
        ),
        ("min_bet = 2", 'min_bet = 2\nplayers = ["A"]', "players must be a list of 2 names"),
        ("min_bet = 2", "min_bet = 2\ntime = 25", "time must be a TOML local time, like 21:05:30"),
    ],
)
def test_malformed_hands(old: str, new: str, reason: str) -> None:
    assert old in BASE
    with pytest.raises(MalformedHistory) as caught:
        loads_histories(BASE.replace(old, new, 1))
    assert (caught.value.where, caught.value.reason) == ("hand 1", reason)


def test_italian_fields_keep_a_hand_italian() -> None:
    """A hand with our Italian fields or an ``…IT`` code is poker all'italiana: its variant must be one of
    ours (the Italian reader's message, unchanged)."""
    for text in (BASE + 'opening = "J"\n', BASE.replace('"NT"', '"XIT"')):
        with pytest.raises(MalformedHistory, match="is not poker all'italiana"):
            loads_histories(text)


# --- writing ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: str(p.relative_to(DATA)))
def test_write_read_round_trip_of_real_files(path: Path) -> None:
    hands = load_histories(path)
    text = format_history(hands, phhs=path.suffix == ".phhs")
    assert loads_histories(text, phhs=path.suffix == ".phhs") == hands


def test_amounts_are_written_back_as_they_came() -> None:
    (hand,) = load_histories(ANTONIUS_BLOM)
    text = format_history([hand])
    assert "starting_stacks = [1259450.25, 678473.5]\n" in text  # not 678473.50
    first = load_histories(HANDHQ)[0]
    text = format_history([first])
    assert "blinds_or_straddles = [0.50, 1, 0]\n" in text
    assert "starting_stacks = [200.30, 81.60, 197]\n" in text
    assert '"p1 cbr 3.00",' in text
    assert "winnings = [2, 0, 0]\n" in text
    assert "hand = 3017237436\n" in text  # an integer, as it came
    assert "time = 00:00:09\n" in text  # a TOML local time, unquoted


def test_changed_amounts_are_written_in_the_hands_decimals() -> None:
    first = load_histories(HANDHQ)[0]
    changed = replace(first, finishing_stacks=(20230, 8060, 19700))
    assert "finishing_stacks = [202.30, 80.60, 197]\n" in format_history([changed])
    assert format_amount(5, 2) == "0.05" and format_amount(500, 2) == "5" and format_amount(7, 0) == "7"


def test_metadata_is_kept_in_order() -> None:
    (hand,) = load_histories(DATA / "wsop-2019-42" / "00-01-07.phh")
    keys = [key for key, _ in hand.metadata]
    assert keys == ["author", "event", "city", "region", "country"]
    text = format_history([hand])
    assert 'event = "2019 World Series of Poker Event #42: $600 Mixed No-Limit Hold’em' in text
    extra = loads_histories(BASE + '_mine = {a = 1.50, b = [true, "x"]}\nlevel = 12\n')[0]
    again = loads_histories(format_history([extra]))[0]
    assert again.metadata == (("_mine", {"a": Decimal("1.50"), "b": [True, "x"]}), ("level", 12))


def test_a_written_phhs_holds_numbered_tables() -> None:
    hands = load_histories(HANDHQ)
    text = format_history(hands[:2], phhs=True)
    assert text.startswith('[1]\nvariant = "NT"\n') and '\n[2]\nvariant = "NT"\n' in text


# --- PokerKit reads what we write ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: str(p.relative_to(DATA)))
def test_pokerkit_replays_what_we_write_to_the_same_stacks(path: Path) -> None:
    """Each hand as we write it loads in PokerKit and ends on the stacks PokerKit reaches on the original
    text: the writer loses nothing PokerKit uses (amounts, forced bets, actions, decimals)."""
    original = path.read_text(encoding="utf-8")
    if path.suffix == ".phhs":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            originals = [h.dumps() for h in pokerkit.HandHistory.loads_all(original)]
    else:
        originals = [original]
    hands = load_histories(path)
    assert len(hands) == len(originals)
    for hand, text in zip(hands, originals, strict=True):
        ours = format_history([hand])
        assert pokerkit_final_stacks(ours) == pokerkit_final_stacks(text)


def test_pokerkit_reads_the_exact_decimals_we_write() -> None:
    (hand,) = load_histories(ANTONIUS_BLOM)
    final = pokerkit_final_stacks(format_history([hand]))
    # Blom is all in for 678473.5; Antonius's wheel (A3 with 4-5-2, Omaha's two plus three) takes it all
    assert final == [Decimal("1937923.75"), Decimal(0)]
    assert sum(final) == sum(file_amounts(hand, hand.starting_stacks))


def test_actions_round_trip_verbatim() -> None:
    action = Action("p1 cbr 3.00", 0, "cbr", amount=300)
    hand = load_histories(HANDHQ)[0]
    assert hand.actions[4] == action
