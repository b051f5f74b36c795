"""``{% load table_names %}``: ``{{ name|table_name }}``, a table's recorded name in the page's language.

The services name a tournament's tables "<tournament> — tavolo <n>" when they open them (the name is in the
event log and stays so); an English page says "<tournament> — table <n>" (issue 18). Other names are shown
as recorded.
"""

from __future__ import annotations

import re

from django import template
from django.utils.translation import gettext as _

register = template.Library()

_TAVOLO = re.compile(r" — tavolo (\d+)$")


@register.filter
def table_name(name: str) -> str:
    """``"Serale — tavolo 4"`` → ``"Serale — table 4"`` in English; any other name unchanged."""
    return _TAVOLO.sub(lambda m: " — " + _("table %(number)s") % {"number": m.group(1)}, str(name or ""))
