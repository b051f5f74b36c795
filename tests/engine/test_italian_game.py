"""Poker all'italiana in the registry (issue 16): ``NIT``, ``PIT``, ``FIT`` behave exactly as
:mod:`engine.italian`, and give the service every fact it reads (rules IT-*, IT-DECK-1, IT-SIT-1)."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import Card, Deck
from engine.codec import registry
from engine.core import ForcedBets, ForcedBetsRefused, GameFamily, find_game, games
from engine.core.game import TableFacts
from engine.italian import apply, dealer_command, initial_state
from engine.italian.bot import play_hand
from engine.italian.errors import ActionNotAllowed, IllegalAction, NotEnoughPlayers, TimeoutTooEarly
from engine.italian.model import (
    BetOrRaise,
    CheckOrCall,
    DeclineBlind,
    Discard,
    Event,
    Fold,
    Limit,
    MuckHand,
    Partecipate,
    RemovePlayer,
    ReturnToPlay,
    RevealSeed,
    SayParol,
    SeatPlayer,
    ShowHand,
    SitOut,
    StartHand,
    TableConfig,
    TableState,
    TimeoutExpired,
)
from engine.shuffle import ALGORITHM, shuffle

CODES = {"NIT": Limit.NO_LIMIT, "PIT": Limit.POT_LIMIT, "FIT": Limit.FIXED_LIMIT}


def seated(code: str, stacks: list[int], seats: int = 6) -> TableState:
    game = find_game(code)
    config = game.table_config(
        seats=seats, tournament=True, forced=ForcedBets(invito=10), action_time_ms=30_000, time_bank_ms=60_000
    )
    state = game.initial_state(config)
    for seat, stack in enumerate(stacks):
        state, _ = game.apply(state, game.seat_command(seat, f"p{seat}", stack, 0))
    return state


@pytest.mark.parametrize(("code", "limit"), CODES.items())
def test_the_three_italian_games_are_registered_by_limit(code: str, limit: Limit) -> None:
    game = find_game(code)
    assert game.code == code and game.limit == limit.value
    assert game.family is GameFamily.ITALIAN
    assert (game.min_seats, game.max_seats) == (2, 9)
    assert game.config_type is TableConfig and game.state_type is TableState
    assert "all'italiana" in game.name
    assert game.events == registry(Event)
    config = game.table_config(
        seats=4, tournament=False, forced=ForcedBets(invito=25), action_time_ms=5_000, time_bank_ms=7_000
    )
    assert config == TableConfig(
        seats=4, limit=limit, tournament=False, invito=25, action_time_ms=5_000, time_bank_ms=7_000
    )
    assert {g.code for g in games()} >= set(CODES)


def test_the_deck_is_the_italian_deck_for_the_players_dealt_clamped_to_two_to_nine() -> None:
    game = find_game("PIT")
    assert game.deck(1).cards == Deck.italian(2).cards
    assert game.deck(5).cards == Deck.italian(5).cards
    assert game.deck(12).cards == Deck.italian(9).cards


def test_player_commands_are_the_actions_the_service_accepted() -> None:
    game = find_game("PIT")
    state = seated("PIT", [1000, 1000, 1000])
    ace = Card.parse("Ah")
    expected = {
        "fold": Fold(1, 5),
        "check": CheckOrCall(1, 5),
        "call": CheckOrCall(1, 5),
        "bet": BetOrRaise(1, 40, 5),
        "raise": BetOrRaise(1, 40, 5),
        "blind_bet": BetOrRaise(1, 40, 5),
        "parol": SayParol(1, 5),
        "decline_blind": DeclineBlind(1, 5),
        "partecipate": Partecipate(1, 5),
        "discard": Discard(1, (ace,), 5),
        "show": ShowHand(1, 5),
        "muck": MuckHand(1, 5),
        "sit_out": SitOut(1, 5),
        "return": ReturnToPlay(1, 5),
    }
    assert set(game.actions) == set(expected)
    for action, command in expected.items():
        assert game.player_command(state, 1, action, 40, [ace], 5) == command
    with pytest.raises(ActionNotAllowed, match="Serve un importo"):
        game.player_command(state, 1, "raise", None, [], 5)
    with pytest.raises(ActionNotAllowed, match="Azione sconosciuta 'dance': una di fold, check"):
        game.player_command(state, 1, "dance", None, [], 5)
    assert issubclass(ActionNotAllowed, game.illegal_action)
    assert game.too_early is TimeoutTooEarly


def test_seat_remove_and_reveal_commands() -> None:
    game = find_game("NIT")
    assert game.seat_command(2, "ada", 500, 9) == SeatPlayer(2, "ada", 500, 9)
    assert game.remove_command(2, 9) == RemovePlayer(2, 9)
    assert game.reveal_command("ab" * 32, 9) == RevealSeed("ab" * 32, 9)


def test_facts_between_hands_and_at_the_first_decision() -> None:
    game = find_game("PIT")
    state = seated("PIT", [1000, 800], seats=4)
    facts = game.facts(state)
    assert facts == TableFacts(
        hand_number=0,
        button=-1,
        in_hand=False,
        to_act=frozenset(),
        deadline_ms=None,
        forced_bet=10,
        seats=facts.seats,
        carried=0,
        reveal_due=False,
        forced=ForcedBets(invito=10),
    )
    assert facts.seating == ("p0", "p1", None, None)
    assert [(s.player, s.stack, s.sitting_out, s.time_bank_ms) for s in facts.seats if s is not None] == [
        ("p0", 1000, False, 60_000),
        ("p1", 800, False, 60_000),
    ]
    assert game.can_start_hand(state)
    assert game.timeout_command(state, 0) is None
    seed = bytes(range(32))
    dealt: list[int] = []

    def deal(deck: Deck) -> tuple[Card, ...]:
        dealt.append(len(deck.cards))
        return shuffle(deck.cards, seed)

    commitment = hashlib.sha256(seed).hexdigest()
    command = game.start_command(
        state, deal, at=1_000, forced=ForcedBets(invito=20), button=None, hand_id="t-1",
        commitment=commitment, algorithm=ALGORITHM,
    )
    # two players: the deck for two (IT-DECK-1), shuffled once by the caller
    assert dealt == [len(Deck.italian(2).cards)]
    assert command == StartHand(
        shuffle(Deck.italian(2).cards, seed), 1_000, 20, None, "t-1", commitment, ALGORITHM
    )
    state, _ = game.apply(state, command)
    while (deal_command := game.dealer_command(state, 1_000)) is not None:
        state, _ = game.apply(state, deal_command)
    facts = game.facts(state)
    hand = state.hand
    assert hand is not None and hand.to_act is not None
    assert facts.in_hand and facts.hand_number == 1 and facts.forced_bet == 20
    assert facts.to_act == game.to_act(state) == frozenset({hand.to_act})
    occupant = state.seats[hand.to_act]
    assert occupant is not None
    assert facts.deadline_ms == hand.deadline + (occupant.time_bank if hand.chips_required else 0)
    assert not game.can_start_hand(state)
    assert game.timeout_command(state, 5) == TimeoutExpired(hand.to_act, 5)
    with pytest.raises(TimeoutTooEarly):
        game.decide(state, game.timeout_command(state, 1_001))


def test_no_hand_starts_with_one_player_with_chips() -> None:
    game = find_game("FIT")
    state = seated("FIT", [1000])
    assert not game.can_start_hand(state)
    with pytest.raises(NotEnoughPlayers):
        game.start_command(
            state, lambda deck: deck.cards, at=0, forced=None, button=None, hand_id="", commitment="",
            algorithm="",
        )


@settings(max_examples=25, deadline=None)
@given(
    code=st.sampled_from(sorted(CODES)),
    players=st.integers(2, 6),
    seed=st.integers(0, 2**32),
    hands=st.integers(1, 4),
)
def test_bot_hands_through_the_registry_are_the_deciders_own(
    code: str, players: int, seed: int, hands: int
) -> None:
    """The same hands played through the protocol and through :mod:`engine.italian` directly give the same
    events (no change in behaviour), the facts agree with the state, and chips are conserved."""
    game = find_game(code)
    via_game = seated(code, [500 + 100 * i for i in range(players)])
    direct = initial_state(via_game.config)
    for seat in range(players):
        direct, _ = apply(direct, SeatPlayer(seat, f"p{seat}", 500 + 100 * seat, 0))
    assert direct == via_game
    total = sum(500 + 100 * i for i in range(players))
    rng_game, rng_direct = random.Random(seed), random.Random(seed)
    for number in range(hands):
        if not game.can_start_hand(via_game):
            break
        deck_seed = hashlib.sha256(f"{seed}-{number}".encode()).digest()
        start = game.start_command(
            via_game, lambda deck, s=deck_seed: shuffle(deck.cards, s), at=0, forced=None, button=None,
            hand_id="", commitment="", algorithm="",
        )
        events: list[Event] = []
        via_game, produced = game.apply(via_game, start)
        events.extend(produced)
        while game.facts(via_game).in_hand:
            command = game.dealer_command(via_game, 0)
            if command is None:
                (seat,) = game.to_act(via_game)
                assert game.legal_actions(via_game, seat)
                command = game.bot_command(via_game, seat, rng_game, 0)
            via_game, produced = game.apply(via_game, command)
            events.extend(produced)
        played = play_hand(direct, start.deck, rng_direct)
        assert tuple(events) == played.events and via_game == played.after
        direct = played.after
        facts = game.facts(via_game)
        assert sum(s.stack for s in facts.seats if s is not None) + facts.carried == total
        assert facts.hand_number == number + 1 and facts.to_act == frozenset()


def test_a_game_player_sees_no_hidden_card_through_view_and_public_log() -> None:
    game = find_game("PIT")
    state = seated("PIT", [1000, 1000])
    seed = bytes(32)
    state, events = game.apply(
        state,
        game.start_command(
            state, lambda deck: shuffle(deck.cards, seed), at=0, forced=None, button=None, hand_id="",
            commitment="", algorithm="",
        ),
    )
    log = list(events)
    rng = random.Random(1)
    while state.hand is not None and not (state.hand.down[0] and state.hand.down[1]):
        command = game.dealer_command(state, 0)
        if command is None:
            (seat,) = game.to_act(state)
            command = game.bot_command(state, seat, rng, 0)
        state, produced = game.apply(state, command)
        log.extend(produced)
    assert state.hand is not None
    theirs = set(state.hand.down[1])
    mine = game.view(state, 0)
    assert not theirs & {c for seat in mine.seats if seat is not None for c in seat.cards}
    entries = game.public_log(log, game.facts(state).seating, "p0")
    shown = {c for entry in entries for c in getattr(entry.event, "cards", ()) if c is not None}
    assert shown and not shown & theirs
    assert isinstance(game.view(state, None, reveal=True).seats[1].cards[0], Card)


def test_refusals_leave_the_state_unchanged() -> None:
    game = find_game("NIT")
    state = seated("NIT", [1000, 1000])
    with pytest.raises(IllegalAction):
        game.apply(state, game.player_command(state, 0, "fold", None, [], 0))
    assert state == seated("NIT", [1000, 1000])
    assert dealer_command(state, 0) is None


@pytest.mark.parametrize("code", ["NIT", "PIT", "FIT"])
def test_the_italian_games_take_an_invito_and_no_other_forced_bet(code: str) -> None:
    """IT-ANTE-1: the invito is poker all'italiana's only forced bet; a blind or a bring-in is refused,
    naming the field (a tournament form shows it beside that field)."""
    game = find_game(code)
    game.check_forced_bets(ForcedBets(invito=50))
    with pytest.raises(ForcedBetsRefused) as refused:
        game.check_forced_bets(ForcedBets(invito=50, big_blind=100))
    assert refused.value.field == "big_blind" and "invito" in str(refused.value)
    with pytest.raises(ForcedBetsRefused) as refused:
        game.table_config(
            seats=6, tournament=True, forced=ForcedBets(), action_time_ms=1_000, time_bank_ms=0
        )
    assert refused.value.field == "invito"
    facts = game.facts(
        game.initial_state(
            game.table_config(
                seats=6, tournament=True, forced=ForcedBets(invito=50), action_time_ms=1_000, time_bank_ms=0
            )
        )
    )
    assert facts.forced == ForcedBets(invito=50) and facts.forced_bet == 50


def test_forced_bets_round_trip_and_refuse_bad_amounts() -> None:
    forced = ForcedBets(ante=25, small_blind=100, big_blind=200)
    assert forced.to_dict() == {"ante": 25, "small_blind": 100, "big_blind": 200}
    assert ForcedBets.from_dict(forced.to_dict()) == forced
    assert forced.used() == {"ante", "small_blind", "big_blind"}
    with pytest.raises(ForcedBetsRefused) as refused:
        ForcedBets.from_dict({"blind": 5})
    assert refused.value.field == "blind"
    with pytest.raises(ForcedBetsRefused) as refused:
        ForcedBets(ante=-1)
    assert refused.value.field == "ante"
    with pytest.raises(ForcedBetsRefused):
        ForcedBets(big_blind=True)
