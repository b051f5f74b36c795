"""The auditors' tools over a table of every registered game (issue 17, "Auditors": replay any hand of any
game with every card, export it, ``verify_all`` checks every game's streams). Parametrized over the registry,
so a game registered later is held to it at once.

Bots play three hands at a table of the game through the table service (start, bot moves, seed reveal, as
the Celery tasks run them); then ``verify`` passes on the stream, each hand replays step by step to the
recorded stacks on the auditors' page with every card dealt, and the PHH export names the game's variant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction

from audit import hands, verification
from audit import views as audit_views
from audit.export import hand_phh, table_phhs
from engine.core import ForcedBets, find_game, games
from eventstore.store import read_stream
from tables import access, service, tasks

pytestmark = pytest.mark.django_db(transaction=True)

CANDIDATES = (
    ForcedBets(invito=10),
    ForcedBets(small_blind=5, big_blind=10),
    ForcedBets(small_blind=5, big_blind=10, small_bet=10, big_bet=20),
    ForcedBets(ante=2, bring_in=5, small_bet=10, big_bet=20),
    ForcedBets(ante=2, bring_in=5, small_bet=10),
    ForcedBets(ante=2, bring_in=5),
    ForcedBets(ante=5),
    ForcedBets(),  # a game without forced bets (poker cinese, issue 20)
)
"""Forced bets to try, the first the game accepts (``Game.check_forced_bets``) is its table's."""
HANDS = 3


def forced_for(code: str) -> ForcedBets:
    game = find_game(code)
    for forced in CANDIDATES:
        try:
            game.check_forced_bets(forced)
        except ValueError:
            continue
        return forced
    pytest.fail(f"no forced bets of the test fit {code}: add some to CANDIDATES")


def play(code: str, bots: list[str]) -> int:
    """A table of ``code`` where ``bots`` play :data:`HANDS` hands; returns its id."""
    game = find_game(code)
    config = game.table_config(
        seats=max(len(bots), game.min_seats),
        tournament=False,
        forced=forced_for(code),
        action_time_ms=30_000,
        time_bank_ms=0,
    )
    with transaction.atomic():
        seated = [(seat, player, 1_000) for seat, player in enumerate(bots)]
        table_id = service.open_table(f"audit {code}", config, seated, game=code).table_id
    for _ in range(HANDS * 400):
        loaded = service.load(table_id, cached=False)
        ended = sum(1 for e in read_stream(service.stream_id(table_id)) if e.type == "HandEnded")
        between = not loaded.facts.in_hand and not loaded.facts.reveal_due
        # the random bots may bust all but one player before HANDS hands: then the hands played are enough
        if between and (ended >= HANDS or (ended and not loaded.rules.can_start_hand(loaded.state))):
            return table_id
        run = tasks.run_bot if loaded.facts.in_hand else tasks.run_start_hand
        assert run(table_id, loaded.version), f"{code}: nothing happened at v{loaded.version}"
    pytest.fail(f"{code}: {HANDS} hands did not end")


@pytest.mark.parametrize("code", [game.code for game in games()])
def test_auditors_verify_replay_and_export_hands_of_every_game(
    code: str, user_factory: Any, web_as: Callable[[Any], Any], auditor: Any
) -> None:
    bots = [user_factory(username=f"bot-{code.lower()}-{n}", groups=[access.BOT]).username for n in range(3)]
    table_id = play(code, bots)
    stream = service.stream_id(table_id)

    recorded = read_stream(stream)
    played = list(hands.hands(table_id, recorded))
    try:
        find_game(code).export_hand(played[0].before, played[0].events)
        exportable = True
    except NotImplementedError:  # a game registered before its PHH export: the rest still holds
        exportable = False

    count = len(played)  # HANDS, or fewer when the bots left one player with chips (see play)
    assert 1 <= count <= HANDS
    report = verification.verify([stream])
    assert report.counts["hands"] == count
    if exportable:
        assert report.ok, report.failures
    else:  # shuffles and snapshots verified; only the hands' PHH replay is missing
        assert [(f.check, "(hand check): NotImplementedError" in f.message) for f in report.failures] == [
            ("replay", True)
        ], report.failures

    assert [h.number for h in played] == list(range(1, count + 1)) and {h.game for h in played} == {code}
    game = find_game(code)
    index = audit_views.finished_hands([stream])[stream]
    assert [h.number for h in index] == list(range(1, count + 1))
    assert all(set(h.players) <= set(bots) for h in index)

    client = web_as(auditor)
    for hand in played:
        span = range(hand.first_version, hand.last_version + 1)
        in_hand = [r for r in recorded if r.version in span and r.type in game.events]
        steps = audit_views.replay_steps(hand, in_hand)
        after = {i: s.stack for i, s in enumerate(game.facts(hand.after).seats) if s is not None}
        assert {s["index"]: s["stack"] for s in steps[-1].seats if not s["eliminated"]} == after
        started = next(e for e in hand.events if type(e).__name__ == "HandStarted")
        dealt = {c for step in steps for seat in step.seats for c in seat["cards"]}
        dealt |= {c for step in steps for c in step.board}
        assert dealt and dealt <= {str(c) for c in started.deck}  # every card shown came from the deck

        page = client.get(f"/audit/tables/{table_id}/hands/{hand.number}/")
        assert page.status_code == 200
        html = page.content.decode()
        assert "data-final-stacks" in html and all(
            f'data-card="{c}"' in html for c in dealt - {c for step in steps for c in step.board}
        )

        if exportable:
            assert f'variant = "{code}"' in hand_phh(table_id, hand.number)
    if not exportable:
        pytest.xfail(f"{code} has no PHH export yet (Game.export_hand): replayed, not exported")
    assert table_phhs(table_id).count("variant = ") == count
