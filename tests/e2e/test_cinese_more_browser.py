"""Poker cinese in headless Chromium, more of issue 20's real-browser tests: a player who lets the clock run
out gets the solver's arrangement (CN-TIME-1, through the service's timers); a table with the cascade option
shows the tokens taken as CN-4's *variante* says; four players (one on a phone) each arrange a 3-card third
row and the reveal shows four arrangements. Setup as in :mod:`tests.e2e.test_cinese_browser`."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from eventstore.models import Event
from tables import access
from tables import api as tables_api
from tables import service as tables
from tests.e2e.conftest import artifact_name, overflow, wide
from tests.e2e.test_browser import log_in, screenshot
from tests.e2e.test_table_families_browser import PLAYER, PLAYER2, new_context
from tests.service_harness import LiveService, in_thread
from tournaments.management.commands.demo import ensure_accounts

pytestmark = [pytest.mark.e2e, pytest.mark.timers, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PHONE = (390, 844)
DESKTOP = (1280, 800)
MORE = ("ospite3", "ospite4")  # two more players, made here: the password is the user name
READY = "[data-cinese][data-ready] .cn-pool [data-card]"


@pytest.fixture
def game_speed() -> dict[str, float]:
    """A long pause after a game: the reveal stays on the table while the test reads it."""
    return {"MAZZIERE_BOT_THINK": 0.05, "MAZZIERE_NEXT_HAND_DELAY": 30.0}


def make_players() -> None:
    ensure_accounts()
    group = Group.objects.get(name=access.PLAYER)
    for name in MORE:
        user, created = get_user_model().objects.get_or_create(username=name)
        if created:
            user.set_password(name)
            user.save()
        user.groups.add(group)


def open_table(players: tuple[str, ...], **options: Any) -> int:
    data = {"name": "Cinese e2e", "game": "CN", "seats": len(players), "action_seconds": 300, **options}
    table_id = tables_api.open_cinese(data, "diego").table_id
    for player in players:
        tables.join_table(table_id, player)
    return table_id


def open_pages(
    browser: Any, base_url: str, table_id: int, seats: list[tuple[str, tuple[int, int]]]
) -> list[Any]:
    pages = []
    for user, (width, height) in seats:
        page = new_context(browser, base_url, width, height).new_page()
        log_in(page, user, user)
        page.goto(f"/tables/{table_id}/")
        pages.append(page)
    return pages


def my_cards(page: Any) -> list[str]:
    return page.eval_on_selector_all("[data-cinese] [data-card]", "els => els.map(e => e.dataset.card)")


def suggest_and_submit(page: Any) -> None:
    page.click("[data-suggest]")
    page.wait_for_function("document.querySelectorAll('.cn-pool [data-card]').length === 0")
    page.click("[data-submit]")
    page.wait_for_selector("[data-waiting], [data-reveal]")


def shown(page: Any) -> dict[str, list[tuple[list[str], int]]]:
    """The reveal's arrangements as the page shows them: player → [(row's cards, token)]."""
    return dict(
        page.eval_on_selector_all(
            "[data-shown] .cn-shown-player",
            """els => els.map(p => [p.querySelector('strong').textContent.trim(),
                 [...p.querySelectorAll('.cn-seat-row')].map(r => [
                   [...r.querySelectorAll('img[data-card]')].map(i => i.dataset.card),
                   Number(r.querySelector('.cn-token').textContent.trim())])])""",
        )
    )


def test_a_player_who_lets_the_clock_run_out_gets_the_solvers_arrangement(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    """CN-TIME-1: the desktop player submits (Suggest); the phone player does nothing. When the table's short
    time to arrange runs out the service's time-out arranges the phone player's cards with the solver, and
    both pages show the reveal with the phone player's rows filled with exactly their 15 cards."""
    in_thread(make_players)
    table_id = in_thread(lambda: open_table((PLAYER, PLAYER2), action_seconds=15))
    pages = open_pages(browser, asgi_live_server, table_id, [(PLAYER, DESKTOP), (PLAYER2, PHONE)])
    try:
        for page in pages:
            page.wait_for_selector(READY, timeout=30_000)
        late = sorted(my_cards(pages[1]))
        assert len(late) == 15
        assert pages[1].locator("[data-zone='pool'] [data-card]").count() == 15  # nothing placed by hand
        assert pages[1].locator(".cn-timer").count() == 1  # the countdown is on the page
        suggest_and_submit(pages[0])
        for page in pages:
            page.wait_for_selector("[data-reveal]", timeout=90_000)
            arrangements = shown(page)
            assert set(arrangements) == {PLAYER, PLAYER2}
            rows = arrangements[PLAYER2]
            assert [len(cards) for cards, _ in rows] == [5, 5, 5]
            assert sorted(card for cards, _ in rows for card in cards) == late
            assert all(0 <= t <= 4 for _, t in rows)  # a token of the default set on every row (CN-3)
            assert page.locator("[data-reveal-row]").count() == 3
            assert (
                f"{PLAYER2} ran out of time: the solver arranged the rows"
                in page.locator("body").inner_text()
            )
        assert overflow(pages[1]) <= 0, wide(pages[1])
    finally:
        for index, page in enumerate(pages):
            screenshot(page, output_dir / artifact_name(request, f"cinese-timeout-{index}"))

    def submissions() -> list[tuple[int, bool]]:
        found = Event.objects.filter(stream_id=tables.stream_id(table_id), type="ArrangementSubmitted")
        return [(e.data["seat"], e.data["automatic"]) for e in found.order_by("version")]

    assert sorted(set(in_thread(submissions))) == [(0, False), (1, True)]
    live_service.assert_no_errors()


