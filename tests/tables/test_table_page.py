"""The player table of issue 18, as rendered (the browser's view: ``tests/e2e/test_table_layout_browser.py``):
VA BENE logged as what it is (IT-BUIO-2), each seat's last action on the felt, the timer ring on the acting
seat with the time bank apart, the watching banner, the hand log's groups, the showdown moment's winner,
the Italian table's bet presets and the seats spread round a short table."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from engine.italian.model import Phase, TableConfig
from tables import rendering, service
from tests.tables.helpers import open_three, start_hand, to_act
from tests.tables.test_table_families import open_holdem, play, seat_html, start


def act(table_id: int, player: str, action: str, **extra: object) -> service.Loaded:
    loaded = service.load(table_id)
    return service.act(table_id, player, action, expected_version=loaded.version, **extra).loaded  # type: ignore[arg-type]


def blind_opening_called(table_id: int) -> tuple[service.Loaded, str]:
    """IT-BUIO-1/2: the first player opens blind (BUIO), the others say DAI CARTE, then call it after the
    deal; returns the table when the blind bettor must answer, and their name."""
    loaded = start_hand(table_id)
    seat, bettor = to_act(table_id)
    assert loaded.state.hand.phase is Phase.BLIND
    (buio,) = [
        o for o in loaded.rules.legal_actions(loaded.state, seat) if rendering.kind_of(o) == "blind_bet"
    ]
    loaded = act(table_id, bettor, "blind_bet", amount=buio.minimum)
    while loaded.state.hand.phase is Phase.BLIND:
        loaded = act(table_id, to_act(table_id)[1], "decline_blind")
    while to_act(table_id)[0] != seat:
        loaded = act(table_id, to_act(table_id)[1], "call")
    return loaded, bettor


@pytest.mark.django_db
def test_va_bene_is_logged_and_shown_as_va_bene_not_busso(players) -> None:
    """IT-BUIO-2: the last blind bettor's answer "no raise" to a called blind opening is *va bene*: the log
    line says VA BENE, on a fresh page and in the socket's update."""
    table_id = open_three(config=TableConfig(seats=3, invito=10))
    loaded, bettor = blind_opening_called(table_id)
    legal = {o.label for o in loaded.rules.legal_actions(loaded.state, to_act(table_id)[0])}
    assert "VA BENE" in legal
    before = loaded.version
    rendering.fragments(loaded, "anna", 0)  # the page as its socket first sent it
    loaded = act(table_id, bettor, "check")
    update = rendering.fragments(loaded, "anna", before)
    assert f"{bettor}: VA BENE" in update and f"{bettor}: BUSSO" not in update
    rendering.forget()  # a fresh page, read back from the stream
    page = rendering.fragments(loaded, "anna", 0)
    assert f"{bettor}: VA BENE" in page and f"{bettor}: BUSSO" not in page
    # the cambio began: the seats' words of the opening round are gone
    assert "seat-last" not in rendering.table_html(loaded, "anna")


@pytest.mark.django_db
def test_seats_show_their_last_action_bet_and_the_timer_ring(players) -> None:
    """Each seat in the hand carries its last action of the round and its bet; the acting seat alone has
    the timer ring, whose action time ends before the time bank (drawn apart)."""
    config = TableConfig(seats=3, invito=10, action_time_ms=20_000, time_bank_ms=30_000)
    table_id = open_three(config=config)
    loaded, _bettor = blind_opening_called(table_id)
    seat, _ = to_act(table_id)
    html = rendering.table_html(loaded, "anna")
    for other in {0, 1, 2} - {seat}:
        assert '<div class="seat-last" data-last>VEDO' in seat_html(html, other)
    rings = re.findall(r'data-seat="(\d)"|class="timer-ring"', html)
    assert html.count('class="timer-ring"') == 1
    assert 'class="timer-ring"' in seat_html(html, seat)
    ring = re.search(
        r'data-action-end="(\d+)" data-bank-end="(\d+)" data-action-ms="(\d+)" data-bank-ms="(\d+)"', html
    )
    assert ring is not None, rings
    action_end, bank_end, action_ms, bank_ms = map(int, ring.groups())
    assert action_ms == 20_000 and bank_end - action_end == bank_ms
    assert bank_ms in (0, 30_000)  # the bank counts only where chips are required (IT-TIME-1)


