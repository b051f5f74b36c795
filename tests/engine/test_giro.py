"""The giro pazzo's pure decider (rule TL-GIRO-1, :mod:`engine.giro`): the trigger, who owes a deal, the
dealer's choice and its time-out default, TL-CAP-1, and the decisions of docs/rules-decisions.md (a bust or
a move during a giro, a second big showdown inside one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games.telesina import LayoutRefused, OptionRefused
from engine.giro import (
    AUTOMATIC_DEFAULT,
    AUTOMATIC_PREFERENCE,
    AskDealer,
    ChoiceTimeout,
    ChoiceTooEarly,
    ChooseVariant,
    DealerAsked,
    GiroHandDealt,
    GiroHandStarted,
    GiroPazzoEnded,
    GiroPazzoStarted,
    GiroPlayersLeft,
    GiroRefused,
    GiroState,
    HandFinished,
    NotChoosing,
    NotTheDealer,
    Preference,
    VariantChosen,
    category_of_label,
    decide,
    default_choice,
    evolve,
    giro_game,
    is_big,
)
from engine.replay import main, replay_file

PLAYERS = ("anna", "bruno", "carla")


def run(state: GiroState, command: object) -> tuple[GiroState, tuple[object, ...]]:
    events = decide(state, command)  # type: ignore[arg-type]
    for event in events:
        state = evolve(state, event)  # type: ignore[arg-type]
    return state, events


def started(players: tuple[str, ...] = PLAYERS) -> GiroState:
    state, events = run(
        GiroState(), HandFinished(("Full house, kings full of tens", "Ace-high straight"), players)
    )
    assert events == (GiroPazzoStarted("Full house, kings full of tens", players),)
    return state


def deal_hand(state: GiroState, dealer: str, seat: int = 0, players: int = 3) -> GiroState:
    state, events = run(state, AskDealer(seat, dealer, players, deadline_ms=1000))
    assert events == (DealerAsked(seat, dealer, 1000),)
    state, events = run(state, ChooseVariant(dealer, "h", "sempre", players))
    assert events == (VariantChosen(dealer, seat, "h", "sempre"),)
    assert state.choice == (("distribution", "sempre"), ("layout", "h"))
    state, events = run(state, GiroHandDealt(dealer))
    assert events == (GiroHandStarted(dealer),)
    return state


@pytest.mark.parametrize(
    ("label", "big"),
    [
        ("Full house, kings full of tens", True),
        ("Ace-high flush in hearts", True),  # IT-RANK-1: a flush beats a full house
        ("Four nines", True),
        ("Queen-high straight flush in diamonds", True),
        ("Royal flush in spades", True),
        ("Ace-high straight", False),
        ("Queen-high straight (minimal)", False),
        ("Three kings", False),
        ("Two pair, aces and kings", False),
        ("Pair of jacks", False),
        ("Ace high", False),
        ("Full di re", True),  # poker all'italiana's labels are Italian
        ("Colore a cuori all'asso", True),
        ("Poker di nove", True),
        ("Scala reale massima a picche", True),
        ("Scala reale minima a cuori", True),
        ("Scala massima", False),
        ("Scala minima", False),
        ("Tris di fanti", False),
        ("Doppia coppia di assi e re", False),
        ("Coppia di dieci", False),
        ("Carta alta: asso", False),
    ],
)
def test_tl_giro_1_full_house_or_better_in_the_italian_ranking(label: str, big: bool) -> None:
    assert is_big(label) is big
    assert category_of_label("Ace high") is None


def test_tl_giro_1_a_big_showdown_starts_a_giro_owing_a_deal_to_each_player() -> None:
    state = started()
    assert state.active and state.owed == PLAYERS and state.trigger.startswith("Full house")
    assert run(GiroState(), HandFinished(("Ace-high straight",), PLAYERS))[1] == ()
    assert run(GiroState(), HandFinished((), PLAYERS))[1] == ()  # uncontested: nothing shown


def test_tl_giro_1_one_hand_per_player_then_the_giro_ends() -> None:
    state = started()
    for seat, dealer in enumerate(PLAYERS):
        assert state.active
        state = deal_hand(state, dealer, seat)
        state, events = run(state, HandFinished(("Four nines",), PLAYERS))  # a second big showdown inside
        if dealer != PLAYERS[-1]:
            assert events == ()  # decision: no new giro, no longer giro
    assert events == (GiroPazzoEnded(PLAYERS),)
    assert state == GiroState(rounds=1)


def test_tl_giro_1_a_player_busting_is_struck_off() -> None:
    state = deal_hand(started(), "anna")
    state, events = run(state, HandFinished(("Ace-high straight",), ("anna", "bruno")))  # carla busted
    assert events == (GiroPlayersLeft(("carla",)),) and state.owed == ("bruno",)
    state = deal_hand(state, "bruno", 1, players=2)
    state, events = run(state, HandFinished(("Ace-high straight",), ("anna", "bruno")))
    assert events == (GiroPazzoEnded(("anna", "bruno"), ("carla",)),)
    assert not state.active


def test_tl_giro_1_a_player_moving_away_or_in() -> None:
    """A player who leaves before dealing is struck off as a bust; one who sits down deals a giro hand when
    the deal reaches them without lengthening the giro."""
    state = deal_hand(started(("anna", "bruno")), "anna")
    state, events = run(state, HandFinished((), ("anna", "bruno", "dario")))
    assert events == ()
    state = deal_hand(state, "dario", 2)
    state, events = run(state, HandFinished((), ("anna", "bruno", "dario")))
    assert events == () and state.owed == ("bruno",)
    state = deal_hand(state, "bruno", 1)
    state, events = run(state, HandFinished((), ("anna", "dario")))  # bruno then left: ended all the same
    assert events == (GiroPazzoEnded(("anna", "dario", "bruno")),)


def test_tl_giro_1_only_the_dealer_chooses_once() -> None:
    state, _ = run(started(), AskDealer(0, "anna", 3, deadline_ms=1000))
    with pytest.raises(NotTheDealer):
        decide(state, ChooseVariant("bruno", "croce", "mai", 3))
    with pytest.raises(NotChoosing):
        decide(state, AskDealer(1, "bruno", 3, deadline_ms=1000))
    state, _ = run(state, ChooseVariant("anna", "una", "primo_giro", 3))
    with pytest.raises(NotChoosing):
        decide(state, ChooseVariant("anna", "croce", "mai", 3))
    with pytest.raises(NotChoosing):
        decide(GiroState(), AskDealer(0, "anna", 3, deadline_ms=1000))
    with pytest.raises(NotChoosing):
        decide(GiroState(), GiroHandDealt("anna"))


def test_tl_cap_1_a_layout_that_does_not_fit_is_refused_with_the_numbers() -> None:
    players = tuple(f"p{i}" for i in range(8))
    state, _ = run(started(players), AskDealer(0, "p0", 8, deadline_ms=1000))
    with pytest.raises(LayoutRefused, match=r"8 players × 5 cards \+ 9 vele = 49 cards.*TL-CAP-1"):
        decide(state, ChooseVariant("p0", "ascensore", "mai", 8))
    with pytest.raises(OptionRefused, match="not libera"):
        decide(state, ChooseVariant("p0", "libera", "mai", 8))
    with pytest.raises(OptionRefused, match="unknown vele layout"):
        decide(state, ChooseVariant("p0", "stella", "mai", 8))
    assert decide(state, ChooseVariant("p0", "piramide", "sempre", 8)) == (
        VariantChosen("p0", 0, "piramide", "sempre"),
    )


def test_tl_giro_1_the_time_out_uses_the_preference_else_the_table_default() -> None:
    state, _ = run(started(), AskDealer(2, "carla", 3, deadline_ms=5000))
    with pytest.raises(ChoiceTooEarly):
        decide(state, ChoiceTimeout(4999, 3))
    assert decide(state, ChoiceTimeout(5000, 3)) == (
        VariantChosen("carla", 2, "croce", "mai", AUTOMATIC_DEFAULT),
    )
    assert decide(state, ChoiceTimeout(5000, 3, table=("tre", "sempre"))) == (
        VariantChosen("carla", 2, "tre", "sempre", AUTOMATIC_DEFAULT),
    )
    preferred = Preference("h", "primo_giro")
    assert decide(state, ChoiceTimeout(5000, 3, preferred)) == (
        VariantChosen("carla", 2, "h", "primo_giro", AUTOMATIC_PREFERENCE),
    )
    # a preferred layout that does not fit (TL-CAP-1) gives way to the table's
    assert default_choice(Preference("ascensore", None), ("croce", "mai"), 8) == (
        "croce",
        "mai",
        AUTOMATIC_DEFAULT,
    )


def test_it_auto_1_always_use_it_when_i_deal_chooses_at_once() -> None:
    state, events = run(
        started(), AskDealer(1, "bruno", 3, 1000, Preference("piramide", "sempre", always=True))
    )
    assert events == (
        DealerAsked(1, "bruno", 1000),
        VariantChosen("bruno", 1, "piramide", "sempre", AUTOMATIC_PREFERENCE),
    )
    assert state.choice == (("distribution", "sempre"), ("layout", "piramide")) and not state.waiting


def test_tl_giro_1_an_away_dealer_or_a_dead_button_has_the_table_choose() -> None:
    _, events = run(started(), AskDealer(1, "bruno", 3, 1000, Preference("una", None), away=True))
    assert events[-1] == VariantChosen("bruno", 1, "una", "mai", AUTOMATIC_PREFERENCE)
    _, events = run(started(), AskDealer(4, "", 3, 1000, Preference("una", None)))
    assert events[-1] == VariantChosen("", 4, "croce", "mai", AUTOMATIC_DEFAULT)


def test_giro_games() -> None:
    assert [giro_game(code) for code in ("PIT", "NIT", "FIT", "PTL", "NTL", "FTL")] == [
        "PTL", "NTL", "FTL", "PTL", "NTL", "FTL",
    ]  # fmt: skip
    with pytest.raises(GiroRefused):
        giro_game("NT")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(min_value=2, max_value=6), min_size=1, max_size=1),
    st.lists(st.tuples(st.booleans(), st.integers(0, 5), st.booleans(), st.booleans()), max_size=20),
)
def test_tl_giro_1_invariants(size: list[int], hands: list[tuple[bool, int, bool, bool]]) -> None:
    """Whatever happens (busts, moves, newcomers, big showdowns, time-outs): each hand of a giro has exactly
    one choice made before it and one dealer; the giro ends after at most one deal per player it owed plus
    the newcomers' deals; it ends as soon as it owes nobody at the table."""
    players = [f"p{i}" for i in range(size[0])]
    state = started(tuple(players))
    owed_at_start = set(players)
    newcomers = 0
    choices = dealt = position = 0
    for timeout, leave, big, arrive in hands:
        if not state.active:
            break
        index = position % len(players)
        dealer = players[index]
        state, events = run(state, AskDealer(0, dealer, len(players), 100))
        if timeout:
            state, more = run(state, ChoiceTimeout(100, len(players)))
            events += more
        else:
            state, more = run(state, ChooseVariant(dealer, "croce", "mai", len(players)))
            events += more
        choices += sum(isinstance(e, VariantChosen) for e in events)
        state, _ = run(state, GiroHandDealt(dealer))
        dealt += 1  # noqa: SIM113
        assert choices == dealt
        if dealer not in owed_at_start:
            newcomers += 1
        position = index + 1  # the button moves on (G-BTN-1)
        if len(players) > 2 and leave < len(players):
            players.pop(leave)
            position -= leave <= index
        if arrive:
            players.append(f"new{dealt}")
        state, events = run(state, HandFinished(("Four aces",) if big else (), tuple(players)))
        assert not any(isinstance(e, GiroPazzoStarted) for e in events)
        assert state.active == any(p in players for p in state.owed)
        assert dealt <= len(owed_at_start) + newcomers