PLACES_SPLIT = re.compile(r"\s*›\s*")
TAKES = re.compile(r"(\S+) takes ([\d+]+)")


def cascade(places: list[list[str]], stakes: dict[str, int]) -> dict[str, list[int]]:
    """CN-4's *variante* with its decision on ties: the first place (one player or several tied) win their own
    tokens; a token passes up only from a lone player to a lone player on the place directly above."""
    won: dict[str, list[int]] = {who: [stakes[who]] for who in places[0]}
    for above, below in itertools.pairwise(places):
        if len(above) == 1 and len(below) == 1:
            won.setdefault(above[0], []).append(stakes[below[0]])
    return {who: sorted(tokens) for who, tokens in won.items()}


def test_the_cascade_shows_the_tokens_taken_as_the_variante_says(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    """CN-4 variante, three players: on each row the best takes their own token and the second's, the second
    the third's. The test reads the places and every player's tokens from the reveal and checks each
    "takes"."""
    players = (PLAYER, PLAYER2, MORE[0])
    in_thread(make_players)
    table_id = in_thread(lambda: open_table(players, cascade=True))
    pages = open_pages(
        browser, asgi_live_server, table_id, [(PLAYER, DESKTOP), (PLAYER2, PHONE), (MORE[0], DESKTOP)]
    )
    try:
        for page in pages:
            page.wait_for_selector(READY, timeout=30_000)
            assert "cascade" in page.locator(".game-name").locator("..").inner_text()
        for page in pages:
            suggest_and_submit(page)
        for page in pages:
            page.wait_for_selector("[data-reveal]", timeout=20_000)
            arrangements = shown(page)
            assert set(arrangements) == set(players)
            for row in range(3):
                element = page.locator(f"[data-reveal-row='{row}']")
                text = element.inner_text()
                won_text = (
                    element.locator(".cn-won").inner_text() if element.locator(".cn-won").count() else ""
                )
                discarded = (
                    element.locator(".muted").inner_text() if element.locator(".muted").count() else ""
                )
                ranking = text.split(":", 1)[1].replace(won_text, "").replace(discarded, "").strip()
                places = [
                    [name.strip() for name in group.split("=")] for group in PLACES_SPLIT.split(ranking)
                ]
                assert sorted(name for group in places for name in group) == sorted(players), text
                stakes = {who: rows[row][1] for who, rows in arrangements.items()}
                taken = {
                    who: sorted(int(t) for t in tokens.split("+")) for who, tokens in TAKES.findall(won_text)
                }
                assert taken == cascade(places, stakes), (text, stakes)
                if [len(group) for group in places] == [1, 1, 1]:
                    assert len(taken) == 2, (
                        text
                    )  # the second takes the third's token: cascade, not "best takes all"
        assert overflow(pages[1]) <= 0, wide(pages[1])
    finally:
        for index, page in enumerate(pages):
            screenshot(page, output_dir / artifact_name(request, f"cinese-cascade-{index}"))
    live_service.assert_no_errors()


def test_four_players_arrange_a_three_card_row_and_see_four_arrangements(
    request: pytest.FixtureRequest, live_service: LiveService, asgi_live_server: str, browser: Any,
    output_dir: Path,
) -> None:  # fmt: skip
    """Four players, 13 cards each (CN-2): every page has rows of 5, 5 and 3; all press Suggest and Submit;
    every page's reveal shows four arrangements of 5+5+3 cards."""
    players = (PLAYER, PLAYER2, *MORE)
    sizes = [DESKTOP, PHONE, DESKTOP, PHONE]
    in_thread(make_players)
    table_id = in_thread(lambda: open_table(players))
    pages = open_pages(browser, asgi_live_server, table_id, list(zip(players, sizes, strict=True)))
    try:
        dealt = []
        for page in pages:
            page.wait_for_selector(READY, timeout=30_000)
            sizes_shown = page.eval_on_selector_all(
                "[data-cinese] .cn-row", "els => els.map(e => e.dataset.size)"
            )
            assert sizes_shown == ["5", "5", "3"]
            assert page.locator("[data-count='2']").inner_text() == "0/3"
            dealt.append(set(my_cards(page)))
            assert len(dealt[-1]) == 13
        assert len(set().union(*dealt)) == 52
        screenshot(pages[1], output_dir / artifact_name(request, "cinese-four-arranging-phone"))
        for page in pages:
            page.click("[data-suggest]")
            page.wait_for_function("document.querySelectorAll('.cn-pool [data-card]').length === 0")
            assert page.locator("[data-zone='2'] [data-card]").count() == 3
            assert page.locator("[data-count='2']").inner_text() == "3/3"
            page.click("[data-submit]")
            page.wait_for_selector("[data-waiting], [data-reveal]")
        for index, page in enumerate(pages):
            page.wait_for_selector("[data-reveal]", timeout=20_000)
            assert page.locator("[data-reveal-row]").count() == 3
            arrangements = shown(page)
            assert set(arrangements) == set(players)
            for who, rows in arrangements.items():
                assert [len(cards) for cards, _ in rows] == [5, 5, 3], who
                assert {card for cards, _ in rows for card in cards} == dealt[players.index(who)]
            assert page.locator("[data-shown] img[data-card]").count() == 52
            assert overflow(page) <= 0, (index, wide(page))
    finally:
        for index, page in enumerate(pages):
            screenshot(page, output_dir / artifact_name(request, f"cinese-four-reveal-{index}"))
    live_service.assert_no_errors()
