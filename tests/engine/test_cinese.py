"""Poker cinese (``CN``, issue 20): the seed's examples, ties and the cascade (CN-4), every refusal (CN-2,
CN-3), simultaneous submission and the time-out's solver (CN-TIME-1), matches (CN-5), views that hide
every other player's cards and stakes until the reveal, and the hand histories."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from engine.cards import Deck, format_cards, parse_cards
from engine.cinese import rules
from engine.cinese.model import (
    ArrangementSubmitted,
    BadRowSizes,
    CardNotHeld,
    CardUsedTwice,
    CineseError,
    HandEnded,
    HandShown,
    MatchEnded,
    NoGameRunning,
    NotDealtIn,
    RowsOutOfOrder,
    RowWon,
    StartGame,
    Submit,
    TimeIsUp,
    TimeNotUp,
    TokenNotHeld,
    TokenStakedTwice,
    TokenUnknown,
)
from engine.codec import from_data, to_data
from engine.core import find_game
from engine.core.model import TimeoutExpired
from engine.evaluation import Category, evaluate_standard
from tests.engine.cinese_support import (
    SEED_13,
    SEED_13_SPLITS,
    SEED_15,
    SEED_15_SPLITS,
    TIE_ROWS,
    TIE_STAKES,
    arrangement,
    deck_for,
    play,
    start,
    table,
)

GAME = find_game("CN")


def categories(rows: tuple[str, str, str]) -> tuple[Category, ...]:
    return tuple(evaluate_standard(parse_cards(row)).category for row in rows)


# --- the seed's examples (seed 001) ---------------------------------------------------------------------


def test_the_seeds_15_card_splits_are_legal_and_named_as_the_seed_names_them() -> None:
    """CN-2: the three splits of the 15-card example, Q♣ read for the Q♠ of the list."""
    assert [categories(split) for split in SEED_15_SPLITS] == [
        (Category.FLUSH, Category.TWO_PAIR, Category.PAIR),
        (Category.FULL_HOUSE, Category.STRAIGHT, Category.PAIR),
        (Category.STRAIGHT, Category.STRAIGHT, Category.PAIR),
    ]
    other = "2c3c4d5d7s8s9sJsQsKsAc9c8c7c6c"
    for split in SEED_15_SPLITS:
        state = start(table(2), [parse_cards(SEED_15), parse_cards(other)])
        rules.check_arrangement(state, 0, arrangement(split, (4, 3, 3)))  # accepted
        assert Counter(c for row in split for c in parse_cards(row)) == Counter(parse_cards(SEED_15))


def test_the_seeds_list_with_q_of_spades_refuses_its_own_splits() -> None:
    """The seed lists Q♠ but splits with Q♣ (CN-2): dealt Q♠, the split names a card not held."""
    listed = SEED_15.replace("Qc", "Qs")
    state = start(table(2), [parse_cards(listed), parse_cards("2c3c4d5d7s8s9sJsQcKsAc9c8c7c6c")])
    with pytest.raises(CardNotHeld, match="Qc is not one of your cards"):
        rules.check_arrangement(state, 0, arrangement(SEED_15_SPLITS[0], (4, 3, 3)))


def test_the_seeds_13_card_four_player_splits_have_a_3_card_third_row() -> None:
    assert [categories(split) for split in SEED_13_SPLITS] == [
        (Category.FLUSH, Category.TWO_PAIR, Category.HIGH_CARD),
        (Category.FULL_HOUSE, Category.STRAIGHT, Category.HIGH_CARD),
        (Category.STRAIGHT, Category.PAIR, Category.PAIR),
    ]
    rest = [card for card in Deck.standard().cards if card not in set(parse_cards(SEED_13))]
    hands = [parse_cards(SEED_13), *(tuple(rest[i * 13 : (i + 1) * 13]) for i in range(3))]
    state = start(table(4), hands)
    assert state.hand is not None and all(len(state.hand.cards[s]) == 13 for s in range(4))
    for split in SEED_13_SPLITS:
        rules.check_arrangement(state, 0, arrangement(split, (4, 3, 3)))
    with pytest.raises(BadRowSizes, match="5, 5, 3 cards"):
        rules.check_arrangement(state, 0, arrangement(("KhJhTh3h2h", "KdKc5s5c4c", "AsQc"), (1, 2, 3)))


def test_a_3_card_row_compares_with_a_missing_kicker_below() -> None:
    """CN-2: AA K (3 cards) is below AA K 2 … (5 cards): a present kicker beats a missing one."""
    assert rules.row_key(parse_cards("AsAhKs")) < rules.row_key(parse_cards("AdAcKd3c2h"))
    assert rules.row_key(parse_cards("AsAhKs")) > rules.row_key(parse_cards("KdKcQd3c2h"))


# --- paying the rows (CN-4) ------------------------------------------------------------------------------


def test_a_tie_on_a_row_returns_each_winner_their_own_token_and_discards_the_rest() -> None:
    state, events = play(table(3), TIE_ROWS, TIE_STAKES)
    rows = [e for e in events if isinstance(e, RowWon)]
    assert [r.places for r in rows] == [((0, 1), (2,)), ((0,), (1,), (2,)), ((1,), (0,), (2,))]
    assert rows[0].won == ((0, (3,)), (1, (1,)), (2, ())) and rows[0].discarded == (4,)
    assert rows[1].won == ((0, (0, 2, 4)), (1, ()), (2, ())) and rows[1].discarded == ()
    assert rows[2].won == ((0, ()), (1, (1, 2, 3)), (2, ())) and rows[2].discarded == ()
    (ended,) = [e for e in events if isinstance(e, HandEnded)]
    assert ended.points == ((0, 9), (1, 7), (2, 0))
    assert state.match is not None and state.match.points == (9, 7, 0)


def test_the_cascade_passes_tokens_up_only_between_lone_places() -> None:
    """CN-4 variant and its decision: tied first places take their own; the lone third's token is discarded
    (the place above it is shared); on rows 2 and 3 each lone place takes the token of the one below."""
    state, events = play(table(3, cascade=True), TIE_ROWS, TIE_STAKES)
    rows = [e for e in events if isinstance(e, RowWon)]
    assert rows[0].won == ((0, (3,)), (1, (1,)), (2, ())) and rows[0].discarded == (4,)
    assert rows[1].won == ((0, (2, 4)), (1, (0,)), (2, ())) and rows[1].discarded == ()
    assert rows[2].won == ((0, (3,)), (1, (1, 2)), (2, ())) and rows[2].discarded == ()
    assert state.match is not None and state.match.points == (12, 4, 0)


def test_tokens_won_are_never_staked_again_and_the_third_game_ends_the_match() -> None:
    state = table(3)
    stakes_by_game = (TIE_STAKES, ((4, 3, 2), (3, 3, 2), (3, 2, 1)), ((2, 1, 0), (2, 1, 0), (2, 2, 1)))
    for stakes in stakes_by_game:
        state, events = play(state, TIE_ROWS, stakes, at=state.hand_number * 1000)
    assert state.match is None and state.last_match is not None
    ended = state.last_match
    assert isinstance(events[-2], MatchEnded) and events[-2] == ended and isinstance(events[-1], HandEnded)
    # every seat staked its nine tokens once; seat 0 and 1 tie row 1 every game (CN-5 tie-break: rows won)
    assert dict(ended.totals) == {0: 9 + 12 + 6, 1: 7 + 8 + 3, 2: 0}
    assert dict(ended.rows_won) == {0: 6, 1: 6, 2: 0}
    assert ended.ranking[0] == (0,) and ended.ranking[-1] == (2,)
    fourth = start(state, [parse_cards("".join(r)) for r in TIE_ROWS], at=9000)  # a new match: fresh tokens
    assert fourth.match is not None and fourth.match.number == 2 and fourth.match.points == (0, 0, 0)
    rules.check_arrangement(fourth, 0, arrangement(TIE_ROWS[0], (4, 3, 3)))


def test_the_match_tie_break_is_rows_won_then_the_last_game_then_a_shared_place() -> None:
    """CN-5's decision."""
    assert rules.ranking({0: 10, 1: 10, 2: 3}, {0: 4, 1: 5, 2: 1}, {0: 9, 1: 0, 2: 0}) == ((1,), (0,), (2,))
    assert rules.ranking({0: 10, 1: 10}, {0: 4, 1: 4}, {0: 2, 1: 5}) == ((1,), (0,))
    assert rules.ranking({0: 10, 1: 10, 2: 12}, {0: 4, 1: 4, 2: 0}, {0: 2, 1: 2, 2: 0}) == ((2,), (0, 1))


