"""The poker cinese arrangement page (issue 20; CN-2, CN-3, CN-4, CN-5): the player's cards, three rows,
the tokens, the Suggest and Submit buttons, translated labels, the draft put back in the rows, the waiting
line after a submit, and the reveal with the match score. Another player's cards and stakes are never in
the page before the reveal."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tables import service
from tests.tables.test_cinese_tables import cinese_players, leaks, seated_table, start_game, submit, suggest  # noqa: F401

pytestmark = pytest.mark.django_db

PAGE_TEXT = {
    "it": ("Prima fila", "Seconda fila", "Terza fila", "Suggerisci", "Invia", "Gettone", "Composizione"),
    "en": ("First row", "Second row", "Third row", "Suggest", "Submit", "Token", "Arranging"),
}


def page(web_as: Any, user: Any, table_id: int, language: str) -> str:
    response = web_as(user).get(f"/tables/{table_id}/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return str(response.content.decode())


def card_codes(html: str) -> set[str]:
    return set(re.findall(r'data-card="([2-9TJQKA][cdhs])"', html))


@pytest.mark.parametrize("language", ["it", "en"])
def test_the_page_shows_my_cards_three_rows_tokens_and_buttons(
    api_as,
    web_as,
    director,
    cinese_players,  # noqa: F811 - the imported fixture
    language,
) -> None:
    anna, bruno = cinese_players["anna"], cinese_players["bruno"]
    table_id = seated_table(api_as, director, [anna, bruno])
    start_game(table_id)
    hand = service.load(table_id).state.hand
    mine = {str(card) for card in hand.cards[0]}
    theirs = {str(card) for card in hand.cards[1]}

    html = page(web_as, anna, table_id, language)
    assert "data-cinese" in html and "static/vendor/sortable.min.js" in html and "static/js/cinese.js" in html
    for text in PAGE_TEXT[language]:
        assert text in html, text
    if language == "en":
        assert "Composizione" not in html and "Prima fila" not in html
    assert card_codes(html) == mine  # all fifteen, none of bruno's
    assert not leaks(html, theirs)
    for row in range(3):
        assert f'data-zone="{row}" data-size="5"' in html
        options = re.search(rf'<select data-stake="{row}">(.*?)</select>', html, re.S)
        assert options is not None
        assert re.findall(r'<option value="(\d)"', options.group(1)) == ["0", "1", "2", "3", "4"]
    assert "data-suggest" in html and "data-submit" in html


def test_the_draft_is_drawn_in_its_rows_with_the_hands_named(
    api_as,
    web_as,
    director,
    cinese_players,  # noqa: F811 - the imported fixture
) -> None:
    anna, bruno = cinese_players["anna"], cinese_players["bruno"]
    table_id = seated_table(api_as, director, [anna, bruno])
    start_game(table_id)
    proposal = suggest(api_as, anna, table_id)
    reversed_rows = [proposal["rows"][2], proposal["rows"][1], proposal["rows"][0]]
    saved = api_as(anna).post(
        f"/api/tables/{table_id}/rows/", {"rows": reversed_rows, "stakes": [None, None, None]}, format="json"
    )
    assert saved.status_code == 200, saved.content
    html = page(web_as, anna, table_id, "en")
    first = re.search(r'data-zone="0" data-size="5"[^>]*>(.*?)</div>', html, re.S)
    assert first is not None and card_codes(first.group(1)) == set(reversed_rows[0])
    named = re.findall(r'data-hand-name="(\d)">([^<]*)<', html)
    assert all(name for _, name in named) and len(named) == 3
    warning = re.search(r"<p class=\"cn-warning\" data-order-warning role=\"alert\"( hidden)?>", html)
    assert warning is not None
    assert (warning.group(1) is None) == (saved.json()["in_order"] is False)


def test_after_my_submit_i_wait_then_everyone_sees_the_reveal_and_the_score(
    api_as,
    web_as,
    director,
    cinese_players,  # noqa: F811 - the imported fixture
) -> None:
    anna, bruno = cinese_players["anna"], cinese_players["bruno"]
    table_id = seated_table(api_as, director, [anna, bruno])
    start_game(table_id)
    hand = service.load(table_id).state.hand
    theirs = {str(card) for card in hand.cards[1]}
    proposal = suggest(api_as, anna, table_id)
    assert submit(api_as, anna, table_id, proposal["rows"], proposal["stakes"]).status_code == 200

    waiting = page(web_as, anna, table_id, "en")
    assert "Submitted: waiting for the others." in waiting and "Submit again" in waiting
    assert not leaks(waiting, theirs)
    bruno_page = page(web_as, bruno, table_id, "it")
    assert 'data-status="submitted"' in bruno_page and "Inviato" in bruno_page
    assert not leaks(bruno_page, set(proposal["rows"][0]))  # anna's rows stay hidden

    answer = suggest(api_as, bruno, table_id)
    assert submit(api_as, bruno, table_id, answer["rows"], answer["stakes"]).status_code == 200
    for user, language, words in ((anna, "en", ("Match score", "First row")), (bruno, "it", ("Punteggio",))):
        html = page(web_as, user, table_id, language)
        assert "data-reveal" in html and html.count("data-reveal-row=") == 3
        for word in words:
            assert word in html
        assert "data-cinese" not in html  # no game running: nothing to arrange


def test_four_players_get_a_three_card_third_row(api_as, web_as, director, cinese_players) -> None:  # noqa: F811
    users = [cinese_players[name] for name in ("anna", "bruno", "carla", "dora")]
    table_id = seated_table(api_as, director, users)
    start_game(table_id)
    hand = service.load(table_id).state.hand
    html = page(web_as, users[3], table_id, "en")
    assert 'data-zone="0" data-size="5"' in html and 'data-zone="1" data-size="5"' in html
    assert 'data-zone="2" data-size="3"' in html and "0/3" in html
    assert card_codes(html) == {str(card) for card in hand.cards[3]} and len(card_codes(html)) == 13
