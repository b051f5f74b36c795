"""Celery tasks of the tournaments: the level clock (beat, every second)."""

from __future__ import annotations

from celery import shared_task

from tables.service import now_ms
from tournaments import mtt, service
from tournaments.models import Tournament


@shared_task(ignore_result=True)
def tick_clocks() -> int:
    """Advance every running tournament whose level time is up (T-LEVEL-1)."""
    now = now_ms()
    due = Tournament.objects.filter(status="running", ends_at_ms__gt=0, ends_at_ms__lte=now)
    return sum(
        (mtt.tick if kind == "mtt" else service.tick)(tournament_id, now)
        for tournament_id, kind in due.values_list("id", "kind")
    )