@pytest.mark.django_db
def test_an_observer_is_told_they_are_watching(players, director) -> None:
    table_id = open_three()
    loaded = start_hand(table_id)
    with translation.override("en"):
        html = rendering.table_html(loaded, director.username)
    assert "You are watching this table" in html and 'id="actions"' not in html
    with translation.override("en"):
        assert "You are watching" not in rendering.table_html(loaded, "anna")


@pytest.mark.django_db
def test_the_log_marks_each_hand_and_the_moment_names_the_winner(players) -> None:
    """Each hand's first log line starts a group (the page hides earlier groups behind "Earlier hands");
    the hand's result names the winner, highlights the winning shown hand and pushes pots in turn."""
    table_id = open_holdem()
    start(table_id)
    loaded = service.load(table_id)
    while loaded.state.hand is not None:
        loaded = play(
            table_id, lambda kinds: next(k for k in ("check", "call", "show", "muck") if k in kinds)
        )
    with translation.override("en"):
        html = rendering.fragments(loaded, "anna", 0)
    assert html.count('class="hand-start"') == 1
    box = re.search(r'<div id="last-hand"[^>]*data-won>(.*?)</div>\s*<div id="hand-log"', html, re.S)
    assert box is not None, html[-2000:]
    assert re.search(r'class="pot-won" data-player="\w+" style="animation-delay: 0ms"', box.group(1))
    winners = set(re.findall(r'class="pot-won" data-player="(\w+)"', box.group(1)))
    marked = set(re.findall(r'class="shown-hand" data-player="(\w+)" data-winner', box.group(1)))
    assert marked and marked <= winners
    assert 'class="cards moment-board"' in box.group(1)  # the board, for a flop game


@pytest.mark.django_db
def test_the_italian_bet_box_has_presets_within_the_limit(players) -> None:
    """The Italian table gets the international tables' one-click amounts (min, ½ pot, pot), each within
    the legal range of the amount box (pot limit, IT-BET-1)."""
    for seed in range(1, 40):  # a deal where the first to speak may open (a pair of jacks or better)
        table_id = open_three(f"T{seed}", config=TableConfig(seats=3, invito=10))
        loaded = start_hand(table_id, seed)
        while loaded.state.hand.phase is Phase.BLIND:
            loaded = act(table_id, to_act(table_id)[1], "decline_blind")
        _seat, player = to_act(table_id)
        html = rendering.table_html(loaded, player)
        box = re.search(r'name="amount" min="(\d+)" max="(\d+)"', html)
        if box is not None:
            break
    assert box is not None
    presets = re.findall(r'class="preset" data-amount="(\d+)"[^>]*>(.*?)</button>', html)
    low, high = map(int, box.groups())
    assert presets and presets[0] == (str(low), "Min")
    assert all(low <= int(chips) <= high for chips, _label in presets)


@pytest.mark.django_db
def test_a_short_table_spreads_its_seats_round_the_oval(players) -> None:
    """Three seats sit at the bottom (the viewer), top left and top right of the 6-max oval, not bunched on
    one side."""
    table_id = open_holdem()
    loaded = start(table_id)
    html = rendering.table_html(loaded, "bruno")
    assert re.search(r'class="seat seat-pos-0[^"]*" data-seat="1"', html)
    assert sorted(re.findall(r'class="seat seat-pos-(\d)', html)) == ["0", "2", "4"]


@pytest.mark.django_db
def test_a_tournament_table_page_shows_its_number_in_the_tournament(players, web_as) -> None:
    """The tournament's pages number its tables 1, 2, … in the order they opened; the table's own page
    says the same number, not the database id its stored name carries (issue 18)."""
    for _ in range(3):  # other tables first: the ids are not the numbers
        open_three("Altro")
    first = service.open_table(
        "Domenica — tavolo 98", TableConfig(seats=3), [(0, "anna", 500), (1, "bruno", 500)], tournament_id=77
    ).table_id
    second = service.open_table(
        "Domenica — tavolo 99", TableConfig(seats=3), [(0, "carla", 500)], tournament_id=77
    ).table_id
    assert second > first > 3
    html = web_as(players["anna"]).get(f"/tables/{second}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<h1>Domenica — table 2</h1>" in html
    html = web_as(players["anna"]).get(f"/tables/{first}/", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert "<h1>Domenica — tavolo 1</h1>" in html