# --- refusals (CN-2, CN-3) --------------------------------------------------------------------------------


@pytest.fixture
def running() -> object:
    state = table(3)
    hands = [parse_cards("".join(rows)) for rows in TIE_ROWS]
    return start(state, hands, at=0)


@pytest.mark.parametrize(
    ("rows", "stakes", "error", "message"),
    [
        (("9c8d7h6s5c", "AcAdKcQdJc", "Kd4c3d2c"), (1, 2, 3), BadRowSizes, "5, 5, 5 cards .* not 5, 5, 4"),
        (("9c8d7h6s5c", "AcAdKcQdJc", "Kd4c3d2c9c"), (1, 2, 3), CardUsedTwice, "9c is used twice"),
        (("9c8d7h6s5c", "AcAdKcQdJc", "Kd4c3d2cAh"), (1, 2, 3), CardNotHeld, "Ah is not one of your cards"),
        (("AcAdKcQdJc", "9c8d7h6s5c", "Kd4c3d2cTc"), (1, 2, 3), RowsOutOfOrder, "first hand must be worth"),
        (("9c8d7h6s5c", "Kd4c3d2cTc", "AcAdKcQdJc"), (1, 2, 3), RowsOutOfOrder, "second hand must be worth"),
        (("9c8d7h6s5c", "AcAdKcQdJc", "Kd4c3d2cTc"), (1, 2, 5), TokenUnknown, "no token of value 5"),
        (("9c8d7h6s5c", "AcAdKcQdJc", "Kd4c3d2cTc"), (1, 2), TokenUnknown, "one token on each"),
        (("9c8d7h6s5c", "AcAdKcQdJc", "Kd4c3d2cTc"), (4, 4, 0), TokenStakedTwice, "staked 2 times"),
    ],
)
def test_every_bad_arrangement_is_refused_with_its_fault_named(
    running: object, rows: tuple[str, str, str], stakes: tuple[int, ...], error: type, message: str
) -> None:
    state = running
    with pytest.raises(error, match=message) as caught:
        rules.apply(state, Submit(0, arrangement(rows, stakes), 1))  # type: ignore[arg-type]
    assert isinstance(caught.value, CineseError) and caught.value.english == str(caught.value)


