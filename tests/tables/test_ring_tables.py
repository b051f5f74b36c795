"""Ring (cash) tables through the service (issue 21, CASH-1, CASH-2, CASH-TOPUP-1): a limit hold'em table with
``tournament=False`` played by the service's own runners (:mod:`tables.tasks`, as the timers run them):
bots that owe a blind post it before the hand starts, a human who owes one gets the two choices as buttons,
the hands go on with the chips conserved, and the table's log tells the new events in words."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest
from django.utils import translation

from engine.core import ForcedBets, find_game
from engine.core.model import BlindMissed, BlindPostingChosen, ChipsAdded, ForcedBetPosted
from eventstore.store import read_stream
from tables import access, rendering, service, tasks, timers

pytestmark = pytest.mark.django_db

BOTS = ("bot_a", "bot_b", "bot_c", "bot_d")
STACK = 2000
FORCED = ForcedBets(small_blind=5, big_blind=10)


@pytest.fixture
def users(user_factory: Any) -> Any:
    """The bots (group *bot*) and anna (a player), who is returned."""
    for name in BOTS:
        user_factory(username=name, groups=[timers.BOT_GROUP])
    return user_factory(username="anna", groups=[access.PLAYER])


def open_ring(players: list[tuple[int, str, int]]) -> int:
    """A fixed-limit hold'em ring table (``FT``: nobody busts in the few hands played, so the seats the
    blinds pass are the ones CASH-1 and CASH-2 judge)."""
    game = find_game("FT")
    config = game.table_config(
        seats=6, tournament=False, forced=FORCED, action_time_ms=30_000, time_bank_ms=0
    )
    return service.open_table("Ring", config, players, game="FT").table_id


def step(table_id: int, rng: random.Random) -> None:
    """One move of the table, as the timers make it: the bot to act (a human to act plays the engine's
    bot here), or between hands the start task (which first lets a bot owing a blind post it)."""
    loaded = service.load(table_id)
    if loaded.facts.in_hand:
        seat = min(loaded.facts.to_act)
        occupant = loaded.facts.seats[seat]
        assert occupant is not None
        if timers.is_bot(occupant.player):
            assert tasks.run_bot(table_id, loaded.version)
        else:
            service.handle(table_id, lambda ld, at: ld.rules.bot_command(ld.state, seat, rng, at))
        return
    assert tasks.run_start_hand(table_id, loaded.version), "the start task did nothing between hands"


def play_until(table_id: int, rng: random.Random, done: Any, hands: int = 12) -> service.Loaded:
    """Step the table until ``done(loaded)`` between hands, within ``hands`` more hands."""
    last = service.load(table_id).hand_number + hands
    for _ in range(hands * 200):
        loaded = service.load(table_id)
        if not loaded.facts.in_hand and done(loaded):
            return loaded
        assert loaded.hand_number <= last, "the condition did not come within the hands allowed"
        step(table_id, rng)
    raise AssertionError("the table does not move on")


def stacks(loaded: service.Loaded) -> int:
    return sum(s.stack for s in loaded.facts.seats if s is not None)


def events(table_id: int) -> list[Any]:
    return read_stream(service.stream_id(table_id))


def log_text(table_id: int, viewer: str) -> str:
    loaded = service.load(table_id)
    return "\n".join(str(text) for _, text in rendering.log_lines(loaded, viewer, events(table_id)))


def test_a_bot_seated_after_hands_were_played_posts_its_big_blind_and_the_hands_go_on(users: Any) -> None:
    """CASH-1: a bot seated after the table's first hand owes a big blind; the start task has it post
    (``BlindPostingChosen(post=True)``) before the next hand, and it is dealt in within a round."""
    table_id = open_ring([(0, "bot_a", STACK), (1, "bot_b", STACK), (2, "bot_c", STACK)])
    rng = random.Random(3)
    loaded = play_until(table_id, rng, lambda ld: ld.hand_number >= 3)
    assert stacks(loaded) == 3 * STACK
    seated_at = service.handle(table_id, lambda ld, at: ld.rules.seat_command(4, "bot_d", STACK, at)).loaded
    assert seated_at.state.seats[4].new

    loaded = play_until(table_id, rng, lambda ld: any(4 in e.data["dealt"] for e in _starts(table_id)))
    assert stacks(loaded) == 4 * STACK
    after = [e for e in events(table_id) if e.version > seated_at.version]
    chosen = [e for e in after if e.type == "BlindPostingChosen"]
    first_start = next(e for e in after if e.type == "HandStarted")
    assert chosen and chosen[0].data == {"seat": 4, "post": True}
    assert chosen[0].version < first_start.version  # posted before the next hand started
    dealt_in = next(e for e in after if e.type == "HandStarted" and 4 in e.data["dealt"])
    in_hand = [e for e in after if e.version > dealt_in.version and e.type == "ForcedBetPosted"]
    posted = {e.data["kind"] for e in in_hand if e.data["seat"] == 4}
    assert posted & {"posted_big_blind", "big_blind"}, posted  # CASH-1: a live big blind, or the big blind
    assert dealt_in.data["number"] <= seated_at.hand_number + 6  # within a round (at most 4 players)

    loaded = play_until(table_id, rng, lambda ld: ld.hand_number >= dealt_in.data["number"] + 2)
    assert stacks(loaded) == 4 * STACK and not loaded.state.seats[4].new
    with translation.override("en"):
        text = log_text(table_id, "bot_a")
    assert "bot_d will post the blinds owed at the next hand" in text
    if "posted_big_blind" in posted:
        assert "bot_d posts a big blind of 10" in text
    assert "posted_big_blind" not in text and "BlindPostingChosen" not in text


def _starts(table_id: int) -> list[Any]:
    return [e for e in events(table_id) if e.type == "HandStarted"]


def test_a_human_who_missed_the_big_blind_gets_the_choice_as_buttons_posts_and_tops_up(
    users: Any, api_as: Any
) -> None:
    """CASH-2: anna sits out until the big blind passes her (marker ML); back, she sees Post and Wait for
    the big blind (in both languages), posts, tops up (CASH-TOPUP-1) and is dealt in again; the log says
    each step."""
    players = [(0, "bot_a", STACK), (1, "bot_b", STACK), (2, "bot_c", STACK), (3, "anna", STACK)]
    table_id = open_ring(players)
    rng = random.Random(5)
    play_until(table_id, rng, lambda ld: ld.hand_number >= 1)
    service.act(table_id, "anna", "sit_out")
    loaded = play_until(table_id, rng, lambda ld: ld.state.seats[3].missed_big)
    service.act(table_id, "anna", "return")
    loaded = service.load(table_id)
    owed = 10 + (5 if loaded.state.seats[3].missed_small else 0)
    kinds = [(a.kind, a.minimum) for a in loaded.rules.legal_actions(loaded.state, 3)]
    assert kinds == [("post_blind", owed), ("wait_big_blind", 0)]
    with translation.override("en"):
        english = rendering.fragments(loaded, "anna", 0)
    with translation.override("it"):
        italian = rendering.fragments(loaded, "anna", 0)
    assert 'data-action="post_blind"' in english and 'data-action="wait_big_blind"' in english
    assert f"Post {owed}</button>" in english and "Wait for the big blind</button>" in english
    assert f"Paga {owed}</button>" in italian and "Aspetta il grande buio</button>" in italian
    assert '"action": "post_blind"' in english  # the button sends the engine's action

    before = loaded.state.seats[3].stack
    response = api_as(users).post(  # what the Post button sends, through the API
        f"/api/tables/{table_id}/act/",
        {"command_id": str(uuid.uuid4()), "expected_version": loaded.version, "action": "post_blind"},
        format="json",
    )
    assert response.status_code == 200, response.content
    service.handle(table_id, lambda ld, at: ld.rules.add_chips_command(3, 500, at))
    loaded = service.load(table_id)
    assert loaded.state.seats[3].posting and loaded.state.seats[3].stack == before + 500
    assert 'data-action="post_blind"' not in rendering.fragments(loaded, "anna", 0)  # chosen: only Wait left
    total = 4 * STACK + 500
    assert stacks(loaded) == total
    mark = loaded.version
    loaded = play_until(
        table_id, rng, lambda ld: any(3 in e.data["dealt"] for e in _starts(table_id) if e.version > mark)
    )
    assert stacks(loaded) == total
    loaded = play_until(table_id, rng, lambda ld: ld.hand_number >= loaded.hand_number + 1)
    assert stacks(loaded) == total
    with translation.override("en"):
        text = log_text(table_id, "anna")
    assert "anna is sitting out" in text and "anna missed the big blind" in text
    assert "anna will post the blinds owed at the next hand" in text and "anna adds 500 chips" in text
    with translation.override("it"):
        testo = log_text(table_id, "bot_b")
    assert "anna ha saltato il grande buio" in testo and "anna aggiunge 500 fiches" in testo


@pytest.mark.parametrize(
    ("event", "english", "italian"),
    [
        (
            ForcedBetPosted(0, "posted_big_blind", 10, False, True),
            "anna posts a big blind of 10",
            "anna paga un grande buio di 10",
        ),
        (
            ForcedBetPosted(0, "dead_small_blind", 5, True, False),
            "anna posts a dead small blind of 5",
            "anna paga un piccolo buio morto di 5",
        ),
        (BlindMissed(1, "big_blind"), "bruno missed the big blind", "bruno ha saltato il grande buio"),
        (BlindMissed(1, "small_blind"), "bruno missed the small blind", "bruno ha saltato il piccolo buio"),
        (BlindPostingChosen(2, False), "carla waits for the big blind", "carla aspetta il grande buio"),
        (ChipsAdded(2, "carla", 500, 900), "carla adds 500 chips", "carla aggiunge 500 fiches"),
    ],
)
def test_the_log_words_the_ring_events(event: Any, english: str, italian: str) -> None:
    names = {0: "anna", 1: "bruno", 2: "carla"}
    for code in ("NT", "PO", "F5D"):
        with translation.override("en"):
            assert rendering.describe(event, names, find_game(code)) == english
        with translation.override("it"):
            assert rendering.describe(event, names, find_game(code)) == italian
