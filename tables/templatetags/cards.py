"""``{% load cards %}``: ``{{ c|card_image }}``, the address of a card's picture (``static/cards/<code>.svg``;
the back, ``cards/back.svg``, for ``""`` or ``None``), and ``{{ c|card_img }}``, the card's ``<img>`` as the
seats, the board and the audit's replay draw it (a face-down card for ``""`` / ``None``).

The same address as ``{% static 'cards/' %}{{ c }}.svg``, with the storage asked once per process instead of
once per card: a table fragment shows twenty cards or more, and every viewer of every table gets one at
every action (issue 22: ``{% static %}`` was 5 % of the web process's event loop at 100 tables).
"""

from __future__ import annotations

import functools

from django import template
from django.conf import settings
from django.templatetags.static import static
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

register = template.Library()


@functools.cache
def _addresses(static_url: str) -> tuple[str, str]:
    """The cards' folder and the back's address under ``static_url`` (cached per ``STATIC_URL``, which a
    test may override)."""
    return static("cards/"), static("cards/back.svg")


@register.filter
def card_image(code: object) -> str:
    """``"Ah"`` → ``"/static/cards/Ah.svg"``; ``""`` / ``None`` → the back's address."""
    folder, back = _addresses(settings.STATIC_URL)
    return f"{folder}{code}.svg" if code else back


@register.filter
def card_img(code: object) -> SafeString:
    """``"Ah"`` → ``<img src="/static/cards/Ah.svg" alt="Ah" data-card="Ah">``; ``""`` / ``None`` → the back,
    ``alt`` "card" in the page's language. What the ``tables/partials/common/card.html`` include drew, without
    an include per card (twenty in a four-seat fragment: issue 22)."""
    if code:
        return format_html('<img src="{}" alt="{}" data-card="{}">', card_image(code), code, code)
    return format_html('<img src="{}" alt="{}">', card_image(""), _("card"))