def test_a_token_staked_in_an_earlier_game_is_refused() -> None:
    state, _ = play(table(3), TIE_ROWS, TIE_STAKES)  # seat 0 stakes 3, 2, 1
    state, _ = play(state, TIE_ROWS, ((4, 3, 2), (3, 3, 2), (3, 2, 1)))  # then 4, 3, 2: 0, 1, 2 are left
    state = start(state, [parse_cards("".join(r)) for r in TIE_ROWS], at=5000)
    with pytest.raises(TokenNotHeld, match="no unused token of value 4"):
        rules.apply(state, Submit(0, arrangement(TIE_ROWS[0], (4, 1, 0)), 5001))
    assert state.match is not None and state.match.unused[0] == (0, 1, 2)


def test_no_game_and_a_seat_not_dealt_in_are_refused(running: object) -> None:
    with pytest.raises(NoGameRunning):
        rules.apply(table(2), Submit(0, arrangement(TIE_ROWS[0], (1, 2, 3)), 0))
    with pytest.raises(NotDealtIn):
        rules.apply(running, Submit(3, arrangement(TIE_ROWS[0], (1, 2, 3)), 0))  # type: ignore[arg-type]


# --- simultaneous play and the time-out (CN-TIME-1) -----------------------------------------------------


def test_every_seat_acts_at_once_and_may_change_until_the_last_submits(running: object) -> None:
    state = running
    assert GAME.to_act(state) == frozenset({0, 1, 2})
    state, _ = GAME.apply(state, Submit(1, arrangement(TIE_ROWS[1], (0, 1, 1)), 10))
    assert GAME.to_act(state) == frozenset({0, 2})
    assert GAME.legal_actions(state, 1) == () and GAME.legal_actions(state, 0)
    state, events = GAME.apply(state, Submit(1, arrangement(TIE_ROWS[1], TIE_STAKES[1]), 20))  # a change
    assert events == (ArrangementSubmitted(1, arrangement(TIE_ROWS[1], TIE_STAKES[1]), False, 20),)
    state, _ = GAME.apply(state, Submit(0, arrangement(TIE_ROWS[0], TIE_STAKES[0]), 30))
    state, events = GAME.apply(state, Submit(2, arrangement(TIE_ROWS[2], TIE_STAKES[2]), 40))
    assert state.hand is None and [type(e).__name__ for e in events][:4] == [
        "ArrangementSubmitted",
        "HandShown",
        "HandShown",
        "HandShown",
    ]
    assert dict(state.revealed)[1].stakes == TIE_STAKES[1]  # the change counts


