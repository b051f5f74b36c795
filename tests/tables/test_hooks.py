"""A table asks its tournament through :mod:`tables.hooks` (tables import nothing of tournaments): the
tournaments app registers the answers in ``TournamentsConfig.ready()``; with none, a tournament table starts
no hand, follows no group and shows no notice."""

from __future__ import annotations

import pytest

from engine.core import ForcedBets
from tables import hooks
from tournaments import hooks as answers


def test_the_tournaments_app_registers_its_answers() -> None:
    """...and the cashier its cash tables' panel (issue 21)."""
    from cashier import views

    assert hooks._hooks == {
        "hand_settings": answers.hand_settings,
        "waiting_tables": answers.waiting_tables,
        "tournament_group": answers.tournament_group,
        "seat_elsewhere": answers.seat_elsewhere,
        "table_panel": views.table_panel,
    }


def test_without_hooks_a_tournament_table_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hooks, "_hooks", {})
    assert hooks.hand_settings(1, 2, 0) == hooks.NextHand(False)
    assert hooks.waiting_tables(1, [(2, 0)]) == set()  # the sweep tries every table, as before
    assert hooks.tournament_group(1) == ""
    assert hooks.seat_elsewhere("mtt-1", "anna") is None
    assert hooks.table_panel(None, None) == ""
    hooks.register(tournament_group=lambda tournament_id: f"group-{tournament_id}")
    assert hooks.tournament_group(7) == "group-7"
    assert hooks.hand_settings(1, 2, 0) == hooks.NextHand(False)


def test_an_answer_of_an_invito_reads_as_forced_bets(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook answering as before issue 17, ``(allowed, invito)``, gives the invito as forced bets."""
    monkeypatch.setattr(hooks, "_hooks", {})
    hooks.register(hand_settings=lambda tournament_id, table_id, number: (True, 50))
    assert hooks.hand_settings(1, 2, 3) == hooks.NextHand(True, ForcedBets(invito=50))
    hooks.register(hand_settings=lambda tournament_id, table_id, number: (False, None))
    assert hooks.hand_settings(1, 2, 3) == hooks.NextHand(False)


@pytest.mark.django_db
def test_a_table_of_no_multi_table_tournament_follows_no_group() -> None:
    assert hooks.tournament_group(None) == ""
    assert hooks.tournament_group(123456) == ""
    assert hooks.seat_elsewhere("", "anna") is None
    assert hooks.seat_elsewhere("mtt-123456", "anna") is None