GIRO_FILE = Path(__file__).resolve().parents[1] / "data" / "telesina" / "giro_bust.phhs"


def test_tl_giro_1_a_whole_giro_replays_from_its_phhs() -> None:
    """tests/data/telesina/giro_bust.phhs (the service's export, tests/tables/test_giro_pazzo.py): a full
    house starts the giro owing three deals; carla busts in its first hand and is struck off; the giro ends
    after bruno's and anna's hands. ``python -m engine.replay`` replays every hand and the giro's keys."""
    assert replay_file(str(GIRO_FILE)) is None
    assert main([str(GIRO_FILE)]) == 0


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("giro_end = true\n", ""), "giro_end = true"),  # the giro owes nobody: it must end there
        (('giro_dealer = "anna"\n', ""), "a giro pazzo hand"),  # a hand of the giro must name its dealer
        (('giro_dealer = "bruno"', 'giro_dealer = "carla"'), "the dealer 'bruno' to choose"),  # the dealer
        (
            ('giro_trigger = "Full house, kings full of tens"', 'giro_trigger = "Ace-high straight"'),
            "full house",
        ),
    ],
)
def test_tl_giro_1_a_phhs_that_breaks_the_giro_is_a_difference(
    tmp_path: Path, change: tuple[str, str], expected: str
) -> None:
    text = GIRO_FILE.read_text()
    assert change[0] in text
    path = tmp_path / "giro.phhs"
    path.write_text(text.replace(change[0], change[1], 1))
    difference = replay_file(str(path))
    assert difference is not None and expected in difference.expected + difference.actual, difference


