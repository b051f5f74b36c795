"""The tournaments' periodic job: the level clock, run every second by the timekeeper (registered in
:meth:`tournaments.apps.TournamentsConfig.ready`, run in ``manage.py run_timekeeper``, not by Celery)."""

from __future__ import annotations

from tables.service import now_ms
from tournaments import mtt
from tournaments.models import Tournament


def tick_clocks() -> int:
    """Advance every running tournament whose level time is up (T-LEVEL-1); returns how many advanced."""
    now = now_ms()
    due = Tournament.objects.filter(status="running", ends_at_ms__gt=0, ends_at_ms__lte=now)
    return sum(mtt.tick(tournament_id, now) for tournament_id in due.values_list("id", flat=True))