def test_the_time_out_lets_the_solver_arrange_for_those_who_did_not_submit(running: object) -> None:
    state = running
    assert state.hand is not None
    deadline = state.hand.deadline
    state, _ = GAME.apply(state, Submit(0, arrangement(TIE_ROWS[0], TIE_STAKES[0]), 5))
    with pytest.raises(TimeNotUp):
        GAME.apply(state, TimeoutExpired(-1, deadline - 1))
    with pytest.raises(TimeIsUp):
        GAME.apply(state, Submit(1, arrangement(TIE_ROWS[1], TIE_STAKES[1]), deadline + 1))
    command = GAME.timeout_command(state, deadline)
    assert command is not None
    after, events = GAME.apply(state, command)
    automatic = [e for e in events if isinstance(e, ArrangementSubmitted)]
    assert [(e.seat, e.automatic) for e in automatic] == [(1, True), (2, True)]
    for event in automatic:  # legal for the cards and tokens held (CN-2, CN-3)
        rules.check_arrangement(state, event.seat, event.arrangement)
    assert after.hand is None and GAME.apply(state, command)[1] == events  # deterministic


# --- views and the public log: nothing of another player before the reveal ------------------------------


def test_no_view_or_log_shows_another_players_cards_or_stakes_before_the_reveal() -> None:
    state = table(3)
    events: list[object] = []
    states = [state]
    hands = [parse_cards("".join(rows)) for rows in TIE_ROWS]
    state, produced = GAME.apply(state, StartGame(deck_for(hands), 0, "g1"))
    events.extend(produced)
    states.append(state)
    for seat in (2, 0, 1):
        state, produced = GAME.apply(state, Submit(seat, arrangement(TIE_ROWS[seat], TIE_STAKES[seat]), 5))
        events.extend(produced)
        states.append(state)
    shown_at = next(i for i, e in enumerate(events) if isinstance(e, HandShown))
    for current in states[:-1]:  # every state before the reveal
        for viewer in (None, 0, 1, 2):
            seen = GAME.view(current, viewer)
            for seat, seat_view in enumerate(seen.seats):
                assert seat_view is not None
                if seat != viewer:
                    assert set(seat_view.cards) <= {None} and seat_view.rows == () and seat_view.stakes == ()
                    assert not seat_view.shown
    now = GAME.facts(state).seating
    for viewer_seat, name in enumerate(now):
        log = GAME.public_log(events, now, name)
        other_cards = {
            card for s, rows in enumerate(TIE_ROWS) if s != viewer_seat for card in parse_cards("".join(rows))
        }
        for entry in log[:shown_at]:
            data = to_data(entry.event)
            text = repr(data)
            assert not any(str(card) in text.split("'") for card in other_cards), (viewer_seat, data)
            if type(entry.event).__name__ == "ArrangementHidden":
                assert "arrangement" not in data
    # after the reveal every arrangement is visible to everyone
    final = GAME.view(state, 0)
    assert all(s is not None and s.shown and s.stakes for s in final.seats)


