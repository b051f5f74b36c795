"""Tournaments of every game (issue 17), pure: levels carrying forced bets (T-LEVEL-1), the configuration
checked by the game (seats, forced bets, mixed games), presets per game, the labels of forced bets, the text
of a level, and balancing by the game's kind (T-BAL-1: blind games move the next big blind to the worst
position, never the small blind; ante games keep the next dealer to the seat that opened last)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from engine.codec import from_data, to_data
from engine.core import ForcedBets, ForcedBetsRefused, GameFamily, find_game
from engine.tournament import mtt, sitgo, structure
from engine.tournament.mtt import (
    CreateTournament,
    Level,
    LevelStarted,
    MttConfig,
    MttState,
    PlayerMoved,
    RecordHand,
    decide,
    next_hand,
    structure_preset,
)
from engine.tournament.sitgo import TournamentConfigRefused
from tests.engine.test_mtt import HOUR, START, Sim, names, seed

NT = find_game("NT")
PIT = find_game("PIT")


def blinds(small: int, big: int, bba: int = 0) -> ForcedBets:
    return ForcedBets(small_blind=small, big_blind=big, big_blind_ante=bba)


def holdem(**changes: object) -> MttConfig:
    values: dict[str, object] = {
        "name": "Hold'em del giovedì",
        "game": "NT",
        "seats": 6,
        "levels": (Level(20, HOUR, forced=blinds(10, 20)), Level(40, HOUR, forced=blinds(20, 40, 40))),
    }
    values.update(changes)
    return MttConfig(**values)  # type: ignore[arg-type]


# --- configuration --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "field", "english"),
    [
        ({"game": "XX"}, "game", "unknown game 'XX'"),
        ({"seats": 11}, "seats", "2 to 10 seats"),
        ({"game": "NIT", "seats": 7, "levels": (Level(10, HOUR),)}, "seats", "2 to 6 seats"),
        ({"levels": (Level(10, HOUR),)}, "levels", "level 1 (invito)"),
        ({"levels": (Level(10, HOUR, forced=ForcedBets(small_blind=5)),)}, "levels", "big_blind"),
        (
            {"levels": (Level(20, HOUR, forced=ForcedBets(small_blind=10, big_blind=20, bring_in=5)),)},
            "levels",
            "bring_in",
        ),
        ({"levels": (Level(20, HOUR, forced=blinds(30, 20)),)}, "levels", "small_blind"),
        ({"levels": (Level(20, HOUR, forced=blinds(10, 20), game="QQ"),)}, "levels", "unknown game 'QQ'"),
        (  # a mixed level of poker all'italiana seats at most six
            {"seats": 8, "levels": (Level(20, HOUR, forced=blinds(10, 20)), Level(5, HOUR, game="PIT"))},
            "levels",
            "level 2: Italiana PL seats at most 6",
        ),
    ],
)
def test_a_configuration_that_does_not_fit_its_game_is_refused_on_its_field(
    changes: dict[str, object], field: str, english: str
) -> None:
    with pytest.raises(TournamentConfigRefused) as refused:
        decide(MttState(), CreateTournament(holdem(**changes)))
    assert refused.value.field == field
    assert english in refused.value.english


def test_a_holdem_table_seats_up_to_ten_and_an_italian_one_six() -> None:
    assert decide(MttState(), CreateTournament(holdem(seats=10)))
    assert decide(MttState(), CreateTournament(holdem(seats=2)))
    assert structure.table_max_seats(NT) == 10 and structure.table_max_seats(PIT) == 6


def test_a_sit_and_go_checks_its_game_too() -> None:
    """A sit-and-go (a one-table MTT, issue 17) checks its game and forced bets as any tournament; its
    table seats up to nine (hold'em's ten is a multi-table table's most)."""
    config = sitgo.mtt_config(
        sitgo.TournamentConfig("SNG", seats=6, game="NT", levels=(sitgo.Level(10, HOUR),))
    )
    with pytest.raises(TournamentConfigRefused) as refused:
        decide(MttState(), CreateTournament(config))
    assert refused.value.field == "levels" and "invito" in refused.value.english
    good = sitgo.TournamentConfig("SNG", seats=9, game="NT", levels=(sitgo.Level(20, HOUR, blinds(10, 20)),))
    state = mtt.replay(decide(MttState(), CreateTournament(sitgo.mtt_config(good))))
    assert state.config is not None and mtt.config_game(state.config) == "NT"
    with pytest.raises(TournamentConfigRefused) as refused:
        ten = sitgo.TournamentConfig("SNG", seats=10, game="NT")
        decide(MttState(), CreateTournament(sitgo.mtt_config(ten)))
    assert refused.value.field == "seats"
    with pytest.raises(TournamentConfigRefused):
        decide(MttState(), CreateTournament(sitgo.mtt_config(sitgo.TournamentConfig("x", game="ZZ"))))


# --- levels and the clock (T-LEVEL-1, mixed games) --------------------------------------------------------


def test_levels_record_their_forced_bets_and_game() -> None:
    sim = Sim(holdem(), names(8))
    started = [e for e in sim.events if isinstance(e, LevelStarted)]
    assert started == [LevelStarted(0, 20, START + HOUR, False, START, blinds(10, 20), "NT")]
    assert sim.state.forced == blinds(10, 20) and sim.state.game == "NT" and sim.state.invito == 20
    assert next_hand(sim.state, 1, START + 1) == (True, blinds(10, 20), "NT")
    # a new level applies from the next hand, by the schedule even before the clock's tick
    assert next_hand(sim.state, 1, START + HOUR) == (True, blinds(20, 40, 40), "NT")
    sim.do(mtt.AdvanceLevel(at=START + HOUR))
    assert sim.state.forced == blinds(20, 40, 40) and sim.state.invito == 40


def test_a_mixed_game_tournament_names_the_game_of_each_level() -> None:
    """H.O.R.S.E.-style rotation: poker all'italiana then hold'em then a break (the game and forced bets
    stay) then hold'em pot limit; the tables ask ``next_hand`` which game the next hand plays."""
    levels = (
        Level(10, HOUR, forced=ForcedBets(invito=10), game="NIT"),
        Level(20, HOUR, forced=blinds(10, 20), game="NT"),
        Level(0, HOUR, is_break=True),
        Level(40, HOUR, forced=blinds(20, 40), game="PT"),
    )
    sim = Sim(holdem(game="NIT", levels=levels), names(6))
    assert next_hand(sim.state, 1, START) == (True, ForcedBets(invito=10), "NIT")
    assert next_hand(sim.state, 1, START + HOUR) == (True, blinds(10, 20), "NT")
    assert next_hand(sim.state, 1, START + 2 * HOUR) == (False, blinds(10, 20), "NT")  # the break
    assert next_hand(sim.state, 1, START + 3 * HOUR) == (True, blinds(20, 40), "PT")
    sim.do(mtt.AdvanceLevel(at=START + 3 * HOUR))
    games = [(e.game, e.is_break) for e in sim.events if isinstance(e, LevelStarted)]
    assert games == [("NIT", False), ("NT", False), ("NT", True), ("PT", False)]


def test_a_configuration_of_inviti_gives_the_same_events_as_before_issue_17() -> None:
    """Events are never rewritten: a tournament of inviti (no game) still logs ``LevelStarted`` without
    forced bets or game, read as the invito of poker all'italiana at the tournament's limit."""
    sim = Sim(MttConfig("Vecchio", levels=(Level(10, HOUR), Level(20, HOUR))), names(4))
    first = next(e for e in sim.events if isinstance(e, LevelStarted))
    assert (first.forced, first.game) == (None, "")
    assert to_data(first) == {
        "level": 0, "invito": 10, "ends_at": START + HOUR, "is_break": False, "at": START,
        "forced": None, "game": "",
    }  # fmt: skip
    assert mtt.current_forced(sim.state) == ForcedBets(invito=10) and mtt.current_game(sim.state) == "PIT"
    old = {"level": 0, "invito": 10, "ends_at": 5, "is_break": False, "at": 1}  # as written before
    assert from_data(LevelStarted, old) == LevelStarted(0, 10, 5, False, 1)


# --- balancing (T-BAL-1) -----------------------------------------------------------------------------------


def _report(sim: Sim, table_id: int, busts: tuple[str, ...], next_big_blind: int | None) -> tuple:
    table = next(t for t in sim.state.tables if t.table_id == table_id)
    chips = dict(sim.state.chips)
    here = table.players
    winner = next(p for p in here if p not in busts)
    stacks = {p: (0 if p in busts else chips[p]) for p in here}
    stacks[winner] += sum(chips[p] for p in busts)
    sim.hands += 1
    sim.at += 1
    button = table.next_dealer if table.next_dealer is not None else 0
    return sim.do(
        RecordHand(
            table_id,
            f"{table_id}-{sim.hands}",
            button,
            None,
            tuple(stacks.items()),
            tuple((p, chips[p]) for p in busts),
            0,
            seed(f"h{sim.hands}"),
            at=sim.at,
            next_big_blind=next_big_blind,
        )
    )


def test_blind_game_balancing_moves_the_next_big_blind_to_the_worst_position_never_the_small_blind() -> None:
    """T-BAL-1, blind games: the player due to be big blind next at the largest table moves to the short
    table's worst position: scanning clockwise from its next big blind, the first empty seat that is not
    the small blind (the seat just before the big blind)."""
    sim = Sim(holdem(), names(12))  # two full 6-seat tables
    short = next(t for t in sim.state.tables if t.table_id == 2)
    seats = short.seats
    # two players bust at table 2, at seats a and b; its next big blind sits right after seat a, so seat a
    # is the small blind's position and must not receive the moved player
    a, b = 1, 4
    events = _report(sim, 2, (seats[a], seats[b]), next_big_blind=(a + 1) % 6)
    assert not [e for e in events if isinstance(e, PlayerMoved)]  # table 1 is playing: it moves later
    big = next(t for t in sim.state.tables if t.table_id == 1)
    due = 3  # table 1 reports its hand: seat 3 posts the next big blind there
    moved = [e for e in _report(sim, 1, (), next_big_blind=due) if isinstance(e, PlayerMoved)]
    assert [(m.player, m.from_seat, m.to_table, m.to_seat, m.reason) for m in moved] == [
        (big.seats[due], due, 2, b, "balance")
    ]


def test_ante_game_balancing_keeps_the_next_dealer_to_the_seat_opened_last() -> None:
    """T-BAL-1, ante-only games (poker all'italiana, stud): the next dealer moves, to the seat that opened
    last at the short table; the big-blind pointer is ignored."""
    config = holdem(game="PIT", levels=(Level(10, HOUR, forced=ForcedBets(invito=10)),))
    sim = Sim(config, names(12))
    short = next(t for t in sim.state.tables if t.table_id == 2)
    _report(sim, 2, (short.seats[1],), next_big_blind=None)
    _report(sim, 2, (short.seats[4],), next_big_blind=None)  # seat 4 opened last
    big = next(t for t in sim.state.tables if t.table_id == 1)
    button = big.next_dealer if big.next_dealer is not None else 0  # the hand's button (the Sim's)
    dealer = (button + 1) % 6  # the full table's next dealer
    moved = [e for e in _report(sim, 1, (), next_big_blind=(dealer + 2) % 6) if isinstance(e, PlayerMoved)]
    assert [(m.player, m.from_seat, m.to_table, m.to_seat) for m in moved] == [
        (big.seats[dealer], dealer, 2, 4)
    ]


# --- presets per game --------------------------------------------------------------------------------------


def test_italian_presets_are_those_of_issue_5() -> None:
    for name in mtt.PRESETS:
        old = structure_preset(name, 5000)
        new = structure_preset(name, 5000, "PIT")
        assert [(lv.invito, lv.duration_ms, lv.is_break) for lv in old] == [
            (lv.invito, lv.duration_ms, lv.is_break) for lv in new
        ]
        assert all(lv.forced == ForcedBets(invito=lv.invito) for lv in new if not lv.is_break)


def test_holdem_presets_have_blinds_and_a_big_blind_ante_from_level_three() -> None:
    levels = [lv for lv in structure_preset("turbo", 10_000, "NT") if not lv.is_break]
    forced = [lv.forced for lv in levels]
    assert forced[0] == blinds(50, 100) and forced[1] == blinds(75, 150)
    assert forced[2] == blinds(100, 200, 200)
    assert all(f is not None and f.small_blind * 2 == f.big_blind for f in forced)
    assert all(f is not None and f.big_blind_ante == f.big_blind for f in forced[2:])
    assert all(a.invito < b.invito for a, b in itertools.pairwise(levels))
    assert decide(MttState(), CreateTournament(holdem(levels=structure_preset("hyper", 1500, "NT"))))


def test_a_turbo_starts_shallower_than_a_regular_and_a_hyper_much_shallower() -> None:
    """Presets that look like real structures (issue 17, T-LEVEL-1): 200 big blinds deep at level 1 in a
    regular, 100 in a turbo, 25 in a hyper; stud 100, 67 and 20 small bets; 24 playing levels each, always
    rising; poker all'italiana keeps issue 5's inviti whatever the preset."""
    for stack in (1_000, 10_000, 20_000):
        depth = {}
        for name in mtt.PRESETS:
            levels = [lv for lv in structure_preset(name, stack, "NT") if not lv.is_break]
            assert len(levels) == 24 and all(a.invito < b.invito for a, b in itertools.pairwise(levels))
            first = levels[0].forced
            assert first is not None
            depth[name] = stack // first.big_blind
        assert depth == {"regular": 200, "turbo": 100, "hyper": 25}
    stud = {name: structure.forced_preset(FakeStud(), 10_000, name)[0] for name in mtt.PRESETS}  # type: ignore[arg-type]
    small_bets_deep = {name: 10_000 // f.small_bet for name, f in stud.items()}
    assert small_bets_deep == {"regular": 100, "turbo": 66, "hyper": 20}
    italian = {name: [lv.invito for lv in structure_preset(name, 10_000, "PIT")] for name in mtt.PRESETS}
    assert italian["regular"][0] == italian["hyper"][0] == 25


def test_fixed_limit_presets_carry_the_bet_sizes() -> None:
    first = structure_preset("regular", 10_000, "FT")[0].forced
    assert first is not None and (first.small_bet, first.big_bet) == (50, 100)
    assert decide(
        MttState(), CreateTournament(holdem(game="FT", levels=structure_preset("turbo", 2000, "FT")))
    )


@dataclass
class FakeStud:
    """A stud game as far as the structures need one (stud lands in its own branch)."""

    code: str = "F7S"
    short_name: str = "Stud FL"
    family: GameFamily = GameFamily.STUD
    limit: str = "FL"
    max_seats: int = 8

    def check_forced_bets(self, forced: ForcedBets) -> None:
        for name in forced.used() - {"ante", "bring_in", "small_bet", "big_bet"}:
            raise ForcedBetsRefused(name, f"stud has no {name}")


def test_stud_presets_have_ante_bring_in_and_bets() -> None:
    forced = structure.forced_preset(FakeStud(), 10_000)  # type: ignore[arg-type]
    assert forced[0] == ForcedBets(ante=20, bring_in=30, small_bet=100, big_bet=200)
    assert all(f.bring_in < f.small_bet and f.big_bet == 2 * f.small_bet for f in forced)


def test_optional_forced_bets_a_game_refuses_are_left_out() -> None:
    """A preset proposes a big-blind ante; a game that has none plays without it (fit_forced)."""
    refused_bba = FakeStud(family=GameFamily.HOLDEM, short_name="X", limit="NL")
    refused_bba.check_forced_bets = lambda f: (  # type: ignore[method-assign]
        (_ for _ in ()).throw(ForcedBetsRefused("big_blind_ante", "no bba")) if f.big_blind_ante else None
    )
    assert structure.forced_at(refused_bba, 200, 5) == blinds(100, 200)  # type: ignore[arg-type]
    with pytest.raises(ForcedBetsRefused):
        structure.fit_forced(NT, ForcedBets(invito=5))


# --- labels -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "forced", "label"),
    [
        (NT, blinds(400, 800, 800), "NLHE 400/800 ante 800"),
        (NT, blinds(25, 50), "NLHE 25/50"),
        (find_game("PO"), blinds(500, 1000, 1000), "PLO 500/1k ante 1k"),
        (FakeStud(), ForcedBets(ante=200, bring_in=300, small_bet=1000, big_bet=2000),
         "Stud FL 1k/2k, ante 200, bring-in 300"),
        (PIT, ForcedBets(invito=25), "Italiana PL, invito 25"),
        (find_game("FIT"), ForcedBets(invito=1250), "Italiana FL, invito 1250"),
        (NT, blinds(15_000, 30_000, 30_000), "NLHE 15k/30k ante 30k"),
        (NT, blinds(1_250_000, 2_500_000), "NLHE 1.25M/2.5M"),
    ],
)  # fmt: skip
def test_forced_bets_are_labelled_for_the_clock_and_lobby(
    game: object, forced: ForcedBets, label: str
) -> None:
    assert structure.describe(game, forced) == label  # type: ignore[arg-type]


# --- the text of a level ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "game", "expected"),
    [
        ("50 15", "PIT", structure.LevelLine("", ForcedBets(invito=50), 15.0)),
        ("200 10", "NT", structure.LevelLine("", blinds(100, 200), 10.0)),
        ("100/200 bba 200 15", "NT", structure.LevelLine("", blinds(100, 200, 200), 15.0)),
        ("1k/2k ante 250 20", "NT", structure.LevelLine("", ForcedBets(small_blind=1000, big_blind=2000,
                                                                       ante=250), 20.0)),
        ("@FIT 50 15", "NT", structure.LevelLine("FIT", ForcedBets(invito=50), 15.0)),
        ("ante 20 bring-in 30 bets 100/200 15", "NT",
         structure.LevelLine("", ForcedBets(ante=20, bring_in=30, small_bet=100, big_bet=200), 15.0)),
        ("small_blind=5 big_blind=10 2", "NT", structure.LevelLine("", blinds(5, 10), 2.0)),
        ("pausa 10", "NT", structure.LevelLine("", None, 10.0, is_break=True)),
        ("   ", "NT", None),
    ],
)  # fmt: skip
def test_a_level_line_reads_as_forced_bets(line: str, game: str, expected: object) -> None:
    assert structure.parse_level(line, game) == expected


