"""``{% load cards %}`` (issue 22): a card's picture as the ``tables/partials/common/card.html`` include and
``{% static 'cards/' %}{{ c }}.svg`` drew it, asked of the storage once per process."""

from __future__ import annotations

import pytest
from django.template import engines
from django.test import override_settings
from django.utils import translation

from tables.templatetags.cards import _addresses

django_engine = engines["django"]


def render(source: str, **context: object) -> str:
    return django_engine.from_string(source).render(context)


@pytest.mark.parametrize("code", ["Ah", "Tc", "", None])
@pytest.mark.parametrize("language", ["it", "en"])
def test_card_img_draws_what_the_include_drew(code: str | None, language: str) -> None:
    with translation.override(language):
        include = render('{% include "tables/partials/common/card.html" %}', c=code)
        tag = render("{% load cards %}{{ c|card_img }}", c=code)
    assert tag == include
    assert ('data-card="' in tag) == bool(code)


def test_card_image_is_the_static_address() -> None:
    assert render("{% load cards %}{{ 'Qs'|card_image }}") == render(
        "{% load static %}{% static 'cards/' %}Qs.svg"
    )
    assert render("{% load cards %}{{ ''|card_image }}") == render(
        "{% load static %}{% static 'cards/back.svg' %}"
    )


def test_another_static_url_gives_other_addresses() -> None:
    with override_settings(STATIC_URL="/elsewhere/"):
        assert render("{% load cards %}{{ 'Qs'|card_image }}") == "/elsewhere/cards/Qs.svg"
    assert _addresses.cache_info().currsize >= 2