# --- snapshots, replay, hand histories --------------------------------------------------------------------


def test_the_state_round_trips_and_the_events_fold_to_it() -> None:
    initial = table(3, cascade=True)
    state, events = play(initial, TIE_ROWS, TIE_STAKES)
    assert from_data(GAME.state_type, to_data(state)) == state
    folded = initial
    for event in events:
        assert from_data(type(event), to_data(event)) == event
        folded = GAME.evolve(folded, event)
    assert folded == state


def test_a_game_exports_to_a_history_that_replays() -> None:
    from engine.cinese.history import dumps, export_game, loads, replay_histories

    state = table(3, cascade=True)
    histories = []
    for stakes in (TIE_STAKES, ((4, 3, 2), (3, 3, 2), (3, 2, 1)), ((2, 1, 0), (2, 1, 0), (2, 2, 1))):
        before = state
        state, events = play(state, TIE_ROWS, stakes, at=state.hand_number * 1000)
        histories.append(export_game(before, events))
    assert [h.game for h in histories] == [1, 2, 3]
    assert histories[0].winnings == (12, 4, 0) and histories[0].row_winnings[1] == (6, 0, 0)
    text = dumps(histories)
    assert loads(text) == tuple(histories)
    assert replay_histories(loads(text)) is None
    wrong = replace(histories[1], winnings=(0, 0, 0))
    difference = replay_histories((histories[0], wrong))
    assert difference is not None and difference.hand == 2


def test_tokens_are_conserved_in_a_row() -> None:
    _, events = play(table(3, cascade=True), TIE_ROWS, TIE_STAKES)
    for row in (e for e in events if isinstance(e, RowWon)):
        won = Counter(t for _, tokens in row.won for t in tokens) + Counter(row.discarded)
        assert won == Counter(stakes[row.row] for stakes in TIE_STAKES)


# --- scenario files and python -m engine.replay ---------------------------------------------------------

SCENARIOS = Path(__file__).resolve().parent.parent / "data" / "cinese"


