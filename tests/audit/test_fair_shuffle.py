"""Provably fair shuffle through the service (issue 6 §1, ``docs/rules-decisions.md``): each hand's
``HandStarted`` commits to ``sha256(seed)``, the seed stays in ``HandSeed`` (never in the log) until the
hand ends, the append that ends the hand reveals it as the hand's last event, and
:func:`audit.shuffles.verify_table_stream` recomputes the deck and every card dealt — and fails, naming the
event, when the log was tampered with."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import replace
from typing import Any

import pytest
from django.db import connection
from django.utils import translation

from audit import shuffles as audit
from engine.cards import Deck
from engine.italian.errors import SeedMismatch
from engine.italian.model import StartHand, TableConfig
from engine.shuffle import ALGORITHM, shuffle
from eventstore.store import RecordedEvent, read_stream
from tables import rendering, service
from tables.models import HandSeed
from tests.tables.helpers import DECK_SEED, bot_move, open_three, play_to_end, seed_bytes, start_hand


def stream(table_id: int) -> list[RecordedEvent]:
    return read_stream(service.stream_id(table_id))


def of_type(events: list[RecordedEvent], kind: str) -> list[RecordedEvent]:
    return [e for e in events if e.type == kind]


def text_of(events: list[RecordedEvent]) -> str:
    return json.dumps([[e.type, e.data, e.metadata] for e in events])


def test_a_hand_commits_to_its_seed_keeps_it_out_of_the_log_and_reveals_it_last(players: Any) -> None:
    seed = seed_bytes(DECK_SEED)
    table_id = open_three()
    # when: a hand starts
    loaded = start_hand(table_id)
    # then: HandStarted commits to the seed and names the algorithm; the seed waits in HandSeed only
    started = of_type(stream(table_id), "HandStarted")[0]
    assert started.data["commitment"] == hashlib.sha256(seed).hexdigest()
    assert started.data["shuffle_algorithm"] == ALGORITHM == "hmac-sha256-ctr/fisher-yates/v1"
    assert bytes(HandSeed.objects.get(table_id=table_id, hand_number=1).seed) == seed
    assert seed.hex() not in text_of(stream(table_id))
    assert audit.verify_table_stream(stream(table_id)) == []  # a hand in progress is skipped
    # while the bots play, the seed never reaches the log
    rng = random.Random(3)
    while loaded.state.hand is not None:
        assert seed.hex() not in text_of(stream(table_id))
        loaded = service.handle(table_id, bot_move(rng), expected_version=loaded.version).loaded
    # then: the append that ended the hand ends with SeedRevealed, after HandEnded (and any elimination)
    events = stream(table_id)
    ended = of_type(events, "HandEnded")[0]
    last = events[-1]
    assert last.type == "SeedRevealed" and last.data == {"number": 1, "seed": seed.hex()}
    assert [e.type for e in events if e.version > ended.version] == ["SeedRevealed"]
    assert last.metadata == ended.metadata  # one append, one transaction
    assert seed.hex() not in text_of([e for e in events if e.version < last.version])
    assert hashlib.sha256(bytes.fromhex(last.data["seed"])).hexdigest() == started.data["commitment"]
    assert not HandSeed.objects.filter(table_id=table_id).exists()  # the log holds it now
    assert loaded.version == last.version and loaded.state.seed_revealed
    assert audit.verify_table_stream(events) == []
    # the hand log shows the seed, shortened, the whole of it on hover
    with translation.override("it"):
        lines = dict(rendering.log_lines(loaded, "anna", events))
    assert lines[last.version] == (
        f'<span class="seed" title="{seed.hex()}">Seme del mazzo: {seed.hex()[:8]}…</span>'
    )


def test_several_hands_verify_and_each_reveals_its_own_seed(players: Any) -> None:
    table_id = open_three()
    rng = random.Random(11)
    for number, seed in enumerate((7, 8, 9), start=1):
        start_hand(table_id, seed)
        play_to_end(table_id, rng)
        revealed = of_type(stream(table_id), "SeedRevealed")
        assert revealed[-1].data == {"number": number, "seed": seed_bytes(seed).hex()}
    events = stream(table_id)
    assert len(of_type(events, "HandStarted")) == len(of_type(events, "SeedRevealed")) == 3
    assert audit.verify_table_stream(events) == []
    # the snapshot taken at the hand's end includes the reveal: a fresh load agrees
    service.forget_cache()
    assert service.load(table_id).state.seed_revealed


def test_a_hand_with_a_cambio_reshuffle_verifies(db: None) -> None:
    # given: six players; with deck seed 10 and bot rng 10 the stock runs out in the cambio
    loaded = service.open_table("Sei", TableConfig(seats=6), [(s, f"p{s}", 1000) for s in range(6)])
    service.handle(
        loaded.table_id, lambda loaded, at: service.start_command(loaded, at, None, seed_bytes(10))
    )
    play_to_end(loaded.table_id, random.Random(10))
    events = stream(loaded.table_id)
    reshuffles = of_type(events, "DiscardsReshuffled")
    assert reshuffles, "deck seed 10 with bot rng 10 is expected to reshuffle the discards"
    # the replacement cards dealt after the reshuffle come from the reshuffled stock
    after = [e for e in of_type(events, "CardsDealt") if e.version > reshuffles[0].version]
    assert after and after[0].data["cards"] == reshuffles[0].data["stock"][: len(after[0].data["cards"])]
    assert audit.verify_table_stream(events) == []
    # and a reshuffle in another order is caught
    tampered = [
        replace(e, data={"stock": e.data["stock"][::-1]}) if e.version == reshuffles[0].version else e
        for e in events
    ]
    problems = audit.verify_table_stream(tampered)
    assert [p.version for p in problems] == [reshuffles[0].version]
    assert "not the order derived from the seed" in problems[0].message


# --- tampering ---------------------------------------------------------------------------------------


@pytest.fixture
def played(players: Any) -> int:
    """A table with two hands played to their end (deck seeds 7 and 8)."""
    table_id = open_three()
    rng = random.Random(5)
    for seed in (7, 8):
        start_hand(table_id, seed)
        play_to_end(table_id, rng)
    return table_id


def edited(events: list[RecordedEvent], version: int, **changes: Any) -> list[RecordedEvent]:
    return [replace(e, data={**e.data, **changes}) if e.version == version else e for e in events]


def test_a_revealed_seed_that_does_not_match_its_commitment_fails_at_its_event(played: int) -> None:
    events = stream(played)
    reveal = of_type(events, "SeedRevealed")[1]
    problems = audit.verify_table_stream(edited(events, reveal.version, seed=seed_bytes(9).hex()))
    assert len(problems) == 1
    assert (problems[0].stream_id, problems[0].version) == (service.stream_id(played), reveal.version)
    assert problems[0].message.startswith(
        f"v{reveal.version}: hand 2: the seed does not match the commitment"
    )


def test_a_wrong_commitment_fails(played: int) -> None:
    events = stream(played)
    started = of_type(events, "HandStarted")[0]
    reveal = of_type(events, "SeedRevealed")[0]
    problems = audit.verify_table_stream(edited(events, started.version, commitment="0" * 64))
    assert [p.version for p in problems] == [reveal.version]
    assert f"does not match the commitment of HandStarted v{started.version}" in problems[0].message


def test_a_changed_dealt_card_fails_at_its_event(played: int) -> None:
    events = stream(played)
    deal = of_type(events, "CardsDealt")[2]  # a five-card initial deal
    other = of_type(events, "CardsDealt")[0]
    cards = [other.data["cards"][0], *deal.data["cards"][1:]]  # its first card replaced by another's
    problems = audit.verify_table_stream(edited(events, deal.version, cards=cards))
    assert [p.version for p in problems] == [deal.version]
    assert f"got {' '.join(cards)}, top of the stock: {' '.join(deal.data['cards'])}" in problems[0].message


def test_a_recorded_deck_that_is_not_the_shuffle_of_the_seed_fails_at_the_start(played: int) -> None:
    events = stream(played)
    started = of_type(events, "HandStarted")[1]
    deck = list(started.data["deck"])
    deck[0], deck[1] = deck[1], deck[0]
    problems = audit.verify_table_stream(edited(events, started.version, deck=deck))
    assert [p.version for p in problems] == [started.version]
    assert "not the shuffle of the revealed seed" in problems[0].message


def test_a_missing_reveal_or_algorithm_fails(played: int) -> None:
    events = stream(played)
    reveal = of_type(events, "SeedRevealed")[0]
    ended = of_type(events, "HandEnded")[0]
    problems = audit.verify_table_stream([e for e in events if e.version != reveal.version])
    assert [p.version for p in problems] == [ended.version]
    assert "ended without revealing its seed" in problems[0].message
    started = of_type(events, "HandStarted")[0]
    problems = audit.verify_table_stream(edited(events, started.version, shuffle_algorithm="rand()"))
    assert [p.version for p in problems] == [started.version]
    assert "unknown shuffle algorithm 'rand()'" in problems[0].message


def test_a_seed_tampered_in_the_database_fails(played: int) -> None:
    # when: someone with database access rewrites the second hand's revealed seed
    sid = service.stream_id(played)
    reveal = of_type(stream(played), "SeedRevealed")[1]
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE eventstore_event SET data = jsonb_set(data, '{seed}', to_jsonb(%s::text)) "
            "WHERE stream_id = %s AND version = %s",
            [seed_bytes(1).hex(), sid, reveal.version],
        )
    # then: the audit of the stream as stored fails at that event
    problems = audit.verify_table_stream(stream(played))
    assert [(p.stream_id, p.version) for p in problems] == [(sid, reveal.version)]
    assert "does not match the commitment" in problems[0].message


def test_a_seed_kept_for_the_hand_that_does_not_match_refuses_the_hand_end(players: Any) -> None:
    # given: a hand whose kept seed was replaced (a bug or an attack)
    table_id = open_three()
    start_hand(table_id)
    HandSeed.objects.filter(table_id=table_id).update(seed=seed_bytes(1))
    # when: the bots play until the action that would end the hand
    rng = random.Random(3)
    loaded = service.load(table_id)
    with pytest.raises(SeedMismatch, match="non corrisponde"):
        while loaded.state.hand is not None:
            loaded = service.handle(table_id, bot_move(rng), expected_version=loaded.version).loaded
    # then: that action was refused whole: the log still has the hand in progress
    assert not of_type(stream(table_id), "HandEnded")
    assert service.load(table_id).state.hand is not None


def test_a_hand_started_without_a_commitment_reveals_nothing_and_is_reported(players: Any) -> None:
    # given: a hand started with a chosen deck (as a hand-history replay does): no commitment
    table_id = open_three()
    deck = shuffle(Deck.italian(3).cards, seed_bytes(DECK_SEED))
    service.handle(table_id, lambda loaded, at: StartHand(deck, at))
    play_to_end(table_id, random.Random(3))
    events = stream(table_id)
    # then: the hand ends normally with nothing revealed, and the audit says it cannot be verified
    assert events[-1].type in ("HandEnded", "PlayerEliminated") and not of_type(events, "SeedRevealed")
    started = of_type(events, "HandStarted")[0]
    problems = audit.verify_table_stream(events)
    assert [(p.version, p.message) for p in problems] == [
        (started.version, f"v{started.version}: hand 1 has no seed commitment")
    ]