def _play_giro_table(seed: int, players: int, hands: int) -> tuple[int, int, int, int, int]:
    """Bots play ``hands`` Telesina hands at a libera table driven by the giro decider (the service's loop,
    without the service): ``(chips before, chips after, giro hands, choices, giri started)``."""
    import random

    from engine.core import ForcedBets, find_game
    from engine.core.rules import dealt_seats
    from engine.giro import evolve_all, layout_choices, next_dealer
    from engine.shuffle import shuffle

    rng = random.Random(seed)
    game = find_game("PTL")
    config = game.table_config(
        seats=players, tournament=True, forced=ForcedBets(invito=10), action_time_ms=30_000, time_bank_ms=0,
        layout="libera", distribution="libera",
    )  # fmt: skip
    state = game.initial_state(config)
    for seat in range(players):
        state, _ = game.apply(state, game.seat_command(seat, f"p{seat}", rng.choice((30, 200, 600)), 0))
    total = sum(s.stack for s in state.seats if s is not None)
    giro_state = GiroState()
    giro_hands = choices = started = 0
    for number in range(hands):
        if len(dealt_seats(state)) < 2:
            break
        options = None
        if giro_state.active:
            seat = next_dealer(state)
            occupant = state.seats[seat]
            dealer = occupant.player if occupant is not None else ""  # a dead button: the table chooses
            count = len(dealt_seats(state))
            events = decide(giro_state, AskDealer(seat, dealer, count, 1000))
            giro_state = evolve_all(giro_state, events)
            fits = [c.name for c in layout_choices(count) if c.fits]
            if not giro_state.waiting:  # a dead button (no dealer): the table chose at once
                more: tuple[object, ...] = ()
            elif rng.random() < 0.5:
                chosen = ChooseVariant(dealer, rng.choice(fits), rng.choice(("mai", "sempre")), count)
                more = decide(giro_state, chosen)
            else:
                more = decide(giro_state, ChoiceTimeout(1000, count))
            giro_state = evolve_all(giro_state, more)
            choices += sum(isinstance(e, VariantChosen) for e in (*events, *more))
            options = giro_state.choice
        secret = (seed * 1000 + number).to_bytes(32, "big")
        command = game.start_command(
            state, lambda d, s=secret: shuffle(d.cards, s), at=0, forced=None, button=None,
            hand_id=str(number), commitment="0" * 64, algorithm="x", options=options,
        )  # fmt: skip
        state, produced = game.apply(state, command)
        events_all = list(produced)
        if options is not None:
            assert state.hand.button == seat  # the dealer asked is the hand's dealer (G-BTN-1)
            button = state.seats[state.hand.button]
            button_player = button.player if button is not None else ""
            giro_state = evolve_all(giro_state, decide(giro_state, GiroHandDealt(button_player)))
            giro_hands += 1
        for _ in range(2000):
            while (deal := game.dealer_command(state, 0)) is not None:
                state, more_events = game.apply(state, deal)
                events_all += more_events
            if state.hand is None:
                break
            (seat,) = game.to_act(state)
            state, more_events = game.apply(state, game.bot_command(state, seat, rng, 0))
            events_all += more_events
        assert sum(s.stack for s in state.seats if s is not None) == total  # chips conserved, every hand
        shown = tuple(e.label for e in events_all if type(e).__name__ == "HandShown")
        left = tuple(s.player for s in state.seats if s is not None and s.stack > 0)
        after = decide(giro_state, HandFinished(shown, left))
        started += sum(isinstance(e, GiroPazzoStarted) for e in after)
        giro_state = evolve_all(giro_state, after)
    return total, sum(s.stack for s in state.seats if s is not None), giro_hands, choices, started


@settings(max_examples=6, deadline=None)
@given(st.integers(min_value=1, max_value=10_000), st.integers(min_value=2, max_value=5))
def test_tl_giro_1_chips_conserved_and_one_choice_per_hand_across_giri(seed: int, players: int) -> None:
    """Bots play Telesina with giri pazzi (random choices and time-outs, busts): chips are conserved after
    every hand, and every giro hand had exactly one choice."""
    before, after, giro_hands, choices, _ = _play_giro_table(seed, players, 20)
    assert before == after
    assert choices == giro_hands


def test_tl_giro_1_the_bots_table_does_play_giri() -> None:
    """The property above is not vacuous: this table plays four giri (nine giro hands, nine choices)."""
    before, after, giro_hands, choices, started = _play_giro_table(4, 5, 20)
    assert (before, giro_hands, choices, started) == (after, 9, 9, 4)