def test_the_scenario_files_hold_the_seeds_examples_and_replay(capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cinese.history import loads
    from engine.replay import main

    files = sorted(SCENARIOS.glob("*.phh*"))
    assert {f.name for f in files} == {
        "cascade_with_a_tie.phh",
        "seed_13_four_players.phh",
        "seed_15_match.phhs",
        "tie_on_a_row.phh",
    }
    assert main([str(f) for f in files]) == 0
    assert "4 files replayed: 4 passed, 0 failed" in capsys.readouterr().out
    match = loads((SCENARIOS / "seed_15_match.phhs").read_text())
    assert [tuple(format_cards(row) for row in game.arrangements[0]) for game in match] == list(
        SEED_15_SPLITS
    )
    (four,) = loads((SCENARIOS / "seed_13_four_players.phh").read_text())
    assert [len(row) for row in four.arrangements[0]] == [5, 5, 3] and len(four.players) == 4
    (tie,) = loads((SCENARIOS / "tie_on_a_row.phh").read_text())
    assert tie.winnings == (9, 7, 0) and tie.row_winnings[0] == (3, 1, 0)
    (cascade,) = loads((SCENARIOS / "cascade_with_a_tie.phh").read_text())
    assert cascade.cascade and cascade.winnings == (12, 4, 0)


def test_the_replay_names_a_wrong_token_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from engine.replay import main

    text = (
        (SCENARIOS / "tie_on_a_row.phh").read_text().replace("winnings = [9, 7, 0]", "winnings = [9, 8, 0]")
    )
    path = tmp_path / "wrong.phh"
    path.write_text(text)
    assert main([str(path)]) == 1
    assert "winnings" in capsys.readouterr().out
    illegal = (SCENARIOS / "tie_on_a_row.phh").read_text().replace('"Kd4c3d2cTc"', '"Kd4c3d2cTs"')
    path.write_text(illegal)
    assert main([str(path)]) == 1


# --- the cascade with four places, the API's submit, a player leaving a match ------------------------------


def test_the_cascade_with_four_lone_places_passes_each_token_one_place_up() -> None:
    keys = [(0, 40), (1, 30), (2, 20), (3, 10)]
    row = rules.pay_row(0, keys, {0: 1, 1: 2, 2: 3, 3: 4}, cascade=True)
    assert row.won == ((0, (1, 2)), (1, (3,)), (2, (4,)), (3, ())) and row.discarded == ()
    # seats 1 and 2 tied second: seat 0 keeps its own only, 3's token has no lone place above it
    row = rules.pay_row(0, [(0, 40), (1, 30), (2, 30), (3, 10)], {0: 1, 1: 2, 2: 3, 3: 4}, cascade=True)
    assert row.won == ((0, (1,)), (1, ()), (2, ()), (3, ())) and row.discarded == (2, 3, 4)
    # the standard payout: the best alone takes every token
    row = rules.pay_row(0, keys, {0: 1, 1: 2, 2: 3, 3: 4}, cascade=False)
    assert row.won == ((0, (1, 2, 3, 4)), (1, ()), (2, ()), (3, ()))


def test_the_api_submit_carries_the_rows_and_the_stakes_or_asks_the_solver(running: object) -> None:
    from engine.cinese.game import decode_stakes, encode_stakes

    state = running
    cards = parse_cards("".join(TIE_ROWS[0]))
    command = GAME.player_command(state, 0, "submit", encode_stakes((3, 2, 1)), cards, 7)
    assert command == Submit(0, arrangement(TIE_ROWS[0], (3, 2, 1)), 7)
    assert decode_stakes(321) == (3, 2, 1)
    with pytest.raises(CineseError):
        GAME.player_command(state, 0, "fold", None, (), 7)
    with pytest.raises(CineseError):
        GAME.player_command(state, 0, "submit", None, cards, 7)
    suggested = GAME.player_command(state, 1, "submit", None, (), 7)
    assert isinstance(suggested, Submit)
    rules.check_arrangement(state, 1, suggested.arrangement)  # type: ignore[arg-type]


def test_a_match_left_with_one_player_ends() -> None:
    from engine.core.model import RemovePlayer

    state, _ = play(table(2), TIE_ROWS[:2], TIE_STAKES[:2])
    assert state.match is not None
    state, events = rules.apply(state, RemovePlayer(1, 5000))
    assert [type(e).__name__ for e in events] == ["PlayerRemoved", "MatchEnded"]
    assert state.match is None and state.last_match is not None and state.last_match.ranking == ((0,),)


def test_a_one_game_match_ends_after_its_game() -> None:
    """``games = 1`` (a knockout's extra game, docs/rules-decisions.md "Tournaments of matches"): the match
    ends with its first game, every player with the whole token set; any other count is refused."""
    from engine.cinese.history import seat_command
    from engine.cinese.model import CineseConfig, MatchEnded
    from engine.cinese.rules import initial_state

    state = initial_state(CineseConfig(seats=3, games=1, samples=2))
    for seat in range(3):
        state, _ = rules.apply(state, seat_command(seat, f"p{seat + 1}"))
    state, events = play(state, TIE_ROWS, TIE_STAKES)
    ended = [e for e in events if isinstance(e, MatchEnded)]
    assert len(ended) == 1 and state.match is None
    for games in (0, 2, 4):
        with pytest.raises(ValueError, match="three games"):
            initial_state(CineseConfig(seats=3, games=games))
