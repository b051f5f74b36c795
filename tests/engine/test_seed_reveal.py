"""Provably fair shuffle in the Italian decider: the seed commitment in ``HandStarted`` and ``RevealSeed``.

``docs/rules-decisions.md`` ("Provably fair shuffle"): ``StartHand`` carries ``sha256(seed)`` and the
algorithm's name, recorded publicly in ``HandStarted``; after the hand ``RevealSeed`` is accepted only
with the committed seed, once, between hands; the cambio reshuffles derive from the deck, hence the seed.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from engine.cards import Deck, parse_cards
from engine.codec import from_data, to_data
from engine.italian import apply, dealer_command, initial_state
from engine.italian.bot import bot_command, play_hand
from engine.italian.errors import NoHandInProgress, NothingToReveal, SeedMismatch
from engine.italian.game import reshuffle_order
from engine.italian.legal import ActionKind, LegalAction, legal_actions
from engine.italian.model import (
    BetOrRaise,
    Command,
    DiscardsReshuffled,
    Event,
    Fold,
    HandEnded,
    HandShown,
    HandStarted,
    RevealSeed,
    SeedRevealed,
    ShowHand,
    StartHand,
    TableConfig,
    TableState,
)
from engine.italian.view import public_event, view
from engine.shuffle import ALGORITHM, derive_seed, shuffle
from tests.engine.italian.helpers import run, start, table

H4 = {0: "JhJd7c8s9c", 1: "QhQsKd8d7d", 2: "Ah9dTs7s8h", 3: "KcTc9h7hAd"}  # as in test_rules_draw_showdown

SEED = bytes(range(32))
SEED_HEX = SEED.hex()
COMMITMENT = hashlib.sha256(SEED).hexdigest()
OTHER_SEED_HEX = bytes(range(1, 33)).hex()


def three() -> TableState:
    return initial_state(TableConfig(seats=3), [(0, "Anna", 500), (1, "Bruno", 500), (2, "Carla", 500)])


def committed_start(seed: bytes = SEED, players: int = 3) -> StartHand:
    return StartHand(
        deck=shuffle(Deck.italian(players).cards, seed),
        commitment=hashlib.sha256(seed).hexdigest(),
        shuffle_algorithm=ALGORITHM,
    )


def play(state: TableState, start: StartHand, rng_seed: int = 1) -> tuple[TableState, list[Event]]:
    """Start with ``start`` and let the dealer and the bots play the hand to its end."""
    rng = random.Random(rng_seed)
    state, produced = apply(state, start)
    events = list(produced)
    while state.hand is not None:
        command: Command | None = dealer_command(state)
        if command is None:
            assert state.hand.to_act is not None
            command = bot_command(state, state.hand.to_act, rng)
        state, produced = apply(state, command)
        events.extend(produced)
    return state, events


def test_hand_started_records_the_commitment_and_the_algorithm_but_no_seed() -> None:
    # when: a hand starts with a commitment
    state, events = apply(three(), committed_start())
    started = events[0]
    # then: HandStarted records both; the state knows the commitment, not yet revealed
    assert isinstance(started, HandStarted)
    assert (started.commitment, started.shuffle_algorithm) == (COMMITMENT, ALGORITHM)
    assert (state.commitment, state.seed_revealed) == (COMMITMENT, False)
    # a player sees the commitment, never the deck; nothing anywhere holds the seed
    public = public_event(started, 0)
    assert isinstance(public, HandStarted) and public.commitment == COMMITMENT and public.deck == ()
    assert SEED_HEX not in repr(events) + repr(state) + repr(view(state, 0))


def test_a_hand_without_a_commitment_records_none_and_has_nothing_to_reveal() -> None:
    state, events = play(three(), StartHand(deck=shuffle(Deck.italian(3).cards, SEED)))
    started = events[0]
    assert isinstance(started, HandStarted) and (started.commitment, started.shuffle_algorithm) == ("", "")
    with pytest.raises(NothingToReveal, match="non ha un impegno") as refused:
        apply(state, RevealSeed(SEED_HEX))
    assert refused.value.english == "the last hand has no seed commitment"


def test_the_committed_seed_is_revealed_after_the_hand() -> None:
    # given: a committed hand played to its end
    state, events = play(three(), committed_start())
    assert isinstance(events[-1], HandEnded) and state.hand is None
    # when: the dealer reveals the seed
    after, revealed = apply(state, RevealSeed(SEED_HEX, at=5))
    # then: one SeedRevealed for hand 1, and the state records the reveal (nothing else changes)
    assert revealed == (SeedRevealed(1, SEED_HEX),)
    assert after.seed_revealed and after.commitment == COMMITMENT
    assert after.seats == state.seats and after.hand_number == 1 and after.hand is None
    # and the revealed seed recomputes the recorded deck
    started = events[0]
    assert isinstance(started, HandStarted)
    assert shuffle(Deck.italian(3).cards, bytes.fromhex(revealed[0].seed)) == started.deck


def test_a_seed_that_does_not_match_its_commitment_is_refused_with_both_hashes() -> None:
    state, _ = play(three(), committed_start())
    with pytest.raises(SeedMismatch, match="Il seme non corrisponde all'impegno della mano 1") as refused:
        apply(state, RevealSeed(OTHER_SEED_HEX))
    wrong = hashlib.sha256(bytes.fromhex(OTHER_SEED_HEX)).hexdigest()
    assert refused.value.english == (
        f"the seed does not match hand 1's commitment: sha256(seed) = {wrong}, committed {COMMITMENT}"
    )


@pytest.mark.parametrize("seed", ["", SEED_HEX[:-2], SEED_HEX.upper(), SEED_HEX[:-1] + "g", SEED_HEX + "00"])
def test_a_malformed_seed_is_refused(seed: str) -> None:
    state, _ = play(three(), committed_start())
    with pytest.raises(SeedMismatch, match="64 cifre esadecimali"):
        apply(state, RevealSeed(seed))


def test_the_seed_is_not_revealed_during_the_hand() -> None:
    state, _ = apply(three(), committed_start())
    with pytest.raises(NoHandInProgress, match="solo a mano finita"):
        apply(state, RevealSeed(SEED_HEX))


def test_the_seed_is_revealed_only_once() -> None:
    state, _ = play(three(), committed_start())
    state, _ = apply(state, RevealSeed(SEED_HEX))
    with pytest.raises(NothingToReveal, match="già stato rivelato") as refused:
        apply(state, RevealSeed(SEED_HEX))
    assert refused.value.english == "the seed of hand 1 was already revealed"


def test_the_next_hand_brings_a_new_commitment_to_reveal() -> None:
    # given: hand 1 revealed
    state, _ = play(three(), committed_start())
    state, _ = apply(state, RevealSeed(SEED_HEX))
    # when: hand 2 starts with another seed
    second = bytes.fromhex(OTHER_SEED_HEX)
    state, _ = play(state, committed_start(second), rng_seed=2)
    # then: only hand 2's seed is accepted
    with pytest.raises(SeedMismatch):
        apply(state, RevealSeed(SEED_HEX))
    assert apply(state, RevealSeed(OTHER_SEED_HEX))[1] == (SeedRevealed(2, OTHER_SEED_HEX),)


@pytest.mark.parametrize("commitment", ["abc", COMMITMENT.upper(), COMMITMENT + "0"])
def test_a_malformed_commitment_is_refused_at_the_start(commitment: str) -> None:
    with pytest.raises(SeedMismatch, match="impegno sul seme non è valido"):
        apply(three(), StartHand(deck=Deck.italian(3).cards, commitment=commitment))


def test_the_uncontested_winner_may_still_show_after_the_reveal() -> None:
    # given: seat 0 opens 40 and everyone folds (seat 0 wins uncontested); the seed is revealed
    state = start(table([1000] * 4), H4, button=3, commitment=COMMITMENT, shuffle_algorithm=ALGORITHM)
    state = run(state, BetOrRaise(0, 40), Fold(1), Fold(2), Fold(3))
    assert state.hand is None and state.last_winner == 0
    state, _ = apply(state, RevealSeed(SEED_HEX))
    # then: MOSTRO is still offered to the winner, and shows the five cards
    assert legal_actions(state, 0) == (LegalAction(ActionKind.SHOW, "MOSTRO"),)
    assert apply(state, ShowHand(0))[1] == (HandShown(0, parse_cards(H4[0]), ""),)


def test_events_recorded_before_the_commitment_existed_still_decode() -> None:
    _, events = apply(three(), committed_start())
    data = to_data(events[0])
    del data["commitment"], data["shuffle_algorithm"]
    old = from_data(HandStarted, data)
    assert (old.commitment, old.shuffle_algorithm) == ("", "")
    state = from_data(TableState, {k: v for k, v in to_data(three()).items() if k != "commitment"})
    assert state.commitment == "" and not state.seed_revealed


def test_cambio_reshuffles_derive_from_the_seed_through_the_deck() -> None:
    # given: six players and seed 10 (the bots with rng 10 change enough cards to empty the stock)
    seed = (10).to_bytes(32, "big")
    state = initial_state(TableConfig(seats=6), [(i, f"p{i}", 1000) for i in range(6)])
    deck = shuffle(Deck.italian(6).cards, seed)
    played = play_hand(state, deck, random.Random(10))
    reshuffles = [e for e in played.events if isinstance(e, DiscardsReshuffled)]
    assert reshuffles, "seed 10 is expected to need a reshuffle"
    # then: each reshuffled stock is recomputed from the seed alone: seed → deck → sha256 → derived seed
    digest = hashlib.sha256("".join(str(card) for card in deck).encode()).digest()
    for k, event in enumerate(reshuffles, start=1):
        pile = sorted(event.stock, key=lambda card: card.code)
        expected = shuffle(pile, derive_seed(digest, f"cambio-reshuffle-{k}"))
        assert event.stock == expected == reshuffle_order(deck, event.stock, k)