@pytest.mark.parametrize(
    "line", ["dieci 5", "50", "100/200 bba 15 x", "ante 15", "100/2x0 5", "foo=3 5", "50.5 10", "-5 10"]
)
def test_a_level_line_that_does_not_parse_says_how_to_write_it(line: str) -> None:
    with pytest.raises(structure.LevelLineError):
        structure.parse_level(line, "NT")


def test_the_button_draw_of_an_international_game_uses_the_52_card_deck_and_its_suit_order() -> None:
    """G-DRAW-1: the highest card takes the button; ties on rank broken ♠ > ♥ > ♦ > ♣ in international
    games, from the 52-card deck (poker all'italiana keeps its cut deck and ♥ > ♦ > ♣ > ♠)."""
    ranks = set()
    for n in range(20):
        state = replay_commands(
            CreateTournament(holdem(seats=6), at=0),
            *(mtt.Register(player, at=0) for player in names(6)),
        )
        started = decide(state, mtt.StartTournament(seed(f"draw-{n}"), (1,), at=START))[0]
        assert isinstance(started, mtt.TournamentStarted)
        cards = dict(started.draw)
        seat_of = {player: seat for player, _, seat in started.seating}
        best = max(cards, key=lambda p: (int(cards[p].rank), cards[p].suit.international_order))
        assert started.buttons == ((1, seat_of[best]),)
        ranks |= {int(card.rank) for card in cards.values()}
    assert min(ranks) < 5  # six players of poker all'italiana draw from 5 up (IT-DECK-1)


def replay_commands(*commands: mtt.Command) -> MttState:
    state = MttState()
    for command in commands:
        state = mtt.replay(decide(state, command), state)
    return state
