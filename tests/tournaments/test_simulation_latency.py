"""The simulation's measurements (``manage.py simulate_tournament``): the bots' think time as a range that can
be computed again afterwards, the action latency read back from the log, the ``--think-ms`` option."""

from __future__ import annotations

import pytest
from django.core.management.base import CommandError
from django.db import transaction
from django.test import override_settings

from eventstore import store
from eventstore.store import NewEvent
from tables import timers
from tournaments import mtt
from tournaments.management.commands.simulate_tournament import think_range
from tournaments.simulation import action_latency, distribution, hand_timing


@override_settings(MAZZIERE_BOT_THINK=2.0, MAZZIERE_BOT_THINK_MAX=4.0)
def test_bot_think_is_a_repeatable_pick_in_the_range() -> None:
    picks = [timers.bot_think(table, version) for table in range(1, 30) for version in range(1, 30)]
    assert all(2.0 <= pick <= 4.0 for pick in picks)
    assert picks == [timers.bot_think(table, version) for table in range(1, 30) for version in range(1, 30)]
    assert len(set(picks)) > 100  # spread over the range, not one value
    assert all(pick == round(pick, 3) for pick in picks)  # whole milliseconds


@override_settings(MAZZIERE_BOT_THINK=0.5, MAZZIERE_BOT_THINK_MAX=None)
def test_without_a_maximum_the_think_time_is_fixed() -> None:
    assert {timers.bot_think(t, v) for t in range(5) for v in range(5)} == {0.5}


def test_think_ms_option() -> None:
    assert think_range("0") == (0, 0)
    assert think_range("2000-4000") == (2000, 4000)
    for bad in ("4000-2000", "abc", "-5", "1-2-3"):
        with pytest.raises(CommandError):
            think_range(bad)


def test_distribution_percentiles() -> None:
    result = distribution([float(n) for n in range(1, 101)])
    assert result["count"] == 100 and result["max_ms"] == 100.0
    assert 50 <= result["p50_ms"] <= 51 and 99 <= result["p99_ms"] <= 100
    assert distribution([])["p99_ms"] is None
    assert distribution([7.0])["p99_ms"] == 7.0


def _append(stream: str, version: int, types: list[str], at: int, actor: str = "system") -> int:
    """One append (its own transaction) of ``types`` at ``at`` ms; returns the stream's new version."""
    with transaction.atomic():
        recorded = store.append(stream, version, [NewEvent(t, {}) for t in types], {"at": at, "actor": actor})
    return recorded[-1].version


@pytest.mark.django_db(transaction=True)
@override_settings(MAZZIERE_BOT_THINK=2.0, MAZZIERE_BOT_THINK_MAX=4.0)
def test_action_latency_from_the_log() -> None:
    """Latency = at(action) − at(the append before it) − the think countdown given after that append; only
    bots' actions (appended by ``system``, first event a player action, no timeout) count."""
    table = 987_654
    stream = f"table-{table}"
    v = _append(stream, 0, ["TableOpened", "PlayerSeated"], 1_000)
    at = 2_000
    v = _append(stream, v, ["HandStarted", "CardsDealt", "TurnStarted"], at)
    at += round(timers.bot_think(table, v) * 1000) + 15  # 15 ms late
    v = _append(stream, v, ["Checked", "TurnStarted"], at)
    at += round(timers.bot_think(table, v) * 1000) + 40  # 40 ms late, the time bank used first
    v = _append(stream, v, ["TimeBankUsed", "Called", "TurnStarted"], at)
    v = _append(stream, v, ["PlayerTimedOut", "Folded", "TurnStarted"], at + 60_000)  # a timeout: not counted
    _append(stream, v, ["Checked"], at + 70_000, actor="someone")  # a person's action: not counted
    result = action_latency([stream])
    assert result["count"] == 2
    assert (result["p50_ms"], result["max_ms"]) == (pytest.approx(27.5), 40.0)
    assert result["think_ms"] == [2000.0, 4000.0]


@pytest.mark.django_db(transaction=True)
def test_hand_timing_from_the_log() -> None:
    """The process manager's lag (HandEnded → HandRecorded) and the gap until the table's next hand."""
    table, tournament = 987_655, 987_656
    stream = f"table-{table}"
    v = _append(stream, 0, ["TableOpened"], 1_000)
    with transaction.atomic():
        recorded = store.append(stream, v, [NewEvent("HandStarted", {"number": 1})], {"at": 2_000})
        recorded = store.append(
            stream, recorded[-1].version, [NewEvent("HandEnded", {"number": 1})], {"at": 3_000}
        )
    with transaction.atomic():
        store.append(stream, recorded[-1].version, [NewEvent("HandStarted", {"number": 2})], {"at": 3_250})
        store.append(
            mtt.stream_id(tournament),
            0,
            [NewEvent("HandRecorded", {"hand_key": f"{table}-1"})],
            {"at": 3_100},
        )
    result = hand_timing(tournament, [stream])
    assert result["recorded"]["max_ms"] == 100.0 and result["not_recorded"] == 0
    assert result["between_hands"]["count"] == 1 and result["between_hands"]["max_ms"] == 250.0
