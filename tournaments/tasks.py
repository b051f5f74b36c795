"""The tournaments' periodic job: the level clock, run every second by the timekeeper (registered in
:meth:`tournaments.apps.TournamentsConfig.ready`, run in ``manage.py run_timekeeper``, not by Celery)."""

from __future__ import annotations

from tables.service import now_ms
from tournaments import mtt
from tournaments.models import Tournament


def tick_clocks(now: int | None = None) -> int:
    """Advance every running tournament whose level time is up (T-LEVEL-1) and start every scheduled one
    that is due (issue 18: :func:`tournaments.mtt.start_scheduled`); returns how many advanced or started.
    ``now``: epoch ms (default: the clock)."""
    now = now_ms() if now is None else now
    scheduled = Tournament.objects.filter(
        status="registering", config__starts_at_ms__gt=0, config__starts_at_ms__lte=now
    ).values_list("id", flat=True)
    started = sum(mtt.start_scheduled(tournament_id, now) for tournament_id in scheduled)
    due = Tournament.objects.filter(status="running", ends_at_ms__gt=0, ends_at_ms__lte=now)
    return started + sum(mtt.tick(tournament_id, now) for tournament_id in due.values_list("id", flat=True))
